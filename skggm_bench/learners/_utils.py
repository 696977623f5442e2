"""Input handling shared by the learners: validation and column standardisation."""

import numpy as np

from ..utils._validation import check_not_masked, warn_constant_columns

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _sk_validate_data
except ImportError:  # pragma: no cover - older scikit-learn
    _sk_validate_data = None

# A column whose standard deviation is below this fraction of its magnitude is
# numerically constant: dividing by it would only amplify rounding noise.
_CONSTANT_COLUMN_RTOL = 1e-12


def validate_samples(
    estimator, X, *, reset: bool = True, samples: bool = True
) -> np.ndarray:
    """Validate ``X`` for ``estimator.fit`` and record ``n_features_in_``.

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator being fitted (receives ``n_features_in_`` and, for
        dataframes, ``feature_names_in_``).
    X : array-like of shape (n_samples, n_features)
        The data. Sparse input, NaN, infinity and numpy masked arrays (whose
        mask would be ignored) are rejected with a clear error; in ``fit``
        (``reset=True``) a constant column gets a ``ConstantColumnWarning``
        naming it.
    reset : bool, default=True
        ``True`` in ``fit`` (records ``n_features_in_``, needs two samples);
        ``False`` in ``transform`` (checks ``X`` against what ``fit`` saw, accepts
        a single sample).
    samples : bool, default=True
        False when ``X`` is not samples but a precomputed covariance: then one
        row suffices and constant columns are not warned about.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        A validated copy-free view when possible.
    """
    params = {
        "dtype": np.float64,
        "ensure_min_samples": 2 if reset and samples else 1,
        "accept_sparse": False,
    }
    check_not_masked(X, "X")
    if _sk_validate_data is not None:
        X = _sk_validate_data(estimator, X, reset=reset, **params)
    else:  # pragma: no cover
        X = estimator._validate_data(X, reset=reset, **params)
    if reset and samples:
        warn_constant_columns(X)
    return X


def standardize_columns(X: np.ndarray, ddof: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Centre every column and divide it by its standard deviation.

    Constant columns are centred only (they become all-zero), so a variable
    without variation is simply disconnected instead of producing NaN.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data.
    ddof : int, default=0
        Delta degrees of freedom of the standard deviation (corpcor uses 1).

    Returns
    -------
    Z : ndarray of shape (n_samples, n_features)
        Standardised data (a new array; ``X`` is not modified).
    constant : ndarray of shape (n_features,), bool
        Which columns were numerically constant.
    """
    mean = X.mean(axis=0)
    Z = X - mean
    scale = np.sqrt((Z**2).sum(axis=0) / (X.shape[0] - ddof))
    constant = scale <= _CONSTANT_COLUMN_RTOL * np.maximum(np.abs(mean), 1.0)
    Z[:, constant] = 0.0
    Z[:, ~constant] /= scale[~constant]
    return Z, constant
