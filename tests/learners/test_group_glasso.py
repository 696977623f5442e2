"""GroupGraphicalLasso: per-class graphical lassos at beta=0, one graph as beta grows.

Its agreement with gglasso's GGL is tested in
tests/compat/test_related_model_learners.py.
"""

import numpy as np
import pytest
from sklearn.covariance import GraphicalLasso
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import check_estimator

from skggm_bench.datasets import make_joint_ggm
from skggm_bench.learners import EXPECTED_FAILED_CHECKS, GroupGraphicalLasso


def test_check_estimator():
    check_estimator(
        GroupGraphicalLasso(),
        expected_failed_checks=EXPECTED_FAILED_CHECKS["GroupGraphicalLasso"],
    )


def test_without_the_group_penalty_it_is_the_graphical_lasso_of_each_class():
    data = make_joint_ggm([80, 120], 8, n_classes=2, random_state=0)
    model = GroupGraphicalLasso(alpha=0.08, beta=0.0, tol=1e-10, max_iter=5000)
    model.fit(data.X, data.y)
    for k in range(2):
        alone = GraphicalLasso(alpha=0.08, tol=1e-10, max_iter=1000)
        alone.fit(data.X[data.y == k])
        # scikit-learn's own solver stops about 1e-4 short of the optimum here.
        np.testing.assert_allclose(model.precision_[k], alone.precision_, atol=1e-3)
    np.testing.assert_allclose(
        model.covariance_ @ model.precision_, np.stack([np.eye(8)] * 2), atol=1e-10
    )


def test_a_large_group_penalty_gives_the_classes_one_graph():
    data = make_joint_ggm(60, 10, n_classes=3, shared_fraction=0.5, random_state=1)
    supports = []
    for beta in (0.0, 0.3):
        model = GroupGraphicalLasso(alpha=0.02, beta=beta).fit(data.X, data.y)
        edges = model.precision_ != 0
        supports.append(np.mean(edges != edges[:1]))
    assert supports[0] > 0.05 and supports[1] == 0.0


def kkt_violation(precisions, covariances, alpha, beta):
    """Largest violation of the optimality conditions of the GGL problem.

    With W_k = inv(Theta_k) and G_k = S_k - W_k: the diagonal of G_k is 0; for a
    pair whose vector across classes is non-zero, G_kij + alpha sign(theta_kij)
    + beta theta_kij / ||theta_.ij|| = 0 where theta_kij != 0 and
    |G_kij + beta theta_kij / ||theta_.ij||| <= alpha where it is 0; for a pair
    that is zero in every class, ||soft(G_.ij, alpha)|| <= beta.
    """
    gradient = covariances - np.linalg.inv(precisions)
    p = precisions.shape[1]
    worst = np.abs(np.diagonal(gradient, axis1=1, axis2=2)).max()
    norms = np.sqrt((precisions**2).sum(axis=0))
    for i in range(p):
        for j in range(i + 1, p):
            g, theta = gradient[:, i, j], precisions[:, i, j]
            if norms[i, j] == 0:
                soft = np.maximum(np.abs(g) - alpha, 0)
                worst = max(worst, np.linalg.norm(soft) - beta)
                continue
            residual = g + beta * theta / norms[i, j]
            on = theta != 0
            worst = max(
                worst,
                np.abs(residual[on] + alpha * np.sign(theta[on])).max(initial=0.0),
            )
            worst = max(worst, (np.abs(residual[~on]) - alpha).max(initial=0.0))
    return worst


@pytest.mark.parametrize("beta", [0.0, 0.05, 0.2])
def test_the_solution_meets_the_optimality_conditions(beta):
    data = make_joint_ggm([40, 60, 80], 8, n_classes=3, random_state=4)
    model = GroupGraphicalLasso(alpha=0.05, beta=beta, tol=1e-10, max_iter=10000)
    model.fit(data.X, data.y)
    covariances = np.stack(
        [np.cov(data.X[data.y == k], rowvar=False, bias=True) for k in range(3)]
    )
    assert kkt_violation(model.precision_, covariances, 0.05, beta) < 1e-6
    # A perturbed solution violates them (the check has power).
    moved = model.precision_.copy()
    moved[:, 0, 0] += 0.01
    assert kkt_violation(moved, covariances, 0.05, beta) > 1e-3


def test_non_convergence_warns():
    data = make_joint_ggm(30, 6, n_classes=2, random_state=3)
    with pytest.warns(ConvergenceWarning, match="did not converge in 2"):
        GroupGraphicalLasso(max_iter=2).fit(data.X, data.y)
