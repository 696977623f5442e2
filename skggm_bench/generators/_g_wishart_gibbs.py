"""Blocked Gibbs sampler for the G-Wishart law, one row of free entries per move.

The free entries of ``K ~ W_G(df, D)`` (diagonal and edges) have density
proportional to ``|K|^((df - 2) / 2) exp(-tr(D K) / 2)`` on the positive definite
matrices with the graph's zeros. A move redraws the block of a node ``i``: ``K_ii``
and ``x = K[N, i]`` (``N`` its neighbours), exactly from their conditional law given
every other free entry, as in the block Gibbs sampler of Wang & Li (2012), who use
cliques as blocks; a node's row is a block whose conditional has a closed form.

With ``Psi = K_{-i,-i}`` fixed, ``|K| = |Psi| a`` for the Schur complement
``a = K_ii - x^T H x``, ``H = (Psi^{-1})_NN``, and ``K`` is positive definite iff
``a > 0``. The terms of ``tr(D K)`` that involve the block are
``D_ii K_ii + 2 D_iN x``. In the coordinates ``(a, x)`` (unit Jacobian) the
conditional density factorises:

    a ~ chi2(df) / D_ii,        x ~ N(-H^{-1} D_Ni / D_ii, (D_ii H)^{-1}),

independently, and ``K_ii = a + x^T H x``. Sweeps visit every node in a random
order; the blocks cover every free entry and each has a positive conditional
density on the (convex) state space, so the chain is irreducible and its stationary
law is ``W_G(df, D)``, on any graph.

``Sigma = K^{-1}`` gives ``H = Sigma_NN - s_N s_N^T / s_ii`` (``s = Sigma[:, i]``), and
after the move ``Sigma' = Sigma - s s^T / s_ii + y y^T / a`` with ``y = B[:, N] x`` off
``i``, ``y_i = -1``, ``B = Sigma - s s^T / s_ii`` (block inversion): a rank-2 update,
``O(p^2)`` per move and chain. ``Sigma`` is recomputed from ``K`` after every sweep
(a Cholesky factorisation, which also gives ``log det K``).
"""

from __future__ import annotations

import numpy as np

from ._low_rank_inverse import inverse_and_log_det

__all__ = ["GibbsChains"]


class GibbsChains:
    """States ``K`` and inverses ``Sigma`` of lockstep G-Wishart Gibbs chains.

    Parameters
    ----------
    starts : ndarray of shape (n_chains, p, p)
        Positive definite starting points with the graph's zeros.
    adjacency : ndarray of shape (p, p), dtype bool
    df : float
    scale : ndarray of shape (p, p)
    rng : numpy.random.RandomState
    """

    def __init__(
        self,
        starts: np.ndarray,
        adjacency: np.ndarray,
        df: float,
        scale: np.ndarray,
        rng: np.random.RandomState,
    ) -> None:
        self.precision = np.array(starts, dtype=np.float64)
        self.covariance = np.empty_like(self.precision)
        self.log_det = np.zeros(self.n_chains)
        self.df, self.scale, self.rng = df, scale, rng
        self.neighbours = [np.flatnonzero(row) for row in adjacency]
        self.rows, self.cols = np.nonzero(np.triu(adjacency, 1))
        self.n_moves = 0
        self.refresh()

    @property
    def n_chains(self) -> int:
        return len(self.precision)

    def monitored(self) -> np.ndarray:
        """Free entries (diagonal, then edges) and ``log det K``, per chain."""
        p = self.precision.shape[1]
        diagonal = self.precision[:, np.arange(p), np.arange(p)]
        edges = self.precision[:, self.rows, self.cols]
        return np.column_stack([diagonal, edges, self.log_det])

    def sweep(self) -> None:
        """One move per node, in a random order shared by the chains."""
        for node in self.rng.permutation(len(self.neighbours)):
            self.row_move(node)
        self.n_moves += len(self.neighbours) * self.n_chains
        self.refresh()

    def refresh(self) -> None:
        """Recompute ``Sigma`` and ``log det K`` from ``K``."""
        try:
            self.covariance, self.log_det = inverse_and_log_det(self.precision)
        except np.linalg.LinAlgError as exc:  # pragma: no cover - safety net
            raise RuntimeError(
                "a G-Wishart Gibbs chain left the positive definite cone; this is a "
                "numerical failure that should not happen, please report it"
            ) from exc

    def row_move(self, node: int) -> None:
        """Redraw ``K_ii`` and ``K[N, i]`` from their conditional law, every chain."""
        neighbours = self.neighbours[node]
        covariance = self.covariance
        c, d = self.n_chains, neighbours.size
        scale_ii = self.scale[node, node]
        schur = draw_schur_complement(self.df, scale_ii, c, self.rng)
        column = covariance[:, node, :].copy()  # s = Sigma[:, i] (Sigma symmetric)
        s_ii = column[:, node].copy()
        if d:
            s_n = column[:, neighbours]
            h = (
                covariance[:, neighbours[:, None], neighbours]
                - s_n[:, :, None] * (s_n / s_ii[:, None])[:, None, :]
            )
            # H = L L^T; x = L^{-T} (z / sqrt(D_ii) - L^{-1} D_Ni / D_ii).
            inverse_factor = np.linalg.inv(np.linalg.cholesky(h))
            centred = (
                self.rng.standard_normal((c, d)) / np.sqrt(scale_ii)
                - (inverse_factor @ self.scale[neighbours, node]) / scale_ii
            )
            x = (centred[:, None, :] @ inverse_factor)[:, 0]
            quadratic = np.einsum("cd,cd->c", centred, centred)  # x^T H x
            # y = B[:, N] x with B = Sigma - s s^T / s_ii (completed below).
            y = (x[:, None, :] @ covariance[:, neighbours, :])[:, 0, :]
            y -= column * (np.einsum("cd,cd->c", s_n, x) / s_ii)[:, None]
        else:
            x = np.zeros((c, 0))
            quadratic = 0.0
            y = np.zeros_like(column)
        self.precision[:, node, neighbours] = x
        self.precision[:, neighbours, node] = x
        self.precision[:, node, node] = schur + quadratic
        y[:, node] = -1.0
        # Sigma' = Sigma - s s^T / s_ii + y y^T / a, one (p x 2)(2 x p) product.
        left = np.empty((c, column.shape[1], 2))
        left[:, :, 0] = column / -np.sqrt(s_ii)[:, None]
        left[:, :, 1] = y / np.sqrt(schur)[:, None]
        right = np.swapaxes(left, 1, 2).copy()
        right[:, 0] *= -1.0
        covariance += left @ right


def draw_schur_complement(
    df: float, scale_ii: float, n_chains: int, rng: np.random.RandomState
) -> np.ndarray:
    """The conditional law of the Schur complement ``a``: ``chi2(df) / D_ii``."""
    return rng.chisquare(df, n_chains) / scale_ii
