"""Uniform sampling on a triangulation, then partial orthogonalization (Algorithm 5)."""

from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..graphs import triangulate
from ..utils._validation import RANDOM_STATE
from ._base import GraphicalModelGenerator, fast_generator
from ._orthogonalization import (
    earlier_neighbours,
    graphs_of_draws,
    orthogonalized_grams,
)
from .uniform_chordal import CholeskyStructure, gram_matrices

__all__ = ["TriangulatedOrthogonalization"]


class TriangulatedOrthogonalization(GraphicalModelGenerator):
    """Uniform chordal factor on a triangulation, fill-in removed by orthogonalization.

    The paper's recommended generator for arbitrary graphs (Córdoba et al.,
    Algorithm 5). The graph is triangulated; a factor ``U`` of a uniform matrix on
    the triangulation's elliptope is drawn exactly (as in :class:`UniformChordal`);
    its rows, in node order, are then partially orthogonalised against the earlier
    non-adjacent rows of the *original* graph, which removes the fill-in entries.
    The result is ``Q Q^T`` with ``Q`` the processed factor.

    On a chordal graph the triangulation adds nothing, every non-adjacent pair of
    rows is already orthogonal, and the law is exactly that of
    :class:`UniformChordal`. On a non-chordal graph the law is not uniform (see
    ``HitAndRunUniform`` for that), but entries stay of the same order as the
    uniform ones, unlike diagonal dominance.

    The factor is multiplied as ``U U^T`` (rows are the vectors being
    orthogonalised); the reference R package at its current version multiplies the
    other way round, which is biased even on chordal graphs.

    Parameters
    ----------
    triangulation : {"min_degree", "min_fill"}, default="min_degree"
        Elimination heuristic of :func:`skggm_bench.graphs.triangulate`.
    random_state : int, RandomState instance or None, default=None
        Controls the draws.

    Attributes
    ----------
    adjacency_ : ndarray of shape (p, p), dtype bool
        The validated graph.
    n_nodes_ : int
        Number of nodes.
    triangulation_ : ndarray of shape (p, p), dtype bool
        The chordal supergraph used for the factor.
    ordering_ : ndarray of shape (p,)
        Its perfect ordering.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.generators import TriangulatedOrthogonalization
    >>> gen = TriangulatedOrthogonalization(random_state=0).fit(nx.cycle_graph(4))
    >>> int(gen.triangulation_.sum() // 2)
    5
    >>> float(gen.sample(10)[:, 0, 2].max())
    0.0
    """

    # M_iN and M_Ni are written from the same values, non-edges are never written
    # and the diagonal is set to one.
    _pattern_exact_by_construction = True
    _fit_is_deterministic = True

    _parameter_constraints: dict[str, list[object]] = {
        "triangulation": [StrOptions({"min_degree", "min_fill"})],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        triangulation: str = "min_degree",
        *,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.triangulation = triangulation
        self.random_state = random_state

    def _fit(self, adjacency: np.ndarray) -> None:
        self.triangulation_, self.ordering_ = triangulate(adjacency, self.triangulation)
        self._structure = CholeskyStructure(self.triangulation_, self.ordering_)
        self._neighbours = earlier_neighbours(adjacency)

    def _sample(self, n_samples: int, rng: np.random.RandomState) -> np.ndarray:
        return _orthogonalized_uniform_draws([self], n_samples, [rng])

    @classmethod
    def _sample_clones(
        cls, generators: list[TriangulatedOrthogonalization], n_samples: int
    ) -> np.ndarray:
        """Draws of fitted clones on different graphs, in one batch (see
        :func:`~skggm_bench.generators._base.sample_fitted`)."""
        draws = _orthogonalized_uniform_draws(
            generators, n_samples, [g._rng for g in generators]
        )
        p = generators[0].n_nodes_
        return draws.reshape(len(generators), n_samples, p, p)


def _orthogonalized_uniform_draws(
    generators: list[TriangulatedOrthogonalization],
    n_samples: int,
    rngs: list[np.random.RandomState],
) -> np.ndarray:
    """``n_samples`` draws of each generator, in order, each from its own stream."""
    # The rows of all draws first, so that the draws for a seed do not depend
    # on the chunking; their dense factors are then made one chunk at a time.
    rows = [
        g._structure.draw_rows(fast_generator(rng), (n_samples,))
        for g, rng in zip(generators, rngs, strict=True)
    ]

    def factor_chunk(start: int, stop: int) -> np.ndarray:
        # The orthogonalization reads the rows only through their inner
        # products: the node-order Cholesky factor of U U^T (a uniform draw
        # on the triangulation) stands for U.
        pieces = []
        for g in range(start // n_samples, (stop - 1) // n_samples + 1):
            diagonal, values = rows[g]
            first = max(start - g * n_samples, 0)
            last = min(stop - g * n_samples, n_samples)
            pieces.append(
                generators[g]._structure.dense_factors(
                    diagonal[first:last], values[first:last]
                )
            )
        factors = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
        return np.linalg.cholesky(gram_matrices(factors))

    neighbours, graph_of_draw = graphs_of_draws(
        [g._neighbours for g in generators], n_samples
    )
    return orthogonalized_grams(factor_chunk, neighbours, graph_of_draw)
