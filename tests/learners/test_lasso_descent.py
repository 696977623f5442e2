"""The compiled lasso path on a Gram matrix (``skggm_bench.learners._lasso_descent``)
that the node-wise lasso learners' coordinate descent runs on: the same bits as
scikit-learn's ``lasso_path`` with a precomputed Gram matrix (whose iteration it
follows, scikit-learn 1.8 and later), optimal where it converges, and a
``ConvergenceWarning`` for every penalty where it does not."""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import lasso_path
from sklearn.utils.fixes import parse_version

from skggm_bench.learners._lasso_descent import lasso_gram_path, lasso_gram_paths
from skggm_bench.learners._nodewise_lasso import (
    _CenteredFolds,
    _FoldCoordinateDescent,
)

# Gap safe screening entered scikit-learn's Gram coordinate descent in 1.8
# (scikit-learn PR 31987); before it, the two iterations differ at the
# tolerance's level.
SAME_ITERATION = parse_version(sklearn.__version__) >= parse_version("1.8")


def problem(seed):
    """A centred design (independent or strongly correlated columns) and a response."""
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(5, 120)), int(rng.integers(1, 50))
    X = rng.standard_normal((n, k))
    if seed % 2:
        X += 0.5 * X @ rng.standard_normal((k, k))
    if seed % 5 == 0:
        X[:, 0] = 0.0  # a constant (centred: zero) column
    X = np.asfortranarray(X - X.mean(axis=0))
    y = X[:, -1] + rng.standard_normal(n)
    y -= y.mean()
    return X, y


def kernel_path(X, y, alphas, max_iter, tol=1e-4, start=None, sweep_limit=None):
    k = X.shape[1]
    w = np.zeros(k) if start is None else start.copy()
    coefs = np.empty((alphas.size, k))
    sweeps = np.empty(alphas.size, dtype=np.intc)
    gaps = np.empty(alphas.size)
    converged = np.empty(alphas.size, dtype=np.uint8)
    _, n_solved = lasso_gram_path(
        X.T @ X,
        X.T @ y,
        float(np.dot(y, y)),
        alphas * X.shape[0],
        w,
        coefs,
        sweeps,
        gaps,
        converged,
        max_iter,
        tol,
        max_iter if sweep_limit is None else sweep_limit,
    )
    if sweep_limit is None:
        assert n_solved == alphas.size
    return coefs[:n_solved].T, sweeps[:n_solved], converged[:n_solved], w


def grid(X, y, n_alphas=30):
    top = np.abs(X.T @ y).max() / X.shape[0]
    return top * np.logspace(0.0, -3.0, n_alphas)


@pytest.mark.skipif(
    not SAME_ITERATION, reason="scikit-learn before 1.8 iterates otherwise"
)
@pytest.mark.parametrize("max_iter", [3, 1000])
def test_same_bits_as_scikit_learn(max_iter):
    for seed in range(60):
        X, y = problem(seed)
        alphas = grid(X, y)
        start = None if seed % 3 else np.linspace(-0.1, 0.1, X.shape[1])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, expected, _, n_iter = lasso_path(
                X,
                y,
                alphas=alphas,
                precompute=X.T @ X,
                Xy=X.T @ y,
                max_iter=max_iter,
                # lasso_path overwrites a contiguous start with its solutions.
                coef_init=None if start is None else start.copy(),
                check_input=False,
                return_n_iter=True,
            )
        coefs, sweeps, converged, last = kernel_path(
            X, y, alphas, max_iter, start=start
        )
        np.testing.assert_array_equal(coefs, expected)
        np.testing.assert_array_equal(sweeps, n_iter)
        np.testing.assert_array_equal(last, expected[:, -1])
        unconverged = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
        assert len(unconverged) == np.count_nonzero(converged == 0)


def test_solutions_meet_the_optimality_conditions():
    """Where it converges: |X_j'r| <= n alpha, with equality and the sign of w_j
    on the support (to the tolerance a duality gap of 1e-12 y'y allows)."""
    for seed in range(20):
        X, y = problem(seed)
        alphas = grid(X, y, 10)
        coefs, _, converged, _ = kernel_path(X, y, alphas, 10_000, tol=1e-12)
        assert converged.all()
        penalties = alphas * X.shape[0]
        correlations = X.T @ (y[:, None] - X @ coefs)
        slack = 1e-5 * np.sqrt(np.dot(y, y)) * np.linalg.norm(X, axis=0).max()
        assert np.all(np.abs(correlations) <= penalties + slack)
        support = coefs != 0
        on_support = np.broadcast_to(np.sign(coefs) * penalties, coefs.shape)
        np.testing.assert_allclose(
            correlations[support], on_support[support], rtol=0, atol=slack
        )
        assert not support[np.linalg.norm(X, axis=0) == 0].any()


def test_warm_start_and_last_solution():
    """A path split in two chunks, the second started from the first's last
    solution, equals the path in one call."""
    X, y = problem(3)
    alphas = grid(X, y)
    whole, _, _, _ = kernel_path(X, y, alphas, 1000)
    first, _, _, last = kernel_path(X, y, alphas[:12], 1000)
    second, _, _, _ = kernel_path(X, y, alphas[12:], 1000, start=last)
    np.testing.assert_array_equal(np.hstack([first, second]), whole)


def test_node_path_warns_where_sweeps_run_out():
    """The node-wise lasso's path raises scikit-learn's ConvergenceWarning once
    per penalty that ``max_iter`` sweeps did not solve, and none otherwise."""
    X, _ = problem(7)
    blocks = _CenteredFolds(X, [(np.arange(X.shape[0]), None)])
    predictors = np.arange(1, X.shape[1])
    scales = np.ones((1, predictors.size))
    alphas = 0.01 * np.logspace(0.0, -2.0, 5)
    descent = _FoldCoordinateDescent(blocks, 0, predictors, scales, 1e-12, 1, None)
    with pytest.warns(ConvergenceWarning, match="Duality gap") as caught:
        descent.path(alphas)
    assert len(caught) == alphas.size
    descent = _FoldCoordinateDescent(blocks, 0, predictors, scales, 1e-4, 10_000, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        coefs = descent.path(alphas)
    assert coefs.shape == (1, predictors.size, alphas.size)


def test_several_problems_in_one_call_are_each_solved_alone():
    """``lasso_gram_paths`` (the folds of a node in one call, each on its own
    penalties) gives each problem's ``lasso_gram_path`` bits, warm starts and
    sweeps, and stops after the first problem that passes the sweep limit."""
    stopped_within = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        k = int(rng.integers(1, 40))
        mixing = 0.5 * rng.standard_normal((k, k)) * (seed % 2)
        designs = [rng.standard_normal((int(rng.integers(5, 80)), k)) for _ in range(4)]
        designs = [X + X @ mixing for X in designs]
        designs = [np.asfortranarray(X - X.mean(axis=0)) for X in designs]
        ys = [X @ rng.standard_normal(k) + rng.standard_normal(len(X)) for X in designs]
        alphas = np.logspace(0.0, -3.0, 12)
        starts = rng.standard_normal((len(designs), k)) * (seed % 3 == 0)
        alone = [
            kernel_path(X, y, alphas, 1000, start=start)
            for X, y, start in zip(designs, ys, starts, strict=True)
        ]
        # A limit the first problem stays within; later ones may not.
        limit = int(alone[0][1].max())
        for sweep_limit in (1000, limit):
            shape = (len(designs), alphas.size)
            coefs = np.empty((*shape, k))
            sweeps = np.empty(shape, dtype=np.intc)
            gaps = np.empty(shape)
            converged = np.ones(shape, dtype=np.uint8)
            w = starts.copy()
            n_problems, n_solved = lasso_gram_paths(
                np.stack([X.T @ X for X in designs]),
                np.stack([X.T @ y for X, y in zip(designs, ys, strict=True)]),
                np.array([np.dot(y, y) for y in ys]),
                alphas * np.array([[len(X)] for X in designs]),
                w,
                coefs,
                sweeps,
                gaps,
                converged,
                1000,
                1e-4,
                sweep_limit,
            )
            for index, (expected, expected_sweeps, _, last) in enumerate(alone):
                if index == n_problems:
                    break
                solved = alphas.size if index < n_problems - 1 else n_solved
                np.testing.assert_array_equal(
                    coefs[index, :solved].T, expected[:, :solved]
                )
                np.testing.assert_array_equal(
                    sweeps[index, :solved], expected_sweeps[:solved]
                )
                if solved == alphas.size:
                    np.testing.assert_array_equal(w[index], last)
            stops = [
                index
                for index, (_, expected_sweeps, _, _) in enumerate(alone)
                if (expected_sweeps > sweep_limit).any()
            ]
            assert n_problems == (stops[0] + 1 if stops else len(designs))
            if stops:
                first_past = int(np.argmax(alone[stops[0]][1] > sweep_limit))
                assert n_solved == first_past + 1
                stopped_within += stops[0] < len(designs) - 1
    assert stopped_within >= 2


def test_stops_after_the_first_penalty_past_the_sweep_limit():
    """The path ends with the first penalty that needs more than ``sweep_limit``
    sweeps, its solution the one the unlimited path has there."""
    X, y = problem(1)  # correlated columns: many sweeps at small penalties
    alphas = grid(X, y)
    whole, sweeps, _, _ = kernel_path(X, y, alphas, 1000)
    limit = int(np.median(sweeps))
    first_past = int(np.argmax(sweeps > limit))
    assert sweeps[first_past] > limit and first_past < alphas.size - 1
    stopped, stopped_sweeps, _, last = kernel_path(
        X, y, alphas, 1000, sweep_limit=limit
    )
    assert stopped.shape[1] == first_past + 1
    np.testing.assert_array_equal(stopped, whole[:, : first_past + 1])
    np.testing.assert_array_equal(last, whole[:, first_past])
    assert stopped_sweeps[-1] > limit >= stopped_sweeps[:-1].max(initial=0)
