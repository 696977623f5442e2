import numpy as np
import pytest
from conftest import chain_precision, gaussian_sample
from sklearn.base import clone
from sklearn.cross_decomposition import PLSRegression
from sklearn.linear_model import Lasso, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skggm_bench.learners import (
    AdaptiveLassoNetwork,
    LassoNetwork,
    PLSNetwork,
    RidgeNetwork,
    _nodewise_lasso,
    partial_correlation_from_precision,
)
from skggm_bench.learners._cross_validation import make_folds
from skggm_bench.learners._nodewise_lasso import (
    _CenteredFolds,
    _FoldCoordinateDescent,
    _FoldHomotopy,
    nodewise_lasso,
)
from skggm_bench.learners._nodewise_pls import _kernel_pls_all_nodes
from skggm_bench.learners._nodewise_ridge import nodewise_ridge
from skggm_bench.learners._utils import standardize_columns

LEARNERS = [LassoNetwork, AdaptiveLassoNetwork, RidgeNetwork, PLSNetwork]


@pytest.fixture(scope="module")
def chain_data():
    """p=12 chain (pcor 0.4) plus one -0.3 edge, n=150: a moderately hard case."""
    return gaussian_sample(_small_chain(), 150, seed=7)


def _small_chain() -> np.ndarray:
    K = np.eye(12) - 0.4 * (np.eye(12, k=1) + np.eye(12, k=-1))
    K[0, 6] = K[6, 0] = 0.3
    return K


def _sample_partial_correlation(X: np.ndarray) -> np.ndarray:
    return partial_correlation_from_precision(np.linalg.inv(np.cov(X, rowvar=False)))


# --- the regression engines against scikit-learn's own estimators -------------


def test_ridge_engine_equals_sklearn_ridge(chain_data):
    Z, _ = standardize_columns(chain_data)
    n, p = Z.shape
    folds = make_folds(5, n, random_state=0)
    alphas = np.logspace(-3, 1, 9)
    coef, alpha, cv_errors = nodewise_ridge(Z, folds, alphas=alphas)
    for i in (0, 5, 11):
        rest = np.delete(np.arange(p), i)
        ridge = Ridge(alpha=alpha[i] * n).fit(Z[:, rest], Z[:, i])
        np.testing.assert_allclose(coef[i, rest], ridge.coef_, atol=1e-12)
        # CV error of fold 0 at the 4th-strongest penalty (grid sorted decreasingly).
        train, test = folds[0]
        penalty = np.sort(alphas)[::-1][3]
        fold_fit = Ridge(alpha=penalty * train.size).fit(Z[train][:, rest], Z[train, i])
        error = np.mean((Z[test, i] - fold_fit.predict(Z[test][:, rest])) ** 2)
        assert cv_errors[i, 0, 3] == pytest.approx(error, rel=1e-10)


def test_pls_engine_equals_sklearn_pls(chain_data):
    Z, _ = standardize_columns(chain_data)
    p = Z.shape[1]
    coefs = _kernel_pls_all_nodes(Z.T @ Z, 6)
    for i in (0, 7):
        rest = np.delete(np.arange(p), i)
        for k in (1, 3, 6):
            pls = PLSRegression(n_components=k, scale=False).fit(Z[:, rest], Z[:, i])
            np.testing.assert_allclose(
                coefs[k - 1][rest, i], pls.coef_.ravel(), atol=1e-10
            )
            assert coefs[k - 1][i, i] == 0.0


def test_unpenalised_limits_give_sample_partial_correlations(chain_data):
    # Ridge with a vanishing penalty and PLS with all p - 1 components are OLS,
    # whose node-wise coefficients give exactly the sample partial correlations.
    expected = _sample_partial_correlation(chain_data)
    ridge = RidgeNetwork(alphas=[1e-12], random_state=0).fit(chain_data)
    np.testing.assert_allclose(ridge.partial_correlation_, expected, atol=1e-8)
    Z, _ = standardize_columns(chain_data)
    from skggm_bench.learners import partial_correlation_from_coefficients

    ols = _kernel_pls_all_nodes(Z.T @ Z, Z.shape[1] - 1)[-1].T
    np.testing.assert_allclose(
        partial_correlation_from_coefficients(ols), expected, atol=1e-8
    )


def test_lasso_coefficients_equal_sklearn_lasso_at_the_chosen_penalty(chain_data):
    est = LassoNetwork(random_state=0).fit(chain_data)
    Z, _ = standardize_columns(chain_data)
    for i in (0, 6, 11):
        rest = np.delete(np.arange(Z.shape[1]), i)
        lasso = Lasso(alpha=est.alpha_[i], tol=1e-10, max_iter=100_000).fit(
            Z[:, rest], Z[:, i]
        )
        # The path is solved to scikit-learn's default duality-gap tolerance 1e-4.
        np.testing.assert_allclose(est.coef_[i, rest], lasso.coef_, atol=2e-3)
        assert np.array_equal(est.coef_[i, rest] != 0, lasso.coef_ != 0)


def test_adaptive_lasso_is_a_weighted_lasso_on_the_first_stage_support(chain_data):
    est = AdaptiveLassoNetwork(random_state=0).fit(chain_data)
    Z, _ = standardize_columns(chain_data)
    # Never selects what the first stage excluded.
    assert np.all((est.coef_ != 0) <= (est.initial_coef_ != 0))
    for i in (0, 5):
        support = np.flatnonzero(est.initial_coef_[i])
        weights = np.abs(est.initial_coef_[i, support])
        weights /= weights.max()  # the node's weights are scaled to a maximum of 1
        lasso = Lasso(alpha=est.alpha_[i], tol=1e-10, max_iter=100_000)
        lasso.fit(Z[:, support] * weights, Z[:, i])
        np.testing.assert_allclose(
            est.coef_[i, support], lasso.coef_ * weights, atol=2e-3
        )


@pytest.mark.parametrize("homotopy", [True, False], ids=["homotopy", "coord_descent"])
def test_lasso_early_stop_selects_the_same_penalties_as_the_full_grid(
    homotopy, monkeypatch
):
    # p close to n: the CV curve turns up steeply after its minimum, so the early
    # stop must trigger (NaNs present) without changing any selected penalty.
    if not homotopy:
        # Coordinate descent throughout: the full grid reaches penalties where
        # it would otherwise move to the homotopy, the early stop does not.
        monkeypatch.setattr(_nodewise_lasso, "_HOMOTOPY_MAX_PREDICTORS", -1)
        monkeypatch.setattr(_nodewise_lasso, "_SWEEP_LIMIT", np.inf)
    X = gaussian_sample(chain_precision(40), 60, seed=3)
    Z, _ = standardize_columns(X)
    folds = make_folds(5, 60, random_state=0)
    early = nodewise_lasso(Z, folds)
    full = nodewise_lasso(Z, folds, stop_ratio=None)
    assert np.isnan(early[2]).any() and not np.isnan(full[2]).any()
    np.testing.assert_array_equal(early[1], full[1])
    np.testing.assert_allclose(early[0], full[0], atol=1e-12)


def test_homotopy_paths_equal_converged_coordinate_descent(chain_data):
    # Adaptive-lasso-like weights: per fold, some predictors excluded (weight 0)
    # and the others weighted over two decades.
    Z, _ = standardize_columns(chain_data)
    p = Z.shape[1]
    folds = make_folds(5, Z.shape[0], random_state=0)
    blocks = _CenteredFolds(Z, folds)
    grid = np.logspace(0.0, -3.5, 60)  # from above every alpha_max (|r| <= 1)
    rng = np.random.default_rng(0)
    for node in (0, 6, 11):
        predictors = np.delete(np.arange(p), node)
        scales = 10.0 ** rng.uniform(-2.0, 0.0, (5, p - 1))
        scales[rng.random(scales.shape) < 0.3] = 0.0
        exact = _FoldHomotopy(blocks, node, predictors, scales)
        converged = _FoldCoordinateDescent(
            blocks,
            node,
            predictors,
            scales,
            tol=1e-14,
            max_iter=100_000,
            sweep_limit=None,
        )
        for chunk in (grid[:25], grid[25:]):  # paths continue across calls
            np.testing.assert_allclose(
                exact.path(chunk), converged.path(chunk), rtol=0, atol=1e-9
            )


def test_failed_homotopy_falls_back_to_coordinate_descent(chain_data, monkeypatch):
    Z, _ = standardize_columns(chain_data)
    folds = make_folds(5, Z.shape[0], random_state=0)
    monkeypatch.setattr(_nodewise_lasso, "_HOMOTOPY_MAX_PREDICTORS", -1)
    descent = nodewise_lasso(Z, folds)
    monkeypatch.undo()
    monkeypatch.setattr(_nodewise_lasso, "_MAX_KNOTS_PER_PREDICTOR", 0)
    fallback = nodewise_lasso(Z, folds)  # every homotopy fails at its first knot
    for expected, result in zip(descent, fallback, strict=True):
        np.testing.assert_array_equal(result, expected)


def test_duplicated_predictors_give_the_converged_lasso(chain_data, monkeypatch):
    # A copy entering next to its original makes the active Gram matrix singular:
    # the homotopy then hands the node to coordinate descent. Either way the
    # result must be the converged lasso.
    Z, _ = standardize_columns(np.hstack([chain_data, chain_data[:, [0, 5]]]))
    folds = make_folds(5, Z.shape[0], random_state=0)
    converged = {"tol": 1e-10, "max_iter": 100_000}
    result = nodewise_lasso(Z, folds, **converged)
    monkeypatch.setattr(_nodewise_lasso, "_HOMOTOPY_MAX_PREDICTORS", -1)
    descent = nodewise_lasso(Z, folds, **converged)
    np.testing.assert_array_equal(result[1], descent[1])
    np.testing.assert_allclose(result[2], descent[2], rtol=1e-8)


# --- estimator behaviour ----------------------------------------------------


def test_one_standard_error_rule_penalises_more(chain_data):
    at_min = LassoNetwork(random_state=0).fit(chain_data)
    one_se = LassoNetwork(penalty_selection="cv_1se", random_state=0).fit(chain_data)
    assert np.all(one_se.alpha_ >= at_min.alpha_)
    assert one_se.adjacency_.sum() <= at_min.adjacency_.sum()


def test_or_rule_contains_and_rule(chain_data):
    and_rule = LassoNetwork(random_state=0).fit(chain_data)
    or_rule = LassoNetwork(rule="or", random_state=0).fit(chain_data)
    assert np.all(and_rule.adjacency_ <= or_rule.adjacency_)
    selected = or_rule.coef_ != 0
    np.testing.assert_array_equal(or_rule.adjacency_, selected | selected.T)


@pytest.mark.parametrize("learner", LEARNERS, ids=lambda c: c.__name__)
def test_fitted_attributes_and_reproducibility(learner, chain_data):
    est = learner(random_state=42).fit(chain_data)
    p = chain_data.shape[1]
    pcor, adjacency = est.partial_correlation_, est.adjacency_
    assert pcor.shape == adjacency.shape == (p, p)
    np.testing.assert_array_equal(pcor, pcor.T)
    np.testing.assert_array_equal(np.diag(pcor), 0.0)
    assert adjacency.dtype == bool and not adjacency.diagonal().any()
    np.testing.assert_array_equal(adjacency, adjacency.T)
    assert np.all(np.abs(pcor) <= 1.0)
    again = clone(est).fit(chain_data)
    np.testing.assert_array_equal(again.partial_correlation_, pcor)
    np.testing.assert_array_equal(again.adjacency_, adjacency)
    other = learner(random_state=43).fit(chain_data)
    assert not np.array_equal(other.cv_errors_, est.cv_errors_)  # other folds


@pytest.mark.parametrize("learner", LEARNERS, ids=lambda c: c.__name__)
def test_invariant_to_units_and_works_in_a_pipeline(learner, chain_data):
    scales = np.linspace(0.1, 10.0, chain_data.shape[1])
    plain = learner(random_state=0).fit(chain_data)
    piped = make_pipeline(StandardScaler(), learner(random_state=0))
    piped.fit(chain_data * scales - 4.0)
    np.testing.assert_allclose(
        piped[-1].partial_correlation_, plain.partial_correlation_, atol=1e-9
    )
    np.testing.assert_array_equal(piped[-1].adjacency_, plain.adjacency_)


@pytest.mark.parametrize("learner", LEARNERS, ids=lambda c: c.__name__)
def test_single_feature_and_constant_column(learner):
    rng = np.random.default_rng(0)
    single = learner(random_state=0).fit(rng.standard_normal((30, 1)))
    np.testing.assert_array_equal(single.partial_correlation_, [[0.0]])
    X = gaussian_sample(_small_chain(), 100, seed=1)
    X[:, 4] = 2.5
    est = learner(random_state=0).fit(X)
    np.testing.assert_array_equal(est.partial_correlation_[4], 0.0)
    assert not est.adjacency_[4].any()


@pytest.mark.parametrize("learner", LEARNERS, ids=lambda c: c.__name__)
def test_bad_input_is_rejected(learner):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="cv=5 folds need at least 5 samples"):
        learner().fit(rng.standard_normal((4, 3)))
    with pytest.raises(ValueError, match="penalty_selection"):
        learner(penalty_selection="aic").fit(rng.standard_normal((20, 3)))
    with pytest.raises(ValueError, match="NaN"):
        learner().fit(np.full((20, 3), np.nan))


def test_invalid_specific_parameters():
    X = np.random.default_rng(0).standard_normal((20, 3))
    with pytest.raises(ValueError, match="rule"):
        LassoNetwork(rule="xor").fit(X)
    with pytest.raises(ValueError, match="positive"):
        RidgeNetwork(alphas=[1.0, -1.0]).fit(X)
    with pytest.raises(ValueError, match="max_components"):
        PLSNetwork(max_components=0).fit(X)


def test_ridge_default_grid_tops_out_at_parcors_largest_penalty(chain_data):
    est = RidgeNetwork(alphas=7).fit(chain_data)
    grid = est._penalty_grid(12)
    assert grid.size == 7
    assert grid.max() == pytest.approx(0.1 * 12) and grid.min() == pytest.approx(1.2e-6)
    assert np.all(est.alpha_ <= 1.2 + 1e-12)


def test_pls_number_of_components_is_capped(chain_data):
    est = PLSNetwork(max_components=3, random_state=0).fit(chain_data)
    assert est.cv_errors_.shape[2] == 3
    assert set(est.n_components_) <= {1, 2, 3}
    with pytest.warns(UserWarning, match="only 6 statistics"):
        small = PLSNetwork(random_state=0).fit(chain_data[:, :4])
    assert small.cv_errors_.shape[2] == 3  # p - 1 predictors


def test_slow_coordinate_descent_hands_the_node_to_the_homotopy(monkeypatch):
    # Three strong factors: 45 predictors per node (above the homotopy's size
    # limit, so coordinate descent starts) and a correlation matrix with a
    # condition number near 1e4, where descent needs hundreds of sweeps.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 3)) @ rng.standard_normal((3, 46))
    Z, _ = standardize_columns(X + 0.05 * rng.standard_normal((120, 46)))
    folds = make_folds(5, 120, random_state=0)
    switched = []

    class CountingHomotopy(_FoldHomotopy):
        def __init__(self, blocks, node, *args):
            if len(blocks) > 1:  # the CV paths, not the final fit
                switched.append(node)
            super().__init__(blocks, node, *args)

    monkeypatch.setattr(_nodewise_lasso, "_FoldHomotopy", CountingHomotopy)
    coef, alpha, _, _ = nodewise_lasso(Z, folds)
    assert len(switched) >= 10
    # Same result as the homotopy from the start...
    monkeypatch.setattr(_nodewise_lasso, "_HOMOTOPY_MAX_PREDICTORS", 1000)
    exact_coef, exact_alpha, _, _ = nodewise_lasso(Z, folds)
    np.testing.assert_array_equal(alpha, exact_alpha)
    np.testing.assert_allclose(coef, exact_coef, rtol=0, atol=1e-10)
    # ... which is the lasso solution on all samples at the chosen penalty, where
    # coordinate descent at the default tolerance is off by up to 0.2 here.
    for node in switched[:3]:
        others = np.delete(np.arange(46), node)
        reference = Lasso(alpha=alpha[node], tol=1e-12, max_iter=1_000_000).fit(
            Z[:, others], Z[:, node]
        )
        np.testing.assert_allclose(coef[node, others], reference.coef_, atol=1e-6)


def test_nested_weight_cv_selects_less_on_weak_signals():
    """parcor's nested stage-1 CV inside every fold (weight_cv="nested") makes the
    fold weights vary more, so stage 2 penalises more: on a weak, dense signal
    (partial correlations 0.1 on a band of width 3, p=20, n=60) it selects fewer
    pairs than the default (7 against 13 here; fewer on 6 of 6 seeds tried). See
    docs/learners.md for the simulation over 20 GeneNet data sets. (That it is
    deterministic is check_fit_idempotent of check_estimator.)"""
    p = 20
    precision = np.eye(p)
    for k in (1, 2, 3):
        precision -= 0.1 * (np.eye(p, k=k) + np.eye(p, k=-k))
    X = np.random.default_rng(25).multivariate_normal(
        np.zeros(p), np.linalg.inv(precision), size=60
    )
    nested = AdaptiveLassoNetwork(weight_cv="nested", random_state=3).fit(X)
    shared = AdaptiveLassoNetwork(random_state=3).fit(X)
    assert nested.adjacency_.sum() < 0.7 * shared.adjacency_.sum()
