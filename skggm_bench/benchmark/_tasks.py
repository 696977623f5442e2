"""Cells, fits and the functions shipped to the workers: draw, fit, score.

A *cell* is one generator on one (graph, n_features, density, repeat): one graph,
one matrix, one latent Gaussian data set of the largest sample size. A *fit* is one
learner on one data set of a cell: a data model and a sample size. Each fit is one
task, so that the scheduler can balance the work finely; a worker draws a cell once
and keeps it for the following fits of that cell.

Everything that runs a learner's or a generator's code runs in a fresh child
process of the worker's fork server (``_isolation.py``): the draw (``"prepare"``)
and the fit with its scoring (``"fit"``) are two requests, each with its own
deadline, so that a slow draw is never blamed on a learner. A drawn cell is kept
(as plain arrays) by the fork server's template, so the children of its later fits
inherit it, and a ``"prepare"`` of a kept cell needs no child at all.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, clone

from ..datasets._pipeline import (
    draw_graph,
    draw_latent,
    draw_model,
    observe,
)
from ..metrics import GroundTruth, score_learner
from ._graphs import GraphEntry
from ._isolation import MISSING, Server, error_message, truncate, worker_for
from ._provenance import package_versions
from ._schema import CELL_COLUMNS, KEY_COLUMNS, Status
from ._seeding import cell_seed, learner_seed

__all__ = ["Cell", "Fit", "Spec", "run_fit"]

# Cells a worker keeps drawn: at least the last 4 (one cell of p = 1000 variables
# is tens of MB), more while they take at most 64 MB (thousands of small cells: the
# scheduler hands out a cell's sample sizes far apart).
_CACHED_CELLS = 4
_CACHED_BYTES = 64 * 2**20
_SIGNAL = CELL_COLUMNS[1:]  # every cell column but the seed


@dataclass(frozen=True)
class Cell:
    """One generator on one (graph, n_features, density, repeat).

    ``density`` is the row's (a fixed-structure graph's realised density).
    """

    generator: str
    graph: str
    n_features: int
    density: float | None
    repeat: int


@dataclass(frozen=True)
class Fit:
    """One learner on one data set (data model, sample size) of a cell."""

    cell: Cell
    data_model: str
    n_samples: int
    learner: str

    @property
    def key(self) -> tuple:
        """The row key, in the order of ``KEY_COLUMNS``."""
        c = self.cell
        return (
            c.generator,
            c.graph,
            self.data_model,
            self.learner,
            c.density,
            c.n_features,
            self.n_samples,
            c.repeat,
        )


@dataclass(frozen=True)
class Spec:
    """Everything a worker needs besides the fit's coordinates."""

    token: str  # identifies the study run: a worker's child serves one spec
    entropy: int
    generators: Mapping[str, Any]
    data_models: Mapping[str, Any]
    learners: Mapping[str, Any]
    graphs: Mapping[str, GraphEntry]
    model: str
    metrics: tuple[str, ...]
    largest_n: Mapping[int, int]  # per n_features: the largest sample size
    timeout: float | None
    memory_limit: int | None
    isolate: bool


def seed_estimator(estimator: Any, seed: int) -> None:
    """Give every ``random_state=None`` (nested ones included) a derived seed."""
    params = estimator.get_params(deep=True)
    names = sorted(
        name
        for name, value in params.items()
        if value is None and (name == "random_state" or name.endswith("__random_state"))
    )
    seeds = np.random.SeedSequence(seed).generate_state(len(names))
    if names:
        estimator.set_params(**dict(zip(names, seeds.tolist(), strict=True)))


class _Toy(BaseEstimator):
    """The learner of the warm-up: its estimate is its input, as a covariance."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y=None):
        self.covariance_ = np.array(X)
        self.precision_ = np.linalg.inv(self.covariance_)
        return self


@dataclass
class _CellData:
    """A drawn cell, as plain arrays (the fork server's template keeps it)."""

    seed: int
    adjacency: np.ndarray
    covariance: np.ndarray
    precision: np.ndarray
    latent: np.ndarray
    signal: dict
    observed: dict[str, np.ndarray]


class _Server(Server):
    """What a worker's fork server does: draw cells, fit and score learners."""

    min_kept = _CACHED_CELLS
    max_kept_bytes = _CACHED_BYTES

    def __init__(self, spec: Spec) -> None:
        super().__init__()
        self.spec = spec

    def cached(self, name: str, args: tuple) -> Any:
        if name == "prepare":
            cell, data_model = args
            data = self.kept.get(cell)
            if data is not None and data_model in data.observed:
                self.kept.move_to_end(cell)
                return data.signal
        return MISSING

    def size(self, value: _CellData) -> int:
        arrays = [value.adjacency, value.covariance, value.precision, value.latent]
        return sum(a.nbytes for a in [*arrays, *value.observed.values()])

    def warm_up(self) -> None:
        """Draw, fit and score a toy problem with this package's own code."""
        from ..generators import DiagonalDominance

        graph = draw_graph("erdos_renyi", 4, 0.5, {}, 0)
        truth = draw_model(graph.adjacency, DiagonalDominance(), self.spec.model, 0)
        latent = draw_latent(truth, 8, 0)
        observe(latent, truth.covariance, None, 0)
        truth.signal()
        estimator = clone(_Toy())
        seed_estimator(estimator, 0)
        estimator.fit(np.array(truth.covariance))
        scored = GroundTruth(
            truth.adjacency, self.spec.model, truth.covariance, truth.precision
        )
        score_learner(estimator, scored, self.spec.metrics)

    def _cell(self, cell: Cell) -> _CellData:
        data = self.kept.get(cell)
        if data is not None:
            return data
        spec = self.spec
        entry = spec.graphs[cell.graph]
        density = entry.drawn_density(cell.density)
        seed = _seed(spec, cell)
        graph = draw_graph(
            entry.family, cell.n_features, density, dict(entry.params), seed
        )
        truth = draw_model(
            graph.adjacency, spec.generators[cell.generator], spec.model, seed
        )
        latent = draw_latent(truth, spec.largest_n[cell.n_features], seed)
        signal = truth.signal() | {"n_added_edges": int(truth.n_added_edges)}
        data = _CellData(
            seed,
            np.asarray(truth.adjacency, dtype=bool),
            np.asarray(truth.covariance, dtype=np.float64),
            np.asarray(truth.precision, dtype=np.float64),
            np.asarray(latent, dtype=np.float64),
            {name: _plain(value) for name, value in signal.items()},
            {},
        )
        self.keep(cell, data)
        return data

    def prepare(self, cell: Cell, data_model: str) -> dict:
        """Draw the cell and observe its data under ``data_model``; its signal."""
        data = self._cell(cell)
        if data_model not in data.observed:
            data.observed[data_model], _ = observe(
                data.latent,
                data.covariance,
                self.spec.data_models[data_model],
                data.seed,
            )
            self.keep(cell, data)
        return data.signal

    def fit(self, fit: Fit) -> dict:
        """Fit the learner on its own copy of the data set; score it."""
        spec = self.spec
        data = self._cell(fit.cell)
        # Each fit gets its own copy: a learner that writes into X cannot change
        # the data of the next one.
        X = np.array(data.observed[fit.data_model][: fit.n_samples])
        estimator = clone(spec.learners[fit.learner])
        seed_estimator(
            estimator,
            learner_seed(
                data.seed,
                fit.cell.generator,
                fit.data_model,
                fit.n_samples,
                fit.learner,
            ),
        )
        start = time.perf_counter()
        estimator.fit(X)
        fit_time = time.perf_counter() - start
        truth = GroundTruth(
            data.adjacency, spec.model, data.covariance, data.precision
        )
        result = {"fit_time": fit_time}
        try:
            scores = score_learner(estimator, truth, spec.metrics)
            for name, value in scores.values.items():
                if math.isnan(value) and name not in scores.notes:
                    raise ValueError(f"metric {name} is NaN")
        except Exception as exc:
            # The fit succeeded, but what it exposes cannot be scored.
            return result | {"unusable": error_message(exc)}
        return result | {"values": scores.values, "notes": scores.notes}


def _plain(value: Any) -> int | float:
    """A number of the signal as a Python number (the template unpickles it)."""
    return int(value) if isinstance(value, (int, np.integer)) else float(value)


def _seed(spec: Spec, cell: Cell) -> int:
    density = spec.graphs[cell.graph].drawn_density(cell.density)
    return cell_seed(spec.entropy, cell.graph, cell.n_features, density, cell.repeat)


def _row(spec: Spec, fit: Fit, seed: int, signal: Mapping[str, Any]) -> dict:
    generator = type(spec.generators[fit.cell.generator]).__module__
    learner = type(spec.learners[fit.learner]).__module__
    key = dict(zip(KEY_COLUMNS, fit.key, strict=True))
    cell = {"seed": seed} | {name: signal.get(name, math.nan) for name in _SIGNAL}
    return key | cell | {"versions": package_versions(generator, learner)}


def _failure(status: Status, message: str, elapsed: float, metrics: tuple) -> dict:
    return {name: math.nan for name in metrics} | {
        "fit_time": elapsed,
        "status": status.value,
        "message": truncate(message),
    }


def run_fit(spec: Spec, fit: Fit) -> dict:
    """Draw (if needed), fit and score one learner; return its result row.

    Whatever the generator or the learner does, the outcome is a row: a failed
    draw gives ``"data generation failed: ..."``; a learner that raises, hangs,
    crashes or runs out of memory gives its status and what happened.
    """
    seed = _seed(spec, fit.cell)
    worker = worker_for(
        spec.token,
        lambda: _Server(spec),
        isolate=spec.isolate,
        memory_limit=spec.memory_limit,
    )
    # The draw (answered at once when the cell is kept) and the fit: two
    # requests, each with its own deadline, in one exchange with the worker's
    # fork server; the fit runs only if the draw succeeded.
    outcomes = worker.call_each(
        [("prepare", (fit.cell, fit.data_model)), ("fit", (fit,))], spec.timeout
    )
    prepared = outcomes[0]
    if prepared.status is not Status.OK:
        reason = prepared.message
        if prepared.status is Status.TIMEOUT:
            reason = f"the draw was {reason}"
        row = _row(spec, fit, seed, {})
        return row | _failure(
            Status.FAILED, f"data generation failed: {reason}", math.nan, spec.metrics
        )
    row = _row(spec, fit, seed, prepared.value)
    outcome = outcomes[1]
    if outcome.status is not Status.OK:
        return row | _failure(
            outcome.status, outcome.message, outcome.elapsed, spec.metrics
        )
    result = outcome.value
    if "unusable" in result:
        return row | _failure(
            Status.FAILED,
            f"unusable fitted learner: {result['unusable']}",
            result["fit_time"],
            spec.metrics,
        )
    notes = "; ".join(
        f"{name} undefined: {why}" for name, why in result["notes"].items()
    )
    return (
        row
        | result["values"]
        | {"fit_time": result["fit_time"], "status": Status.OK.value, "message": notes}
    )
