"""NonparanormalTransformer and the SKEPTIC rank-correlation adapter.

Agreement with R is checked on a stored 12 x 4 data set (ties in columns 2-4, none
in column 1) against numbers produced by R 4.2.2 with huge 1.3.5 and Matrix 1.5.3;
the R calls are given next to the numbers. The two recovery results of the
nonparanormal literature are then reproduced with a direct loop over 10 paired
replicates (make_ggm's latent Gaussian + a data model, learners scored by F1):
each claim is a paired Wilcoxon signed-rank test (exact, p = 0.002 when all 10
differences share a sign) plus a minimum effect size.
"""

import warnings

import numpy as np
import pytest
from scipy import special, stats
from sklearn.covariance import GraphicalLasso
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skggm_bench.datasets import MultivariateT, Nonparanormal, make_ggm, sample_gaussian
from skggm_bench.generators import DiagonalDominance
from skggm_bench.learners import (
    NonparanormalTransformer,
    RankCorrelationAdapter,
    ShrinkagePartialCorrelation,
    liu_truncation,
    skeptic_correlation,
)
from skggm_bench.learners._rank_correlation import _nearest_correlation
from skggm_bench.metrics import edges_from_estimator, f1_score

# x <- matrix(c(1.15, 1.78, 0.6, 0, 0.21, -5.57, -0.9, 0, 2.51, 0.23, 1.5, 2,
#               1.47, 0.45, 0, 0, 0.87, 0, -1.4, 2, 3.32, 2.69, 1, 2, 0.82, -0.55,
#               0.7, 1, 0.19, -2.12, 0.7, 1, 3.48, -0.01, -1.9, 1, 0.59, 0, -0.1, 0,
#               0.66, -0.05, -0.3, 1, 0.26, 0, -0.8, 0), ncol = 4, byrow = TRUE)
X_R = np.array(
    [
        [1.15, 1.78, 0.6, 0.0],
        [0.21, -5.57, -0.9, 0.0],
        [2.51, 0.23, 1.5, 2.0],
        [1.47, 0.45, 0.0, 0.0],
        [0.87, 0.0, -1.4, 2.0],
        [3.32, 2.69, 1.0, 2.0],
        [0.82, -0.55, 0.7, 1.0],
        [0.19, -2.12, 0.7, 1.0],
        [3.48, -0.01, -1.9, 1.0],
        [0.59, 0.0, -0.1, 0.0],
        [0.66, -0.05, -0.3, 1.0],
        [0.26, 0.0, -0.8, 0.0],
    ]
)
# fmt: off
# as.vector(huge.npn(x, npn.func = "truncation", verbose = FALSE))  (column-major)
HUGE_TRUNCATION = [
    0.460964332920933, -1.03533450886636, 1.03533450886636, 0.721838894979979,
    0.225200456392667, 1.48008024166403, 0, -1.48008024166403, 1.78061696002191,
    -0.460964332920933, -0.225200456392667, -0.721838894979979, 1.48008024166403,
    -1.48008024166403, 0.721838894979979, 1.03533450886636, 0.225200456392667,
    1.78061696002191, -0.721838894979979, -1.03533450886636, -0.225200456392667,
    0.225200456392667, -0.460964332920933, 0.225200456392667, 0.460964332920933,
    -0.721838894979979, 1.78061696002191, 0.225200456392667, -1.03533450886636,
    1.48008024166403, 0.869235448199655, 0.869235448199655, -1.48008024166403,
    0, -0.225200456392667, -0.460964332920933, -0.721838894979979,
    -0.721838894979979, 1.48008024166403, -0.721838894979979, 1.48008024166403,
    1.48008024166403, 0.341007830458954, 0.341007830458954, 0.341007830458954,
    -0.721838894979979, 0.341007830458954, -0.721838894979979,
]
# as.vector(huge.npn(x, npn.func = "shrinkage", verbose = FALSE))
HUGE_SHRINKAGE = [
    0.345569192090118, -1.20153193537834, 0.867295071504959, 0.591771768017153,
    0.113734891743849, 1.20153193537834, -0.113734891743849, -1.67975377649977,
    1.67975377649977, -0.591771768017153, -0.345569192090118, -0.867295071504959,
    1.20153193537834, -1.67975377649977, 0.591771768017153, 0.867295071504959,
    0.113734891743849, 1.67975377649977, -0.867295071504959, -1.20153193537834,
    -0.345569192090118, 0.113734891743849, -0.591771768017153, 0.113734891743849,
    0.345569192090118, -0.867295071504959, 1.67975377649977, 0.113734891743849,
    -1.20153193537834, 1.20153193537834, 0.724565143447352, 0.724565143447352,
    -1.67975377649977, -0.113734891743849, -0.345569192090118, -0.591771768017153,
    -0.867295071504959, -0.867295071504959, 1.20153193537834, -0.867295071504959,
    1.20153193537834, 1.20153193537834, 0.228542732387478, 0.228542732387478,
    0.228542732387478, -0.867295071504959, 0.228542732387478, -0.867295071504959,
]
# huge.npn(x, npn.func = "skeptic", verbose = FALSE)  (2 sin(pi / 6 * spearman))
HUGE_SKEPTIC = [
    1, 0.672493649116839, 0.150244195456972, 0.45623307003931,
    0.672493649116839, 1, 0.370920950756126, 0.10993674569535,
    0.150244195456972, 0.370920950756126, 1, 0.307473175502626,
    0.45623307003931, 0.10993674569535, 0.307473175502626, 1,
]
# sin(pi / 2 * cor(x, method = "kendall"))  (R's Kendall is tau-b)
R_KENDALL = [
    1, 0.685405627205837, 0.214168890840581, 0.510581998937361,
    0.685405627205837, 1, 0.427603852986234, 0.143834054440823,
    0.214168890840581, 0.427603852986234, 1, 0.413496021323782,
    0.510581998937361, 0.143834054440823, 0.413496021323782, 1,
]
# fmt: on


def column_major(values, n_rows):
    return np.array(values).reshape(-1, n_rows).T


@pytest.mark.parametrize(
    ("method", "expected"),
    [("truncation", HUGE_TRUNCATION), ("shrinkage", HUGE_SHRINKAGE)],
)
def test_agrees_with_huge_npn(method, expected):
    scores = NonparanormalTransformer(method=method).fit_transform(X_R)
    np.testing.assert_allclose(scores, column_major(expected, 12), rtol=0, atol=1e-13)


def test_skeptic_agrees_with_huge_and_r_kendall():
    np.testing.assert_allclose(
        skeptic_correlation(X_R), column_major(HUGE_SKEPTIC, 4), atol=1e-14
    )
    np.testing.assert_allclose(
        skeptic_correlation(X_R, method="kendall"),
        column_major(R_KENDALL, 4),
        atol=1e-14,
    )


def test_nearest_correlation_agrees_with_matrix_nearpd():
    # a <- matrix(c(1, 0.9, 0.7, 0.9, 1, -0.4, 0.7, -0.4, 1), 3)  (eigenvalue -0.354)
    # nearPD(a, corr = TRUE, conv.tol = 1e-12, eig.tol = 1e-12, posd.tol = 1e-12)$mat
    indefinite = np.array([[1, 0.9, 0.7], [0.9, 1, -0.4], [0.7, -0.4, 1]])
    expected = np.array(
        [
            [1, 0.694218468338, 0.525864432902],
            [0.694218468338, 1, -0.247144007555],
            [0.525864432902, -0.247144007555, 1],
        ]
    )
    nearest = _nearest_correlation(indefinite)
    # Ours floors the eigenvalues at 1e-6 (R at 1e-12 here): a 1e-6 difference.
    np.testing.assert_allclose(nearest, expected, atol=2e-6)
    np.testing.assert_array_equal(np.diag(nearest), 1.0)
    assert np.linalg.eigvalsh(nearest)[0] >= 0.99e-6
    # Not merely *a* nearby correlation matrix: clipping the eigenvalues and
    # rescaling (the plausible shortcut) lands 0.022 away, 10^4 times the tolerance.
    values, vectors = np.linalg.eigh(indefinite)
    clipped = (vectors * np.maximum(values, 1e-6)) @ vectors.T
    d = np.sqrt(np.diag(clipped))
    assert np.abs(clipped / np.outer(d, d) - expected).max() > 0.02


def test_huge_standardisation_differs_only_when_the_first_column_has_ties():
    # huge divides every column by the sd of its first transformed column; ours by
    # the sd of n distinct scores, so the result does not depend on column order.
    permuted = X_R[:, [3, 0, 1, 2]]
    scores = NonparanormalTransformer().fit_transform(permuted)
    np.testing.assert_allclose(scores[:, 1:], column_major(HUGE_TRUNCATION, 12)[:, :3])


def test_truncation_level_and_new_data():
    n = 50
    rng = np.random.default_rng(0)
    train = rng.standard_normal((n, 2))
    model = NonparanormalTransformer().fit(train)
    delta = 1 / (4 * n**0.25 * np.sqrt(np.pi * np.log(n)))
    assert model.truncation_ == pytest.approx(delta) == liu_truncation(n)
    ranks = np.arange(1, n + 1) / n
    scale = np.std(special.ndtri(np.clip(ranks, delta, 1 - delta)), ddof=1)
    assert model.scale_ == pytest.approx(scale)
    # A new value between the k-th and (k+1)-th training values gets F = (k + 1/2)/n;
    # beyond the training range it is truncated like the extremes.
    sorted_column = np.sort(train[:, 0])
    new = np.column_stack(
        [
            [0.5 * (sorted_column[9] + sorted_column[10]), 100.0, -100.0],
            np.zeros(3),
        ]
    )
    expected = special.ndtri(np.clip([10.5 / n, 1.0, 0.0], delta, 1 - delta)) / scale
    np.testing.assert_allclose(model.transform(new)[:, 0], expected)
    given = NonparanormalTransformer(truncation=0.1).fit(train)
    assert given.transform(new)[1, 0] == pytest.approx(
        special.ndtri(0.9) / given.scale_
    )
    assert NonparanormalTransformer(method="shrinkage").fit(train).truncation_ is None


def test_scores_estimate_the_standardised_latent_gaussian():
    # Under the nonparanormal model the scores approach Z_j / s_j: correlation
    # > 0.99 at n = 5000 for the strongest transform; the untransformed data do not.
    rng = np.random.default_rng(1)
    latent = rng.standard_normal((5000, 3)) * [1.0, 2.0, 0.5]
    X = Nonparanormal("exponential").observe(latent, np.diag([1.0, 4.0, 0.25]))
    scores = NonparanormalTransformer().fit_transform(X)
    for j in range(3):
        assert np.corrcoef(scores[:, j], latent[:, j])[0, 1] > 0.99
        assert np.corrcoef(X[:, j], latent[:, j])[0, 1] < 0.8
    np.testing.assert_allclose(scores.std(axis=0, ddof=1), 1.0)


def test_skeptic_is_positive_definite_when_p_exceeds_n():
    X = np.random.default_rng(2).standard_normal((8, 20))
    raw = 2 * np.sin(np.pi / 6 * stats.spearmanr(X).statistic)
    assert np.linalg.eigvalsh(raw)[0] < -0.05  # the plug-in is indefinite here
    for method in ("spearman", "kendall"):
        correlation = skeptic_correlation(X, method=method)
        np.testing.assert_array_equal(np.diag(correlation), 1.0)
        np.testing.assert_array_equal(correlation, correlation.T)
        assert np.linalg.eigvalsh(correlation)[0] > 0.9e-6
    # A positive definite plug-in is returned as is (see the R agreement above).


def test_skeptic_constant_column_and_bad_input():
    X = np.random.default_rng(3).standard_normal((30, 3))
    X[:, 1] = 2.0
    for method in ("spearman", "kendall"):
        correlation = skeptic_correlation(X, method=method)
        np.testing.assert_array_equal(correlation[1], [0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="NaN"):
        skeptic_correlation(np.full((4, 2), np.nan))
    with pytest.raises(ValueError, match="at least 2 samples"):
        skeptic_correlation(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="method"):
        skeptic_correlation(X, method="pearson")


def test_adapter_fits_the_inner_learner_on_the_rank_correlation():
    X = np.exp(np.random.default_rng(4).standard_normal((100, 5)))
    inner = GraphicalLasso(alpha=0.2, covariance="precomputed")
    adapter = RankCorrelationAdapter(inner, method="kendall").fit(X)
    reference = GraphicalLasso(alpha=0.2, covariance="precomputed").fit(
        skeptic_correlation(X, method="kendall")
    )
    np.testing.assert_array_equal(
        adapter.correlation_, skeptic_correlation(X, method="kendall")
    )
    np.testing.assert_allclose(adapter.precision_, reference.precision_)
    np.testing.assert_allclose(adapter.covariance_, reference.covariance_)
    assert not hasattr(inner, "precision_")  # cloned, not fitted
    assert not hasattr(adapter, "adjacency_")  # GraphicalLasso has none
    # The harness reads it through the estimator protocol.
    edges = edges_from_estimator(adapter)
    np.testing.assert_array_equal(edges, edges_from_estimator(reference))
    # A learner exposing adjacency_ passes it on.
    shrinkage = RankCorrelationAdapter(ShrinkagePartialCorrelation()).fit(X)
    assert shrinkage.adjacency_.shape == (5, 5)


def test_adapter_rejects_learners_not_fed_a_precomputed_covariance():
    X = np.random.default_rng(5).standard_normal((30, 3))
    with pytest.raises(ValueError, match="covariance='precomputed'"):
        RankCorrelationAdapter(GraphicalLasso()).fit(X)
    with pytest.raises(ValueError, match="1 feature"):
        RankCorrelationAdapter().fit(X[:, :1])


def test_pipeline_with_the_transformer_is_read_by_the_metrics():
    X = np.exp(np.random.default_rng(6).standard_normal((80, 4)))
    pipeline = make_pipeline(NonparanormalTransformer(), GraphicalLasso(0.1)).fit(X)
    assert edges_from_estimator(pipeline[-1]).shape == (4, 4)


# --------------------------------------------------------------------------------------
# The known results, by a direct loop (10 paired replicates, p = 30, n = 200)
# --------------------------------------------------------------------------------------

ALPHA = 0.2
N_REPLICATES = 10


def _f1(estimator, X, truth):
    estimator.fit(X)
    final = estimator[-1] if hasattr(estimator, "steps") else estimator
    return f1_score(truth, edges_from_estimator(final))


@pytest.fixture(scope="module")
def recovery():
    """F1 of each (data model, learner) over paired replicates.

    Each replicate draws an Erdos-Renyi graph (density 0.1) and a diagonally
    dominant precision (well conditioned, so the graphical lasso converges) with
    unit marginal variances, one latent Gaussian sample, and observes it under
    each data model: every learner sees the same latent draw.
    """
    learners = {
        "glasso": lambda: GraphicalLasso(ALPHA),
        "scaled+glasso": lambda: make_pipeline(StandardScaler(), GraphicalLasso(ALPHA)),
        "npn+glasso": lambda: make_pipeline(
            NonparanormalTransformer(), GraphicalLasso(ALPHA)
        ),
        "shrinkage": ShrinkagePartialCorrelation,
        "kendall+glasso": lambda: RankCorrelationAdapter(
            GraphicalLasso(ALPHA, covariance="precomputed"), method="kendall"
        ),
    }
    plan = {
        "gaussian": ["glasso", "shrinkage"],
        "npn": ["glasso", "scaled+glasso", "npn+glasso"],
        "t3": ["glasso", "shrinkage", "kendall+glasso"],
    }
    f1 = {(model, name): [] for model, names in plan.items() for name in names}
    for replicate in range(N_REPLICATES):
        data = make_ggm(
            10,
            30,
            graph="erdos_renyi",
            density=0.1,
            generator=DiagonalDominance(),
            scale=1.0,
            random_state=100 + replicate,
        )
        latent = sample_gaussian(data.covariance, 200, random_state=200 + replicate)
        observed = {
            "gaussian": latent,
            "npn": Nonparanormal(["power", "exponential"]).observe(
                latent, data.covariance
            ),
            "t3": MultivariateT(df=3, random_state=replicate).observe(
                latent, data.covariance
            ),
        }
        for model, names in plan.items():
            for name in names:
                with warnings.catch_warnings():
                    # sklearn's lasso may stop short of its tolerance on t data.
                    warnings.simplefilter("ignore")
                    score = _f1(learners[name](), observed[model], data.adjacency)
                f1[model, name].append(score)
    return {key: np.array(values) for key, values in f1.items()}


def test_nonparanormal_pipeline_recovers_what_the_gaussian_method_loses(recovery):
    # Measured (mean F1 over 10 replicates): glasso on Gaussian data 0.736; on the
    # transformed data glasso 0.241, standardised + glasso 0.557 (so the loss is not
    # a matter of scale), npn + glasso 0.728.
    for baseline, least_gain in (("glasso", 0.3), ("scaled+glasso", 0.1)):
        gain = recovery["npn", "npn+glasso"] - recovery["npn", baseline]
        assert gain.mean() > least_gain
        assert stats.wilcoxon(gain).pvalue < 0.01
    # About as well as on Gaussian data: the 95 % confidence interval of the paired
    # difference (measured -0.008 +- 0.020) lies inside +-0.05.
    gap = recovery["npn", "npn+glasso"] - recovery["gaussian", "glasso"]
    half_width = stats.t(N_REPLICATES - 1).ppf(0.975) * stats.sem(gap)
    assert abs(gap.mean()) + half_width < 0.05


def test_heavy_tails_cost_the_gaussian_methods_f1(recovery):
    # Measured: glasso 0.736 -> 0.287, Schafer-Strimmer shrinkage 0.689 -> 0.397
    # from Gaussian to MultivariateT(df=3) data on the same latent draws ...
    for name in ("glasso", "shrinkage"):
        loss = recovery["gaussian", name] - recovery["t3", name]
        assert loss.mean() > 0.15
        assert stats.wilcoxon(loss).pvalue < 0.01
    # ... while Kendall's tau (exact for elliptical laws) recovers most of it: 0.669.
    rescue = recovery["t3", "kendall+glasso"] - recovery["t3", "glasso"]
    assert rescue.mean() > 0.2
    assert stats.wilcoxon(rescue).pvalue < 0.01
