"""Diagonally dominant random matrices (paper, Algorithm 1)."""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np
from sklearn.utils._param_validation import HasMethods, StrOptions

from ..utils._validation import RANDOM_STATE, Interval
from ._base import GraphicalModelGenerator

__all__ = ["DiagonalDominance"]


class DiagonalDominance(GraphicalModelGenerator):
    """Random correlation matrices made positive definite by a dominant diagonal.

    The classical recipe (Córdoba et al., Algorithm 1): i.i.d. random entries on
    the edges, each diagonal entry set to the sum of the absolute off-diagonal
    entries of its row plus a random positive perturbation, then rescaled to unit
    diagonal. Strict diagonal dominance guarantees positive definiteness, but on
    dense graphs the off-diagonal correlations shrink towards zero, which makes
    structure recovery look harder than it is: this generator is the baseline the
    others are compared with.

    Parameters
    ----------
    distribution : {"normal", "uniform"} or object with ``rvs``, default="normal"
        Law of the off-diagonal entries: standard normal (as in the paper's
        experiments), uniform on [-1, 1], or any frozen ``scipy.stats``
        distribution (called as ``rvs(size=..., random_state=...)``).
    perturbation : float, default=1.0
        The diagonal perturbation is uniform on ``(0, perturbation]``; it must be
        positive so that the dominance is strict.
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
    >>> from skggm_bench.generators import DiagonalDominance
    >>> M = DiagonalDominance(random_state=0).fit(nx.complete_graph(10)).sample(100)
    >>> bool(abs(M[:, 0, 1]).mean() < 0.2)
    True
    """

    _fit_is_deterministic = True

    _parameter_constraints: dict[str, list[object]] = {
        "distribution": [StrOptions({"normal", "uniform"}), HasMethods(["rvs"])],
        "perturbation": [Interval(Real, 0, None, closed="neither")],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        distribution: Any = "normal",
        *,
        perturbation: float = 1.0,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.distribution = distribution
        self.perturbation = perturbation
        self.random_state = random_state

    def _fit(self, adjacency: np.ndarray) -> None:
        # flatnonzero: several times faster than a 2-D nonzero on a dense mask,
        # which shows in the many fits of a joint model.
        rows, cols = np.divmod(np.flatnonzero(adjacency), adjacency.shape[0])
        upper = rows < cols
        self._edges = rows[upper], cols[upper]

    def _draw_entries(
        self, size: tuple[int, int], rng: np.random.RandomState
    ) -> np.ndarray:
        if self.distribution == "normal":
            return rng.standard_normal(size)
        if self.distribution == "uniform":
            return rng.uniform(-1.0, 1.0, size)
        values = np.asarray(self.distribution.rvs(size=size, random_state=rng), float)
        if values.shape != size or not np.all(np.isfinite(values)):
            raise ValueError(
                "distribution.rvs must return finite values of the requested shape"
            )
        return values

    def _sample(self, n_samples: int, rng: np.random.RandomState) -> np.ndarray:
        return _dominant_matrices([self], n_samples, [rng])

    @classmethod
    def _sample_clones(
        cls, generators: list[DiagonalDominance], n_samples: int
    ) -> np.ndarray:
        """Draws of fitted clones on different graphs, in one pass (see
        :func:`~skggm_bench.generators._base.sample_fitted`)."""
        draws = _dominant_matrices(generators, n_samples, [g._rng for g in generators])
        p = generators[0].n_nodes_
        return draws.reshape(len(generators), n_samples, p, p)


def _dominant_matrices(
    generators: list[DiagonalDominance],
    n_samples: int,
    rngs: list[np.random.RandomState],
) -> np.ndarray:
    """``n_samples`` draws of each generator, in order, each from its own stream.

    Computed on the edge list: the diagonal from the absolute entries of each
    edge's two ends, the rescaled entry written once to both halves, so that the
    draws are exactly symmetric, zero off the graph and unit-diagonal.
    """
    p = generators[0].n_nodes_
    matrices = np.zeros((len(generators) * n_samples, p, p))
    index = np.arange(p)
    # Entry (s, i) of a flattened (n_samples, p) array, for bincount.
    offsets = (np.arange(n_samples) * p)[:, None]
    for g, (generator, rng) in enumerate(zip(generators, rngs, strict=True)):
        rows, cols = generator._edges
        values = generator._draw_entries((n_samples, rows.size), rng)
        # (0, perturbation]: 1 - U with U in [0, 1) never hits 0.
        shift = generator.perturbation * (1.0 - rng.random_sample((n_samples, p)))
        magnitude = np.abs(values).ravel()
        diagonal = (
            shift.ravel()
            + np.bincount((offsets + rows).ravel(), magnitude, n_samples * p)
            + np.bincount((offsets + cols).ravel(), magnitude, n_samples * p)
        ).reshape(n_samples, p)
        scale = 1.0 / np.sqrt(diagonal)
        scaled = values * scale[:, rows] * scale[:, cols]
        block = matrices[g * n_samples : (g + 1) * n_samples]
        block[:, rows, cols] = scaled
        block[:, cols, rows] = scaled
        block[:, index, index] = 1.0
    return matrices
