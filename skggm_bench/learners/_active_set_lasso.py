"""Every node-wise lasso (or square-root lasso) of a correlation matrix at once.

Node ``m`` regresses standardised variable ``m`` on all the others. On a
correlation (Gram) matrix ``R`` with unit diagonal its lasso problem is

    minimise over w (w_m = 0):  w'Rw / 2 - q'w + lam |w|_1,   q = R[:, m],

the objective ``||z_m - Z w||^2 / (2n) + lam |w|_1`` of columns standardised to
unit variance (``R = Z'Z / n``). Its square-root lasso is

    minimise over w (w_m = 0):  sigma(w) + lam |w|_1,   sigma(w)^2 = 1 - 2 q'w + w'Rw,

i.e. ``||z_m - Z w|| / sqrt(n) + lam |w|_1``.

Both are solved by a primal-dual active-set iteration (a semismooth Newton
method; Fan, Jiao & Lu 2014), in the compiled kernel ``_active_set_kernel``, one
node after the other (at p = 50 the same iteration of all nodes at once in
NumPy spent its time on the calls, not on the arithmetic). Given the active set ``A``
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
from sklearn import config_context
from sklearn.linear_model import lasso_path

from ._active_set_kernel import active_set_iterations

# Active-set iterations per penalty before a step counts as failed (a node
# that returns to an earlier active set fails at once). From a warm start two to
# five suffice; one step from the empty model to a tenth of the largest penalty
# takes 6-8 at p = 100-400. A failed lasso step goes to the homotopy, cheap over
# a short step (a penalty ratio of _SHORT_STEP or closer, as between StARS's
# grid points): there 6 iterations were the fastest of 4, 6, 10 and 20 for StARS
# on the methods preset's cells (p = 50). These timings, and the continuation
# ratio's below, were taken with the NumPy iteration that the compiled kernel
# replaced, and not re-taken: a new choice could move results at the
# tolerance's level, which the kernel's introduction was not to do.
_MAX_ITER = 20
_SHORT_STEP = 0.5
_SHORT_STEP_MAX_ITER = 6
# Events of the homotopy (_homotopy) at most per feature before it gives up (a
# path from the empty model changes each variable a few times at most), and the
# relative tolerance within which an event above the current penalty is a tie.
_MAX_EVENTS_PER_FEATURE = 10
_EVENT_RTOL = 1e-10
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
    the penalty, ``w_A = u - lam v`` (``u = R_AA^-1 q_A``, ``v = R_AA^-1 s_A``);
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
        """Run the active-set iteration for ``nodes`` from their rows of ``W``.

        Parameters
        ----------
        nodes : ndarray of shape (k,), int
            The nodes to solve.
        penalty : ndarray of shape (k,)
            ``lam`` of each of ``nodes``.
        W : ndarray of shape (p, p)
            Coefficients (row ``m``: node ``m``); the rows of ``nodes`` are the
            start and are overwritten.
        scaled : bool
            Square-root lasso instead of lasso.
        max_iter : int or ndarray of shape (k,)
            Iterations (linear solves) before a node still moving counts as
            failed, for all nodes or each.

        Returns
        -------
        settled : ndarray of shape (k,), bool
            Which of ``nodes`` settled: their rows of ``W`` are exact
            solutions. The others hold the last iterate. For the lasso, nodes
            with a known segment start on it instead of at ``W``, and every
            solve is recorded there.
        """
        nodes = np.asarray(nodes, dtype=np.intp)
        segments = (
            {}
            if scaled
            else {
                "known": self.segments.known.view(np.uint8),
                "signs": self.segments.signs,
                "u": self.segments.u,
                "v": self.segments.v,
            }
        )
        return active_set_iterations(
            self.R,
            self.allowed.view(np.uint8),
            nodes,
            np.ascontiguousarray(penalty, dtype=float),
            W,
            scaled,
            self.max_active,
            np.broadcast_to(np.asarray(max_iter, dtype=np.intp), nodes.shape).copy(),
            **segments,
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
