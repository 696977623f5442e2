"""The graphical lasso path solver behind StARS/EBIC's fast path for scikit-learn's
``GraphicalLasso``: exact (optimality conditions checked directly), the same
solutions as scikit-learn's solver run to a tight tolerance, and the same
penalty selection as fitting every subsample x penalty afresh."""

import warnings

import numpy as np
import pytest
from glasso_optimality import kkt_violation
from sklearn.covariance import GraphicalLasso, empirical_covariance, graphical_lasso
from sklearn.preprocessing import StandardScaler
from sparse_data import sparse_gaussian_data

import skggm_bench.learners._glasso_path as glasso_path
from skggm_bench.learners import EBIC, StARS
from skggm_bench.learners._penalty_search import edge_path, fit_at, fitted_edges

# (n_samples, n_features, seed): n > p, n ~ p and n < p.
SHAPES = [(120, 15, 0), (40, 20, 1), (25, 30, 2)]


class PlainGraphicalLasso(GraphicalLasso):
    """scikit-learn's GraphicalLasso under another type: the fast path does not
    recognise a subclass, so StARS fits it once per subsample and penalty."""


def path_penalties(S, count=8):
    largest = np.abs(S - np.diag(np.diag(S))).max()
    return largest * np.geomspace(1.0, 0.1, count)


@pytest.fixture(params=["descent", "newton"])
def route(request, monkeypatch):
    """Each component from the block coordinate descent's start (the solver's
    route), or by the Newton method alone (its fallback where the descent
    gives up): both must be exact."""
    if request.param == "newton":
        monkeypatch.setattr(glasso_path, "_descend", lambda *args: None)
    return request.param


@pytest.mark.parametrize(("n", "p", "seed"), SHAPES)
def test_path_is_exact(n, p, seed, route):
    """Positive definite, and the optimality conditions hold to 1e-8 (relative
    to the scale of S) at every penalty, components merged or not."""
    S = empirical_covariance(sparse_gaussian_data(n, p, seed, scale_columns=True))
    alphas = path_penalties(S)
    precisions, solved = glasso_path.graphical_lasso_path(S, alphas)
    assert solved.all()
    scale = np.diag(S).max()
    for alpha, K in zip(alphas, precisions, strict=True):
        assert np.linalg.eigvalsh(K)[0] > 0
        assert kkt_violation(S, K, alpha) <= 1e-8 * scale
    # Power: the solution at another penalty violates them.
    assert kkt_violation(S, precisions[3], alphas[4]) > 1e-3 * scale


@pytest.mark.parametrize(("n", "p", "seed"), [(40, 30, 0), (80, 50, 3)])
def test_path_is_exact_on_strongly_correlated_data(n, p, seed, route):
    """AR(1) columns with coefficient 0.98 (the methods preset's
    TriangulatedOrthogonalization cells are as ill-conditioned): every penalty
    settles, with exactly symmetric solutions. Before the Newton direction was
    symmetrised, rounding made the iterate asymmetric, the line search stalled
    and two and three of the ten penalties here were left unsettled."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    for j in range(1, p):
        X[:, j] = 0.98 * X[:, j - 1] + np.sqrt(1 - 0.98**2) * X[:, j]
    S = empirical_covariance(StandardScaler().fit_transform(X))
    alphas = path_penalties(S, count=10)
    precisions, solved = glasso_path.graphical_lasso_path(S, alphas)
    assert solved.all()
    for alpha, K in zip(alphas, precisions, strict=True):
        np.testing.assert_array_equal(K, K.T)
        assert np.linalg.eigvalsh(K)[0] > 0
        assert kkt_violation(S, K, alpha) <= 1e-8


@pytest.mark.parametrize("products", ["dense", "sparse", "on_support"])
def test_newton_direction_solves_the_newton_system(monkeypatch, products):
    """In double precision the direction solves ``P(W D W) = -gradient`` on the
    support to the conjugate gradients' stopping rule (every residual entry
    within _CG_ENTRY_SHARE of the tolerance here), checked with a dense
    product, whether the solver's products are dense (as at p = 40), sparse (as
    at p = 300) or computed on the support alone (as at large p)."""
    S = empirical_covariance(sparse_gaussian_data(80, 40, 6, scale_columns=True))
    alpha = path_penalties(S)[4]
    K = glasso_path.graphical_lasso_path(S, [alpha])[0][0]
    W = np.linalg.inv(K)
    rng = np.random.default_rng(0)
    support = (K != 0) | (rng.random(K.shape) < 0.05)
    support |= support.T
    gradient = np.where(support, rng.standard_normal(K.shape), 0.0)
    gradient += gradient.T
    gradient *= 1e-6 / np.linalg.norm(gradient)
    if products != "dense":
        monkeypatch.setattr(glasso_path, "_SMALL", 0)
    if products == "on_support":
        monkeypatch.setattr(glasso_path, "_GATHER_COST", 0)
        monkeypatch.setattr(glasso_path, "_ROW_COST", 0)
    tol = glasso_path._KKT_TOL
    entries = glasso_path._support_of(
        *np.nonzero(support), np.empty(K.shape, dtype=np.intp)
    )
    on_support = (entries.rows, entries.cols)
    values = glasso_path._newton_direction(
        W, K, gradient[on_support], entries, np.float64, tol
    )
    D = np.zeros_like(K)
    D[on_support] = values
    np.testing.assert_array_equal(D, D.T)
    residual = np.where(support, W @ D @ W + gradient, 0.0)
    entry_tol = glasso_path._CG_ENTRY_SHARE * tol
    assert np.abs(residual).max() <= 1.05 * entry_tol
    # Power: the direction is not small beside the gradient's own residual.
    assert np.abs(gradient).max() > 1e3 * entry_tol


@pytest.mark.parametrize("covariance", [0.6, -0.6, 1.4])
def test_a_pair_is_solved_in_closed_form(covariance):
    """A component of two variables: the closed form meets the optimality
    conditions (to rounding), singular ``S`` (|S_12| = sqrt(S_11 S_22)) too."""
    S = np.array([[1.0, covariance], [covariance, 1.96]])
    for alpha in (0.1, 0.5):
        K = glasso_path._solve_pair(S, alpha)
        assert np.linalg.eigvalsh(K)[0] > 0
        assert kkt_violation(S, K, alpha) <= 1e-14
        # Power: the conditions fail at another penalty.
        assert kkt_violation(S, K, alpha + 0.05) > 1e-3


def test_a_failed_single_precision_direction_falls_back_to_double(monkeypatch):
    """Where the line search finds no decrease along a single-precision Newton
    direction (spoilt here), the direction is computed again in double
    precision and the component finished so: every penalty exact. The Newton
    method alone, as where the block coordinate descent gives up."""
    S = empirical_covariance(sparse_gaussian_data(60, 25, 5, scale_columns=True))
    monkeypatch.setattr(glasso_path, "_descend", lambda *args: None)
    alphas = path_penalties(S, count=5)
    solve = glasso_path._newton_direction
    dtypes = []

    def spoilt(W, K, gradient, support, dtype, tol):
        dtypes.append(dtype)
        direction = solve(W, K, gradient, support, dtype, tol)
        return np.full_like(direction, np.nan) if dtype is np.float32 else direction

    monkeypatch.setattr(glasso_path, "_newton_direction", spoilt)
    precisions, solved = glasso_path.graphical_lasso_path(S, alphas)
    assert solved.all()
    for alpha, K in zip(alphas, precisions, strict=True):
        assert kkt_violation(S, K, alpha) <= 1e-8 * np.diag(S).max()
    tried = [i for i, dtype in enumerate(dtypes) if dtype is np.float32]
    assert tried
    assert all(dtypes[i + 1] is np.float64 for i in tried)


@pytest.mark.parametrize("scale", [1.0, 3.7])
@pytest.mark.parametrize("order", ["C", "F"])
def test_a_symmetric_covariance_is_only_scaled(scale, order):
    """``symmetric=True`` (``S`` exactly symmetric, as ExactGraphicalLasso
    passes a precomputed one) skips the symmetric part: the same solutions
    bit for bit, at unit scale (largest variance 1) and not, and ``S`` left
    as it is."""
    S = empirical_covariance(sparse_gaussian_data(60, 25, 4, scale_columns=True))
    S = 0.5 * (S + S.T)
    S = np.array(scale * (S / np.diag(S).max()), order=order)
    kept = S.copy()
    alphas = path_penalties(S, count=4)
    expected, expected_solved = glasso_path.graphical_lasso_path(S, alphas)
    precisions, solved = glasso_path.graphical_lasso_path(S, alphas, symmetric=True)
    np.testing.assert_array_equal(precisions, expected)
    np.testing.assert_array_equal(solved, expected_solved)
    np.testing.assert_array_equal(S, kept)


@pytest.mark.parametrize("largest", [1.0, 1.5, 3.7, 0.3])
def test_a_covariance_is_solved_at_a_power_of_two_scale(monkeypatch, largest):
    """The path solves ``S / c`` for the power of two ``c`` that puts the
    largest variance in [1, 2): exact, so ``S`` and ``4 S`` give the same
    solutions up to the factor 4 bit for bit, and an exactly symmetric ``S``
    already at that scale is read where it is, not copied."""
    S = empirical_covariance(sparse_gaussian_data(60, 25, 4, scale_columns=True))
    S = 0.5 * (S + S.T)
    S *= largest / np.diag(S).max()
    alphas = path_penalties(S, count=3)
    seen = []
    descend = glasso_path._descend

    def spy(S, *args):
        seen.append(S)
        return descend(S, *args)

    monkeypatch.setattr(glasso_path, "_descend", spy)
    precisions, solved = glasso_path.graphical_lasso_path(S, alphas, symmetric=True)
    assert solved.all() and seen
    # The whole matrix is one component at the smallest penalty: S itself.
    assert any(np.shares_memory(block, S) for block in seen) == (1 <= largest < 2)
    scaled, _ = glasso_path.graphical_lasso_path(4 * S, 4 * alphas, symmetric=True)
    np.testing.assert_array_equal(scaled, precisions / 4)


@pytest.mark.parametrize("start", [None, "warm"])
def test_one_penalty_is_scaled_in_its_own_place(start):
    """A path of one penalty returns its solution scaled back in place (no
    copy into a stacked array): unscaled ``S``, exact, and the caller's start
    left as it is."""
    S = 3.7 * empirical_covariance(sparse_gaussian_data(60, 25, 7, scale_columns=True))
    alpha = path_penalties(S)[4]
    warm = None if start is None else np.linalg.inv(S + np.eye(25))
    kept = None if warm is None else warm.copy()
    precisions, solved = glasso_path.graphical_lasso_path(S, [alpha], start=warm)
    assert precisions.shape == (1, 25, 25) and solved.all()
    assert kkt_violation(S, precisions[0], alpha) <= 1e-8 * np.diag(S).max()
    if warm is not None:
        np.testing.assert_array_equal(warm, kept)


def test_the_certificate_factorises_a_copy_of_the_lower_triangle():
    """``certificate`` factorises and inverts one copy of ``K``: ``K`` is left
    as it is, ``W`` is its inverse, exactly symmetric, read from ``K``'s lower
    triangle (as scipy's lower Cholesky factorisation reads it); ``(inf,
    None)`` where ``K`` is not positive definite."""
    S = empirical_covariance(sparse_gaussian_data(60, 25, 6, scale_columns=True))
    alpha = path_penalties(S)[3]
    K = glasso_path.graphical_lasso_path(S, [alpha])[0][0]
    kept = K.copy()
    violation, W = glasso_path.certificate(S, K, alpha)
    np.testing.assert_array_equal(K, kept)
    np.testing.assert_array_equal(W, W.T)
    np.testing.assert_allclose(W, np.linalg.inv(K), rtol=1e-10, atol=1e-12)
    assert violation <= 1e-10
    # Another upper triangle: the same inverse (the scan then reads its signs).
    upper = K + np.triu(np.ones_like(K), 1)
    np.testing.assert_array_equal(glasso_path.certificate(S, upper, alpha)[1], W)
    assert glasso_path.certificate(S, -K, alpha) == (np.inf, None)


def test_the_certificate_in_a_work_array_is_the_same_to_the_bit():
    """With ``work``, the certificate factorises and inverts in the caller's
    array (the inverse returned is ``work`` itself): the same residual and
    inverse bit for bit, ``K`` left as it is, whatever ``work`` held; and
    ``(inf, None)`` where ``K`` is not positive definite."""
    S = empirical_covariance(sparse_gaussian_data(60, 25, 6, scale_columns=True))
    alpha = path_penalties(S)[3]
    K = glasso_path.graphical_lasso_path(S, [alpha])[0][0]
    kept = K.copy()
    expected = glasso_path.certificate(S, K, alpha)
    work = np.full_like(K, np.nan)
    violation, W = glasso_path.certificate(S, K, alpha, work)
    assert W is work or np.shares_memory(W, work)
    assert violation == expected[0]
    np.testing.assert_array_equal(W, expected[1])
    np.testing.assert_array_equal(K, kept)
    assert glasso_path.certificate(S, -K, alpha, work) == (np.inf, None)


@pytest.mark.parametrize("count", [1, 4])
@pytest.mark.parametrize("start", [None, "warm"])
def test_certified_path_is_the_unchecked_path_and_its_certificates(count, start):
    """``certified_path`` returns the unchecked path's solutions (``check=False``),
    each with its certificate from a fresh inverse, and the last one's inverse,
    bit for bit as computed one by one: the descent's spare ``W`` it factorises
    in changes nothing. ``S`` and the start are left as they are."""
    S = empirical_covariance(sparse_gaussian_data(60, 25, 4, scale_columns=True))
    alphas = path_penalties(S, count=6)[-count:]
    warm = None if start is None else np.linalg.inv(S + np.eye(25))
    kept = S.copy(), None if warm is None else warm.copy()
    expected, _ = glasso_path.graphical_lasso_path(S, alphas, warm, check=False)
    certificates = [
        glasso_path.certificate(S, K, a) for K, a in zip(expected, alphas, strict=True)
    ]
    # The last penalty's descent solved the whole matrix: its W is the spare.
    assert glasso_path._solve_path(S, alphas, warm, 1e-10, False, False)[2] is not None
    precisions, residuals, covariance = glasso_path.certified_path(S, alphas, warm)
    np.testing.assert_array_equal(precisions, expected)
    np.testing.assert_array_equal(residuals, [c[0] for c in certificates])
    np.testing.assert_array_equal(covariance, certificates[-1][1])
    assert residuals.max() <= 1e-10
    np.testing.assert_array_equal(S, kept[0])
    if warm is not None:
        np.testing.assert_array_equal(warm, kept[1])


@pytest.mark.parametrize(("n", "p", "seed"), SHAPES)
def test_path_matches_scikit_learn_run_to_a_tight_tolerance(n, p, seed):
    S = empirical_covariance(
        StandardScaler().fit_transform(
            sparse_gaussian_data(n, p, seed, scale_columns=True)
        )
    )
    alphas = path_penalties(S)
    precisions, _ = glasso_path.graphical_lasso_path(S, alphas)
    for alpha, ours in zip(alphas, precisions, strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence chatter
            _, theirs = graphical_lasso(
                S, alpha, tol=1e-12, enet_tol=1e-14, max_iter=2000
            )
        np.testing.assert_array_equal(ours != 0, theirs != 0)
        np.testing.assert_allclose(ours, theirs, atol=1e-6)


@pytest.mark.parametrize(("n", "p", "seed"), SHAPES)
def test_edge_path_of_graphical_lasso_equals_one_fit_per_penalty(n, p, seed):
    X = StandardScaler().fit_transform(
        sparse_gaussian_data(n, p, seed, scale_columns=True)
    )
    alphas = path_penalties(empirical_covariance(X))
    tight = GraphicalLasso(tol=1e-12, enet_tol=1e-14, max_iter=2000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slow = np.stack([fitted_edges(fit_at(tight, "alpha", a, X)) for a in alphas])
    np.testing.assert_array_equal(edge_path(tight, "alpha", alphas, X), slow)


def test_unsettled_penalties_are_fitted_by_the_learner(monkeypatch):
    """Where the solver gives up, the learner itself is fitted at that penalty."""
    X = StandardScaler().fit_transform(
        sparse_gaussian_data(60, 12, 3, scale_columns=True)
    )
    alphas = path_penalties(empirical_covariance(X), count=5)
    learner = GraphicalLasso(enet_tol=1e-8)
    fast = edge_path(learner, "alpha", alphas, X)
    calls = []

    def give_up(S, alpha, K, tol):
        calls.append(alpha)
        return K, None, False

    monkeypatch.setattr(glasso_path, "_descend", lambda *args: None)
    monkeypatch.setattr(glasso_path, "_solve_component", give_up)
    fallback = edge_path(learner, "alpha", alphas, X)
    assert calls  # the solver was asked and gave up
    np.testing.assert_array_equal(fallback, fast)


def test_fast_path_applies_only_to_graphical_lasso_on_samples():
    X = sparse_gaussian_data(50, 8, 4, scale_columns=True)
    alphas = [0.3, 0.1]
    assert glasso_path.plain_graphical_lasso_path(GraphicalLasso(), X, alphas)
    for other in (PlainGraphicalLasso(), GraphicalLasso(covariance="precomputed")):
        assert glasso_path.plain_graphical_lasso_path(other, X, alphas) is None
    constant = X.copy()
    constant[:, 2] = 1.0
    assert (
        glasso_path.plain_graphical_lasso_path(GraphicalLasso(), constant, alphas)
        is None
    )


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_stars_fast_path_chooses_as_the_plain_loop(seed):
    """StARS(GraphicalLasso()) with its default (loose) tolerances: the same
    penalty and, but for an entry or two where scikit-learn stops short of the
    exact solution, the same edge frequencies as fitting every subsample and
    penalty afresh."""
    X = StandardScaler().fit_transform(
        sparse_gaussian_data(60, 15, seed, scale_columns=True)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = StARS(PlainGraphicalLasso(), n_subsamples=10, random_state=seed).fit(X)
        fast = StARS(GraphicalLasso(), n_subsamples=10, random_state=seed).fit(X)
    assert fast.best_index_ == plain.best_index_
    difference = np.abs(fast.edge_frequencies_ - plain.edge_frequencies_)
    assert difference.max() <= 0.1 + 1e-12  # one subsample of ten
    assert np.count_nonzero(difference) <= 4  # 2 pairs, both triangles
    np.testing.assert_allclose(fast.criterion_, plain.criterion_, atol=0.01)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ebic_fast_path_chooses_as_the_plain_loop(seed):
    """EBIC's criterion from the exact path agrees with fitting every penalty,
    up to scikit-learn's tolerance (which may keep or drop one entry near zero:
    one edge's penalty, log n + 4 gamma log p), and so do the choice and the
    refitted learner."""
    X = StandardScaler().fit_transform(
        sparse_gaussian_data(80, 15, seed, scale_columns=True)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = EBIC(PlainGraphicalLasso(enet_tol=1e-8)).fit(X)
        fast = EBIC(GraphicalLasso(enet_tol=1e-8)).fit(X)
    assert fast.best_index_ == plain.best_index_
    one_edge = np.log(80) + 4 * 0.5 * np.log(15)
    difference = np.abs(fast.criterion_ - plain.criterion_)
    assert np.all(difference <= one_edge + 1e-4 * np.abs(plain.criterion_))
    assert np.count_nonzero(difference > 1e-4 * np.abs(plain.criterion_)) <= 1
    np.testing.assert_allclose(fast.precision_, plain.precision_)
