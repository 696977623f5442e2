"""PerClass: one fit per class, stacked by the learner protocol of related models."""

import numpy as np
import pytest
from sklearn.covariance import GraphicalLasso, LedoitWolf
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

from skggm_bench.datasets import make_joint_ggm
from skggm_bench.learners import EXPECTED_FAILED_CHECKS, LassoNetwork, PerClass
from skggm_bench.metrics import group_scores


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    "estimator", [PerClass(LedoitWolf()), PerClass(GraphicalLasso(alpha=0.3))], ids=repr
)
def test_check_estimator(estimator):
    check_estimator(
        estimator, expected_failed_checks=EXPECTED_FAILED_CHECKS["PerClass"]
    )


def test_each_class_is_its_own_fit_in_label_order():
    data = make_joint_ggm(200, 8, n_classes=3, random_state=0)
    y = np.array(["c", "a", "b"])[data.y]  # labels sorted as a, b, c
    model = PerClass(GraphicalLasso(alpha=0.1)).fit(data.X, y)
    assert model.classes_.tolist() == ["a", "b", "c"]
    for k, label in enumerate(model.classes_):
        alone = GraphicalLasso(alpha=0.1).fit(data.X[y == label])
        np.testing.assert_array_equal(model.precision_[k], alone.precision_)
        np.testing.assert_array_equal(model.covariance_[k], alone.covariance_)
    assert model.adjacency_.shape == (3, 8, 8)


def test_learners_with_their_own_edges_and_pipelines():
    data = make_joint_ggm(150, 6, n_classes=2, random_state=1)
    lasso = PerClass(LassoNetwork(random_state=0)).fit(data.X, data.y)
    assert not hasattr(lasso, "precision_")  # node-wise regressions have none
    for k in range(2):
        alone = LassoNetwork(random_state=0).fit(data.X[data.y == k])
        np.testing.assert_array_equal(lasso.adjacency_[k], alone.adjacency_)
    piped = PerClass(make_pipeline(StandardScaler(), GraphicalLasso(alpha=0.2)))
    assert piped.fit(data.X, data.y).precision_.shape == (2, 6, 6)
    assert group_scores(lasso, data.adjacency)["tpr"] > 0


def test_results_do_not_depend_on_n_jobs():
    data = make_joint_ggm(100, 6, n_classes=3, random_state=2)
    one = PerClass(GraphicalLasso(alpha=0.2), n_jobs=1).fit(data.X, data.y)
    two = PerClass(GraphicalLasso(alpha=0.2), n_jobs=2).fit(data.X, data.y)
    np.testing.assert_array_equal(one.precision_, two.precision_)


def test_a_failing_class_is_named():
    X = np.random.RandomState(0).standard_normal((5, 3))
    with pytest.raises(ValueError, match="class 1 has 1 sample"):
        PerClass(LedoitWolf()).fit(X, [0, 0, 0, 0, 1])
    with pytest.raises(ValueError, match="fitting class 0"):
        PerClass(GraphicalLasso(alpha=-1.0)).fit(X, [0, 0, 1, 1, 1])
