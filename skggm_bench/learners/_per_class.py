"""A per-class baseline for learners of related models: one fit per class or time."""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, clone
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.validation import check_is_fitted, validate_data

from ..metrics import edges_from_estimator, fitted_learner, precision_from_estimator
from ..utils._validation import Interval

__all__ = ["PerClass"]


def _label(label: Any) -> str:
    """A class label as the user wrote it (``1``, not ``np.int64(1)``)."""
    return repr(label.item() if isinstance(label, np.generic) else label)


def _fit_one(estimator: Any, X: np.ndarray, label: Any) -> Any:
    try:
        return clone(estimator).fit(X)
    except Exception as exc:
        # Which class failed matters more than the inner traceback's last frame;
        # the error keeps its type (when its constructor takes a message).
        message = f"fitting class {_label(label)} ({len(X)} rows): {exc}"
        try:
            error = type(exc)(message)
        except Exception:
            raise exc from None
        raise error from exc


class PerClass(BaseEstimator):
    """Fit any single-graph learner separately on each class (or time point).

    The baseline of joint and time-varying estimation: ``fit(X, y)`` fits a clone
    of ``estimator`` on the rows of each class ``y == c`` and stacks what they
    learnt, following the protocol of learners of related models
    (:func:`skggm_bench.metrics.group_scores`): ``precision_`` and ``adjacency_``
    of shape (K, p, p), classes in the order of ``classes_`` (sorted, as
    :func:`numpy.unique` gives them). Any learner of skggm-bench or scikit-learn
    (``GraphicalLasso``, ``LedoitWolf``, a pipeline, a penalty search, ...) thus has
    a per-class baseline.

    Parameters
    ----------
    estimator : estimator
        The single-graph learner (``fit(X)``), cloned for each class.
    n_jobs : int or None, default=None
        Classes fitted in parallel (joblib); the result does not depend on it.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
        The class labels.
    estimators_ : list of K fitted estimators
        One clone of ``estimator`` per class.
    adjacency_ : ndarray of shape (K, p, p), dtype bool
        Each class's estimated graph, read from its fit by the estimator protocol
        (its ``adjacency_``, else the non-zero partial correlations of its
        ``precision_``).
    precision_ : ndarray of shape (K, p, p)
        Each class's ``precision_``; only when every fit has one.
    covariance_ : ndarray of shape (K, p, p)
        Each class's ``covariance_``; only when every fit has one.
    n_features_in_ : int
        Number of variables.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import GraphicalLasso
    >>> from skggm_bench.learners import PerClass
    >>> rng = np.random.RandomState(0)
    >>> X, y = rng.standard_normal((60, 4)), np.repeat([0, 1, 2], 20)
    >>> model = PerClass(GraphicalLasso(alpha=0.2)).fit(X, y)
    >>> model.precision_.shape, model.classes_.tolist()
    ((3, 4, 4), [0, 1, 2])
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"])],
        "n_jobs": [Interval(Integral, None, None, closed="neither"), None],
    }

    def __init__(self, estimator: Any, *, n_jobs: int | None = None) -> None:
        self.estimator = estimator
        self.n_jobs = n_jobs

    def fit(self, X: Any, y: Any) -> PerClass:
        """Fit one clone of ``estimator`` per class.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
            The data.
        y : array-like of shape (n_samples,)
            The class (or time point) of each row.

        Returns
        -------
        self : PerClass
            The fitted baseline.
        """
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        self.classes_, counts = np.unique(y, return_counts=True)
        if counts.min() < 2:
            label = self.classes_[np.argmin(counts)]
            raise ValueError(
                f"class {_label(label)} has 1 sample; every class needs at least "
                "2 rows to estimate its graph"
            )
        self.estimators_ = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_one)(self.estimator, X[y == label], label)
            for label in self.classes_
        )
        self.adjacency_ = np.stack([edges_from_estimator(e) for e in self.estimators_])
        for name, read in (
            ("precision_", precision_from_estimator),
            ("covariance_", _covariance),
        ):
            if all(_has(e, name) for e in self.estimators_):
                setattr(self, name, np.stack([read(e) for e in self.estimators_]))
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


def _has(estimator: Any, name: str) -> bool:
    learner, _ = fitted_learner(estimator)
    return getattr(learner, name, None) is not None


def _covariance(estimator: Any) -> np.ndarray:
    learner, _ = fitted_learner(estimator)
    check_is_fitted(learner)
    return np.asarray(learner.covariance_, dtype=np.float64)
