"""The group graphical lasso (Danaher, Wang & Witten 2014), solved by ADMM."""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import validate_data

from ..utils._validation import Interval

__all__ = ["GroupGraphicalLasso"]


def _group_shrink(stacked: np.ndarray, lasso: float, group: float) -> np.ndarray:
    """The proximal map of the GGL penalty on the off-diagonal entries.

    Elementwise soft-thresholding by ``lasso``, then each pair's vector across
    the groups shrunk towards zero by ``group`` in Euclidean norm (the prox of the
    sum of the two penalties is this composition, Danaher et al., Lemma 3).
    """
    soft = np.sign(stacked) * np.maximum(np.abs(stacked) - lasso, 0.0)
    norms = np.sqrt((soft**2).sum(axis=0))
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(norms > group, 1.0 - group / norms, 0.0)
    shrunk = soft * factor
    index = np.arange(stacked.shape[1])
    shrunk[:, index, index] = stacked[:, index, index]
    return shrunk


class GroupGraphicalLasso(BaseEstimator):
    """Joint estimation of K precision matrices with shared sparsity (GGL).

    Minimises, over positive definite ``Theta_1 .. Theta_K``,

    ``sum_k (tr(S_k Theta_k) - log det Theta_k)
    + alpha sum_k sum_{i != j} |theta_kij|
    + beta sum_{i != j} sqrt(sum_k theta_kij^2)``

    with ``S_k`` the (biased) sample covariance of class ``k``: the group lasso
    term pulls the classes towards a common graph (Danaher, Wang & Witten 2014,
    the group graphical lasso; the formulation of gglasso's ``GGL``, unweighted
    by class sizes, so ``alpha`` is on the scale of scikit-learn's
    ``GraphicalLasso``). With ``beta=0`` it is K separate graphical lassos.
    Solved by ADMM (Boyd et al. 2011): an eigendecomposition per class and step
    for the likelihood, the closed-form prox of the penalty for the split
    variable, whose exact zeros give ``precision_``.

    Parameters
    ----------
    alpha : float, default=0.05
        The lasso penalty of each entry.
    beta : float, default=0.05
        The group penalty of each pair across classes.
    rho : float, default=1.0
        ADMM step parameter.
    max_iter : int, default=500
        Maximum number of ADMM iterations.
    tol : float, default=1e-5
        Stop when the primal and dual residuals (Frobenius, relative to the
        size of the iterates) are both below ``tol``.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
        The class labels, sorted.
    precision_ : ndarray of shape (K, p, p)
        The estimated precisions (exact zeros at non-edges).
    covariance_ : ndarray of shape (K, p, p)
        Their inverses.
    n_iter_ : int
        ADMM iterations run.
    n_features_in_ : int
        Number of variables.

    Examples
    --------
    >>> from skggm_bench.datasets import make_joint_ggm
    >>> from skggm_bench.learners import GroupGraphicalLasso
    >>> data = make_joint_ggm(100, 8, n_classes=2, random_state=0)
    >>> model = GroupGraphicalLasso(alpha=0.05, beta=0.05).fit(data.X, data.y)
    >>> model.precision_.shape
    (2, 8, 8)
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "beta": [Interval(Real, 0, None, closed="left")],
        "rho": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        alpha: float = 0.05,
        beta: float = 0.05,
        *,
        rho: float = 1.0,
        max_iter: int = 500,
        tol: float = 1e-5,
    ) -> None:
        self.alpha = alpha
        self.beta = beta
        self.rho = rho
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X: Any, y: Any) -> GroupGraphicalLasso:
        """Estimate one precision per class.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
            The data.
        y : array-like of shape (n_samples,)
            The class of each row.

        Returns
        -------
        self : GroupGraphicalLasso
            The fitted estimator.
        """
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        self.classes_, counts = np.unique(y, return_counts=True)
        if counts.min() < 2:
            raise ValueError("every class needs at least 2 rows; a class has 1 sample")
        covariances = np.stack(
            [np.cov(X[y == label], rowvar=False, bias=True) for label in self.classes_]
        )
        covariances = covariances.reshape(len(self.classes_), X.shape[1], X.shape[1])
        self.precision_, self.n_iter_ = self._admm(covariances)
        self.covariance_ = np.linalg.inv(self.precision_)
        return self

    def _admm(self, covariances: np.ndarray) -> tuple[np.ndarray, int]:
        rho = self.rho
        p = covariances.shape[1]
        # Start from the (ridged) inverses of the sample covariances.
        z = np.linalg.inv(covariances + 1e-2 * np.eye(p))
        u = np.zeros_like(z)
        n_iter = 0
        while n_iter < self.max_iter:
            n_iter += 1
            eigenvalues, vectors = np.linalg.eigh(rho * (z - u) - covariances)
            roots = (eigenvalues + np.sqrt(eigenvalues**2 + 4 * rho)) / (2 * rho)
            theta = (vectors * roots[:, None, :]) @ np.swapaxes(vectors, 1, 2)
            z_old = z
            z = _group_shrink(theta + u, self.alpha / rho, self.beta / rho)
            u += theta - z
            primal = np.linalg.norm(theta - z)
            dual = rho * np.linalg.norm(z - z_old)
            scale = max(np.linalg.norm(theta), np.linalg.norm(z), 1.0)
            if primal <= self.tol * scale and dual <= self.tol * scale:
                break
        else:
            warnings.warn(
                f"GroupGraphicalLasso did not converge in {self.max_iter} "
                f"iterations (primal residual {primal:.2g}, dual {dual:.2g})",
                ConvergenceWarning,
                stacklevel=3,
            )
        return 0.5 * (z + np.swapaxes(z, 1, 2)), n_iter

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
