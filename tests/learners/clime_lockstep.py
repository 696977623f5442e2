"""The parametric simplex of CLIME's path in numpy, every column in lockstep.

The version ``skggm_bench.learners._clime_path`` ran before the path was
compiled (``_clime_simplex.pyx``), kept as the readable reference the kernel is
compared against: the same algorithm (see ``_clime_path``'s docstring), the same
tolerances, bound and pivot rules, certification and refresh from the basis.
``lockstep_path(S, grid)`` returns what ``clime_path`` returns for penalties
``grid``, decreasing and all below 1.
"""

import numpy as np

# A basic value within this (relative) of its bound has reached it.
_BOUND_TOL = 1e-11
# Pivot elements smaller than this are not used (numerically unstable).
_PIVOT_TOL = 1e-9
_FEASIBILITY_TOL = 1e-9
# Pivots per column before the path is declared stuck (cycling).
_MAX_PIVOTS_PER_FEATURE = 20


def _matvec(matrices: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """``matrices[k] @ vectors[k]`` for every ``k`` (batched BLAS, not einsum's
    loops: half the time at p = 50)."""
    return np.matmul(matrices, vectors[:, :, None])[:, :, 0]


def _vecmat(vectors: np.ndarray, matrices: np.ndarray) -> np.ndarray:
    """``vectors[k] @ matrices[k]`` for every ``k``."""
    return np.matmul(vectors[:, None, :], matrices)[:, 0, :]


class _Columns:
    """The simplex state of the columns still on their way, in lockstep.

    Every column ``j`` has its own basis of ``p`` of the ``3 p`` variables
    (``b+``, ``b-``, ``r``) and its inverse ``B^-1``, which gives the tableau
    ``B^-1 [S, -S, -I]`` row by row and column by column, and the right-hand
    side ``B^-1 e_j`` (column ``j`` of ``B^-1``). ``reduced`` are the reduced
    costs, updated at each pivot. ``tau[i]`` is ``+1`` / ``-1`` when ``r_i`` is
    nonbasic at ``+alpha`` / ``-alpha`` and 0 when it is basic.
    """

    def __init__(self, S, cols):
        p, m = S.shape[0], cols.size
        self.S = S
        self.A = np.hstack([S, -S, -np.eye(p)])
        self.cost = np.concatenate([np.ones(2 * p), np.zeros(p)])
        self.cols = cols
        # Every r basic (B = -I): r = -e_j, optimal for alpha >= 1.
        self.inverse = np.broadcast_to(-np.eye(p), (m, p, p)).copy()
        self.reduced = np.tile(self.cost, (m, 1))
        self.basis = np.tile(np.arange(2 * p, 3 * p), (m, 1))
        self.tau = np.zeros((m, p))
        self.alpha = np.ones(m)
        self.next = np.zeros(m, dtype=int)  # next penalty of the grid to read

    def keep(self, kept):
        for name in ("cols", "inverse", "reduced", "basis", "tau", "alpha", "next"):
            setattr(self, name, getattr(self, name)[kept])

    def refresh(self, which):
        """Recompute ``B^-1`` of columns ``which`` from their basis; False where
        the basis is singular."""
        B = np.transpose(self.A[:, self.basis[which]], (1, 0, 2))
        regular = np.linalg.slogdet(B)[0] != 0
        eye = np.eye(B.shape[1])
        self.inverse[which] = np.linalg.inv(np.where(regular[:, None, None], B, eye))
        return regular

    def read(self, which, alpha):
        """``b`` of columns ``which`` at penalties ``alpha``, and whether each is
        certified optimal (primal and dual feasible)."""
        m, p = which.size, self.S.shape[0]
        inverse = self.inverse[which]
        basis = self.basis[which]
        tau = self.tau[which]
        unit = np.zeros((m, p))
        unit[np.arange(m), self.cols[which]] = 1.0
        values = _matvec(inverse, unit + alpha[:, None] * tau)
        full = np.zeros((m, 3 * p))
        full[np.arange(m)[:, None], basis] = values
        coefficients = full[:, : 2 * p]
        b = coefficients[:, :p] - coefficients[:, p:]
        residual = np.abs(b @ self.S - unit).max(axis=1)
        # Reduced costs afresh: y = c_B' B^-1; b+: 1 - y'S, b-: 1 + y'S, r: y.
        y = _vecmat(self.cost[basis], inverse)
        v = y @ self.S
        reduced = np.concatenate([1.0 - v, 1.0 + v, y], axis=1)
        reduced[np.arange(m)[:, None], basis] = 0.0
        self.reduced[which] = reduced
        at_upper = np.zeros((m, 3 * p), dtype=bool)
        at_upper[:, 2 * p :] = tau > 0
        wrong_sign = np.where(at_upper, reduced, -reduced)
        valid = (
            (coefficients.min(axis=1) >= -_FEASIBILITY_TOL)
            & (residual <= alpha + _FEASIBILITY_TOL)
            & (wrong_sign.max(axis=1) <= _FEASIBILITY_TOL)
        )
        return b, valid

    def events(self):
        """Largest penalty below the current one where a basic value reaches a
        bound: that penalty, its row and whether the bound is r's upper one."""
        m, p = self.cols.size, self.S.shape[0]
        rhs = self.inverse[np.arange(m), :, self.cols]
        gamma = _matvec(self.inverse, self.tau)
        is_r = self.basis >= 2 * p
        with np.errstate(divide="ignore", invalid="ignore"):
            crossing = np.where(~is_r & (gamma > 0), -rhs / gamma, -np.inf)
            upper = np.where(is_r & (1 - gamma > 0), rhs / (1 - gamma), -np.inf)
            lower = np.where(is_r & (1 + gamma > 0), -rhs / (1 + gamma), -np.inf)
        stacked = np.concatenate([crossing, upper, lower], axis=1)
        where = np.argmax(stacked, axis=1)
        event = np.minimum(stacked[np.arange(m), where], self.alpha)
        return event, where % p, where // p == 1

    def pivot(self, pivoting, row, to_upper):
        """One dual simplex pivot for the columns ``pivoting`` (bool mask); the
        leaving variable of each is the basic one of ``row``. Returns the mask of
        columns where no variable may enter."""
        m, p = self.cols.size, self.S.shape[0]
        k = np.arange(m)
        row = np.where(pivoting, row, 0)
        inverse_row = self.inverse[k, row]
        product_row = inverse_row @ self.S
        pivot_row = np.concatenate([product_row, -product_row, -inverse_row], axis=1)
        at_upper = np.zeros((m, 3 * p), dtype=bool)
        at_upper[:, 2 * p :] = self.tau > 0
        up = to_upper[:, None]
        positive, negative = pivot_row > _PIVOT_TOL, pivot_row < -_PIVOT_TOL
        eligible = np.where(
            up,
            (~at_upper & positive) | (at_upper & negative),
            (~at_upper & negative) | (at_upper & positive),
        )
        eligible[k[:, None], self.basis] = False
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(
                eligible, np.abs(self.reduced) / np.abs(pivot_row), np.inf
            )
        entering = np.argmin(ratios, axis=1)
        stuck = pivoting & ~np.isfinite(ratios[k, entering])
        active = pivoting & ~stuck
        leaving = self.basis[k, row]
        leaving_r = active & (leaving >= 2 * p)
        self.tau[k[leaving_r], leaving[leaving_r] - 2 * p] = np.where(
            to_upper[leaving_r], 1.0, -1.0
        )
        entering_r = active & (entering >= 2 * p)
        self.tau[k[entering_r], entering[entering_r] - 2 * p] = 0.0
        self.basis[k[active], row[active]] = entering[active]
        # The entering column of the tableau, then the row operations.
        variable = entering % p
        of_product = _matvec(self.inverse, self.S[:, variable].T)
        column = np.where(
            (entering < p)[:, None],
            of_product,
            np.where(
                (entering < 2 * p)[:, None], -of_product, -self.inverse[k, :, variable]
            ),
        )
        pivot = np.where(active, column[k, row], 1.0)
        factor = np.where(active[:, None], column, 0.0)
        factor[k, row] = 0.0
        inverse_row = inverse_row / pivot[:, None]
        self.inverse -= np.einsum("ki,kj->kij", factor, inverse_row)
        self.inverse[k, row] = inverse_row
        step = np.where(active, self.reduced[k, entering] / pivot, 0.0)
        self.reduced -= step[:, None] * pivot_row
        return stuck


def _paths(S: np.ndarray, grid: np.ndarray, cols: np.ndarray, out, solved) -> None:
    """Solutions of the programs of columns ``cols`` at the decreasing penalties
    ``grid`` (all below 1), written into ``out`` (len(grid), p, p); ``solved``
    (len(grid), p) marks those read."""
    p = S.shape[0]
    state = _Columns(S, cols)
    for _ in range(_MAX_PIVOTS_PER_FEATURE * p + grid.size):
        if state.cols.size == 0:
            break
        event, row, to_upper = state.events()
        failed = np.zeros(state.cols.size, dtype=bool)
        # Every penalty of the grid down to the next event is read off the current
        # basis (several when they lie close), then every column still on its way
        # pivots in the same round: a round costs the same for all columns.
        while True:
            ahead = ~failed & (state.next < grid.size)
            penalty = grid[np.minimum(state.next, grid.size - 1)]
            which = np.flatnonzero(ahead & (penalty >= event * (1.0 - _BOUND_TOL)))
            if which.size == 0:
                break
            # Where the solution is not certified, read again from an inverse
            # recomputed from the basis.
            b, good = state.read(which, penalty[which])
            if not good.all():
                again = which[~good]
                regular = state.refresh(again)
                b[~good], valid = state.read(again, penalty[again])
                good[~good] = regular & valid
            out[state.next[which[good]], :, state.cols[which[good]]] = b[good]
            solved[state.next[which[good]], state.cols[which[good]]] = True
            failed[which[~good]] = True
            state.next[which[good]] += 1
        pivoting = ~failed & (state.next < grid.size)
        state.alpha = np.where(pivoting, event, state.alpha)
        failed |= state.pivot(pivoting, row, to_upper)
        kept = ~failed & (state.next < grid.size)
        if not kept.all():
            state.keep(kept)


def lockstep_path(S: np.ndarray, grid) -> tuple[np.ndarray, np.ndarray]:
    """Solutions (len(grid), p, p) at the decreasing penalties ``grid`` (all
    below 1), and which were read (False where a column's path broke down)."""
    grid = np.asarray(grid, dtype=float)
    p = S.shape[0]
    out = np.zeros((grid.size, p, p))
    solved = np.zeros((grid.size, p), dtype=bool)
    _paths(S, grid, np.arange(p), out, solved)
    return out, solved
