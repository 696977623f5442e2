"""Names -> classes -> estimators, for the study files of ``config.py``.

A generator is looked up by class name in :mod:`skggm_bench.generators`, a data
model in :mod:`skggm_bench.datasets`, a learner in :mod:`skggm_bench.learners`,
then :mod:`sklearn.covariance`, or by a dotted path; each is built once with its
parameters so that a typo fails when the study is read. Every error is a
:class:`ConfigError` naming the key at fault.
"""

from __future__ import annotations

import copy
import difflib
import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from sklearn.pipeline import Pipeline, make_pipeline

from .results._provenance import MissingSoftwareError, learner_versions

# Learner modules searched for a bare class name, in this order.
LEARNER_MODULES = ("skggm_bench.learners", "sklearn.covariance")


class ConfigError(ValueError):
    """A study configuration is invalid; the message names the key at fault.

    Examples
    --------
    >>> from skggm_bench.benchmark.config import ConfigError, parse_config
    >>> try:
    ...     parse_config({"generators": ["DiagonalDominance"], "learners": []})
    ... except ConfigError as error:
    ...     print(error)
    learners: the list is empty; give at least one learner
    """

    # Shown as skggm_bench.benchmark.config.ConfigError, where users import it.
    __module__ = "skggm_bench.benchmark.config"


def suggest(word: str, choices: Any) -> str:
    """`` (did you mean 'X'?)`` for the choice closest to ``word``, or nothing.

    Compared case-insensitively: ``Oas`` is one letter's case from ``OAS``, which
    difflib's ratio alone (0.33) would not call close.

    >>> suggest("Oas", ["OAS", "LedoitWolf"])
    " (did you mean 'OAS'?)"
    >>> suggest("graphicallaso", ["GraphicalLasso", "OAS"])
    " (did you mean 'GraphicalLasso'?)"
    """
    by_folded: dict[str, str] = {}
    for choice in map(str, choices):
        by_folded.setdefault(choice.casefold(), choice)
    close = difflib.get_close_matches(str(word).casefold(), list(by_folded), n=1)
    return f" (did you mean {by_folded[close[0]]!r}?)" if close else ""


def class_name(cls: type) -> str:
    module = cls.__module__
    if module.startswith(("skggm_bench.generators", "skggm_bench.datasets")) or any(
        module.startswith(m) for m in LEARNER_MODULES
    ):
        return cls.__name__
    return f"{module}.{cls.__qualname__}"


def optional_learners(
    entries: Any,
) -> tuple[dict[str, tuple[type, dict[str, Any]]], tuple[str, ...]]:
    """The learners, less the ``optional = true`` ones that cannot run here.

    A learner marked optional (e.g. one written in R) whose software is missing
    on this machine is left out of the study; the note says which and why, in
    one line. Any other problem of an optional learner is an error, as for the
    others.
    """
    if not isinstance(entries, Mapping):
        return parse_entries(entries, "learners"), ()
    optional = []
    plain = {}
    for name, spec in entries.items():
        if isinstance(spec, Mapping) and "optional" in spec:
            spec = dict(spec)
            flag = spec.pop("optional")
            if not isinstance(flag, bool):
                raise ConfigError(f"learners.{name}.optional: must be true or false")
            if flag:
                optional.append(str(name))
        plain[name] = spec
    parsed = parse_entries(plain, "learners")
    reasons: dict[str, list[str]] = {}
    for name in optional:
        cls, params = parsed[name]
        learner = build(cls, params, f"learners.{name}", resolve_learner)
        try:
            learner_versions(learner)
        except MissingSoftwareError as exc:
            del parsed[name]
            reasons.setdefault(str(exc), []).append(name)
    if not reasons:
        return parsed, ()
    left_out = "; ".join(
        f"{', '.join(names)} ({reason})" for reason, names in reasons.items()
    )
    return parsed, (f"left out, as they cannot run here: {left_out}",)


def parse_entries(entries: Any, key: str) -> dict[str, tuple[type, dict[str, Any]]]:
    what = {"data_models": "data model"}.get(key, key[:-1])
    if entries is None:
        raise ConfigError(f"{key}: missing; give at least one {what}")
    if isinstance(entries, (list, tuple)):
        if not entries:
            raise ConfigError(f"{key}: the list is empty; give at least one {what}")
        for i, entry in enumerate(entries):
            if not isinstance(entry, str):
                raise ConfigError(f"{key}[{i}]: must be a class name, got {entry!r}")
        if len(set(entries)) != len(entries):
            raise ConfigError(f"{key}: names are repeated in {list(entries)}")
        entries = {entry: {} for entry in entries}
    if not isinstance(entries, Mapping):
        raise ConfigError(f"{key}: must be a list of names or a table, got {entries!r}")
    if not entries:
        raise ConfigError(f"{key}: the table is empty; give at least one {what}")
    resolve = {
        "generators": resolve_generator,
        "learners": resolve_learner,
        "data_models": resolve_data_model,
    }[key]
    parsed = {}
    for name, spec in entries.items():
        where = f"{key}.{name}"
        if not isinstance(spec, Mapping):
            raise ConfigError(f"{where}: must be a table of parameters, got {spec!r}")
        params = dict(spec)
        class_name = params.pop("class", name)
        if not isinstance(class_name, str):
            raise ConfigError(
                f"{where}.class: must be a class name, got {class_name!r}"
            )
        cls = resolve(class_name, where)
        build(cls, params, where, resolve)
        parsed[str(name)] = (cls, params)
    return parsed


def _subclasses_in(module_name: str, base_name: str) -> dict[str, type]:
    """The public classes of a module that derive from its class ``base_name``."""
    module = importlib.import_module(module_name)
    base = getattr(module, base_name, None)
    return {
        name: obj
        for name, obj in vars(module).items()
        if inspect.isclass(obj)
        and not name.startswith("_")
        and (
            (base is not None and issubclass(obj, base) and obj is not base)
            or (base is None and hasattr(obj, "observe"))
        )
    }


def resolve_generator(name: str, where: str) -> type:
    # Any generator the package exports works, including new ones.
    known = _subclasses_in("skggm_bench.generators", "GraphicalModelGenerator")
    if name not in known:
        raise ConfigError(
            f"{where}: unknown generator {name!r}{suggest(name, known)}; available: "
            f"{', '.join(sorted(known))}"
        )
    return known[name]


def resolve_data_model(name: str, where: str) -> type:
    known = _subclasses_in("skggm_bench.datasets", "DataModel")
    if name not in known:
        raise ConfigError(
            f"{where}: unknown data model {name!r}{suggest(name, known)}; available: "
            f"{', '.join(sorted(known)) or 'none'}"
        )
    return known[name]


def generator_class(name: str, *, key: str = "generator") -> type:
    """The generator class exported by :mod:`skggm_bench.generators` under ``name``.

    Parameters
    ----------
    name : str
        A class name, e.g. ``"TriangulatedOrthogonalization"``.
    key : str, default="generator"
        What to call the value in an error message (a config key or an option).

    Returns
    -------
    type
        A subclass of :class:`~skggm_bench.generators.GraphicalModelGenerator`.

    Raises
    ------
    ConfigError
        If no such generator exists; the message lists the available ones.

    Examples
    --------
    >>> from skggm_bench.benchmark.config import generator_class
    >>> generator_class("DiagonalDominance").__name__
    'DiagonalDominance'
    """
    return resolve_generator(name, key)


def resolve_learner(name: str, where: str) -> type:
    if name == "Pipeline":
        result: type = Pipeline
        return result
    if "." in name:
        module_name, _, attribute = name.rpartition(".")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigError(
                f"{where}: cannot import {module_name!r}: {exc}"
            ) from None
        if not hasattr(module, attribute):
            public = [n for n in dir(module) if not n.startswith("_")]
            raise ConfigError(
                f"{where}: module {module_name!r} has no {attribute!r}"
                f"{suggest(attribute, public)}"
            )
        return _estimator_class(getattr(module, attribute), name, where)
    for module_name in LEARNER_MODULES:
        found = getattr(importlib.import_module(module_name), name, None)
        if found is not None:
            return _estimator_class(found, name, where)
    known = _learner_names()
    raise ConfigError(
        f"{where}: unknown learner {name!r}{suggest(name, known)}; available: "
        f"{', '.join(known)}, or a dotted path to a scikit-learn estimator"
    )


def _estimator_class(found: Any, name: str, where: str) -> type:
    """``found`` if it is an estimator class; otherwise what it lacks."""
    if not inspect.isclass(found):
        raise ConfigError(
            f"{where}: {name!r} is a {type(found).__name__}, not an estimator class; "
            "give the class of a scikit-learn estimator"
        )
    lacks = [m for m in ("get_params", "fit") if not callable(getattr(found, m, None))]
    if lacks:
        hint = (
            " (derive it from sklearn.base.BaseEstimator, which gives get_params "
            "and set_params)"
            if "get_params" in lacks
            else ""
        )
        raise ConfigError(
            f"{where}: {name!r} imports but is not a scikit-learn estimator: it "
            f"lacks {' and '.join(lacks)}{hint}"
        )
    return found


def _learner_names() -> list[str]:
    names = []
    for module_name in LEARNER_MODULES:
        module = importlib.import_module(module_name)
        names += [
            name
            for name in getattr(module, "__all__", ())
            if inspect.isclass(getattr(module, name))
            and hasattr(getattr(module, name), "fit")
        ]
    return sorted(set(names))


def build(
    cls: type,
    params: dict[str, Any],
    where: str,
    resolve: Callable[[str, str], type],
) -> Any:
    """Instantiate ``cls`` with ``params``: unknown names fail here, with a hint.

    A parameter given as a table with a ``class`` key is an estimator itself (e.g.
    the ``estimator`` of a model-selection learner, the ``data_model`` a missingness
    model wraps), built the same way. A ``Pipeline`` takes ``steps``, a list of such
    tables, and becomes ``make_pipeline(*steps)``. The values are checked by
    ``Benchmark.validate`` (with the estimators' own ``_parameter_constraints``
    where they have them).
    """
    if cls is Pipeline:
        steps = params.get("steps")
        if set(params) != {"steps"} or not isinstance(steps, list) or not steps:
            raise ConfigError(
                f"{where}: a Pipeline takes one key, steps = [{{class = ...}}, ...], "
                f"got {params!r}"
            )
        return make_pipeline(
            *(
                _nested(step, f"{where}.steps[{i}]", resolve)
                for i, step in enumerate(steps)
            )
        )
    # sklearn's own list of __init__ parameters; no instance needed.
    get_names = getattr(cls, "_get_param_names", None)
    accepted = (
        set(get_names())
        if callable(get_names)
        else set(inspect.signature(cls).parameters)
    )
    for key in params:
        if key not in accepted:
            raise ConfigError(
                f"{where}.{key}: {cls.__name__} has no parameter {key!r}"
                f"{suggest(key, accepted)}; its parameters: "
                f"{', '.join(sorted(accepted)) or 'none'}"
            )
    values = {
        key: (
            _nested(value, f"{where}.{key}", resolve)
            if isinstance(value, Mapping) and "class" in value
            else copy.deepcopy(value)
        )
        for key, value in params.items()
    }
    try:
        return cls(**values)
    except Exception as exc:
        required = _required_parameters(cls) - set(params)
        hint = (
            f"; {', '.join(map(repr, sorted(required)))} "
            f"{'has' if len(required) == 1 else 'have'} no default: give "
            f"{'it' if len(required) == 1 else 'them'} as keys of {where}"
            if required
            else ""
        )
        raise ConfigError(
            f"{where}: {cls.__name__}({params}) failed: {exc}{hint}"
        ) from None


def _required_parameters(cls: type) -> set[str]:
    """The constructor parameters of ``cls`` without a default."""
    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return set()
    return {
        p.name
        for p in parameters
        if p.default is inspect.Parameter.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }


def _nested(spec: Any, where: str, resolve: Callable[[str, str], type]) -> Any:
    if not isinstance(spec, Mapping) or not isinstance(spec.get("class"), str):
        raise ConfigError(f"{where}: must be a table with a class, got {spec!r}")
    params = dict(spec)
    cls = resolve(params.pop("class"), f"{where}.class")
    return build(cls, params, where, resolve)
