"""Uniform sampling on ``E_p(G)`` for any graph, by Gibbs moves on the elliptope.

``E_p(G)`` (correlation matrices with ``m_ij = 0`` at the non-edges) is an open
convex body in the coordinates ``(m_ij)_{ij in E}``. A Gibbs move that redraws a
block of coordinates *uniformly on the section of the body through the current
point* leaves the uniform law invariant, and random-order sweeps over blocks that
cover every edge make an irreducible chain on the body: its stationary law is the
uniform law on ``E_p(G)``, chordal or not. Two kinds of block are implemented; both
read what they need from the current inverse ``K = M^{-1}`` and update it in
``O(p^2)`` by a rank-2 Woodbury step (no ``O(p^3)`` factorisation per move).

Edge move (coordinate hit-and-run, ``move="edge"``). Moving ``m_ij`` by ``t`` gives
``M(t) = M + t (e_i e_j^T + e_j e_i^T) = M + U (t S) U^T`` with ``U = [e_i, e_j]`` and
``S`` the 2 x 2 swap. By the matrix determinant lemma

    det M(t) / det M = det(I + t S K_B) = (1 + t k_ij)^2 - t^2 k_ii k_jj,

``K_B`` the ``{i, j}`` block of ``K``. The set of ``t`` keeping ``M(t)`` positive
definite is an interval containing 0 whose ends are roots of this concave
quadratic, so it is exactly the open interval between its two roots:

    t in ( -1 / (sqrt(k_ii k_jj) + k_ij),  1 / (sqrt(k_ii k_jj) - k_ij) ).

``t`` is drawn uniformly there and ``K`` becomes ``K - K U W U^T K`` with
``W = t (I + t S K_B)^{-1} S = (t / q) [[-t k_jj, 1 + t k_ij], [1 + t k_ij, -t k_ii]]``
and ``q = det M(t) / det M``.

Node move (``move="node"``, the default). All edge entries ``x = m_{i,N}`` of a node
``i`` (``N`` its neighbours) are redrawn at once. ``M`` stays positive definite iff
its Schur complement ``1 - x^T B_NN x`` is positive, ``B = (M_{-i,-i})^{-1}`` (the rest
is unchanged), so the section is the ellipsoid ``x^T B_NN x < 1``, sampled exactly
as ``x = L^{-T} z`` with ``B_NN = L L^T`` and ``z`` uniform in the unit ball.
``B = K_{-i,-i} - k k^T / k_ii`` with ``k = K[:, i]``, and the new inverse is
``K - k k^T / k_ii + y y^T / (1 - |z|^2)`` with ``y = B x`` off ``i`` and ``y_i = -1``
(block inversion): again rank 2. A node move updates a whole row at once, which
removes the strong coupling between the entries of a row that slows the edge move
down on dense graphs (measured in ``docs/hit_and_run.md``).

Cost. The rank-2 updates of a sweep are kept aside and applied to ``K`` 32 at a
time by one matrix product (``_low_rank_inverse``): still ``O(p^2)`` per move, but
at matrix-product speed instead of one memory-bound pass over ``K`` per move.
``log det M`` is updated with every move from the determinant ratio it already
computes.

Numerical care. Rank-2 updates lose accuracy when ``M`` comes back from a nearly
singular state (``K`` was huge and the update cancels it), so the inverse of a
chain is recomputed from ``M`` (Cholesky, which also certifies positive
definiteness) after every sweep (every ``ceil(p / 125)`` sweeps for larger graphs,
where it would otherwise cost as much as the moves), and sooner when the largest
diagonal entry of ``K`` has fallen by more than ``_REFRESH_GROWTH`` since its peak.
A draw landing within ``_BOUNDARY_MARGIN`` (relative) of the boundary of its
section is checked with an exact Cholesky factorisation and redrawn if rounding
put it outside.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from numbers import Integral
from typing import Any

import numpy as np
from scipy.linalg import lapack
from sklearn.utils._param_validation import StrOptions

from ..utils._validation import RANDOM_STATE, Interval
from ._base import GraphicalModelGenerator
from ._low_rank_inverse import LowRankInverse, inverse_and_log_det
from ._mcmc import (
    ChainDraws,
    PoorMixingWarning,
    mixing_report,
    single_threaded_blas,
)
from .triangulated_orthogonalization import TriangulatedOrthogonalization

__all__ = ["HitAndRunUniform", "PoorMixingWarning"]

# A move whose draw falls within this fraction of its section's width (edge move) or
# leaves a Schur complement below this (node move) is verified exactly. With the
# refresh policy below, the relative error of the updated inverse (hence of the
# section's ends) measured ~1e-9 typically and stayed below ~1e-6 in every run
# (docs/hit_and_run.md), so the check catches every rounding-induced exit, at the
# cost of one Cholesky factorisation per 5000 to 20000 moves.
_BOUNDARY_MARGIN = 1e-4
# Recompute a chain's inverse once max(diag K) has dropped by this factor from its
# peak since the last recomputation: the Woodbury updates made on the way down
# cancelled entries this much larger than the current ones, and their rounding
# errors are now this much larger relative to K. Measured on ER(100, 0.05) edge
# moves: 1e2 gives a drift of ~1e-9 for refreshes after ~1.4% of the moves, 1e3 a
# drift of ~3e-7 for 0.6%. Node moves are far less sensitive (the update is
# computed from a freshly factorised block): with 1e4, the drift measured at most
# 1.3e-8 on ER(100, 0.05), K10 and ER(30, 0.3) (3.5e-9, 8.6e-10, 1.3e-8; 1e2 gave
# 3.4e-10, 3.2e-10, 1.1e-9) and 5.8e-9 on ER(1000, 0.01), where 1e2 refreshed every
# chain 17 times per sweep.
_REFRESH_GROWTH = {"node": 1e4, "edge": 1e2}
# Sweeps between two scheduled recomputations: one up to p = 125, then ceil(p / 125)
# (an O(p^3) recomputation per chain costs about as much as a sweep of moves). At
# p = 1000 (every 8 sweeps) the drift found at the recomputations measured 1e-8.
_REFRESH_NODES_PER_SWEEP = 125
# Relative drift of the updated inverse (measured at every scheduled refresh) above
# which a RuntimeWarning is raised: a tenth of the boundary margin, so the check
# still catches exits. Uniform draws on dense graphs visit states with condition
# numbers up to ~1e9, where even an exact inversion is only accurate to ~1e-7: the
# measured drift is 1e-9 typically and reaches ~1e-6 in rare such states.
_DRIFT_TOLERANCE = 1e-5
# Rank-2 updates of the inverse kept aside before one product applies them all:
# the cost per move stays O(p^2) but runs at matrix-product speed. 32 moves: reads
# cost O(p) per pending column, and the product is already efficient at rank 64
# (54 us per column at p = 1000, against 59 at rank 32 and 90 at rank 8).
_PENDING_UPDATE_COLUMNS = 64
# ... from this size on; below it each term is applied at once (measured with 4
# chains, CPU time: pending terms 10-20% slower on graphs of 9 to 15 nodes, no
# faster at p = 100, 1.5 times faster at p = 200).
_PENDING_FROM_P = 128
# K += -u u^T + v v^T, u = k / sqrt(k_ii), v = y / sqrt(slack): the node move.
_NODE_MOVE_SIGNS = np.array([-1.0, 1.0])
# Defaults, in sweeps (one sweep = one move per node, or per edge, in random order,
# so every edge entry is redrawn at least once per sweep and the number of moves in
# a burn-in scales with the size of the graph). Chosen from the autocorrelations
# measured in docs/hit_and_run.md.
_DEFAULT_BURN_IN = {"node": 20, "edge": 100}
_DEFAULT_THINNING = {"node": 1, "edge": 20}


class HitAndRunUniform(GraphicalModelGenerator):
    """Uniform random correlation matrices with the zeros of any graph (MCMC).

    Draws from the uniform law on ``E_p(G)``, the correlation matrices with
    ``m_ij = 0`` whenever ``i`` and ``j`` are not adjacent, for every graph
    (chordal or not; the paper leaves the non-chordal case open). Runs
    ``n_chains`` Markov chains in lockstep whose stationary law is that uniform
    law: each move redraws one block of edge entries uniformly on the section of
    ``E_p(G)`` through the current point, reading the section from the current
    inverse and updating the inverse in ``O(p^2)``; see the module docstring and
    ``docs/hit_and_run.md`` for the formulas.

    ``fit`` validates the graph and runs the burn-in. ``sample(n)`` continues the
    chains and returns ``n`` draws taken every ``thinning`` sweeps, ordered round by
    round (draw ``k`` is from chain ``k % n_chains``); draws of a round left over are
    returned first by the next call, so ``sample(a)`` then ``sample(b)`` gives
    exactly ``sample(a + b)``.

    Parameters
    ----------
    move : {"node", "edge"}, default="node"
        ``"edge"`` is coordinate hit-and-run: one edge entry per move, uniform on
        its feasible interval. ``"node"`` redraws all edge entries of a node per
        move, uniformly on their feasible ellipsoid; it mixes much faster on graphs
        with triangles or hubs at a similar cost per sweep.
    n_burn_in : int or None, default=None
        Burn-in sweeps run by ``fit``. A sweep makes one move per node (or per
        edge) in random order, so the burn-in in moves scales with the size of the
        graph. None means 20 sweeps for ``"node"`` and 100 for ``"edge"``.
    thinning : int or None, default=None
        Sweeps between two returned draws of a chain. None means 1 sweep for
        ``"node"`` and 20 for ``"edge"``: enough for the lag-1 autocorrelation of
        every entry to be below 0.05 on every graph measured in
        ``docs/hit_and_run.md`` (for ``"edge"``, all but the densest); the
        diagnostics warn when it is not.
    n_chains : int, default=4
        Chains run in lockstep, as one batch of ``(n_chains, p, p)`` arrays. R-hat
        compares them (with one chain, its two halves).
    start : {"triangulated", "identity"}, default="triangulated"
        Starting point of every chain: an independent draw of
        :class:`TriangulatedOrthogonalization` (dispersed starts, which makes
        R-hat informative) or the identity matrix.
    random_state : int, RandomState instance or None, default=None
        Controls the starts and every move.

    Attributes
    ----------
    adjacency_ : ndarray of shape (p, p), dtype bool
        The validated graph.
    n_nodes_ : int
        Number of nodes.
    edges_ : ndarray of shape (n_edges, 2)
        Edges ``(i, j)``, ``i < j``, in the order of the per-entry diagnostics.
    n_burn_in_ : int
        Burn-in sweeps run.
    thinning_ : int
        Sweeps between returned draws of a chain.
    effective_sample_size_ : ndarray of shape (n_edges,)
        Bulk effective sample size of every edge entry (rank-normalised,
        multi-chain, Vehtari et al. 2021) over the draws returned since ``fit``.
        Set by :meth:`sample`.
    r_hat_ : ndarray of shape (n_edges,)
        Rank-normalised split R-hat (maximum of bulk and folded) of every edge
        entry across chains, over the same draws. Set by :meth:`sample`.
    diagnostics_ : dict
        Summary set by :meth:`sample`: ``n_draws``, ``n_chains``,
        ``min_effective_sample_size``, ``max_r_hat``, ``r_hat_threshold``,
        ``lag1_autocorrelation`` (per edge, within chains),
        ``max_lag1_autocorrelation``, ``log_det_effective_sample_size`` and
        ``log_det_r_hat`` (the same for ``log det M``, a global summary),
        ``acceptance_rate`` (1.0: every move is accepted by construction),
        ``n_moves`` and ``n_inverse_refreshes`` (summed over chains, burn-in
        included), ``max_inverse_drift`` (relative error of the updated inverse
        found at the per-sweep refreshes), ``n_boundary_checks``,
        ``n_boundary_redraws`` and ``warnings`` (the messages of the
        :class:`PoorMixingWarning` raised, if any).

    See Also
    --------
    UniformChordal : Exact, independent uniform draws on chordal graphs.
    TriangulatedOrthogonalization : Fast, independent draws, but not uniform on
        non-chordal graphs in general.

    Notes
    -----
    Diagnostics cover the draws produced since ``fit`` (the most recent ones when
    there are very many; ``diagnostics_["n_draws"]`` says how many), and are
    recomputed by :meth:`sample` whenever that number has grown by 10%. A
    :class:`PoorMixingWarning` is raised when R-hat exceeds ``max(1.01, q)`` with
    ``q`` its 0.999 quantile for independent draws (Bonferroni over entries), when
    the lag-1 autocorrelation of an entry is significantly above 0.05, or when
    (with at least 2000 draws, below which the estimate is too noisy) an effective
    sample size is below half the number of draws. A chain that mixes well triggers
    a warning with probability below 1e-3.

    Per move, the cost is ``O(p^2)`` per chain (plus ``O(d^3)`` for a node of
    degree ``d``); the inverse is recomputed in ``O(p^3)`` once per sweep.

    References
    ----------
    R. L. Smith. Efficient Monte Carlo procedures for generating points uniformly
    distributed over bounded regions. Operations Research, 1984.

    A. Vehtari, A. Gelman, D. Simpson, B. Carpenter, P.-C. Bürkner. Rank-normalization,
    folding, and localization: an improved R-hat for assessing convergence of MCMC.
    Bayesian Analysis, 2021.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.generators import HitAndRunUniform
    >>> gen = HitAndRunUniform(random_state=0).fit(nx.cycle_graph(4))
    >>> M = gen.sample(200)
    >>> M.shape, float(M[:, 0, 2].max())
    ((200, 4, 4), 0.0)
    >>> bool(gen.diagnostics_["max_r_hat"] < 1.05)
    True
    """

    # The chains' states are the draws: moves write m_ij and m_ji from the same
    # value, never touch a non-edge or the diagonal, and start from exact draws.
    _pattern_exact_by_construction = True

    _parameter_constraints: dict[str, list[object]] = {
        "move": [StrOptions({"node", "edge"})],
        "n_burn_in": [Interval(Integral, 0, None, closed="left"), None],
        "thinning": [Interval(Integral, 1, None, closed="left"), None],
        "n_chains": [Interval(Integral, 1, None, closed="left")],
        "start": [StrOptions({"triangulated", "identity"})],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        move: str = "node",
        *,
        n_burn_in: int | None = None,
        thinning: int | None = None,
        n_chains: int = 4,
        start: str = "triangulated",
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.move = move
        self.n_burn_in = n_burn_in
        self.thinning = thinning
        self.n_chains = n_chains
        self.start = start
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting

    def _fit(self, adjacency: np.ndarray) -> None:
        rows, cols = np.nonzero(np.triu(adjacency, 1))
        self.edges_ = np.column_stack([rows, cols])
        self.n_burn_in_ = int(
            _DEFAULT_BURN_IN[self.move] if self.n_burn_in is None else self.n_burn_in
        )
        self.thinning_ = int(
            _DEFAULT_THINNING[self.move] if self.thinning is None else self.thinning
        )
        for attribute in ("effective_sample_size_", "r_hat_", "diagnostics_"):
            if hasattr(self, attribute):
                delattr(self, attribute)
        self._chains = _Chains(
            self._starting_points(adjacency), adjacency, self.move, self._rng
        )
        with single_threaded_blas():
            for _ in range(self.n_burn_in_):
                self._chains.sweep()
        self._draws = ChainDraws(adjacency.shape, self.n_chains, rows.size + 1)

    def _starting_points(self, adjacency: np.ndarray) -> np.ndarray:
        p = adjacency.shape[0]
        if self.start == "identity" or not adjacency.any():
            return np.repeat(np.eye(p)[None], self.n_chains, axis=0)
        starter = TriangulatedOrthogonalization(random_state=self._rng)
        # Dense draws (no sparse_output): asarray only tells the type checker so.
        return np.asarray(starter.fit(adjacency).sample(self.n_chains))

    # ----------------------------------------------------------------- sampling

    def _sample(self, n_samples: int, rng: np.random.RandomState) -> np.ndarray:
        with single_threaded_blas():
            draws = self._draws.take(n_samples, self._next_round)
        if self._draws.diagnostics_due:
            self._update_diagnostics()
        return draws

    def _next_round(self) -> tuple[np.ndarray, np.ndarray]:
        for _ in range(self.thinning_):
            self._chains.sweep()
        return self._chains.matrix, self._chains.monitored()

    def _update_diagnostics(self) -> None:
        summary, traces = self._draws.diagnose()
        # The monitored quantities are the edge entries, then log det M.
        self.effective_sample_size_ = summary["ess"][:-1]
        self.r_hat_ = summary["r_hat"][:-1]
        chains = self._chains
        names = [f"entry ({i}, {j})" for i, j in self.edges_] + ["log det M"]
        advice = "increase thinning (or n_burn_in)" + (
            ", or use move='node'" if self.move == "edge" else ""
        )
        report, messages = mixing_report(summary, traces, names, advice)
        self.diagnostics_ = {
            **report,
            "acceptance_rate": 1.0,
            "n_moves": chains.n_moves,
            "n_inverse_refreshes": chains.n_refreshes,
            "max_inverse_drift": chains.max_drift,
            "n_boundary_checks": chains.n_boundary_checks,
            "n_boundary_redraws": chains.n_boundary_redraws,
            "warnings": messages,
        }
        for message in messages:
            warnings.warn(message, PoorMixingWarning, stacklevel=4)
        if chains.max_drift > _DRIFT_TOLERANCE:
            warnings.warn(
                f"the rank-2 updates of the inverse drifted by "
                f"{chains.max_drift:.1e} (relative) between refreshes, above "
                f"{_DRIFT_TOLERANCE:.0e}; the matrices are ill-conditioned enough "
                "that rounding may bias moves near the boundary",
                RuntimeWarning,
                stacklevel=4,
            )


# -------------------------------------------------------------------------- moves


def _edge_interval(
    k_ii: np.ndarray, k_jj: np.ndarray, k_ij: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Feasible steps ``(lower, upper)`` of ``m_ij`` given the inverse's 2 x 2 block.

    The roots of ``(1 + t k_ij)^2 - t^2 k_ii k_jj`` (module docstring), written as
    ``-1 / (r + k_ij)`` and ``1 / (r - k_ij)`` with ``r = sqrt(k_ii k_jj)``: no
    cancellation, unlike the quadratic formula.
    """
    root = np.sqrt(k_ii * k_jj)
    return -1.0 / (root + k_ij), 1.0 / (root - k_ij)


def _uniform_in_ball(
    rng: np.random.RandomState, n_points: int, dimension: int
) -> tuple[np.ndarray, np.ndarray]:
    """Uniform points of the unit ball of ``R^dimension`` and their squared norms.

    A normalised Gaussian vector is uniform on the sphere; the radius of a uniform
    point of the ball has ``P(R <= r) = r^d``, hence ``R = U^(1/d)``.
    """
    points = rng.standard_normal((n_points, dimension))
    radius = rng.random_sample(n_points) ** (1.0 / dimension)
    points *= (radius / np.sqrt(np.einsum("cd,cd->c", points, points)))[:, None]
    return points, radius**2


# ------------------------------------------------------------------------- chains


class _Chains:
    """The states ``M`` and inverses ``K`` of all chains, advanced in lockstep."""

    def __init__(
        self,
        starts: np.ndarray,
        adjacency: np.ndarray,
        move: str,
        rng: np.random.RandomState,
    ) -> None:
        self.matrix = np.array(starts, dtype=np.float64)
        pending = (
            _PENDING_UPDATE_COLUMNS if adjacency.shape[0] >= _PENDING_FROM_P else 0
        )
        self.lazy_inverse = LowRankInverse(np.zeros_like(self.matrix), pending)
        self.log_det = np.zeros(self.matrix.shape[0])
        self.rng = rng
        self.move = move
        self.rows, self.cols = np.nonzero(np.triu(adjacency, 1))
        self.neighbours = [np.flatnonzero(row) for row in adjacency]
        self.stencils = [np.r_[i, nbrs] for i, nbrs in enumerate(self.neighbours)]
        self.nodes = np.flatnonzero(adjacency.any(axis=1))
        self.n_moves = 0
        self.n_refreshes = 0
        self.n_boundary_checks = 0
        self.n_boundary_redraws = 0
        self.max_drift = 0.0
        self.peak_diagonal = np.ones(self.n_chains)
        self.refresh_every = -(-self.matrix.shape[1] // _REFRESH_NODES_PER_SWEEP)
        self.n_sweeps = 0
        self.refresh(measure_drift=False)

    @property
    def n_chains(self) -> int:
        return len(self.matrix)

    @property
    def inverse(self) -> np.ndarray:
        """``K = M^{-1}`` of every chain (pending updates folded in)."""
        return self.lazy_inverse.dense()

    def monitored(self) -> np.ndarray:
        """Edge entries and ``log det M`` of every chain, shape (chains, edges + 1)."""
        return np.column_stack([self.matrix[:, self.rows, self.cols], self.log_det])

    def sweep(self) -> None:
        """One move per block, blocks in a random order shared by the chains."""
        if self.move == "node":
            for node in self.rng.permutation(self.nodes):
                self.node_move(node)
            self.n_moves += self.nodes.size * self.n_chains
        else:
            order = self.rng.permutation(self.rows.size)
            fractions = self.rng.random_sample((order.size, self.n_chains))
            for edge, fraction in zip(order, fractions, strict=True):
                self.edge_move(self.rows[edge], self.cols[edge], fraction)
            self.n_moves += order.size * self.n_chains
        self.n_sweeps += 1
        if self.n_sweeps % self.refresh_every == 0:
            self.refresh()

    # -- exact recomputation of the inverse

    def refresh(self, chains: Any = slice(None), measure_drift: bool = True) -> None:
        """Recompute ``K`` (and ``log det M``) of ``chains`` from ``M`` exactly."""
        try:
            fresh, log_det = inverse_and_log_det(self.matrix[chains])
        except np.linalg.LinAlgError as exc:  # pragma: no cover - safety net
            raise RuntimeError(
                "a HitAndRunUniform chain left the positive definite set; this is "
                "a numerical failure that should not happen, please report it"
            ) from exc
        if measure_drift:
            error = np.abs(self.inverse[chains] - fresh).max(axis=(1, 2))
            scale = np.abs(fresh).max(axis=(1, 2))
            self.max_drift = max(self.max_drift, float((error / scale).max()))
        self.lazy_inverse.assign(chains, fresh)
        self.log_det[chains] = log_det
        self.peak_diagonal[chains] = np.diagonal(fresh, axis1=1, axis2=2).max(axis=1)
        self.n_refreshes += int(np.arange(self.n_chains)[chains].size)

    def _refresh_if_cancelling(self) -> None:
        """Refresh chains whose inverse shrank a lot since its peak (see module)."""
        current = self.lazy_inverse.diagonal.max(axis=1)
        np.maximum(self.peak_diagonal, current, out=self.peak_diagonal)
        stale = self.peak_diagonal > _REFRESH_GROWTH[self.move] * current
        if stale.any():
            self.refresh(np.flatnonzero(stale), measure_drift=False)

    def _is_positive_definite(self, chain: int) -> bool:
        # LAPACK directly: numpy's cholesky raises, and costs a copy, on failure.
        info: int = lapack.dpotrf(self.matrix[chain], lower=True)[1]
        return info == 0

    def _finish_move(
        self,
        near: np.ndarray,
        whole_batch: bool,
        restore: Callable[[int], None],
        redo: Callable[[int], None],
    ) -> None:
        """Exact check of the chains ``near`` the boundary, then drift control.

        A chain whose candidate is not positive definite (possible only when
        rounding moved a computed boundary outwards, by less than the margin) gets
        its pre-move entries back (``restore(chain)``), an exact inverse, and a new
        move (``redo(chain)``), until the candidate is inside. Accepting inside
        candidates and redrawing outside ones samples uniformly on the computed
        section intersected with the true one, which differ by the rounding error.
        """
        for chain in near:
            self.n_boundary_checks += 1
            while not self._is_positive_definite(chain):
                self.n_boundary_redraws += 1
                restore(chain)
                self.refresh([chain], measure_drift=False)
                redo(chain)
        if whole_batch:
            self._refresh_if_cancelling()

    # -- edge move: coordinate hit-and-run

    def edge_move(
        self,
        i: int,
        j: int,
        fraction: np.ndarray,
        chains: np.ndarray | None = None,
    ) -> None:
        """Move ``m_ij`` uniformly on its feasible interval, in every chain."""
        index = slice(None) if chains is None else chains
        pair_rows = self.lazy_inverse.rows(np.array([i, j]), index)  # rows i, j of K
        k_ii, k_jj, k_ij = pair_rows[:, 0, i], pair_rows[:, 1, j], pair_rows[:, 0, j]
        if not np.all(k_ii * k_jj > k_ij * k_ij):
            # Rounding broke the 2 x 2 block's definiteness: recompute exactly.
            self.refresh(index, measure_drift=False)
            pair_rows = self.lazy_inverse.rows(np.array([i, j]), index)
            k_ii, k_jj = pair_rows[:, 0, i], pair_rows[:, 1, j]
            k_ij = pair_rows[:, 0, j]
        root = np.sqrt(k_ii * k_jj)
        lower, upper = _edge_interval(k_ii, k_jj, k_ij)
        step = lower + (upper - lower) * fraction
        ratio = (1.0 + step * (k_ij - root)) * (1.0 + step * (k_ij + root))
        scale = step / ratio
        weights = np.empty((step.size, 2, 2))
        weights[:, 0, 0] = -scale * step * k_jj
        weights[:, 1, 1] = -scale * step * k_ii
        weights[:, 0, 1] = weights[:, 1, 0] = scale * (1.0 + step * k_ij)
        # K -= R^T W R, R = rows i, j of K: the symmetric form keeps K symmetric
        # (the column-row form lets rounding asymmetries grow).
        self.lazy_inverse.add(np.swapaxes(pair_rows, 1, 2), -weights, index)
        self.log_det[index] += np.log(ratio)  # det M(t) / det M
        old = self.matrix[index, i, j].copy()  # a view would see the update
        new = old + step
        if chains is None:
            self.matrix[:, i, j] = self.matrix[:, j, i] = new
        else:
            self.matrix[chains, i, j] = self.matrix[chains, j, i] = new
        chain_ids = np.arange(self.n_chains) if chains is None else chains

        def restore(chain: int) -> None:
            position = np.flatnonzero(chain_ids == chain)[0]
            self.matrix[chain, i, j] = self.matrix[chain, j, i] = old[position]

        def redo(chain: int) -> None:
            self.edge_move(i, j, self.rng.random_sample(1), np.array([chain]))

        near = (fraction < _BOUNDARY_MARGIN) | (fraction > 1.0 - _BOUNDARY_MARGIN)
        self._finish_move(chain_ids[near], chains is None, restore, redo)

    # -- node move: block Gibbs on the feasible ellipsoid of a row

    def node_move(
        self, node: int, chains: np.ndarray | None = None, retry: bool = True
    ) -> None:
        """Redraw all edge entries of ``node`` uniformly on their ellipsoid."""
        index = slice(None) if chains is None else chains
        neighbours = self.neighbours[node]
        lazy = self.lazy_inverse
        # Rows i and N of K: the gathered rows of K0 plus the pending terms, of
        # which only row i and (below) the combination x^T K[N, :] are expanded to
        # full length, O(p t) each.
        stencil = self.stencils[node]
        base_rows = lazy.base[index][:, stencil, :]
        pending = lazy.pending_weights(stencil, index)  # (c, t, 1 + d)
        row = base_rows[:, 0]
        if lazy.used:
            row += lazy.expand(np.swapaxes(pending[:, :, :1], 1, 2), index)[:, 0]
        n_chains, degree = row.shape[0], neighbours.size
        k_ii = row[:, node].copy()
        k_n = row[:, neighbours]
        # B_NN = (M_{-i,-i})^{-1} restricted to the neighbours.
        schur_inverse = (
            base_rows[:, 1:, neighbours]
            - k_n[:, :, None] * (k_n / k_ii[:, None])[:, None, :]
        )
        if lazy.used:
            schur_inverse += (
                np.swapaxes(pending[:, :, 1:], 1, 2)
                @ (lazy.vectors[index][:, : lazy.used, neighbours])
            )
        try:
            factor = np.linalg.cholesky(schur_inverse)
        except np.linalg.LinAlgError as exc:
            # Rounding broke the block's definiteness: recompute exactly, once.
            if not retry:  # pragma: no cover - safety net
                raise RuntimeError(
                    "HitAndRunUniform: the feasible ellipsoid of a node is "
                    "degenerate even with an exact inverse; the matrix is singular "
                    "to working precision"
                ) from exc
            self.refresh(index, measure_drift=False)
            return self.node_move(node, chains, retry=False)
        ball, squared_radius = _uniform_in_ball(self.rng, n_chains, degree)
        values = np.linalg.solve(np.swapaxes(factor, 1, 2), ball[:, :, None])[:, :, 0]
        slack = 1.0 - squared_radius  # new Schur complement 1 - x^T B_NN x
        # y = B x, B = K_{-i,-i} - k k^T / k_ii; y_i = -1 completes the new inverse.
        y = (values[:, None, :] @ base_rows[:, 1:])[:, 0]
        if lazy.used:
            y += lazy.expand(
                np.swapaxes(pending[:, :, 1:] @ values[:, :, None], 1, 2), index
            )[:, 0]
        y -= row * (np.einsum("cd,cd->c", k_n, values) / k_ii)[:, None]
        y[:, node] = -1.0
        # K' = K - k k^T / k_ii + y y^T / slack.
        terms = np.empty((n_chains, 2, row.shape[1]))
        np.multiply(row, (1.0 / np.sqrt(k_ii))[:, None], out=terms[:, 0])
        np.multiply(y, (1.0 / np.sqrt(slack))[:, None], out=terms[:, 1])
        lazy.add_signed(terms, _NODE_MOVE_SIGNS, index)
        # det M = det M_{-i,-i} * (Schur complement), which was 1 / k_ii.
        self.log_det[index] += np.log(slack) + np.log(k_ii)
        old = self.matrix[index, node, :][:, neighbours].copy()
        if chains is None:
            self.matrix[:, node, neighbours] = values
            self.matrix[:, neighbours, node] = values
        else:
            self.matrix[chains[:, None], node, neighbours] = values
            self.matrix[chains[:, None], neighbours, node] = values
        chain_ids = np.arange(self.n_chains) if chains is None else chains

        def restore(chain: int) -> None:
            position = np.flatnonzero(chain_ids == chain)[0]
            self.matrix[chain, node, neighbours] = old[position]
            self.matrix[chain, neighbours, node] = old[position]

        def redo(chain: int) -> None:
            self.node_move(node, np.array([chain]))

        near = slack < _BOUNDARY_MARGIN
        self._finish_move(chain_ids[near], chains is None, restore, redo)
