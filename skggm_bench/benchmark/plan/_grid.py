"""The grid of a study: its axes, sample sizes, cells and fits, and its fingerprint.

:func:`make_grid` turns a study's parameters into a :class:`Grid` (checking them
with ``_checks.py`` and ``_shipping.py``, and probing every graph and generator);
the grid lists the study's cells and fits in grid order and counts them;
:func:`fingerprint` is what a store records of the study, so that only the same
study resumes it.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import clone

from ...datasets._pipeline import draw_graph
from ...metrics._protocol import Model
from ..results._provenance import FingerprintError, describe
from ..run._fits import Cell, Fit
from ..run._related import row_generator
from ..run._seeding import SEEDING_SCHEME
from ._checks import (
    DEFAULT_DATA_MODEL,
    MAX_DATA_VALUES,
    MAX_FITS,
    MAX_N_FEATURES,
    MAX_N_SAMPLES,
    StudyError,
    as_tuple,
    check_data_model_params,
    check_densities,
    check_execution,
    check_graphs,
    check_integers,
    check_memory_limit,
    check_metrics,
    check_models,
    check_named,
    check_random_state,
    check_unique,
    check_unseeded,
)
from ._graphs import GraphEntry, realised_density
from ._models import ModelEntry, model_axis
from ._sharding import check_shard
from ._shipping import check_shipping, check_versions, fresh_workers


def _check_ratios(values: Any) -> tuple[float, ...]:
    """``sample_size_ratios`` as floats: positive, finite and unique."""
    values = as_tuple(values, "sample_size_ratios")
    checked = []
    for index, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise StudyError(
                "sample_size_ratios",
                f"sample_size_ratios[{index}] must be a number (n_samples / "
                f"n_features), got {value!r}",
            )
        value = float(value)
        if not math.isfinite(value) or value <= 0:
            raise StudyError(
                "sample_size_ratios",
                f"sample_size_ratios[{index}]={value} is not a positive finite "
                "number; a ratio n_samples / n_features is > 0",
            )
        checked.append(value)
    ratios = tuple(checked)
    check_unique(ratios, "sample_size_ratios")
    return ratios


def sample_size(ratio: float, n_features: int) -> int:
    """The sample size of ``ratio`` at ``n_features``: ``ratio * n_features``,
    rounded to the nearest integer, halves up (``round`` would round 12.5 to 12).

    Examples
    --------
    >>> sample_size(0.5, 25), sample_size(2, 50)
    (13, 100)
    """
    return math.floor(ratio * n_features + 0.5)


def _sample_sizes(
    n_samples: Any, ratios: Any, n_features: tuple[int, ...]
) -> tuple[dict[int, tuple[int, ...]], tuple[float, ...] | None]:
    """The sample sizes of each n_features, and the checked ratios (or None).

    ``n_samples`` gives the same sizes for every n_features; ``sample_size_ratios``
    gives each n_features its own, ``round(ratio * p)``.
    """
    if ratios is None:
        sizes = check_integers(
            (100,) if n_samples is None else n_samples, "n_samples", 1, MAX_N_SAMPLES
        )
        return dict.fromkeys(n_features, sizes), None
    if n_samples is not None:
        raise StudyError(
            "sample_size_ratios",
            "n_samples and sample_size_ratios are both given; give the sample "
            "sizes one way: n_samples (the same for every n_features) or "
            "sample_size_ratios (n_samples / n_features)",
        )
    ratios = _check_ratios(ratios)
    per_p = {}
    for p in n_features:
        ratio_of: dict[int, float] = {}
        for ratio in ratios:
            n = sample_size(ratio, p)
            if n < 1:
                raise StudyError(
                    "sample_size_ratios",
                    f"sample_size_ratios {ratio} gives n_samples={n} at "
                    f"n_features={p}; a data set needs at least one row",
                )
            if n > MAX_N_SAMPLES:
                raise StudyError(
                    "sample_size_ratios",
                    f"sample_size_ratios {ratio} gives n_samples={n:,} at "
                    f"n_features={p}, above the limit of {MAX_N_SAMPLES:,}",
                )
            if n in ratio_of:
                raise StudyError(
                    "sample_size_ratios",
                    f"sample_size_ratios {ratio_of[n]} and {ratio} both give "
                    f"n_samples={n} at n_features={p}; grid values must be unique",
                )
            ratio_of[n] = ratio
        per_p[p] = tuple(ratio_of)
    return per_p, ratios


def _check_data_size(grid: Any) -> None:
    """Refuse a study whose largest data set would not fit any machine's memory."""
    groups = 1
    for entry in grid.models.values():
        if not entry.is_single:  # its matrices: one per class or time point
            params = entry.generator(None).get_params()
            groups = max(groups, params.get("n_classes", params.get("n_times", 1)))
    n, p = max(
        ((max(sizes), p) for p, sizes in grid.n_samples.items()),
        key=lambda size: size[0] * size[1],
    )
    values = n * p * groups
    if values > MAX_DATA_VALUES:
        raise StudyError(
            "n_samples" if grid.sample_size_ratios is None else "sample_size_ratios",
            f"the largest data set has {values:,} values (n_samples "
            f"{n:,} x n_features {p:,}"
            + (f" x {groups:,} classes or time points" if groups > 1 else "")
            + f"), above the limit of {MAX_DATA_VALUES:,}",
        )


def _check_row_generators(grid: Grid) -> None:
    """Every (model, generator) must have its own ``generator`` in the rows."""
    seen: dict[str, tuple[str, str]] = {}
    for model in grid._related():
        for generator in grid.generators:
            name = row_generator(model, generator)
            if name in seen:
                raise StudyError(
                    "models",
                    f"the rows of model {model!r} with generator {generator!r} and "
                    f"of model {seen[name][0]!r} with generator {seen[name][1]!r} "
                    f"would both be named {name!r}; rename one",
                )
            seen[name] = (model or "single", generator)


def _fix_structures(
    graphs: dict[str, GraphEntry], n_features: tuple[int, ...], graph: Any
) -> dict[str, GraphEntry]:
    """The graphs, those of fixed structure with their density per n_features."""
    fixed = {}
    for name, entry in graphs.items():
        if entry.follows_density:
            fixed[name] = entry
            continue
        densities = {}
        for p in n_features:
            try:
                densities[p] = realised_density(entry, p)
            except Exception as exc:
                raise StudyError(
                    "graph",
                    f"graph {name!r} with n_features={p}: {exc}",
                    name if isinstance(graph, Mapping) else None,
                ) from exc
        fixed[name] = dataclasses.replace(entry, fixed_densities=densities)
    return fixed


@dataclass(frozen=True)
class Grid:
    """A validated study: what ``validate`` returns and ``run`` uses."""

    generators: dict[str, Any]
    data_models: dict[str, Any]
    learners: dict[str, Any]
    graphs: dict[str, GraphEntry]
    densities: tuple[Any, ...]
    n_features: tuple[Any, ...]
    # The sample sizes of each n_features (the same for all unless the study gives
    # them as ratios).
    n_samples: dict[int, tuple[int, ...]]
    n_repeats: int
    model: Model
    metrics: tuple[Any, ...]
    timeout: float | None
    memory_limit: int | None
    isolate: bool
    tie_tolerance: float = 0.0
    # n_samples / n_features, when the study gives its sample sizes so.
    sample_size_ratios: tuple[float, ...] | None = None
    # The model axis (the single model alone unless ``models`` is given).
    models: dict[str, ModelEntry] = dataclasses.field(
        default_factory=lambda: model_axis(None)
    )
    # Per learner: the bytes sent to workers, and its packages' versions (JSON).
    shipped: dict[str, Any] = dataclasses.field(default_factory=dict)
    versions: dict[str, Any] = dataclasses.field(default_factory=dict)

    def points(self, graph: str) -> list[tuple[float | None, int]]:
        """The (density, n_features) of a graph's rows, densities first.

        A fixed-structure graph has one density per n_features: its own.
        """
        fixed = self.graphs[graph].fixed_densities
        if fixed is not None:
            return [(fixed[p], p) for p in self.n_features]
        return [(density, p) for density in self.densities for p in self.n_features]

    @property
    def n_fits(self) -> int:
        """The number of rows, counted without listing them."""
        n_points = sum(
            len(self.n_samples[p])
            for graph in self.graphs
            for _, p in self.points(graph)
        )
        return (
            len(self.models)
            * len(self.generators)
            * n_points
            * self.n_repeats
            * len(self.data_models)
            * len(self.learners)
        )

    def _related(self) -> list[str]:
        """The cells' ``model`` per model of the axis ("" for the single one)."""
        return ["" if e.is_single else name for name, e in self.models.items()]

    def cells(self) -> list[Cell]:
        return [
            Cell(generator, graph, p, density, repeat, model)
            for model in self._related()
            for generator in self.generators
            for graph in self.graphs
            for density, p in self.points(graph)
            for repeat in range(self.n_repeats)
        ]

    def fits(self) -> list[Fit]:
        return [
            Fit(cell, data_model, n, learner)
            for cell in self.cells()
            for data_model in self.data_models
            for n in self.n_samples[cell.n_features]
            for learner in self.learners
        ]

    def keys(self) -> list[tuple[Any, ...]]:
        """Every row key, in the frame's order."""
        return [
            (row_generator(model, g), graph, m, learner, d, p, n, r)
            for model in self._related()
            for g in self.generators
            for graph in self.graphs
            for m in self.data_models
            for learner in self.learners
            for d, p in self.points(graph)
            for n in self.n_samples[p]
            for r in range(self.n_repeats)
        ]


def make_grid(study: Any) -> Grid:
    """The grid of ``study``, every parameter checked; a StudyError on the first
    problem.

    ``study`` is a :class:`~skggm_bench.benchmark.Benchmark` whose parameters have
    passed their ``_parameter_constraints``. Each graph of the grid is drawn once and
    each generator (and related model) fitted on it, so that a study that cannot
    run fails here, before any fit.
    """
    check_execution(study.n_jobs, study.backend)
    check_random_state(study.random_state)
    try:
        check_shard(study.shard)
    except ValueError as exc:
        raise StudyError("shard", str(exc)) from None
    graphs = check_graphs(study.graph, study.graph_params)
    isolate = bool(study.isolate)
    if isolate and not hasattr(os, "fork"):
        raise StudyError(
            "isolate",
            "isolate=True runs fits in forked child processes, and this platform "
            "has no os.fork; set isolate=False (then without timeouts, memory "
            "limits or crash protection)",
        )
    if not isolate and (study.timeout is not None or study.memory_limit is not None):
        raise StudyError(
            "isolate",
            "timeout and memory_limit need isolate=True: only a separate process "
            "can be stopped at a deadline or capped in memory",
        )
    data_models = (
        {DEFAULT_DATA_MODEL: None}
        if study.data_models is None
        else check_unseeded(
            check_named(
                study.data_models,
                "data_models",
                ("observe", "get_params"),
                "{'npn': Nonparanormal()}",
            ),
            "data_models",
        )
    )
    n_features = check_integers(study.n_features, "n_features", 2, MAX_N_FEATURES)
    sample_sizes, ratios = _sample_sizes(
        study.n_samples, study.sample_size_ratios, n_features
    )
    grid = Grid(
        generators=check_unseeded(
            check_named(
                study.generators,
                "generators",
                ("fit", "sample", "get_params"),
                "{'dd': DiagonalDominance()}",
            ),
            "generators",
        ),
        data_models=data_models,
        learners=check_named(
            study.learners,
            "learners",
            ("fit", "get_params"),
            "{'glasso': GraphicalLasso()}",
        ),
        graphs=graphs,
        densities=check_densities(study.densities),
        n_features=n_features,
        n_samples=sample_sizes,
        sample_size_ratios=ratios,
        n_repeats=int(study.n_repeats),
        model=study.model,
        metrics=check_metrics(study.metrics),
        timeout=None if study.timeout is None else float(study.timeout),
        memory_limit=check_memory_limit(study.memory_limit),
        isolate=isolate,
        models=check_models(study.models, data_models, study.model),
    )
    _check_row_generators(grid)
    _check_data_size(grid)
    check_data_model_params(grid.data_models)
    grid = dataclasses.replace(
        grid,
        graphs=_fix_structures(grid.graphs, grid.n_features, study.graph),
        shipped=check_shipping(
            grid.learners, fresh_workers(study.n_jobs, study.backend)
        ),
        versions=check_versions(grid.learners),
    )
    if grid.n_fits > MAX_FITS:
        raise StudyError(
            "n_repeats",
            f"the study has {grid.n_fits:,} fits, more than the {MAX_FITS:,} a "
            "study may have; use fewer repeats or a smaller grid, or split it "
            "into several studies",
        )
    _probe(grid, study.graph)
    return grid


def _probe(grid: Grid, graph_spec: Any) -> None:
    """Draw each graph of the grid, and fit each generator on it."""
    for name, entry in grid.graphs.items():
        what = repr(name)
        for density, p in grid.points(name):
            drawn = entry.drawn_density(density)
            try:
                graph = draw_graph(entry.family, p, drawn, dict(entry.params), seed=0)
            except Exception as exc:
                raise StudyError(
                    "graph",
                    f"cannot draw a graph={what} with n_features={p}, "
                    f"density={drawn}: {exc}",
                    name if isinstance(graph_spec, Mapping) else None,
                ) from exc
            for generator_name, generator in grid.generators.items():
                try:
                    clone(generator).fit(graph.adjacency)
                except Exception as exc:
                    raise StudyError(
                        "generators",
                        f"generator {generator_name!r} cannot sample on graph="
                        f"{what} with n_features={p}, density={drawn}: {exc}",
                        generator_name,
                    ) from exc
                _probe_models(grid, generator_name, graph.adjacency)


def _probe_models(grid: Grid, generator: str, adjacency: np.ndarray) -> None:
    """Fit each related model around ``generator`` on a graph of the grid."""
    for name, model in grid.models.items():
        if model.is_single:
            continue
        try:
            model.generator(grid.generators[generator]).fit(adjacency)
        except Exception as exc:
            raise StudyError(
                "models",
                f"model {name!r} cannot be drawn around generator "
                f"{generator!r} on a graph of {adjacency.shape[0]} nodes with "
                f"{int(np.triu(adjacency, 1).sum())} edges: {exc}",
                name,
            ) from exc


def fingerprint(grid: Grid, entropy: int, stored: bool = True) -> dict[str, Any]:
    """What must match for a store to be resumed: all that can change a row.

    Without a store (``stored=False``) nothing is resumed: a value that cannot
    be described is recorded as such instead of refusing the study.
    """
    described = {}
    for name in ("generators", "data_models", "learners"):
        try:
            described[name] = describe(getattr(grid, name), name)
        except FingerprintError as exc:
            if stored:
                raise StudyError(name, str(exc)) from None
            described[name] = {"not described": str(exc)}
    try:
        described["graph"] = describe(
            {name: entry.describe() for name, entry in grid.graphs.items()},
            "graph",
        )
    except FingerprintError as exc:
        raise StudyError("graph", str(exc)) from None
    return {
        "seeding": SEEDING_SCHEME,
        "entropy": entropy,
        **described,
        "densities": list(grid.densities),
        "n_features": list(grid.n_features),
        # A study that gives its sample sizes as ratios records them; the
        # fingerprint of every other study is what it was before they existed.
        **(
            {"n_samples": list(grid.n_samples[grid.n_features[0]])}
            if grid.sample_size_ratios is None
            else {"sample_size_ratios": list(grid.sample_size_ratios)}
        ),
        "n_repeats": grid.n_repeats,
        "model": grid.model,
        # Only a study with related models has the key: the fingerprint of
        # every study of one graph per data set is what it was before.
        **(
            {"models": {n: e.describe() for n, e in grid.models.items()}}
            if any(not e.is_single for e in grid.models.values())
            else {}
        ),
        "metrics": list(grid.metrics),
        "timeout": grid.timeout,
        "memory_limit": grid.memory_limit,
    }
