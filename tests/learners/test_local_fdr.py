import numpy as np
import pytest
from conftest import correlation_mixture, null_correlations
from scipy import stats

from skggm_bench.learners import (
    LocalFDRSelector,
    PLSNetwork,
    RidgeNetwork,
    ShrinkagePartialCorrelation,
    local_fdr,
    local_fdr_edges,
    null_correlation_pvalue,
)

# ---------------------------------------------------------------------------
# Reference values from R 4.2.2 (Debian bookworm), fdrtool 1.2.17.
#
# Case A: deterministic statistics, 900 null quantiles (kappa = 30) and 100
# alternatives evenly spread over +-[0.355, 0.845]:
#
#   library(fdrtool)
#   u <- ((1:900) - 0.5) / 900
#   alt <- 0.35 + 0.5 * ((1:50) - 0.5) / 50
#   x <- c(qcor0(u, kappa = 30), alt, -alt)
#   out <- fdrtool(x, statistic = "correlation", plot = FALSE, verbose = FALSE)
#   out$param                    # cutoff, N.cens, eta0, eta0.SE, kappa, kappa.SE
#   sprintf("%.10g", out$lfdr[IDX]); sprintf("%.10g", out$qval[IDX])
#   sum(out$lfdr < 0.2); sum(out$lfdr)
#
# Case B: a random mixture drawn by numpy (``_case_b`` below), written with
# np.savetxt(fmt="%.17g") and read in R with ``x <- scan("case_b.txt")``; same
# fdrtool call, and once more with cutoff.method = "pct0", pct0 = 0.75.
# Both cases once more with cutoff.method = "locfdr".
# (R indices are 1-based; the IDX lists below are 0-based.)
# ---------------------------------------------------------------------------
CASE_A = {
    "cutoff": 0.5272030588,
    "n_central": 934,
    "eta0": 0.9399781489,
    "kappa": 24.34410395,
    "idx": [0, 199, 449, 849, 899, 900, 909, 924, 949, 950, 974, 999],
    "lfdr": [
        0.2050197795,
        1,
        1,
        1,
        0.2050197795,
        1,
        1,
        0.1866160744,
        3.972000644e-05,
        1,
        0.1866160744,
        3.972000644e-05,
    ],
    "qval": [
        0.05396056437,
        0.8852264562,
        0.9399219699,
        0.7082444862,
        0.05396056437,
        0.5540255814,
        0.2789680854,
        0.02840376793,
        3.972000644e-05,
        0.5540255814,
        0.02840376793,
        3.972000644e-05,
    ],
    "n_selected": 52,
    "lfdr_sum": 941.7858348,
}
_IDX_B = [0, 1, 2, 499, 999, 1799, 1800, 1801, 1849, 1899, 1949, 1999]
CASE_B_FNDR = {
    "cutoff": 0.449001011,
    "n_central": 1875,
    "eta0": 0.9392579727,
    "kappa": 44.44314733,
    "idx": _IDX_B,
    "lfdr": [
        1,
        1,
        1,
        1,
        1,
        1,
        1,
        1,
        1.144766159e-05,
        0.03506550454,
        0.2002740217,
        0.06643654695,
    ],
    "qval": [
        0.8731336712,
        0.9283820927,
        0.9171041527,
        0.935735205,
        0.5142365187,
        0.8961710214,
        0.4429117255,
        0.06477376659,
        6.894044458e-07,
        0.008727280776,
        0.0192263942,
        0.01056055334,
    ],
    "n_selected": 118,
    "lfdr_sum": 1879.061052,
}
CASE_B_PCT0 = {
    "cutoff": 0.1842676685,
    "n_central": 1500,
    "eta0": 0.9491930953,
    "kappa": 47.01474473,
    "idx": _IDX_B,
    "lfdr": [1, 1, 1, 1, 1, 1, 1, 1, 4.701356642e-06, 1, 1, 1],
    "qval": [
        0.8897030414,
        0.9396643808,
        0.9296613169,
        0.9461204772,
        0.5313806359,
        0.910812595,
        0.4562560981,
        0.06025549671,
        2.51876679e-07,
        0.006101590138,
        0.01638379763,
        0.007891939309,
    ],
    "n_selected": 102,
    "lfdr_sum": 1898.654881,
}
CASE_A_LOCFDR = {
    "cutoff": 0.3959044647,
    "n_central": 886,
    "eta0": 0.9175485348,
    "kappa": 27.74062259,
    "idx": CASE_A["idx"],
    "lfdr": [
        0.110473853,
        1,
        1,
        1,
        0.110473853,
        1,
        0.5981499508,
        0.09444765381,
        5.149319944e-06,
        1,
        0.09444765381,
        5.149319944e-06,
    ],
    "qval": [
        0.02638346907,
        0.837164874,
        0.9174677963,
        0.5865725167,
        0.02638346907,
        0.4005579967,
        0.1572896836,
        0.01243314823,
        4.406623978e-06,
        0.4005579967,
        0.01243314823,
        4.406623978e-06,
    ],
    "n_selected": 60,
    "lfdr_sum": 919.3826845,
}
CASE_B_LOCFDR = {
    "cutoff": 0.2755872681,
    "n_central": 1741,
    "eta0": 0.911302214,
    "kappa": 52.47903094,
    "idx": _IDX_B,
    "lfdr": [
        1,
        1,
        1,
        1,
        1,
        1,
        0.7485121318,
        0.2764750035,
        6.641983852e-07,
        0.01139370168,
        0.07608363301,
        0.02398874739,
    ],
    "qval": [
        0.8063948254,
        0.8943663799,
        0.8765743192,
        0.905847229,
        0.3262662211,
        0.8432226201,
        0.2614873084,
        0.02602336033,
        2.796466663e-08,
        0.002514520215,
        0.006529636837,
        0.003176830327,
    ],
    "n_selected": 134,
    "lfdr_sum": 1823.60247,
}


def _case_a() -> np.ndarray:
    u = (np.arange(1, 901) - 0.5) / 900
    t = stats.t.ppf(u, df=29)  # qcor0(u, kappa) = t2r(qt(u, kappa - 1))
    alt = 0.35 + 0.5 * (np.arange(1, 51) - 0.5) / 50
    return np.concatenate([t / np.sqrt(t**2 + 29), alt, -alt])


def _case_b() -> np.ndarray:
    rng = np.random.default_rng(20090384)
    t = rng.standard_t(df=59, size=1800)
    alt = rng.uniform(0.25, 0.8, size=200) * rng.choice([-1.0, 1.0], size=200)
    return np.concatenate([t / np.sqrt(t**2 + 59), alt])


@pytest.mark.parametrize(
    ("make", "method", "ref"),
    [
        (_case_a, "fndr", CASE_A),
        (_case_b, "fndr", CASE_B_FNDR),
        (_case_b, "pct0", CASE_B_PCT0),
        (_case_a, "locfdr", CASE_A_LOCFDR),
        (_case_b, "locfdr", CASE_B_LOCFDR),
    ],
    ids=["A-fndr", "B-fndr", "B-pct0", "A-locfdr", "B-locfdr"],
)
def test_agrees_with_fdrtool(make, method, ref):
    x = make()
    res = local_fdr(x, cutoff_method=method)
    # R's optimize() stops at a tolerance of ~1e-4 in kappa, and the references
    # are printed with 10 significant digits; observed agreement is ~1e-7.
    assert res.cutoff == pytest.approx(ref["cutoff"], abs=1e-9)
    assert np.sum(np.abs(x) <= res.cutoff) == ref["n_central"]
    assert res.kappa == pytest.approx(ref["kappa"], rel=1e-5)
    assert res.eta0 == pytest.approx(ref["eta0"], abs=1e-6)
    np.testing.assert_allclose(res.lfdr[ref["idx"]], ref["lfdr"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res.qval[ref["idx"]], ref["qval"], rtol=1e-5, atol=1e-7)
    assert np.sum(res.lfdr < 0.2) == ref["n_selected"]
    assert res.lfdr.sum() == pytest.approx(ref["lfdr_sum"], abs=1e-3)


def test_null_pvalue_matches_the_t_distribution():
    r, kappa = np.array([-0.9, -0.2, 0.0, 0.05, 0.3, 0.99]), 17.0
    t = np.abs(r) * np.sqrt((kappa - 1) / (1 - r**2))
    np.testing.assert_allclose(
        null_correlation_pvalue(r, kappa), 2 * stats.t.sf(t, df=kappa - 1), rtol=1e-10
    )


@pytest.mark.parametrize("method", ["locfdr", "fndr"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pure_null_estimates_eta0_near_one_and_selects_almost_nothing(seed, method):
    # 4950 = p (p - 1) / 2 statistics for p = 100, all null with kappa = 100.
    # Observed over seeds 0-7, both methods: eta0 >= 0.986, kappa in
    # [95.3, 108.6] (the truncated fit uses only the central part, so its
    # sampling spread is a few %), nothing selected. The bounds leave room for
    # that noise but fail for a null of the wrong width or a broken eta0.
    x = null_correlations(np.random.default_rng(seed), 100.0, 4950)
    res = local_fdr(x, cutoff_method=method)
    assert res.eta0 > 0.97
    assert res.kappa == pytest.approx(100.0, rel=0.15)
    assert np.sum(res.lfdr < 0.2) <= 5  # 0.1 % of the pairs


# Bounds per cutoff method: eta0, kappa, mean |lfdr error|, agreement of the
# decisions. Observed over seeds 0-7 (true eta0 0.9, kappa 50):
# - locfdr: eta0 0.896-0.912, kappa 46.8-52.9, error 0.006-0.012, >= 99.6 %.
# - fndr: its central region takes in some alternatives, so eta0 is biased up
#   (0.927-0.941) and kappa down (37-41); error 0.027-0.038, >= 97.5 %.
# An lfdr ignoring the alternative shape (constant eta0) has a mean error of
# 0.15; the null width is checked through kappa (the lfdr curve itself is
# rather insensitive to it).
MIXTURE_BOUNDS = {
    "locfdr": ((0.88, 0.93), (44.0, 56.0), 0.02, 0.99),
    "fndr": ((0.88, 0.97), (35.0, 60.0), 0.05, 0.96),
}


@pytest.mark.parametrize("method", ["locfdr", "fndr"])
@pytest.mark.parametrize("seed", [0, 1])
def test_lfdr_curve_is_close_to_the_truth_on_a_knowncorrelation_mixture(seed, method):
    x, true_lfdr = correlation_mixture(seed)
    res = local_fdr(x, cutoff_method=method)
    (eta0_low, eta0_high), (kappa_low, kappa_high), error, agreement = MIXTURE_BOUNDS[
        method
    ]
    assert eta0_low < res.eta0 < eta0_high
    assert kappa_low < res.kappa < kappa_high
    assert np.mean(np.abs(res.lfdr - true_lfdr)) < error
    assert np.mean((res.lfdr < 0.2) == (true_lfdr < 0.2)) > agreement
    # Monotone in |r|: a larger |r| never has a larger lfdr (Grenander).
    order = np.argsort(np.abs(x))
    assert np.all(np.diff(res.lfdr[order]) <= 1e-12)


def test_qvalues_never_exceed_lfdr():
    x, _ = correlation_mixture(3)
    res = local_fdr(x)
    assert np.all((res.qval >= 0) & (res.qval <= 1))
    # The tail-area rate is never above the local rate at the same point for a
    # decreasing p-value density (the local rate is the largest in the tail).
    assert np.all(res.qval <= res.lfdr + 1e-12)


def test_too_few_or_degenerate_statistics_select_nothing_with_a_warning():
    with pytest.warns(UserWarning, match="only 5 statistics"):
        res = local_fdr(np.array([0.1, -0.2, 0.9, 0.95, 0.0]))
    np.testing.assert_array_equal(res.lfdr, 1.0)
    assert res.eta0 == 1.0
    with pytest.warns(UserWarning, match="zero interquartile range"):
        res = local_fdr(np.r_[np.zeros(50), 0.9])
    np.testing.assert_array_equal(res.lfdr, 1.0)
    assert local_fdr(np.array([])).lfdr.size == 0


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (np.array([0.1, 1.2]), r"\[-1, 1\]"),
        (np.array([0.1, np.nan]), "NaN"),
        (np.zeros((3, 3)), "one-dimensional"),
    ],
)
def test_bad_statistics_are_rejected(bad, message):
    with pytest.raises(ValueError, match=message):
        local_fdr(bad)


def test_bad_options_are_rejected():
    x = null_correlations(np.random.default_rng(0), 30.0, 100)
    with pytest.raises(ValueError, match="cutoff_method"):
        local_fdr(x, cutoff_method="median")
    with pytest.raises(ValueError, match="pct0"):
        local_fdr(x, cutoff_method="pct0", pct0=0.0)


def test_local_fdr_edges_returns_symmetric_decisions():
    rng = np.random.default_rng(4)
    upper = np.triu(null_correlations(rng, 200.0, 60 * 60).reshape(60, 60), k=1)
    upper[0, 5] = upper[2, 9] = 0.6
    adjacency, lfdr, result = local_fdr_edges(upper + upper.T)
    assert {tuple(e) for e in np.argwhere(np.triu(adjacency))} == {(0, 5), (2, 9)}
    np.testing.assert_array_equal(adjacency, adjacency.T)
    np.testing.assert_array_equal(np.diag(lfdr), 1.0)
    assert result.lfdr.size == 60 * 59 // 2


@pytest.mark.parametrize(
    "learner",
    [ShrinkagePartialCorrelation, RidgeNetwork, PLSNetwork, LocalFDRSelector],
)
def test_learners_decide_edges_with_their_cutoff_method(learner):
    rng = np.random.default_rng(5)
    precision = np.eye(15) - 0.35 * (np.eye(15, k=1) + np.eye(15, k=-1))
    X = rng.multivariate_normal(np.zeros(15), np.linalg.inv(precision), size=300)
    for method in ("locfdr", "fndr", "pct0"):
        est = learner(lfdr_cutoff_method=method).fit(X)
        expected, _, result = local_fdr_edges(
            est.partial_correlation_, cutoff_method=method
        )
        np.testing.assert_array_equal(est.adjacency_, expected)
        assert est.null_kappa_ == result.kappa
    assert learner().get_params()["lfdr_cutoff_method"] == "locfdr"
    with pytest.raises(ValueError, match="lfdr_cutoff_method"):
        learner(lfdr_cutoff_method="median").fit(X)
