import os
import sys

import patience
import pytest
from sklearn.covariance import OAS
from sklearn.utils.estimator_checks import check_estimator

import skggm_bench.learners as learners
from skggm_bench.learners import (
    EXPECTED_FAILED_CHECKS,
    AdaptiveLassoNetwork,
    ExactGraphicalLasso,
    LassoNetwork,
    LocalFDRSelector,
    NonparanormalTransformer,
    PLSNetwork,
    RankCorrelationAdapter,
    RidgeNetwork,
    ShrinkagePartialCorrelation,
)

ESTIMATORS = [
    ShrinkagePartialCorrelation(),
    LassoNetwork(),
    LassoNetwork(penalty_selection="cv_1se", rule="or"),
    AdaptiveLassoNetwork(),
    RidgeNetwork(),
    PLSNetwork(),
    LocalFDRSelector(),
    LocalFDRSelector(OAS()),
    NonparanormalTransformer(),
    NonparanormalTransformer(method="shrinkage"),
    RankCorrelationAdapter(),
    RankCorrelationAdapter(method="kendall"),
    ExactGraphicalLasso(),
    ExactGraphicalLasso(alpha=[0.5, 0.05], warm_start=True),
]


@pytest.mark.filterwarnings("ignore::UserWarning")  # local fdr on 1-3 pairs
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_check_estimator(estimator):
    check_estimator(
        estimator,
        expected_failed_checks=EXPECTED_FAILED_CHECKS[type(estimator).__name__],
    )


def test_expected_failed_checks_cover_every_estimator_with_reasons():
    estimator_names = {
        name
        for name in learners.__all__
        if isinstance(getattr(learners, name), type)
        and hasattr(getattr(learners, name), "fit")
    }
    assert set(EXPECTED_FAILED_CHECKS) == estimator_names
    for checks in EXPECTED_FAILED_CHECKS.values():
        for check, reason in checks.items():
            assert check.startswith("check_") and len(reason) > 20


# The learners and penalty searches modelled on R's huge, and parcor's nested
# adaptive lasso. They are checked in a
# fresh interpreter with SciPy's array API enabled (SCIPY_ARRAY_API must be set
# before SciPy is imported), so that check_array_api_input runs instead of
# being skipped: every check runs, none is skipped.
HUGE_STYLE_ESTIMATORS = """[
    AdaptiveLassoNetwork(weight_cv="nested"),
    NeighbourhoodSelection(),
    NeighbourhoodSelection(alpha=0.2, rule="and"),
    TIGER(),
    CLIME(),
    ThresholdedCorrelation(),
    StARS(NeighbourhoodSelection(), alphas=3, n_subsamples=3),
    EBIC(TIGER(), alphas=3),
    RIC(NeighbourhoodSelection()),
]"""
CHECK_SCRIPT = f"""
import warnings
from sklearn.exceptions import SkipTestWarning
from sklearn.utils.estimator_checks import check_estimator
from skggm_bench.learners import *

for estimator in {HUGE_STYLE_ESTIMATORS}:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_estimator(
            estimator,
            expected_failed_checks=EXPECTED_FAILED_CHECKS[type(estimator).__name__],
        )
    skipped = [str(w.message) for w in caught
               if issubclass(w.category, SkipTestWarning)]
    assert not skipped, (repr(estimator), skipped)
    print("passed", repr(estimator))
"""


def test_check_estimator_runs_every_check_on_huge_style_estimators():
    result = patience.run(
        [sys.executable, "-c", CHECK_SCRIPT],
        env={**os.environ, "SCIPY_ARRAY_API": "1"},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count("passed") == 9
