"""The compiled parts of the node-wise lasso's paths
(``skggm_bench.learners._lasso_paths``) against the numpy computations they
replaced, kept here as the references. The homotopy's loop: the same paths to
the last bit, and the same failures, on many problems (independent, strongly
correlated and duplicated predictors; adaptive weights with excluded
predictors; paths asked for in chunks; more than 128 predictors, where numpy's
pairwise sum splits). The CV errors: the same bits for every shape numpy
treats apart (one held-out row, one predictor, one penalty)."""

import numpy as np
import pytest
from scipy.linalg import blas
from threadpoolctl import threadpool_info

from skggm_bench.learners import AdaptiveLassoNetwork, _nodewise_lasso
from skggm_bench.learners._cross_validation import make_folds
from skggm_bench.learners._lasso_paths import LassoHomotopy, Outcome, held_out_errors
from skggm_bench.learners._nodewise_lasso import _CenteredFolds, _FoldHomotopy
from skggm_bench.learners._utils import standardize_columns


class NumpyHomotopy:
    """``LassoHomotopy`` in numpy, all folds in batched arrays: the computation
    ``_FoldHomotopy`` made before the loop was compiled."""

    def __init__(self, gram, correlation, xy, inverse_norms, max_knots, *rtols):
        self.gram, self.correlation, self.xy = gram, correlation, xy
        self.inverse_norms = inverse_norms
        self.min_pivot, self.zero_rtol, self.kkt_rtol = rtols
        self.active = np.zeros(xy.shape, dtype=bool)
        self.signs = np.zeros(xy.shape)
        self.inverse = np.zeros(gram.shape)
        self.alpha = np.full(len(xy), np.inf)
        self.knots_left = max_knots
        self._solve_segment()

    def _solve_segment(self):
        scaling = self.inverse_norms[:, :, None]
        uv = self.inverse @ (np.stack([self.xy, self.signs], axis=-1) * scaling)
        uv *= scaling
        self.u, self.v = uv[..., 0], uv[..., 1]
        slopes = self.gram @ uv
        self.a, b = self.xy - slopes[..., 0], slopes[..., 1]
        numerators = np.where(self.active, -self.signs * self.u, np.abs(self.a))
        denominators = np.where(
            self.active, -self.signs * self.v, 1.0 - np.sign(self.a) * b
        )
        knots = np.divide(
            numerators,
            denominators,
            out=np.zeros_like(numerators),
            where=(numerators > 0) & (denominators > 0),
        )
        knots[knots > self.alpha[:, None]] = 0.0
        self.next_predictor = np.argmax(knots, axis=1)
        self.next_alpha = knots[np.arange(len(knots)), self.next_predictor]

    def _update_inverse(self, stepping, entering):
        rows = np.arange(len(stepping))
        predictor = self.next_predictor
        column = self.correlation[rows, :, predictor]
        projected = (self.inverse @ column[:, :, None])[:, :, 0]
        direction = np.where(
            entering[:, None], projected, self.inverse[rows, :, predictor]
        )
        direction[rows, predictor] -= entering
        pivot = np.where(
            entering,
            1.0 - np.sum(column * projected, axis=1),
            -self.inverse[rows, predictor, predictor],
        )
        if np.any(stepping & entering & (pivot < self.min_pivot)):
            return False
        factor = np.divide(1.0, pivot, out=np.zeros_like(pivot), where=stepping)
        self.inverse += (factor[:, None] * direction)[:, :, None] * direction[:, None]
        leaving = np.flatnonzero(stepping & ~entering)
        self.inverse[leaving, predictor[leaving], :] = 0.0
        self.inverse[leaving, :, predictor[leaving]] = 0.0
        return True

    def _check(self, alphas, coefs):
        curvature = np.diagonal(self.gram, axis1=1, axis2=2)[:, :, None]
        coefs[np.abs(coefs) * curvature <= self.zero_rtol * alphas] = 0.0
        correlations = self.xy[:, :, None] - self.gram @ coefs
        excess = np.where(
            coefs != 0,
            np.abs(correlations - np.sign(coefs) * alphas),
            np.abs(correlations) - alphas,
        )
        if not np.all(excess <= self.kkt_rtol * alphas):
            return Outcome.NOT_OPTIMAL
        return Outcome.OK

    def path(self, alphas, coefs):
        while True:
            folds, columns = np.nonzero(
                (alphas <= self.alpha[:, None]) & (alphas >= self.next_alpha[:, None])
            )
            coefs[folds, :, columns] = (
                self.u[folds] - alphas[columns, None] * self.v[folds]
            )
            stepping = self.next_alpha > alphas[-1]
            if not stepping.any():
                return self._check(alphas, coefs)
            self.knots_left -= 1
            if self.knots_left < 0:
                return Outcome.TOO_MANY_KNOTS
            folds = np.arange(len(stepping))
            entering = ~self.active[folds, self.next_predictor]
            if not self._update_inverse(stepping, entering):
                return Outcome.COLLINEAR
            folds, entering = folds[stepping], entering[stepping]
            predictor = self.next_predictor[stepping]
            self.active[folds, predictor] = entering
            self.signs[folds, predictor] = entering * np.sign(self.a[folds, predictor])
            self.alpha[stepping] = self.next_alpha[stepping]
            self._solve_segment()


def numpy_blas_is_scipy_blas():
    """Whether numpy's matrix products are the bits of scipy's BLAS calls (both
    OpenBLAS, as in the wheels): the compiled loop makes the latter."""
    rng = np.random.default_rng(0)
    for size in (1, 2, 7, 9, 31, 64):
        A, B, x = rng.standard_normal((3, size, size))
        B, x = B[:, :2], x[0]
        # C-order products: BLAS's column-major products of the transposes.
        if not (
            np.array_equal(A @ B, blas.dgemm(1.0, B.T, A.T).T)
            and np.array_equal(A @ x, blas.dgemv(1.0, A.T, x, trans=1))
        ):
            return False
    return True


SAME_BLAS = numpy_blas_is_scipy_blas()


def test_the_comparisons_are_bitwise_with_the_wheels_openblas():
    """numpy's and scipy's wheels each bring an OpenBLAS: on one architecture
    they compute alike, and the comparisons here are to the last bit."""
    openblas = [i for i in threadpool_info() if i["internal_api"] == "openblas"]
    if len(openblas) < 2 or len({i["architecture"] for i in openblas}) > 1:
        pytest.skip("numpy and scipy do not both use OpenBLAS on one architecture")
    assert SAME_BLAS


def assert_same(result, expected):
    if SAME_BLAS:
        np.testing.assert_array_equal(result, expected)
        # Zeros of the same sign too.
        np.testing.assert_array_equal(np.signbit(result), np.signbit(expected))
    else:
        np.testing.assert_allclose(result, expected, rtol=1e-10, atol=1e-14)


def problem(seed):
    """A node's CV problem: its blocks, predictors, fold weights and penalty grid."""
    rng = np.random.default_rng(seed)
    big = seed == 0
    n = int(rng.integers(150, 220)) if big else int(rng.integers(12, 200))
    p = 140 if big else int(rng.integers(2, 60))
    X = rng.standard_normal((n, p))
    if seed % 4 == 1:  # three strong factors
        X += rng.standard_normal((n, 3)) @ rng.standard_normal((3, p))
    elif seed % 4 == 2 and p > 2:  # a duplicated predictor
        X[:, -1] = X[:, 0]
    elif seed % 4 == 3:  # a random walk: neighbours strongly correlated
        X = np.cumsum(X, axis=1)
    Z, _ = standardize_columns(X)
    folds = make_folds(int(rng.integers(2, 6)), n, seed)
    blocks = _CenteredFolds(Z, folds)
    node = int(rng.integers(p))
    predictors = np.delete(np.arange(p), node)
    if seed % 5 == 0:
        scales = np.ones((len(folds), p - 1))
    else:  # adaptive weights over decades, some predictors excluded
        scales = rng.standard_normal((len(folds), p - 1)) ** 2
        scales /= scales.max(axis=1, keepdims=True)
        scales[rng.random(scales.shape) < 0.3] = 0.0
    top = np.max(
        np.abs(scales * blocks.gram[:, predictors, node]) / blocks.n_train[:, None]
    )
    return blocks, node, predictors, scales, top * np.logspace(0.0, -3.0, 100)


def follow(blocks, node, predictors, scales, grid, chunks):
    """The fold paths in ``chunks`` of the grid, or the failure's message."""
    try:
        solver = _FoldHomotopy(blocks, node, predictors, scales)
        return [solver.path(grid[start:stop]) for start, stop in chunks]
    except _nodewise_lasso._HomotopyFailure as failure:
        return str(failure)


@pytest.mark.parametrize("seed", range(120))
def test_same_paths_as_the_numpy_homotopy(seed, monkeypatch):
    blocks, node, predictors, scales, grid = problem(seed)
    rng = np.random.default_rng(seed)
    cuts = sorted(rng.choice(np.arange(1, 100), int(rng.integers(0, 5)), False))
    chunks = list(zip([0, *cuts], [*cuts, 100], strict=True))
    compiled = follow(blocks, node, predictors, scales, grid, chunks)
    monkeypatch.setattr(_nodewise_lasso, "LassoHomotopy", NumpyHomotopy)
    reference = follow(blocks, node, predictors, scales, grid, chunks)
    if isinstance(reference, str):
        assert compiled == reference
        return
    assert not isinstance(compiled, str), compiled
    for result, expected in zip(compiled, reference, strict=True):
        assert_same(result, expected)


def test_the_problems_fail_and_succeed_both_ways():
    """The comparison above covers both outcomes (a duplicated predictor makes
    2 of these problems fail), and paths with knots where predictors leave the
    active set."""
    failed = leaving = 0
    for seed in range(120):
        blocks, node, predictors, scales, grid = problem(seed)
        try:
            solver = _FoldHomotopy(blocks, node, predictors, scales)
            coefs = solver.path(grid)
        except _nodewise_lasso._HomotopyFailure:
            failed += 1
            continue
        support = coefs != 0
        leaving += np.any(support[:, :, :-1] & ~support[:, :, 1:])
    assert 1 <= failed <= 10
    assert leaving >= 50


def test_knot_limit_collinear_predictors_and_optimality_check():
    # Two identical predictors: the second to enter has pivot 0.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    X[:, 2] = X[:, 1]
    R = np.corrcoef(X, rowvar=False)[None]
    y = X @ [1.0, 2.0, 2.0]
    xy = (X.T @ y / 40)[None]
    gram = (X.T @ X / 40)[None]
    inverse_norms = 1.0 / np.sqrt(np.diagonal(gram, axis1=1, axis2=2))
    alphas = np.abs(xy).max() * np.logspace(0.0, -3.0, 20)
    for max_knots, kkt_rtol, outcome in (
        (1, 1e-7, Outcome.TOO_MANY_KNOTS),
        (30, 1e-7, Outcome.COLLINEAR),
        # Before the duplicate enters, and held to an impossible tolerance.
        (30, -10.0, Outcome.NOT_OPTIMAL),
    ):
        kernel = LassoHomotopy(
            gram, R, xy, inverse_norms, max_knots, 1e-8, 1e-10, kkt_rtol
        )
        m = 20 if kkt_rtol > 0 else 2
        assert kernel.path(alphas[:m], np.zeros((1, 3, m))) == outcome


def test_adaptive_lasso_fit_is_the_numpy_homotopys(monkeypatch):
    # The adaptive lasso's second stage runs on the homotopy: whole fits agree.
    rng = np.random.default_rng(3)
    X = rng.standard_normal((80, 15))
    X[:, 1:] += 0.6 * X[:, :-1]
    compiled = AdaptiveLassoNetwork(random_state=0).fit(X)
    monkeypatch.setattr(_nodewise_lasso, "LassoHomotopy", NumpyHomotopy)
    reference = AdaptiveLassoNetwork(random_state=0).fit(X)
    assert_same(compiled.coef_, reference.coef_)
    assert_same(compiled.cv_errors_, reference.cv_errors_)
    np.testing.assert_array_equal(compiled.alpha_, reference.alpha_)


@pytest.mark.parametrize("seed", range(40))
def test_same_held_out_errors_as_numpy(seed):
    rng = np.random.default_rng(seed)
    n_folds = int(rng.integers(3, 7))
    # Every fifth problem has one held-out row per fold.
    n_samples = n_folds if seed % 5 == 0 else int(rng.integers(n_folds, 200))
    p = int(rng.integers(2, 60))
    # Rows and columns over decades: residuals whose squares sum differently in
    # another order.
    Z = rng.standard_normal((n_samples, p)) * 10.0 ** rng.uniform(-3, 3, p)
    Z *= 10.0 ** rng.uniform(-3, 3, (n_samples, 1))
    folds = _CenteredFolds(Z, make_folds(n_folds, n_samples, seed))
    node = int(rng.integers(p))
    predictors = np.delete(np.arange(p), node)
    if seed % 4 == 1:
        predictors = predictors[:1]
    elif seed % 4 == 2:
        predictors = np.sort(rng.choice(predictors, int(rng.integers(1, p)), False))
    m = (1, 2, 10, 100)[seed % 4]
    coefs = rng.standard_normal((n_folds, predictors.size, m))
    coefs[rng.random(coefs.shape) < 0.3] = 0.0
    errors = np.full((n_folds, 120), np.nan)
    held_out_errors(
        folds.held_out, folds.offsets, node, predictors, coefs, errors[:, 7 : 7 + m]
    )
    expected = [
        np.mean((X[:, [node]] - X[:, predictors] @ coefs[fold]) ** 2, axis=0)
        for fold, X in enumerate(folds.X_test)
    ]
    assert_same(errors[:, 7 : 7 + m], np.array(expected))
    assert np.isnan(errors[:, :7]).all() and np.isnan(errors[:, 7 + m :]).all()
