"""Benchmark studies as data: built-in presets and TOML configuration files.

A *study* is everything :class:`~skggm_bench.benchmark.Benchmark` needs: the
generators, the learners and the grid. It can come from a named preset
(:data:`PRESETS`, e.g. ``skggm-bench run --preset kramer2009``) or from a TOML file
(``skggm-bench run --config study.toml``). This module only resolves names into
classes and builds the :class:`~skggm_bench.benchmark.Benchmark`; every check of the
study is :meth:`Benchmark.validate`'s, and its message comes back as a
:class:`ConfigError` prefixed with the configuration key at fault.

A configuration file looks like this (only the generators and the learners are
required; an omitted grid key takes ``Benchmark``'s default, except ``densities``,
which then means the graph family's own default density)::

    graph = "erdos_renyi"          # a family of skggm_bench.datasets.GRAPH_FAMILIES,
                                   # or a table of named graphs (below)
    n_features = 30                # or a list
    densities = [0.05, 0.25]       # edge densities in [0, 1]; omit for the
                                   # family's default
    n_samples = [50, 100, 200]     # or, relative to n_features (one or the
                                   # other): sample_size_ratios = [0.5, 1, 2]
    n_repeats = 5
    model = "concentration"        # or "covariance"
    metrics = ["tpr", "ppv", "f1"]
    random_state = 0               # the whole study follows from this seed
    timeout = 300                  # seconds per fit (and per draw)
    memory_limit = 4294967296      # bytes each fit may allocate (optional)
    tie_tolerance = 1e-4           # relative difference that ranks as a tie

    [graph_params]                 # extra parameters of the graph family (optional;
                                   # only with a single graph)

    [generators]                   # name = {} uses the class of that name
    DiagonalDominance = {}
    TriangulatedOrthogonalization = { triangulation = "min_degree" }

    [learners.lasso]               # a learner named "lasso"
    class = "LassoNetwork"         # the class; the other keys are its parameters
    cv = 5

    [learners.glasso]
    class = "GraphicalLassoCV"

    [learners.huge_mb]             # a learner written in R (needs R and rpy2)
    class = "RHuge"
    method = "mb"
    criterion = "stars"
    optional = true                # left out, saying why, where R is missing

    [learners.r_ct]                # any R function: RLearner
    class = "RLearner"
    function = "function(x, t) list(adjacency = abs(cor(x)) > t)"
    args = { t = 0.3 }

    [learners.npn_glasso]          # a pipeline: steps are tables with a class
    class = "Pipeline"
    steps = [{ class = "NonparanormalTransformer" },
             { class = "GraphicalLasso", alpha = 0.2 }]

    # Instead of one graph family, several named graphs (a grid axis): a table per
    # graph with its "family" and that family's parameters, or name = "family".
    # [graph]
    # erdos_renyi = "erdos_renyi"
    # [graph.hub]
    # family = "hub"
    # n_hubs = 3
    # [graph.band]
    # family = "band"

    [data_models]                  # optional: ways of observing the data
    gaussian = { class = "Gaussian" }
    heavy = { class = "MultivariateT", df = 3 }

    # Optional: the model axis (docs/related_models.md). "single" is one graph per
    # data set (the default); related models draw K classes, T time points or
    # hidden variables around each generator (no data_models with them).
    # [models]
    # single = "single"
    # joint = { kind = "joint", n_classes = 3, shared_fraction = 0.8 }
    # time = { kind = "time_varying", n_times = 4, change_rate = 0.2 }
    # hidden = { kind = "latent", n_latent = 2 }

    [run]                          # optional defaults for the command line
    n_jobs = 2
    backend = "loky"

Generators are looked up by class name in :mod:`skggm_bench.generators`, so any
sampler exported there works without changing this module; data models in
:mod:`skggm_bench.datasets`. Learners are looked up in :mod:`skggm_bench.learners`,
then :mod:`sklearn.covariance`; a dotted path (``"mypackage.module.MyEstimator"``)
imports any other scikit-learn-compatible estimator, with or without parameter
constraints. ``generators``, ``learners`` and ``data_models`` may also be plain
lists of class names.

Names are resolved, every estimator is built once with its parameters, and the
whole study is validated (a dry probe of every generator on the study's graphs
included) when the configuration is parsed, so a typo or an impossible combination
fails at once and not an hour into a run.
TOML needs Python 3.11+ (:mod:`tomllib`) or the ``tomli`` package on 3.10.
"""

from __future__ import annotations

import copy
import importlib
import importlib.resources
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._benchmark import DEFAULT_METRICS, Benchmark, StudyError
from ._resolve import (
    ConfigError,
    build,
    class_name,
    generator_class,
    optional_learners,
    parse_entries,
    resolve_data_model,
    resolve_generator,
    resolve_learner,
    suggest,
)
from .plan._graphs import graph_axis

__all__ = [
    "DEFAULT_METRICS",
    "PRESETS",
    "BenchmarkConfig",
    "ConfigError",
    "StoreSettings",
    "generator_class",
    "get_preset",
    "load_config",
    "parse_config",
    "preset_text",
    "store_settings",
]

_GRID_KEYS = (
    "graph",
    "graph_params",
    "n_features",
    "densities",
    "n_samples",
    "sample_size_ratios",
    "n_repeats",
    "model",
    "metrics",
    "random_state",
    "timeout",
    "memory_limit",
    "tie_tolerance",
    "models",
)
_ENTRY_KEYS = ("generators", "learners", "data_models")
_TOP_LEVEL_KEYS = (*_GRID_KEYS, *_ENTRY_KEYS, "run", "description")
_RUN_KEYS = ("store", "n_jobs", "backend", "scheduler")

# The built-in studies are TOML files shipped in presets/, the same format users
# write, so that a preset can be read, copied and extended as a file
# (``skggm-bench presets show NAME``). Read once, at import: they are small.
_PRESET_DIRECTORY = "presets"


def _preset_files() -> dict[str, Any]:
    folder = importlib.resources.files(__package__).joinpath(_PRESET_DIRECTORY)
    files = (entry for entry in folder.iterdir() if entry.name.endswith(".toml"))
    return {entry.name.removesuffix(".toml"): entry for entry in files}


def _load_presets() -> dict[str, dict[str, Any]]:
    toml = _toml_module()
    # quick first (the default), then by name: the order `presets` lists them in.
    names = sorted(_preset_files(), key=lambda name: (name != "quick", name))
    return {name: toml.loads(preset_text(name)) for name in names}


def preset_text(name: str) -> str:
    """The TOML file of a built-in study, comments included, to read or copy.

    Parameters
    ----------
    name : str
        A key of :data:`PRESETS`.

    Returns
    -------
    str
        The file's text; saved as ``study.toml`` it runs with
        ``skggm-bench run --config study.toml`` as the same study.

    Raises
    ------
    ConfigError
        If there is no preset of that name.

    Examples
    --------
    >>> from skggm_bench.benchmark.config import preset_text
    >>> print(preset_text("covariance").splitlines()[0])
    # Covariance estimators ranked by estimation error: the matrix losses against the
    """
    files = _preset_files()
    if name not in files:
        raise ConfigError(
            f"preset: unknown preset {name!r}{suggest(name, files)}; available: "
            f"{sorted(files)}"
        )
    result: str = files[name].read_text(encoding="utf-8")
    return result


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
    generators, learners, data_models : dict
        ``{display name: (class, parameters)}`` (``data_models`` may be empty: the
        Gaussian data as drawn).
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
    360
    >>> type(config.make_learners()["glasso"]).__name__
    'GraphicalLassoCV'
    """

    name: str
    generators: dict[str, tuple[type, dict[str, Any]]]
    learners: dict[str, tuple[type, dict[str, Any]]]
    grid: dict[str, Any]
    run: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    data_models: dict[str, tuple[type, dict[str, Any]]] = field(default_factory=dict)
    # What parsing left out and why (optional learners that cannot run here): a
    # remark about this machine, not part of the study.
    notes: tuple[str, ...] = field(default=(), compare=False)

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
            name: build(cls, p, f"generators.{name}", resolve_generator)
            for name, (cls, p) in self.generators.items()
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
            name: build(cls, p, f"learners.{name}", resolve_learner)
            for name, (cls, p) in self.learners.items()
        }

    def make_data_models(self) -> dict[str, Any] | None:
        """Fresh data model instances, or None for the Gaussian data as drawn.

        Returns
        -------
        dict or None
            One new instance per configured data model.

        Examples
        --------
        >>> from skggm_bench.benchmark.config import get_preset
        >>> get_preset("quick").make_data_models() is None
        True
        """
        if not self.data_models:
            return None
        return {
            name: build(cls, p, f"data_models.{name}", resolve_data_model)
            for name, (cls, p) in self.data_models.items()
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
        graphs = graph_axis(
            grid.get("graph", "erdos_renyi"), grid.get("graph_params")
        ).values()
        # A fixed-structure graph has one density (its own) per n_features.
        n_densities = sum(
            _n_values(grid["densities"]) if graph.follows_density else 1
            for graph in graphs
        )
        models = grid.get("models")
        count: int = (
            (1 if models is None or isinstance(models, str) else len(models))
            * len(self.generators)
            * len(self.learners)
            * max(len(self.data_models), 1)
            * n_densities
            * _n_values(grid.get("n_features", 50))
            # Sizes given as ratios are as many at every n_features.
            * _n_values(grid.get("n_samples", grid.get("sample_size_ratios", (100,))))
            * grid.get("n_repeats", 1)
        )
        return count

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
        arguments = {"data_models": self.make_data_models(), **self.grid, **options}
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

        def specs(
            entries: dict[str, tuple[type, dict[str, Any]]],
        ) -> dict[str, dict[str, Any]]:
            return {
                name: {"class": class_name(cls), **copy.deepcopy(params)}
                for name, (cls, params) in entries.items()
            }

        data = {
            "description": self.description,
            **copy.deepcopy(self.grid),
            "generators": specs(self.generators),
            "learners": specs(self.learners),
        }
        if self.data_models:
            data["data_models"] = specs(self.data_models)
        if data["densities"] == (None,):  # TOML has no null: omitted means None
            del data["densities"]
        for key in (
            "densities",
            "n_features",
            "n_samples",
            "sample_size_ratios",
            "metrics",
            "models",
        ):
            if isinstance(data.get(key), tuple):
                data[key] = list(data[key])
        if self.run:
            data["run"] = dict(self.run)
        return data


def _n_values(value: Any) -> int:
    """How many values a grid key holds: a bare value (``n_samples = 30``) is one."""
    return len(value) if isinstance(value, tuple) else 1


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
            f"preset: unknown preset {name!r}{suggest(name, PRESETS)}; available: "
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
        If the file cannot be read, is not UTF-8 text, is not valid TOML (the
        message gives the line) or fails validation (the message names the key).

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
    data = _read_toml(path)
    try:
        return parse_config(data, name=path.stem)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def _read_toml(path: Path) -> Any:
    toml = _toml_module()
    try:
        with path.open("rb") as handle:
            return toml.load(handle)
    except OSError as exc:
        raise ConfigError(
            f"cannot read the configuration file {str(path)!r}: {exc}"
        ) from exc
    except toml.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    except UnicodeDecodeError as exc:  # TOML is UTF-8 text; this is not
        raise ConfigError(
            f"{path}: not a TOML file: byte {exc.start} is not UTF-8 text"
        ) from None


@dataclass(frozen=True)
class StoreSettings:
    """What reading a study's results needs from its file: no class at all.

    ``leaderboard``, ``report`` and ``export`` find the store and the display
    options of a study here, so that a store reads on a machine that has none of
    its learners', generators' or data models' packages (a learner defined in the
    user's module next to the study file included).

    Attributes
    ----------
    name : str
        The preset name or the file's stem (the store is named after it).
    run : dict
        The ``[run]`` table (``store`` among its keys).
    tie_tolerance : float or None
        The study's ``tie_tolerance``, if it sets one.
    """

    name: str
    run: dict[str, Any]
    tie_tolerance: float | None = None


def store_settings(
    path: str | Path | None = None, *, preset: str | None = None
) -> StoreSettings:
    """The store and display options of a TOML study or a preset, classes unread.

    Only the keys are checked (a typo is still caught) and the ``[run]`` table and
    ``tie_tolerance`` validated; no generator, learner or data model is imported.

    Parameters
    ----------
    path : str or pathlib.Path or None
        A ``.toml`` study file.
    preset : str or None
        A key of :data:`PRESETS`, read when ``path`` is None (default ``"quick"``).

    Returns
    -------
    StoreSettings

    Raises
    ------
    ConfigError
        If the file cannot be read or its keys, ``[run]`` or ``tie_tolerance``
        are invalid.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from skggm_bench.benchmark.config import store_settings
    >>> text = '''
    ... generators = ["DiagonalDominance"]
    ... [learners.mine]
    ... class = "a_module_not_installed_here.MyLearner"
    ... [run]
    ... store = "results/mine.sqlite"
    ... '''
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp) / "mine.toml"
    ...     _ = path.write_text(text)
    ...     settings = store_settings(path)
    >>> settings.name, settings.run["store"]
    ('mine', 'results/mine.sqlite')
    """
    if path is None:
        name = preset if preset is not None else "quick"
        if name not in PRESETS:
            raise ConfigError(
                f"preset: unknown preset {name!r}{suggest(name, PRESETS)}; "
                f"available: {sorted(PRESETS)}"
            )
        data, where = PRESETS[name], ""
    else:
        path = Path(path)
        data, name, where = _read_toml(path), path.stem, f"{path}: "
    try:
        if not isinstance(data, Mapping):
            raise ConfigError(
                f"a configuration must be a table of keys, got {type(data).__name__}"
            )
        _reject_unknown(data, _TOP_LEVEL_KEYS, where="")
        run = _parse_run(data.get("run", {}))
        tolerance = data.get("tie_tolerance")
        if tolerance is not None and (
            isinstance(tolerance, bool)
            or not isinstance(tolerance, (int, float))
            or not 0 <= tolerance < 1
        ):
            raise ConfigError(
                "tie_tolerance: must be a relative difference in [0, 1), got "
                f"{tolerance!r}"
            )
    except ConfigError as exc:
        raise ConfigError(f"{where}{exc}") from None
    return StoreSettings(
        str(name), run, None if tolerance is None else float(tolerance)
    )


def _toml_module() -> Any:
    try:
        import tomllib  # Python >= 3.11
    except ModuleNotFoundError:  # pragma: no cover - exercised on Python 3.10 only
        try:
            import tomli as tomllib  # type: ignore[no-redef]
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
    skggm_bench.benchmark.config.ConfigError: densities: densities[1]=-0.2 is \
negative; a density is the fraction of node pairs that are edges, in [0, 1]
    """
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"a configuration must be a table of keys, got {type(data).__name__}"
        )
    _reject_unknown(data, _TOP_LEVEL_KEYS, where="")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ConfigError(f"description: must be a string, got {description!r}")
    # The grid goes to Benchmark as it is (TOML lists become tuples); Benchmark
    # checks it. No densities: the family's own default (None); fixed-structure
    # graphs (chain, hub, ...) ignore the densities anyway.
    grid: dict[str, Any] = {"densities": (None,)}
    for key in _GRID_KEYS:
        if key in data:
            value = data[key]
            grid[key] = tuple(value) if isinstance(value, list) else value
    if not isinstance(grid.get("graph_params", {}), Mapping):
        raise ConfigError(
            f"graph_params: must be a table, got {data['graph_params']!r}"
        )
    learners, notes = optional_learners(data.get("learners"))
    config = BenchmarkConfig(
        name=str(name),
        generators=parse_entries(data.get("generators"), "generators"),
        learners=learners,
        notes=notes,
        grid=grid,
        run=_parse_run(data.get("run", {})),
        description=description,
        data_models=(
            parse_entries(data["data_models"], "data_models")
            if "data_models" in data
            else {}
        ),
    )
    options = {k: config.run[k] for k in ("n_jobs", "backend") if k in config.run}
    try:
        config.make_benchmark(**options).validate()
    except StudyError as exc:
        key = exc.parameter
        if key in ("n_jobs", "backend"):
            key = f"run.{key}"
        elif exc.entry is not None:
            key = f"{key}.{exc.entry}"
        raise ConfigError(f"{key}: {exc}") from None
    return config


def _reject_unknown(
    table: Mapping[str, Any], known: tuple[str, ...], where: str
) -> None:
    for key in table:
        if key not in known:
            raise ConfigError(
                f"{where}{key}: unknown key{suggest(key, known)}; known keys: "
                f"{', '.join(known)}"
            )


def _parse_run(run: Any) -> dict[str, Any]:
    if not isinstance(run, Mapping):
        raise ConfigError(f"run: must be a table, got {run!r}")
    _reject_unknown(run, _RUN_KEYS, where="run.")
    for key in ("store", "scheduler"):
        if key in run and not isinstance(run[key], str):
            raise ConfigError(f"run.{key}: must be a string, got {run[key]!r}")
    return dict(run)


#: Built-in studies, in the configuration-file schema (see the module docstring), read
#: from the TOML files in ``skggm_bench/benchmark/presets/``.
PRESETS: dict[str, dict[str, Any]] = _load_presets()
