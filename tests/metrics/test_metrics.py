"""Tests for skggm_bench.metrics.

Layout: hand-computed values on small graphs/matrices first, then agreement with
sklearn.metrics on random inputs, symmetric handling, empty-case conventions, bad
input, the estimator protocol, and the scorer inside real GridSearchCV /
cross_validate runs.
"""

import math
import pickle
import re
import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse
import sklearn.metrics as skm
from sklearn.base import BaseEstimator, clone
from sklearn.covariance import EmpiricalCovariance, GraphicalLasso
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, KFold, cross_validate

from skggm_bench import metrics as M

# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def graph(p, edges):
    """Symmetric boolean adjacency with the given undirected edges."""
    adjacency = np.zeros((p, p), dtype=bool)
    for i, j in edges:
        adjacency[i, j] = adjacency[j, i] = True
    return adjacency


def symmetric_scores(p, pair_scores):
    """Symmetric score matrix from a {(i, j): score} dict (zero elsewhere)."""
    scores = np.zeros((p, p))
    for (i, j), value in pair_scores.items():
        scores[i, j] = scores[j, i] = value
    return scores


def pairs_by_loop(matrix):
    """Upper-triangle values extracted with an explicit loop (independent of the
    vectorised code under test)."""
    p = matrix.shape[0]
    return np.array([matrix[i, j] for i in range(p) for j in range(i + 1, p)])


def random_graph(p, density, rng):
    upper = np.triu(rng.random((p, p)) < density, k=1)
    return upper | upper.T


def random_symmetric_scores(p, rng):
    upper = np.triu(rng.random((p, p)), k=1)
    return upper + upper.T


def random_spd(p, rng):
    a = rng.standard_normal((p, p))
    return a @ a.T / p + 0.5 * np.eye(p)


def chain_precision(p, partial_correlation):
    """Tridiagonal precision with unit diagonal: the partial correlation of each
    chain neighbour pair is exactly `partial_correlation` (rho = -Omega_ij)."""
    off = -partial_correlation * np.ones(p - 1)
    return np.eye(p) + np.diag(off, 1) + np.diag(off, -1)


def sample_from_precision(precision, n_samples, seed):
    """X = Z L^-T with precision = L L^T, so Cov(X) = L^-T L^-1 = precision^-1."""
    lower = np.linalg.cholesky(precision)
    z = np.random.default_rng(seed).standard_normal((n_samples, precision.shape[0]))
    return scipy.linalg.solve_triangular(lower, z.T, lower=True, trans="T").T


class Fitted:
    """Stand-in for a fitted estimator exposing chosen attributes."""

    def __init__(self, **attributes):
        self.__dict__.update(attributes)


# The two 4-node examples below are worked out by hand.
# Pairs: 01 02 03 12 13 23; truth = chain 0-1-2-3 = {01, 12, 23}.
CHAIN4 = graph(4, [(0, 1), (1, 2), (2, 3)])
# Example A: estimate {01, 12, 02}: TP = {01, 12}, FP = {02}, FN = {23}, TN = {03, 13}
#   TPR = 2/3, PPV = 2/3, FPR = 1/3, F1 = 4/6, MCC = (2*2 - 1*1)/sqrt(3*3*3*3) = 1/3
# Example B: estimate {01, 02, 03, 13}: TP = {01}, FP = {02, 03, 13}, FN = {12, 23},
#   TN = {} -> TPR = 1/3, PPV = 1/4, FPR = 3/3, F1 = 2/(2+3+2) = 2/7,
#   MCC = (1*0 - 3*2)/sqrt(4*3*3*2) = -6/sqrt(72) = -1/sqrt(2), SHD = 5
HAND_CASES = [
    pytest.param(
        graph(4, [(0, 1), (1, 2), (0, 2)]),
        dict(
            confusion=(2, 1, 2, 1),
            tpr=2 / 3,
            ppv=2 / 3,
            fpr=1 / 3,
            f1=2 / 3,
            mcc=1 / 3,
            shd=2,
        ),
        id="A",
    ),
    pytest.param(
        graph(4, [(0, 1), (0, 2), (0, 3), (1, 3)]),
        dict(
            confusion=(1, 3, 0, 2),
            tpr=1 / 3,
            ppv=1 / 4,
            fpr=1.0,
            f1=2 / 7,
            mcc=-1 / math.sqrt(2),
            shd=5,
        ),
        id="B",
    ),
]


# --------------------------------------------------------------------------------------
# edge metrics: hand-computed values
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("estimate", "expected"), HAND_CASES)
def test_edge_metrics_hand_computed(estimate, expected):
    confusion = M.edge_confusion(CHAIN4, estimate)
    assert tuple(confusion) == expected["confusion"]
    assert confusion.n_pairs == 6
    assert M.true_positive_rate(CHAIN4, estimate) == pytest.approx(expected["tpr"])
    assert M.positive_predictive_value(CHAIN4, estimate) == pytest.approx(
        expected["ppv"]
    )
    assert M.false_positive_rate(CHAIN4, estimate) == pytest.approx(expected["fpr"])
    assert M.f1_score(CHAIN4, estimate) == pytest.approx(expected["f1"])
    assert M.matthews_corrcoef(CHAIN4, estimate) == pytest.approx(expected["mcc"])
    assert M.structural_hamming_distance(CHAIN4, estimate) == expected["shd"]


def test_edge_confusion_fields_and_properties():
    confusion = M.edge_confusion(CHAIN4, graph(4, [(0, 1), (1, 2), (0, 2)]))
    assert (confusion.tp, confusion.fp, confusion.tn, confusion.fn) == (2, 1, 2, 1)
    assert confusion.n_true_edges == 3
    assert confusion.n_selected == 3
    assert all(isinstance(value, int) for value in confusion)


def test_perfect_and_complementary_recovery():
    complement = ~CHAIN4 & ~np.eye(4, dtype=bool)
    assert M.f1_score(CHAIN4, CHAIN4) == 1.0
    assert M.matthews_corrcoef(CHAIN4, CHAIN4) == pytest.approx(1.0)
    assert M.structural_hamming_distance(CHAIN4, CHAIN4) == 0
    # The complement disagrees on every pair: SHD = all 6 pairs, MCC = -1.
    assert M.structural_hamming_distance(CHAIN4, complement) == 6
    assert M.matthews_corrcoef(CHAIN4, complement) == pytest.approx(-1.0)
    assert M.f1_score(CHAIN4, complement) == 0.0


def test_metrics_are_not_symmetric_in_their_arguments():
    # Swapping truth and estimate swaps TPR and PPV (FN <-> FP): a check that the
    # argument order is (true, estimated) like sklearn's (y_true, y_pred).
    estimate = graph(4, [(0, 1), (0, 2), (0, 3), (1, 3)])
    assert M.true_positive_rate(estimate, CHAIN4) == pytest.approx(1 / 4)
    assert M.positive_predictive_value(estimate, CHAIN4) == pytest.approx(1 / 3)


# --------------------------------------------------------------------------------------
# edge metrics: input formats, symmetric handling, bad input
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "convert",
    [
        lambda a: a,
        lambda a: a.astype(int),
        lambda a: a.astype(float),
        lambda a: a.astype(np.uint8),
        lambda a: a.astype(int).tolist(),
        scipy.sparse.csr_matrix,
    ],
    ids=["bool", "int", "float", "uint8", "list", "sparse"],
)
def test_accepted_adjacency_formats(convert):
    estimate = graph(4, [(0, 1), (1, 2), (0, 2)])
    assert tuple(M.edge_confusion(convert(CHAIN4), convert(estimate))) == (2, 1, 2, 1)


def test_each_edge_counted_once():
    # One edge {0, 2} stored in both triangles must count as one pair, not two.
    p = 5
    truth = graph(p, [(0, 2)])
    confusion = M.edge_confusion(truth, truth)
    assert tuple(confusion) == (1, 0, p * (p - 1) // 2 - 1, 0)
    assert confusion.n_pairs == 10
    missed = M.edge_confusion(truth, np.zeros((p, p)))
    assert (missed.fn, missed.tp) == (1, 0)
    assert M.structural_hamming_distance(truth, np.zeros((p, p))) == 1


def test_diagonal_is_ignored():
    estimate = graph(4, [(0, 1), (1, 2), (0, 2)]).astype(float)
    reference = M.edge_confusion(CHAIN4, estimate)
    truth_with_loops = CHAIN4.copy()
    np.fill_diagonal(truth_with_loops, True)
    np.fill_diagonal(estimate, 7.5)  # diagonal values are not even checked for 0/1
    assert M.edge_confusion(truth_with_loops, estimate) == reference


@pytest.mark.parametrize("argument", ["true_adjacency", "estimated_adjacency"])
def test_asymmetric_adjacency_rejected(argument):
    directed = CHAIN4.copy()
    directed[3, 2] = False  # edge 2->3 stored only in the upper triangle
    args = {"true_adjacency": CHAIN4, "estimated_adjacency": CHAIN4, argument: directed}
    with pytest.raises(ValueError, match=rf"{argument} is not symmetric.*\(2, 3\)"):
        M.edge_confusion(**args)
    with pytest.raises(ValueError, match="symmetric"):
        M.f1_score(args["true_adjacency"], args["estimated_adjacency"])


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (np.zeros((3, 4)), ValueError, r"must be square, got shape \(3, 4\)"),
        (np.zeros((2, 2, 2)), ValueError, "must be 2-D"),
        (np.zeros(4), ValueError, "must be 2-D"),
        (np.array([[0.0, np.nan], [np.nan, 0.0]]), ValueError, "NaN"),
        (np.array([[0, 0.5], [0.5, 0]]), ValueError, "0/1"),
        (np.array([[0, 2], [2, 0]]), ValueError, "0/1"),
        (np.array([[0, -1], [-1, 0]]), ValueError, "0/1"),
        (np.array([["a", "b"], ["b", "a"]]), TypeError, "dtype"),
        (np.array([[0, 1j], [1j, 0]]), ValueError, "must be real"),
    ],
)
def test_bad_adjacency_rejected(bad, error, message):
    with pytest.raises(error, match=message):
        M.edge_confusion(bad, bad)


def test_shape_mismatch_rejected():
    with pytest.raises(ValueError, match=r"same shape.*\(4, 4\).*\(3, 3\)"):
        M.edge_confusion(CHAIN4, np.zeros((3, 3)))


# --------------------------------------------------------------------------------------
# edge metrics: empty-case conventions
# --------------------------------------------------------------------------------------

EMPTY4 = np.zeros((4, 4), dtype=bool)
COMPLETE4 = ~np.eye(4, dtype=bool)


def test_kramer_conventions_are_the_default():
    # No true edge: TPR = 1 (nothing missed); nothing selected: PPV = 1.
    assert M.true_positive_rate(EMPTY4, CHAIN4) == 1.0
    assert M.positive_predictive_value(CHAIN4, EMPTY4) == 1.0
    # The defined sides of the same situations are ordinary values.
    assert M.positive_predictive_value(EMPTY4, CHAIN4) == 0.0
    assert M.true_positive_rate(CHAIN4, EMPTY4) == 0.0


def test_other_empty_case_conventions():
    # Complete truth: no non-edge to select wrongly -> FPR 0 (best value).
    assert M.false_positive_rate(COMPLETE4, CHAIN4) == 0.0
    # Both empty: perfect recovery -> F1 = 1; MCC undefined -> 0 like sklearn.
    assert M.f1_score(EMPTY4, EMPTY4) == 1.0
    assert M.matthews_corrcoef(EMPTY4, EMPTY4) == 0.0
    assert M.matthews_corrcoef(CHAIN4, EMPTY4) == 0.0
    assert M.matthews_corrcoef(COMPLETE4, CHAIN4) == 0.0
    # Only one graph empty: F1 is a genuine 0, whatever zero_division says.
    assert M.f1_score(EMPTY4, CHAIN4, zero_division=1.0) == 0.0
    assert M.f1_score(CHAIN4, EMPTY4, zero_division=1.0) == 0.0
    assert M.structural_hamming_distance(EMPTY4, EMPTY4) == 0


def test_single_node_graph_has_no_pairs():
    one = np.zeros((1, 1))
    assert tuple(M.edge_confusion(one, one)) == (0, 0, 0, 0)
    assert M.true_positive_rate(one, one) == 1.0
    assert M.false_positive_rate(one, one) == 0.0


@pytest.mark.parametrize(
    ("metric", "truth", "estimate"),
    [
        (M.true_positive_rate, EMPTY4, CHAIN4),
        (M.positive_predictive_value, CHAIN4, EMPTY4),
        (M.false_positive_rate, COMPLETE4, CHAIN4),
        (M.f1_score, EMPTY4, EMPTY4),
        (M.matthews_corrcoef, EMPTY4, EMPTY4),
    ],
)
def test_zero_division_changes_only_the_undefined_case(metric, truth, estimate):
    assert metric(truth, estimate, zero_division=0.25) == 0.25
    assert math.isnan(metric(truth, estimate, zero_division=np.nan))
    # A defined case ignores zero_division.
    defined = graph(4, [(0, 1), (1, 2), (0, 2)])
    assert metric(CHAIN4, defined, zero_division=0.25) == metric(CHAIN4, defined)


@pytest.mark.parametrize(
    ("value", "error"),
    [(2.0, ValueError), (-0.1, ValueError), ("warn", TypeError), (True, TypeError)],
)
def test_bad_zero_division_rejected(value, error):
    with pytest.raises(error, match="zero_division"):
        M.true_positive_rate(CHAIN4, CHAIN4, zero_division=value)


def test_mcc_zero_division_allows_negative_values():
    assert M.matthews_corrcoef(EMPTY4, EMPTY4, zero_division=-1) == -1.0
    with pytest.raises(ValueError, match="zero_division"):
        M.matthews_corrcoef(EMPTY4, EMPTY4, zero_division=-1.5)


# --------------------------------------------------------------------------------------
# edge metrics: agreement with sklearn on random graphs
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_edge_metrics_agree_with_sklearn(seed):
    rng = np.random.default_rng(seed)
    p = int(rng.integers(5, 30))
    truth = random_graph(p, rng.uniform(0.1, 0.5), rng)
    estimate = random_graph(p, rng.uniform(0.1, 0.5), rng)
    y_true, y_pred = pairs_by_loop(truth), pairs_by_loop(estimate)
    assert y_true.any() and y_pred.any(), "seed gives a degenerate example"

    tn, fp, fn, tp = skm.confusion_matrix(y_true, y_pred, labels=[0, 1]).ravel()
    assert tuple(M.edge_confusion(truth, estimate)) == (tp, fp, tn, fn)
    assert M.true_positive_rate(truth, estimate) == pytest.approx(
        skm.recall_score(y_true, y_pred)
    )
    assert M.positive_predictive_value(truth, estimate) == pytest.approx(
        skm.precision_score(y_true, y_pred)
    )
    assert M.f1_score(truth, estimate) == pytest.approx(skm.f1_score(y_true, y_pred))
    assert M.matthews_corrcoef(truth, estimate) == pytest.approx(
        skm.matthews_corrcoef(y_true, y_pred), abs=1e-12
    )
    assert M.structural_hamming_distance(truth, estimate) == np.sum(y_true != y_pred)


def test_mcc_agrees_with_sklearn_in_degenerate_cases():
    for truth, estimate in [(EMPTY4, EMPTY4), (CHAIN4, EMPTY4), (COMPLETE4, CHAIN4)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sklearn warns about a single label
            expected = skm.matthews_corrcoef(
                pairs_by_loop(truth), pairs_by_loop(estimate)
            )
        assert M.matthews_corrcoef(truth, estimate) == expected


def test_mcc_does_not_overflow_for_large_counts():
    # p = 3000 gives ~4.5e6 pairs; TP*TN*... would exceed int64 if multiplied as
    # integers before the square root (the value must stay a valid correlation).
    p = 3000
    rng = np.random.default_rng(0)
    truth = random_graph(p, 0.3, rng)
    estimate = truth.copy()
    estimate[:10, 10:20] = ~estimate[:10, 10:20]
    estimate[10:20, :10] = estimate[:10, 10:20].T
    mcc = M.matthews_corrcoef(truth, estimate)
    assert 0.99 < mcc < 1.0


# --------------------------------------------------------------------------------------
# score metrics
# --------------------------------------------------------------------------------------

# Chain truth {01, 12, 23}; scores by pair: edges 01: .9, 12: .4, 23: .2;
# non-edges 02: .5, 13: .3, 03: .1. Ranking: .9+ .5- .4+ .3- .2+ .1-
CHAIN4_SCORES = symmetric_scores(
    4, {(0, 1): 0.9, (1, 2): 0.4, (2, 3): 0.2, (0, 2): 0.5, (1, 3): 0.3, (0, 3): 0.1}
)


def test_roc_auc_hand_computed():
    # (edge, non-edge) pairs with the edge ranked higher: .9 beats 3, .4 beats 2,
    # .2 beats 1 -> 6 of 9.
    assert M.edge_roc_auc(CHAIN4, CHAIN4_SCORES) == pytest.approx(6 / 9)


def test_average_precision_hand_computed():
    # Precision at each recovered edge: 1/1, 2/3, 3/5, each recall step 1/3.
    expected = (1 + 2 / 3 + 3 / 5) / 3  # = 34/45
    assert M.edge_average_precision(CHAIN4, CHAIN4_SCORES) == pytest.approx(expected)


def test_roc_curve_hand_computed():
    fpr, tpr, thresholds = M.edge_roc_curve(
        CHAIN4, CHAIN4_SCORES, drop_intermediate=False
    )
    np.testing.assert_allclose(thresholds[1:], [0.9, 0.5, 0.4, 0.3, 0.2, 0.1])
    np.testing.assert_allclose(tpr, [0, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 1, 1])
    np.testing.assert_allclose(fpr, [0, 0, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 1])


def test_precision_recall_curve_hand_computed():
    precision, recall, thresholds = M.edge_precision_recall_curve(CHAIN4, CHAIN4_SCORES)
    np.testing.assert_allclose(thresholds, [0.1, 0.2, 0.3, 0.4, 0.5, 0.9])
    # Selecting pairs with score >= threshold: e.g. >= .3 selects .9 .5 .4 .3, two
    # of which are edges -> precision 2/4, recall 2/3.
    np.testing.assert_allclose(precision, [3 / 6, 3 / 5, 2 / 4, 2 / 3, 1 / 2, 1, 1])
    np.testing.assert_allclose(recall, [1, 1, 2 / 3, 2 / 3, 1 / 3, 1 / 3, 0])


def test_roc_auc_ties_count_half():
    assert M.edge_roc_auc(CHAIN4, np.ones((4, 4))) == 0.5


def mann_whitney_auc(labels, scores):
    """P(score of random positive > score of random negative), ties 1/2."""
    positives, negatives = scores[labels], scores[~labels]
    wins = (positives[:, None] > negatives[None, :]).sum()
    ties = (positives[:, None] == negatives[None, :]).sum()
    return (wins + 0.5 * ties) / (positives.size * negatives.size)


@pytest.mark.parametrize("seed", range(6))
def test_score_metrics_agree_with_sklearn(seed):
    rng = np.random.default_rng(seed)
    p = int(rng.integers(6, 25))
    truth = random_graph(p, rng.uniform(0.1, 0.4), rng)
    # Informative but noisy scores, rounded to create ties.
    scores = np.round(random_symmetric_scores(p, rng) + 0.3 * truth, 1)
    labels, pair_scores = pairs_by_loop(truth), pairs_by_loop(scores)
    assert 0 < labels.sum() < labels.size, "seed gives a degenerate example"

    auc = M.edge_roc_auc(truth, scores)
    assert auc == pytest.approx(skm.roc_auc_score(labels, pair_scores))
    assert auc == pytest.approx(mann_whitney_auc(labels, pair_scores))
    assert M.edge_average_precision(truth, scores) == pytest.approx(
        skm.average_precision_score(labels, pair_scores)
    )
    for ours, theirs in zip(
        M.edge_roc_curve(truth, scores),
        skm.roc_curve(labels, pair_scores),
        strict=True,
    ):
        np.testing.assert_allclose(ours, theirs)
    for ours, theirs in zip(
        M.edge_precision_recall_curve(truth, scores),
        skm.precision_recall_curve(labels, pair_scores),
        strict=True,
    ):
        np.testing.assert_allclose(ours, theirs)


def test_score_metrics_ignore_diagonal_and_lower_triangle_duplicates():
    scores = CHAIN4_SCORES.copy()
    np.fill_diagonal(scores, 100.0)  # would rank first if the diagonal were used
    assert M.edge_roc_auc(CHAIN4, scores) == pytest.approx(6 / 9)
    # 6 pairs, not 12 ordered entries: the ROC curve has 6 + 1 points.
    fpr, _, _ = M.edge_roc_curve(CHAIN4, scores, drop_intermediate=False)
    assert fpr.size == 7


def test_asymmetric_scores_rejected():
    scores = CHAIN4_SCORES.copy()
    scores[0, 3] = 0.95
    with pytest.raises(ValueError, match=r"edge_scores must be symmetric.*\(0, 3\)"):
        M.edge_roc_auc(CHAIN4, scores)


def test_round_off_asymmetry_in_scores_accepted():
    scores = CHAIN4_SCORES.copy()
    scores[0, 3] += 1e-15
    assert M.edge_roc_auc(CHAIN4, scores) == pytest.approx(6 / 9)


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        (np.full((4, 4), np.nan), "NaN"),
        (np.full((4, 4), np.inf), "infinite"),
        (np.zeros((3, 3)), "same shape"),
        (np.zeros((4, 5)), "square"),
    ],
)
def test_bad_scores_rejected(scores, message):
    with pytest.raises(ValueError, match=message):
        M.edge_roc_auc(CHAIN4, scores)


@pytest.mark.parametrize(
    "metric",
    [
        M.edge_roc_auc,
        M.edge_roc_curve,
        M.edge_average_precision,
        M.edge_precision_recall_curve,
    ],
)
def test_score_metrics_undefined_without_true_edges(metric):
    with pytest.raises(ValueError, match="true graph has no edges"):
        metric(EMPTY4, CHAIN4_SCORES)


def test_roc_undefined_for_complete_truth_but_ap_is_one():
    with pytest.raises(ValueError, match="true graph is complete"):
        M.edge_roc_auc(COMPLETE4, CHAIN4_SCORES)
    assert M.edge_average_precision(COMPLETE4, CHAIN4_SCORES) == 1.0


# --------------------------------------------------------------------------------------
# matrix losses
# --------------------------------------------------------------------------------------


def test_norm_losses_hand_computed():
    # Error [[1, 1], [1, 0]]: Frobenius sqrt(3); eigenvalues (1 +- sqrt 5)/2.
    estimate = np.array([[2.0, 1.0], [1.0, 1.0]])
    assert M.frobenius_loss(np.eye(2), estimate) == pytest.approx(math.sqrt(3))
    assert M.spectral_loss(np.eye(2), estimate) == pytest.approx((1 + 5**0.5) / 2)
    # A negative eigenvalue dominating: error diag(-3, 1) -> spectral norm 3.
    assert M.spectral_loss(np.diag([4.0, 1.0]), np.diag([1.0, 2.0])) == 3.0


def test_kl_and_stein_hand_computed():
    # Diagonal case: KL(N(0, diag a) || N(0, diag b)) = sum(a/b - 1 - log(a/b)) / 2.
    true, est = np.diag([1.0, 2.0]), np.diag([2.0, 2.0])
    log2 = math.log(2)
    # As covariances: a = (1, 2), b = (2, 2) -> (1/2 - 1 + log 2) / 2.
    assert M.kl_divergence(true, est, role="covariance") == pytest.approx(
        (0.5 - 1 + log2) / 2
    )
    # As precisions the covariances are a = (1, 1/2), b = (1/2, 1/2) -> (1 - log 2)/2.
    assert M.kl_divergence(true, est, role="precision") == pytest.approx(
        (2 - 1 - log2) / 2
    )
    # Stein (covariance): tr(S_e S_t^-1) - log det(S_e S_t^-1) - p = 3 - log 2 - 2.
    assert M.stein_loss(true, est, role="covariance") == pytest.approx(1 - log2)
    # Stein (precision): tr(O_e^-1 O_t) - log det(O_e^-1 O_t) - p = 1.5 + log 2 - 2.
    assert M.stein_loss(true, est, role="precision") == pytest.approx(-0.5 + log2)


def kl_by_inverse(cov_p, cov_q):
    """Textbook KL(N(0, P) || N(0, Q)) with explicit inverse and slogdet."""
    p = cov_p.shape[0]
    _, logdet_p = np.linalg.slogdet(cov_p)
    _, logdet_q = np.linalg.slogdet(cov_q)
    return 0.5 * (np.trace(np.linalg.solve(cov_q, cov_p)) - p + logdet_q - logdet_p)


@pytest.mark.parametrize("seed", range(4))
def test_kl_and_stein_match_textbook_formulas(seed):
    rng = np.random.default_rng(seed)
    p = int(rng.integers(2, 12))
    sigma_true, sigma_est = random_spd(p, rng), random_spd(p, rng)
    omega_true, omega_est = np.linalg.inv(sigma_true), np.linalg.inv(sigma_est)
    expected_kl = kl_by_inverse(sigma_true, sigma_est)
    # Same pair of Gaussians, described by covariances or by precisions.
    assert M.kl_divergence(sigma_true, sigma_est, role="covariance") == pytest.approx(
        expected_kl, rel=1e-9
    )
    assert M.kl_divergence(omega_true, omega_est, role="precision") == pytest.approx(
        expected_kl, rel=1e-7
    )
    product = sigma_est @ omega_true
    expected_stein = np.trace(product) - np.linalg.slogdet(product)[1] - p
    assert M.stein_loss(sigma_true, sigma_est, role="covariance") == pytest.approx(
        expected_stein, rel=1e-9
    )
    assert M.stein_loss(omega_true, omega_est, role="precision") == pytest.approx(
        expected_stein, rel=1e-7
    )
    assert expected_stein == pytest.approx(2 * kl_by_inverse(sigma_est, sigma_true))


def test_kl_direction_by_monte_carlo():
    # KL(P || Q) = E_P[log p(x) - log q(x)]: estimate it from 200k draws of P.
    rng = np.random.default_rng(42)
    cov_p = np.array([[1.0, 0.6, 0.0], [0.6, 1.0, 0.3], [0.0, 0.3, 1.0]])
    cov_q = np.diag([2.0, 0.5, 1.0])
    x = rng.multivariate_normal(np.zeros(3), cov_p, size=200_000)
    quad_p = np.einsum("ij,ij->i", x @ np.linalg.inv(cov_p), x)
    quad_q = np.einsum("ij,ij->i", x @ np.linalg.inv(cov_q), x)
    log_ratio = -0.5 * (quad_p - quad_q) - 0.5 * (
        np.linalg.slogdet(cov_p)[1] - np.linalg.slogdet(cov_q)[1]
    )
    estimate = log_ratio.mean()
    standard_error = log_ratio.std() / np.sqrt(log_ratio.size)
    forward = M.kl_divergence(cov_p, cov_q, role="covariance")
    backward = M.kl_divergence(cov_q, cov_p, role="covariance")
    # 4 standard errors: a false-failure probability of ~6e-5 for a correct
    # implementation, while the reverse direction sits many SEs away (checked), so
    # a swapped implementation would fail.
    assert abs(estimate - forward) < 4 * standard_error
    assert abs(estimate - backward) > 20 * standard_error


def test_matrix_losses_vanish_at_the_truth():
    sigma = random_spd(6, np.random.default_rng(0))
    for role in ("covariance", "precision"):
        assert M.kl_divergence(sigma, sigma, role=role) == pytest.approx(0, abs=1e-12)
        assert M.stein_loss(sigma, sigma, role=role) == pytest.approx(0, abs=1e-12)
        assert M.kl_divergence(sigma, sigma, role=role) >= 0.0
    assert M.frobenius_loss(sigma, sigma) == 0.0
    assert M.spectral_loss(sigma, sigma) == 0.0


def test_matrix_loss_bad_input():
    good = np.eye(3)
    not_pd = np.diag([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="estimated_matrix is not positive definite"):
        M.kl_divergence(good, not_pd, role="covariance")
    with pytest.raises(ValueError, match="true_matrix is not positive definite"):
        M.stein_loss(not_pd, good, role="precision")
    with pytest.raises(ValueError, match="role must be one of"):
        M.kl_divergence(good, good, role="correlation")
    with pytest.raises(TypeError):
        M.kl_divergence(good, good)  # role is required: the two readings differ
    with pytest.raises(ValueError, match="symmetric"):
        M.frobenius_loss(good, np.triu(np.ones((3, 3))))
    with pytest.raises(ValueError, match="same shape"):
        M.spectral_loss(good, np.eye(4))
    with pytest.raises(ValueError, match="NaN"):
        M.frobenius_loss(good, np.full((3, 3), np.nan))


# --------------------------------------------------------------------------------------
# the estimator protocol
# --------------------------------------------------------------------------------------

# Precision with partial correlations rho_01 = 1/2 (= 1 / sqrt(2 * 2)), rho_12 = 0.
PRECISION3 = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])


def test_edges_and_scores_from_precision():
    estimator = Fitted(precision_=PRECISION3)
    np.testing.assert_array_equal(M.edges_from_estimator(estimator), graph(3, [(0, 1)]))
    expected = symmetric_scores(3, {(0, 1): 0.5})
    np.testing.assert_allclose(M.edge_scores_from_estimator(estimator), expected)


def test_tolerance_applies_to_partial_correlations_not_raw_entries():
    precision = PRECISION3.copy()
    precision[1, 2] = precision[2, 1] = 1e-3  # |rho_12| = 1e-3 / sqrt(2)
    estimator = Fitted(precision_=precision)
    assert M.edges_from_estimator(estimator)[1, 2]
    assert not M.edges_from_estimator(estimator, tol=1e-3)[1, 2]
    assert M.edges_from_estimator(estimator, tol=1e-3)[0, 1]
    # Rescaling the variables (D Omega D) changes raw entries by 1e6 but not the
    # partial correlations, so neither the edges nor the scores change.
    d = np.diag([1e3, 1e-3, 1.0])
    rescaled = Fitted(precision_=d @ precision @ d)
    np.testing.assert_array_equal(
        M.edges_from_estimator(rescaled, tol=1e-3),
        M.edges_from_estimator(estimator, tol=1e-3),
    )
    np.testing.assert_allclose(
        M.edge_scores_from_estimator(rescaled),
        M.edge_scores_from_estimator(estimator),
    )


def test_adjacency_attribute_takes_priority_for_edges():
    own_decision = graph(3, [(1, 2)])
    estimator = Fitted(adjacency_=own_decision, precision_=PRECISION3)
    np.testing.assert_array_equal(M.edges_from_estimator(estimator), own_decision)
    # ... but scores need a ranking, so the precision is used for them.
    np.testing.assert_allclose(
        M.edge_scores_from_estimator(estimator), symmetric_scores(3, {(0, 1): 0.5})
    )
    # Without a matrix, adjacency_ serves as 0/1 scores.
    only_adjacency = Fitted(adjacency_=own_decision.astype(int))
    np.testing.assert_array_equal(
        M.edge_scores_from_estimator(only_adjacency), own_decision.astype(float)
    )


def test_covariance_model_reads_covariance():
    covariance = np.linalg.inv(PRECISION3)  # block: marginal edge 01 only
    covariance[0, 2] = covariance[2, 0] = 0.5  # correlation 0.5/sqrt(2/3 * 1)
    estimator = Fitted(precision_=PRECISION3, covariance_=covariance)
    np.testing.assert_array_equal(
        M.edges_from_estimator(estimator, model="covariance"),
        graph(3, [(0, 1), (0, 2)]),
    )
    scores = M.edge_scores_from_estimator(estimator, model="covariance")
    assert scores[0, 1] == pytest.approx(0.5)  # (1/3) / sqrt(2/3 * 2/3)
    assert scores[0, 2] == pytest.approx(0.5 / math.sqrt(2 / 3))


def test_missing_attributes_give_clear_errors():
    with pytest.raises(ValueError, match=r"GraphicalLasso.*Is it fitted\?"):
        M.edges_from_estimator(GraphicalLasso())
    with pytest.raises(ValueError, match="none of adjacency_, precision_"):
        M.edge_scores_from_estimator(Fitted())
    # Only a covariance, concentration graph requested: name what is there.
    with pytest.raises(ValueError, match=r"exposes covariance_; is model="):
        M.edges_from_estimator(Fitted(covariance_=np.eye(3)))
    with pytest.raises(ValueError, match="none of adjacency_, covariance_"):
        M.edges_from_estimator(Fitted(precision_=np.eye(3)), model="covariance")
    # precision_ = None (sklearn with store_precision=False) counts as absent.
    X = np.random.default_rng(0).standard_normal((50, 3))
    with pytest.raises(ValueError, match="none of adjacency_, precision_"):
        M.edges_from_estimator(EmpiricalCovariance(store_precision=False).fit(X))


def test_invalid_attribute_matrices_rejected():
    with pytest.raises(ValueError, match=r"Fitted\.precision_ must be symmetric"):
        M.edges_from_estimator(Fitted(precision_=np.triu(PRECISION3)))
    with pytest.raises(ValueError, match="positive diagonal"):
        M.edge_scores_from_estimator(Fitted(precision_=-PRECISION3))
    with pytest.raises(ValueError, match=r"adjacency_\[0, 1\] is -1.0; an edge"):
        M.edges_from_estimator(Fitted(adjacency_=PRECISION3))


def test_invalid_model_and_tol_rejected():
    estimator = Fitted(precision_=PRECISION3)
    with pytest.raises(ValueError, match="model must be one of"):
        M.edges_from_estimator(estimator, model="precision")
    with pytest.raises(ValueError, match="tol must lie in"):
        M.edges_from_estimator(estimator, tol=-1e-3)
    with pytest.raises(TypeError, match="tol must be a real number"):
        M.edges_from_estimator(estimator, tol="small")


def test_graphical_lasso_zeros_are_read_as_non_edges():
    X = sample_from_precision(chain_precision(6, 0.4), 500, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = GraphicalLasso(alpha=0.3).fit(X)
    edges = M.edges_from_estimator(model)
    off_diagonal = ~np.eye(6, dtype=bool)
    np.testing.assert_array_equal(edges, (model.precision_ != 0) & off_diagonal)


# --------------------------------------------------------------------------------------
# scorers
# --------------------------------------------------------------------------------------


def test_scorer_values_and_sign():
    truth = CHAIN4
    estimate = graph(4, [(0, 1), (1, 2), (0, 2)])  # example A: SHD 2, F1 2/3
    estimator = Fitted(adjacency_=estimate, precision_=np.eye(4) + CHAIN4_SCORES)
    assert M.make_structure_scorer("f1", truth)(estimator, None) == pytest.approx(2 / 3)
    shd = M.make_structure_scorer(M.structural_hamming_distance, truth)
    assert shd.sign == -1
    assert shd(estimator, None) == -2.0  # negated: greater is better
    assert M.make_structure_scorer("fpr", truth)(estimator, None) == pytest.approx(
        -1 / 3
    )
    # Score metrics use the precision's partial correlations, not adjacency_:
    # |rho_ij| = scores / 1, a rescaled copy of CHAIN4_SCORES -> AUC 6/9.
    auc = M.make_structure_scorer("roc_auc", truth)
    assert auc(estimator, None) == pytest.approx(6 / 9)
    assert isinstance(auc(estimator, None), float)


def test_scorer_passes_metric_kwargs():
    estimator = Fitted(adjacency_=EMPTY4)
    strict = M.make_structure_scorer("ppv", CHAIN4, zero_division=0.0)
    assert strict(estimator, None) == 0.0
    assert M.make_structure_scorer("ppv", CHAIN4)(estimator, None) == 1.0


def test_scorer_construction_errors():
    with pytest.raises(ValueError, match="unknown metric"):
        M.make_structure_scorer("accuracy", CHAIN4)
    with pytest.raises(ValueError, match="unknown metric"):
        M.make_structure_scorer(skm.f1_score, CHAIN4)  # sklearn's, not ours
    with pytest.raises(TypeError, match="Invalid keyword arguments for f1"):
        M.make_structure_scorer("f1", CHAIN4, zero_divison=0.0)  # typo
    with pytest.raises(ValueError, match="zero_division"):
        M.make_structure_scorer("f1", CHAIN4, zero_division=3.0)
    with pytest.raises(ValueError, match="true graph has no edges"):
        M.make_structure_scorer("roc_auc", EMPTY4)
    with pytest.raises(ValueError, match="symmetric"):
        M.make_structure_scorer("f1", np.triu(CHAIN4))
    with pytest.raises(ValueError, match="model must be one of"):
        M.make_structure_scorer("f1", CHAIN4, model="partial")


def test_scorer_rejects_estimator_of_wrong_size():
    scorer = M.make_structure_scorer("f1", CHAIN4)
    with pytest.raises(ValueError, match="same shape"):
        scorer(Fitted(precision_=np.eye(5)), None)


def test_scorer_is_picklable_and_has_readable_repr():
    scorer = M.make_structure_scorer("shd", CHAIN4, model="covariance")
    clone_ = pickle.loads(pickle.dumps(scorer))
    estimator = Fitted(adjacency_=EMPTY4)
    assert clone_(estimator, None) == scorer(estimator, None) == -3.0
    assert repr(scorer) == (
        "make_structure_scorer('shd', <4 x 4 graph>, model='covariance')"
    )


# A chain of 12 variables with neighbour partial correlations 0.4 and n = 400: the
# graphical lasso recovers the chain well for a moderate alpha, while alpha = 0.001
# keeps nearly all 66 pairs (F1 ~ 2*11/(66+11) = 0.29) and alpha = 2 removes all
# edges (F1 = 0). Measured over seeds 0-5 the refit F1 at the selected alpha was
# 0.95-1.0, hence the 0.85 threshold below; a scorer with the wrong sign or one that
# ignores the estimator would select an extreme alpha and fail.
CHAIN_P, CHAIN_N = 12, 400
ALPHAS = [0.001, 0.03, 0.1, 0.3, 0.5, 0.7, 1.0, 2.0]


@pytest.fixture(scope="module")
def chain_data():
    precision = chain_precision(CHAIN_P, 0.4)
    X = sample_from_precision(precision, CHAIN_N, seed=3)
    # Sanity check of the sampler: the sample covariance is near precision^-1
    # (entries have standard error ~ sqrt(2/400) ~ 0.07; 0.3 is > 4 SE).
    np.testing.assert_allclose(np.cov(X.T), np.linalg.inv(precision), atol=0.3)
    return X, (precision != 0) & ~np.eye(CHAIN_P, dtype=bool)


def refit_f1(X, truth, alpha):
    model = GraphicalLasso(alpha=alpha, max_iter=200).fit(X)
    return M.f1_score(truth, M.edges_from_estimator(model))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_grid_search_selects_alpha_recovering_the_graph(chain_data):
    X, truth = chain_data
    search = GridSearchCV(
        GraphicalLasso(max_iter=200),
        {"alpha": ALPHAS},
        scoring=M.make_structure_scorer("f1", truth),
        cv=KFold(3),
        error_score="raise",
    ).fit(X)
    best_alpha = search.best_params_["alpha"]
    assert best_alpha not in (ALPHAS[0], ALPHAS[-1])
    best_f1 = M.f1_score(truth, M.edges_from_estimator(search.best_estimator_))
    assert best_f1 >= 0.85
    for bad_alpha in (ALPHAS[0], ALPHAS[-1]):
        assert best_f1 > refit_f1(X, truth, bad_alpha) + 0.4
    # The reported CV score is the mean of our F1 over folds, not something else.
    assert search.best_score_ == pytest.approx(
        np.mean(
            [
                M.f1_score(
                    truth,
                    M.edges_from_estimator(clone(search.best_estimator_).fit(X[train])),
                )
                for train, _ in KFold(3).split(X)
            ]
        )
    )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_negated_loss_scorer_refits_the_minimum_shd(chain_data):
    X, truth = chain_data
    scoring = {
        "shd": M.make_structure_scorer("shd", truth),
        "f1": M.make_structure_scorer(M.f1_score, truth),
    }
    search = GridSearchCV(
        GraphicalLasso(max_iter=200),
        {"alpha": ALPHAS},
        scoring=scoring,
        refit="shd",
        cv=3,
        n_jobs=2,  # scorers must survive pickling to worker processes
        error_score="raise",
    ).fit(X)
    mean_neg_shd = search.cv_results_["mean_test_shd"]
    assert np.all(mean_neg_shd <= 0)
    assert search.best_index_ == int(np.argmax(mean_neg_shd))
    shd_best = M.structural_hamming_distance(
        truth, M.edges_from_estimator(search.best_estimator_)
    )
    # Dense (alpha = 0.001) misses nothing but adds ~55 spurious edges; empty
    # (alpha = 2) misses all 11. A tuned alpha should be within a few edges.
    assert shd_best <= 4


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_cross_validate_with_score_based_scorer(chain_data):
    X, truth = chain_data
    result = cross_validate(
        GraphicalLasso(alpha=0.1, max_iter=200),
        X,
        cv=3,
        scoring={
            "auc": M.make_structure_scorer("roc_auc", truth),
            "ap": M.make_structure_scorer("average_precision", truth),
        },
        error_score="raise",
    )
    # |partial correlations| of 0.4 vs 0 with n ~ 267 per fold (SE ~ 0.06) separate
    # edges from non-edges almost perfectly; chance level is 0.5 (AUC) and
    # 11/66 = 0.17 (AP).
    assert np.all(result["test_auc"] > 0.95)
    assert np.all(result["test_ap"] > 0.85)


@pytest.mark.parametrize(
    ("value", "shown"),
    [(np.nan, "NaN"), (2, "2"), (-1, "-1"), (np.iinfo(np.int32).min, "-2147483648")],
)
def test_an_edge_decision_that_is_not_0_1_names_its_entry(value, shown):
    # Issue 37: a NaN (or R's logical NA, INT_MIN as an integer) was "non-zero",
    # so an edge. Every reader of an edge decision refuses it, naming the entry.
    adjacency = np.zeros((4, 4), dtype=type(value))
    adjacency[0, 3] = adjacency[3, 0] = 1
    adjacency[1, 2] = adjacency[2, 1] = value
    learner = Fitted(adjacency_=adjacency)
    message = re.escape(f"Fitted.adjacency_[1, 2] is {shown}; an edge decision must")
    with pytest.raises(ValueError, match=message):
        M.edges_from_estimator(learner)
    with pytest.raises(ValueError, match=message):
        M.edge_scores_from_estimator(learner)
    per_group = Fitted(adjacency_=np.stack([np.zeros_like(adjacency), adjacency]))
    with pytest.raises(ValueError, match=re.escape(f"adjacency_[1, 1, 2] is {shown};")):
        M.group_edges_from_estimator(per_group)


def test_edges_come_from_partial_correlation_when_it_is_all_there_is():
    # Issue 37: the protocol's third edge source (corpcor's pcor.shrink, node-wise
    # learners) gave "exposes none of adjacency_, precision_".
    partial = np.array([[1.0, -0.6, 1e-9], [-0.6, 1.0, 0.0], [1e-9, 0.0, 1.0]])
    learner = Fitted(partial_correlation_=partial)
    np.testing.assert_array_equal(M.edges_from_estimator(learner), graph(3, [(0, 1)]))
    np.testing.assert_array_equal(
        M.edges_from_estimator(learner, tol=0.0), graph(3, [(0, 1), (0, 2)])
    )
    # A covariance graph is not read from partial correlations.
    with pytest.raises(ValueError, match="exposes none of adjacency_, covariance_"):
        M.edges_from_estimator(learner, model="covariance")
    with pytest.raises(ValueError, match="outside"):
        M.edges_from_estimator(Fitted(partial_correlation_=2 * partial))


def test_scores_fall_back_to_partial_correlation_before_adjacency():
    from skggm_bench.metrics import edge_scores_from_estimator

    class NodeWise:
        partial_correlation_ = np.array(
            [[0.0, -0.6, 0.1], [-0.6, 0.0, 0.0], [0.1, 0.0, 0.0]]
        )
        adjacency_ = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=bool)

    scores = edge_scores_from_estimator(NodeWise())
    np.testing.assert_allclose(scores, np.abs(NodeWise.partial_correlation_))
    # For a covariance graph, partial correlations say nothing: adjacency is used.
    covariance_scores = edge_scores_from_estimator(NodeWise(), model="covariance")
    np.testing.assert_array_equal(covariance_scores, NodeWise.adjacency_.astype(float))


# --------------------------------------------------------------------------------------
# Which matrices the losses judge (issue 21)
# --------------------------------------------------------------------------------------


def _unequal_variances(n=200, p=8, seed=0):
    """Data whose variances spread over 1 to 64, with some correlation."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    X[:, 1] += X[:, 0]
    return X * 2.0 ** np.arange(p)


def test_loss_problem_accepts_exact_and_generalised_inverses():
    from sklearn.covariance import EmpiricalCovariance, LedoitWolf, ShrunkCovariance

    from skggm_bench.metrics import loss_problem

    X = _unequal_variances()
    for estimator in (EmpiricalCovariance(), LedoitWolf(), ShrunkCovariance()):
        fitted = estimator.fit(X)
        assert loss_problem(fitted.covariance_, fitted.precision_, X) is None
    # n < p: a singular sample covariance and its pseudo-inverse are one model.
    small = X[:5]
    fitted = EmpiricalCovariance().fit(small)
    assert loss_problem(fitted.covariance_, fitted.precision_, small) is None


def test_loss_problem_names_the_check_and_its_size():
    from skggm_bench.metrics import DISAGREEMENT_TOL, loss_problem

    X = _unequal_variances()
    S = np.cov(X, rowvar=False, bias=True)
    # A penalised precision next to the sample covariance (regain's pair).
    precision = np.linalg.inv(S + 0.05 * np.diag(np.diag(S)))
    message = loss_problem(S, precision, X)
    assert message.startswith("no loss: covariance_ and precision_ disagree (max ")
    size = float(message.split("= ")[1].split(",")[0])
    assert size > DISAGREEMENT_TOL
    np.testing.assert_allclose(size, np.abs(S @ precision - np.eye(8)).max(), rtol=1e-2)
    # A correlation matrix for data of variances 1 to 2**14.
    d = np.sqrt(np.diag(S))
    correlation = S / np.outer(d, d)
    message = loss_problem(correlation, np.linalg.inv(correlation), X)
    assert message.startswith("no loss: covariance_ has a unit diagonal")
    assert f"{X.var(axis=0).max():.3g}" in message  # the data's variances, named
    # ... which is fine for data of unit variances, and for a learner that saw
    # standardised data (a pipeline's scaler: scale = 1 / sd).
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    assert loss_problem(correlation, np.linalg.inv(correlation), Z) is None
    back = correlation * np.outer(d, d)
    assert loss_problem(back, np.linalg.inv(back), X, scale=1 / d) is None


def test_loss_problem_withholds_nothing_else_for_scale():
    from skggm_bench.metrics import loss_problem

    X = _unequal_variances(p=6)  # variances 1 to 1024
    S = np.cov(X, rowvar=False, bias=True)
    d = np.sqrt(np.diag(S))
    correlation = S / np.outer(d, d)
    # Far from the sample variances, closer to unit ones, but not within a factor
    # 1.1 of them: their losses say how far they are.
    for estimate in (1.5 * correlation, np.diag(np.full(6, 3.0)), 100.0 * S):
        assert loss_problem(estimate, np.linalg.inv(estimate), X) is None
    # From a precision alone, its inverse is judged.
    message = loss_problem(None, np.linalg.inv(correlation), X)
    assert message.startswith("no loss: the inverse of precision_ has a unit diagonal")


def test_loss_problem_withholds_the_losses_of_standardised_estimates():
    # Issue 37: a diagonal of n/(n-1) (standardised with ddof 0, estimated with
    # ddof 1) or of nearly 1 (a precision of standardised data, up to its
    # solver) passed as estimates of the data's covariance, off by the data's
    # variances (up to 1024 here).
    from skggm_bench.metrics import loss_problem

    X = _unequal_variances(n=100, p=6)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    for ddof_estimate in (np.cov(Z, rowvar=False), np.cov(Z, rowvar=False) * 0.99**2):
        level = ddof_estimate[0, 0]
        message = loss_problem(ddof_estimate, np.linalg.inv(ddof_estimate), X)
        assert message.startswith(
            f"no loss: covariance_ has a constant diagonal {level:.6g} (a "
            "correlation matrix times n/(n-1) or (n-1)/n"
        ), message
    near = np.corrcoef(X, rowvar=False) + 1e-3 * np.eye(6)
    message = loss_problem(None, np.linalg.inv(near), X)
    assert message.startswith(
        "no loss: the inverse of precision_ implies variances 1.001 to 1.001, those "
        "of standardised data (a factor 1.001 from 1 and 68.3 from the data's, root "
        "mean square) while the variances of the data the learner was given are "
        "0.975 to 952: it standardised the data itself"
    ), message
    # Data standardised (either way) are the learner's scale: nothing withheld.
    for data in (Z, Z * np.sqrt(99 / 100)):
        assert loss_problem(np.cov(Z, rowvar=False), None, data) is None
        assert loss_problem(None, np.linalg.inv(near), data) is None
    # Data whose variances are within a factor 1.25 of 1: the scale moves a
    # loss by little, and nothing is withheld.
    mild = Z * np.linspace(0.95, 1.05, 6)
    assert loss_problem(None, np.linalg.inv(near), mild) is None


class _DdofMix(BaseEstimator):
    """Standardises with ddof 0, then estimates with ddof 1: a diagonal n/(n-1)."""

    def fit(self, X, y=None):
        Z = (X - X.mean(axis=0)) / X.std(axis=0)
        self.covariance_ = np.cov(Z, rowvar=False)
        self.precision_ = np.linalg.inv(self.covariance_)
        return self


class _PrecisionOfStandardised(BaseEstimator):
    """Fits the graphical lasso on standardised data; exposes its precision only."""

    def fit(self, X, y=None):
        Z = (X - X.mean(axis=0)) / X.std(axis=0)
        self.precision_ = GraphicalLasso(alpha=0.05).fit(Z).precision_
        return self


@pytest.mark.parametrize(
    ("learner", "metric"),
    [
        (_DdofMix(), "kl_divergence"),
        (_PrecisionOfStandardised(), "precision_frobenius_loss"),
    ],
)
def test_a_loss_of_a_standardised_estimate_is_withheld_with_why(learner, metric):
    # The two cases of issue 37 item 8, in the harness: each loss was off by
    # about an order of magnitude, without a reason in the row.
    from skggm_bench.benchmark import Benchmark
    from skggm_bench.generators import PartialOrthogonalization

    frame = (
        Benchmark(
            {"po": PartialOrthogonalization()},
            {"standardised": learner},
            n_features=10,
            densities=0.2,
            n_samples=100,
            n_repeats=2,
            random_state=0,
            metrics=("f1", metric),
        )
        .run()
        .frame
    )
    assert (frame.status == "ok").all()
    assert frame[metric].isna().all()
    assert frame.message.str.contains(
        f"{metric} undefined: no loss: .* it standardised the data itself"
    ).all(), frame.message.tolist()


class _Correlation(BaseEstimator):
    """Standardises the data itself and returns the sample correlation."""

    def fit(self, X, y=None):
        self.covariance_ = np.corrcoef(X, rowvar=False)
        self.precision_ = np.linalg.inv(self.covariance_)
        return self


def test_score_learner_maps_a_pipelines_matrices_back_to_the_data_scale():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MaxAbsScaler, RobustScaler, StandardScaler

    from skggm_bench.metrics import (
        GroundTruth,
        feature_scale,
        frobenius_loss,
        kl_divergence,
        score_learner,
        stein_loss,
    )

    X = _unequal_variances()
    S = np.cov(X, rowvar=False, bias=True)
    truth = GroundTruth(
        np.abs(np.linalg.inv(S)) > 1e-3, covariance=S, precision=np.linalg.inv(S)
    )
    metrics = [
        "f1",
        "frobenius_loss",
        "kl_divergence",
        "stein_loss",
        "precision_frobenius_loss",
    ]
    # By hand: the learner is fitted on z = (x - m) / s, so D = diag(s) maps its
    # matrices back: Sigma = D Sigma_z D, Theta = D^-1 Theta_z D^-1.
    s = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / s
    inner = GraphicalLasso(alpha=0.1).fit(Z)
    D = np.diag(s)
    sigma = D @ inner.covariance_ @ D
    theta = np.linalg.inv(D) @ inner.precision_ @ np.linalg.inv(D)
    by_hand = {
        "frobenius_loss": frobenius_loss(S, sigma),
        "kl_divergence": kl_divergence(S, sigma, role="covariance"),
        "stein_loss": stein_loss(S, sigma, role="covariance"),
        "precision_frobenius_loss": frobenius_loss(np.linalg.inv(S), theta),
    }
    for scaler in (StandardScaler(), StandardScaler(copy=False)):  # in place too
        pipe = make_pipeline(scaler, GraphicalLasso(alpha=0.1)).fit(X.copy())
        scores = score_learner(pipe, truth, metrics, X=X)
        assert scores.notes == {}
        for name, value in by_hand.items():
            np.testing.assert_allclose(scores.values[name], value, rtol=1e-7)
    # On the learner's own scale the KL would be far larger: it would measure the
    # units of the data, not the estimator.
    on_own_scale = kl_divergence(S, inner.covariance_, role="covariance")
    assert on_own_scale > 100 * by_hand["kl_divergence"]
    # Nested pipelines, two rescalings in a row, inside a fitted search: the
    # multipliers compose (a RobustScaler's 1/IQR, then a MaxAbsScaler's 1/max).
    nested = GridSearchCV(
        make_pipeline(RobustScaler(), make_pipeline(MaxAbsScaler(), _Correlation())),
        {"robustscaler__with_centering": [True]},
        cv=2,
        scoring=lambda est, X, y=None: 0.0,
    ).fit(X)
    robust = nested.best_estimator_[0]
    maxabs = nested.best_estimator_[1][0]
    expected = 1 / (robust.scale_ * maxabs.scale_)
    np.testing.assert_allclose(feature_scale(nested, X), expected, rtol=1e-10)
    # The data a correlation learner saw after those two steps have variances
    # other than 1: its unit diagonal is refused. Behind a StandardScaler it is
    # mapped back to D R D, the sample covariance itself.
    refused = score_learner(nested, truth, ["kl_divergence"], X=X)
    assert "has a unit diagonal" in refused.notes["kl_divergence"]
    standard = make_pipeline(StandardScaler(), _Correlation()).fit(X)
    mapped = score_learner(standard, truth, ["frobenius_loss"], X=X)
    assert mapped.notes == {}
    np.testing.assert_allclose(
        mapped.values["frobenius_loss"], 0.0, atol=1e-9 * np.abs(S).max()
    )
    bare = score_learner(_Correlation().fit(X), truth, ["frobenius_loss"], X=X)
    assert "has a unit diagonal" in bare.notes["frobenius_loss"]
    # Without the data the pipeline is still mapped back (probed on other rows).
    without = score_learner(pipe, truth, ["frobenius_loss"])
    np.testing.assert_allclose(
        without.values["frobenius_loss"], by_hand["frobenius_loss"], rtol=1e-7
    )


def test_a_step_that_is_not_a_rescaling_leaves_no_loss_but_the_edges():
    from sklearn.decomposition import PCA
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import QuantileTransformer

    from skggm_bench.metrics import (
        GroundTruth,
        covariance_from_estimator,
        score_learner,
    )

    X = _unequal_variances()
    S = np.cov(X, rowvar=False, bias=True)
    truth = GroundTruth(np.abs(np.linalg.inv(S)) > 1e-3, covariance=S)
    steps = (
        (QuantileTransformer(n_quantiles=50), "quantiletransformer"),
        (PCA(), "pca"),
    )
    for step, name in steps:
        pipe = make_pipeline(step, EmpiricalCovariance()).fit(X)
        scores = score_learner(pipe, truth, ["f1", "frobenius_loss"], X=X)
        assert not np.isnan(scores.values["f1"])
        assert np.isnan(scores.values["frobenius_loss"])
        note = scores.notes["frobenius_loss"]
        assert note.startswith(f"no loss: the Pipeline step {name!r}")
        assert "is not a rescaling of each feature" in note
        with pytest.raises(ValueError, match="not a rescaling of each feature"):
            covariance_from_estimator(pipe, X=X)


def test_edge_scores_prefer_a_learners_own_ranking():
    """``edge_scores_`` (e.g. posterior edge probabilities) ranks the pairs before
    ``precision_``; outside [0, 1] or asymmetric it is refused."""
    from types import SimpleNamespace

    from skggm_bench.metrics import edge_scores_from_estimator

    scores = np.array([[0.0, 0.9, 0.2], [0.9, 0.0, 0.6], [0.2, 0.6, 0.0]])
    fitted = SimpleNamespace(
        adjacency_=scores > 0.5, precision_=np.eye(3), edge_scores_=scores + np.eye(3)
    )
    np.testing.assert_array_equal(edge_scores_from_estimator(fitted), scores)
    fitted.edge_scores_ = 2 * scores
    with pytest.raises(ValueError, match="outside"):
        edge_scores_from_estimator(fitted)
    fitted.edge_scores_ = np.triu(scores)
    with pytest.raises(ValueError, match="symmetric"):
        edge_scores_from_estimator(fitted)
