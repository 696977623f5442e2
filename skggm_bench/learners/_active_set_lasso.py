"""Every node-wise lasso (or square-root lasso) of a correlation matrix at once.

Node ``m`` regresses standardised variable ``m`` on all the others. On a
correlation (Gram) matrix ``R`` with unit diagonal its lasso problem is

    minimise over w (w_m = 0):  w'Rw / 2 - q'w + lam |w|_1,   q = R[:, m],

the objective ``||z_m - Z w||^2 / (2n) + lam |w|_1`` of columns standardised to
unit variance (``R = Z'Z / n``). Its square-root lasso is

    minimise over w (w_m = 0):  sigma(w) + lam |w|_1,   sigma(w)^2 = 1 - 2 q'w + w'Rw,

i.e. ``||z_m - Z w|| / sqrt(n) + lam |w|_1``.

Both are solved by a primal-dual active-set iteration (a semismooth Newton
method; Fan, Jiao & Lu 2014), all nodes in lockstep. Given the active set ``A``
and signs ``s`` the optimality conditions are linear: with ``u = R_AA^-1 q_A``
and ``v = R_AA^-1 s_A`` the lasso solution is ``w_A = u - lam v``; for the
square-root lasso ``w_A = u - lam sigma v`` and, substituting,
``sigma^2 = (1 - q_A'u) / (1 - lam^2 s_A'v)`` in closed form. The next active
set is ``{j : |w_j + d_j| > t}`` with ``d = q - Rw`` the correlations of the
residual and ``t = lam`` (``lam sigma``). When an iteration reproduces its
active set and signs, the solution satisfies the optimality conditions exactly
(up to the rounding of the linear solves): every inactive ``|d_j| <= t`` and every
active ``d_j = t s_j`` with ``sign(w_j) = s_j``.

The iteration converges fast from a nearby start, so a penalty is reached
from the largest (empty model) down by warm-started steps. A node whose step
does not settle (the iteration can cycle on strongly correlated variables; it
fails when it returns to an earlier active set, or after ``_MAX_ITER``
iterations, fewer over a short step) follows its exact lasso path, the homotopy
(one variable enters or leaves per event), from its last exact solution down
to the penalty; the result is confirmed by the iteration. Where even that
fails (a singular active block), scikit-learn's coordinate descent gives a
start from which the iteration finishes, so the result never depends on the
iteration converging from afar. For the square-root lasso the closed form is
tried first; a node where it fails alternates ``sigma = ||residual|| /
sqrt(n)`` with an exact lasso at ``lam * sigma`` (the scaled lasso of Sun &
Zhang 2012, whose fixed point is the square-root lasso solution) and is
finished by the closed form.
"""

from collections.abc import Iterator

import numpy as np
from scipy import sparse
from scipy.linalg.lapack import dgesv as _gesv
from scipy.linalg.lapack import dposv as _posv
from sklearn import config_context
from sklearn.linear_model import lasso_path

# Active-set iterations per penalty before a step counts as failed (a node
# that returns to an earlier active set fails at once). From a warm start two to
# five suffice; one step from the empty model to a tenth of the largest penalty
# takes 6-8 at p = 100-400. A failed lasso step goes to the homotopy, cheap over
# a short step (a penalty ratio of _SHORT_STEP or closer, as between StARS's
# grid points): there 6 iterations were the fastest of 4, 6, 10 and 20 for StARS
# on the methods preset's cells (p = 50).
_MAX_ITER = 20
_SHORT_STEP = 0.5
_SHORT_STEP_MAX_ITER = 6
# Events of the homotopy (_homotopy) at most per feature before it gives up (a
# path from the empty model changes each variable a few times at most), and the
# relative tolerance within which an event above the current penalty is a tie.
_MAX_EVENTS_PER_FEATURE = 10
_EVENT_RTOL = 1e-10
# Largest cost (multiply-adds) of R @ W (k nodes) computed densely without
# considering the sparse route: about a millisecond, the time to build a
# sparse array of W and some.
_DENSE_PRODUCT_SIZE = 2_000_000
# Time per multiply-add of the sparse product relative to a dense one (BLAS).
_SPARSE_SLOWDOWN = 8
# Largest active set solved in a batch of blocks of its size (_solve_active):
# at 20 a batched LU took 3 us per node, the loop of Cholesky solves 4 us; at
# 40, 9 us each.
_BATCHED_SIZE = 20
# Fewest variables a node may add to its active set in one iteration (see
# _limit_entering).
_MIN_ENTERING = 10
# Largest factor by which a continuation step moves a node's penalty. With the
# entering limit most steps settle even from the empty model; 0.1 was the
# fastest of 0.5, 0.25 and 0.1 at p = 100-400 (n = 200).
_CONTINUATION_RATIO = 0.1
# Coordinate-descent tolerance of the fallback (duality gap relative to ||y||^2,
# scikit-learn's definition): tight enough for the active-set iteration to
# finish from its result, loose enough to be reached in floating point.
_FALLBACK_TOL = 1e-10
_FALLBACK_MAX_ITER = 10_000
# Root search of the square-root lasso fallback (see square_root_lasso): at
# most this many lasso solves, until t = lam * sigma(t) holds to _SCALED_RTOL
# (relative). A residual scale below INTERPOLATION_SCALE (the standardised
# variable has unit variance, so R^2 > 1 - 1e-8) is an exact fit of the data:
# the lasso at t = lam * sigma is then nearly unpenalised and, with p >= n,
# too ill-conditioned for the root to be located reliably.
_SCALED_MAX_ITER = 100
_SCALED_RTOL = 1e-13
INTERPOLATION_SCALE = 1e-4
# Factor by which the root search tries a smaller t when its secant points at
# or below 0.
_ROOT_JUMP = 1e-3


def _allowed_predictors(R: np.ndarray) -> np.ndarray:
    """``allowed[m, j]``: variable ``j`` may enter node ``m``'s regression.

    Not itself, and not a constant (all-zero standardised) column.
    """
    allowed = np.diag(R)[None, :] > 0
    allowed = np.repeat(allowed, R.shape[0], axis=0)
    np.fill_diagonal(allowed, False)
    return allowed


def _solve_active(R, nodes, active, signs):
    """``u = R_AA^-1 q_A`` and ``v = R_AA^-1 s_A`` for each node.

    One LAPACK call per node on its own active block, all indexing done for
    all nodes at once outside the loop: a third of the cost of one batched
    solve of blocks padded to the largest (measured at p = 1000, 150 active:
    the padded gather alone took twice the whole loop). The block is a principal
    submatrix of a correlation matrix: Cholesky (``posv``) where it is
    positive definite to working precision, LU (``gesv``) where not. Blocks of
    up to ``_BATCHED_SIZE`` variables are solved together, one batched LU per
    size, without padding.

    The solutions are returned as their entries on the active sets (rows of
    ``active``), grouped by node: writing them into rows of ``p`` zeros would
    cost as much as the solves for active sets of a tenth of ``p``.

    Returns
    -------
    node_of, variable : ndarray of shape (n_entries,), int
        The position in ``nodes`` and the variable of each entry, grouped by
        node, in variable order.
    u, v, q : ndarray of shape (n_entries,)
        ``u``, ``v`` and ``q`` at each entry; ``u`` and ``v`` NaN on the
        whole active set of a node whose block is exactly singular.
    """
    n_nodes, n_features = active.shape
    node_of, variable = np.nonzero(active)  # grouped by node, in variable order
    bounds = np.searchsorted(node_of, np.arange(n_nodes + 1))
    rows = variable * n_features
    # Right-hand sides of all nodes at once; one gather of each block from the
    # flat array (row * p + column), twice as fast as rows then columns.
    flat = R.ravel()
    rhs = np.column_stack(
        [flat.take(rows + np.asarray(nodes)[node_of]), signs[node_of, variable]]
    )
    solution = np.empty_like(rhs)
    sizes = bounds[1:] - bounds[:-1]
    looped = sizes > 0
    # Small blocks of equal size are solved together (LU, one call): per node
    # the call and its indexing cost more than such a solve.
    for size in np.unique(sizes[looped & (sizes <= _BATCHED_SIZE)]).tolist():
        group = np.flatnonzero(sizes == size)
        entries = bounds[group, None] + np.arange(size)
        gather = rows[entries][:, :, None] + variable[entries][:, None, :]
        try:
            solution[entries] = np.linalg.solve(flat.take(gather), rhs[entries])
        except np.linalg.LinAlgError:
            continue  # an exactly singular block: the loop below tells which
        looped[group] = False
    # Python integers for the bounds: the loop runs once per node, and
    # indexing with NumPy scalars costs as much as a small solve.
    for start, stop in zip(
        bounds[:-1][looped].tolist(), bounds[1:][looped].tolist(), strict=True
    ):
        gather = rows[start:stop, None] + variable[start:stop]
        # The block is symmetric: its transpose is the Fortran-ordered array
        # LAPACK works on, without a copy.
        _, solution[start:stop], info = _posv(
            flat.take(gather).T, rhs[start:stop], overwrite_a=True
        )
        if info != 0:
            _, _, solution[start:stop], info = _gesv(
                flat.take(gather).T, rhs[start:stop], overwrite_a=True
            )
        if info != 0:
            solution[start:stop] = np.nan
    return node_of, variable, solution[:, 0], solution[:, 1], rhs[:, 0]


def _row_counts(mask):
    """``True`` entries of each row of a boolean array.

    Summed as bytes into 32-bit integers: a third of the time of
    ``np.count_nonzero(mask, axis=1)``.
    """
    return mask.view(np.uint8).sum(axis=1, dtype=np.int32)


def _limit_entering(active, excess, current):
    """Keep only the most violating of the variables about to enter, in place.

    Near a saturated fit many residual correlations sit just above the penalty;
    letting them all enter at once makes the iteration overshoot to a large,
    badly conditioned active set and cycle. A node may add at most half its
    current active set (and at least ``_MIN_ENTERING``) per iteration, those
    with the largest excess over the threshold.
    """
    entering = active & ~current
    counts = _row_counts(entering)
    limit = np.maximum(_MIN_ENTERING, _row_counts(current) // 2)
    over = np.flatnonzero(counts > limit)
    if over.size == 0:
        return
    ranked = np.where(entering[over], excess[over], -np.inf)
    cutoff = -np.sort(-ranked, axis=1)[np.arange(over.size), limit[over] - 1]
    active[over] &= ~entering[over] | (ranked >= cutoff[:, None])


class _Segments:
    """The last solve of each node: signs (0 off the active set), ``u`` and ``v``.

    ``u - lam v`` is the lasso solution at every ``lam`` for which these active
    set and signs satisfy the optimality conditions (a segment of the path).
    Along a path most nodes change their active set only every few penalties:
    a start on the segment is then already exact and settles without a solve,
    and elsewhere it predicts the next active set better than the previous
    solution does. Row ``m`` belongs to node ``m``.
    """

    def __init__(self, n_features: int):
        self.known = np.zeros(n_features, dtype=bool)
        self.signs = np.zeros((n_features, n_features), dtype=np.int8)
        self.u = np.zeros((n_features, n_features))
        self.v = np.zeros((n_features, n_features))


def _gram_product(R, Z, W):
    """``W @ R`` (rows of ``W``: coefficients of nodes) by the cheapest of three routes.

    Dense, ``p^2 k`` operations for ``k`` rows; through ``Z`` (``R = Z'Z /
    n``), ``2 n p k``, cheaper when ``n < p / 2``; or through the sparse
    coefficients, ``nnz p`` at about an eighth of the speed of a dense product
    (measured at p = 400 and 1000), plus the cost of building the sparse
    array, which a small product does not repay.
    """
    n_samples, n_features = Z.shape
    dense = n_features * W.size
    through_data = 2 * n_samples * W.size
    if min(dense, through_data) <= _DENSE_PRODUCT_SIZE:
        return W @ R if dense <= through_data else (W @ Z.T) @ Z / n_samples
    nonzero = W != 0
    through_sparse = _SPARSE_SLOWDOWN * n_features * np.count_nonzero(nonzero)
    if through_sparse < min(dense, through_data):
        # The compressed rows straight from the mask: half the time of
        # scipy's conversion from a dense array (through coordinates).
        pointers = np.zeros(W.shape[0] + 1, dtype=np.intp)
        np.cumsum(np.count_nonzero(nonzero, axis=1), out=pointers[1:])
        columns = np.flatnonzero(nonzero) % W.shape[1]
        compressed = sparse.csr_array((W[nonzero], columns, pointers), shape=W.shape)
        return np.asarray(compressed @ R)
    return W @ R if dense <= through_data else (W @ Z.T) @ Z / n_samples


def _active_set_iterations(
    R, Z, allowed, nodes, penalty, W, scaled, max_active, max_iter, segments=None
):
    """Run the active-set iteration for ``nodes`` from their rows of ``W``.

    Every array is node-major (row ``m``: node ``m``), so that selecting the
    nodes still iterating copies whole rows.

    Parameters
    ----------
    R : ndarray of shape (p, p)
        Correlation matrix (unit diagonal, zero rows for constant columns).
    Z : ndarray of shape (n, p)
        The data behind it, ``R = Z'Z / n``.
    allowed : ndarray of shape (p, p), bool
        Which variable (column) may enter which node (row).
    nodes : ndarray of shape (k,), int
        The nodes to solve.
    penalty : ndarray of shape (k,)
        ``lam`` of each of ``nodes``.
    W : ndarray of shape (p, p)
        Coefficients (row ``m``: node ``m``); the rows of ``nodes`` are the
        start and are overwritten.
    scaled : bool
        Square-root lasso instead of lasso.
    max_active : int
        Largest active set the iteration may try (the rank of ``R`` bounds the
        size of a unique solution).
    max_iter : int or ndarray of shape (k,)
        Iterations (linear solves) before a node still moving counts as failed,
        for all nodes or each.
    segments : _Segments or None
        Lasso only: nodes with a known segment start on it instead of at
        ``W``, and every solve is recorded there.

    Returns
    -------
    settled : ndarray of shape (k,), bool
        Which of ``nodes`` settled: their rows of ``W`` are exact solutions.
        The others hold the last iterate.
    """
    settled = np.zeros(nodes.size, dtype=bool)
    # The signs (0 off the active set) that produced each row at this
    # penalty; the start came from another penalty, so no row matches
    # before one solve.
    solved = np.zeros(nodes.size, dtype=bool)
    used_signs = np.zeros((nodes.size, R.shape[0]), dtype=np.int8)
    if segments is not None:
        # A start on a segment is the solve of its active set and signs at
        # this penalty, exactly as a solve would give it.
        known = np.flatnonzero(segments.known[nodes])
        rows = nodes[known]
        W[rows] = segments.u[rows] - penalty[known, None] * segments.v[rows]
        solved[known] = True
        used_signs[known] = segments.signs[rows]
    pending = np.arange(nodes.size)  # positions in ``nodes``
    # The next iterate is a function of the active set and signs, so a node
    # that returns to an earlier one cycles for ever: it fails at once. States
    # are compared by a random projection of their signs (``R``'s own size seeds
    # it, so that the result does not depend on anything else).
    projection = np.random.default_rng(R.shape[0]).standard_normal(R.shape[0])
    max_iter = np.broadcast_to(max_iter, nodes.shape)
    iterations = int(max_iter.max(initial=0))
    visited = np.full((iterations, nodes.size), np.nan)
    for iteration in range(iterations + 1):
        rows = nodes[pending]
        Wp = W[rows]
        RW = _gram_product(R, Z, Wp)
        q = R[rows]  # R is symmetric: row m is node m's q
        threshold = penalty[pending]
        if scaled:
            variance = 1.0 - 2.0 * np.sum(q * Wp, axis=1) + np.sum(Wp * RW, axis=1)
            threshold = threshold * np.sqrt(np.maximum(variance, 0.0))
        # In place in RW's buffer (arrays of k x p, allocated once per pass):
        # moved = Wp + (q - RW), then the excess |moved| - threshold.
        moved = np.subtract(q, RW, out=RW)
        moved += Wp
        positive = moved > 0
        excess = np.abs(moved, out=moved)
        excess -= threshold[:, None]
        active = excess > 0
        active &= allowed[rows]
        _limit_entering(active, excess, Wp != 0)
        # The sign of moved on the active set, 0 elsewhere, in one-byte
        # arithmetic (a quarter of the time of np.sign and a cast).
        signs = active.view(np.int8) * (2 * positive.view(np.int8) - 1)
        same = solved[pending] & np.all(signs == used_signs[pending], axis=1)
        settled[pending[same]] = True
        state = signs @ projection
        cycling = np.any(visited[:iteration, pending] == state, axis=0)
        keep = ~same & ~cycling & (_row_counts(active) <= max_active)
        keep &= iteration < max_iter[pending]
        pending, active, signs = pending[keep], active[keep], signs[keep]
        if pending.size == 0:
            break
        rows = nodes[pending]
        node_of, variable, u, v, q = _solve_active(R, rows, active, signs)
        lam = penalty[pending]
        if scaled:
            # sigma^2 = (1 - q_A'u) / (1 - lam^2 s_A'v), the inner products
            # summed over each node's entries.
            sums = np.bincount(node_of, q * u, minlength=rows.size)
            spread = np.bincount(
                node_of, signs[node_of, variable] * v, minlength=rows.size
            )
            numerator, denominator = 1.0 - sums, 1.0 - lam**2 * spread
            ok = (numerator > 0) & (denominator > 0)
            sigma = np.sqrt(
                np.divide(numerator, denominator, where=ok, out=np.ones_like(lam))
            )
            lam = np.where(ok, lam * sigma, np.nan)
        coefficients = u - lam[node_of] * v
        # A node with an exactly singular active block (NaN), or no closed
        # form, leaves unsettled: another method decides.
        finite = (
            np.bincount(node_of, ~np.isfinite(coefficients), minlength=rows.size) == 0
        )
        entries = finite[node_of]
        entry_rows, variable = rows[node_of[entries]], variable[entries]
        pending, rows = pending[finite], rows[finite]
        W[rows] = 0.0
        W[entry_rows, variable] = coefficients[entries]
        solved[pending] = True
        used_signs[pending] = signs[finite]
        visited[iteration, pending] = state[keep][finite]
        if segments is not None:
            segments.known[rows] = True
            segments.signs[rows] = signs[finite]
            segments.u[rows] = 0.0
            segments.u[entry_rows, variable] = u[entries]
            segments.v[rows] = 0.0
            segments.v[entry_rows, variable] = v[entries]
    return settled


def _coordinate_descent(Z, allowed, node, lam, start):
    """Lasso of one node at ``lam`` by scikit-learn's coordinate descent."""
    predictors = np.flatnonzero(allowed[node])
    coef = np.zeros(Z.shape[1])
    if predictors.size == 0:
        return coef
    design = np.asfortranarray(Z[:, predictors])
    with config_context(skip_parameter_validation=True, assume_finite=True):
        _, coefs, _ = lasso_path(
            design,
            Z[:, node],
            alphas=[lam],
            precompute=design.T @ design,
            Xy=design.T @ Z[:, node],
            coef_init=start[predictors].copy(),
            tol=_FALLBACK_TOL,
            max_iter=_FALLBACK_MAX_ITER,
            check_input=False,
        )
    coef[predictors] = coefs[:, 0]
    return coef


def _homotopy(R, allowed, node, w, start, target, max_events):
    """Follow node ``node``'s lasso path from ``start`` down to ``target``.

    ``w`` is the exact solution at penalty ``start >= target``. Between events
    the active set ``A`` and signs ``s`` are fixed and the solution is linear in
    the penalty, ``w_A = u - lam v`` (``u``, ``v`` as in :func:`_solve_active`);
    the residual correlation of an inactive ``j`` is ``a_j + lam b_j``. The next
    event is the largest penalty below the current one where an active
    coefficient reaches 0 (``lam = u_i / v_i``; it leaves) or an inactive
    correlation reaches ``+-lam`` (``lam = a_j / (1 -+ b_j)``; it enters with
    that sign); the variable that changed last is not a candidate at the next
    event. Unlike the active-set iteration this cannot cycle: every step is an
    exact solution, each event one change (Osborne, Presnell & Turlach 2000;
    Efron et al. 2004).

    Returns
    -------
    coef : ndarray of shape (n_features,) or None
        The solution at ``target``; None when an active block is singular or
        more than ``max_events`` events are needed.
    """
    q = R[:, node]
    signs = np.sign(w)
    lam = start
    changed = -1
    for _ in range(max_events):
        active = np.flatnonzero(signs)
        if active.size:
            try:
                rhs = np.column_stack([q[active], signs[active]])
                solution = np.linalg.solve(R[np.ix_(active, active)], rhs)
            except np.linalg.LinAlgError:
                return None
            u, v = solution[:, 0], solution[:, 1]
            a = q - R[:, active] @ u
            b = R[:, active] @ v
        else:
            u = v = np.zeros(0)
            a, b = q, np.zeros_like(q)
        # An event up to _EVENT_RTOL above the current penalty (a tie, up to
        # rounding) happens now, if the variable moves the right way: below
        # the event an entering |a_j + lam b_j| would exceed lam, a leaving
        # coefficient would change sign.
        ceiling = lam * (1.0 + _EVENT_RTOL)
        candidate = allowed & (signs == 0)
        if changed >= 0:
            candidate[changed] = False
        with np.errstate(divide="ignore", invalid="ignore"):
            leave = np.where(
                (signs[active] * v < 0) & (active != changed), u / v, -np.inf
            )
            enter_up = np.where(candidate & (b < 1.0), a / (1.0 - b), -np.inf)
            enter_down = np.where(candidate & (b > -1.0), -a / (1.0 + b), -np.inf)
        leave[~(leave < ceiling)] = -np.inf
        enter_up[~(enter_up < ceiling)] = -np.inf
        enter_down[~(enter_down < ceiling)] = -np.inf
        up, down = int(np.argmax(enter_up)), int(np.argmax(enter_down))
        out = int(np.argmax(leave)) if active.size else -1
        following = max(
            leave[out] if out >= 0 else -np.inf, enter_up[up], enter_down[down]
        )
        if following <= target:
            coef = np.zeros_like(q)
            coef[active] = u - target * v
            return coef
        if out >= 0 and leave[out] == following:
            changed = int(active[out])
            signs[changed] = 0.0
        elif enter_up[up] == following:
            changed = up
            signs[up] = 1.0
        else:
            changed = down
            signs[down] = -1.0
        lam = min(following, lam)
    return None


class _Problem:
    """The data of all node-wise regressions: ``Z``, ``R``, who may enter where."""

    def __init__(self, Z: np.ndarray):
        n_samples, n_features = Z.shape
        self.Z = Z
        self.R = Z.T @ Z / n_samples
        self.allowed = _allowed_predictors(self.R)
        # The empty model is optimal for both problems above a node's largest
        # |correlation| (sigma = 1 at w = 0): there W = 0 is exact.
        self.empty_above = np.max(np.abs(self.R) * self.allowed, axis=1, initial=0.0)
        # A unique lasso solution has at most rank(centred data) variables; a
        # larger tentative active set is singular.
        self.max_active = max(min(n_samples - 1, n_features - 1), 0)
        self.segments = _Segments(n_features)

    def iterate(self, nodes, penalty, W, scaled, max_iter=_MAX_ITER):
        return _active_set_iterations(
            self.R,
            self.Z,
            self.allowed,
            nodes,
            penalty,
            W,
            scaled,
            self.max_active,
            max_iter,
            None if scaled else self.segments,
        )

    def residual_scale(self, W, nodes):
        """``sigma(w)`` of ``nodes`` at their rows of ``W``."""
        w = W[nodes]
        q = self.R[nodes]
        variance = 1.0 - 2.0 * np.sum(q * w, axis=1) + np.sum(w * (w @ self.R), axis=1)
        return np.sqrt(np.maximum(variance, 0.0))

    def lasso(self, nodes, target, W, reached):
        """Exact lasso of ``nodes`` at penalties ``target``, in place in ``W``.

        ``reached[m]`` is the penalty at which row ``m`` of ``W`` is the exact
        solution; steps of at most ``_CONTINUATION_RATIO`` (either way) lead from
        there to ``target``.
        """
        goal = np.zeros(W.shape[0])
        goal[nodes] = target
        while True:
            moving = nodes[reached[nodes] != goal[nodes]]
            if moving.size == 0:
                return
            with np.errstate(divide="ignore", invalid="ignore"):
                step = np.clip(
                    goal[moving] / reached[moving],
                    _CONTINUATION_RATIO,
                    1.0 / _CONTINUATION_RATIO,
                )
            # No step from a solution at penalty 0 (least squares, which the
            # square-root lasso's root search may reach) or at an unknown one.
            steps = np.isfinite(reached[moving]) & (reached[moving] > 0)
            proposal = np.where(steps, reached[moving] * step, goal[moving])
            # A failed node follows the homotopy from its last solution, whose
            # cost grows with the distance: over a short step, few iterations
            # are worth trying first.
            short = steps & (step >= _SHORT_STEP)
            max_iter = np.where(short, _SHORT_STEP_MAX_ITER, _MAX_ITER)
            start = W[moving]
            settled = self.iterate(moving, proposal, W, scaled=False, max_iter=max_iter)
            reached[moving[settled]] = proposal[settled]
            failed = moving[~settled]
            W[failed] = start[~settled]
            if failed.size:
                self._follow_path(failed, goal, W, reached)

    def _follow_path(self, nodes, goal, W, reached):
        """Exact lasso of ``nodes`` at ``goal`` where the active-set iteration failed.

        The homotopy from each node's exact solution (at ``reached``, or the
        empty model above its largest correlation), checked by the active-set
        iteration; coordinate descent, finished by the iteration, where either
        fails.
        """
        # The iterations below start from the homotopy's (or coordinate
        # descent's) result, not from a segment of a failed iterate.
        self.segments.known[nodes] = False
        for node in nodes:
            # The homotopy runs down the path, from an exact solution.
            exact = np.isfinite(reached[node]) and reached[node] >= goal[node]
            coef = _homotopy(
                self.R,
                self.allowed[node],
                node,
                W[node] if exact else np.zeros(W.shape[1]),
                reached[node] if exact else self.empty_above[node],
                goal[node],
                _MAX_EVENTS_PER_FEATURE * W.shape[1],
            )
            if coef is not None:
                W[node] = coef
        approximate = W[nodes]
        settled = self.iterate(
            nodes, goal[nodes], W, scaled=False, max_iter=_SHORT_STEP_MAX_ITER
        )
        for position in np.flatnonzero(~settled):
            node = nodes[position]
            W[node] = _coordinate_descent(
                self.Z, self.allowed, node, goal[node], approximate[position]
            )
            approximate[position] = W[node]
            self.segments.known[node] = False
            if not self.iterate(
                np.array([node]), np.array([goal[node]]), W, scaled=False
            )[0]:
                W[node] = approximate[position]
        reached[nodes] = goal[nodes]

    def square_root_lasso(self, nodes, lam, W):
        """Exact square-root lasso of ``nodes`` at ``lam``, in place in ``W``.

        ``W`` holds a warm start (a solution at another penalty). Nodes where
        the closed form does not settle solve ``t = lam * sigma(t)``,
        ``sigma(t)`` the residual scale of the exact lasso at penalty ``t``
        (Sun & Zhang's scaled lasso; its root is the square-root lasso
        solution). ``t -> lam * sigma(t)`` approaches the root from either side
        without crossing it (``sigma`` is non-decreasing), which brackets it;
        secant steps inside the bracket make the convergence superlinear. A
        node whose root is 0 fits its data exactly (``sigma = 0``); it is left
        at a residual scale below ``INTERPOLATION_SCALE``.
        """
        start = W[nodes]
        settled = self.iterate(nodes, np.full(nodes.size, lam), W, scaled=True)
        pending = nodes[~settled]
        if pending.size == 0:
            return
        W[pending] = start[~settled]
        # The warm start solves the lasso at an unknown penalty: exact nowhere.
        reached = np.full(W.shape[0], np.inf)
        t = lam * self.residual_scale(W, pending)
        low = np.zeros(pending.size)  # g(low) <= 0 once set
        high = np.full(pending.size, np.inf)  # g(high) > 0
        previous_t = previous_g = None
        for _ in range(_SCALED_MAX_ITER):
            self.lasso(pending, t, W, reached)
            step = lam * self.residual_scale(W, pending)  # the alternation
            g = t - step
            low = np.where(g <= 0, t, low)
            high = np.where(g > 0, t, high)
            exact_fit = high <= INTERPOLATION_SCALE * lam
            done = (np.abs(g) <= _SCALED_RTOL * t) | exact_fit
            if previous_t is not None:
                with np.errstate(divide="ignore", invalid="ignore"):
                    slope = (g - previous_g) / (t - previous_t)
                    secant = t - g / slope
                inside = (secant > low) & (secant < high)
                # A secant at or below a lower end: bisect a true bracket, or,
                # while no t with g <= 0 is known, test a much smaller t (the
                # root may be 0, an exact fit, which the alternation only
                # approaches geometrically).
                below = secant <= low
                jump = np.where(low > 0, (low + high) / 2, _ROOT_JUMP * t)
                step = np.where(inside, secant, np.where(below, jump, step))
            keep = ~done
            if not keep.any():
                break
            pending, low, high = pending[keep], low[keep], high[keep]
            previous_t, previous_g, t = t[keep], g[keep], step[keep]
        nodes = nodes[~settled]
        approximate = W[nodes]
        finished = self.iterate(nodes, np.full(nodes.size, lam), W, scaled=True)
        W[nodes[~finished]] = approximate[~finished]


def nodewise_lasso_path(
    Z: np.ndarray, penalties: np.ndarray, *, square_root: bool = False
) -> np.ndarray:
    """Lasso (or square-root lasso) of every column of ``Z`` on the others.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        Columns centred and scaled to unit variance (``ddof=0``); all-zero
        columns are constant variables, which enter no regression.
    penalties : ndarray of shape (n_penalties,)
        Positive penalties ``lam`` (any order), the same for every node.
    square_root : bool, default=False
        Solve ``||z_m - Z w|| / sqrt(n) + lam |w|_1`` instead of the lasso
        ``||z_m - Z w||^2 / (2n) + lam |w|_1``.

    Returns
    -------
    coef : ndarray of shape (n_penalties, n_features, n_features)
        ``coef[k, m, j]``: coefficient of variable ``j`` in the regression of
        variable ``m`` at ``penalties[k]`` (zero diagonal).
    """
    n_features = Z.shape[1]
    penalties = np.asarray(penalties, dtype=float)
    coef = np.empty((penalties.size, n_features, n_features))
    for k, W in nodewise_lasso_steps(Z, penalties, square_root=square_root):
        coef[k] = W
    return coef


def nodewise_lasso_steps(
    Z: np.ndarray, penalties: np.ndarray, *, square_root: bool = False
) -> Iterator[tuple[int, np.ndarray]]:
    """:func:`nodewise_lasso_path` one penalty at a time, the largest first.

    For callers that keep less than the coefficients, such as the edges: the
    coefficients of a whole path are fresh memory (240 MB at p = 1000 with 30
    penalties) whose first writing took a sixth of the path's CPU time on the
    benchmark machine (page faults), against an eighth of that for a boolean
    array.

    Parameters
    ----------
    Z, penalties, square_root :
        As in :func:`nodewise_lasso_path`.

    Yields
    ------
    k : int
        Position in ``penalties``.
    coef : ndarray of shape (n_features, n_features)
        ``coef[m, j]``: coefficient of variable ``j`` in the regression of
        variable ``m`` at ``penalties[k]``; the next step overwrites it.
    """
    n_features = Z.shape[1]
    penalties = np.asarray(penalties, dtype=float)
    problem = _Problem(Z)
    empty_above = problem.empty_above
    reached = empty_above.copy()
    W = np.zeros((n_features, n_features))  # row m: node m
    for k in np.argsort(-penalties, kind="stable"):
        nodes = np.flatnonzero(empty_above > penalties[k])
        if square_root:
            # Decreasing penalties: the continuation of the lasso path is not
            # needed, the previous solution is close.
            problem.square_root_lasso(nodes, penalties[k], W)
        else:
            problem.lasso(nodes, np.full(nodes.size, penalties[k]), W, reached)
        yield int(k), W
