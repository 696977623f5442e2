"""Where results come from: package versions, and the exact study fingerprint.

The fingerprint is what a store compares before it resumes a study: two studies that
can give different results must never share a store. Every configuration value is
therefore described by *what determines its behaviour*, recursively -- estimators
by their class and parameters, frozen scipy distributions by their name and
arguments, functions by their module, qualified name and a hash of their code (and
of the values they close over), other objects (e.g. the penalty object a skglm
estimator takes as a parameter) by their class and their own public state -- and a
value that cannot be described reliably (a cycle of objects) is refused with a
clear message instead of being described by a ``repr`` that may hide a difference.
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
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import numpy as np

from ... import __version__

__all__ = [
    "JUDGING",
    "LEARNER_SIDE",
    "FingerprintError",
    "MissingSoftwareError",
    "describe",
    "first_difference",
    "learner_modules",
    "learner_versions",
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
def _distributions_of_modules() -> Mapping[str, list[str]]:
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


def _classes_of(value: Any, found: dict[int, Any], seen: set[int]) -> None:
    """Every class whose code a value runs: its own, its parameters', nested."""
    if id(value) in seen or value is None or isinstance(value, (str, bytes)):
        return
    seen.add(id(value))
    if isinstance(value, Mapping):
        for item in value.values():
            _classes_of(item, found, seen)
        return
    if isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _classes_of(item, found, seen)
        return
    if isinstance(value, type):
        found[id(value)] = value
        return
    if isinstance(value, (types.FunctionType, functools.partial)):
        function = getattr(value, "func", value)
        module = getattr(function, "__module__", None)
        if module:
            found[id(function)] = function
        return
    cls = type(value)
    if cls.__module__ == "builtins" or isinstance(value, (np.ndarray, np.generic)):
        return
    found[id(cls)] = cls
    if hasattr(value, "get_params") and callable(value.get_params):
        try:
            params = value.get_params(deep=False)
        except Exception:  # an estimator that cannot list its parameters
            params = {}
        _classes_of(params, found, seen)
    else:
        _classes_of(_public_state(value), found, seen)


def learner_versions(learner: Any) -> str:
    """:func:`package_versions` of every package that defines a class in a learner.

    The learner's class and its bases, the classes of its parameters (the steps
    of a pipeline, the inner estimator of a search, a penalty object), nested to
    any depth, and the functions it holds.

    Parameters
    ----------
    learner : object
        An estimator.

    Returns
    -------
    str
        A JSON object, keys sorted.

    Examples
    --------
    >>> import json
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skggm_bench.learners import LassoNetwork
    >>> versions = json.loads(learner_versions(make_pipeline(StandardScaler(),
    ...                                                      LassoNetwork())))
    >>> "scikit-learn" in versions and "skggm-bench" in versions
    True
    """
    versions = package_versions(*learner_modules(learner))
    external = _external_versions(learner)
    if not external:
        return versions
    return json.dumps(json.loads(versions) | external, sort_keys=True)


class MissingSoftwareError(RuntimeError):
    """Software a learner runs outside Python (e.g. R or an R package) is missing.

    Raised by :func:`learner_versions` when a learner's ``__skggm_bench_versions__``
    raises; the message is the learner's (what is missing, how to install it).
    """


# A learner that runs software outside Python reports its versions with this
# method ({name: version}), and raises there when that software is missing.
_VERSIONS_HOOK = "__skggm_bench_versions__"


def _external_versions(learner: Any) -> dict[str, str]:
    """Versions reported by the learner and its nested estimators themselves."""
    params = learner.get_params(deep=True) if hasattr(learner, "get_params") else {}
    found: dict[str, str] = {}
    for value in (learner, *params.values()):
        hook = getattr(value, _VERSIONS_HOOK, None)
        if not callable(hook) or isinstance(value, type):
            continue
        try:
            found.update({str(k): str(v) for k, v in hook().items()})
        except Exception as exc:
            raise MissingSoftwareError(str(exc)) from exc
    return found


def learner_modules(learner: Any) -> tuple[str, ...]:
    """The modules that define the classes and functions of a learner, sorted.

    Parameters
    ----------
    learner : object
        An estimator.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> from sklearn.covariance import LedoitWolf
    >>> "sklearn.covariance._shrunk_covariance" in learner_modules(LedoitWolf())
    True
    """
    found: dict[int, Any] = {}
    _classes_of(learner, found, set())
    modules = set()
    for item in found.values():
        for cls in getattr(item, "__mro__", (item,)):
            module = getattr(cls, "__module__", None)
            if not module or module == "builtins":
                continue
            modules.add(module)
            if _distribution_version(module.split(".")[0]) is None:
                # Defined outside any installed package (a user's script or
                # notebook): the packages its methods call are its code too, e.g.
                # gglasso behind a short wrapper.
                modules.update(_modules_used(cls))
    return tuple(sorted(modules))


def _modules_used(cls: type) -> set[str]:
    """Modules of the global names the methods of ``cls`` refer to."""
    used = set()
    for attribute in vars(cls).values():
        function = getattr(attribute, "__func__", attribute)
        code = getattr(function, "__code__", None)
        if code is None:
            continue
        namespace = getattr(function, "__globals__", {})
        for name in code.co_names:
            value = namespace.get(name)
            if isinstance(value, types.ModuleType):
                used.add(value.__name__)
            elif value is not None and not isinstance(value, (int, float, str)):
                module = getattr(value, "__module__", None)
                if isinstance(module, str) and module != "builtins":
                    used.add(module)
    return used


def _public_state(value: Any) -> dict[str, Any]:
    """An object's own public attributes (``__dict__`` or ``__slots__``), by name."""
    state = getattr(value, "__dict__", None)
    if isinstance(state, Mapping):
        return {k: v for k, v in state.items() if not str(k).startswith("_")}
    slots = [
        name
        for cls in type(value).__mro__
        for name in getattr(cls, "__slots__", ())
        if not name.startswith("_")
    ]
    return {name: getattr(value, name) for name in slots if hasattr(value, name)}


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


def _describe_function(function: Any, where: str, depth: int) -> dict[str, Any]:
    description: dict[str, Any] = {
        "function": f"{getattr(function, '__module__', '?')}."
        f"{getattr(function, '__qualname__', getattr(function, '__name__', '?'))}"
    }
    code = getattr(function, "__code__", None)
    if code is not None:
        description["code"] = _code_digest(code)
        if function.__defaults__:
            description["defaults"] = describe(function.__defaults__, where, depth)
        if function.__kwdefaults__:
            description["kwdefaults"] = describe(function.__kwdefaults__, where, depth)
        if function.__closure__:
            description["closure"] = [
                describe(cell.cell_contents, f"{where} (a value it closes over)", depth)
                for cell in function.__closure__
            ]
    return description


# Objects nested deeper than this in a description are a cycle (or as good as one).
_MAX_DEPTH = 50


def describe(value: Any, where: str = "the study", _depth: int = 0) -> Any:
    """A JSON-able description of ``value`` that determines its behaviour.

    Parameters
    ----------
    value : object
        A configuration value: plain values, arrays, mappings and sequences of
        them, estimators (anything with ``get_params``), frozen scipy
        distributions, functions, classes, enums, random states, and any other
        object, by its class and its own public attributes (``__dict__`` or
        ``__slots__`` without the names that start with ``_``).
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
        For a value that cannot be described reliably (objects that refer to
        each other in a cycle).

    Examples
    --------
    >>> from scipy.stats import norm, uniform
    >>> describe(uniform(-1, 2)) == describe(norm(-1, 2))
    False
    >>> describe(lambda x: x + 1) == describe(lambda x: x + 2)
    False
    >>> class Penalty:
    ...     def __init__(self, alpha):
    ...         self.alpha = alpha
    >>> describe(Penalty(0.5))  # doctest: +ELLIPSIS
    {'object': 'skggm_bench.benchmark.results._provenance.Penalty', 'state': {...}}
    """
    if _depth > _MAX_DEPTH:
        raise FingerprintError(
            f"cannot fingerprint {where}: its objects refer to each other in a "
            f"cycle (or nest deeper than {_MAX_DEPTH} levels)"
        )
    depth = _depth + 1
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
            str(key): describe(item, f"{where}[{key!r}]", depth)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [describe(item, f"{where}[{i}]", depth) for i, item in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        items = (json.dumps(describe(item, where, depth)) for item in value)
        return {"set": sorted(items)}
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
            "args": describe(list(value.args), f"{where}.args", depth),
            "kwds": describe(dict(value.kwds), f"{where}.kwds", depth),
        }
    if hasattr(value, "get_params") and callable(value.get_params):
        cls = type(value)
        return {
            "class": f"{cls.__module__}.{cls.__qualname__}",
            "params": describe(value.get_params(deep=False), f"{where}.params", depth),
        }
    if isinstance(value, functools.partial):
        return {
            "partial": describe(value.func, where, depth),
            "args": describe(list(value.args), where, depth),
            "keywords": describe(dict(value.keywords), where, depth),
        }
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)):
        return _describe_function(value, where, depth)
    # Any other object (e.g. a penalty object passed as a parameter): its class
    # and its own public state determine its behaviour.
    cls = type(value)
    return {
        "object": f"{cls.__module__}.{cls.__qualname__}",
        "state": describe(_public_state(value), f"{where}.state", depth),
    }


#: The keys of a study fingerprint that describe its learners and how they were
#: judged; every other key (generators, graphs, data models, grid, seeds, seeding
#: scheme, model) describes its *data side*: the data sets every learner is given.
LEARNER_SIDE: tuple[str, ...] = ("learners", "metrics", "timeout", "memory_limit")
#: The keys of the learner side that are not learners: the conditions every
#: learner of one leaderboard must have been judged under.
JUDGING: tuple[str, ...] = ("metrics", "timeout", "memory_limit")


def split_study(study: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
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


def versions_seen(texts: Iterable[Any]) -> dict[str, list[str]]:
    """Every version of each package recorded in rows' ``versions`` (JSON objects).

    Several versions of one package mean that the rows were computed by different
    runs; a text that is not a JSON object is skipped.

    Examples
    --------
    >>> versions_seen(['{"numpy": "2.0"}', '{"numpy": "2.1"}', None, "damaged"])
    {'numpy': ['2.0', '2.1']}
    """
    seen: dict[str, set[str]] = {}
    for text in dict.fromkeys(t for t in texts if isinstance(t, str)):
        try:
            versions = json.loads(text)
        except ValueError:
            continue
        if isinstance(versions, Mapping):
            for package, version in versions.items():
                seen.setdefault(str(package), set()).add(str(version))
    return {package: sorted(found) for package, found in sorted(seen.items())}


class StudyConflict(NamedTuple):
    """Why the rows of two studies cannot share one leaderboard.

    ``kind`` is ``"data"`` (they draw other data sets), ``"judging"`` (other
    metrics, timeout or memory limit) or ``"learner"`` (a learner both name is not
    the same estimator, then named in ``learner``); ``difference`` says where the
    two first differ (:func:`first_difference`).
    """

    kind: str
    difference: str
    learner: str | None = None


def study_conflict(a: Mapping[str, Any], b: Mapping[str, Any]) -> StudyConflict | None:
    """The first reason the rows of two studies cannot be ranked together, or None.

    What ``merge`` and ``run --against`` both check: equal data sides, equal
    judging, and the same estimator under each learner name they share.

    Examples
    --------
    >>> a = {"entropy": 1, "learners": {"x": 1}, "metrics": ["f1"]}
    >>> study_conflict(a, {**a, "learners": {"y": 2}}) is None
    True
    >>> study_conflict(a, {**a, "entropy": 2})
    StudyConflict(kind='data', difference='entropy: 1 against 2', learner=None)
    >>> study_conflict(a, {**a, "learners": {"x": 3}}).kind
    'learner'
    """
    (data_a, side_a), (data_b, side_b) = split_study(a), split_study(b)
    difference = first_difference(data_a, data_b)
    if difference is not None:
        return StudyConflict("data", difference)
    for key in JUDGING:
        difference = first_difference(side_a.get(key), side_b.get(key), key)
        if difference is not None:
            return StudyConflict("judging", difference)
    learners = side_a.get("learners", {})
    for name, description in side_b.get("learners", {}).items():
        if name in learners and learners[name] != description:
            where = f"learners.{name}"
            difference = first_difference(learners[name], description, where)
            return StudyConflict("learner", str(difference), name)
    return None


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
