"""Data models: the observed data have the law each model states, and keep its graph.

The latent model is a chain on 6 variables with fixed partial correlations and
unequal marginal standard deviations (0.5 ... 4), so a transform that forgets to
standardise by ``sqrt(diag(covariance))`` is caught. Statistical checks use fixed
seeds and thresholds that a correct implementation passes with probability > 0.999:

* Kolmogorov-Smirnov tests against the exact transformed law, one per column, at
  level 1e-4 each (Bonferroni over <= 6 columns: family-wise error < 1e-3);
* counts (missing entries, outlier rows, levels) compared with their binomial mean
  in units of the binomial standard deviation, threshold 4.5 (two-sided
  P < 7e-6 per comparison);
* graph preservation: off-graph partial correlations of the Gaussianised data in
  units of their sampling error, threshold 5 (<= 15 pairs: P < 1e-5 by Bonferroni).

Each check is also run on a named wrong variant (no standardisation, per-entry
mixing, missingness driven by the variable's own value, ...) to show it has the
power to reject it.
"""

import re

import numpy as np
import pytest
from scipy import special, stats
from sklearn.base import clone
from sklearn.utils import Bunch

from skggm_bench.datasets import (
    Binary,
    Contaminated,
    DataModel,
    Gaussian,
    MissingAtRandom,
    MissingCompletelyAtRandom,
    MultivariateT,
    Nonparanormal,
    Ordinal,
    sample_gaussian,
)

KS_LEVEL = 1e-4
Z_COUNT = 4.5
Z_GRAPH = 5.0

SCALES = np.array([0.5, 1.0, 2.0, 3.0, 1.0, 4.0])


# Partial correlations on the chain, fixed so that the checks do not depend on a
# generator's draw.
CHAIN_PARTIAL_CORRELATIONS = np.array([-0.41, -0.24, -0.92, 0.22, -0.27])


@pytest.fixture(scope="module")
def chain():
    precision = np.eye(6)
    index = np.arange(5)
    precision[index, index + 1] = precision[
        index + 1, index
    ] = -CHAIN_PARTIAL_CORRELATIONS
    # Variables with standard deviations SCALES: Sigma = D R D, R the correlation
    # matrix of K^{-1} (standardising keeps the partial correlations).
    inverse = np.linalg.inv(precision)
    sd = np.sqrt(np.diag(inverse))
    covariance = inverse / np.outer(sd, sd) * np.outer(SCALES, SCALES)
    adjacency = (precision != 0) & ~np.eye(6, dtype=bool)
    return Bunch(covariance=0.5 * (covariance + covariance.T), adjacency=adjacency)


@pytest.fixture(scope="module")
def latent(chain):
    return sample_gaussian(chain.covariance, 40_000, random_state=1)


def ks_pvalues(X, cdf):
    """KS p-value of each column of ``X / SCALES`` against ``cdf``."""
    return np.array(
        [stats.kstest(X[:, j] / SCALES[j], cdf).pvalue for j in range(X.shape[1])]
    )


def partial_correlation(correlation):
    precision = np.linalg.inv(correlation)
    d = np.sqrt(np.diag(precision))
    return -precision / np.outer(d, d)


def off_graph_fisher_z(data, adjacency):
    """Largest |Fisher z| of an off-graph partial correlation of Gaussian-like data.

    Under a zero partial correlation, ``sqrt(n - p - 1) atanh(r)`` is ~N(0, 1).
    """
    n, p = data.shape
    partial = partial_correlation(np.corrcoef(data.T))
    off = np.triu(~adjacency, 1)
    return float(np.max(np.sqrt(n - p - 1) * np.abs(np.arctanh(partial[off]))))


def normal_scores(X):
    """Gaussianise each column by its ranks (an algorithm independent of the
    learners' NonparanormalTransformer)."""
    return special.ndtri(stats.rankdata(X, axis=0) / (X.shape[0] + 1))


# --------------------------------------------------------------------------------------
# The interface every model shares
# --------------------------------------------------------------------------------------

MODELS = [
    Gaussian(),
    Nonparanormal(),
    Nonparanormal(["cdf", np.arctan, "exponential"]),
    MultivariateT(df=3, random_state=0),
    Contaminated(fraction=0.2, random_state=0),
    Contaminated(fraction=0.2, distribution="cauchy", location=2.0, random_state=0),
    Ordinal(n_levels=4, random_state=0),
    Ordinal(n_levels=4, thresholds=[-1.0, 0.0, 1.0]),
    Binary(random_state=0),
    Binary(threshold=0.3),
    MissingCompletelyAtRandom(0.3, Nonparanormal(), random_state=0),
    MissingAtRandom(0.2, data_model=MultivariateT(3), random_state=0),
    MissingCompletelyAtRandom(
        0.1, MissingAtRandom(0.2, data_model=Ordinal(random_state=1)), random_state=2
    ),
]


@pytest.mark.parametrize("model", MODELS, ids=repr)
def test_prefix_property(model, chain, latent):
    full = model.observe(latent[:500], chain.covariance)
    for m in (1, 37, 499):
        np.testing.assert_array_equal(
            model.observe(latent[:m], chain.covariance), full[:m]
        )


class _RowsBeforeThresholds(DataModel):
    """A plausible wrong model: Binary-like, but the per-row noise is drawn
    *before* the fixed-size thresholds from the same stream, so the thresholds
    depend on n."""

    _parameter_constraints: dict = {"random_state": ["random_state"]}
    truth_note = "latent precision (a deliberately broken model for the test)"

    def __init__(self, random_state=None):
        self.random_state = random_state

    def _observe(self, latent, covariance, cdf_columns):
        rng = np.random.default_rng(self.random_state)
        noise = rng.standard_normal(latent.shape)
        thresholds = rng.standard_normal(latent.shape[1])
        values = (latent + 0.1 * noise > thresholds).astype(float)
        return values, None


def test_prefix_check_rejects_draws_of_fixed_size_after_the_rows(chain, latent):
    wrong = _RowsBeforeThresholds(random_state=0)
    full = wrong.observe(latent[:500], chain.covariance)
    assert not np.array_equal(wrong.observe(latent[:37], chain.covariance), full[:37])


@pytest.mark.parametrize("model", MODELS, ids=repr)
def test_observe_is_deterministic_and_leaves_latent_untouched(model, chain, latent):
    Z = latent[:300].copy()
    first = model.observe(Z, chain.covariance)
    np.testing.assert_array_equal(Z, latent[:300])
    assert first.dtype == np.float64 and first.shape == Z.shape
    np.testing.assert_array_equal(first, clone(model).observe(Z, chain.covariance))
    params = model.get_params()
    # Given thresholds leave nothing random in Ordinal and Binary.
    if "random_state" in params and not {"thresholds", "threshold"} & {
        name for name, value in params.items() if value is not None
    }:
        other = clone(model).set_params(random_state=12345)
        assert not np.array_equal(other.observe(Z, chain.covariance), first)


@pytest.mark.parametrize("model", MODELS, ids=repr)
def test_truth_note_names_the_latent_matrix(model):
    assert "latent" in model.truth_note.lower()
    assert clone(model).get_params().keys() == model.get_params().keys()


def test_wrapper_seeds_an_unseeded_inner_model_from_its_own_seed(chain, latent):
    # One seed on the outer model fixes the whole composition ...
    model = MissingCompletelyAtRandom(0.2, Contaminated(0.3), random_state=4)
    Z = latent[:400]
    np.testing.assert_array_equal(
        model.observe(Z, chain.covariance), model.observe(Z, chain.covariance)
    )
    # ... while an explicitly seeded inner model keeps its own draws: the observed
    # entries are exactly the inner model's output.
    inner = Contaminated(0.3, random_state=7)
    X = MissingCompletelyAtRandom(0.2, inner, random_state=4).observe(
        Z, chain.covariance
    )
    complete = inner.observe(Z, chain.covariance)
    observed = ~np.isnan(X)
    np.testing.assert_array_equal(X[observed], complete[observed])


# --------------------------------------------------------------------------------------
# Clear errors for bad input
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("latent", "covariance", "match"),
    [
        (np.zeros(5), np.eye(5), "2-D"),
        (np.full((3, 2), np.nan), np.eye(2), "NaN"),
        (np.zeros((3, 2)), np.eye(3), r"shape \(2, 2\)"),
        (np.zeros((3, 2)), np.diag([1.0, 0.0]), "positive diagonal"),
    ],
)
def test_observe_rejects_bad_input(latent, covariance, match):
    with pytest.raises(ValueError, match=match):
        Gaussian().observe(latent, covariance)


def stable_id(value):
    """The ``repr`` of a test's parameter without memory addresses (a lambda's), so
    that every process collecting the tests names them alike (pytest-xdist)."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


@pytest.mark.parametrize(
    ("model", "match"),
    [
        (Nonparanormal("square"), "transform"),
        (Nonparanormal(["power", "nope"]), "transform list entries"),
        (Nonparanormal([]), "empty"),
        (Contaminated(location=np.inf), "location"),
        (Nonparanormal(np.square), "not strictly increasing"),
        (Nonparanormal(lambda z: z[:1]), "elementwise"),
        (Nonparanormal(exponent=0), "exponent"),
        (MultivariateT(df=0), "df"),
        (MultivariateT(df=np.inf), "df"),
        (Contaminated(fraction=1.5), "fraction"),
        (Contaminated(distribution="t"), "distribution"),
        (Ordinal(n_levels=1), "n_levels"),
        (Ordinal(n_levels=3, thresholds=[1.0, 0.0]), "strictly increasing"),
        (Ordinal(n_levels=3, thresholds=[0.0, 1.0, 2.0]), r"shape \(2,\)"),
        (Binary(threshold=[0.0, 1.0]), r"shape \(3,\)"),
        (MissingCompletelyAtRandom(rate=1.0), "rate"),
        (MissingCompletelyAtRandom(data_model="gaussian"), "data_model"),
        (MissingAtRandom(strength=2.0), "strength"),
        (MissingAtRandom(rate=0.6), "too high"),
        (
            MissingAtRandom(data_model=MissingCompletelyAtRandom(0.5)),
            "driver columns must be complete",
        ),
    ],
    ids=stable_id,
)
def test_bad_parameters_raise_clear_errors(model, match):
    latent = np.random.default_rng(0).standard_normal((50, 3))
    with pytest.raises(ValueError, match=match):
        model.observe(latent, np.eye(3))


def test_mar_needs_an_incomplete_column():
    with pytest.raises(ValueError, match="at least one incomplete column"):
        MissingAtRandom().observe(np.zeros((4, 1)), np.eye(1))


# --------------------------------------------------------------------------------------
# Gaussian and Nonparanormal
# --------------------------------------------------------------------------------------


def test_gaussian_is_the_identity(chain, latent):
    np.testing.assert_array_equal(Gaussian().observe(latent, chain.covariance), latent)


# The exact law of X_j / s_j = f(U), U ~ N(0, 1), for each built-in transform.
EXACT_LAWS = {
    "power": lambda x: special.ndtr(np.sign(x) * np.abs(x) ** (1 / 3)),
    "exponential": stats.lognorm(s=1.0).cdf,
    "cdf": stats.uniform().cdf,
}


@pytest.mark.parametrize("transform", sorted(EXACT_LAWS))
def test_nonparanormal_marginals_follow_the_transformed_law(transform, chain, latent):
    X = Nonparanormal(transform).observe(latent, chain.covariance)
    assert ks_pvalues(X, EXACT_LAWS[transform]).min() > KS_LEVEL
    # Wrong variant: the transform applied to Z_j itself, not to Z_j / s_j (then
    # rescaled by s_j as in the model). Rejected on every column with s_j != 1.
    unstandardised = SCALES * _builtin(transform)(latent)
    pvalues = ks_pvalues(unstandardised, EXACT_LAWS[transform])
    assert np.all(pvalues[SCALES != 1.0] < 1e-10)


def _builtin(name):
    return {
        "power": lambda z: np.sign(z) * np.abs(z) ** 3,
        "exponential": np.exp,
        "cdf": special.ndtr,
    }[name]


def test_nonparanormal_values_and_ranks_are_exact(chain, latent):
    X = Nonparanormal(["power", "exponential", np.arctan]).observe(
        latent, chain.covariance
    )
    u = latent / SCALES
    expected = SCALES * np.column_stack(
        [
            np.sign(u[:, 0]) * np.abs(u[:, 0]) ** 3,
            np.exp(u[:, 1]),
            np.arctan(u[:, 2]),
            np.sign(u[:, 3]) * np.abs(u[:, 3]) ** 3,
            np.exp(u[:, 4]),
            np.arctan(u[:, 5]),
        ]
    )
    np.testing.assert_allclose(X, expected, rtol=1e-14)
    # Strictly increasing per column: the ranks are those of the latent data.
    np.testing.assert_array_equal(np.argsort(X, axis=0), np.argsort(latent, axis=0))


@pytest.mark.parametrize("transform", ["power", "exponential"])
def test_nonparanormal_keeps_the_latent_graph(transform, chain, latent):
    X = Nonparanormal(transform).observe(latent, chain.covariance)
    # Gaussianised by normal scores, the off-graph partial correlations are zero up
    # to sampling error (measured 2.3 sampling sds at most) ...
    assert off_graph_fisher_z(normal_scores(X), chain.adjacency) < Z_GRAPH
    # ... while the Pearson partial correlations of X itself (the wrong variant: a
    # Gaussian model on the observed scale) are not: 6.8 sds for "power", 136 sds
    # for "exponential" at this n (1.7 for the normal scores). The mild "cdf"
    # transform is nearly linear over the bulk of the data and gives no detectable
    # violation at this n, so it is not part of this check.
    assert off_graph_fisher_z(X, chain.adjacency) > Z_GRAPH


# --------------------------------------------------------------------------------------
# MultivariateT
# --------------------------------------------------------------------------------------


def test_multivariate_t_marginals_are_scaled_student_t(chain, latent):
    X = MultivariateT(df=3, random_state=2).observe(latent, chain.covariance)
    assert ks_pvalues(X, stats.t(3).cdf).min() > KS_LEVEL
    # Wrong variant: x = z / sqrt(w) (the division of w by df forgotten).
    w = np.random.default_rng(2).chisquare(3, size=len(latent))
    wrong = latent / np.sqrt(w)[:, None]
    assert ks_pvalues(wrong, stats.t(3).cdf).max() < 1e-10


def kendall_partial_correlations(X, n_batches):
    """Off-graph-ready partial correlations from sin(pi tau / 2), per batch of rows."""
    from skggm_bench.learners import skeptic_correlation

    return np.array(
        [
            partial_correlation(skeptic_correlation(batch, method="kendall"))
            for batch in np.array_split(X, n_batches)
        ]
    )


def test_multivariate_t_keeps_the_zeros_of_the_scale_precision(chain, latent):
    # Kendall's tau gives the latent correlation exactly for an elliptical law, so
    # the off-graph partial correlations average to zero over 24 batches of 500
    # rows; the batch spread gives their sampling error (t with 23 df: P(|t| > 5)
    # < 5e-5). Measured: 0.9 sds at most.
    off = np.triu(~chain.adjacency, 1)
    X = MultivariateT(df=3, random_state=2).observe(latent[:12_000], chain.covariance)
    per_batch = kendall_partial_correlations(X, 24)[:, off]
    t = per_batch.mean(0) / (per_batch.std(0, ddof=1) / np.sqrt(24))
    assert np.abs(t).max() < Z_GRAPH
    # Wrong variant: one chi-square per *entry* (independent t marginals, same
    # marginal law as above): no longer elliptical, the zeros are lost (13.6 sds).
    w = np.random.default_rng(2).chisquare(3, size=(12_000, 6))
    wrong = latent[:12_000] / np.sqrt(w / 3)
    per_batch = kendall_partial_correlations(wrong, 24)[:, off]
    t = per_batch.mean(0) / (per_batch.std(0, ddof=1) / np.sqrt(24))
    assert np.abs(t).max() > 2 * Z_GRAPH


def test_multivariate_t_loses_conditional_independence(chain, latent):
    # Variables 0 and 2 are separated by 1 in the chain. The residuals of 0 and 2
    # on 1 (population regression coefficients) are independent under the Gaussian
    # model, but share the row's mixing variable under the t: their sizes are
    # correlated. Spearman correlation of |residuals| in units of its null sd
    # 1 / sqrt(n - 1): Gaussian within 4.5, t far beyond (measured: 38).
    cov = chain.covariance

    def size_correlation_z(X):
        residual_0 = X[:, 0] - cov[0, 1] / cov[1, 1] * X[:, 1]
        residual_2 = X[:, 2] - cov[2, 1] / cov[1, 1] * X[:, 1]
        rho = stats.spearmanr(np.abs(residual_0), np.abs(residual_2)).statistic
        return rho * np.sqrt(len(X) - 1)

    assert abs(size_correlation_z(latent)) < Z_COUNT
    t_data = MultivariateT(df=3, random_state=2).observe(latent, cov)
    assert size_correlation_z(t_data) > 5 * Z_COUNT


# --------------------------------------------------------------------------------------
# Contaminated
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("distribution", "location", "outlier_law"),
    [("normal", 0.0, stats.norm(0, 5)), ("cauchy", 2.0, stats.cauchy(2, 5))],
)
def test_contaminated_rows_and_marginals(
    distribution, location, outlier_law, chain, latent
):
    fraction = 0.1
    model = Contaminated(fraction, distribution, location, 5.0, random_state=3)
    X = model.observe(latent, chain.covariance)
    changed = X != latent
    # Whole rows are replaced, never single entries.
    assert np.all(changed.all(axis=1) | ~changed.any(axis=1))
    outliers = changed.all(axis=1)
    n = len(X)
    z = (outliers.sum() - n * fraction) / np.sqrt(n * fraction * (1 - fraction))
    assert abs(z) < Z_COUNT
    # Outlier rows carry nothing of the latent row (replaced, not shifted).
    r = np.corrcoef(latent[outliers, 0], X[outliers, 0])[0, 1]
    assert abs(r) * np.sqrt(outliers.sum()) < Z_COUNT

    def mixture(x):
        return (1 - fraction) * special.ndtr(x) + fraction * outlier_law.cdf(x)

    assert ks_pvalues(X, mixture).min() > KS_LEVEL
    # Wrong variant: outliers not scaled by the latent standard deviation
    # (location and spread in raw units): rejected on every column with s_j != 1.
    unscaled = X.copy()
    unscaled[outliers] /= SCALES
    pvalues = ks_pvalues(unscaled, mixture)
    assert np.all(pvalues[SCALES != 1.0] < 1e-6)


# --------------------------------------------------------------------------------------
# Ordinal and Binary
# --------------------------------------------------------------------------------------


def test_ordinal_with_given_thresholds_is_exact(chain, latent):
    thresholds = [-0.7, 0.1, 1.2]
    X = Ordinal(4, thresholds).observe(latent, chain.covariance)
    u = latent / SCALES
    expected = (u > -0.7).astype(int) + (u > 0.1) + (u > 1.2)
    np.testing.assert_array_equal(X, expected)
    per_variable = np.tile([-0.7, 0.1, 1.2], (6, 1)) + np.arange(6)[:, None] * 0.1
    X = Ordinal(4, per_variable).observe(latent, chain.covariance)
    np.testing.assert_array_equal(X[:, 5], np.sum(u[:, [5]] > per_variable[5], axis=1))
    b = Binary(threshold=np.linspace(-1, 1, 6)).observe(latent, chain.covariance)
    np.testing.assert_array_equal(b, u > np.linspace(-1, 1, 6))


def test_ordinal_levels_and_pairs_have_the_copula_probabilities(chain, latent):
    thresholds = np.array([-0.7, 0.1, 1.2])
    X = Ordinal(4, thresholds).observe(latent, chain.covariance)
    n = len(X)
    bounds = np.concatenate([[-np.inf], thresholds, [np.inf]])
    level_probability = np.diff(special.ndtr(bounds))
    for j in range(6):
        counts = np.bincount(X[:, j].astype(int), minlength=4)
        assert stats.chisquare(counts, n * level_probability).pvalue > KS_LEVEL
    # Bivariate: P(X_1 <= a, X_2 <= b) = Phi_2(t_a, t_b; latent correlation), for the
    # strongly dependent pair (1, 2) (correlation -0.85).
    correlation = chain.covariance[1, 2] / (SCALES[1] * SCALES[2])
    law = stats.multivariate_normal([0, 0], [[1, correlation], [correlation, 1]])

    def cell_probabilities(r):
        cumulative = np.array(
            [[law.cdf([min(a, 9), min(b, 9)]) for b in bounds[1:]] for a in bounds[1:]]
        )
        cumulative = np.pad(cumulative, ((1, 0), (1, 0)))
        return np.diff(np.diff(cumulative, axis=0), axis=1)

    expected = cell_probabilities(correlation).ravel() * n
    counts = np.bincount((4 * X[:, 1] + X[:, 2]).astype(int), minlength=16)
    keep = expected > 5  # the chi-square approximation needs populated cells
    scaled = expected[keep] * counts[keep].sum() / expected[keep].sum()
    assert stats.chisquare(counts[keep], scaled).pvalue > KS_LEVEL
    # Wrong variant: thresholds applied to Z_j, not to Z_j / s_j.
    wrong = np.sum(latent[:, :, None] > thresholds, axis=2)
    counts = np.bincount(wrong[:, 5], minlength=4)
    assert stats.chisquare(counts, n * level_probability).pvalue < 1e-10


def test_random_thresholds_give_dirichlet_level_probabilities():
    # 300 independent standard normal variables: the level frequencies of each
    # (sampling sd < 0.008 at n = 4000) follow the Beta(c, 2c) marginal of the
    # Dirichlet(c, c, c) level probabilities.
    latent = np.random.default_rng(5).standard_normal((4000, 300))
    covariance = np.eye(300)
    X = Ordinal(3, concentration=4.0, random_state=0).observe(latent, covariance)
    first_level = (X == 0).mean(axis=0)
    assert stats.kstest(first_level, stats.beta(4.0, 8.0).cdf).pvalue > KS_LEVEL
    # Wrong variant: the concentration ignored (Dirichlet(1, 1, 1)).
    assert stats.kstest(first_level, stats.beta(1.0, 2.0).cdf).pvalue < 1e-10
    success = Binary(concentration=4.0, random_state=0).observe(latent, covariance)
    assert stats.kstest(success.mean(0), stats.beta(4, 4).cdf).pvalue > KS_LEVEL


# --------------------------------------------------------------------------------------
# Missing data
# --------------------------------------------------------------------------------------


def binomial_z(successes, trials, probability):
    return (successes - trials * probability) / np.sqrt(
        trials * probability * (1 - probability)
    )


def test_mcar_rate_and_independence(chain, latent):
    rate = 0.25
    X = MissingCompletelyAtRandom(rate, random_state=0).observe(
        latent, chain.covariance
    )
    missing = np.isnan(X)
    assert abs(binomial_z(missing.sum(), missing.size, rate)) < Z_COUNT
    np.testing.assert_array_equal(X[~missing], latent[~missing])

    def own_value_z(missing):
        # Mean of the (standardised) latent value where missing vs. observed.
        u = latent / SCALES
        gap = u[missing].mean() - u[~missing].mean()
        return gap / np.sqrt(1 / missing.sum() + 1 / (~missing).sum())

    assert abs(own_value_z(missing)) < Z_COUNT
    # Wrong variant (MNAR): the probability grows with the entry's own value.
    uniforms = np.random.default_rng(0).random(latent.shape)
    mnar = uniforms < rate * 2 * special.ndtr(latent / SCALES)
    assert own_value_z(mnar) > 10 * Z_COUNT


MAR_INNER = [
    Gaussian(),
    Nonparanormal("exponential"),
    MultivariateT(3),
    Contaminated(0.1, "cauchy", location=1.0),
    Ordinal(3),
    Binary(),
]


@pytest.mark.parametrize("inner", MAR_INNER, ids=repr)
def test_mar_rate_is_exact_for_any_data_model(inner, chain, latent):
    rate = 0.2
    X = MissingAtRandom(rate, data_model=inner, random_state=1).observe(
        latent, chain.covariance
    )
    missing = np.isnan(X)
    assert missing.any(axis=0).sum() == 3  # int(0.5 * 6) drivers stay complete
    # The entries of the 3 incomplete columns are independent given the drivers,
    # each with mean probability q = 0.4: the overall count is within binomial
    # error (a conservative sd: given the drivers the variance is smaller).
    assert abs(binomial_z(missing.sum(), missing.size, rate)) < Z_COUNT


def test_mar_rate_check_rejects_a_gaussian_link_on_non_gaussian_drivers(chain, latent):
    # Wrong variant: drive the missingness by Phi(x / s) of the observed driver, as
    # if it were Gaussian, on log-normal data: E Phi(exp(U)) = 0.82, not 1/2, so
    # the rate is 0.2 * (1 + 0.65) = 0.33 instead of 0.2.
    X = Nonparanormal("exponential").observe(latent, chain.covariance)
    u = special.ndtr(X[:, 0] / SCALES[0])
    uniforms = np.random.default_rng(1).random((len(X), 3))
    missing = uniforms < 0.4 * (1 + (2 * u[:, None] - 1))
    rate = missing.sum() / (len(X) * 6)
    assert abs(binomial_z(missing.sum(), len(X) * 6, 0.2)) > 10 * Z_COUNT
    assert rate > 0.3


def test_mar_depends_only_on_observed_values(chain, latent):
    # Linear-probability regression of each incomplete column's missingness on the
    # drivers' mid-distribution values u_d (all drivers: the true one has
    # coefficient 2 q strength, the others 0) and on the entry's own latent value,
    # which is unobserved when missing. MAR: the own-value coefficient is 0 up to
    # sampling error (|t| < 4.5, heteroscedasticity-robust standard errors).
    strength, rate = 0.8, 0.15
    X = MissingAtRandom(rate, strength=strength, random_state=3).observe(
        latent, chain.covariance
    )
    missing = np.isnan(X)
    drivers = np.flatnonzero(~missing.any(axis=0))
    incomplete = np.flatnonzero(missing.any(axis=0))
    u = special.ndtr(latent[:, drivers] / SCALES[drivers])
    q = rate * 6 / len(incomplete)

    def own_value_t(mask, j):
        design = np.column_stack([np.ones(len(u)), u, latent[:, j] / SCALES[j]])
        coef, *_ = np.linalg.lstsq(design, mask, rcond=None)
        residual = mask - design @ coef
        bread = np.linalg.inv(design.T @ design)
        meat = (design * residual[:, None] ** 2).T @ design
        se = np.sqrt(np.diag(bread @ meat @ bread))
        return coef, coef[-1] / se[-1], se

    for j in incomplete:
        coef, t_own, se = own_value_t(missing[:, j].astype(float), j)
        assert abs(t_own) < Z_COUNT
        # The driver's slope is 2 q strength; the other drivers' are 0.
        slopes = coef[1:-1]
        true = np.isin(slopes, slopes.max())
        assert abs(slopes[true][0] - 2 * q * strength) < Z_COUNT * se[1:-1][true][0]
        assert np.all(np.abs(slopes[~true]) < Z_COUNT * se[1:-1][~true])
    # Wrong variant (MNAR): probability driven by the entry's own value.
    j = incomplete[0]
    own = special.ndtr(latent[:, j] / SCALES[j])
    mnar = np.random.default_rng(3).random(len(u)) < q * (1 + strength * (2 * own - 1))
    assert abs(own_value_t(mnar.astype(float), j)[1]) > 5 * Z_COUNT
