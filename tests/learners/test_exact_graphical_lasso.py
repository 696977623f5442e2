"""ExactGraphicalLasso: the minimiser of the graphical lasso objective (checked
against scikit-learn run to a tight tolerance and by the optimality conditions
computed here), its certificate, its path and warm starts, and its errors."""

import warnings

import numpy as np
import pytest
from glasso_optimality import kkt_violation
from sklearn.covariance import empirical_covariance, graphical_lasso
from sklearn.exceptions import ConvergenceWarning
from sparse_data import sparse_gaussian_data

import skggm_bench.learners._exact_graphical_lasso as exact_module
import skggm_bench.learners._glasso_path as glasso_path
from skggm_bench.learners import ExactGraphicalLasso

SHAPES = [(120, 15, 0), (40, 20, 1), (25, 30, 2)]


def objective(S, K, alpha):
    off = ~np.eye(S.shape[0], dtype=bool)
    return -np.linalg.slogdet(K)[1] + np.sum(S * K) + alpha * np.abs(K[off]).sum()


def penalty(S, fraction):
    return fraction * np.abs(S - np.diag(np.diag(S))).max()


@pytest.mark.parametrize(("n", "p", "seed"), SHAPES)
def test_matches_scikit_learn_at_a_tight_tolerance(n, p, seed):
    """The same support and values as scikit-learn's solver pushed to its limit,
    an objective no higher, and both certificates small; n < p included."""
    X = sparse_gaussian_data(n, p, seed, scale_columns=True)
    S = empirical_covariance(X)
    alpha = penalty(S, 0.3)
    model = ExactGraphicalLasso(alpha=alpha).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, theirs = graphical_lasso(S, alpha, tol=1e-12, enet_tol=1e-14, max_iter=2000)
    ours = model.precision_
    np.testing.assert_array_equal(ours != 0, theirs != 0)
    np.testing.assert_allclose(ours, theirs, atol=1e-6 * np.abs(theirs).max())
    assert objective(S, ours, alpha) <= objective(S, theirs, alpha) + 1e-10
    scale = np.diag(S).max()
    assert kkt_violation(S, ours, alpha) <= 1e-8 * scale
    assert model.kkt_residual_ <= 1e-9
    assert model.kkt_residual_ == pytest.approx(
        max(kkt_violation(S, ours, alpha), 0.0) / scale, abs=1e-12
    )
    np.testing.assert_allclose(model.covariance_ @ ours, np.eye(p), atol=1e-8)
    np.testing.assert_array_equal(
        model.adjacency_, (ours != 0) & ~np.eye(p, dtype=bool)
    )
    np.testing.assert_array_equal(ours, ours.T)
    np.testing.assert_allclose(model.location_, X.mean(axis=0))


def test_certificate_detects_a_wrong_solution():
    """The certificate is not a formality: the solution at another penalty, or
    the solution with one zero made non-zero, is rejected by orders of magnitude."""
    X = sparse_gaussian_data(120, 15, 0, scale_columns=True)
    S = empirical_covariance(X)
    alpha = penalty(S, 0.3)
    K = ExactGraphicalLasso(alpha=alpha).fit(X).precision_
    assert glasso_path.kkt_residual(S, K, alpha) <= 1e-9
    assert glasso_path.kkt_residual(S, K, 1.2 * alpha) > 1e-3
    i, j = np.argwhere(K == 0)[0]
    moved = K.copy()
    moved[i, j] = moved[j, i] = 1e-3 * np.abs(K).max()
    assert glasso_path.kkt_residual(S, moved, alpha) > 1e-5
    assert glasso_path.kkt_residual(S, -np.eye(15), alpha) == np.inf


def test_screening_splits_exactly_into_components():
    """Two independent blocks: the solution is block diagonal with exact zeros
    between them and equals the two blocks fitted separately."""
    left = sparse_gaussian_data(200, 8, 5)
    right = sparse_gaussian_data(200, 7, 6) * 1.5
    X = np.hstack([left, right])
    S = empirical_covariance(X)
    alpha = 1.05 * np.abs(S[:8, 8:]).max()  # no pair across exceeds it
    off = np.abs(S - np.diag(np.diag(S)))
    assert alpha < min(off[:8, :8].max(), off[8:, 8:].max())  # both blocks linked
    whole = ExactGraphicalLasso(alpha=alpha).fit(X).precision_
    assert np.all(whole[:8, 8:] == 0)
    for part, cols in ((left, slice(0, 8)), (X[:, 8:], slice(8, 15))):
        alone = ExactGraphicalLasso(alpha=alpha).fit(part).precision_
        np.testing.assert_allclose(whole[cols, cols], alone, rtol=1e-8, atol=1e-12)


def test_path_equals_one_fit_per_penalty():
    X = sparse_gaussian_data(60, 20, 3, scale_columns=True)
    S = empirical_covariance(X)
    alphas = [penalty(S, f) for f in (0.2, 0.8, 0.4)]
    path = ExactGraphicalLasso(alpha=alphas).fit(X)
    np.testing.assert_array_equal(path.alphas_, np.sort(alphas)[::-1])
    assert path.alpha_ == min(alphas)
    assert path.precision_path_.shape == (3, 20, 20)
    np.testing.assert_array_equal(path.precision_, path.precision_path_[-1])
    assert path.kkt_residuals_.max() <= 1e-9
    for alpha, K in zip(path.alphas_, path.precision_path_, strict=True):
        single = ExactGraphicalLasso(alpha=alpha).fit(X).precision_
        np.testing.assert_array_equal(K != 0, single != 0)
        np.testing.assert_allclose(K, single, rtol=1e-7, atol=1e-9 * np.abs(K).max())
    # Sparser as the penalty grows.
    counts = [np.count_nonzero(K) for K in path.precision_path_]
    assert counts == sorted(counts)


def test_warm_start_reuses_the_previous_solution(monkeypatch):
    X = sparse_gaussian_data(80, 25, 4, scale_columns=True)
    S = empirical_covariance(X)
    starts = []
    solve = exact_module.certified_path

    def spy(S, alphas, start=None, tol=1e-10, symmetric=False):
        starts.append(start)
        return solve(S, alphas, start, tol, symmetric)

    monkeypatch.setattr(exact_module, "certified_path", spy)
    model = ExactGraphicalLasso(alpha=penalty(S, 0.5), warm_start=True).fit(X)
    first = model.precision_.copy()
    model.set_params(alpha=penalty(S, 0.3)).fit(X)
    assert starts[0] is None
    np.testing.assert_array_equal(starts[1], first)
    cold = ExactGraphicalLasso(alpha=penalty(S, 0.3)).fit(X)
    assert starts[2] is None
    np.testing.assert_array_equal(model.adjacency_, cold.adjacency_)
    np.testing.assert_allclose(
        model.precision_, cold.precision_, rtol=1e-7, atol=1e-9 * np.abs(first).max()
    )
    assert model.kkt_residual_ <= 1e-9
    # A different number of features starts afresh.
    model.fit(X[:, :10])
    assert starts[3] is None


def test_precomputed_covariance_equals_fitting_the_samples():
    X = sparse_gaussian_data(50, 12, 7, scale_columns=True)
    S = empirical_covariance(X)
    alpha = penalty(S, 0.3)
    from_samples = ExactGraphicalLasso(alpha=alpha).fit(X)
    precomputed = ExactGraphicalLasso(alpha=alpha, covariance="precomputed").fit(S)
    np.testing.assert_array_equal(precomputed.precision_, from_samples.precision_)
    np.testing.assert_array_equal(precomputed.location_, np.zeros(12))


def test_a_precomputed_covariance_is_fitted_by_its_symmetric_part():
    """An exactly symmetric covariance is fitted as it is (and left as it
    is); one that is symmetric only within rounding, by its symmetric part:
    the same precision as fitting that part."""
    S = empirical_covariance(sparse_gaussian_data(50, 12, 8, scale_columns=True))
    S = 0.5 * (S + S.T)
    alpha = penalty(S, 0.2)
    kept = S.copy()
    model = ExactGraphicalLasso(alpha=alpha, covariance="precomputed").fit(S)
    np.testing.assert_array_equal(S, kept)
    lopsided = S.copy()
    lopsided[np.triu_indices(12, 1)] *= 1 + 1e-11
    part = 0.5 * (lopsided + lopsided.T)
    fitted = ExactGraphicalLasso(alpha=alpha, covariance="precomputed")
    expected = fitted.fit(part).precision_
    assert not np.array_equal(expected, model.precision_)
    np.testing.assert_array_equal(fitted.fit(lopsided).precision_, expected)


@pytest.mark.parametrize(
    ("params", "data", "message"),
    [
        ({"alpha": 0.0}, "samples", "alpha"),
        ({"alpha": [0.1, -0.1]}, "samples", "every alpha must be positive"),
        ({"alpha": [[0.1]]}, "samples", "1-d array"),
        ({"tol": 0.0}, "samples", "tol"),
        ({"covariance": "precomputed"}, "rectangular", "square covariance"),
        ({"covariance": "precomputed"}, "asymmetric", "symmetric"),
        ({}, "constant", "variable 2 has zero variance"),
    ],
)
def test_bad_input_is_named(params, data, message):
    X = sparse_gaussian_data(30, 5, 8)
    if data == "rectangular":
        X = X[:4]
    elif data == "asymmetric":
        X = empirical_covariance(X)
        X[0, 1] += 0.5
    elif data == "constant":
        X[:, 2] = 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the constant column's own warning
        with pytest.raises(ValueError, match=message):
            ExactGraphicalLasso(**params).fit(X)


def test_an_unsettled_component_keeps_its_last_iterate_and_is_reported(monkeypatch):
    """Where the solver runs out of Newton steps (two allowed here), the fit is
    its last iterate: positive definite, with edges, of lower objective than the
    diagonal start and higher than the minimiser's; the certificate and a
    ConvergenceWarning say how far it is from optimal."""
    X = sparse_gaussian_data(80, 12, 9)
    S = empirical_covariance(X)
    alpha = penalty(S, 0.3)
    settled = ExactGraphicalLasso(alpha=alpha).fit(X)
    monkeypatch.setattr(glasso_path, "_descend", lambda *args: None)
    monkeypatch.setattr(glasso_path, "_MAX_NEWTON", 2)
    with pytest.warns(ConvergenceWarning, match="did not settle"):
        model = ExactGraphicalLasso(alpha=alpha).fit(X)
    assert model.kkt_residual_ > 1e-3
    assert np.linalg.eigvalsh(model.precision_)[0] > 0
    assert model.adjacency_.any()
    start = np.diag(1 / np.diag(S))
    f_start, f_last = objective(S, start, alpha), objective(S, model.precision_, alpha)
    assert objective(S, settled.precision_, alpha) < f_last < f_start - 1e-3


@pytest.mark.parametrize(("density", "n", "seed"), [(0.05, 100, 0), (0.15, 400, 1)])
def test_an_ill_conditioned_dense_solution_settles(density, n, seed):
    """Unstandardised TriangulatedOrthogonalization data (the largest variance
    20-60 times the smallest) at alpha = 0.1: a solution with 17-39 % of the
    pairs. Entries entered and left by hundreds at every Newton step, and these
    fits used to stop after 200 steps far from the minimiser (certificate 0.89
    and 0.84); the optimality conditions, computed here, now hold."""
    from skggm_bench.datasets import make_ggm
    from skggm_bench.generators import TriangulatedOrthogonalization

    X = make_ggm(
        n,
        60,
        graph="erdos_renyi",
        density=density,
        generator=TriangulatedOrthogonalization(),
        random_state=seed,
    ).X
    S = empirical_covariance(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = ExactGraphicalLasso(alpha=0.1).fit(X)
    assert np.diag(S).max() > 20 * np.diag(S).min()
    assert kkt_violation(S, model.precision_, 0.1) <= 1e-8 * np.diag(S).max()
    assert model.adjacency_.sum() / (60 * 59) > 0.15


@pytest.mark.parametrize("route", ["descent", "newton"])
def test_a_looser_tolerance_stops_earlier_and_the_certificate_says_how_far(
    monkeypatch, route
):
    """``tol`` is the solver's stopping rule: less work at 1e-4 than at the
    default (fewer sweeps of the block coordinate descent; fewer Newton steps
    where the Newton method works alone), a certificate within it (and above the
    default's), no warning, and an objective within 1e-6 of the tight fit's."""
    X = sparse_gaussian_data(60, 40, 3)
    S = empirical_covariance(X)
    alpha = penalty(S, 0.2)
    steps = []
    if route == "descent":
        descent = glasso_path.block_descent

        def counted(S, alpha, W, B, tol, max_sweeps, **schedule):
            sweeps, change = descent(S, alpha, W, B, tol, max_sweeps, **schedule)
            steps.extend([tol / glasso_path._DESCENT_SHARES[0]] * sweeps)
            return sweeps, change

        monkeypatch.setattr(glasso_path, "block_descent", counted)
    else:
        direction = glasso_path._newton_direction

        def counted(*args):
            steps.append(args[-1])
            return direction(*args)

        monkeypatch.setattr(glasso_path, "_descend", lambda *args: None)
        monkeypatch.setattr(glasso_path, "_newton_direction", counted)
    tight = ExactGraphicalLasso(alpha=alpha).fit(X)
    n_tight = len(steps)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        loose = ExactGraphicalLasso(alpha=alpha, tol=1e-4).fit(X)
    n_loose = len(steps) - n_tight
    # The solver works at a power-of-two scale c of S (its largest variance
    # in [1, 2)): the tolerance, relative to the largest variance, is tol
    # times that variance over c there.
    largest = np.diag(S).max()
    relative = largest / 2.0 ** (np.frexp(largest)[1] - 1)
    assert 1 <= relative < 2
    np.testing.assert_allclose(steps[:n_tight], 1e-10 * relative)
    np.testing.assert_allclose(steps[n_tight:], 1e-4 * relative)
    assert 0 < n_loose < n_tight
    assert tight.kkt_residual_ < 1e-9 < loose.kkt_residual_ <= 2e-4
    f_tight = objective(S, tight.precision_, alpha)
    f_loose = objective(S, loose.precision_, alpha)
    assert 0 <= f_loose - f_tight <= 1e-6 * abs(f_tight)
