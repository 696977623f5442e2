"""Partial orthogonalization of an i.i.d. Gaussian factor (paper, Algorithm 2)."""

from __future__ import annotations

import numpy as np

from ..utils._validation import RANDOM_STATE
from ._base import GraphicalModelGenerator, fast_generator
from ._orthogonalization import (
    earlier_neighbours,
    graphs_of_draws,
    orthogonalized_gram,
    orthogonalized_grams,
    packed_factor_chunks,
)

__all__ = ["PartialOrthogonalization", "sample_bartlett_factors"]


class PartialOrthogonalization(GraphicalModelGenerator):
    """Random correlation matrices ``Q Q^T`` with rows of ``Q`` orthogonalised.

    ``Q`` is a ``p x p`` matrix of i.i.d. standard normal entries. Its rows are
    processed in node order: row ``i`` is projected off the span of the earlier
    rows ``j < i`` that are not adjacent to ``i``, then normalised (Córdoba et al.,
    Algorithm 2). ``(Q Q^T)_ij = q_i . q_j`` is then zero for every non-edge and
    the diagonal is one. Works for any graph.

    The law depends on the node order, and on sparse graphs of moderate size the
    entries concentrate near zero (rows of i.i.d. entries are nearly orthogonal in
    high dimension): see the paper's Figure 6.

    Only the inner products of the rows matter, so the Gaussian factor is drawn
    in its Bartlett form, lower triangular with ``chi2(p - i)`` squared diagonal
    (``G G^T`` is Wishart for a Gaussian matrix ``G``): the same law with half the
    random numbers, and a row can never vanish. Draws are batched across samples
    (``docs/performance.md``).

    Parameters
    ----------
    random_state : int, RandomState instance or None, default=None
        Controls the draws.

    Attributes
    ----------
    adjacency_ : ndarray of shape (p, p), dtype bool
        The validated graph.
    n_nodes_ : int
        Number of nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.generators import PartialOrthogonalization
    >>> gen = PartialOrthogonalization(random_state=0).fit(nx.cycle_graph(5))
    >>> M = gen.sample(3)
    >>> float(M[:, 0, 2].max()), bool((abs(M[:, 0, 1]) > 0).all())
    (0.0, True)
    """

    # M_iN and M_Ni are written from the same values, non-edges are never written
    # and the diagonal is set to one.
    _pattern_exact_by_construction = True
    _fit_is_deterministic = True

    _parameter_constraints: dict[str, list[object]] = {
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        *,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.random_state = random_state

    def _fit(self, adjacency: np.ndarray) -> None:
        self._neighbours = earlier_neighbours(adjacency)

    def _sample(self, n_samples: int, rng: np.random.RandomState) -> np.ndarray:
        diagonal, lower = sample_bartlett_factors(self.n_nodes_, n_samples, rng)
        return orthogonalized_gram(
            packed_factor_chunks(diagonal, lower), n_samples, self._neighbours
        )

    @classmethod
    def _sample_clones(
        cls, generators: list[PartialOrthogonalization], n_samples: int
    ) -> np.ndarray:
        """Draws of fitted clones on different graphs, in one batch (see
        :func:`~skggm_bench.generators._base.sample_fitted`)."""
        p = generators[0].n_nodes_
        factors = [sample_bartlett_factors(p, n_samples, g._rng) for g in generators]
        neighbours, graph_of_draw = graphs_of_draws(
            [g._neighbours for g in generators], n_samples
        )
        draws = orthogonalized_grams(
            packed_factor_chunks(
                np.concatenate([diagonal for diagonal, _ in factors]),
                np.concatenate([lower for _, lower in factors]),
            ),
            neighbours,
            graph_of_draw,
        )
        return draws.reshape(len(generators), n_samples, p, p)


def sample_bartlett_factors(
    p: int, n_samples: int, rng: np.random.RandomState, dimension: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Lower triangular ``R`` with ``R R^T ~ Wishart(dimension, I_p)``, packed.

    The rows of a ``p x dimension`` standard Gaussian matrix ``G`` have the Gram
    matrix ``G G^T ~ Wishart(dimension, I_p)``, whose Cholesky factor has
    independent entries: ``R[i, i]^2 ~ chi2(dimension - i)`` and standard normals
    below the diagonal (Bartlett). Returns ``(diagonal, strictly lower triangle)``
    in the packed layout of the orthogonalization: row by row, the order of
    ``np.tril_indices(p, -1)``.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.generators.partial_orthogonalization import (
    ...     sample_bartlett_factors)
    >>> diagonal, lower = sample_bartlett_factors(4, 2, np.random.RandomState(0))
    >>> diagonal.shape, lower.shape, bool((diagonal > 0).all())
    ((2, 4), (2, 6), True)
    """
    dimension = p if dimension is None else dimension
    generator = fast_generator(rng)
    diagonal = np.sqrt(
        generator.chisquare(dimension - np.arange(p), size=(n_samples, p))
    )
    lower = generator.standard_normal((n_samples, p * (p - 1) // 2))
    return diagonal, lower
