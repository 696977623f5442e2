"""Graph families by name, and how a target edge ``density`` drives each of them.

Shared by :func:`~skggm_bench.datasets.make_ggm` and the benchmark harness through
the data pipeline (``_pipeline.py``); nothing here is public API except
``GRAPH_FAMILIES``.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import networkx as nx
import numpy as np
import scipy.optimize

from .. import graphs

__all__ = [
    "GRAPH_FAMILIES",
    "family_graph",
    "family_parameters",
    "follows_density",
    "graph_from_adjacency",
    "unknown_family_params",
]

# Densities are compared with this slack so that e.g. ``density=2 / p`` computed in
# floating point still counts as inside a family's achievable range.
_DENSITY_SLACK = 1e-12


def _n_pairs(p: int) -> int:
    return p * (p - 1) // 2


def _out_of_range(
    name: str, p: int, density: float, low: float, high: float
) -> ValueError:
    return ValueError(
        f"density={density} is not achievable by the {name!r} graph family with "
        f"n_features={p}: its edge density ranges over [{low:.4g}, {high:.4g}]. "
        "Choose a density in that range, set the family's own parameters through "
        "graph_params (with density=None), or draw the graph yourself with "
        "skggm_bench.graphs and pass it as graph."
    )


def _closest_count(
    name: str, p: int, density: float, values: np.ndarray, edges: np.ndarray
) -> int:
    """The parameter value whose (exact) edge count is closest to ``density``."""
    if _n_pairs(p) == 0:  # one node: no pair can be an edge, any density is met
        return int(values[0])
    fractions = edges / _n_pairs(p)
    low, high = fractions.min(), fractions.max()
    if not low - _DENSITY_SLACK <= density <= high + _DENSITY_SLACK:
        raise _out_of_range(name, p, density, low, high)
    # argmin returns the first minimiser: ties go to the smaller parameter.
    return int(values[np.argmin(np.abs(fractions - density))])


def _band_from_density(p: int, density: float, params: dict[str, Any]) -> int:
    # A band of width b has sum_{k=1..b} (p - k) = b p - b (b + 1) / 2 edges.
    widths = np.arange(p)
    return _closest_count(
        "band", p, density, widths, widths * p - widths * (widths + 1) / 2
    )


def _small_world_from_density(p: int, density: float, params: dict[str, Any]) -> int:
    # The ring lattice joins each node to k // 2 neighbours on each side: p (k // 2)
    # edges, and rewiring moves edges without changing their number. Only even k
    # are used (odd k gives the same graph as k - 1); k < p.
    halves = np.arange((p - 1) // 2 + 1)
    return 2 * _closest_count("small_world", p, density, halves, p * halves)


def _scale_free_from_density(p: int, density: float, params: dict[str, Any]) -> int:
    # Barabási–Albert from a star on m + 1 nodes: m + (p - m - 1) m = m (p - m)
    # edges. m and p - m give the same count; the smaller (sparser hubs) is used.
    m = np.arange(1, max(p // 2, 1) + 1)
    return _closest_count("scale_free", p, density, m, m * (p - m))


def _cluster_from_density(p: int, density: float, params: dict[str, Any]) -> float:
    defaults = _FAMILY_DEFAULTS["cluster"]
    n_clusters = params.get("n_clusters", defaults["n_clusters"])
    between = params.get("between_density", defaults["between_density"])
    if not isinstance(n_clusters, Integral) or not 1 <= int(n_clusters) <= p:
        raise ValueError(
            f"graph_params['n_clusters'] must be an integer in [1, n_features={p}], "
            f"got {n_clusters!r}"
        )
    if _n_pairs(p) == 0:
        return 0.0
    sizes = np.array([len(b) for b in np.array_split(np.arange(p), n_clusters)])
    within_pairs = float(np.sum(sizes * (sizes - 1) // 2))
    between_pairs = _n_pairs(p) - within_pairs
    low = between * between_pairs / _n_pairs(p)
    high = (within_pairs + between * between_pairs) / _n_pairs(p)
    if not low - _DENSITY_SLACK <= density <= high + _DENSITY_SLACK or not within_pairs:
        raise _out_of_range("cluster", p, density, low, high)
    # Expected edges: within * W + between * B = density * N, solved for within.
    within = (density * _n_pairs(p) - between * between_pairs) / within_pairs
    return float(np.clip(within, 0.0, 1.0))


def _chordal_expected_edges(p: int, join_probability: float) -> float:
    """Expected number of edges of ``random_chordal_graph(p, join_probability)``.

    Vertex ``v`` picks ``u`` uniformly among ``0..v-1`` and takes ``u`` plus each of
    ``u``'s earlier neighbours with probability ``q``. By linearity of expectation
    its expected number of earlier neighbours is ``a_v = 1 + q * mean(a_0..a_{v-1})``
    with ``a_0 = 0``; the graph has ``sum_v a_v`` edges on average.
    """
    total = 0.0  # running sum of a_0 .. a_{v-1}
    for v in range(1, p):
        total += 1.0 + join_probability * total / v
    return total


def _random_chordal_from_density(
    p: int, density: float, params: dict[str, Any]
) -> float:
    target = density * _n_pairs(p)
    low, high = _chordal_expected_edges(p, 0.0), _chordal_expected_edges(p, 1.0)
    if (
        not low - _DENSITY_SLACK * _n_pairs(p)
        <= target
        <= high + _DENSITY_SLACK * _n_pairs(p)
    ):
        raise _out_of_range(
            "random_chordal", p, density, low / _n_pairs(p), high / _n_pairs(p)
        )
    if high - low <= 0.0:  # p <= 2: every join probability gives the same graph
        return 0.5
    # The expected edge count is a polynomial in q with non-negative coefficients,
    # hence increasing: the root is unique.
    target = min(max(target, low), high)
    return float(
        scipy.optimize.brentq(
            lambda q: _chordal_expected_edges(p, q) - target, 0.0, 1.0, xtol=1e-12
        )
    )


def _identity_density(p: int, density: float, params: dict[str, Any]) -> float:
    return density


@dataclass(frozen=True)
class _Family:
    """A graph family and how ``make_ggm``'s ``density`` drives it."""

    function: Callable[..., nx.Graph]
    # The family parameter that ``density`` sets (None: a fixed structure, which
    # ``density`` cannot describe) and how to compute it from the edge density.
    density_parameter: str | None = None
    from_density: Callable[[int, float, dict[str, Any]], float] | None = None
    # Other parameters that also fix the number of edges (then ``density`` must be
    # None), and the density used when neither is given (None: family default).
    alternatives: tuple[str, ...] = ()
    default_density: float | None = None


_FAMILIES: dict[str, _Family] = {
    "erdos_renyi": _Family(
        graphs.erdos_renyi_graph, "density", _identity_density, ("n_edges",), 0.1
    ),
    "band": _Family(graphs.band_graph, "bandwidth", _band_from_density),
    "cluster": _Family(graphs.cluster_graph, "within_density", _cluster_from_density),
    "small_world": _Family(
        graphs.small_world_graph, "n_neighbours", _small_world_from_density
    ),
    "scale_free": _Family(
        graphs.scale_free_graph, "n_edges_per_node", _scale_free_from_density
    ),
    "random_chordal": _Family(
        graphs.random_chordal_graph, "density", _random_chordal_from_density
    ),
    "chain": _Family(graphs.chain_graph),
    "star": _Family(graphs.star_graph),
    "complete": _Family(graphs.complete_graph),
    "random_tree": _Family(graphs.random_tree_graph),
    "hub": _Family(graphs.hub_graph),
    "lattice": _Family(graphs.lattice_graph),
}

#: Names accepted by ``make_ggm(graph=...)``.
GRAPH_FAMILIES: tuple[str, ...] = tuple(sorted(_FAMILIES))

# Parameters make_ggm sets itself; never accepted in graph_params.
_CONTROLLED = {"n_nodes", "random_state"}
# Each family's own keyword parameters and their defaults.
_FAMILY_DEFAULTS: dict[str, dict[str, Any]] = {
    name: {
        key: parameter.default
        for key, parameter in inspect.signature(family.function).parameters.items()
        if key not in _CONTROLLED
    }
    for name, family in _FAMILIES.items()
}


def _lattice_shape(p: int, params: dict[str, Any]) -> dict[str, int]:
    """``n_rows`` and ``n_cols`` with ``n_rows * n_cols == p``."""
    # User input, checked below.
    given: dict[str, Any] = {key: params.get(key) for key in ("n_rows", "n_cols")}
    for key, value in given.items():
        if value is not None and (not isinstance(value, Integral) or value < 1):
            raise ValueError(
                f"graph_params[{key!r}] must be a positive integer, got {value!r}"
            )
    n_rows, n_cols = given["n_rows"], given["n_cols"]
    if n_rows is None and n_cols is None:
        # The squarest grid: the largest divisor of p not above sqrt(p) (a prime p
        # gives a 1 x p grid, i.e. a chain).
        n_rows = max(d for d in range(1, math.isqrt(p) + 1) if p % d == 0)
    if n_rows is None:
        n_rows = p // n_cols
    if n_cols is None:
        n_cols = p // n_rows
    if n_rows * n_cols != p:
        raise ValueError(
            f"a lattice with graph_params {given} has {n_rows} x {n_cols} nodes, "
            f"not n_features={p}"
        )
    return {"n_rows": int(n_rows), "n_cols": int(n_cols)}


def follows_density(name: str, graph_params: dict[str, Any]) -> bool:
    """Whether ``density`` drives family ``name`` with these parameters.

    False for a fixed-structure family (chain, hub, ...) and for a density-driven
    one whose parameters already fix its edges (e.g. ``band`` with ``bandwidth``):
    both accept only ``density=None``.
    """
    family = _FAMILIES[name]
    if family.density_parameter is None:
        return False
    return not any(
        key in graph_params for key in (family.density_parameter, *family.alternatives)
    )


def family_parameters(name: str) -> list[str]:
    """The parameters family ``name`` takes besides ``density``, sorted."""
    return sorted(set(_FAMILY_DEFAULTS[name]) - {"density"})


def unknown_family_params(name: str, params: Mapping[str, Any]) -> list[str]:
    """The keys of ``params`` that family ``name`` does not take, sorted."""
    return sorted(set(params) - set(_FAMILY_DEFAULTS[name]))


def family_graph(
    name: str, p: int, density: float | None, graph_params: dict[str, Any], seed: int
) -> tuple[nx.Graph, dict[str, Any]]:
    """Draw a graph of family ``name`` on ``p`` nodes; return it and its parameters."""
    family = _FAMILIES[name]
    params = dict(graph_params)
    unknown = unknown_family_params(name, params)
    if unknown:
        raise ValueError(
            f"graph_params {unknown} are not parameters of the {name!r} "
            f"family; it accepts {family_parameters(name)} "
            "(n_features, density and random_state are make_ggm's own arguments)"
        )
    if family.density_parameter is None:
        if density is not None:
            raise ValueError(
                f"density={density} cannot be used with the {name!r} graph family, "
                "whose structure is fixed; leave density=None (its parameters go "
                "in graph_params)"
            )
    else:
        fixed_by_user = [
            key
            for key in (family.density_parameter, *family.alternatives)
            if key in params
        ]
        if density is not None and fixed_by_user:
            raise ValueError(
                f"give either density or graph_params {fixed_by_user} for the "
                f"{name!r} family, not both"
            )
        if density is None and not fixed_by_user:
            density = family.default_density
        if density is not None:
            # A family with a density parameter says how density sets it.
            assert family.from_density is not None
            params[family.density_parameter] = family.from_density(p, density, params)
    # Record every argument of the call, defaults included, so that the Bunch says
    # exactly which graph model was used.
    params = {
        key: default
        for key, default in _FAMILY_DEFAULTS[name].items()
        if default is not inspect.Parameter.empty
    } | params
    if name == "lattice":
        params.update(_lattice_shape(p, params))
        graph = family.function(**params)
    elif "random_state" in inspect.signature(family.function).parameters:
        graph = family.function(p, **params, random_state=seed)
    else:
        graph = family.function(p, **params)
    return graph, params


def graph_from_adjacency(adjacency: np.ndarray) -> nx.Graph:
    """A networkx graph whose node ``k`` is row/column ``k`` of ``adjacency``."""
    graph = nx.empty_graph(adjacency.shape[0])
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    graph.add_edges_from(zip(rows.tolist(), cols.tolist(), strict=True))
    return graph
