"""What a harness worker does with a fit: draw, fit, score, in its fork server.

Everything that runs a learner's or a generator's code runs in a fresh child
process of the worker's fork server (``_isolation.py``): the draw (``"prepare"``)
and the fit with its scoring (``"fit"``) are two requests, each with its own
deadline, so that a slow draw is never blamed on a learner. A drawn cell is kept
(as plain arrays) by the fork server's template, so the children of its later fits
inherit it, and a ``"prepare"`` of a data set already observed needs no child at
all. :func:`run_fit` turns what came of the requests into the fit's row.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import math
import pickle
import sys
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from sklearn.base import BaseEstimator, clone

from ...datasets._pipeline import (
    draw_graph,
    draw_latent,
    draw_model,
    observe,
)
from ...learners._utils import validate_samples
from ...metrics import GroundTruth, score_learner
from ...utils._validation import constant_columns, constant_columns_message
from ..results._messages import normalise_message, ok_message
from ..results._provenance import package_versions
from ..results._schema import CELL_COLUMNS, DATA_HASH, KEY_COLUMNS, Status
from ._fits import Cell, Fit, Spec
from ._isolation import worker_for
from ._outcomes import MISSING, error_message, truncate
from ._related import RelatedCell, draw_related_cell
from ._seeding import cell_seed, learner_seed
from ._server import Server

__all__ = ["WARNING_COUNTS", "data_hash", "load_learner", "run_fit", "seed_estimator"]

# Cells a worker keeps drawn: at least the last 4 (one cell of p = 1000 variables
# is tens of MB), more while they take at most 64 MB (thousands of small cells: the
# scheduler hands out a cell's sample sizes far apart).
_CACHED_CELLS = 4
_CACHED_BYTES = 64 * 2**20
_SIGNAL = tuple(c for c in CELL_COLUMNS if c not in ("seed", DATA_HASH))

# Modules this process has tried to import for the learners (see ``_preload``).
_PRELOADED: set[str] = set()


def _preload(modules: tuple[str, ...]) -> None:
    """Import a learner's modules in the worker, before its fork server starts.

    The template forked from a worker that has imported them starts with them,
    and so does every fit's child: no fit's deadline pays for an import
    (importing scikit-learn's covariance module takes longer than a tight
    timeout). A module that cannot be imported here is left to the
    fit, which then fails with the reason (``load_learner``).
    """
    for module in modules:
        if module in _PRELOADED or module == "__main__":
            continue
        _PRELOADED.add(module)
        try:
            importlib.import_module(module)
        except Exception:  # the fit says why, in its row
            continue


def load_learner(shipped: Any) -> Any:
    """The learner shipped by :func:`ship_learner`, or why it cannot be loaded."""
    if not isinstance(shipped, bytes):
        return shipped  # sent as it is, to a worker sharing the parent's memory
    try:
        return pickle.loads(shipped)
    except Exception as exc:
        raise RuntimeError(
            f"the learner cannot be loaded in the worker process: "
            f"{type(exc).__name__}: {exc}"
        ) from exc


def seed_estimator(estimator: Any, seed: int) -> None:
    """Give every ``random_state=None`` (nested ones included) a derived seed.

    The ``k`` such parameters, sorted by name, get in that order the integers of
    ``SeedSequence(seed).generate_state(k)`` (docs/harness.md, "Seeding").
    """
    params = estimator.get_params(deep=True)
    names = sorted(
        name
        for name, value in params.items()
        if value is None and (name == "random_state" or name.endswith("__random_state"))
    )
    if names:  # no SeedSequence for a learner without one: it runs in a fresh child
        seeds = np.random.SeedSequence(seed).generate_state(len(names))
        estimator.set_params(**dict(zip(names, seeds.tolist(), strict=True)))


class _Toy(BaseEstimator):
    """The learner of the warm-up: its estimate is its input, as a covariance.

    Its input goes through scikit-learn's validation, as every learner's does:
    the first call in a process fills caches of the libraries (narwhals looks
    for its plugins among the installed packages' entry points, some 5 ms),
    which each fit's child then inherits instead of filling again.
    """

    def __init__(self, random_state: int | None = None) -> None:
        self.random_state = random_state

    def fit(self, X: np.ndarray, y: object = None) -> _Toy:
        self.covariance_ = validate_samples(self, X)
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
    signal: dict[str, int | float]
    observed: dict[str, np.ndarray]
    # (data model, n_samples) -> data hash: every learner of a data set shares it.
    hashes: dict[tuple[str, int], str] = field(default_factory=dict)
    # The cell of a related model (K classes, T times, hidden variables), or None.
    related: RelatedCell | None = None

    def rows(self, data_model: str, n_samples: int) -> tuple[np.ndarray, Any]:
        """The data set of ``n_samples`` (per group) rows, and its labels (or None)."""
        if self.related is not None:
            return self.related.data(n_samples)
        return self.observed[data_model][:n_samples], None


def _is_related_cell(value: Any) -> bool:
    """A related model's drawn cell: arrays of truth, a list of row arrays."""
    if type(value) is not RelatedCell:
        return False
    arrays = (value.adjacency, value.precision, value.covariance)
    optional = (value.sparse, value.low_rank)
    return (
        type(value.kind) is str
        and all(type(a) is np.ndarray for a in arrays)
        and all(a is None or type(a) is np.ndarray for a in optional)
        and type(value.rows) is list
        and all(type(a) is np.ndarray for a in value.rows)
        and type(value.signal) is dict
    )


class _Server(Server):
    """What a worker's fork server does: draw cells, fit and score learners."""

    min_kept = _CACHED_CELLS
    max_kept_bytes = _CACHED_BYTES
    keeping = frozenset({"prepare"})  # a fit's child never changes the kept cells
    plain_types = (Cell, _CellData, RelatedCell)

    def __init__(self, spec: Spec) -> None:
        super().__init__()
        self.spec = spec
        # Per learner: the top-level packages its fits imported. In a fit's own
        # child this starts empty each time (the child sees the template's
        # modules); served in-process, a package imported by an earlier fit of
        # the learner is not new to a later one, so it is remembered here.
        self.imported: dict[str, set[str]] = {}
        self._finalisers: list[Any] = []

    def cached(self, name: str, args: tuple[Any, ...]) -> Any:
        if name == "prepare":
            cell, data_model, n_samples = args
            data = self.kept.get(cell)
            # A data set already observed under this data model only needs its
            # hash (this package's code on plain arrays): no child, no fork.
            if data is not None and data_model in data.observed:
                self.kept.move_to_end(cell)
                return data.signal | {
                    DATA_HASH: self._hash(data, data_model, n_samples)
                }
        return MISSING

    def _hash(self, data: _CellData, data_model: str, n_samples: int) -> str:
        key = (data_model, n_samples)
        if key not in data.hashes:
            matrix = (
                data.precision
                if self.spec.model == "concentration"
                else data.covariance
            )
            data.hashes[key] = data_hash(data.rows(data_model, n_samples)[0], matrix)
        return data.hashes[key]

    def accepts_kept(self, key: Any, value: Any) -> bool:
        """A drawn cell: a :class:`Cell` key, a :class:`_CellData` of arrays."""
        if type(key) is not Cell or type(value) is not _CellData:
            return False
        arrays = (value.adjacency, value.covariance, value.precision, value.latent)
        return (
            type(value.seed) is int
            and all(type(a) is np.ndarray for a in arrays)
            and type(value.signal) is dict
            and type(value.observed) is dict
            and all(type(a) is np.ndarray for a in value.observed.values())
            and type(value.hashes) is dict
            and (value.related is None or _is_related_cell(value.related))
        )

    def size(self, value: _CellData) -> int:
        arrays = [value.adjacency, value.covariance, value.precision, value.latent]
        # A related cell's truth is the arrays above; its rows are its own.
        rows = [] if value.related is None else value.related.rows
        return sum(a.nbytes for a in [*arrays, *value.observed.values(), *rows])

    def warm_up(self) -> None:
        """The learners' process set-ups; a toy problem drawn, fitted and scored.

        The toy problem uses this package's own code only.
        """
        for target, args in self.spec.setups:
            module, _, name = target.partition(":")
            try:
                finaliser = getattr(importlib.import_module(module), name)(*args)
            except Exception:  # the fits that need it fail with the reason
                continue
            if callable(finaliser):
                self._finalisers.append(finaliser)
        from ...generators import DiagonalDominance

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

    def close(self) -> None:
        """Call what the learners' set-ups returned, last first."""
        for finaliser in reversed(self._finalisers):
            with contextlib.suppress(Exception):
                finaliser()

    def _cell(self, cell: Cell) -> _CellData:
        data: _CellData | None = self.kept.get(cell)
        if data is not None:
            return data
        spec = self.spec
        entry = spec.graphs[cell.graph]
        density = entry.drawn_density(cell.density)
        seed = _seed(spec, cell)
        graph = draw_graph(
            entry.family, cell.n_features, density, dict(entry.params), seed
        )
        if cell.model:
            return self._related_cell(
                cell, spec.models[cell.model], graph.adjacency, seed
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

    def _related_cell(
        self, cell: Cell, model: Any, adjacency: np.ndarray, seed: int
    ) -> _CellData:
        """Draw a cell of a related model (its stacked truth: ``(K, p, p)``)."""
        related = draw_related_cell(
            model,
            adjacency,
            self.spec.generators[cell.generator],
            self.spec.largest_n[cell.n_features],
            seed,
        )
        empty = np.empty((0, cell.n_features))
        data = _CellData(
            seed,
            related.adjacency,
            related.covariance,
            related.precision,
            empty,
            related.signal,
            {},
            related=related,
        )
        self.keep(cell, data)
        return data

    def prepare(self, cell: Cell, data_model: str, n_samples: int) -> dict[str, Any]:
        """Draw the cell and observe its data under ``data_model``; its signal.

        With the hash of the data set of ``n_samples`` rows the learner will get.
        """
        data = self._cell(cell)
        # Related models are observed as drawn (Gaussian rows): validate() refuses
        # other data models for them.
        if data.related is None and data_model not in data.observed:
            data.observed[data_model], _ = observe(
                data.latent,
                data.covariance,
                self.spec.data_models[data_model],
                data.seed,
            )
            self.keep(cell, data)  # back to the template, for the following fits
        return data.signal | {DATA_HASH: self._hash(data, data_model, n_samples)}

    def fit(self, fit: Fit, seed: int) -> dict[str, Any]:
        """Fit the learner, seeded with ``seed``, on its own copy of the data set;
        score it."""
        spec = self.spec
        data = self._cell(fit.cell)
        last_module = _last_module()
        # Each fit gets its own copy: a learner that writes into X cannot change
        # the data of the next one.
        observed, y = data.rows(fit.data_model, fit.n_samples)
        X = np.array(observed)
        # Every warning of loading and fitting the learner is counted for its row,
        # not printed: "always", so that a repeated warning counts every time.
        raised = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                estimator, fit_time, constant = self._fit_learner(fit, X, y, seed)
            except (MemoryError, KeyboardInterrupt):
                raise  # their own status (memory), or the user's interruption
            except BaseException as exc:
                raised = exc
        # The packages whose modules loading and fitting the learner imported
        # (a wrapper that imports its solver inside fit), as plain strings.
        imported = self.imported.setdefault(fit.learner, set())
        imported |= {name.partition(".")[0] for name in _modules_since(last_module)}
        if raised is not None:
            # A failed row, as the exception would make it, but whose versions
            # name what the fit imported before it raised.
            return {"raised": error_message(raised), "imported": sorted(imported)}
        truth = (
            None
            if data.related is not None
            else GroundTruth(
                data.adjacency, spec.model, data.covariance, data.precision
            )
        )
        result: dict[str, Any] = {
            "fit_time": fit_time,
            "imported": sorted(imported),
        } | _warning_summary(caught)
        data_notes = [constant_columns_message(constant)] if constant.size else []
        try:
            # The losses are judged against the data as drawn (``observed``), which
            # the learner cannot have changed.
            if data.related is not None:
                scores = data.related.score(estimator, spec.metrics, observed, y)
            else:
                # Not a related cell: `truth` is set.
                scored = cast(GroundTruth, truth)
                scores = score_learner(estimator, scored, spec.metrics, X=observed)
            for name, value in scores.values.items():
                if math.isnan(value) and name not in scores.notes:
                    raise ValueError(f"metric {name} is NaN")
        except Exception as exc:
            # The fit succeeded, but what it exposes cannot be scored.
            return result | {"unusable": error_message(exc)}
        return result | {
            "values": scores.values,
            "notes": scores.notes,
            "remarks": [*data_notes, *scores.remarks],
        }

    def _fit_learner(
        self, fit: Fit, X: np.ndarray, y: np.ndarray | None, seed: int
    ) -> tuple[Any, float, np.ndarray]:
        """The learner loaded, seeded with ``seed`` and fitted on ``X`` (and the
        labels ``y`` of a related model's groups); its fit time; and the constant
        columns of ``X`` (before the learner may write into it)."""
        # Loaded here, in the fit's own child: a learner the worker cannot load
        # fails its own fits, never the run (nor the template).
        estimator = clone(load_learner(self.spec.learners[fit.learner]))
        seed_estimator(estimator, seed)
        # Named in the row's message (before the learner may write into X): a
        # constant variable carries nothing to learn a graph from.
        constant = constant_columns(X)
        start = time.perf_counter()
        if y is None:
            estimator.fit(X)
        else:
            estimator.fit(X, np.array(y))
        return estimator, time.perf_counter() - start, constant


def _last_module() -> str | None:
    """The name of the module imported last (``sys.modules`` keeps import order)."""
    return next(reversed(sys.modules), None)


def _modules_since(last: str | None) -> list[str]:
    """The modules imported since ``last`` was the last one (:func:`_last_module`).

    Read from the end of ``sys.modules`` back to ``last``: in a fit's child,
    copying all of ``sys.modules`` (thousands of names inherited from the
    template) would write to the page of every name's reference count, some
    thousand copy-on-write faults per fit. Exact unless a fit takes ``last``
    itself out of ``sys.modules`` (every module then counts as new, or, if it
    imports it again, those before it are missed); no learner is known to.
    """
    found = []
    for name in reversed(sys.modules):
        if name is last:
            break
        found.append(name)
    return found


#: The key of a row (as :func:`run_fit` returns it, before it is stored) that holds
#: ``{warning class: count}`` of its fit, for the run's summary.
WARNING_COUNTS = "warning_counts"
# A first warning longer than this is cut in the row's message.
_WARNING_CHARS = 200


def _warning_summary(caught: list[warnings.WarningMessage]) -> dict[str, Any]:
    """The count, the first message and the count per class of ``caught``."""
    counts: dict[str, int] = {}
    for record in caught:
        name = record.category.__name__
        counts[name] = counts.get(name, 0) + 1
    first = ""
    if caught:
        text = f"{caught[0].category.__name__}: {caught[0].message}"
        text = " ".join(text.split())  # one line
        if len(text) > _WARNING_CHARS:
            text = text[: _WARNING_CHARS - 3] + "..."
        first = text
    return {"n_warnings": len(caught), "first_warning": first, "counts": counts}


def data_hash(X: np.ndarray, matrix: np.ndarray) -> str:
    """A hash of a data set: its observed ``X`` and its true matrix.

    The float64 bytes in C order, with the shapes, so that two rows share a hash
    exactly when their learners were given the same numbers on the same truth.
    Exact bytes: a data set drawn by another BLAS that differs in the last bit is
    a different data set, and a merge says so rather than assuming otherwise.
    """
    digest = hashlib.sha256()
    for array in (X, matrix):
        array = np.ascontiguousarray(array, dtype=np.float64)
        digest.update(repr(array.shape).encode())
        digest.update(array.tobytes())
    return digest.hexdigest()[:32]


def _plain(value: Any) -> int | float:
    """A number of the signal as a Python number (the template unpickles it)."""
    return int(value) if isinstance(value, (int, np.integer)) else float(value)


def _seed(spec: Spec, cell: Cell) -> int:
    density = spec.graphs[cell.graph].drawn_density(cell.density)
    return cell_seed(spec.entropy, cell.graph, cell.n_features, density, cell.repeat)


def _row(
    spec: Spec,
    fit: Fit,
    seed: int,
    signal: Mapping[str, Any],
    imported: tuple[str, ...] = (),
) -> dict[str, Any]:
    generator = type(spec.generators[fit.cell.generator]).__module__
    versions = (
        json.loads(package_versions(generator))
        | json.loads(spec.versions[fit.learner])
        | json.loads(package_versions(*imported))
    )
    key = dict(zip(KEY_COLUMNS, fit.key, strict=True))
    cell = {"seed": seed, DATA_HASH: signal.get(DATA_HASH, "")} | {
        name: signal.get(name, math.nan) for name in _SIGNAL
    }
    return key | cell | {"versions": json.dumps(versions, sort_keys=True)}


def _failure(
    status: Status, message: str, elapsed: float, metrics: tuple[str, ...]
) -> dict[str, float | str]:
    return {name: math.nan for name in metrics} | {
        "fit_time": elapsed,
        "status": status.value,
        "message": truncate(normalise_message(message)),
        "n_warnings": math.nan,  # the fit did not finish: its warnings are unknown
    }


def run_fit(spec: Spec, fit: Fit) -> dict[str, Any]:
    """Draw (if needed), fit and score one learner; return its result row.

    Whatever the generator or the learner does, the outcome is a row: a failed
    draw gives ``"data generation failed: ..."``; a learner that raises, hangs,
    crashes or runs out of memory gives its status and what happened.
    """
    seed = _seed(spec, fit.cell)
    # Every learner's modules, before the worker's fork server starts: its
    # template, and so every fit's child, then starts with all of them imported,
    # whichever learner the worker happens to serve first.
    for modules in spec.modules.values():
        _preload(modules)
    worker = worker_for(
        spec.token,
        lambda: _Server(spec),
        isolate=spec.isolate,
        memory_limit=spec.memory_limit,
    )
    # The learner's seed is derived here, where the code that derives it has run
    # before: in the fit's fresh child it would cost copy-on-write faults.
    seeded = learner_seed(
        seed, fit.cell.generator, fit.data_model, fit.n_samples, fit.learner
    )
    # The draw (answered at once when the data set is kept) and the fit: two
    # requests, each with its own deadline, in one exchange with the worker's
    # fork server; the fit runs only if the draw succeeded.
    outcomes = worker.call_each(
        [
            ("prepare", (fit.cell, fit.data_model, fit.n_samples)),
            ("fit", (fit, seeded)),
        ],
        spec.timeout,
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
    outcome = outcomes[1]
    if outcome.status is not Status.OK:
        return _row(spec, fit, seed, prepared.value) | _failure(
            outcome.status, outcome.message, outcome.elapsed, spec.metrics
        )
    result: dict[str, Any] = outcome.value
    row = _row(spec, fit, seed, prepared.value, tuple(result["imported"]))
    if "raised" in result:
        return row | _failure(
            Status.FAILED, result["raised"], outcome.elapsed, spec.metrics
        )
    if "unusable" in result:
        return (
            row
            | _failure(
                Status.FAILED,
                f"unusable fitted learner: {result['unusable']}",
                result["fit_time"],
                spec.metrics,
            )
            | {"n_warnings": result["n_warnings"], WARNING_COUNTS: result["counts"]}
        )
    values: dict[str, float] = result["values"]  # each metric's value
    return (
        row
        | values
        | {
            "fit_time": result["fit_time"],
            "status": Status.OK.value,
            "message": truncate(
                normalise_message(
                    ok_message(
                        result["notes"],
                        result["remarks"],
                        result["first_warning"],
                        result["counts"],
                    )
                )
            ),
            "n_warnings": result["n_warnings"],
            WARNING_COUNTS: result["counts"],
        }
    )
