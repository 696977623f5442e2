"""NeighbourhoodSelection, TIGER, CLIME and ThresholdedCorrelation against
independent references: scikit-learn's coordinate descent, the full CLIME
linear program, closed forms, and the error rates their default penalties
promise. (Agreement with R: test_huge_agreement.py.)"""

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import linprog
from sklearn.linear_model import Lasso

from skggm_bench.learners import (
    CLIME,
    TIGER,
    NeighbourhoodSelection,
    ThresholdedCorrelation,
)
from skggm_bench.learners._active_set_lasso import (
    _homotopy,
    _Problem,
    nodewise_lasso_path,
)
from skggm_bench.learners._clime import clime_columns
from skggm_bench.learners._utils import standardize_columns


def correlated_data(n, p, seed, strength=0.6):
    """AR(1)-like columns: neighbouring variables correlated by ``strength``."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    for j in range(1, p):
        X[:, j] += strength * X[:, j - 1]
    return X


# -- the node-wise solvers ----------------------------------------------------------


@pytest.mark.parametrize(("n", "p", "seed"), [(120, 15, 0), (30, 45, 1)])
def test_nodewise_lasso_equals_coordinate_descent(n, p, seed):
    """Every node against scikit-learn's Lasso at a 1e-14 tolerance, on n > p and
    p > n, at three penalties down to where most variables are active."""
    X = correlated_data(n, p, seed)
    Z, _ = standardize_columns(X)
    largest = np.abs(np.corrcoef(Z, rowvar=False) - np.eye(p)).max()
    penalties = largest * np.array([0.5, 0.2, 0.08])
    coef = nodewise_lasso_path(Z, penalties)
    for k, alpha in enumerate(penalties):
        for node in range(p):
            others = np.delete(np.arange(p), node)
            reference = Lasso(alpha=alpha, tol=1e-14, max_iter=200_000).fit(
                Z[:, others], Z[:, node]
            )
            np.testing.assert_allclose(
                coef[k, node, others], reference.coef_, atol=1e-7
            )
            assert coef[k, node, node] == 0.0


def scaled_lasso_by_coordinate_descent(Z, node, alpha, iterations=300):
    """Square-root lasso by alternating sigma and a Lasso at alpha * sigma."""
    others = np.delete(np.arange(Z.shape[1]), node)
    model = Lasso(alpha=alpha, tol=1e-14, max_iter=200_000, warm_start=True)
    sigma = 1.0
    for _ in range(iterations):
        model.set_params(alpha=alpha * sigma).fit(Z[:, others], Z[:, node])
        residual = Z[:, node] - Z[:, others] @ model.coef_ - model.intercept_
        updated = np.linalg.norm(residual) / np.sqrt(Z.shape[0])
        if abs(updated - sigma) < 1e-13:
            break
        sigma = updated
    coef = np.zeros(Z.shape[1])
    coef[others] = model.coef_
    return coef


def test_square_root_lasso_equals_scaled_lasso_fixed_point():
    X = correlated_data(80, 12, 2)
    Z, _ = standardize_columns(X)
    alpha = np.sqrt(np.log(12) / 80)
    coef = nodewise_lasso_path(Z, [alpha], square_root=True)[0]
    for node in range(12):
        np.testing.assert_allclose(
            coef[node], scaled_lasso_by_coordinate_descent(Z, node, alpha), atol=1e-7
        )


def test_active_set_falls_back_on_cycling_and_stays_exact():
    """Two nearly collinear pairs make the plain active-set iteration cycle (sign
    flips of the pair); the continuation and fallback still end exact."""
    rng = np.random.default_rng(3)
    base = rng.standard_normal((150, 2))
    X = np.column_stack(
        [
            base[:, 0],
            base[:, 0] + 0.05 * rng.standard_normal(150),
            base[:, 1],
            base[:, 1] + 0.05 * rng.standard_normal(150),
            rng.standard_normal(150),
        ]
    )
    Z, _ = standardize_columns(X)
    penalties = np.geomspace(0.5, 0.01, 8)
    coef = nodewise_lasso_path(Z, penalties)
    for k, alpha in enumerate(penalties):
        for node in range(5):
            others = np.delete(np.arange(5), node)
            reference = Lasso(alpha=alpha, tol=1e-15, max_iter=10**6).fit(
                Z[:, others], Z[:, node]
            )
            np.testing.assert_allclose(
                coef[k, node, others], reference.coef_, atol=1e-6
            )


@pytest.mark.parametrize(("n", "p"), [(200, 12), (25, 40)])
def test_homotopy_follows_the_exact_path_on_strongly_correlated_data(n, p):
    """The homotopy of every node, from the empty model and then from its own
    solution further up the path, and the whole node-wise path, against
    scikit-learn's Lasso at a 1e-15 tolerance. AR(1) columns with coefficient
    0.95, on which the active-set iteration cycles (the path then uses the
    homotopy: 12 and 88 nodes x penalties here)."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((n, p))
    for j in range(1, p):
        X[:, j] = 0.95 * X[:, j - 1] + np.sqrt(1 - 0.95**2) * X[:, j]
    Z, _ = standardize_columns(X)
    R = Z.T @ Z / n
    penalties = np.abs(R - np.eye(p)).max() * np.array([0.5, 0.1, 0.02])
    path = nodewise_lasso_path(Z, penalties)
    for node in range(p):
        allowed = np.arange(p) != node
        others = np.flatnonzero(allowed)
        coef, start = np.zeros(p), np.abs(R[others, node]).max()
        for k, alpha in enumerate(penalties):
            coef = _homotopy(R, allowed, node, coef, max(start, alpha), alpha, 10 * p)
            start = alpha
            reference = Lasso(alpha=alpha, tol=1e-15, max_iter=10**6).fit(
                Z[:, others], Z[:, node]
            )
            np.testing.assert_allclose(coef[others], reference.coef_, atol=1e-9)
            np.testing.assert_allclose(path[k, node], coef, atol=1e-9)
            assert coef[node] == 0.0


@pytest.mark.parametrize(("n", "p"), [(200, 40), (20, 60)])
def test_fine_path_is_exact_at_every_penalty(n, p):
    """huge's default path shape (30 penalties down to a tenth of the largest):
    nodes start each penalty on the segment of their last solve and many settle
    there without a solve. Every solution satisfies the lasso optimality
    conditions and equals the one solved at that penalty alone."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((n, p))
    X[:, 1:] += 0.6 * X[:, :-1]
    Z, _ = standardize_columns(X)
    R = Z.T @ Z / n
    top = np.abs(R - np.eye(p)).max()
    penalties = np.geomspace(top, top / 10, 30)
    path = nodewise_lasso_path(Z, penalties)
    assert np.count_nonzero(path[-1]) > 2 * p  # the path does get dense
    for k in (3, 14, 29):
        alpha = penalties[k]
        W = path[k].T
        residual = R - R @ W
        np.fill_diagonal(residual, 0.0)
        violation = np.where(
            W != 0,
            np.abs(residual - alpha * np.sign(W)),
            np.maximum(np.abs(residual) - alpha, 0.0),
        )
        assert violation.max() < 1e-9
        alone = nodewise_lasso_path(Z, [alpha])[0]
        np.testing.assert_array_equal(alone != 0, path[k] != 0)
        np.testing.assert_allclose(alone, path[k], atol=1e-10)


def test_nodewise_lasso_is_optimal_with_duplicated_columns():
    """Two identical columns make some active blocks singular (the homotopy
    gives up there, coordinate descent takes over); every returned coefficient
    vector still satisfies the lasso's optimality conditions."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 6))
    X[:, 1] = X[:, 0]
    X[:, 2] += 0.9 * X[:, 0]
    Z, _ = standardize_columns(X)
    R = Z.T @ Z / 60
    penalties = np.geomspace(0.8, 0.01, 6)
    coef = nodewise_lasso_path(Z, penalties)
    for k, alpha in enumerate(penalties):
        W = coef[k].T
        residual = R - R @ W
        np.fill_diagonal(residual, 0.0)
        violation = np.where(
            W != 0,
            np.abs(residual - alpha * np.sign(W)),
            np.maximum(np.abs(residual) - alpha, 0.0),
        )
        assert violation.max() < 1e-9


def test_lasso_moves_up_from_the_least_squares_solution():
    """The square-root lasso's root search can reach penalty 0 (least squares)
    and then ask for a larger one; no continuation step leads away from 0, so
    the penalty is solved directly (this looped for ever once)."""
    rng = np.random.default_rng(5)
    Z, _ = standardize_columns(correlated_data(60, 6, 5) + rng.standard_normal((60, 6)))
    problem = _Problem(Z)
    W = np.zeros((6, 6))  # row m: node m
    W[0, 1:] = np.linalg.solve(problem.R[1:, 1:], problem.R[1:, 0])
    reached = np.full(6, np.inf)
    reached[0] = 0.0
    problem.lasso(np.array([0]), np.array([0.05]), W, reached)
    reference = Lasso(alpha=0.05, tol=1e-15, max_iter=10**6).fit(Z[:, 1:], Z[:, 0])
    np.testing.assert_allclose(W[0, 1:], reference.coef_, atol=1e-9)
    assert reached[0] == 0.05


# -- NeighbourhoodSelection ---------------------------------------------------------


def test_neighbourhood_selection_rules_and_scores():
    X = correlated_data(200, 8, 4)
    est = NeighbourhoodSelection(alpha=0.1).fit(X)
    selected = est.coef_ != 0
    np.testing.assert_array_equal(
        est.adjacency_, (selected | selected.T) & ~np.eye(8, dtype=bool)
    )
    both = NeighbourhoodSelection(alpha=0.1, rule="and").fit(X)
    np.testing.assert_array_equal(
        both.adjacency_, (selected & selected.T) & ~np.eye(8, dtype=bool)
    )
    product = est.coef_ * est.coef_.T
    expected = np.where(product > 0, np.sign(est.coef_) * np.sqrt(np.abs(product)), 0.0)
    np.testing.assert_allclose(est.partial_correlation_, expected)


def test_neighbourhood_selection_auto_penalty_controls_false_connections():
    """Meinshausen & Bühlmann's bound at level 0.05: on independent data any
    selected edge falsely joins two components, so at most about 5 % of data
    sets may have one. Over 300 data sets the observed rate must stay below the
    binomial 99.9 % bound for 0.05 (0.090). Power: half the penalty (the
    objective read without its 1/2, i.e. lambda on the wrong scale) gives a
    false edge on far more data sets."""
    rng = np.random.default_rng(5)
    n, p, reps = 100, 20, 300
    with_edge = {1.0: 0, 0.5: 0}
    for _ in range(reps):
        X = rng.standard_normal((n, p))
        auto = NeighbourhoodSelection().fit(X)
        for factor in with_edge:
            est = NeighbourhoodSelection(alpha=auto.alpha_ * factor).fit(X)
            with_edge[factor] += bool(est.adjacency_.any())
    bound = stats.binom.ppf(0.999, reps, 0.05) / reps
    assert with_edge[1.0] / reps <= bound
    assert with_edge[0.5] / reps > 2 * bound


def test_neighbourhood_selection_disconnects_constant_columns():
    X = correlated_data(100, 5, 6)
    X[:, 2] = 3.0
    est = NeighbourhoodSelection(alpha=0.05).fit(X)
    assert not est.adjacency_[2].any() and not est.coef_[:, 2].any()


# -- TIGER --------------------------------------------------------------------------


def test_tiger_precision_is_the_smaller_magnitude_symmetrisation():
    X = correlated_data(150, 10, 7) * np.linspace(0.5, 4.0, 10)  # unequal units
    est = TIGER().fit(X)
    n = X.shape[0]
    tau = est.noise_scale_
    # Column i of the standardised precision: (1, -b_i) / tau_i^2, with the
    # standardisation of R's scale (denominator n - 1).
    columns = -est.coef_.T / tau**2
    np.fill_diagonal(columns, 1 / tau**2)
    smaller = np.where(np.abs(columns) <= np.abs(columns.T), columns, columns.T)
    scale = X.std(axis=0, ddof=1)
    np.testing.assert_allclose(est.precision_, smaller / np.outer(scale, scale))
    # tau_i is the residual standard deviation of regression i on R's scale.
    Z = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    residual = Z - Z @ est.coef_.T
    np.testing.assert_allclose(tau, np.linalg.norm(residual, axis=0) / np.sqrt(n))


def test_tiger_is_equivariant_to_units():
    X = correlated_data(150, 10, 8)
    units = np.linspace(0.1, 10.0, 10)
    plain, scaled = TIGER().fit(X), TIGER().fit(X * units)
    np.testing.assert_array_equal(plain.adjacency_, scaled.adjacency_)
    np.testing.assert_allclose(
        scaled.precision_, plain.precision_ / np.outer(units, units)
    )


# The exact fits send the square-root lasso to its coordinate-descent fallback
# at nearly zero penalties, which reports its (expected) slow convergence.
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_tiger_rejects_constant_columns_and_warns_on_exact_fits():
    X = correlated_data(100, 5, 9)
    X[:, 1] = 1.0
    with pytest.raises(ValueError, match=r"constant columns: \[1\]"):
        TIGER().fit(X)
    collinear = correlated_data(50, 5, 10)
    collinear[:, 4] = collinear[:, 0] - 2 * collinear[:, 3]
    with pytest.warns(UserWarning, match=r"variables \[0, 3, 4\] fit the 50 samples"):
        est = TIGER(alpha=0.05).fit(collinear)
    assert np.all(np.isfinite(est.precision_))
    wide = correlated_data(6, 15, 11)
    with pytest.warns(UserWarning, match="fit the 6 samples exactly"):
        TIGER(alpha=0.01).fit(wide)


# -- CLIME --------------------------------------------------------------------------


def full_clime_program(S, j, alpha):
    """Column j on all 2p variables at once, by HiGHS's interior point method."""
    p = S.shape[0]
    unit = np.eye(p)[j]
    result = linprog(
        np.ones(2 * p),
        A_ub=np.block([[S, -S], [-S, S]]),
        b_ub=np.concatenate([unit + alpha, alpha - unit]),
        bounds=(0, None),
        method="highs-ipm",
    )
    assert result.status == 0
    return result.x[:p] - result.x[p:]


@pytest.mark.parametrize(("n", "p", "seed"), [(100, 25, 11), (30, 40, 12)])
def test_clime_columns_solve_the_full_program(n, p, seed):
    """Column generation on working sets against the whole program by another
    algorithm: same optimal l1 norm, both feasible."""
    X = correlated_data(n, p, seed)
    S = np.corrcoef(X, rowvar=False) + np.eye(p) / np.sqrt(n)
    alpha = np.sqrt(np.log(p) / n)
    B = clime_columns(S, alpha)
    assert np.abs(S @ B - np.eye(p)).max() <= alpha + 1e-9
    for j in range(p):
        reference = full_clime_program(S, j, alpha)
        assert np.abs(B[:, j]).sum() == pytest.approx(np.abs(reference).sum(), abs=1e-7)


def test_clime_symmetrises_by_smaller_magnitude_and_rescales():
    X = correlated_data(120, 12, 13) * np.linspace(1.0, 3.0, 12)
    est = CLIME().fit(X)
    S = np.corrcoef(X, rowvar=False) + np.eye(12) / np.sqrt(120)
    B = clime_columns(S, est.alpha_)
    smaller = np.where(np.abs(B) <= np.abs(B.T), B, B.T)
    scale = X.std(axis=0)
    np.testing.assert_allclose(
        est.precision_, smaller / np.outer(scale, scale), atol=1e-10
    )
    np.testing.assert_array_equal(
        est.adjacency_, (smaller != 0) & ~np.eye(12, dtype=bool)
    )


def test_clime_reports_an_infeasible_program():
    X = correlated_data(10, 30, 14)
    with pytest.raises(ValueError, match="infeasible at alpha"):
        CLIME(alpha=0.01, perturb=0.0).fit(X)


# -- ThresholdedCorrelation ---------------------------------------------------------


def test_thresholded_correlation_decisions_and_scores():
    X = correlated_data(80, 6, 15)
    est = ThresholdedCorrelation(alpha=0.3).fit(X)
    correlation = np.corrcoef(X, rowvar=False)
    np.testing.assert_allclose(est.correlation_, correlation, atol=1e-12)
    expected = (np.abs(correlation) > 0.3) & ~np.eye(6, dtype=bool)
    np.testing.assert_array_equal(est.adjacency_, expected)
    np.testing.assert_allclose(
        est.edge_scores_, np.abs(correlation) * ~np.eye(6, dtype=bool)
    )


def test_thresholded_correlation_auto_threshold_controls_family_wise_error():
    """The default threshold is an exact level-0.05 test per pair, Bonferroni
    corrected: on independent Gaussian data at most 5 % of 400 data sets may
    show an edge (binomial 99.9 % bound 0.083). Power: the uncorrected
    threshold (level 0.05 per pair) shows edges on almost every data set."""
    rng = np.random.default_rng(16)
    n, p, reps = 40, 15, 400
    uncorrected = stats.t.isf(0.025, n - 2)
    uncorrected /= np.sqrt(n - 2 + uncorrected**2)
    any_edge = any_uncorrected = 0
    for _ in range(reps):
        X = rng.standard_normal((n, p))
        est = ThresholdedCorrelation().fit(X)
        any_edge += bool(est.adjacency_.any())
        any_uncorrected += bool((est.edge_scores_ > uncorrected).any())
    assert any_edge / reps <= stats.binom.ppf(0.999, reps, 0.05) / reps
    assert any_edge / reps > 0.01  # not trivially conservative
    assert any_uncorrected / reps > 0.9
