"""The recipe of GGLasso's power-network generators, for comparison (not exact)."""

from __future__ import annotations

from numbers import Real

import numpy as np

from ..utils._validation import RANDOM_STATE, Interval
from ._base import GraphicalModelGenerator

__all__ = ["ThresholdedPseudoInverse"]


class ThresholdedPseudoInverse(GraphicalModelGenerator):
    """Diagonal dominance, inversion, then a pseudo-inverse thresholded at 1e-2.

    A re-implementation, from its published description, of the recipe behind
    GGLasso's ``time_varying_power_network`` and ``group_power_network`` (there
    on a power-law graph; here on any graph, e.g. the ``scale_free`` family), so
    that studies can compare it with the exact generators:

    1. edge weights of uniform magnitude in ``[low, high]`` with random signs;
    2. each diagonal entry set to the sum of the absolute weights of its row
       plus ``perturbation``, which makes the matrix ``A`` strictly diagonally
       dominant, hence positive definite;
    3. ``Sigma = A^{-1}`` rescaled to a correlation matrix;
    4. the precision ``pinv(Sigma)`` with every entry of absolute value below
       ``threshold`` set to zero.

    What this does *not* promise, unlike the package's other generators: step 4
    also removes edges whose value fell below the threshold (the support of a
    draw can be smaller than the graph, and differs between draws), the
    diagonal is not one, the thresholded matrix is not guaranteed to be
    positive definite, and the law of the entries is not controlled. Diagonal
    dominance also shrinks the partial correlations on dense graphs (see
    :class:`DiagonalDominance`). The truth of a data set drawn with it must be
    read from the support of the drawn matrix.

    Parameters
    ----------
    low, high : float, default=0.5, 1.0
        Range of the absolute edge weights, ``0 < low <= high``.
    perturbation : float, default=0.1
        Added to each diagonal entry beyond the row's absolute sum.
    threshold : float, default=1e-2
        Entries of the pseudo-inverse below it in absolute value are set to 0.
    random_state : int, RandomState instance or None, default=None
        Controls the draws.

    Attributes
    ----------
    adjacency_ : ndarray of shape (p, p), dtype bool
        The graph (a superset of each draw's support).
    n_nodes_ : int
        Number of nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.generators import ThresholdedPseudoInverse
    >>> M = ThresholdedPseudoInverse(random_state=0).fit(nx.star_graph(4)).sample(1)
    >>> bool(np.all(M[0][1:, 1:][~np.eye(4, dtype=bool)] == 0))
    True
    """

    _parameter_constraints: dict[str, list[object]] = {
        "low": [Interval(Real, 0, None, closed="neither")],
        "high": [Interval(Real, 0, None, closed="neither")],
        "perturbation": [Interval(Real, 0, None, closed="neither")],
        "threshold": [Interval(Real, 0, None, closed="left")],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        low: float = 0.5,
        high: float = 1.0,
        *,
        perturbation: float = 0.1,
        threshold: float = 1e-2,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.low = low
        self.high = high
        self.perturbation = perturbation
        self.threshold = threshold
        self.random_state = random_state

    @property
    def _unit_diagonal(self) -> bool:
        # The pseudo-inverse of a correlation matrix has a diagonal >= 1.
        return False

    def _fit(self, adjacency: np.ndarray) -> None:
        if self.low > self.high:
            raise ValueError(f"low={self.low} must not exceed high={self.high}")
        self._edges = np.nonzero(np.triu(adjacency, 1))

    def _sample(self, n_samples: int, rng: np.random.RandomState) -> np.ndarray:
        p = self.n_nodes_
        rows, cols = self._edges
        magnitudes = rng.uniform(self.low, self.high, size=(n_samples, rows.size))
        signs = np.where(rng.random_sample((n_samples, rows.size)) < 0.5, -1.0, 1.0)
        weights = magnitudes * signs
        dominant = np.zeros((n_samples, p, p))
        dominant[:, rows, cols] = weights
        dominant[:, cols, rows] = weights
        index = np.arange(p)
        dominant[:, index, index] = np.abs(dominant).sum(axis=2) + self.perturbation
        covariance = np.linalg.inv(dominant)
        scale = 1.0 / np.sqrt(np.diagonal(covariance, axis1=1, axis2=2))
        covariance *= scale[:, :, None] * scale[:, None, :]
        precision = np.linalg.pinv(covariance, hermitian=True)
        precision[np.abs(precision) < self.threshold] = 0.0
        return precision
