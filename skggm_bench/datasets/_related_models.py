"""Data sets of related models: K classes, T time points, or hidden variables.

Each function follows :func:`~skggm_bench.datasets.make_ggm`: a graph from a family
(or given), a generator of several related matrices
(:class:`~skggm_bench.generators.JointGenerator`,
:class:`~skggm_bench.generators.TimeVaryingGenerator`,
:class:`~skggm_bench.generators.LatentGenerator`) built on any single-model
generator, Gaussian rows from each precision, and the truth in a Bunch. One integer
seed drives everything through the streams of the data pipeline: the graph, the
matrices, and the noise of each class or time point (drawn row by row, so a
smaller ``n_samples`` gives the first rows of a larger one).

The matrices are precisions (concentration graphs): the learners of these models
estimate precisions.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import networkx as nx
import numpy as np
from numpy.typing import NDArray
from sklearn.utils import Bunch
from sklearn.utils._param_validation import StrOptions

from ..generators import GraphicalModelGenerator
from ..generators._related import MAX_GROUPS
from ..utils._linalg import partial_correlation_from_precision
from ..utils._validation import Interval, validate_params
from ._families import GRAPH_FAMILIES
from ._make_ggm import seed_from_random_state
from ._pipeline import (
    DrawnGraph,
    RelatedModel,
    draw_graph,
    draw_group_rows,
    draw_related_model,
)

__all__ = ["make_joint_ggm", "make_latent_ggm", "make_time_varying_ggm"]

_GRAPH = [StrOptions(set(GRAPH_FAMILIES)), nx.Graph, "array-like", "sparse matrix"]
_SEED = [Interval(Integral, 0, None, closed="left"), np.random.RandomState, None]
_COMMON = {
    "n_features": [Interval(Integral, 1, None, closed="left"), None],
    "graph": _GRAPH,
    "density": [Interval(Real, 0, 1, closed="both"), None],
    "generator": [GraphicalModelGenerator, None],
    "random_state": _SEED,
}


def _rows_per_group(n_samples: Any, n_groups: int) -> np.ndarray:
    """One row count per class or time: an int for all, or a sequence of them."""
    counts = np.atleast_1d(np.asarray(n_samples))
    if counts.ndim != 1 or counts.dtype.kind not in "iu":
        raise ValueError(
            f"n_samples must be an int or a sequence of ints, got {n_samples!r}"
        )
    if counts.size == 1:
        counts = np.repeat(counts, n_groups)
    if counts.size != n_groups:
        raise ValueError(
            f"n_samples gives {counts.size} row counts for {n_groups} classes or "
            "time points"
        )
    if np.any(counts < 1):
        raise ValueError(f"n_samples must be >= 1 for every group, got {n_samples!r}")
    return counts.astype(int)


def _fitted(
    kind: str,
    generator: Any,
    params: dict[str, Any],
    graph: Any,
    n_features: int | None,
    density: float | None,
    graph_params: dict[str, Any],
    seed: int,
) -> tuple[DrawnGraph, RelatedModel]:
    drawn = draw_graph(graph, n_features, density, graph_params, seed)
    return drawn, draw_related_model(drawn.adjacency, kind, generator, params, seed)


def _group_bunch(
    drawn: DrawnGraph, truth: RelatedModel, counts: NDArray[np.int_], seed: int
) -> Bunch:
    rows = draw_group_rows(truth, counts, seed)
    return Bunch(
        X=np.concatenate(rows),
        y=np.repeat(np.arange(len(counts)), counts),
        precision=truth.precision,
        covariance=truth.covariance,
        partial_correlation=np.stack(
            [partial_correlation_from_precision(k) for k in truth.precision]
        ),
        # The truth is what was drawn: the support of each matrix (the fitted
        # generator's adjacency_ for every generator that keeps its contract).
        adjacency=truth.adjacency,
        generator=truth.generator,
        graph_family=drawn.family,
        graph_params=drawn.params,
        seed=seed,
    )


@validate_params(
    {
        "n_samples": ["array-like", Interval(Integral, 1, None, closed="left")],
        "n_classes": [Interval(Integral, 1, MAX_GROUPS, closed="both")],
        "shared_fraction": [Interval(Real, 0, 1, closed="both")],
        "similarity": [Interval(Real, 0, 1, closed="both")],
        **_COMMON,
    },
    prefer_skip_nested_validation=False,
)
def make_joint_ggm(
    n_samples: Any = 100,
    n_features: int | None = 20,
    *,
    n_classes: int = 3,
    graph: Any = "erdos_renyi",
    density: float | None = None,
    generator: GraphicalModelGenerator | None = None,
    shared_fraction: float = 0.8,
    similarity: float = 0.5,
    random_state: int | np.random.RandomState | None = None,
    **graph_params: Any,
) -> Bunch:
    """Data from K related Gaussian graphical models, with class labels.

    The graph (drawn as in :func:`make_ggm`) gives the shared edges and the edge
    count of :class:`~skggm_bench.generators.JointGenerator`, which draws one
    precision per class (see it for the law promised).

    Parameters
    ----------
    n_samples : int or sequence of int, default=100
        Rows per class: one count for all, or one per class.
    n_features : int or None, default=20
        Number of variables ``p`` (None: the size of a given graph).
    n_classes : int, default=3
        Number of classes ``K``.
    graph, density, **graph_params
        The graph, as in :func:`make_ggm`.
    generator : GraphicalModelGenerator or None, default=None
        The single-model generator of every class (None:
        :class:`~skggm_bench.generators.TriangulatedOrthogonalization`).
    shared_fraction, similarity : float in [0, 1]
        Share of edges common to all classes, and how similar their values are
        (0 independent, 1 equal); see ``JointGenerator``.
    random_state : int, RandomState instance or None, default=None
        The seed of every stream (an int is used as it is).

    Returns
    -------
    data : sklearn.utils.Bunch
        ``X`` (n, p) and ``y`` (n,), the class of each row (classes in blocks);
        ``precision``, ``covariance``, ``partial_correlation`` and ``adjacency``
        of shape (K, p, p), one per class; ``shared_adjacency`` (p, p);
        ``generator`` (the fitted ``JointGenerator``), ``graph_family``,
        ``graph_params`` and ``seed``.

    Examples
    --------
    >>> from skggm_bench.datasets import make_joint_ggm
    >>> data = make_joint_ggm(50, 10, n_classes=2, random_state=0)
    >>> data.X.shape, data.precision.shape, sorted(set(data.y.tolist()))
    ((100, 10), (2, 10, 10), [0, 1])
    """
    seed = seed_from_random_state(random_state)
    counts = _rows_per_group(n_samples, n_classes)
    params = {
        "n_classes": n_classes,
        "shared_fraction": shared_fraction,
        "similarity": similarity,
    }
    drawn, truth = _fitted(
        "joint", generator, params, graph, n_features, density, graph_params, seed
    )
    data = _group_bunch(drawn, truth, counts, seed)
    data.shared_adjacency = truth.generator.shared_adjacency_
    return data


@validate_params(
    {
        "n_samples": ["array-like", Interval(Integral, 1, None, closed="left")],
        "n_times": [Interval(Integral, 1, MAX_GROUPS, closed="both")],
        "change_rate": [Interval(Real, 0, 1, closed="both")],
        "smoothness": [Interval(Real, 0, 1, closed="left")],
        "window": [Interval(Integral, 1, MAX_GROUPS, closed="both")],
        **_COMMON,
    },
    prefer_skip_nested_validation=False,
)
def make_time_varying_ggm(
    n_samples: Any = 20,
    n_features: int | None = 20,
    *,
    n_times: int = 5,
    graph: Any = "erdos_renyi",
    density: float | None = None,
    generator: GraphicalModelGenerator | None = None,
    change_rate: float = 0.1,
    smoothness: float = 0.8,
    window: int = 4,
    random_state: int | np.random.RandomState | None = None,
    **graph_params: Any,
) -> Bunch:
    """Data from a time-varying Gaussian graphical model, with time labels.

    :class:`~skggm_bench.generators.TimeVaryingGenerator` draws one precision per
    time point from the graph (drawn as in :func:`make_ggm`), edges switching at
    ``change_rate`` per step and values drifting with ``smoothness``.

    Parameters
    ----------
    n_samples : int or sequence of int, default=20
        Rows per time point: one count for all, or one per time.
    n_features : int or None, default=20
        Number of variables ``p``.
    n_times : int, default=5
        Number of time points ``T``.
    graph, density, **graph_params
        The graph at time 0, as in :func:`make_ggm`.
    generator : GraphicalModelGenerator or None, default=None
        The single-model generator.
    change_rate, smoothness, window
        See ``TimeVaryingGenerator``.
    random_state : int, RandomState instance or None, default=None
        The seed of every stream.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``X`` (n, p) and ``y`` (n,), the time of each row (in order);
        ``precision``, ``covariance``, ``partial_correlation`` and ``adjacency``
        of shape (T, p, p); ``generator``, ``graph_family``, ``graph_params``,
        ``seed``.

    Examples
    --------
    >>> from skggm_bench.datasets import make_time_varying_ggm
    >>> data = make_time_varying_ggm(5, 8, n_times=4, random_state=0)
    >>> data.X.shape, data.adjacency.shape
    ((20, 8), (4, 8, 8))
    """
    seed = seed_from_random_state(random_state)
    counts = _rows_per_group(n_samples, n_times)
    params = {
        "n_times": n_times,
        "change_rate": change_rate,
        "smoothness": smoothness,
        "window": window,
    }
    drawn, truth = _fitted(
        "time_varying",
        generator,
        params,
        graph,
        n_features,
        density,
        graph_params,
        seed,
    )
    return _group_bunch(drawn, truth, counts, seed)


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_latent": [Interval(Integral, 1, MAX_GROUPS, closed="both")],
        "n_attached": [Interval(Integral, 1, None, closed="left")],
        **_COMMON,
    },
    prefer_skip_nested_validation=False,
)
def make_latent_ggm(
    n_samples: int = 100,
    n_features: int | None = 20,
    *,
    n_latent: int = 2,
    n_attached: int = 3,
    graph: Any = "erdos_renyi",
    density: float | None = None,
    generator: GraphicalModelGenerator | None = None,
    random_state: int | np.random.RandomState | None = None,
    **graph_params: Any,
) -> Bunch:
    """Observed data of a Gaussian graphical model with hidden variables.

    :class:`~skggm_bench.generators.LatentGenerator` extends the graph (drawn as
    in :func:`make_ggm`) by ``n_latent`` hidden nodes and draws the joint
    precision; the rows are drawn from the joint model and only the observed
    columns are returned. Their precision is ``sparse - low_rank``.

    Parameters
    ----------
    n_samples : int, default=100
        Number of rows.
    n_features : int or None, default=20
        Number of observed variables ``p``.
    n_latent, n_attached : int
        Hidden variables and the observed nodes each is attached to.
    graph, density, **graph_params
        The observed graph, as in :func:`make_ggm`.
    generator : GraphicalModelGenerator or None, default=None
        The single-model generator of the joint precision.
    random_state : int, RandomState instance or None, default=None
        The seed of every stream.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``X`` (n, p), the observed columns; ``precision`` (p, p) ``= sparse -
        low_rank`` and ``covariance`` its inverse; ``sparse`` (the observed block
        of the joint precision, support ``adjacency``), ``low_rank`` (of rank
        ``rank``); ``joint_precision`` (p + h, p + h); ``attachment`` (p, h);
        ``generator``, ``graph_family``, ``graph_params``, ``seed``.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.datasets import make_latent_ggm
    >>> data = make_latent_ggm(100, 10, n_latent=2, random_state=0)
    >>> data.X.shape, data.rank, int(np.linalg.matrix_rank(data.low_rank))
    ((100, 10), 2, 2)
    """
    seed = seed_from_random_state(random_state)
    drawn, truth = _fitted(
        "latent",
        generator,
        {"n_latent": n_latent, "n_attached": n_attached},
        graph,
        n_features,
        density,
        graph_params,
        seed,
    )
    (rows,) = draw_group_rows(truth, [n_samples], seed)
    precision = truth.precision[0]
    return Bunch(
        X=rows,
        precision=precision,
        covariance=truth.covariance[0],
        partial_correlation=partial_correlation_from_precision(precision),
        sparse=truth.sparse,
        low_rank=truth.low_rank,
        rank=n_latent,
        adjacency=truth.adjacency[0],
        joint_precision=truth.joint_precision,
        attachment=truth.generator.attachment_,
        generator=truth.generator,
        graph_family=drawn.family,
        graph_params=drawn.params,
        seed=seed,
    )
