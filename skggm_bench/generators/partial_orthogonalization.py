"""Partial orthogonalization of an i.i.d. Gaussian factor (paper, Algorithm 2)."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval

from ._base import GraphicalModelGenerator
from ._orthogonalization import earlier_non_neighbours, orthogonalize_rows

__all__ = ["PartialOrthogonalization"]


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

    Parameters
    ----------
    max_redraws : int, default=10
        A row that vanishes numerically after projection (possible only by
        rounding) is redrawn from the Gaussian; after this many redraws an error
        is raised.
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

    _parameter_constraints: dict = {
        "max_redraws": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        max_redraws: int = 10,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.max_redraws = max_redraws
        self.random_state = random_state

    def _fit(self, adjacency: np.ndarray) -> None:
        self._non_neighbours = earlier_non_neighbours(adjacency)

    def _sample(self, n_samples: int, rng: np.random.RandomState) -> np.ndarray:
        p = self.n_nodes_
        factors = rng.standard_normal((n_samples, p, p))

        def redraw(i: int, mask: np.ndarray) -> np.ndarray:
            return rng.standard_normal((int(mask.sum()), p))

        return orthogonalize_rows(
            factors, self._non_neighbours, redraw, self.max_redraws
        )
