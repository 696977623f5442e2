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

Methods written in R run through :class:`RLearner` (an R function on the data
set, in an embedded R started once per process; needs R and rpy2, the ``r``
extra), with presets for the field's reference methods: :class:`RHuge` (huge's
glasso, mb, ct and tiger with StARS, RIC or EBIC), :class:`RGlasso`,
:class:`REBICGlasso` (qgraph), :class:`RBDgraph` (posterior edge
probabilities), :class:`RGGMncv` and :class:`RJGL`.
"""

from ..utils._validation import ConstantColumnWarning
from ._adapters import LocalFDRSelector
from ._clime import CLIME
from ._edges import local_fdr_edges
from ._exact_graphical_lasso import ExactGraphicalLasso
from ._group_glasso import GroupGraphicalLasso
from ._information_criteria import EBIC, RIC, gaussian_ebic
from ._local_fdr import LocalFDRResult, local_fdr, null_correlation_pvalue
from ._neighbourhood import TIGER, NeighbourhoodSelection
from ._nodewise import AdaptiveLassoNetwork, LassoNetwork, PLSNetwork, RidgeNetwork
from ._nonparanormal import NonparanormalTransformer, liu_truncation
from ._partial_correlation import (
    partial_correlation_from_coefficients,
    partial_correlation_from_precision,
)
from ._per_class import PerClass
from ._r import RError, RLearner, RUnavailableError, r_seed, r_unavailable, r_versions
from ._r_presets import RJGL, RBDgraph, REBICGlasso, RGGMncv, RGlasso, RHuge
from ._rank_correlation import RankCorrelationAdapter, skeptic_correlation
from ._shrinkage import ShrinkagePartialCorrelation, shrinkage_intensity
from ._stars import StARS, huge_subsample_size
from ._thresholding import ThresholdedCorrelation

# The R packages refuse data with one variable with their own error (an RError,
# not the ValueError the check expects): a graph needs two.
_ONE_VARIABLE = (
    "huge, qgraph and GGMncv stop on one variable with their own R "
    "error (an RError), not a ValueError"
)

# Checks of sklearn.utils.estimator_checks.check_estimator that each learner is
# expected to fail, with the reason: {class name: {check name: reason}}.
# The test-suite passes these to check_estimator(expected_failed_checks=...).
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
    "PerClass": {},
    "GroupGraphicalLasso": {},
    "CLIME": {},
    "TIGER": {},
    "ExactGraphicalLasso": {},
    "ThresholdedCorrelation": {},
    "StARS": {},
    "EBIC": {},
    "RIC": {},
    # Checked where R and rpy2 are installed (tests/learners/test_r_learner.py).
    "RLearner": {},
    "RHuge": {"check_fit2d_1feature": _ONE_VARIABLE},
    "RGlasso": {},
    "REBICGlasso": {"check_fit2d_1feature": _ONE_VARIABLE},
    "RBDgraph": dict.fromkeys(
        (
            "check_fit2d_1feature",
            "check_estimators_overwrite_params",
            "check_estimators_fit_returns_self",
            "check_readonly_memmap_input",
            "check_fit_idempotent",
            "check_fit_check_is_fitted",
            "check_n_features_in",
        ),
        "BDgraph stops on fewer than 3 variables with its own R error (an RError), "
        "and these checks fit 1 or 2",
    ),
    "RGGMncv": {"check_fit2d_1feature": _ONE_VARIABLE},
    # Not run through check_estimator: its fit needs y, the class of each sample.
    "RJGL": {},
}

__all__ = [
    "CLIME",
    "EBIC",
    "EXPECTED_FAILED_CHECKS",
    "RIC",
    "RJGL",
    "TIGER",
    "AdaptiveLassoNetwork",
    "ConstantColumnWarning",
    "ExactGraphicalLasso",
    "GroupGraphicalLasso",
    "LassoNetwork",
    "LocalFDRResult",
    "LocalFDRSelector",
    "NeighbourhoodSelection",
    "NonparanormalTransformer",
    "PLSNetwork",
    "PerClass",
    "RBDgraph",
    "REBICGlasso",
    "RError",
    "RGGMncv",
    "RGlasso",
    "RHuge",
    "RLearner",
    "RUnavailableError",
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
    "r_seed",
    "r_unavailable",
    "r_versions",
    "shrinkage_intensity",
    "skeptic_correlation",
]
