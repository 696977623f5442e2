import numpy as np
import pytest
from conftest import chain_precision, gaussian_sample
from scipy import linalg
from sklearn.base import BaseEstimator
from sklearn.covariance import OAS, EmpiricalCovariance, GraphicalLasso, LedoitWolf
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skggm_bench.learners import (
    LocalFDRSelector,
    local_fdr,
    partial_correlation_from_precision,
)
from skggm_bench.learners._partial_correlation import upper_triangle


@pytest.fixture(scope="module")
def data():
    # p=30 chain with partial correlations 0.4 and three -0.3 long-range
    # edges (32 edges among 435 pairs), n=400.
    return gaussian_sample(chain_precision(30), 400, seed=5)


@pytest.mark.parametrize(
    "inner",
    [LedoitWolf(), OAS(), EmpiricalCovariance(), GraphicalLasso(alpha=0.05)],
    ids=repr,
)
def test_wraps_covariance_estimators(inner, data):
    sel = LocalFDRSelector(inner).fit(data)
    fitted = inner.__class__(**inner.get_params()).fit(data)
    np.testing.assert_allclose(sel.precision_, fitted.precision_)
    np.testing.assert_allclose(sel.covariance_, fitted.covariance_)
    np.testing.assert_allclose(
        sel.partial_correlation_, partial_correlation_from_precision(fitted.precision_)
    )
    assert not hasattr(inner, "precision_")  # the given estimator is cloned, not fitted
    # The edges are exactly the local-fdr decisions on the upper triangle.
    pcor = upper_triangle(sel.partial_correlation_)
    result = local_fdr(pcor)
    np.testing.assert_array_equal(upper_triangle(sel.adjacency_), result.lfdr < 0.2)
    assert sel.null_proportion_ == result.eta0 and sel.null_kappa_ == result.kappa


@pytest.mark.parametrize(
    "inner", [LedoitWolf(), OAS(), EmpiricalCovariance()], ids=repr
)
def test_dense_estimators_rank_and_select_chain_edges(inner, data):
    # The 32 true edges (|partial correlation| 0.3-0.4, null spread ~0.05 at
    # n=400) must have the 32 largest |pcor|, and no non-edge may be selected.
    # How many true edges are selected is up to fdrtool's cutoff heuristic,
    # which on this input (identical in R) stops inside the signal: 8 edges
    # for LedoitWolf/OAS, 18 for EmpiricalCovariance; see docs/learners.md.
    sel = LocalFDRSelector(inner).fit(data)
    truth = np.triu(chain_precision(30) != 0, k=1)
    magnitude = np.abs(np.triu(sel.partial_correlation_, k=1))
    assert magnitude[truth].min() > magnitude[np.triu(~truth, k=1)].max()
    upper = np.triu(sel.adjacency_, k=1)
    assert upper[truth].sum() >= 8
    assert not upper[~truth].any()


def test_default_is_ledoit_wolf(data):
    sel = LocalFDRSelector().fit(data)
    assert isinstance(sel.estimator_, LedoitWolf)
    assert 0.0 <= sel.null_proportion_ <= 1.0 and sel.null_kappa_ > 3


class _CovarianceOnly(BaseEstimator):
    def fit(self, X, y=None):
        self.covariance_ = np.cov(X, rowvar=False)
        return self


class _NoMatrix(BaseEstimator):
    def fit(self, X, y=None):
        return self


def test_covariance_only_estimator_is_inverted(data):
    sel = LocalFDRSelector(_CovarianceOnly()).fit(data)
    np.testing.assert_allclose(sel.precision_, linalg.pinvh(np.cov(data, rowvar=False)))


def test_estimator_without_matrices_is_rejected(data):
    with pytest.raises(TypeError, match="neither precision_ nor covariance_"):
        LocalFDRSelector(_NoMatrix()).fit(data)
    with pytest.raises(ValueError, match="estimator"):
        LocalFDRSelector(estimator="LedoitWolf").fit(data)


def test_in_a_pipeline(data):
    pipe = make_pipeline(StandardScaler(), LocalFDRSelector(OAS())).fit(data)
    assert pipe[-1].adjacency_.shape == (30, 30)
