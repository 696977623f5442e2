"""CLIME along a penalty path by a parametric dual simplex.

Column ``j`` of CLIME solves the linear program

    minimise ||b||_1  subject to  -alpha <= (S b - e_j)_i <= alpha  (every i).

Written with ``b = b+ - b-`` (``b+, b- >= 0``) and ``r = S b - e_j`` as boxed
variables, it has ``p`` equality rows ``S b+ - S b- - r = e_j`` and only the
bounds of ``r`` depend on ``alpha``. The reduced costs do not depend on
``alpha``, so an optimal basis stays optimal while its basic values stay within
their bounds; they are affine in ``alpha`` (``beta + alpha gamma``) because the
nonbasic ``r_i`` sit at ``+alpha`` or ``-alpha``. Hence the whole path: start at
``alpha = 1`` where ``b = 0`` (every ``r`` basic) is optimal, lower ``alpha``
to the next value where a basic variable reaches a bound, and let it leave by a
dual simplex pivot (the entering variable keeps the reduced costs of the right
sign); the solutions at the requested penalties are read off on the way. This
is the parametric simplex of Vanderbei (and of R's fastclime, Pang, Liu &
Vanderbei 2014), written from the method's description.

Each solution read off is recomputed from its basis by one linear solve (so
the pivots' rounding does not accumulate into it) and checked: feasible to
``_FEASIBILITY_TOL`` and with ``b+``, ``b-`` non-negative. A column whose path
breaks down (a pivot without an eligible entering variable, or a solution
failing the check) is reported, and the caller solves it by HiGHS.
"""

import numpy as np

# A basic value within this (relative) of its bound has reached it.
_BOUND_TOL = 1e-11
# Pivot elements smaller than this are not used (numerically unstable).
_PIVOT_TOL = 1e-9
_FEASIBILITY_TOL = 1e-9
# Pivots per column before the path is declared stuck (cycling).
_MAX_PIVOTS_PER_FEATURE = 20


class _Columns:
    """The simplex state of the columns still on their way, in lockstep.

    Every column ``j`` has its own basis of ``p`` of the ``3 p`` variables
    (``b+``, ``b-``, ``r``); ``inverse`` is ``B^-1`` and ``product``
    ``B^-1 S``, which give the whole tableau ``B^-1 [S, -S, -I]``, its right-hand
    side ``B^-1 e_j`` (column ``j`` of ``B^-1``) and, with the basic costs, the
    reduced costs. ``tau[i]`` is ``+1`` / ``-1`` when ``r_i`` is nonbasic at
    ``+alpha`` / ``-alpha`` and 0 when it is basic.
    """

    def __init__(self, S):
        p = S.shape[0]
        self.S = S
        self.A = np.hstack([S, -S, -np.eye(p)])
        self.cost = np.concatenate([np.ones(2 * p), np.zeros(p)])
        self.cols = np.arange(p)
        # Every r basic (B = -I): r = -e_j, optimal for alpha >= 1.
        self.inverse = np.broadcast_to(-np.eye(p), (p, p, p)).copy()
        self.product = np.broadcast_to(-S, (p, p, p)).copy()
        self.basis = np.tile(np.arange(2 * p, 3 * p), (p, 1))
        self.tau = np.zeros((p, p))
        self.alpha = np.ones(p)
        self.next = np.zeros(p, dtype=int)  # next penalty of the grid to read

    def keep(self, kept):
        for name in ("cols", "inverse", "product", "basis", "tau", "alpha", "next"):
            setattr(self, name, getattr(self, name)[kept])

    def refresh(self, which):
        """Recompute ``B^-1`` and ``B^-1 S`` of columns ``which`` from their basis;
        False where the basis is singular."""
        B = np.transpose(self.A[:, self.basis[which]], (1, 0, 2))
        regular = np.linalg.slogdet(B)[0] != 0
        inverse = np.linalg.inv(np.where(regular[:, None, None], B, np.eye(B.shape[1])))
        self.inverse[which] = inverse
        self.product[which] = inverse @ self.S
        return regular

    def read(self, which, alpha):
        """``b`` of columns ``which`` at penalties ``alpha`` (after refresh), and
        whether each is a feasible vertex."""
        m, p = which.size, self.S.shape[0]
        unit = np.zeros((m, p))
        unit[np.arange(m), self.cols[which]] = 1.0
        values = np.einsum(
            "kij,kj->ki", self.inverse[which], unit + alpha[:, None] * self.tau[which]
        )
        full = np.zeros((m, 3 * p))
        full[np.arange(m)[:, None], self.basis[which]] = values
        coefficients = full[:, : 2 * p]
        b = coefficients[:, :p] - coefficients[:, p:]
        residual = np.abs(b @ self.S - unit).max(axis=1)
        valid = (coefficients.min(axis=1) >= -_FEASIBILITY_TOL) & (
            residual <= alpha + _FEASIBILITY_TOL
        )
        return b, valid

    def events(self):
        """Largest penalty below the current one where a basic value reaches a
        bound: that penalty, its row and whether the bound is r's upper one."""
        m, p = self.cols.size, self.S.shape[0]
        rhs = self.inverse[np.arange(m), :, self.cols]
        gamma = np.einsum("kij,kj->ki", self.inverse, self.tau)
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
        product_row = self.product[k, row]
        inverse_row = self.inverse[k, row]
        pivot_row = np.concatenate([product_row, -product_row, -inverse_row], axis=1)
        basic_cost = self.cost[self.basis]
        v = np.einsum("ki,kij->kj", basic_cost, self.product)
        w = np.einsum("ki,kij->kj", basic_cost, self.inverse)
        reduced = np.concatenate([1.0 - v, 1.0 + v, w], axis=1)
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
            ratios = np.where(eligible, np.abs(reduced) / np.abs(pivot_row), np.inf)
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
        of_product = self.product[k, :, variable]
        column = np.where(
            (entering < p)[:, None],
            of_product,
            np.where(
                (entering < 2 * p)[:, None], -of_product, -self.inverse[k, :, variable]
            ),
        )
        pivot = np.where(active, column[k, row], 1.0)[:, None]
        factor = np.where(active[:, None], column, 0.0)
        factor[k, row] = 0.0
        product_row = product_row / pivot
        inverse_row = inverse_row / pivot
        self.product -= factor[:, :, None] * product_row[:, None, :]
        self.inverse -= factor[:, :, None] * inverse_row[:, None, :]
        self.product[k, row] = product_row
        self.inverse[k, row] = inverse_row
        return stuck


def _paths(S: np.ndarray, grid: np.ndarray):
    """Solutions of every column's program at the decreasing penalties ``grid``
    (all below 1): (len(grid), p, p) and the (len(grid), p) mask of those read."""
    p = S.shape[0]
    out = np.zeros((grid.size, p, p))
    solved = np.zeros((grid.size, p), dtype=bool)
    state = _Columns(S)
    for _ in range(_MAX_PIVOTS_PER_FEATURE * p + grid.size):
        if state.cols.size == 0:
            break
        event, row, to_upper = state.events()
        penalty = grid[np.minimum(state.next, grid.size - 1)]
        reading = penalty >= event * (1.0 - _BOUND_TOL)
        failed = np.zeros(state.cols.size, dtype=bool)
        if reading.any():
            # Read (from a fresh inverse) instead of pivoting this round.
            which = np.flatnonzero(reading)
            regular = state.refresh(which)
            b, valid = state.read(which, penalty[which])
            good = regular & valid
            out[state.next[which[good]], :, state.cols[which[good]]] = b[good]
            solved[state.next[which[good]], state.cols[which[good]]] = True
            failed[which[~good]] = True
            state.next[which[good]] += 1
        pivoting = ~reading
        state.alpha = np.where(pivoting, event, state.alpha)
        failed |= state.pivot(pivoting, row, to_upper)
        kept = ~failed & (state.next < grid.size)
        if not kept.all():
            state.keep(kept)
    return out, solved


def clime_path(S: np.ndarray, alphas) -> tuple[np.ndarray, np.ndarray]:
    """CLIME's column solutions of ``S`` at every penalty.

    Parameters
    ----------
    S : ndarray of shape (p, p)
        Symmetric positive definite matrix (the perturbed correlation matrix).
    alphas : array-like of shape (n_alphas,)
        Positive penalties, any order.

    Returns
    -------
    solutions : ndarray of shape (n_alphas, p, p)
        ``solutions[k][:, j]``: column ``j``'s solution at ``alphas[k]``.
    solved : ndarray of shape (n_alphas, p), bool
        False for the columns whose path broke down (their entries are 0).
    """
    S = np.asarray(S, dtype=float)
    alphas = np.asarray(alphas, dtype=float)
    p = S.shape[0]
    order = np.argsort(-alphas, kind="stable")
    solutions = np.zeros((alphas.size, p, p))
    solved = np.ones((alphas.size, p), dtype=bool)
    # b = 0 is optimal for alpha >= 1 (||e_j||_inf = 1).
    below = order[alphas[order] < 1.0]
    if below.size == 0:
        return solutions, solved
    solutions[below], solved[below] = _paths(S, alphas[below])
    return solutions, solved
