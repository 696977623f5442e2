"""The graph axis of a study: named graph specs, and which follow the density axis.

``Benchmark(graph=...)`` takes a family name, a callable, or a dict of named specs;
this module turns any of them into ``{name: GraphEntry}``. An entry either
*follows the density axis* (its graphs are drawn at each density of the grid) or
has a *fixed structure* (a family such as ``hub`` or ``chain``, or a density-driven
family whose parameters fix its edges, e.g. ``band`` with ``bandwidth``): such an
entry is drawn once per (n_features, repeat) with ``density=None``, and its rows'
``density`` is its edge count over the ``p (p - 1) / 2`` node pairs. That count
must not depend on the seed (checked on a few draws), so that the key of a row is
known before it is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...datasets import GRAPH_FAMILIES
from ...datasets._families import (
    family_parameters,
    follows_density,
    unknown_family_params,
)
from ...datasets._pipeline import draw_graph

__all__ = ["GraphAxisError", "GraphEntry", "graph_axis", "realised_density"]

# Seeds a fixed-structure graph is drawn with to check that its edge count does not
# vary: two draws of a random count agree often on small graphs (a cluster graph on
# 10 nodes has 9 edges at seeds 0 and 1), five rarely do.
_CHECKED_SEEDS = range(5)


class GraphAxisError(ValueError):
    """A bad ``graph`` or ``graph_params``; ``entry`` names the graph at fault."""

    def __init__(self, parameter: str, message: str, entry: str | None) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.entry = entry


@dataclass(frozen=True)
class GraphEntry:
    """One graph of the axis: a family (name or callable) and its parameters.

    ``fixed_densities`` maps each n_features to the realised edge density of a
    fixed-structure entry (filled by ``Benchmark.validate``); it is None for an
    entry that follows the density axis.
    """

    family: str | Callable[..., Any]
    params: Mapping[str, Any] = field(default_factory=dict)
    fixed_densities: Mapping[int, float] | None = None

    @property
    def follows_density(self) -> bool:
        """Callables receive the density; named families may ignore it."""
        return not isinstance(self.family, str) or follows_density(
            self.family, dict(self.params)
        )

    def drawn_density(self, density: float | None) -> float | None:
        """The density a row's graph is drawn with (None for a fixed structure)."""
        return density if self.fixed_densities is None else None

    def describe(self) -> dict[str, Any]:
        """The spec as a dict (what the fingerprint describes)."""
        return {"family": self.family, **self.params}


def _entry_name(graph: Any) -> str:
    if isinstance(graph, str):
        return graph
    return str(getattr(graph, "__name__", type(graph).__name__))


def _check_family(family: Any, where: str, entry: str | None) -> None:
    if isinstance(family, str):
        if family not in GRAPH_FAMILIES:
            raise GraphAxisError(
                "graph",
                f"{where}={family!r} is not a graph family; choose one of "
                f"{list(GRAPH_FAMILIES)} or pass a callable "
                "graph(n_features, density, random_state, **params)",
                entry,
            )
    elif not callable(family):
        raise GraphAxisError(
            "graph",
            f"{where} must be a family name or a callable graph(n_features, "
            f"density, random_state, **params), got {family!r}",
            entry,
        )


def _check_family_params(
    family: Any, params: dict[str, Any], where: str, parameter: str, entry: str | None
) -> None:
    """Named families' parameters are known: an unknown one is refused here, in the
    words of the study (make_ggm's message would name its own ``graph_params``)."""
    if not isinstance(family, str):
        return
    unknown = unknown_family_params(family, params)
    if unknown:
        accepted = family_parameters(family)
        raise GraphAxisError(
            parameter,
            f"{where} gives {unknown}, which the {family!r} graph family does not "
            f"take; it takes {accepted} (n_features, density and random_state come "
            "from the study's grid)",
            entry,
        )


def _check_params(
    params: Any, where: str, parameter: str, entry: str | None
) -> dict[str, Any]:
    if not isinstance(params, Mapping):
        raise GraphAxisError(
            parameter, f"{where} must be a dict of parameters, got {params!r}", entry
        )
    for key in params:
        if not isinstance(key, str):
            raise GraphAxisError(
                parameter, f"{where} keys must be strings, got {key!r}", entry
            )
    return dict(params)


def graph_axis(graph: Any, graph_params: Any) -> dict[str, GraphEntry]:
    """``{display name: GraphEntry}`` from ``Benchmark``'s ``graph`` and
    ``graph_params`` (without the realised densities: see :func:`realised_density`).
    """
    if not isinstance(graph, Mapping):
        _check_family(graph, "graph", None)
        params = _check_params(graph_params or {}, "graph_params", "graph_params", None)
        _check_family_params(graph, params, "graph_params", "graph_params", None)
        return {_entry_name(graph): GraphEntry(graph, params)}
    if graph_params is not None:
        raise GraphAxisError(
            "graph_params",
            "graph_params applies to a single graph; with a dict of graphs give each "
            "its parameters in its spec, e.g. {'hub': {'family': 'hub', "
            "'n_hubs': 5}}",
            None,
        )
    if not graph:
        raise GraphAxisError(
            "graph", "graph is an empty dict: give at least one graph", None
        )
    axis = {}
    for name, spec in graph.items():
        if not isinstance(name, str) or not name:
            raise GraphAxisError(
                "graph", f"graph names must be non-empty strings, got {name!r}", None
            )
        where = f"graph[{name!r}]"
        if isinstance(spec, Mapping):
            params = _check_params(spec, where, "graph", name)
            if "family" not in params:
                raise GraphAxisError(
                    "graph",
                    f"{where} has no 'family': give e.g. {{'family': 'hub', "
                    "'n_hubs': 5}",
                    name,
                )
            family = params.pop("family")
            _check_family(family, f"{where}['family']", name)
            _check_family_params(family, params, where, "graph", name)
        else:
            family, params = spec, {}
            _check_family(family, where, name)
        axis[name] = GraphEntry(family, params)
    return axis


def realised_density(entry: GraphEntry, n_features: int) -> float:
    """The edge density of a fixed-structure entry on ``n_features`` nodes.

    Raises
    ------
    ValueError
        If the graph cannot be drawn, or its edge count differs between two seeds
        (then it has no single density to record in its rows).
    """
    counts = []
    for seed in _CHECKED_SEEDS:
        adjacency = draw_graph(
            entry.family, n_features, None, dict(entry.params), seed
        ).adjacency
        counts.append(int(np.count_nonzero(np.triu(adjacency, 1))))
    if len(set(counts)) > 1:
        raise ValueError(
            "its parameters fix the structure (it cannot follow the density axis), "
            f"but its number of edges depends on the seed ({sorted(set(counts))} "
            f"edges on n_features={n_features}), so its rows would have no single "
            "density; give the family's density-driving parameter through the "
            "densities axis instead"
        )
    return counts[0] / (n_features * (n_features - 1) / 2)  # n_features >= 2
