"""Argument and data checks shared by the generators, data sets, graphs and learners.

scikit-learn's parameter constraints take ``True`` for a number (``bool`` is a
subclass of ``int``): ``Interval(Integral, 1, None)`` accepts ``n_repeats=True``
and the ``"random_state"`` constraint accepts ``random_state=True``. A boolean
where a number is meant is almost always a mistake (a flag passed to the wrong
parameter), so this package's constraints refuse it: :class:`Interval` and
:data:`RANDOM_STATE` replace scikit-learn's in every ``_parameter_constraints``
and ``validate_params`` declaration, and :func:`check_random_state` replaces
scikit-learn's in functions that check their seed themselves (the graph
families). The data checks (:func:`check_not_masked`,
:func:`warn_constant_columns`) are shared by the learners and the harness.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from numbers import Integral
from typing import Any, TypeVar

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils import check_random_state as _sklearn_check_random_state
from sklearn.utils._param_validation import Interval as _SklearnInterval
from sklearn.utils._param_validation import (
    validate_params as _sklearn_validate_params,
)

__all__ = [
    "RANDOM_STATE",
    "ConstantColumnWarning",
    "Interval",
    "check_not_masked",
    "check_random_state",
    "constant_columns",
    "constant_columns_message",
    "fit_context",
    "is_boolean",
    "validate_params",
    "warn_constant_columns",
]

_Function = TypeVar("_Function", bound=Callable[..., Any])


def is_boolean(value: Any) -> bool:
    """Whether ``value`` is a Python or numpy boolean."""
    return isinstance(value, (bool, np.bool_))


class Interval(_SklearnInterval):
    """scikit-learn's ``Interval`` constraint, refusing booleans.

    Examples
    --------
    >>> from numbers import Integral
    >>> from skggm_bench.utils._validation import Interval
    >>> positive = Interval(Integral, 1, None, closed="left")
    >>> positive.is_satisfied_by(3), positive.is_satisfied_by(True)
    (True, False)
    """

    def is_satisfied_by(self, val: Any) -> bool:
        return not is_boolean(val) and super().is_satisfied_by(val)


#: The constraint of a ``random_state`` parameter: scikit-learn's ``"random_state"``
#: (a seed in [0, 2**32 - 1], a RandomState or None) without booleans.
RANDOM_STATE: list[object] = [
    Interval(Integral, 0, 2**32 - 1, closed="both"),
    np.random.RandomState,
    None,
]


def check_random_state(seed: Any, name: str = "random_state") -> np.random.RandomState:
    """:func:`sklearn.utils.check_random_state`, refusing booleans.

    Raises
    ------
    TypeError
        If ``seed`` is a boolean.

    Examples
    --------
    >>> from skggm_bench.utils._validation import check_random_state
    >>> check_random_state(True)
    Traceback (most recent call last):
    ...
    TypeError: random_state must be None, an int seed or a numpy RandomState, got True
    """
    if is_boolean(seed):
        raise TypeError(
            f"{name} must be None, an int seed or a numpy RandomState, got {seed!r}"
        )
    state: np.random.RandomState = _sklearn_check_random_state(seed)
    return state


# scikit-learn ships no type information, so its decorators read as untyped and
# would erase the signature of every function they decorate for the type checker.
# These two forward to scikit-learn's and say that the decorated function keeps its
# signature (which functools.wraps inside them preserves at run time).
def validate_params(
    parameter_constraints: dict[str, list[object]],
    *,
    prefer_skip_nested_validation: bool,
) -> Callable[[_Function], _Function]:
    """:func:`sklearn.utils._param_validation.validate_params`, typed.

    Examples
    --------
    >>> from numbers import Integral
    >>> from skggm_bench.utils._validation import Interval, validate_params
    >>> @validate_params(
    ...     {"n": [Interval(Integral, 1, None, closed="left")]},
    ...     prefer_skip_nested_validation=True,
    ... )
    ... def twice(n: int) -> int:
    ...     return 2 * n
    >>> twice(2)
    4
    """
    decorator: Callable[[_Function], _Function] = _sklearn_validate_params(
        parameter_constraints,
        prefer_skip_nested_validation=prefer_skip_nested_validation,
    )
    return decorator


def fit_context(
    *, prefer_skip_nested_validation: bool
) -> Callable[[_Function], _Function]:
    """:func:`sklearn.base._fit_context`, typed: validates parameters on ``fit``.

    Examples
    --------
    >>> from numbers import Real
    >>> from sklearn.base import BaseEstimator
    >>> from skggm_bench.utils._validation import Interval, fit_context
    >>> class Shift(BaseEstimator):
    ...     _parameter_constraints = {"alpha": [Interval(Real, 0, None, closed="left")]}
    ...     def __init__(self, alpha=1.0):
    ...         self.alpha = alpha
    ...     @fit_context(prefer_skip_nested_validation=True)
    ...     def fit(self, X=None):
    ...         return self
    >>> try:
    ...     Shift(alpha=-1.0).fit()
    ... except ValueError as exc:
    ...     print(type(exc).__name__)
    InvalidParameterError
    """
    decorator: Callable[[_Function], _Function] = _fit_context(
        prefer_skip_nested_validation=prefer_skip_nested_validation
    )
    return decorator


def check_not_masked(value: Any, name: str) -> None:
    """Refuse a numpy masked array: numpy would silently drop its mask.

    Raises
    ------
    TypeError
        If ``value`` is a ``numpy.ma.MaskedArray``.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.utils._validation import check_not_masked
    >>> check_not_masked(np.ma.masked_array([[1.0]], mask=[[True]]), "X")
    Traceback (most recent call last):
    ...
    TypeError: X is a numpy masked array, whose mask would be ignored; pass a plain \
array: .filled(np.nan) marks the masked entries as missing values, .data keeps them
    """
    if np.ma.isMaskedArray(value):
        raise TypeError(
            f"{name} is a numpy masked array, whose mask would be ignored; pass a "
            "plain array: .filled(np.nan) marks the masked entries as missing "
            "values, .data keeps them"
        )


class ConstantColumnWarning(UserWarning):
    """A column of the data has a single value: its variable carries no signal.

    Raised by this package's learners when they are fitted on such data (public as
    ``skggm_bench.learners.ConstantColumnWarning``, to filter it by class); the
    harness names such columns in the ``message`` of the row instead.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skggm_bench.learners import ConstantColumnWarning, LassoNetwork
    >>> X = np.random.default_rng(0).standard_normal((30, 3))
    >>> X[:, 1] = 2.0
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = LassoNetwork().fit(X)
    >>> any(issubclass(w.category, ConstantColumnWarning) for w in caught)
    True
    """


def constant_columns(X: np.ndarray) -> np.ndarray:
    """Indices of the columns of a 2-D array whose non-NaN values are all equal.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.utils._validation import constant_columns
    >>> constant_columns(np.array([[1.0, 2.0, 5.0], [1.0, 3.0, 5.0]]))
    array([0, 2])
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] < 2 or X.dtype.kind not in "biuf":
        return np.empty(0, dtype=int)
    # fmin/fmax skip NaN, and give NaN (unequal to itself) for an all-NaN column
    # without the warning of nanmin: two C reductions, which the harness runs in
    # every fit's fresh process (the Python of nanmin and of catching its warning
    # costs a fresh process some 70 copy-on-write faults).
    low, high = np.fmin.reduce(X, axis=0), np.fmax.reduce(X, axis=0)
    return np.flatnonzero(low == high)


def constant_columns_message(columns: np.ndarray, name: str = "X") -> str:
    """The sentence that names the constant columns (at most 10 listed).

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.utils._validation import constant_columns_message
    >>> constant_columns_message(np.array([3]))
    'column 3 of X is constant: a variable without variation carries no \
information about the graph'
    """
    listed = ", ".join(str(int(c)) for c in columns[:10])
    if columns.size > 10:
        listed += f", ... ({columns.size} in all)"
    which = (
        f"column {listed} of {name} is"
        if columns.size == 1
        else (f"columns {listed} of {name} are")
    )
    return (
        f"{which} constant: a variable without variation carries no information "
        "about the graph"
    )


def warn_constant_columns(X: np.ndarray, name: str = "X") -> np.ndarray:
    """Warn (:class:`ConstantColumnWarning`) naming the constant columns of ``X``.

    Returns
    -------
    columns : ndarray of int
        The constant columns (empty when there are none).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skggm_bench.utils._validation import warn_constant_columns
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = warn_constant_columns(np.array([[1.0, 2.0], [1.0, 3.0]]))
    >>> str(caught[0].message).split(":")[0]
    'column 0 of X is constant'
    """
    columns = constant_columns(X)
    if columns.size:
        warnings.warn(
            constant_columns_message(columns, name), ConstantColumnWarning, stacklevel=3
        )
    return columns
