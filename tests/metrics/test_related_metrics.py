"""Metrics of related models: per-group averages, changes, latent parts."""

from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.pipeline import Pipeline

from skggm_bench.metrics import (
    METRICS,
    RELATED_METRICS,
    change_scores,
    f1_score,
    group_edges_from_estimator,
    group_scores,
    latent_scores,
    true_positive_rate,
)


def _graphs(*edge_lists, p=4):
    graphs = np.zeros((len(edge_lists), p, p), dtype=bool)
    for k, edges in enumerate(edge_lists):
        for i, j in edges:
            graphs[k, i, j] = graphs[k, j, i] = True
    return graphs


TRUTH = _graphs([(0, 1), (1, 2)], [(0, 1), (2, 3)], [(0, 1), (2, 3), (0, 3)])
ESTIMATE = _graphs([(0, 1)], [(0, 1), (2, 3), (1, 3)], [(0, 1), (2, 3)])


def test_group_metrics_are_the_single_graph_metrics_averaged():
    scores = group_scores(ESTIMATE, TRUTH, per_group=True)
    expected_tpr = [
        true_positive_rate(t, e) for t, e in zip(TRUTH, ESTIMATE, strict=True)
    ]
    assert scores["tpr_per_group"] == expected_tpr == [0.5, 1.0, 2 / 3]
    assert scores["tpr"] == pytest.approx(np.mean(expected_tpr))
    assert scores["f1"] == pytest.approx(
        np.mean([f1_score(t, e) for t, e in zip(TRUTH, ESTIMATE, strict=True)])
    )
    assert scores["shd"] == pytest.approx((1 + 1 + 1) / 3)


def test_changes_between_pairs_and_consecutive_groups_by_hand():
    # True changes: 0-1 {12, 23}, 0-2 {12, 23, 03}, 1-2 {03}: 6 in all.
    # Estimated: 0-1 {23, 13}, 0-2 {23}, 1-2 {13}: 4, of which 23 twice is right.
    pairs = change_scores(TRUTH, ESTIMATE)
    assert pairs == {"change_tpr": 2 / 6, "change_ppv": 2 / 4, "n_true_changes": 6}
    # Consecutive: 0-1 and 1-2 only: true {12, 23}, {03}; estimated {23, 13}, {13}.
    consecutive = change_scores(TRUTH, ESTIMATE, changes="consecutive")
    assert consecutive == {
        "change_tpr": 1 / 3,
        "change_ppv": 1 / 3,
        "n_true_changes": 3,
    }
    # A learner that estimates the same graph for every group finds no change.
    same = np.repeat(ESTIMATE[:1], 3, axis=0)
    assert change_scores(TRUTH, same)["change_tpr"] == 0.0


def test_precisions_estimators_and_pipelines_are_read_alike():
    rng = np.random.RandomState(0)
    precisions = np.stack([np.eye(4)] * 3)
    for k, graph in enumerate(TRUTH):
        precisions[k][graph] = 0.2 * rng.uniform(0.5, 1, size=graph.sum())
        precisions[k] = np.triu(precisions[k]) + np.triu(precisions[k], 1).T
    learner = SimpleNamespace(precision_=precisions)
    np.testing.assert_array_equal(group_edges_from_estimator(learner), TRUTH)
    np.testing.assert_array_equal(group_edges_from_estimator(precisions), TRUTH)
    piped = Pipeline([("learner", "passthrough")])
    piped.steps[-1] = ("learner", learner)
    scores = group_scores(piped, TRUTH, precisions)
    assert scores["f1"] == 1.0 and scores["change_tpr"] == 1.0
    assert scores["precision_frobenius_loss"] == 0.0
    assert scores["kl_divergence"] == pytest.approx(0.0, abs=1e-12)
    # Its own adjacency_ comes first.
    learner.adjacency_ = ESTIMATE
    assert group_scores(learner, TRUTH)["tpr"] == group_scores(ESTIMATE, TRUTH)["tpr"]


def test_indefinite_estimates_are_infinitely_far_in_kl():
    bad = np.stack([np.eye(4), np.eye(4) + 2 * np.eye(4)[::-1]])  # eigenvalue -1
    truth = np.stack([np.eye(4)] * 2)
    scores = group_scores(
        SimpleNamespace(precision_=bad), truth.astype(bool) & False, truth
    )
    assert scores["kl_divergence"] == np.inf


def test_names_are_registered():
    scores = group_scores(ESTIMATE, TRUTH)
    assert set(scores) <= set(METRICS) | set(RELATED_METRICS)
    latent = latent_scores(
        SimpleNamespace(precision_=np.eye(3), latent_=np.zeros((3, 3)) + 0.1),
        np.eye(3),
        np.zeros((3, 3)) + 0.1,
    )
    assert set(latent) <= set(METRICS) | set(RELATED_METRICS)


def test_latent_scores_by_hand():
    sparse = np.array([[1.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, 1.0]])
    u = np.array([[0.3, 0.1, 0.2], [0.1, -0.2, 0.1]]).T
    low_rank = u @ u.T
    estimate = SimpleNamespace(
        precision_=np.eye(3) + 0.3 * np.eye(3)[[1, 0, 2]] - 0.3 * np.diag([1, 1, 0]),
        latent_=low_rank[:, :1] @ low_rank[:1, :] / low_rank[0, 0],
    )
    scores = latent_scores(estimate, sparse, low_rank)
    assert scores["rank"] == 1 and scores["rank_error"] == 1
    # The estimate finds edge 0-1, misses 1-2.
    assert scores["tpr"] == 0.5 and scores["ppv"] == 1.0
    assert scores["sparse_relative_error"] == pytest.approx(
        np.linalg.norm(estimate.precision_ - sparse) / np.linalg.norm(sparse)
    )


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: group_scores(ESTIMATE[:2], TRUTH), "estimated 2 graphs"),
        (lambda: group_scores(np.ones((3, 4)), TRUTH), "shape \\(n_groups, p, p\\)"),
        (lambda: change_scores(TRUTH, ESTIMATE, changes="all"), "changes must be"),
        (lambda: group_scores(SimpleNamespace(), TRUTH), "no precision_"),
        (lambda: latent_scores(SimpleNamespace(precision_=np.eye(2)), np.eye(2),
                               np.eye(2)), "no latent_"),
    ],
)  # fmt: skip
def test_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()
