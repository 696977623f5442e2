import warnings

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skggm_bench.learners import ShrinkagePartialCorrelation, shrinkage_intensity

# Reference values from R 4.2 (Debian bookworm), corpcor 1.6.10:
#
#   library(corpcor)
#   make <- function(n, p) outer(1:n, 1:p, function(i, j)
#       sin(1.3 * i + 0.7 * j^2) + 0.5 * cos(2.1 * i * j))
#   X <- make(15, 8)              # and make(6, 10)
#   pc <- pcor.shrink(X, verbose = FALSE)
#   sprintf("%.17g", attr(pc, "lambda"))
#   sprintf("%.17g", pc[upper.tri(pc)])   # column-major upper triangle
#
# The data are a closed formula, so both sides compute them independently.
R_LAMBDA_15x8 = 0.12439093645806323
R_PCOR_15x8 = [
    0.11738640727597593,
    0.24812404299475907,
    -0.28509347542993529,
    0.037832852251484007,
    -0.022819328144283283,
    0.097100904858028581,
    -0.08910762342416037,
    0.079164754994580228,
    0.036312615473956242,
    0.83412619957908485,
    0.25788958256900141,
    -0.27733477191133343,
    0.29096845392316512,
    0.069153341675347216,
    0.0096382847862599361,
    0.18426482889397064,
    0.4933723983899419,
    -0.24222710250284366,
    0.13203046172086166,
    -0.087967398996553703,
    -0.23613152453260952,
    0.59551698626697414,
    0.24820223832993674,
    0.17486472989602031,
    -0.1767084829246087,
    0.024718413890081729,
    0.18999482900443912,
    0.015269875247276223,
]
R_LAMBDA_6x10 = 0.29676175417605055
R_PCOR_6x10 = [
    0.042576397587145688,
    0.11417389205484514,
    -0.20287800267454609,
    0.010513761286306291,
    0.0088757425834434921,
    0.06864698148091794,
    0.0093478441337977777,
    0.018833829425473514,
    0.065126947576931701,
    0.67516577608413542,
    0.11880260512512819,
    -0.19836564118432617,
    0.17987695684376734,
    0.047058386993551617,
    0.043762035425842852,
    0.030741860063288405,
    0.35760957000878968,
    -0.19836406440733592,
    0.044853185980114264,
    0.037902036681092627,
    -0.19522350994014401,
    0.31573622883707109,
    0.087212816877209665,
    0.095072726413910555,
    -0.050374391834669761,
    -0.03301175082302072,
    0.10233076753215911,
    0.052917757889507089,
    0.12613210415808235,
    -0.19031222277477292,
    0.17483468055389481,
    0.011150358104774671,
    0.0082346216292551021,
    0.17429707199606984,
    -0.18945289482115305,
    0.11406554589547842,
    0.31143305372325847,
    0.070301668846656243,
    0.093209806080952126,
    -0.063308831840282229,
    -0.082844688043173353,
    0.10095102162653083,
    0.07252009700055187,
    0.32259786396609091,
    0.11348934327478109,
]


def _formula_data(n: int, p: int) -> np.ndarray:
    i = np.arange(1, n + 1)[:, None]
    j = np.arange(1, p + 1)[None, :]
    return np.sin(1.3 * i + 0.7 * j**2) + 0.5 * np.cos(2.1 * i * j)


def _column_major_upper(matrix: np.ndarray) -> np.ndarray:
    """R's ``m[upper.tri(m)]`` order: column by column."""
    rows, cols = np.triu_indices(matrix.shape[0], k=1)
    order = np.lexsort((rows, cols))
    return matrix[rows[order], cols[order]]


@pytest.mark.parametrize(
    ("n", "p", "r_lambda", "r_pcor"),
    [(15, 8, R_LAMBDA_15x8, R_PCOR_15x8), (6, 10, R_LAMBDA_6x10, R_PCOR_6x10)],
    ids=["n>p", "n<p"],
)
def test_matches_corpcor_pcor_shrink(n, p, r_lambda, r_pcor):
    X = _formula_data(n, p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few pairs for the local fdr at p=8
        est = ShrinkagePartialCorrelation().fit(X)
    # Same shrinkage intensity and same matrix to 1e-8 (the required tolerance;
    # the observed agreement is ~1e-15, rounding of two equal formulas).
    assert est.shrinkage_ == pytest.approx(r_lambda, abs=1e-12)
    assert shrinkage_intensity(X) == pytest.approx(r_lambda, abs=1e-12)
    np.testing.assert_allclose(
        _column_major_upper(est.partial_correlation_), r_pcor, atol=1e-8
    )


def test_fixed_shrinkage_and_its_extremes():
    X = _formula_data(15, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = ShrinkagePartialCorrelation(shrinkage=1.0).fit(X)
        none = ShrinkagePartialCorrelation(shrinkage=0.0).fit(X)
    # lambda = 1: the identity correlation, no partial correlation at all.
    np.testing.assert_array_equal(full.partial_correlation_, 0.0)
    # lambda = 0: the plain partial correlations from the inverse sample correlation.
    K = np.linalg.inv(np.corrcoef(X, rowvar=False))
    d = np.sqrt(np.diag(K))
    expected = -K / np.outer(d, d)
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_allclose(none.partial_correlation_, expected, atol=1e-10)


def test_covariance_and_precision_are_consistent_and_scaled():
    X = _formula_data(15, 8) * np.arange(1, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = ShrinkagePartialCorrelation().fit(X)
    np.testing.assert_allclose(est.covariance_ @ est.precision_, np.eye(8), atol=1e-10)
    np.testing.assert_allclose(np.diag(est.covariance_), X.var(axis=0, ddof=1))
    np.testing.assert_array_equal(np.diag(est.correlation_), 1.0)


def test_scale_invariance_and_pipeline():
    # Partial correlations do not depend on the units of the variables, so
    # standardising first (in a Pipeline) must not change anything.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 25))
    X[:, 1] += X[:, 0]
    plain = ShrinkagePartialCorrelation().fit(X)
    piped = make_pipeline(StandardScaler(), ShrinkagePartialCorrelation()).fit(
        X * 7.0 + 3.0
    )
    np.testing.assert_allclose(
        piped[-1].partial_correlation_, plain.partial_correlation_, atol=1e-12
    )
    np.testing.assert_array_equal(piped[-1].adjacency_, plain.adjacency_)


def test_constant_column_is_disconnected():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 12))
    X[:, 3] = 5.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # independent data: all pcor 0, no fdr fit
        est = ShrinkagePartialCorrelation().fit(X)
    np.testing.assert_array_equal(est.partial_correlation_[3], 0.0)
    assert np.all(np.isfinite(est.precision_))


def test_shrinkage_intensity_edge_cases():
    assert shrinkage_intensity(np.ones((5, 1))) == 1.0
    with pytest.raises(ValueError, match="at least 3 samples"):
        shrinkage_intensity(np.arange(4.0).reshape(2, 2))
    # Independent data with n << p: almost pure noise, heavy shrinkage;
    # strongly correlated data with n >> p: almost none.
    rng = np.random.default_rng(2)
    assert shrinkage_intensity(rng.standard_normal((20, 100))) > 0.5
    z = rng.standard_normal((2000, 1))
    assert shrinkage_intensity(z + 0.5 * rng.standard_normal((2000, 10))) < 0.01


def test_invalid_shrinkage_is_rejected():
    with pytest.raises(ValueError, match="shrinkage"):
        ShrinkagePartialCorrelation(shrinkage=1.5).fit(
            np.random.default_rng(0).random((10, 3))
        )
