"""Benchmark structure learners on generated ground truth.

:class:`Benchmark` runs every learner on data drawn from every generator over a grid
of graph densities, numbers of variables, sample sizes and repeats, scores the
learned graphs against the true ones with :mod:`skggm_bench.metrics`, and returns a
:class:`BenchmarkResult` holding one tidy row per fit. The user guide is
``docs/harness.md``; the three rules that make the numbers trustworthy are:

Paired design
    For each (density, n_features, repeat) one graph is drawn and shared by all
    generators, and one standard normal noise matrix ``Z`` is drawn and shared by
    all generators and sample sizes. For each generator one matrix is drawn on that
    graph; the data set of size ``n`` is ``Z[:n]`` mapped through the matrix (see
    :func:`skggm_bench.datasets.sample_gaussian`), so the data sets of the smaller
    sample sizes are the first rows of the larger ones, and every learner sees the
    very same data set. Differences between learners, sample sizes and generators
    are therefore paired comparisons (common random numbers).

Seeding
    One :class:`numpy.random.SeedSequence` built from ``random_state`` is the only
    source of randomness. Each cell (density, n_features, repeat) gets its own child,
    addressed by a spawn key made of the cell's *values* (not positions), whose
    first 63 bits are the row's ``seed``; the graph, the noise, each generator's
    matrix and each learner's ``random_state`` (when it is ``None``) come from
    children of that seed keyed by stream and name. A row therefore depends on
    nothing but the study entropy and its own coordinates: not on ``n_jobs``, the
    backend, the order in which tasks run, or which other values are in the grid.

Execution
    Tasks run through :class:`joblib.Parallel` with the backend of your choice
    (``"loky"``, ``"threading"``, ``"dask"`` with a ``dask.distributed`` client,
    ``"ray"`` once registered) and come back as they finish; their rows are
    committed to the :class:`~skggm_bench.benchmark.store.ResultStore`
    immediately, so an interrupted run loses only the tasks in flight and the next
    run resumes.

How a fitted learner is read (``adjacency_``, ``precision_``, ``covariance_``) is
defined once, in the estimator protocol of :mod:`skggm_bench.metrics`.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import importlib
import importlib.metadata
import json
import math
import numbers
import os
import platform
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import joblib
import networkx as nx
import numpy as np
from sklearn.base import clone
from sklearn.utils import Bunch
from sklearn.utils._param_validation import (
    Interval,
    StrOptions,
    validate_parameter_constraints,
)

from .. import __version__
from ..datasets import GRAPH_FAMILIES, sample_gaussian
from ..datasets._make_ggm import _family_graph
from ..graphs import check_adjacency
from ..metrics import StructureScorer, make_structure_scorer
from .store import KEY_COLUMNS, ResultStore

__all__ = ["DEFAULT_METRICS", "Benchmark", "BenchmarkResult"]

#: Metrics computed when ``metrics`` is not given (names from
#: :func:`skggm_bench.metrics.make_structure_scorer`).
DEFAULT_METRICS: tuple[str, ...] = (
    "tpr",
    "ppv",
    "f1",
    "mcc",
    "shd",
    "roc_auc",
    "average_precision",
)

# Bump when the seed derivation or the data pipeline changes: a store written by an
# older scheme then refuses to resume instead of mixing incomparable rows.
_SEEDING_SCHEME = "cells-v1"
# Stream numbers of the children of a cell seed.
_GRAPH_STREAM, _NOISE_STREAM, _MATRIX_STREAM, _LEARNER_STREAM = range(4)
# Each worker should see several tasks so the last ones to finish are short compared
# with the whole run (load balance); 4 per worker keeps the idle tail under ~1/8 of
# a worker's share when tasks cost the same.
_TASKS_PER_WORKER = 4
# Failure messages keep the head of long tracebacks-as-text; a row is not a log.
_MAX_MESSAGE = 2000


# --------------------------------------------------------------------------------------
# Seeds: one SeedSequence, children addressed by the grid values
# --------------------------------------------------------------------------------------


def _name_key(name: str) -> int:
    """A stable 64-bit integer for a name (Python's ``hash`` is salted per process)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big")


def _density_key(density: float | None) -> int:
    # The exact bit pattern of the float, shifted by one so that None (0) differs
    # from density 0.0; densities are normalised so -0.0 never occurs.
    if density is None:
        return 0
    return int(np.float64(density).view(np.uint64)) + 1


def _cell_seed(
    entropy: int, n_features: int, density: float | None, repeat: int
) -> int:
    sequence = np.random.SeedSequence(
        entropy, spawn_key=(n_features, repeat, _density_key(density))
    )
    # 63 bits: fits SQLite's signed INTEGER and pandas' int64.
    return int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def _stream_seed(cell_seed: int, *key: int) -> int:
    """A 32-bit seed (what RandomState accepts) for one stream of a cell."""
    sequence = np.random.SeedSequence(cell_seed, spawn_key=key)
    return int(sequence.generate_state(1)[0])


# --------------------------------------------------------------------------------------
# What a worker needs, and what it does
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Cell:
    """One generator on one (n_features, density, repeat): one graph, one matrix."""

    generator: str
    n_features: int
    density: float | None
    repeat: int


@dataclass(frozen=True)
class _Task:
    """A cell and the (n_samples, learner) fits to run on its data."""

    cell: _Cell
    fits: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class _Spec:
    """Everything a task needs besides its coordinates; sent to the workers."""

    entropy: int
    generators: dict
    learners: dict
    graph: Any
    graph_params: dict
    model: str
    metrics: tuple
    timeout: float | None


def _draw_graph(
    graph: Any, n_features: int, density: float | None, graph_params: dict, seed: int
) -> np.ndarray:
    """Boolean adjacency of the cell's graph, from a family name or a callable."""
    if callable(graph):
        adjacency = check_adjacency(graph(n_features, density, seed, **graph_params))
        if adjacency.shape[0] != n_features:
            raise ValueError(
                f"the graph callable returned a graph on {adjacency.shape[0]} nodes "
                f"for n_features={n_features}"
            )
        return adjacency
    family_graph, _ = _family_graph(graph, n_features, density, graph_params, seed)
    # Index by node label so column k is node k whatever the insertion order (as in
    # make_ggm).
    labelled = nx.empty_graph(n_features)
    labelled.add_edges_from(family_graph.edges)
    return check_adjacency(labelled)


def _draw_matrix(generator: Any, adjacency: np.ndarray, seed: int) -> np.ndarray:
    sampler = clone(generator)
    if "random_state" in sampler.get_params():
        sampler.set_params(random_state=seed)
    return np.asarray(sampler.fit(adjacency).sample(1)[0], dtype=np.float64)


def _role(model: str) -> str:
    return "precision" if model == "concentration" else "covariance"


def _cell_data(spec: _Spec, cell: _Cell) -> tuple[int, np.ndarray, np.ndarray]:
    """The cell's seed, true adjacency and matrix (the generator's draw)."""
    seed = _cell_seed(spec.entropy, cell.n_features, cell.density, cell.repeat)
    adjacency = _draw_graph(
        spec.graph,
        cell.n_features,
        cell.density,
        spec.graph_params,
        _stream_seed(seed, _GRAPH_STREAM),
    )
    matrix = _draw_matrix(
        spec.generators[cell.generator],
        adjacency,
        _stream_seed(seed, _MATRIX_STREAM, _name_key(cell.generator)),
    )
    return seed, adjacency, matrix


def _sample(spec: _Spec, seed: int, matrix: np.ndarray, n_samples: int) -> np.ndarray:
    # The same noise seed for every generator and sample size: sample_gaussian draws
    # Z (n_samples x p) row by row from it, so smaller data sets are prefixes.
    return sample_gaussian(
        matrix,
        n_samples,
        role=_role(spec.model),
        random_state=_stream_seed(seed, _NOISE_STREAM),
    )


class _FitAbandoned(BaseException):
    """Raised inside a fit thread that outlived its timeout.

    A BaseException, so that a learner's own ``except Exception`` cannot swallow it.
    """


class _FitTimedOut(Exception):
    def __init__(self, elapsed: float) -> None:
        super().__init__(elapsed)
        self.elapsed = elapsed


def _stop_thread(thread: threading.Thread) -> None:
    """Ask CPython to raise _FitAbandoned in ``thread`` at its next bytecode."""
    set_async_exc = getattr(ctypes.pythonapi, "PyThreadState_SetAsyncExc", None)
    if set_async_exc is not None and thread.ident is not None:
        set_async_exc(ctypes.c_ulong(thread.ident), ctypes.py_object(_FitAbandoned))


def _timed_fit(estimator: Any, X: np.ndarray, timeout: float | None) -> float:
    """Fit, return the wall time; raise _FitTimedOut after ``timeout`` seconds.

    With a timeout the fit runs in a daemon thread that the caller stops waiting for
    at the deadline; the thread is then interrupted at its next Python bytecode. A
    fit stuck inside one long C call (BLAS, a compiled solver) only stops when that
    call returns; until then it keeps a core busy, but its result is discarded.
    """
    if timeout is None:
        start = time.perf_counter()
        estimator.fit(X)
        return time.perf_counter() - start

    outcome: dict[str, Any] = {}

    def fit() -> None:
        try:
            begin = time.perf_counter()
            try:
                estimator.fit(X)
            except Exception as exc:
                outcome["error"] = exc
            outcome["time"] = time.perf_counter() - begin
        except _FitAbandoned:
            pass

    thread = threading.Thread(target=fit, name="skggm-bench-fit", daemon=True)
    start = time.perf_counter()
    thread.start()
    try:
        thread.join(timeout)
    finally:  # also on KeyboardInterrupt: never leave a fit running behind us
        alive = thread.is_alive()
        if alive:
            _stop_thread(thread)
    if alive:
        raise _FitTimedOut(time.perf_counter() - start)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["time"]


def _seed_estimator(estimator: Any, seed: int) -> None:
    """Give every ``random_state=None`` (nested ones included) a derived seed."""
    params = estimator.get_params(deep=True)
    names = sorted(
        name
        for name, value in params.items()
        if value is None and (name == "random_state" or name.endswith("__random_state"))
    )
    if names:
        estimator.set_params(
            **{name: _stream_seed(seed, index) for index, name in enumerate(names)}
        )


def _error_message(exc: BaseException, prefix: str = "") -> str:
    text = f"{prefix}{type(exc).__name__}: {exc}"
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 3] + "..."


def _scorers(
    spec: _Spec, adjacency: np.ndarray
) -> tuple[dict[str, Any], dict[str, str]]:
    """One structure scorer per metric; metrics undefined for this graph, with why.

    A metric that cannot be computed for this true graph (ROC AUC of an empty graph)
    is known before any learner runs: its value is NaN in every row, with the reason
    in the message, and the learner is not blamed. ``make_structure_scorer`` finds
    out by trying the metric on the truth itself; that costs one ROC and one PR
    curve per task, so it is only asked for an empty or complete graph. Every
    structure metric is defined on a graph with both edges and non-edges (the
    edge metrics have conventions for their empty cases; the score metrics need
    both classes), and then the scorers are built directly.
    """
    upper = adjacency[np.triu_indices(adjacency.shape[0], k=1)]
    if 0 < np.count_nonzero(upper) < upper.size:
        scorers = {
            column: StructureScorer(name, adjacency, spec.model, tol, {})
            for column, name, tol in spec.metrics
        }
        return scorers, {}
    scorers, undefined = {}, {}
    for column, name, tol in spec.metrics:
        try:
            scorers[column] = make_structure_scorer(
                name, adjacency, model=spec.model, tol=tol
            )
        except ValueError as exc:
            undefined[column] = str(exc)
    return scorers, undefined


def _evaluate(
    spec: _Spec,
    learner: str,
    X: np.ndarray,
    scorers: dict[str, Any],
    seed: int,
) -> dict[str, Any]:
    """Fit one learner and score it; failures become a status and a message."""
    values = {column: math.nan for column, *_ in spec.metrics}
    estimator = clone(spec.learners[learner])
    start = time.perf_counter()
    try:
        _seed_estimator(estimator, seed)
        start = time.perf_counter()
        fit_time = _timed_fit(estimator, X, spec.timeout)
    except _FitTimedOut as exc:
        return values | {
            "fit_time": exc.elapsed,
            "status": "timeout",
            "message": f"fit exceeded timeout={spec.timeout} s and was abandoned",
        }
    except Exception as exc:
        # The time until the failure: a learner failing after minutes is not the
        # same as one failing at once.
        return values | {
            "fit_time": time.perf_counter() - start,
            "status": "failed",
            "message": _error_message(exc),
        }
    try:
        for column, scorer in scorers.items():
            value = scorer(estimator) * scorer.sign  # the raw metric, not -loss
            if not math.isfinite(value):
                raise ValueError(f"metric {column} is {value}")
            values[column] = value
    except Exception as exc:
        return values | {
            "fit_time": fit_time,
            "status": "failed",
            "message": _error_message(exc, "unusable fitted learner: "),
        }
    return values | {"fit_time": fit_time, "status": "ok", "message": ""}


def _run_task(spec: _Spec, task: _Task) -> list[dict[str, Any]]:
    """Draw the task's data once, run its fits, return one row per fit."""
    cell = task.cell
    generator_module = type(spec.generators[cell.generator]).__module__
    rows = []

    def row(n_samples: int, learner: str, seed: int, result: dict) -> dict:
        versions = _versions(generator_module, type(spec.learners[learner]).__module__)
        return {
            "generator": cell.generator,
            "learner": learner,
            "density": cell.density,
            "n_features": cell.n_features,
            "n_samples": n_samples,
            "repeat": cell.repeat,
            "seed": seed,
            **result,
            "versions": versions,
        }

    try:
        seed, adjacency, matrix = _cell_data(spec, cell)
        scorers, undefined = _scorers(spec, adjacency)
    except Exception as exc:
        seed = _cell_seed(spec.entropy, cell.n_features, cell.density, cell.repeat)
        failure = {column: math.nan for column, *_ in spec.metrics} | {
            "fit_time": math.nan,
            "status": "failed",
            "message": _error_message(exc, "data generation failed: "),
        }
        return [row(n, learner, seed, failure) for n, learner in task.fits]
    note = "; ".join(f"{column} undefined: {why}" for column, why in undefined.items())

    for n_samples in sorted({n for n, _ in task.fits}):
        X = _sample(spec, seed, matrix, n_samples)
        for n, learner in task.fits:
            if n != n_samples:
                continue
            learner_seed = _stream_seed(
                seed,
                _LEARNER_STREAM,
                _name_key(cell.generator),
                n_samples,
                _name_key(learner),
            )
            result = _evaluate(spec, learner, X, scorers, learner_seed)
            if note and result["status"] == "ok":
                result["message"] = note
            rows.append(row(n_samples, learner, seed, result))
    return rows


# --------------------------------------------------------------------------------------
# Package versions recorded with every row (computed where the fit runs)
# --------------------------------------------------------------------------------------

_BASE_DISTRIBUTIONS = ("numpy", "scipy", "scikit-learn", "joblib", "networkx")
_KNOWN_DISTRIBUTIONS = {
    "sklearn": "scikit-learn",
    "skggm_bench": "skggm-bench",
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
        else []
    )
    if not names:
        names = _distributions_of_modules().get(root_module, [])
    for name in names:
        try:
            return name, importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


@functools.cache
def _versions(*modules: str) -> str:
    """JSON of the Python, core library and estimator package versions."""
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


# --------------------------------------------------------------------------------------
# Study description (what must match for a store to be resumed)
# --------------------------------------------------------------------------------------

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _describe(value: Any) -> Any:
    """A JSON-able, process-independent description of a configuration value."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, np.ndarray):
        digest = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
        return {
            "array": digest[:16],
            "shape": list(value.shape),
            "dtype": str(value.dtype),
        }
    if isinstance(value, Mapping):
        return {str(key): _describe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_describe(item) for item in value]
    if hasattr(value, "get_params") and not isinstance(value, type):
        cls = type(value)
        return {
            "class": f"{cls.__module__.split('.')[0]}.{cls.__qualname__}",
            "params": _describe(value.get_params(deep=False)),
        }
    if callable(value) and hasattr(value, "__qualname__"):
        return f"{getattr(value, '__module__', '?')}.{value.__qualname__}"
    return _ADDRESS.sub("", repr(value))


# --------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------


def _as_tuple(values: Any, name: str) -> tuple:
    if isinstance(values, (str, bytes)) or not isinstance(
        values, (Sequence, np.ndarray)
    ):
        values = (values,)
    values = tuple(values)
    if not values:
        raise ValueError(f"{name} is empty: the grid needs at least one value")
    return values


def _check_unique(values: tuple, name: str) -> None:
    seen = set()
    for value in values:
        if value in seen:
            raise ValueError(
                f"{name} lists {value!r} twice; grid values must be unique"
            )
        seen.add(value)


def _check_integers(values: Any, name: str, low: int) -> tuple[int, ...]:
    values = _as_tuple(values, name)
    for index, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, numbers.Integral
        ):
            raise TypeError(f"{name}[{index}] must be an integer, got {value!r}")
        if value < low:
            raise ValueError(f"{name}[{index}] must be >= {low}, got {value}")
    values = tuple(int(value) for value in values)
    _check_unique(values, name)
    return values


def _check_densities(values: Any) -> tuple[float | None, ...]:
    values = _as_tuple(values, "densities")
    checked = []
    for index, value in enumerate(values):
        if value is None:
            checked.append(None)
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(
                f"densities[{index}] must be a number in [0, 1] (or None for the "
                f"family's default), got {value!r}"
            )
        value = float(value)
        if math.isnan(value):
            raise ValueError(f"densities[{index}] is NaN")
        if value < 0:
            raise ValueError(
                f"densities[{index}]={value} is negative; a density is the fraction "
                "of node pairs that are edges, in [0, 1]"
            )
        if value > 1:
            raise ValueError(
                f"densities[{index}]={value} is above 1; a density is the fraction "
                "of node pairs that are edges, in [0, 1]"
            )
        checked.append(value + 0.0)  # -0.0 -> 0.0: one key per value
    checked = tuple(checked)
    _check_unique(checked, "densities")
    return checked


def _check_named_objects(
    mapping: Any, name: str, methods: tuple[str, ...], example: str
) -> dict:
    if not isinstance(mapping, Mapping):
        raise TypeError(
            f"{name} must be a dict mapping names to objects (e.g. {example}), got "
            f"{type(mapping).__name__}"
        )
    if not mapping:
        raise ValueError(f"{name} is empty: give at least one, e.g. {example}")
    for key, value in mapping.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"{name} keys must be non-empty strings, got {key!r}")
        if isinstance(value, type):
            raise TypeError(
                f"{name}[{key!r}] is the class {value.__name__}; pass an instance, "
                f"e.g. {value.__name__}()"
            )
        missing = [
            method for method in methods if not callable(getattr(value, method, None))
        ]
        if missing:
            raise TypeError(
                f"{name}[{key!r}] = {value!r} is not a scikit-learn estimator: it has "
                f"no {' or '.join(missing)} method"
            )
        try:
            clone(value)
        except Exception as exc:
            raise TypeError(
                f"{name}[{key!r}] cannot be cloned like a scikit-learn estimator: {exc}"
            ) from exc
    return dict(mapping)


def _check_metrics(metrics: Any) -> tuple[tuple[str, str, float], ...]:
    """``(column, canonical metric name, tol)`` for every requested metric."""
    metrics = _as_tuple(metrics, "metrics")
    probe = np.zeros((3, 3), dtype=bool)
    probe[0, 1] = probe[1, 0] = True  # has edges and non-edges: every metric defined
    checked = []
    for metric in metrics:
        scorer = make_structure_scorer(metric, probe)  # ValueError names the choices
        column = metric if isinstance(metric, str) else scorer.metric_name
        checked.append((column, scorer.metric_name, scorer.tol))
    columns = tuple(column for column, *_ in checked)
    _check_unique(columns, "metrics")
    reserved = set(KEY_COLUMNS) | {"seed", "fit_time", "status", "message", "versions"}
    clash = reserved.intersection(columns)
    if clash:  # pragma: no cover - no metric of skggm_bench.metrics has such a name
        raise ValueError(f"metric names {sorted(clash)} clash with result columns")
    return tuple(checked)


def _check_random_state(random_state: Any) -> int | None:
    """Entropy of the study's SeedSequence, or None for fresh entropy."""
    if random_state is None:
        return None
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError(f"random_state must be an int, got {random_state!r}")
    if isinstance(random_state, numbers.Integral):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}")
        return int(random_state)
    if isinstance(random_state, np.random.SeedSequence):
        return int(random_state.generate_state(2, dtype=np.uint64)[0])
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int64).max))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int64).max))
    raise TypeError(
        "random_state must be None, a non-negative int, a numpy SeedSequence, "
        f"RandomState or Generator, got {random_state!r}"
    )


@dataclass(frozen=True)
class _Grid:
    generators: dict
    learners: dict
    graph: Any
    graph_params: dict
    densities: tuple
    n_features: tuple
    n_samples: tuple
    n_repeats: int
    model: str
    metrics: tuple
    timeout: float | None

    def cells(self) -> Iterator[_Cell]:
        for generator in self.generators:
            for n_features in self.n_features:
                for density in self.densities:
                    for repeat in range(self.n_repeats):
                        yield _Cell(generator, n_features, density, repeat)

    def keys(self) -> list[tuple]:
        """Every row key, in the frame's order."""
        return [
            (g, learner, d, p, n, r)
            for g in self.generators
            for learner in self.learners
            for d in self.densities
            for p in self.n_features
            for n in self.n_samples
            for r in range(self.n_repeats)
        ]


def _plan(grid: _Grid, done: set[tuple], n_workers: int) -> tuple[list[_Task], int]:
    """Tasks for the fits not stored yet, and how many fits that is.

    A task is one cell with all its pending fits, so the graph and matrix are drawn
    once and shared; with too few cells to keep ``n_workers`` busy, cells are split
    by sample size and then by learner (results do not change: seeds depend on
    values only). Tasks with the largest data sets go first, so the long ones do not
    end up last (longest-processing-time-first scheduling).
    """
    tasks = []
    for cell in grid.cells():
        fits = tuple(
            (n, learner)
            for n in grid.n_samples
            for learner in grid.learners
            if (cell.generator, learner, cell.density, cell.n_features, n, cell.repeat)
            not in done
        )
        if fits:
            tasks.append(_Task(cell, fits))
    n_fits = sum(len(task.fits) for task in tasks)
    target = _TASKS_PER_WORKER * n_workers if n_workers > 1 else 0
    for split_by in (0, 1):  # 0: sample size, 1: learner
        if len(tasks) >= target:
            break
        tasks = [
            _Task(task.cell, tuple(fit for fit in task.fits if fit[split_by] == part))
            for task in tasks
            for part in dict.fromkeys(fit[split_by] for fit in task.fits)
        ]
    tasks.sort(key=lambda task: -max(n for n, _ in task.fits))
    return tasks, n_fits


# --------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------


class BenchmarkResult:
    """The rows of a benchmark study, as a tidy pandas DataFrame.

    Returned by :meth:`Benchmark.run`; not meant to be built by hand.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per (generator, learner, density, n_features, n_samples, repeat).
    study : dict
        The study configuration (what the store checks on resume).
    store : str or None
        Path of the store the rows live in, or None for an in-memory run.
    n_computed : int
        Number of rows computed by this run (the others were already stored).

    Attributes
    ----------
    frame : pandas.DataFrame
        Columns: ``generator``, ``learner``, ``density`` (NaN for graph families
        without a density), ``n_features``, ``n_samples``, ``repeat``, ``seed``
        (shared by the rows drawn on the same graph with the same noise), one
        column per metric (NaN unless ``status == "ok"``; also NaN when the metric
        is undefined for the true graph, e.g. ROC AUC of an empty graph, with the
        reason in ``message``), ``fit_time`` (seconds), ``status`` (``"ok"``,
        ``"failed"``, ``"timeout"``), ``message`` (the error for failed rows) and
        ``versions`` (JSON of the package versions where the fit ran).
    study : dict
        The study configuration.
    store : str or None
        The store path.
    n_computed : int
        Rows computed by the run that returned this result.

    Examples
    --------
    >>> from sklearn.covariance import GraphicalLasso
    >>> from skggm_bench.benchmark import Benchmark
    >>> from skggm_bench.generators import DiagonalDominance
    >>> result = Benchmark({"dd": DiagonalDominance()},
    ...                    {"glasso": GraphicalLasso(alpha=0.1)},
    ...                    n_features=8, n_samples=(50, 100), n_repeats=2,
    ...                    metrics=("f1", "shd"), random_state=0).run()
    >>> result
    BenchmarkResult(4 rows: 4 ok, 0 failed, 0 timeout)
    >>> result.frame.groupby("n_samples")["status"].count().to_dict()
    {50: 2, 100: 2}
    """

    def __init__(
        self,
        frame: Any,
        study: dict,
        store: str | None = None,
        n_computed: int = 0,
    ) -> None:
        self.frame = frame
        self.study = study
        self.store = store
        self.n_computed = n_computed

    def __repr__(self) -> str:
        counts = self.frame["status"].value_counts()
        parts = ", ".join(
            f"{counts.get(status, 0)} {status}"
            for status in ("ok", "failed", "timeout")
        )
        return f"BenchmarkResult({len(self.frame)} rows: {parts})"

    def leaderboard(
        self, metric: str = "f1", by: Sequence[str] = ("density",), **kwargs: Any
    ) -> Any:
        """Rank the learners by ``metric`` (:mod:`~skggm_bench.benchmark.leaderboard`).

        Parameters
        ----------
        metric : str, default="f1"
            A metric column of :attr:`frame`.
        by : sequence of str, default=("density",)
            Columns that define the scenarios the ranking is reported for.
        **kwargs
            Passed on to :func:`skggm_bench.benchmark.leaderboard.leaderboard`.

        Returns
        -------
        pandas.DataFrame
            What :func:`skggm_bench.benchmark.leaderboard.leaderboard` returns.

        Examples
        --------
        >>> from sklearn.covariance import GraphicalLasso, LedoitWolf
        >>> from skggm_bench.generators import DiagonalDominance
        >>> result = Benchmark({"dd": DiagonalDominance()},
        ...                    {"glasso": GraphicalLasso(alpha=0.1),
        ...                     "ledoit_wolf": LedoitWolf()},
        ...                    n_features=8, densities=0.3, n_samples=100,
        ...                    n_repeats=3, metrics=("f1",), random_state=0).run()
        >>> board = result.leaderboard("f1", by=("density",))
        >>> board[["learner", "position"]].to_dict("list")
        {'learner': ['glasso', 'ledoit_wolf'], 'position': [1, 2]}
        """
        from .leaderboard import leaderboard

        return leaderboard(self.frame, metric=metric, by=by, **kwargs)

    def plot(self, **kwargs: Any) -> Any:
        """Plot the results (see :func:`skggm_bench.benchmark.plotting.plot_results`).

        Parameters
        ----------
        **kwargs
            Passed on to :func:`skggm_bench.benchmark.plotting.plot_results`.

        Returns
        -------
        object
            What :func:`skggm_bench.benchmark.plotting.plot_results` returns.

        Examples
        --------
        >>> from sklearn.covariance import LedoitWolf
        >>> from skggm_bench.generators import DiagonalDominance
        >>> result = Benchmark({"dd": DiagonalDominance()}, {"lw": LedoitWolf()},
        ...                    n_features=8, densities=(0.1, 0.3),
        ...                    n_samples=(50, 100), metrics=("tpr", "ppv"),
        ...                    random_state=0).run()
        >>> figures = result.plot(metrics="tpr")   # one figure per density
        >>> sorted(figures)
        [0.1, 0.3]
        """
        from .plotting import plot_results

        return plot_results(self.frame, **kwargs)


class Benchmark:
    """Run structure learners on data from graphical model generators, over a grid.

    For every generator, number of variables, density, sample size and repeat, a
    data set with a known graph is drawn and every learner is fitted on it and
    scored. The design is paired (all generators share the graph and the noise of a
    (density, n_features, repeat) cell; all learners share each data set) and
    seeded from one ``SeedSequence``; see the module docstring and
    ``docs/harness.md``.

    Parameters
    ----------
    generators : dict of str to GraphicalModelGenerator
        Named matrix samplers (any estimator-like object with ``fit(graph)`` and
        ``sample(n)``; it is cloned, and its ``random_state`` set per cell).
    learners : dict of str to estimator
        Named scikit-learn estimators, fitted as ``fit(X)`` on clones. The graph is
        read from the fitted estimator with the estimator protocol of
        :mod:`skggm_bench.metrics` (``adjacency_``, then ``precision_`` or
        ``covariance_``). A learner's ``random_state`` (nested ones included) that
        is ``None`` gets a seed derived from the row.
    graph : str or callable, default="erdos_renyi"
        A family of :data:`skggm_bench.datasets.GRAPH_FAMILIES`, or a function
        ``graph(n_features, density, random_state, **graph_params)`` returning a
        graph in any form :func:`skggm_bench.graphs.check_adjacency` accepts.
    densities : float or sequence of float or None, default=(0.1,)
        Fractions of the node pairs that are edges, in [0, 1] (see
        :func:`skggm_bench.datasets.make_ggm`). ``None`` means the family's
        default, and is the only value fixed-structure families (chain, lattice,
        ...) accept; such rows have a NaN density.
    n_features : int or sequence of int, default=50
        Numbers of variables ``p`` (at least 2).
    n_samples : int or sequence of int, default=(100,)
        Sample sizes. The data set of size ``n`` is the first ``n`` rows of the
        noise shared by the cell, mapped through the generator's matrix.
    n_repeats : int, default=1
        Independent repeats of every cell (new graph, matrices and noise).
    model : {"concentration", "covariance"}, default="concentration"
        Role of the generated matrix: the precision (the graph is a conditional
        independence graph) or the covariance (a marginal independence graph).
    metrics : sequence of str, default=DEFAULT_METRICS
        Names accepted by :func:`skggm_bench.metrics.make_structure_scorer`
        (``"tpr"``, ``"ppv"``, ``"fpr"``, ``"f1"``, ``"mcc"``, ``"shd"``,
        ``"roc_auc"``, ``"average_precision"`` or the long names); each becomes a
        column holding the raw metric (SHD is a count, lower is better).
    n_jobs : int or None, default=None
        Parallel workers, as in joblib (``None``: 1 unless a surrounding
        ``joblib.parallel_config`` says otherwise; ``-1``: all cores).
    backend : str or None, default="loky"
        joblib backend: ``"loky"`` (processes), ``"threading"``, ``"dask"`` (needs
        a ``dask.distributed.Client`` in this process, connected to a local or
        remote scheduler), ``"ray"`` (if installed) or any registered backend;
        ``None`` uses the active ``joblib.parallel_config``.
    store : str, os.PathLike, ResultStore or None, default=None
        Where rows are written as they finish. ``None`` keeps them in memory; a
        path (one SQLite file per study) persists them, and running the same study
        again skips the stored rows. A store holding a different study raises
        :class:`~skggm_bench.benchmark.store.StudyMismatchError`.
    random_state : int, numpy SeedSequence, RandomState, Generator or None, \
default=None
        Entropy of the study's SeedSequence. ``None`` draws fresh entropy, except
        when resuming a stored study, whose entropy is reused.
    timeout : float or None, default=None
        Seconds allowed per fit; a slower fit is abandoned and recorded with status
        ``"timeout"`` (see Notes).
    graph_params : dict or None, default=None
        Extra parameters of the graph family (e.g. ``{"n_clusters": 3}`` for
        ``"cluster"``) or keyword arguments of the graph callable.
    verbose : int, default=0
        joblib's verbosity.

    Attributes
    ----------
    entropy_ : int
        The study entropy used by the last :meth:`run` (set by it); with it and the
        grid, every row can be regenerated (:meth:`dataset`).

    See Also
    --------
    skggm_bench.benchmark.store.ResultStore : The results store.
    skggm_bench.datasets.make_ggm : One data set with a known graph.

    Notes
    -----
    A learner that raises, or whose fitted attributes are unusable (NaN, wrong
    shape), gives a row with status ``"failed"`` and the error in ``message``; one
    that exceeds ``timeout`` gives status ``"timeout"``. The run goes on.

    Timeouts run the fit in a daemon thread; at the deadline the harness stops
    waiting, records the timeout and asks CPython to raise an exception in that
    thread at its next bytecode. Pure-Python loops stop at once, but a fit stuck in
    one long C call (a BLAS routine, a compiled solver) runs on until that call
    returns, keeping a core busy while the next fits start. Fit times are wall
    times.

    Interrupting :meth:`run` (Ctrl-C) keeps every committed row and re-raises
    ``KeyboardInterrupt``; the next run of the same study resumes.

    Examples
    --------
    >>> from sklearn.covariance import GraphicalLasso, LedoitWolf
    >>> from skggm_bench.benchmark import Benchmark
    >>> from skggm_bench.generators import DiagonalDominance, PartialOrthogonalization
    >>> bench = Benchmark(
    ...     generators={"dd": DiagonalDominance(),
    ...                 "port": PartialOrthogonalization()},
    ...     learners={"glasso": GraphicalLasso(alpha=0.1),
    ...               "ledoit_wolf": LedoitWolf()},
    ...     densities=(0.2, 0.4), n_features=10, n_samples=200, n_repeats=2,
    ...     metrics=("tpr", "ppv"), random_state=0)
    >>> frame = bench.run().frame
    >>> frame.shape
    (16, 13)
    >>> # LedoitWolf's precision is dense: every pair is an edge, every edge is found
    >>> frame.loc[frame.learner == "ledoit_wolf", "tpr"].unique()
    array([1.])
    >>> data = bench.dataset("dd", density=0.2, repeat=0, n_samples=200)
    >>> data.X.shape, data.adjacency.shape
    ((200, 10), (10, 10))
    """

    def __init__(
        self,
        generators: Mapping[str, Any],
        learners: Mapping[str, Any],
        *,
        graph: str | Callable[..., Any] = "erdos_renyi",
        densities: Any = (0.1,),
        n_features: Any = 50,
        n_samples: Any = (100,),
        n_repeats: int = 1,
        model: str = "concentration",
        metrics: Sequence[str] = DEFAULT_METRICS,
        n_jobs: int | None = None,
        backend: str | None = "loky",
        store: Any = None,
        random_state: Any = None,
        timeout: float | None = None,
        graph_params: Mapping[str, Any] | None = None,
        verbose: int = 0,
    ) -> None:
        self.generators = generators
        self.learners = learners
        self.graph = graph
        self.densities = densities
        self.n_features = n_features
        self.n_samples = n_samples
        self.n_repeats = n_repeats
        self.model = model
        self.metrics = metrics
        self.n_jobs = n_jobs
        self.backend = backend
        self.store = store
        self.random_state = random_state
        self.timeout = timeout
        self.graph_params = graph_params
        self.verbose = verbose

    def __repr__(self) -> str:
        return (
            f"Benchmark(generators={list(self.generators)}, "
            f"learners={list(self.learners)}, graph={self.graph!r}, "
            f"densities={self.densities!r}, n_features={self.n_features!r}, "
            f"n_samples={self.n_samples!r}, n_repeats={self.n_repeats!r})"
        )

    # -- validation ------------------------------------------------------------------

    def _validate(self) -> _Grid:
        validate_parameter_constraints(
            {
                "n_repeats": [Interval(numbers.Integral, 1, None, closed="left")],
                "model": [StrOptions({"concentration", "covariance"})],
                "timeout": [Interval(numbers.Real, 0, None, closed="neither"), None],
                "n_jobs": [numbers.Integral, None],
                "graph_params": [dict, None],
                "verbose": ["verbose"],
            },
            {
                "n_repeats": self.n_repeats,
                "model": self.model,
                "timeout": self.timeout,
                "n_jobs": self.n_jobs,
                "graph_params": self.graph_params,
                "verbose": self.verbose,
            },
            caller_name="Benchmark",
        )
        if self.n_jobs == 0:
            raise ValueError(
                "n_jobs == 0 has no meaning; use None, -1 or a positive int"
            )
        if isinstance(self.graph, str):
            if self.graph not in GRAPH_FAMILIES:
                raise ValueError(
                    f"graph={self.graph!r} is not a graph family; choose one of "
                    f"{list(GRAPH_FAMILIES)} or pass a callable "
                    "graph(n_features, density, random_state)"
                )
        elif not callable(self.graph):
            raise TypeError(
                "graph must be a family name or a callable graph(n_features, "
                f"density, random_state), got {self.graph!r}"
            )
        grid = _Grid(
            generators=_check_named_objects(
                self.generators,
                "generators",
                ("fit", "sample", "get_params"),
                "{'dd': DiagonalDominance()}",
            ),
            learners=_check_named_objects(
                self.learners,
                "learners",
                ("fit", "get_params"),
                "{'glasso': GraphicalLasso()}",
            ),
            graph=self.graph,
            graph_params=dict(self.graph_params or {}),
            densities=_check_densities(self.densities),
            n_features=_check_integers(self.n_features, "n_features", 2),
            n_samples=_check_integers(self.n_samples, "n_samples", 1),
            n_repeats=int(self.n_repeats),
            model=self.model,
            metrics=_check_metrics(self.metrics),
            timeout=None if self.timeout is None else float(self.timeout),
        )
        # Draw each graph once now, so an unreachable density or a bad graph
        # parameter fails before anything runs, with the datasets module's message.
        for p in grid.n_features:
            for density in grid.densities:
                try:
                    _draw_graph(grid.graph, p, density, grid.graph_params, seed=0)
                except Exception as exc:
                    raise ValueError(
                        f"cannot draw a graph={_describe(grid.graph)!r} with "
                        f"n_features={p}, density={density}: {exc}"
                    ) from exc
        return grid

    def _study(self, grid: _Grid, entropy: int) -> dict:
        return {
            "seeding": _SEEDING_SCHEME,
            "entropy": entropy,
            "generators": _describe(grid.generators),
            "learners": _describe(grid.learners),
            "graph": _describe(grid.graph),
            "graph_params": _describe(grid.graph_params),
            "densities": list(grid.densities),
            "n_features": list(grid.n_features),
            "n_samples": list(grid.n_samples),
            "n_repeats": grid.n_repeats,
            "model": grid.model,
            "metrics": [column for column, *_ in grid.metrics],
            "timeout": grid.timeout,
        }

    def _open_store(self) -> ResultStore:
        if self.store is None:
            return ResultStore(":memory:")
        if isinstance(self.store, ResultStore):
            return self.store
        if isinstance(self.store, (str, os.PathLike)):
            return ResultStore(self.store)
        raise TypeError(
            f"store must be None, a file path or a ResultStore, got {self.store!r}"
        )

    def _spec(self, grid: _Grid, entropy: int) -> _Spec:
        return _Spec(
            entropy=entropy,
            generators=grid.generators,
            learners=grid.learners,
            graph=grid.graph,
            graph_params=grid.graph_params,
            model=grid.model,
            metrics=grid.metrics,
            timeout=grid.timeout,
        )

    # -- running ---------------------------------------------------------------------

    def run(self, progress: Callable[[int, int], Any] | None = None) -> BenchmarkResult:
        """Run every fit of the grid that is not stored yet; return all the rows.

        Parameters
        ----------
        progress : callable or None, default=None
            Called as ``progress(done, total)`` (numbers of rows) once before the
            first task, with the rows already stored, and after every task.

        Returns
        -------
        BenchmarkResult
            All the rows of the grid (stored earlier or computed now), sorted in
            grid order: generators and learners as given, then densities,
            n_features, n_samples and repeats.

        Raises
        ------
        ValueError, TypeError
            For an invalid configuration, before anything runs.
        StudyMismatchError
            If ``store`` holds a different study.
        KeyboardInterrupt
            Re-raised after an interruption; the rows committed so far are kept.

        Examples
        --------
        >>> from sklearn.covariance import GraphicalLasso
        >>> from skggm_bench.generators import DiagonalDominance
        >>> calls = []
        >>> result = Benchmark({"dd": DiagonalDominance()},
        ...                    {"glasso": GraphicalLasso(alpha=0.2)},
        ...                    n_features=8, n_samples=50, n_repeats=3,
        ...                    random_state=0).run(progress=lambda *a: calls.append(a))
        >>> calls[0], calls[-1]
        ((0, 3), (3, 3))
        """
        if progress is not None and not callable(progress):
            raise TypeError(
                f"progress must be a callable(done, total), got {progress!r}"
            )
        grid = self._validate()
        # Entering the backend's configuration validates it (unknown name, dask
        # without a client) before the store is touched.
        with self._backend_config():
            n_workers = joblib.effective_n_jobs(self.n_jobs)
            store = self._open_store()
            try:
                entropy = self._entropy(store)
                study = store.ensure_study(self._study(grid, entropy))
                self.entropy_ = entropy
                n_computed = self._fill(store, grid, entropy, n_workers, progress)
                frame = _ordered_frame(store.frame(), grid)
            finally:
                if store is not self.store:  # opened here: close it here
                    store.close()
        path = None if store.path == ":memory:" else store.path
        return BenchmarkResult(frame, study, store=path, n_computed=n_computed)

    def _entropy(self, store: ResultStore) -> int:
        entropy = _check_random_state(self.random_state)
        if entropy is not None:
            return entropy
        stored = store.study()  # random_state=None resumes with the stored entropy
        if stored is not None and "entropy" in stored:
            return int(stored["entropy"])
        return int(np.random.SeedSequence().entropy)

    def _fill(
        self,
        store: ResultStore,
        grid: _Grid,
        entropy: int,
        n_workers: int,
        progress: Callable[[int, int], Any] | None,
    ) -> int:
        """Compute the rows missing from ``store``; return how many were added."""
        keys = grid.keys()
        done = store.completed_keys().intersection(keys)
        n_done, n_computed = len(done), 0
        if progress is not None:
            progress(n_done, len(keys))
        tasks, _ = _plan(grid, done, n_workers)
        results = self._execute(self._spec(grid, entropy), tasks, n_workers)
        try:
            for rows in results:
                # One transaction per task: an interruption (Ctrl-C, SIGKILL) leaves
                # every finished task committed and nothing half-written.
                n_computed += store.append(rows)
                n_done += len(rows)
                if progress is not None:
                    progress(n_done, len(keys))
        finally:  # on KeyboardInterrupt: cancel the queued tasks, then re-raise
            results.close()
        return n_computed

    def _backend_config(self) -> Any:
        if self.backend is None:  # keep whatever parallel_config is active
            return contextlib.nullcontext()
        try:
            return joblib.parallel_config(backend=self.backend)
        except (ValueError, KeyError) as exc:
            raise ValueError(f"backend={self.backend!r} is not usable: {exc}") from exc

    def _execute(
        self, spec: _Spec, tasks: list[_Task], n_workers: int
    ) -> Iterator[list[dict]]:
        """Yield each task's rows as soon as it finishes."""
        if not tasks:
            return
        backend, _ = joblib.parallel.get_active_backend()
        if n_workers == 1 or getattr(backend, "supports_return_generator", True):
            outputs = joblib.Parallel(
                n_jobs=self.n_jobs,
                return_as="generator_unordered",
                verbose=self.verbose,
            )(joblib.delayed(_run_task)(spec, task) for task in tasks)
            try:
                yield from outputs
            finally:  # on interruption: cancel what is queued, stop the workers
                outputs.close()
            return
        # A backend without streaming results: run in waves of a few tasks per
        # worker and store each wave, so a crash still loses only one wave.
        wave = _TASKS_PER_WORKER * n_workers
        batch = joblib.Parallel(n_jobs=self.n_jobs, verbose=self.verbose)
        for start in range(0, len(tasks), wave):
            yield from batch(
                joblib.delayed(_run_task)(spec, task)
                for task in tasks[start : start + wave]
            )

    def dataset(
        self,
        generator: str,
        *,
        density: float | None,
        repeat: int,
        n_samples: int,
        n_features: int | None = None,
    ) -> Bunch:
        """Re-create the data set behind a result row (e.g. to debug a failure).

        Parameters
        ----------
        generator : str
            A key of ``generators``.
        density : float or None
            The row's density (None for families without one).
        repeat : int
            The row's repeat.
        n_samples : int
            The row's sample size.
        n_features : int or None, default=None
            The row's ``n_features``; may be omitted when the grid has one value.

        Returns
        -------
        sklearn.utils.Bunch
            ``X`` (n_samples, p), ``adjacency`` (the true graph), ``matrix`` (the
            generator's draw, a precision or a covariance according to ``model``),
            ``model`` and ``seed`` (the row's seed).

        Raises
        ------
        ValueError
            If the study entropy is unknown: set an int ``random_state`` or call
            :meth:`run` first.

        Examples
        --------
        >>> from skggm_bench.generators import DiagonalDominance
        >>> bench = Benchmark({"dd": DiagonalDominance()}, {}, n_features=6,
        ...                   random_state=0)
        >>> bench.dataset("dd", density=0.1, repeat=0, n_samples=20).X.shape
        (20, 6)
        """
        entropy = getattr(self, "entropy_", None)
        if entropy is None:
            entropy = _check_random_state(self.random_state)
        if entropy is None:
            raise ValueError(
                "the study entropy is unknown: set random_state to an int, or call "
                "run() first"
            )
        generators = _check_named_objects(
            self.generators, "generators", ("fit", "sample", "get_params"), "{}"
        )
        if generator not in generators:
            raise ValueError(
                f"unknown generator {generator!r}; have {list(generators)}"
            )
        if n_features is None:
            sizes = _check_integers(self.n_features, "n_features", 2)
            if len(sizes) != 1:
                raise ValueError(f"the grid has n_features {sizes}: say which one")
            n_features = sizes[0]
        density = _check_densities((density,))[0]
        spec = _Spec(
            entropy=entropy,
            generators=generators,
            learners={},
            graph=self.graph,
            graph_params=dict(self.graph_params or {}),
            model=self.model,
            metrics=(),
            timeout=None,
        )
        cell = _Cell(generator, int(n_features), density, int(repeat))
        seed, adjacency, matrix = _cell_data(spec, cell)
        return Bunch(
            X=_sample(spec, seed, matrix, int(n_samples)),
            adjacency=adjacency,
            matrix=matrix,
            model=self.model,
            seed=seed,
        )


def _ordered_frame(frame: Any, grid: _Grid) -> Any:
    """The grid's rows, in grid order, with the columns in their documented order."""
    position = {key: index for index, key in enumerate(grid.keys())}
    densities = [None if math.isnan(d) else d for d in frame["density"]]
    keys = zip(
        frame["generator"],
        frame["learner"],
        densities,
        frame["n_features"],
        frame["n_samples"],
        frame["repeat"],
        strict=True,
    )
    order = [position.get(tuple(key)) for key in keys]
    keep = [index is not None for index in order]
    frame = frame.loc[keep].assign(
        _order=[index for index in order if index is not None]
    )
    columns = [
        *KEY_COLUMNS,
        "seed",
        *(column for column, *_ in grid.metrics),
        "fit_time",
        "status",
        "message",
        "versions",
    ]
    return frame.sort_values("_order")[columns].reset_index(drop=True)
