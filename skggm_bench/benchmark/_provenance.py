"""Where results come from: package versions, and the exact study fingerprint.

The fingerprint is what a store compares before it resumes a study: two studies that
can give different results must never share a store. Every configuration value is
therefore described by *what determines its behaviour*, recursively -- estimators
by their class and parameters, frozen scipy distributions by their name and
arguments, functions by their module, qualified name and a hash of their code (and
of the values they close over) -- and a value that cannot be described reliably is
refused with a clear message instead of being described by a ``repr`` that may hide
a difference.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import importlib
import importlib.metadata
import json
import math
import numbers
import platform
import types
from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import __version__

__all__ = [
    "JUDGING",
    "LEARNER_SIDE",
    "FingerprintError",
    "describe",
    "first_difference",
    "package_versions",
    "split_study",
]

_BASE_DISTRIBUTIONS = ("numpy", "scipy", "scikit-learn", "joblib", "networkx")
_KNOWN_DISTRIBUTIONS = {
    "sklearn": "scikit-learn",
    "numpy": "numpy",
    "scipy": "scipy",
}


@functools.cache
def _distributions_of_modules() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


def _distribution_version(root_module: str) -> tuple[str, str] | None:
    if root_module == "skggm_bench":
        return "skggm-bench", __version__
    names = (
        [_KNOWN_DISTRIBUTIONS[root_module]]
        if root_module in _KNOWN_DISTRIBUTIONS
        else _distributions_of_modules().get(root_module, [])
    )
    for name in names:
        try:
            return name, importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


@functools.cache
def package_versions(*modules: str) -> str:
    """JSON of the Python, core library and estimator package versions.

    Parameters
    ----------
    *modules : str
        Modules whose distributions to add (e.g. a learner's ``__module__``).

    Returns
    -------
    str
        A JSON object, keys sorted.
    """
    versions = {"python": platform.python_version(), "skggm-bench": __version__}
    for name in _BASE_DISTRIBUTIONS:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:  # pragma: no cover
            versions[name] = importlib.import_module(name).__version__
    for module in modules:
        found = _distribution_version(module.split(".")[0])
        if found is not None:
            versions[found[0]] = found[1]
    return json.dumps(versions, sort_keys=True)


class FingerprintError(TypeError):
    """A study value whose behaviour cannot be described reliably."""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _code_digest(code: types.CodeType) -> str:
    """A hash of a code object: its bytecode, constants (nested code too), names."""
    parts = [
        code.co_code,
        repr(code.co_names).encode(),
        repr(code.co_varnames).encode(),
    ]
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            parts.append(_code_digest(constant).encode())
        else:
            parts.append(repr(constant).encode())
    return _digest(b"\0".join(parts))


def _describe_function(function: Any, where: str) -> dict:
    description: dict[str, Any] = {
        "function": f"{getattr(function, '__module__', '?')}."
        f"{getattr(function, '__qualname__', getattr(function, '__name__', '?'))}"
    }
    code = getattr(function, "__code__", None)
    if code is not None:
        description["code"] = _code_digest(code)
        if function.__defaults__:
            description["defaults"] = describe(function.__defaults__, where)
        if function.__kwdefaults__:
            description["kwdefaults"] = describe(function.__kwdefaults__, where)
        if function.__closure__:
            description["closure"] = [
                describe(cell.cell_contents, f"{where} (a value it closes over)")
                for cell in function.__closure__
            ]
    return description


def describe(value: Any, where: str = "the study") -> Any:
    """A JSON-able description of ``value`` that determines its behaviour.

    Parameters
    ----------
    value : object
        A configuration value: plain values, arrays, mappings and sequences of
        them, estimators (anything with ``get_params``), frozen scipy
        distributions, functions, classes, enums, random states.
    where : str, default="the study"
        Where the value sits, for the error message.

    Returns
    -------
    object
        Nested dicts, lists, strings and numbers; equal for two values exactly
        when they behave alike (as far as their description shows).

    Raises
    ------
    FingerprintError
        For a value that cannot be described reliably (an arbitrary object whose
        only description would be its ``repr``).

    Examples
    --------
    >>> from scipy.stats import norm, uniform
    >>> describe(uniform(-1, 2)) == describe(norm(-1, 2))
    False
    >>> describe(lambda x: x + 1) == describe(lambda x: x + 2)
    False
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, enum.Enum):
        return {"enum": f"{type(value).__qualname__}.{value.name}"}
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, bytes):
        return {"bytes": _digest(value)}
    if isinstance(value, np.ndarray):
        return {
            "array": _digest(np.ascontiguousarray(value).tobytes()),
            "shape": list(value.shape),
            "dtype": str(value.dtype),
        }
    if isinstance(value, Mapping):
        return {
            str(key): describe(item, f"{where}[{key!r}]") for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [describe(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        return {"set": sorted(json.dumps(describe(item, where)) for item in value)}
    if isinstance(value, type):
        return {"class": f"{value.__module__}.{value.__qualname__}"}
    if isinstance(value, np.random.RandomState):
        return {"RandomState": _digest(repr(value.get_state()).encode())}
    if isinstance(value, np.random.Generator):
        return {"Generator": _digest(repr(value.bit_generator.state).encode())}
    if hasattr(value, "dist") and hasattr(value, "args") and hasattr(value, "kwds"):
        # A frozen scipy.stats distribution.
        return {
            "distribution": getattr(value.dist, "name", type(value.dist).__name__),
            "args": describe(list(value.args), f"{where}.args"),
            "kwds": describe(dict(value.kwds), f"{where}.kwds"),
        }
    if hasattr(value, "get_params") and callable(value.get_params):
        cls = type(value)
        return {
            "class": f"{cls.__module__}.{cls.__qualname__}",
            "params": describe(value.get_params(deep=False), f"{where}.params"),
        }
    if isinstance(value, functools.partial):
        return {
            "partial": describe(value.func, where),
            "args": describe(list(value.args), where),
            "keywords": describe(dict(value.keywords), where),
        }
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)):
        return _describe_function(value, where)
    raise FingerprintError(
        f"cannot fingerprint {where} = {value!r}: a store must know whether two "
        "studies can give different results, and an object of type "
        f"{type(value).__name__} can only be described by its repr. Use plain "
        "values, arrays, estimators (with get_params), frozen scipy.stats "
        "distributions or functions"
    )


#: The keys of a study fingerprint that describe its learners and how they were
#: judged; every other key (generators, graphs, data models, grid, seeds, seeding
#: scheme, model) describes its *data side*: the data sets every learner is given.
LEARNER_SIDE: tuple[str, ...] = ("learners", "metrics", "timeout", "memory_limit")
#: The keys of the learner side that are not learners: the conditions every
#: learner of one leaderboard must have been judged under.
JUDGING: tuple[str, ...] = ("metrics", "timeout", "memory_limit")


def split_study(study: Mapping[str, Any]) -> tuple[dict, dict]:
    """A study fingerprint's data side and learner side.

    Two studies with equal data sides draw the very same data sets (same seeds),
    whatever their learners: their results can share a leaderboard.

    Parameters
    ----------
    study : mapping
        A stored study fingerprint (``ResultStore.study()``).

    Returns
    -------
    data_side, learner_side : dict

    Examples
    --------
    >>> data, learners = split_study({"entropy": 1, "learners": {}, "metrics": []})
    >>> data, sorted(learners)
    ({'entropy': 1}, ['learners', 'metrics'])
    """
    data = {k: v for k, v in study.items() if k not in LEARNER_SIDE}
    learners = {k: v for k, v in study.items() if k in LEARNER_SIDE}
    return data, learners


def first_difference(a: Any, b: Any, where: str = "") -> str | None:
    """Where two JSON-like values first differ, and how; None if they are equal.

    Mappings are compared key by key in sorted order, sequences item by item.

    Examples
    --------
    >>> first_difference({"g": {"p": [1, 2]}}, {"g": {"p": [1, 3]}})
    'g.p[1]: 2 against 3'
    >>> first_difference({"a": 1}, {"a": 1}) is None
    True
    """
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in sorted(set(a) | set(b), key=str):
            here = f"{where}.{key}" if where else str(key)
            if key not in a or key not in b:
                side = "the first" if key in a else "the second"
                return f"{here}: only in {side}"
            found = first_difference(a[key], b[key], here)
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{where}[{index}]")
            if found is not None:
                return found
        return None
    if a == b:
        return None
    return f"{where or 'value'}: {_brief(a)} against {_brief(b)}"


def _brief(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
