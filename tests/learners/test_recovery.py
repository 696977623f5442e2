"""Graph recovery on the easy case, and false selections on independent data.

Easy case: p=20, n=2000, chain with partial correlations 0.4 plus three
long-range edges of -0.3 (22 edges, 168 non-edges), 10 replicate datasets.
Independent data: p=20, n=200, 30 replicate datasets.

Reference figures (R, one dataset of this design): shrink TPR 1.0 /
PPV 1.0, ridge 0.82 / 1.0, pls 0.73 / 1.0, lasso 1.0 / 0.58, adaptive lasso
1.0 / 1.0. Ours must be at least as good within 0.1 on each figure, averaged
over the 10 datasets.

The local-fdr learners meet this with the default null cutoff
(``lfdr_cutoff_method="locfdr"``). fdrtool's own default cutoff ("fndr") does
not: with only 190 statistics and a signal far from the null (|pcor| >= 0.25
against a null spread of 0.02) its search starts inside the signal on about
half of the datasets and then declares only part of the edges. R does exactly
the same: corpcor::pcor.shrink + fdrtool on the very same 10 datasets gives
the per-dataset results R_SHRINK_EASY below (mean TPR 0.78, PPV 0.985), and
ours with ``lfdr_cutoff_method="fndr"`` are identical, dataset by dataset.
"""

import warnings

import numpy as np
import pytest
from conftest import EASY_P, chain_precision, gaussian_sample
from sklearn.covariance import LedoitWolf

from skggm_bench.learners import (
    AdaptiveLassoNetwork,
    LassoNetwork,
    LocalFDRSelector,
    PLSNetwork,
    RidgeNetwork,
    ShrinkagePartialCorrelation,
)

EASY_N, NULL_N = 2000, 200
EASY_SEEDS = range(10)
NULL_SEEDS = range(1000, 1030)

# R 4.2.2, corpcor 1.6.10, fdrtool 1.2.17, on the datasets of gaussian_sample(
# chain_precision(), 2000, seed) written with np.savetxt(fmt="%.17g"):
#
#   X <- as.matrix(read.table(sprintf("easy_%d.txt", seed)))
#   pc <- pcor.shrink(X, verbose = FALSE)
#   out <- fdrtool(pc[upper.tri(pc)], statistic = "correlation", plot = FALSE)
#   sum(out$lfdr < 0.2)                       # selected
#   sum(out$lfdr < 0.2 & truth[upper.tri(truth)] == 1)   # true positives
#
# seeds 0..9; on the independent datasets (seeds 1000..1009, n=200) R selects 0
# pairs on every one.
R_SHRINK_EASY = {
    "selected": [9, 22, 11, 22, 18, 26, 11, 17, 18, 22],
    "true_positives": [9, 22, 11, 22, 18, 22, 11, 17, 18, 22],
}
R_SHRINK_NULL_SELECTED = [0] * 10

# Pairs selected on the 30 independent datasets (seeds 1000..1029) by a
# node-wise lasso in R (glmnet 4.1.6; parcor is not packaged for Debian), AND
# rule with sign agreement, after set.seed(1):
#
#   f <- cv.glmnet(scale(X)[, -i], scale(X)[, i], nfolds = 5)
#   b <- coef(f, s = "lambda.min")                      # lasso, CV minimum
#   # adaptive: refit on the support of b with penalty.factor = 1 / abs(b)
#
# The published CV-minimum lasso exceeds 5 % of the pairs (9.5 of 190) on some
# single datasets: 4 of 30 for the lasso, 2 for the adaptive lasso.
R_GLMNET_NULL_SELECTED = {
    "lasso": [
        *(14, 7, 3, 8, 1, 3, 6, 2, 7, 4, 6, 0, 7, 10, 2),
        *(4, 7, 8, 8, 1, 3, 12, 4, 2, 5, 3, 10, 6, 6, 3),
    ],
    "adalasso": [
        *(11, 3, 3, 6, 3, 0, 4, 4, 2, 2, 4, 3, 3, 8, 4),
        *(5, 3, 4, 8, 4, 11, 5, 1, 4, 1, 4, 9, 7, 3, 2),
    ],
}
FIVE_PERCENT = 0.05 * EASY_P * (EASY_P - 1) / 2

R_REFERENCE = {  # (TPR, PPV)
    "shrink": (1.0, 1.0),
    "ridge": (0.82, 1.0),
    "pls": (0.73, 1.0),
    "lasso": (1.0, 0.58),
    "adalasso": (1.0, 1.0),
}
TOLERANCE = 0.1

LEARNERS = {
    "shrink": lambda: ShrinkagePartialCorrelation(),
    "shrink_fndr": lambda: ShrinkagePartialCorrelation(lfdr_cutoff_method="fndr"),
    "ridge": lambda: RidgeNetwork(random_state=0),
    "pls": lambda: PLSNetwork(random_state=0),
    "lasso": lambda: LassoNetwork(random_state=0),
    "lasso_1se": lambda: LassoNetwork(penalty_selection="cv_1se", random_state=0),
    "adalasso": lambda: AdaptiveLassoNetwork(random_state=0),
    "ledoit_wolf_fdr": lambda: LocalFDRSelector(LedoitWolf()),
}


@pytest.fixture(scope="module")
def truth():
    return np.triu(chain_precision() != 0, k=1)


@pytest.fixture(scope="module")
def easy_fits():
    """Every learner fitted once on every easy dataset: {name: [(pcor, adjacency)]}."""
    data = [gaussian_sample(chain_precision(), EASY_N, seed) for seed in EASY_SEEDS]
    return {
        name: [_fit(make, X) for X in data]
        for name, make in LEARNERS.items()
        if name != "ledoit_wolf_fdr"
    }


@pytest.fixture(scope="module")
def null_selected():
    """Number of selected pairs per learner and independent dataset."""
    data = [gaussian_sample(np.eye(EASY_P), NULL_N, seed) for seed in NULL_SEEDS]
    with warnings.catch_warnings():
        # Shrinkage intensity 1 on independent data: all pcor 0, nothing to fit.
        warnings.filterwarnings("ignore", "local_fdr: the statistics have a zero")
        return {
            name: [int(np.triu(_fit(make, X)[1], k=1).sum()) for X in data]
            for name, make in LEARNERS.items()
        }


def _fit(make, X):
    est = make().fit(X)
    return est.partial_correlation_, est.adjacency_


def _rates(adjacency, truth):
    selected = np.triu(adjacency, k=1)
    hits = np.sum(selected & truth)
    return hits / truth.sum(), hits / max(selected.sum(), 1)


def test_chain_precision_is_positive_definite():
    assert np.linalg.eigvalsh(chain_precision()).min() == pytest.approx(
        0.1396, abs=1e-4
    )
    assert np.triu(chain_precision() != 0, k=1).sum() == 22


@pytest.mark.parametrize("name", list(R_REFERENCE))
def test_recovery_is_as_good_as_the_r_reference_within_tolerance(
    name, easy_fits, truth
):
    # Means over the 10 datasets: shrink 1.00 / 0.996, ridge 1.00 / 1.00,
    # pls 1.00 / 0.996, lasso (CV minimum) 1.00 / 0.56 (per dataset PPV
    # 0.45-0.73), adaptive lasso 1.00 / 0.955 (0.88-1.0). Over 20 datasets the
    # means differ by at most 0.02. A glmnet-based node-wise lasso in R on the
    # same datasets gives 1.00 / 0.57 and adaptive 1.00 / 0.99.
    rates = np.array([_rates(adjacency, truth) for _, adjacency in easy_fits[name]])
    tpr, ppv = rates.mean(axis=0)
    r_tpr, r_ppv = R_REFERENCE[name]
    assert tpr >= r_tpr - TOLERANCE
    assert ppv >= r_ppv - TOLERANCE


@pytest.mark.parametrize("name", ["shrink", "ridge", "pls"])
def test_fdr_learners_find_every_edge_on_every_dataset(name, easy_fits, truth):
    # The locfdr cutoff fits the null below the signal on every dataset (TPR
    # 1.0 on 20 of 20); fdrtool's fndr cutoff misses 59 % of the edges on its
    # worst dataset here (R_SHRINK_EASY).
    for _, adjacency in easy_fits[name]:
        assert np.all(adjacency[truth])


def test_lasso_default_keeps_the_published_over_selection(easy_fits, truth):
    # The CV-minimum lasso is the published method and over-selects (PPV 0.58
    # in R); cv_1se is the documented remedy: 1.00 / 1.00 on all 10 datasets.
    lasso = np.array([_rates(a, truth) for _, a in easy_fits["lasso"]]).mean(axis=0)
    one_se = np.array([_rates(a, truth) for _, a in easy_fits["lasso_1se"]]).mean(
        axis=0
    )
    assert lasso[1] < 0.75
    assert one_se[0] >= 1.0 - TOLERANCE and one_se[1] >= 1.0 - TOLERANCE


@pytest.mark.parametrize("name", ["shrink", "ridge", "pls"])
def test_fdr_learners_rank_the_true_edges_first(name, easy_fits, truth):
    # On every dataset the 22 true edges have the 22 largest |pcor| (observed:
    # smallest true >= 0.25, largest null <= 0.08).
    for pcor, _ in easy_fits[name]:
        magnitude = np.abs(pcor[np.triu_indices(EASY_P, k=1)])
        is_edge = truth[np.triu_indices(EASY_P, k=1)]
        assert magnitude[is_edge].min() > magnitude[~is_edge].max()


def test_shrink_with_fdrtools_cutoff_equals_r_on_every_dataset(easy_fits, truth):
    for (_, adjacency), selected, hits in zip(
        easy_fits["shrink_fndr"],
        R_SHRINK_EASY["selected"],
        R_SHRINK_EASY["true_positives"],
        strict=True,
    ):
        assert np.triu(adjacency, k=1).sum() == selected
        assert np.sum(np.triu(adjacency, k=1) & truth) == hits


@pytest.mark.parametrize("name", sorted(set(LEARNERS) - set(R_GLMNET_NULL_SELECTED)))
def test_independent_data_selects_at_most_5_percent_on_every_dataset(
    name, null_selected
):
    # Largest number selected over the 30 datasets (of 190 pairs): shrink 2,
    # shrink_fndr 7, ridge 3, pls 5, lasso_1se 0, LedoitWolf+fdr 4.
    assert max(null_selected[name]) <= FIVE_PERCENT
    if name == "shrink_fndr":
        assert null_selected[name][:10] == R_SHRINK_NULL_SELECTED


@pytest.mark.parametrize("name", sorted(R_GLMNET_NULL_SELECTED))
def test_cv_minimum_lassos_select_at_most_5_percent_as_often_as_r(name, null_selected):
    # The CV-minimum penalty lets noise in on some datasets, in R as in ours,
    # so the 5 % holds for the expected fraction, and single datasets exceed
    # it no more often than the R reference does. Observed (ours / R): lasso
    # mean 5.4 / 5.4 pairs, above 9.5 on 4 / 4 datasets; adaptive lasso 3.3 /
    # 4.4, on 1 / 2 datasets.
    ours, reference = (
        np.array(null_selected[name]),
        np.array(R_GLMNET_NULL_SELECTED[name]),
    )
    assert ours.mean() <= FIVE_PERCENT
    assert np.sum(ours > FIVE_PERCENT) <= np.sum(reference > FIVE_PERCENT)
