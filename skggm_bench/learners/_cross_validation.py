"""K-fold splits and the rules that pick a penalty from cross-validation errors."""

from numbers import Integral

import numpy as np
from sklearn.model_selection import KFold, check_cv


def make_folds(cv, n_samples: int, random_state) -> list[tuple[np.ndarray, np.ndarray]]:
    """Train/test index pairs for ``cv`` (an int or a scikit-learn splitter).

    An integer gives shuffled :class:`~sklearn.model_selection.KFold` splits, as
    parcor assigns samples to folds at random; ``random_state`` fixes the draw.
    """
    if isinstance(cv, Integral):
        if cv > n_samples:
            raise ValueError(
                f"cv={cv} folds need at least {cv} samples, got n_samples={n_samples}."
            )
        splitter = KFold(n_splits=int(cv), shuffle=True, random_state=random_state)
    else:
        splitter = check_cv(cv)
    folds = list(splitter.split(np.zeros((n_samples, 1))))
    if any(len(train) < 2 for train, _ in folds):
        raise ValueError(
            "Every cross-validation training set needs at least 2 samples."
        )
    return folds


def select_penalty(cv_errors: np.ndarray, rule: str) -> np.ndarray:
    """Index of the chosen penalty for each node.

    Parameters
    ----------
    cv_errors : ndarray of shape (n_nodes, n_folds, n_penalties)
        Test mean squared error of every fold; penalties are ordered from the
        strongest (sparsest, simplest) model to the weakest.
    rule : {"cv_min", "cv_1se"}
        ``"cv_min"`` takes the minimum of the fold-averaged error.
        ``"cv_1se"`` takes the simplest model whose averaged error is within one
        standard error of that minimum (the standard error is the standard
        deviation over folds divided by the square root of the number of folds).

    Returns
    -------
    index : ndarray of shape (n_nodes,), int
    """
    mean = cv_errors.mean(axis=1)
    best = np.argmin(mean, axis=1)
    if rule == "cv_min":
        return best
    n_folds = cv_errors.shape[1]
    rows = np.arange(cv_errors.shape[0])
    spread = cv_errors.std(axis=1, ddof=1) if n_folds > 1 else np.zeros_like(mean)
    bound = mean[rows, best] + spread[rows, best] / np.sqrt(n_folds)
    # First (simplest) penalty whose error is within the bound; the minimum
    # itself always qualifies, so argmax finds a True.
    return np.argmax(mean <= bound[:, None], axis=1)
