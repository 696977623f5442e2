"""Graph recovery on the issue's easy case, and false selections on independent data.

Easy case: p=20, n=2000, chain with partial correlations 0.4 plus three
long-range edges of -0.3 (22 edges, 168 non-edges), 10 replicate datasets.
Independent data: p=20, n=200, 10 replicate datasets.

Reference figures of the issue (R, one dataset of this design): shrink TPR 1.0 /
PPV 1.0, ridge 0.82 / 1.0, pls 0.73 / 1.0, lasso 1.0 / 0.58, adaptive lasso
1.0 / 1.0. Ours must be at least as good within 0.1 on each figure.

For the three local-fdr learners a single dataset is not a stable reference
here: with only 190 statistics and a signal far from the null (|pcor| >= 0.25
against a null spread of 0.02), fdrtool's FNDR cutoff heuristic lands inside
the signal on about half of the datasets and then declares only part of the
edges. R does exactly the same: corpcor::pcor.shrink + fdrtool on the very
same 10 datasets gives the per-dataset results R_SHRINK_EASY below (mean TPR
0.78, PPV 0.985), and ours are identical. So for those learners we test
(a) that the estimated partial correlations rank the true edges first on every
dataset, (b) seed-by-seed equality with R for shrink, and (c) PPV within 0.1 of
the issue's figures, TPR with a floor explained at the test.
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
NULL_SEEDS = range(1000, 1010)

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

ISSUE_REFERENCE = {  # (TPR, PPV)
    "shrink": (1.0, 1.0),
    "ridge": (0.82, 1.0),
    "pls": (0.73, 1.0),
    "lasso": (1.0, 0.58),
    "adalasso": (1.0, 1.0),
}
TOLERANCE = 0.1

LEARNERS = {
    "shrink": lambda: ShrinkagePartialCorrelation(),
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


@pytest.mark.parametrize("name", ["lasso", "adalasso"])
def test_sparse_learners_match_the_r_reference(name, easy_fits, truth):
    # Averaged over 10 datasets: lasso (CV minimum) TPR 1.00 / PPV 0.56 (per
    # dataset 0.45-0.73), adaptive lasso 1.00 / 0.955 (0.88-1.0). A glmnet-based
    # node-wise lasso in R on the same datasets gives 1.00 / 0.57 and adaptive
    # 1.00 / 0.99 (parcor itself is not packaged for Debian).
    rates = np.array([_rates(adjacency, truth) for _, adjacency in easy_fits[name]])
    tpr, ppv = rates.mean(axis=0)
    r_tpr, r_ppv = ISSUE_REFERENCE[name]
    assert tpr >= r_tpr - TOLERANCE
    assert ppv >= r_ppv - TOLERANCE


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


def test_shrink_decisions_equal_r_on_every_dataset(easy_fits, truth):
    for (_, adjacency), selected, hits in zip(
        easy_fits["shrink"],
        R_SHRINK_EASY["selected"],
        R_SHRINK_EASY["true_positives"],
        strict=True,
    ):
        assert np.triu(adjacency, k=1).sum() == selected
        assert np.sum(np.triu(adjacency, k=1) & truth) == hits


@pytest.mark.parametrize("name", ["shrink", "ridge", "pls"])
def test_fdr_learners_decisions(name, easy_fits, truth):
    rates = np.array([_rates(adjacency, truth) for _, adjacency in easy_fits[name]])
    tpr, ppv = rates.mean(axis=0)
    assert ppv >= ISSUE_REFERENCE[name][1] - TOLERANCE
    # TPR: per dataset it is ~1 when fdrtool's cutoff falls below the signal
    # and 0.2-0.8 when it falls inside it (R identical, see module docstring).
    # Means over these 10 datasets: shrink 0.78 (= R), ridge 0.69, pls 0.59;
    # over 20 datasets 0.79 / 0.73 / 0.70, against the issue's single-dataset
    # 1.0 / 0.82 / 0.73. The floor 0.5 fails a learner that loses the signal
    # in the decision step (no discoveries, a broken partial-correlation rule).
    assert tpr >= 0.5


@pytest.mark.parametrize("name", list(LEARNERS))
def test_independent_data_selects_at_most_5_percent(name, null_selected):
    # 190 pairs, 5 % = 9.5. Read as the expected fraction (mean over 10
    # datasets): observed means shrink 0.0, ridge 0.9, pls 1.4, lasso 5.4,
    # lasso_1se 0.0, adalasso 2.9, LedoitWolf+fdr 0.0. Single datasets can
    # exceed it (lasso up to 13, ridge up to 24 over 30 datasets). Ridge
    # without the cap of its penalty grid at parcor's 0.1 p selects 53 on
    # average: nodes shrunk by very different factors fool the single null.
    assert np.mean(null_selected[name]) <= 0.05 * EASY_P * (EASY_P - 1) / 2
    if name == "shrink":
        assert null_selected[name] == R_SHRINK_NULL_SELECTED
