"""Graph structure learners, penalty selection, local-fdr edge selection.

Every learner is a scikit-learn estimator whose ``fit(X)`` sets ``adjacency_``
(its edge decisions) and, where the method has one, a matrix to rank edges by:
``partial_correlation_`` (the learners of Krämer, Schäfer & Boulesteix 2009 and
:class:`NeighbourhoodSelection`), ``precision_`` (:class:`TIGER`,
:class:`CLIME`, :class:`ShrinkagePartialCorrelation`, :class:`LocalFDRSelector`,
:class:`ExactGraphicalLasso`)
or ``edge_scores_`` (:class:`ThresholdedCorrelation`). :class:`StARS`,
:class:`EBIC` and :class:`RIC` choose the penalty of any learner and expose the
chosen fit's attributes. See ``docs/learners.md`` for which learner decides
edges how.

For data that are not Gaussian, :class:`NonparanormalTransformer` (normal scores,
to put before any learner in a pipeline) and :class:`RankCorrelationAdapter`
(SKEPTIC rank correlations fed to a learner that takes a precomputed covariance)
target the latent Gaussian graph; see ``docs/data_models.md``.
"""

from ..utils._validation import ConstantColumnWarning
from ._adapters import LocalFDRSelector
from ._clime import CLIME
from ._edges import local_fdr_edges
from ._exact_graphical_lasso import ExactGraphicalLasso
from ._information_criteria import EBIC, RIC, gaussian_ebic
from ._local_fdr import LocalFDRResult, local_fdr, null_correlation_pvalue
from ._neighbourhood import TIGER, NeighbourhoodSelection
from ._nodewise import AdaptiveLassoNetwork, LassoNetwork, PLSNetwork, RidgeNetwork
from ._nonparanormal import NonparanormalTransformer, liu_truncation
from ._partial_correlation import (
    partial_correlation_from_coefficients,
    partial_correlation_from_precision,
)
from ._rank_correlation import RankCorrelationAdapter, skeptic_correlation
from ._shrinkage import ShrinkagePartialCorrelation, shrinkage_intensity
from ._stars import StARS, huge_subsample_size
from ._thresholding import ThresholdedCorrelation

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
    "NeighbourhoodSelection": {},
    "CLIME": {},
    "TIGER": {},
    "ExactGraphicalLasso": {},
    "ThresholdedCorrelation": {},
    "StARS": {},
    "EBIC": {},
    "RIC": {},
}

__all__ = [
    "CLIME",
    "EBIC",
    "EXPECTED_FAILED_CHECKS",
    "RIC",
    "TIGER",
    "AdaptiveLassoNetwork",
    "ConstantColumnWarning",
    "ExactGraphicalLasso",
    "LassoNetwork",
    "LocalFDRResult",
    "LocalFDRSelector",
    "NeighbourhoodSelection",
    "NonparanormalTransformer",
    "PLSNetwork",
    "RankCorrelationAdapter",
    "RidgeNetwork",
    "ShrinkagePartialCorrelation",
    "StARS",
    "ThresholdedCorrelation",
    "gaussian_ebic",
    "huge_subsample_size",
    "liu_truncation",
    "local_fdr",
    "local_fdr_edges",
    "null_correlation_pvalue",
    "partial_correlation_from_coefficients",
    "partial_correlation_from_precision",
    "shrinkage_intensity",
    "skeptic_correlation",
]
