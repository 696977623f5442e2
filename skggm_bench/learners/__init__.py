"""Structure learners of Krämer, Schäfer & Boulesteix (2009); local-fdr edge selection.

Every learner is a scikit-learn estimator whose ``fit(X)`` sets
``partial_correlation_`` (symmetric, zero diagonal) and ``adjacency_`` (its
edge decisions); :class:`ShrinkagePartialCorrelation` and
:class:`LocalFDRSelector` also expose ``precision_`` and ``covariance_``.
See ``docs/learners.md`` for which learner decides edges how.

For data that are not Gaussian, :class:`NonparanormalTransformer` (normal scores,
to put before any learner in a pipeline) and :class:`RankCorrelationAdapter`
(SKEPTIC rank correlations fed to a learner that takes a precomputed covariance)
target the latent Gaussian graph; see ``docs/data_models.md``.
"""

from ._adapters import LocalFDRSelector
from ._edges import local_fdr_edges
from ._local_fdr import LocalFDRResult, local_fdr, null_correlation_pvalue
from ._nodewise import AdaptiveLassoNetwork, LassoNetwork, PLSNetwork, RidgeNetwork
from ._nonparanormal import NonparanormalTransformer, liu_truncation
from ._partial_correlation import (
    partial_correlation_from_coefficients,
    partial_correlation_from_precision,
)
from ._rank_correlation import RankCorrelationAdapter, skeptic_correlation
from ._shrinkage import ShrinkagePartialCorrelation, shrinkage_intensity

# Checks of sklearn.utils.estimator_checks.check_estimator that each learner is
# expected to fail, with the reason: {class name: {check name: reason}}.
# The test-suite passes these to check_estimator(expected_failed_checks=...).
# All learners currently pass every check, so no entry is needed.
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    "ShrinkagePartialCorrelation": {},
    "LassoNetwork": {},
    "AdaptiveLassoNetwork": {},
    "RidgeNetwork": {},
    "PLSNetwork": {},
    "LocalFDRSelector": {},
    "NonparanormalTransformer": {},
    "RankCorrelationAdapter": {},
}

__all__ = [
    "EXPECTED_FAILED_CHECKS",
    "AdaptiveLassoNetwork",
    "LassoNetwork",
    "LocalFDRResult",
    "LocalFDRSelector",
    "NonparanormalTransformer",
    "PLSNetwork",
    "RankCorrelationAdapter",
    "RidgeNetwork",
    "ShrinkagePartialCorrelation",
    "liu_truncation",
    "local_fdr",
    "local_fdr_edges",
    "null_correlation_pvalue",
    "partial_correlation_from_coefficients",
    "partial_correlation_from_precision",
    "shrinkage_intensity",
    "skeptic_correlation",
]
