"""What the generators of several related models share.

The joint, time-varying and latent-variable generators draw their matrices by
fitting clones of a single-model generator on derived graphs (a class's graph, the
shared graph, a window's persistent edges, the graph extended by hidden nodes).
The helpers here fit those clones with seeds derived from one ``RandomState``, so
a seed fixes every graph and every draw, and they rewire graphs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from ..graphs import check_adjacency
from ..utils._validation import check_random_state
from ._base import (
    GraphicalModelGenerator,
    _check_n_samples,
    fitted_clones,
    sample_fitted,
)
from .triangulated_orthogonalization import TriangulatedOrthogonalization

if TYPE_CHECKING:  # scikit-learn >= 1.6; the annotation is never evaluated
    from sklearn.utils import Tags

#: The most classes, time points, hidden variables (and the longest window) of a
#: related model: its matrices are one (p, p) array each, allocated at once, and a
#: study draws them per cell. Refused above it, before anything is allocated.
MAX_GROUPS = 1000

__all__ = [
    "MAX_GROUPS",
    "RelatedModelsGenerator",
    "default_generator",
    "draw_clones",
    "draw_stack",
    "drawn_adjacency",
    "fit_clone",
    "fit_clones",
    "has_unit_diagonal",
    "swap_edges",
]


def default_generator(generator: Any) -> Any:
    """``generator``, or :class:`TriangulatedOrthogonalization` for None.

    Derived graphs (rewired, intersected, extended) are in general not chordal:
    the default must accept any graph.
    """
    return TriangulatedOrthogonalization() if generator is None else generator


def fit_clone(generator: Any, adjacency: np.ndarray, rng: np.random.RandomState) -> Any:
    """A clone of ``generator`` fitted on ``adjacency`` with a seed drawn from ``rng``.

    The seed is drawn even for a generator without ``random_state``, so the
    stream of seeds (and hence every other clone) does not depend on which
    generators are seeded.
    """
    return fit_clones(generator, [adjacency], rng)[0]


def fit_clones(
    generator: Any, adjacencies: list[np.ndarray], rng: np.random.RandomState
) -> list[Any]:
    """:func:`fit_clone` on each graph in turn: the same seeds and fitted clones.

    A package generator fits them faster (:func:`fitted_clones`: one parameter
    validation, one fit per distinct graph where ``_fit`` is deterministic).
    """
    seeds = [int(rng.randint(0, 2**31 - 1)) for _ in adjacencies]
    if isinstance(generator, GraphicalModelGenerator):
        return fitted_clones(generator, adjacencies, seeds)
    fitted = []
    for adjacency, seed in zip(adjacencies, seeds, strict=True):
        clone_ = clone(generator)
        if "random_state" in clone_.get_params():
            clone_.set_params(random_state=seed)
        fitted.append(clone_.fit(adjacency))
    return fitted


def draw_clones(fitted: list[Any], n_samples: int, p: int) -> np.ndarray:
    """:func:`draw_stack` of each fitted clone, shape (len(fitted), n, p, p).

    Package generators are drawn by :func:`sample_fitted`: the same draws, batched
    across the graphs where the generator's class can.
    """
    if all(isinstance(f, GraphicalModelGenerator) for f in fitted):
        draws = sample_fitted(fitted, n_samples)
        if draws.shape[1:] != (n_samples, p, p):
            raise ValueError(
                f"{type(fitted[0]).__name__}.sample({n_samples}) returned shape "
                f"{draws.shape[1:]}, expected {(n_samples, p, p)}"
            )
        return draws
    return np.stack([draw_stack(f, n_samples, p) for f in fitted])


def drawn_adjacency(fitted: Any, adjacency: np.ndarray) -> np.ndarray:
    """The graph a fitted generator draws on (its ``adjacency_`` if it has one).

    Some generators change the graph they are given (a triangulation); the truth
    is the graph of what was drawn.
    """
    return np.array(getattr(fitted, "adjacency_", adjacency), dtype=bool)


def draw_stack(fitted: Any, n_samples: int, p: int) -> np.ndarray:
    """``fitted.sample(n_samples)`` as a checked float array of shape (n, p, p)."""
    matrices = np.asarray(fitted.sample(n_samples), dtype=float)
    if matrices.shape != (n_samples, p, p):
        raise ValueError(
            f"{type(fitted).__name__}.sample({n_samples}) returned shape "
            f"{matrices.shape}, expected {(n_samples, p, p)}"
        )
    return matrices


def has_unit_diagonal(draws: np.ndarray) -> bool:
    """Whether every matrix of a stack has an exactly unit diagonal."""
    return bool(np.all(np.diagonal(draws, axis1=-2, axis2=-1) == 1.0))


def swap_edges(
    adjacency: np.ndarray,
    removable: np.ndarray,
    n_swap: int,
    rng: np.random.RandomState,
) -> np.ndarray:
    """Remove ``n_swap`` edges drawn among ``removable`` and add as many non-edges.

    Both sets are drawn uniformly without replacement (the non-edges among the
    pairs that are non-edges *before* the removal, so a removed edge never comes
    straight back); the number of edges is unchanged. ``removable`` is a boolean
    (p, p) mask of the edges that may go.
    """
    p = adjacency.shape[0]
    rows, cols = np.triu_indices(p, 1)
    edge = adjacency[rows, cols]
    candidates_out = np.flatnonzero(edge & removable[rows, cols])
    candidates_in = np.flatnonzero(~edge)
    n_swap = min(n_swap, candidates_out.size, candidates_in.size)
    out = rng.choice(candidates_out, size=n_swap, replace=False)
    into = rng.choice(candidates_in, size=n_swap, replace=False)
    edge = edge.copy()
    edge[out] = False
    edge[into] = True
    result = np.zeros((p, p), dtype=bool)
    result[rows[edge], cols[edge]] = True
    return result | result.T


class RelatedModelsGenerator(BaseEstimator):
    """The ``fit(graph)`` / ``sample(n_samples)`` plumbing of multi-model generators.

    Subclasses set ``_fit(adjacency, rng)`` and ``_sample(n_samples)``.
    """

    def fit(self, graph: Any, y: None = None) -> RelatedModelsGenerator:
        """Validate the graph, draw the derived graphs and fit the inner generators.

        Parameters
        ----------
        graph : networkx.Graph, array-like of shape (p, p) or scipy.sparse matrix
            The graph the models are built from; see
            :func:`skggm_bench.graphs.check_adjacency`.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        self
            The fitted generator.
        """
        self._validate_params()
        adjacency = check_adjacency(graph)
        if adjacency.shape[0] < 1:
            raise ValueError("graph has no nodes; at least one node is needed")
        self.n_nodes_ = adjacency.shape[0]
        self._fit(adjacency, check_random_state(self.random_state))
        return self

    def sample(self, n_samples: int = 1) -> Any:
        """Draw ``n_samples`` independent sets of related matrices.

        Parameters
        ----------
        n_samples : int, default=1
            Number of independent draws.

        Returns
        -------
        draws
            See the subclass.
        """
        check_is_fitted(self, "n_nodes_")
        return self._sample(_check_n_samples(n_samples))

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.requires_fit = True
        return tags
