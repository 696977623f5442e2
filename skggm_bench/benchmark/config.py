"""Benchmark studies as data: built-in presets and TOML configuration files.

A *study* is everything :class:`~skggm_bench.benchmark.Benchmark` needs: the
generators, the learners and the grid. It can come from a named preset
(:data:`PRESETS`, e.g. ``skggm-bench run --preset kramer2009``) or from a TOML file
(``skggm-bench run --config study.toml``); both go through the same validation, which
names the offending key in every error (:class:`ConfigError`).

A configuration file looks like this (only the generators and the learners are
required; an omitted grid key takes ``Benchmark``'s default, except ``densities``,
which then means the graph family's own default density)::

    graph = "erdos_renyi"          # a family of skggm_bench.datasets.GRAPH_FAMILIES
    n_features = 30                # or a list
    densities = [0.05, 0.25]       # edge densities in [0, 1]; omit for the
                                   # family's default (chain, lattice, ...)
    n_samples = [50, 100, 200]
    n_repeats = 4
    model = "concentration"        # or "covariance"
    metrics = ["tpr", "ppv", "f1"]
    random_state = 0               # the whole study follows from this seed
    timeout = 300                  # seconds per fit

    [graph_params]                 # extra parameters of the graph family (optional)

    [generators]                   # name = {} uses the class of that name
    DiagonalDominance = {}
    TriangulatedOrthogonalization = { triangulation = "min_degree" }

    [learners.lasso]               # a learner named "lasso"
    class = "LassoNetwork"         # the class; the other keys are its parameters
    cv = 5

    [learners.glasso]
    class = "GraphicalLassoCV"

    [run]                          # optional defaults for the command line
    n_jobs = 2
    backend = "loky"

Generators are looked up by class name in :mod:`skggm_bench.generators`, so any
sampler exported there works without changing this module. Learners are looked up in
:mod:`skggm_bench.learners`, then :mod:`sklearn.covariance`; a dotted path
(``"mypackage.module.MyEstimator"``) imports any other scikit-learn estimator.
``generators`` and ``learners`` may also be plain lists of class names.

Names are resolved, and every estimator is built once with its parameters, when the
configuration is parsed, so a typo fails at once and not an hour into a run.
TOML needs Python 3.11+ (:mod:`tomllib`) or the ``tomli`` package on 3.10.
"""

from __future__ import annotations

import copy
import difflib
import importlib
import inspect
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# DEFAULT_METRICS is the harness's own list, so presets and Benchmark cannot drift.
from ._benchmark import DEFAULT_METRICS, Benchmark

__all__ = [
    "DEFAULT_METRICS",
    "PRESETS",
    "BenchmarkConfig",
    "ConfigError",
    "generator_class",
    "get_preset",
    "load_config",
    "parse_config",
]

_MODELS = ("concentration", "covariance")
_BACKENDS = ("loky", "threading", "multiprocessing", "dask", "ray")
_GRID_KEYS = (
    "graph",
    "graph_params",
    "n_features",
    "densities",
    "n_samples",
    "n_repeats",
    "model",
    "metrics",
    "random_state",
    "timeout",
)
_TOP_LEVEL_KEYS = (*_GRID_KEYS, "generators", "learners", "run", "description")
_RUN_KEYS = ("store", "n_jobs", "backend", "scheduler")
# Learner modules searched for a bare class name, in this order.
_LEARNER_MODULES = ("skggm_bench.learners", "sklearn.covariance")

# The learners of Krämer, Schäfer & Boulesteix (2009) under the paper's names. The
# classes are named, not imported: they are resolved when a preset is used. The
# presets re-rank the published methods, so the local-fdr learners keep the null
# cutoff of GeneNet/fdrtool ("fndr") rather than our more accurate default.
_PUBLISHED_LFDR = {"lfdr_cutoff_method": "fndr"}
_KRAMER_LEARNERS: dict[str, dict[str, Any]] = {
    "shrink": {"class": "ShrinkagePartialCorrelation", **_PUBLISHED_LFDR},
    "lasso": {"class": "LassoNetwork"},
    "adalasso": {"class": "AdaptiveLassoNetwork"},
    "ridge": {"class": "RidgeNetwork", **_PUBLISHED_LFDR},
    "pls": {"class": "PLSNetwork", **_PUBLISHED_LFDR},
}

#: Built-in studies, in the configuration-file schema (see the module docstring).
PRESETS: dict[str, dict[str, Any]] = {
    # Sized to finish in about 2 minutes on 2 cores (83 s of CPU time in all,
    # measured; see docs/cli.md) while still showing the paper's point: at density
    # 0.25, under diagonal dominance the graphical lasso ranks first on F1 and PLS
    # last; under triangulated orthogonalization the graphical lasso drops to 5th
    # and PLS rises to 3rd, with paired bootstrap intervals of the rank change that
    # exclude 0. p=30 keeps the lasso-type fits near 1 s; 4 repeats already separate
    # that shift; the graphical lasso uses a lighter CV (3 folds, 2 refinements)
    # because with the defaults it dominated the run time.
    "quick": {
        "description": "A 2-minute study: diagonal dominance vs triangulated "
        "orthogonalization, the Krämer learners and the graphical lasso, p=30.",
        "graph": "erdos_renyi",
        "n_features": 30,
        "densities": [0.05, 0.25],
        "n_samples": [50, 100, 200],
        "n_repeats": 4,
        "model": "concentration",
        "metrics": list(DEFAULT_METRICS),
        "random_state": 0,
        "generators": ["DiagonalDominance", "TriangulatedOrthogonalization"],
        "learners": {
            **_KRAMER_LEARNERS,
            "glasso": {"class": "GraphicalLassoCV", "cv": 3, "n_refinements": 2},
        },
    },
    # The design of Krämer et al. (2009) as replicated in the paper (figures 7, 8).
    "kramer2009": {
        "description": "Krämer, Schäfer & Boulesteix (2009) as in the paper: p=100, "
        "n=25..200, five densities, 20 repeats, three generators.",
        "graph": "erdos_renyi",
        "n_features": 100,
        "densities": [0.05, 0.10, 0.15, 0.20, 0.25],
        "n_samples": [25, 50, 75, 100, 125, 150, 175, 200],
        "n_repeats": 20,
        "model": "concentration",
        "metrics": list(DEFAULT_METRICS),
        "random_state": 0,
        "generators": [
            "DiagonalDominance",
            "PartialOrthogonalization",
            "TriangulatedOrthogonalization",
        ],
        "learners": {**_KRAMER_LEARNERS, "glasso": {"class": "GraphicalLassoCV"}},
    },
}


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


# --------------------------------------------------------------------------------------
# The parsed configuration
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchmarkConfig:
    """A validated study: generator and learner specifications plus the grid.

    Build one with :func:`parse_config`, :func:`load_config` or :func:`get_preset`
    rather than directly. Estimators are stored as ``(class, parameters)`` pairs and
    instantiated afresh by :meth:`make_generators` / :meth:`make_learners`.

    Attributes
    ----------
    name : str
        The preset name or the configuration file's stem (used to name the store).
    generators, learners : dict
        ``{display name: (class, parameters)}``.
    grid : dict
        Keyword arguments of ``Benchmark`` (``graph``, ``densities``, ...).
    run : dict
        Execution defaults from the ``[run]`` table (``store``, ``n_jobs``,
        ``backend``, ``scheduler``).
    description : str
        Free text.

    Examples
    --------
    >>> from skggm_bench.benchmark.config import get_preset
    >>> config = get_preset("quick")
    >>> sorted(config.generators)
    ['DiagonalDominance', 'TriangulatedOrthogonalization']
    >>> config.n_tasks
    288
    >>> type(config.make_learners()["glasso"]).__name__
    'GraphicalLassoCV'
    """

    name: str
    generators: dict[str, tuple[type, dict[str, Any]]]
    learners: dict[str, tuple[type, dict[str, Any]]]
    grid: dict[str, Any]
    run: dict[str, Any] = field(default_factory=dict)
    description: str = ""

    def make_generators(self) -> dict[str, Any]:
        """Fresh generator instances, ``{name: generator}``.

        Returns
        -------
        dict
            One new, unfitted instance per configured generator.

        Examples
        --------
        >>> from skggm_bench.benchmark.config import get_preset
        >>> list(get_preset("quick").make_generators())
        ['DiagonalDominance', 'TriangulatedOrthogonalization']
        """
        return {
            name: cls(**copy.deepcopy(p)) for name, (cls, p) in self.generators.items()
        }

    def make_learners(self) -> dict[str, Any]:
        """Fresh learner instances, ``{name: estimator}``.

        Returns
        -------
        dict
            One new, unfitted instance per configured learner.

        Examples
        --------
        >>> from skggm_bench.benchmark.config import get_preset
        >>> get_preset("quick").make_learners()["glasso"]
        GraphicalLassoCV(cv=3, n_refinements=2)
        """
        return {
            name: cls(**copy.deepcopy(p)) for name, (cls, p) in self.learners.items()
        }

    @property
    def n_tasks(self) -> int:
        """Number of result rows the study produces (learner fits).

        Examples
        --------
        >>> from skggm_bench.benchmark.config import get_preset
        >>> get_preset("kramer2009").n_tasks  # 3 x 6 x 5 x 8 x 20
        14400
        """
        grid = self.grid
        n_features = grid.get("n_features", 50)
        return (
            len(self.generators)
            * len(self.learners)
            * len(grid["densities"])
            * (len(n_features) if isinstance(n_features, tuple) else 1)
            * len(grid.get("n_samples", (100,)))
            * grid.get("n_repeats", 1)
        )

    def make_benchmark(self, **options: Any) -> Benchmark:
        """The :class:`~skggm_bench.benchmark.Benchmark` of this study.

        Parameters
        ----------
        **options
            Other ``Benchmark`` arguments (``store``, ``n_jobs``, ``backend``,
            ``verbose``, ...); they override the grid's values of the same name.

        Returns
        -------
        Benchmark
            Not yet run.

        Examples
        --------
        >>> from skggm_bench.benchmark.config import get_preset
        >>> bench = get_preset("quick").make_benchmark(n_jobs=2)
        >>> bench.n_features, bench.densities, bench.n_jobs
        (30, (0.05, 0.25), 2)
        """
        arguments = {**self.grid, **options}
        return Benchmark(self.make_generators(), self.make_learners(), **arguments)

    def to_dict(self) -> dict[str, Any]:
        """The configuration as plain data (class names instead of classes).

        Returns
        -------
        dict
            Suitable for JSON or for :func:`parse_config`.

        Examples
        --------
        >>> from skggm_bench.benchmark.config import get_preset, parse_config
        >>> config = get_preset("quick")
        >>> parse_config(config.to_dict(), name="quick") == config
        True
        """

        def specs(entries: dict[str, tuple[type, dict]]) -> dict[str, dict]:
            return {
                name: {"class": _class_name(cls), **copy.deepcopy(params)}
                for name, (cls, params) in entries.items()
            }

        data = {
            "description": self.description,
            **copy.deepcopy(self.grid),
            "generators": specs(self.generators),
            "learners": specs(self.learners),
        }
        if data["densities"] == (None,):  # TOML has no null: omitted means None
            del data["densities"]
        for key in ("densities", "n_features", "n_samples", "metrics"):
            if isinstance(data.get(key), tuple):
                data[key] = list(data[key])
        if self.run:
            data["run"] = dict(self.run)
        return data


def _class_name(cls: type) -> str:
    module = cls.__module__
    if module.startswith("skggm_bench.generators") or any(
        module.startswith(m) for m in _LEARNER_MODULES
    ):
        return cls.__name__
    return f"{module}.{cls.__qualname__}"


# --------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------


def get_preset(name: str) -> BenchmarkConfig:
    """A built-in study by name.

    Parameters
    ----------
    name : str
        A key of :data:`PRESETS` (``"quick"``, ``"kramer2009"``).

    Returns
    -------
    BenchmarkConfig
        The validated preset.

    Raises
    ------
    ConfigError
        If there is no preset of that name.

    Examples
    --------
    >>> from skggm_bench.benchmark.config import get_preset
    >>> config = get_preset("kramer2009")
    >>> config.grid["n_features"], config.grid["n_repeats"], len(config.learners)
    (100, 20, 6)
    """
    if name not in PRESETS:
        raise ConfigError(
            f"preset: unknown preset {name!r}{_suggest(name, PRESETS)}; available: "
            f"{sorted(PRESETS)}"
        )
    return parse_config(PRESETS[name], name=name)


def load_config(path: str | Path) -> BenchmarkConfig:
    """Read and validate a TOML study file.

    Parameters
    ----------
    path : str or pathlib.Path
        The ``.toml`` file.

    Returns
    -------
    BenchmarkConfig
        Named after the file's stem.

    Raises
    ------
    ConfigError
        If the file cannot be read, is not valid TOML (the message gives the line)
        or fails validation (the message names the key).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from skggm_bench.benchmark.config import load_config
    >>> text = '''
    ... n_features = 10
    ... densities = [0.2]
    ... n_samples = [40]
    ... generators = ["DiagonalDominance"]
    ... [learners.shrink]
    ... class = "ShrinkagePartialCorrelation"
    ... '''
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp) / "tiny.toml"
    ...     _ = path.write_text(text)
    ...     config = load_config(path)
    >>> config.name, config.n_tasks
    ('tiny', 1)
    """
    path = Path(path)
    toml = _toml_module()
    try:
        with path.open("rb") as handle:
            data = toml.load(handle)
    except OSError as exc:
        raise ConfigError(
            f"cannot read the configuration file {str(path)!r}: {exc}"
        ) from exc
    except toml.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    try:
        return parse_config(data, name=path.stem)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def _toml_module() -> Any:
    try:
        import tomllib  # Python >= 3.11
    except ModuleNotFoundError:  # pragma: no cover - exercised on Python 3.10 only
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise ConfigError(
                "reading TOML configuration files needs Python 3.11+ or the 'tomli' "
                "package (pip install tomli)"
            ) from None
    return tomllib


def parse_config(data: Mapping[str, Any], *, name: str = "study") -> BenchmarkConfig:
    """Validate a study given as plain data (a parsed TOML file or a preset dict).

    Parameters
    ----------
    data : mapping
        The schema of the module docstring.
    name : str, default="study"
        The study's name.

    Returns
    -------
    BenchmarkConfig
        With every class resolved and every estimator checked by building it.

    Raises
    ------
    ConfigError
        Naming the key at fault: an unknown key (with a suggestion), an unknown
        generator or learner, a bad parameter, a density outside [0, 1], an empty
        grid, ...

    Examples
    --------
    >>> from skggm_bench.benchmark.config import parse_config
    >>> parse_config({"generators": ["DiagonalDominance"],
    ...               "learners": ["ShrinkagePartialCorrelation"],
    ...               "densities": [0.1, -0.2]})
    Traceback (most recent call last):
    ...
    skggm_bench.benchmark.config.ConfigError: densities[1]: a density must be in \
[0, 1], got -0.2
    """
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"a configuration must be a table of keys, got {type(data).__name__}"
        )
    _reject_unknown(data, _TOP_LEVEL_KEYS, where="")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ConfigError(f"description: must be a string, got {description!r}")
    grid = _parse_grid(data)
    generators = _parse_entries(
        data.get("generators"), "generators", _resolve_generator, _check_generator
    )
    learners = _parse_entries(
        data.get("learners"), "learners", _resolve_learner, _check_learner
    )
    run = _parse_run(data.get("run", {}))
    return BenchmarkConfig(
        name=str(name),
        generators=generators,
        learners=learners,
        grid=grid,
        run=run,
        description=description,
    )


# --------------------------------------------------------------------------------------
# Grid
# --------------------------------------------------------------------------------------


def _suggest(word: str, choices: Any) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _reject_unknown(table: Mapping, known: tuple[str, ...], where: str) -> None:
    for key in table:
        if key not in known:
            raise ConfigError(
                f"{where}{key}: unknown key{_suggest(key, known)}; known keys: "
                f"{', '.join(known)}"
            )


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _int(value: Any, key: str, minimum: int) -> int:
    if not _is_int(value):
        raise ConfigError(f"{key}: must be an integer, got {value!r}")
    if value < minimum:
        raise ConfigError(f"{key}: must be >= {minimum}, got {value}")
    return int(value)


def _list(value: Any, key: str, what: str) -> list:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        value = [value]
    if len(value) == 0:
        raise ConfigError(f"{key}: empty grid; give at least one {what}")
    if len(set(map(repr, value))) != len(value):
        raise ConfigError(f"{key}: values are repeated in {list(value)}")
    return list(value)


def _parse_grid(data: Mapping[str, Any]) -> dict[str, Any]:
    grid: dict[str, Any] = {}
    if "graph" in data:
        from ..datasets import GRAPH_FAMILIES

        graph = data["graph"]
        if graph not in GRAPH_FAMILIES:
            raise ConfigError(
                f"graph: unknown graph family {graph!r}"
                f"{_suggest(graph, GRAPH_FAMILIES)}; available: "
                f"{', '.join(GRAPH_FAMILIES)}"
            )
        grid["graph"] = graph
    if "graph_params" in data:
        params = data["graph_params"]
        if not isinstance(params, Mapping):
            raise ConfigError(f"graph_params: must be a table, got {params!r}")
        grid["graph_params"] = dict(params)
    if "n_features" in data:
        if isinstance(data["n_features"], (list, tuple)):
            sizes = _list(data["n_features"], "n_features", "number of variables")
            grid["n_features"] = tuple(
                _int(p, f"n_features[{i}]", 2) for i, p in enumerate(sizes)
            )
        else:
            grid["n_features"] = _int(data["n_features"], "n_features", 2)
    # No densities: the family's own default (None), which is also the only value
    # that fixed-structure families (chain, lattice, ...) accept.
    grid["densities"] = (None,)
    if "densities" in data:
        densities = _list(data["densities"], "densities", "density")
        for i, density in enumerate(densities):
            if not _is_real(density) or math.isnan(density):
                raise ConfigError(f"densities[{i}]: must be a number, got {density!r}")
            if not 0 <= density <= 1:
                raise ConfigError(
                    f"densities[{i}]: a density must be in [0, 1], got {density}"
                )
        grid["densities"] = tuple(float(d) for d in densities)
    if "n_samples" in data:
        sizes = _list(data["n_samples"], "n_samples", "sample size")
        grid["n_samples"] = tuple(
            _int(n, f"n_samples[{i}]", 2) for i, n in enumerate(sizes)
        )
    if "n_repeats" in data:
        grid["n_repeats"] = _int(data["n_repeats"], "n_repeats", 1)
    if "model" in data:
        if data["model"] not in _MODELS:
            raise ConfigError(f"model: must be one of {_MODELS}, got {data['model']!r}")
        grid["model"] = data["model"]
    if "metrics" in data:
        metrics = _list(data["metrics"], "metrics", "metric")
        for i, metric in enumerate(metrics):
            _check_metric(metric, f"metrics[{i}]")
        grid["metrics"] = tuple(metrics)
    if "random_state" in data:
        grid["random_state"] = _int(data["random_state"], "random_state", 0)
    if "timeout" in data:
        timeout = data["timeout"]
        if not _is_real(timeout) or not timeout > 0:
            raise ConfigError(
                f"timeout: must be a positive number of seconds, got {timeout!r}"
            )
        grid["timeout"] = float(timeout)
    return grid


def _check_metric(metric: Any, key: str) -> None:
    """Accept exactly the names the harness accepts (its scorer factory decides)."""
    import numpy as np

    from ..metrics import make_structure_scorer

    if not isinstance(metric, str):
        raise ConfigError(f"{key}: must be a metric name, got {metric!r}")
    probe = np.zeros((3, 3), dtype=bool)
    probe[0, 1] = probe[1, 0] = True
    try:
        make_structure_scorer(metric, probe)
    except ValueError as exc:
        raise ConfigError(f"{key}: unknown metric {metric!r}: {exc}") from None


def _parse_run(run: Any) -> dict[str, Any]:
    if not isinstance(run, Mapping):
        raise ConfigError(f"run: must be a table, got {run!r}")
    _reject_unknown(run, _RUN_KEYS, where="run.")
    parsed = dict(run)
    if "n_jobs" in parsed and (not _is_int(parsed["n_jobs"]) or parsed["n_jobs"] == 0):
        raise ConfigError(
            f"run.n_jobs: must be a non-zero integer (-1 = all cores), got "
            f"{parsed['n_jobs']!r}"
        )
    if "backend" in parsed and parsed["backend"] not in _BACKENDS:
        raise ConfigError(
            f"run.backend: must be one of {_BACKENDS}, got {parsed['backend']!r}"
        )
    for key in ("store", "scheduler"):
        if key in parsed and not isinstance(parsed[key], str):
            raise ConfigError(f"run.{key}: must be a string, got {parsed[key]!r}")
    return parsed


# --------------------------------------------------------------------------------------
# Generators and learners
# --------------------------------------------------------------------------------------


def _parse_entries(
    entries: Any, key: str, resolve: Any, check: Any
) -> dict[str, tuple[type, dict[str, Any]]]:
    what = key[:-1]
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
        check(cls, params, where)
        parsed[str(name)] = (cls, params)
    return parsed


def _resolve_generator(name: str, where: str) -> type:
    from .. import generators
    from ..generators import GraphicalModelGenerator

    # getattr on the package: any generator it exports works, including new ones.
    cls = getattr(generators, name, None)
    if (
        not (inspect.isclass(cls) and issubclass(cls, GraphicalModelGenerator))
        or cls is GraphicalModelGenerator
    ):
        known = _generator_names()
        raise ConfigError(
            f"{where}: unknown generator {name!r}{_suggest(name, known)}; available: "
            f"{', '.join(known)}"
        )
    return cls


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
    return _resolve_generator(name, key)


def _generator_names() -> list[str]:
    from .. import generators
    from ..generators import GraphicalModelGenerator

    return sorted(
        name
        for name, obj in vars(generators).items()
        if inspect.isclass(obj)
        and issubclass(obj, GraphicalModelGenerator)
        and obj is not GraphicalModelGenerator
    )


def _resolve_learner(name: str, where: str) -> type:
    if "." in name:
        module_name, _, attribute = name.rpartition(".")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigError(
                f"{where}: cannot import {module_name!r}: {exc}"
            ) from None
        cls = getattr(module, attribute, None)
    else:
        cls = None
        for module_name in _LEARNER_MODULES:
            cls = getattr(importlib.import_module(module_name), name, None)
            if cls is not None:
                break
    if not (
        inspect.isclass(cls) and hasattr(cls, "fit") and hasattr(cls, "get_params")
    ):
        known = _learner_names()
        raise ConfigError(
            f"{where}: unknown learner {name!r}{_suggest(name, known)}; available: "
            f"{', '.join(known)}, or a dotted path to a scikit-learn estimator"
        )
    return cls


def _learner_names() -> list[str]:
    names = []
    for module_name in _LEARNER_MODULES:
        module = importlib.import_module(module_name)
        names += [
            name
            for name in getattr(module, "__all__", ())
            if inspect.isclass(getattr(module, name))
            and hasattr(getattr(module, name), "fit")
        ]
    return sorted(set(names))


def _build(cls: type, params: dict[str, Any], where: str) -> Any:
    """Instantiate with ``params`` and run sklearn's parameter validation."""
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
                f"{_suggest(key, accepted)}; its parameters: "
                f"{', '.join(sorted(accepted))}"
            )
    estimator = cls(**copy.deepcopy(params))
    validate = getattr(estimator, "_validate_params", None)
    if callable(validate):
        try:
            validate()
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"{where}: {exc}") from None
    return estimator


def _check_generator(cls: type, params: dict[str, Any], where: str) -> None:
    if "random_state" in params:
        raise ConfigError(
            f"{where}.random_state: generators are seeded by the benchmark (one seed "
            "per task, from the top-level random_state); remove this key"
        )
    _build(cls, params, where)


def _check_learner(cls: type, params: dict[str, Any], where: str) -> None:
    _build(cls, params, where)
