"""The one routine from a graph to data: graph -> generator -> matrix -> data.

:func:`~skggm_bench.datasets.make_ggm` and the benchmark harness both draw their data
sets here, from one integer ``seed`` with one seeding scheme, so that a result row
of a benchmark is reproduced exactly by ``make_ggm(..., random_state=row.seed)``.

Seeding
    Every random quantity has its own *stream*: a
    :class:`numpy.random.SeedSequence` made from ``seed`` and a spawn key naming
    the stream (graph, matrix, noise, scale, data model). Changing what one stream
    draws never shifts another, which makes comparisons paired: with one seed,
    every generator draws its matrix on the same graph, every data model observes
    the same latent Gaussian rows, and the data sets of the smaller sample sizes
    are the first rows of the larger ones (the noise is drawn row by row).

The truth is what was drawn
    The true graph of a data set is the support of the matrix the generator
    returned, read from the fitted generator's ``adjacency_``; a generator that
    samples on a supergraph (e.g. a triangulation) reports the edges it added.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.base import clone

from ..generators import JointGenerator, LatentGenerator, TimeVaryingGenerator
from ..graphs import check_adjacency
from ..utils._linalg import (
    cholesky_factor,
    inverse_from_cholesky,
    partial_correlation_from_precision,
    upper_triangle,
)
from ._families import family_graph
from ._gaussian import transform_noise

__all__ = [
    "RELATED_KINDS",
    "DrawnGraph",
    "RelatedModel",
    "Stream",
    "TrueModel",
    "draw_graph",
    "draw_group_rows",
    "draw_latent",
    "draw_model",
    "draw_related_model",
    "graph_signal",
    "observe",
    "seeded_clone",
    "stream_seed",
]


class Stream(enum.IntEnum):
    """The independent random streams of one seed (their spawn keys)."""

    GRAPH = 0
    MATRIX = 1
    NOISE = 2
    SCALE = 3
    DATA_MODEL = 4


def stream_seed(seed: int, stream: Stream, *key: int) -> int:
    """A 32-bit seed (what ``RandomState`` accepts) for one stream of ``seed``."""
    sequence = np.random.SeedSequence(seed, spawn_key=(int(stream), *key))
    return int(sequence.generate_state(1)[0])


def seeded_clone(estimator: Any, seed: int) -> Any:
    """A clone of ``estimator`` whose ``random_state`` (if it has one) is ``seed``.

    The caller's object is never modified, and the draw is reproducible.
    """
    fresh = clone(estimator)
    if "random_state" in fresh.get_params(deep=False):
        fresh.set_params(random_state=seed)
    return fresh


@dataclass(frozen=True)
class DrawnGraph:
    """The graph asked for: from a family, a callable or a graph object."""

    adjacency: np.ndarray
    family: str | None
    params: dict[str, Any]
    node_labels: list[Hashable]


def draw_graph(
    graph: Any,
    n_features: int | None,
    density: float | None,
    graph_params: dict[str, Any],
    seed: int,
) -> DrawnGraph:
    """Draw (or validate) the graph of a data set.

    Parameters
    ----------
    graph : str, callable or graph
        A family name of :data:`GRAPH_FAMILIES`; a callable
        ``graph(n_features, density, random_state, **graph_params)`` returning a
        graph; or a graph object (networkx, array, sparse).
    n_features : int or None
        Number of nodes; None only with a graph object (its size is used).
    density, graph_params
        The family's density and other parameters.
    seed : int
        The seed material; the graph stream is derived from it.
    """
    random_state = stream_seed(seed, Stream.GRAPH)
    if isinstance(graph, str):
        if n_features is None:
            raise ValueError(
                "n_features=None is only allowed when graph is a graph object"
            )
        drawn, params = family_graph(
            graph, int(n_features), density, graph_params, random_state
        )
        # Index by node label so that column k is node k whatever the insertion
        # order of the family's function.
        labelled = nx.empty_graph(int(n_features))
        labelled.add_edges_from(drawn.edges)
        return DrawnGraph(
            check_adjacency(labelled), graph, params, list(range(int(n_features)))
        )
    if callable(graph):
        adjacency = check_adjacency(
            graph(n_features, density, random_state, **graph_params),
            name="the graph returned by the graph callable",
        )
        if adjacency.shape[0] != n_features:
            raise ValueError(
                f"the graph callable returned a graph on {adjacency.shape[0]} nodes "
                f"for n_features={n_features}"
            )
        # n_features == adjacency.shape[0], checked above.
        return DrawnGraph(
            adjacency, None, dict(graph_params), list(range(adjacency.shape[0]))
        )
    if density is not None or graph_params:
        raise ValueError(
            "density and graph_params only apply to a named graph family, not to a "
            f"graph object (got density={density}, graph_params={graph_params})"
        )
    adjacency = check_adjacency(graph, name="graph")
    if n_features is not None and adjacency.shape[0] != n_features:
        raise ValueError(
            f"graph has {adjacency.shape[0]} nodes but n_features={n_features}"
        )
    if adjacency.shape[0] < 1:
        raise ValueError("graph has no nodes")
    labels = list(graph.nodes) if isinstance(graph, nx.Graph) else None
    return DrawnGraph(adjacency, None, {}, labels or list(range(len(adjacency))))


@dataclass(frozen=True)
class TrueModel:
    """The ground truth of a data set: the drawn matrix and the graph it has.

    Attributes
    ----------
    adjacency : ndarray of shape (p, p), dtype bool
        The true graph: the support of the drawn matrix (the fitted generator's
        ``adjacency_``).
    matrix : ndarray of shape (p, p)
        The generator's draw, in the role given by ``model``.
    model : str
        ``"concentration"`` (``matrix`` is the precision) or ``"covariance"``.
    covariance, precision : ndarray of shape (p, p)
        The model's covariance and precision, inverses of each other.
    factor : ndarray of shape (p, p)
        Lower Cholesky factor of ``matrix``.
    generator : GraphicalModelGenerator
        The fitted clone that drew the matrix.
    n_added_edges : int
        Edges of the true graph that the requested graph did not have (a generator
        sampling on a triangulation adds its fill-in).
    """

    adjacency: np.ndarray
    matrix: np.ndarray
    model: str
    covariance: np.ndarray
    precision: np.ndarray
    factor: np.ndarray
    generator: Any
    n_added_edges: int

    @property
    def role(self) -> str:
        """``"precision"`` or ``"covariance"``: what ``matrix`` is."""
        return "precision" if self.model == "concentration" else "covariance"

    def signal(self) -> dict[str, float]:
        """Numbers that say how hard the graph is to recover from data.

        Returns
        -------
        dict
            ``n_edges``; ``min_edge_partial_correlation`` and
            ``median_edge_partial_correlation`` (absolute partial correlations
            over the true edges for a concentration graph, absolute correlations
            for a covariance graph; NaN without edges);
            ``max_non_edge_correlation`` (largest absolute marginal correlation
            between two variables that are not adjacent: how much a non-edge
            looks like an edge; NaN for a complete graph); ``condition_number``
            of the model's matrix.
        """
        return graph_signal(
            self.adjacency[None],
            self.precision[None],
            self.covariance[None],
            self.matrix[None],
            self.model,
        )


def graph_signal(
    adjacency: np.ndarray,
    precision: np.ndarray,
    covariance: np.ndarray,
    matrix: np.ndarray,
    model: str = "concentration",
) -> dict[str, float]:
    """:meth:`TrueModel.signal` of one or several graphs, pooled over them.

    Every argument is a stack of shape (K, p, p) (``matrix``: the drawn matrices,
    whose condition numbers are taken). With several graphs (classes, time points)
    ``n_edges`` is the total over the graphs, the minimum and median are taken
    over the pooled edges, and the largest non-edge correlation and condition
    number over all graphs.
    """
    on_edges, correlations, conditions = [], [], []
    n_edges = 0
    for k in range(len(adjacency)):
        if model == "concentration":
            strength = np.abs(partial_correlation_from_precision(precision[k]))
        else:
            strength = np.abs(_correlation(covariance[k]))
        edges = upper_triangle(adjacency[k])
        on_edges.append(upper_triangle(strength)[edges])
        correlations.append(np.abs(upper_triangle(_correlation(covariance[k])))[~edges])
        eigenvalues = np.linalg.eigvalsh(matrix[k])
        conditions.append(float(eigenvalues[-1] / eigenvalues[0]))
        n_edges += int(np.count_nonzero(edges))
    pooled = np.concatenate(on_edges)
    correlation = np.concatenate(correlations)
    return {
        "n_edges": n_edges,
        "min_edge_partial_correlation": (
            float(pooled.min()) if pooled.size else np.nan
        ),
        "median_edge_partial_correlation": (
            float(np.median(pooled)) if pooled.size else np.nan
        ),
        "max_non_edge_correlation": (
            float(correlation.max()) if correlation.size else np.nan
        ),
        "condition_number": max(conditions),
    }


def _correlation(covariance: np.ndarray) -> np.ndarray:
    scale = 1.0 / np.sqrt(np.diag(covariance))
    return covariance * np.outer(scale, scale)


def draw_model(
    adjacency: np.ndarray, generator: Any, model: str, seed: int
) -> TrueModel:
    """Fit a clone of ``generator`` on the graph and draw one matrix.

    The generator's ``random_state`` is replaced by the matrix stream of ``seed``.
    The true graph is the fitted generator's ``adjacency_``, checked against the
    support of the matrix it drew: a generator that breaks its own contract is an
    error here, never a silently wrong ground truth.
    """
    sampler = seeded_clone(generator, stream_seed(seed, Stream.MATRIX))
    sampler.fit(adjacency)
    matrix = sampler.sample(1)[0]
    matrix = matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)
    matrix = matrix.astype(np.float64, copy=False)
    name = f"the matrix drawn by {type(sampler).__name__}"
    if matrix.shape != adjacency.shape:
        raise ValueError(f"{name} has shape {matrix.shape}, not {adjacency.shape}")
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"{name} contains NaN or infinite values")
    truth = check_adjacency(
        getattr(sampler, "adjacency_", adjacency), name="the generator's adjacency_"
    )
    support = check_adjacency(matrix != 0, name=name)
    if not np.array_equal(support, truth):
        n_off = int(np.count_nonzero(support != truth)) // 2
        raise ValueError(
            f"{name} is non-zero on {n_off} pair(s) where its adjacency_ says "
            "otherwise (or zero on an edge): the generator does not report the "
            "graph it samples on"
        )
    factor = cholesky_factor(matrix, name)
    inverse = inverse_from_cholesky(factor)
    covariance, precision = (
        (inverse, matrix) if model == "concentration" else (matrix, inverse)
    )
    added = np.count_nonzero(truth & ~adjacency) // 2
    return TrueModel(
        truth, matrix, model, covariance, precision, factor, sampler, int(added)
    )


def draw_latent(truth: TrueModel, n_samples: int, seed: int) -> np.ndarray:
    """``n_samples`` Gaussian rows of the true model, from the noise stream.

    The standard normal matrix is drawn row by row, so the rows of a smaller
    ``n_samples`` are the first rows of a larger one.
    """
    p = truth.matrix.shape[0]
    noise = np.random.RandomState(stream_seed(seed, Stream.NOISE)).standard_normal(
        (int(n_samples), p)
    )
    return transform_noise(truth.factor, noise, truth.role)


def observe(
    latent: np.ndarray, covariance: np.ndarray, data_model: Any, seed: int
) -> tuple[np.ndarray, Any]:
    """The observed data, ``latent`` through the data model, and the seeded model.

    With ``data_model=None`` the data are the Gaussian rows themselves. Otherwise a
    clone of the data model, seeded from the data-model stream, observes them.
    """
    if data_model is None:
        return latent, None
    observer = seeded_clone(data_model, stream_seed(seed, Stream.DATA_MODEL))
    observed = np.asarray(observer.observe(latent, covariance), dtype=np.float64)
    if observed.shape != latent.shape:
        raise ValueError(
            f"{type(observer).__name__}.observe returned shape {observed.shape} for "
            f"latent data of shape {latent.shape}"
        )
    return observed, observer


#: The related models a data set can be drawn from, by kind: each builds on any
#: single-model generator.
RELATED_KINDS: dict[str, type] = {
    "joint": JointGenerator,
    "time_varying": TimeVaryingGenerator,
    "latent": LatentGenerator,
}


@dataclass(frozen=True)
class RelatedModel:
    """The truth of a data set of related models: K classes, T times, hidden variables.

    The matrices are precisions (concentration graphs). A latent model is one
    group: its observed precision ``sparse - low_rank``.

    Attributes
    ----------
    kind : str
        A key of :data:`RELATED_KINDS`.
    adjacency, precision, covariance : ndarray of shape (K, p, p)
        Per group: the true graph (the support of the precision; for a latent
        model, of its sparse part), the precision and covariance of the observed
        variables.
    factors : ndarray of shape (K, q, q)
        Lower Cholesky factors of the precisions the rows are drawn from (``q =
        p + h`` with ``h`` hidden variables, whose columns are not observed).
    generator : object
        The fitted related-model generator.
    sparse, low_rank, joint_precision : ndarray or None
        For a latent model: ``S``, ``L`` (p, p) and the joint precision (q, q).
    """

    kind: str
    adjacency: np.ndarray
    precision: np.ndarray
    covariance: np.ndarray
    factors: np.ndarray
    generator: Any
    sparse: np.ndarray | None = None
    low_rank: np.ndarray | None = None
    joint_precision: np.ndarray | None = None

    def signal(self) -> dict[str, float]:
        """:func:`graph_signal` of the groups' graphs and precisions."""
        return graph_signal(
            self.adjacency, self.precision, self.covariance, self.precision
        )


def _support(precisions: np.ndarray) -> np.ndarray:
    support: NDArray[np.bool_] = precisions != 0
    index = np.arange(precisions.shape[-1])
    support[..., index, index] = False
    return support


def draw_related_model(
    adjacency: np.ndarray,
    kind: str,
    generator: Any,
    params: dict[str, Any],
    seed: int,
) -> RelatedModel:
    """Draw related precisions on a graph: the generator of ``kind`` around
    ``generator`` (None: its default), with ``params``, seeded by the matrix stream.

    The graph of each class or time is the support of its precision (the truth is
    what was drawn); for a latent model, the support of ``S``.
    """
    sampler = RELATED_KINDS[kind](
        generator, **params, random_state=stream_seed(seed, Stream.MATRIX)
    )
    sampler.fit(adjacency)
    if kind == "latent":
        draw = sampler.sample(1)
        joint = draw.joint[0]
        p = sampler.n_nodes_
        factor = cholesky_factor(joint, "the precision of group 0")
        precision = draw.sparse[0] - draw.low_rank[0]
        return RelatedModel(
            kind,
            np.asarray(sampler.observed_adjacency_, dtype=bool)[None],
            precision[None],
            inverse_from_cholesky(factor)[:p, :p][None],
            factor[None],
            sampler,
            draw.sparse[0],
            draw.low_rank[0],
            joint,
        )
    precisions = sampler.sample(1)[0]
    factors = np.stack(
        [
            cholesky_factor(precision, f"the precision of group {k}")
            for k, precision in enumerate(precisions)
        ]
    )
    covariances = np.stack([inverse_from_cholesky(factor) for factor in factors])
    return RelatedModel(
        kind, _support(precisions), precisions, covariances, factors, sampler
    )


def draw_group_rows(model: RelatedModel, counts: Any, seed: int) -> list[np.ndarray]:
    """Gaussian rows of each group, of its observed variables, from the noise stream.

    ``counts`` gives the rows per group. Group ``k`` has its own noise stream,
    drawn row by row: a smaller count gives the first rows of a larger one.
    """
    p = model.precision.shape[-1]
    rows = []
    for k, (factor, count) in enumerate(zip(model.factors, counts, strict=True)):
        noise = np.random.RandomState(
            stream_seed(seed, Stream.NOISE, k)
        ).standard_normal((int(count), factor.shape[0]))
        rows.append(transform_noise(factor, noise, "precision")[:, :p])
    return rows
