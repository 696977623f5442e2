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

The iteration converges fast from a nearby start, so penalties are followed from
the largest (empty model) down, each warm-started from the previous solution. A
node that does not settle within ``_MAX_ITER`` iterations (cycling, or an active
set too large for its rank) is solved by scikit-learn's coordinate descent
instead, so the result never depends on the iteration converging.
"""

import numpy as np
from scipy import sparse
from sklearn import config_context
from sklearn.linear_model import lasso_path

# Active-set iterations per penalty before a step counts as failed. From a warm
# start two to five suffice; a run that needs more is cycling.
_MAX_ITER = 20
# Fewest variables a node may add to its active set in one iteration (see
# _limit_entering).
_MIN_ENTERING = 10
# Penalties are decreased by at most this factor between two warm starts when a
# single penalty is asked for (continuation). Halving keeps the number of
# variables entering per step small, so each step converges in a few iterations.
_CONTINUATION_RATIO = 0.5
# A node whose continuation step failed retries with the square root of the
# step's ratio (the geometric midpoint); once the ratio exceeds this (after four
# failures from 0.5) it goes to coordinate descent.
_SMALLEST_STEP_RATIO = 0.95
# Coordinate-descent tolerance of the fallback (duality gap relative to ||y||^2,
# scikit-learn's definition): tight enough for the active-set iteration to
# finish from its result, loose enough to be reached in floating point.
_FALLBACK_TOL = 1e-10
_FALLBACK_MAX_ITER = 10_000
# Outer iterations of the scaled-lasso alternation (sigma, then lasso at lam sigma)
# of the square-root lasso fallback, and its relative tolerance on the
# coefficients.
_SCALED_MAX_ITER = 200
_SCALED_RTOL = 1e-10


def _allowed_predictors(R: np.ndarray) -> np.ndarray:
    """``allowed[j, m]``: variable ``j`` may enter node ``m``'s regression.

    Not itself, and not a constant (all-zero standardised) column.
    """
    allowed = np.diag(R)[:, None] > 0
    allowed = np.repeat(allowed, R.shape[0], axis=1)
    np.fill_diagonal(allowed, False)
    return allowed


def _solve_active(R, nodes, active, signs):
    """``u = R_AA^-1 q_A`` and ``v = R_AA^-1 s_A`` for each node, in one batch.

    Active sets of different sizes are padded with identity rows to the largest.

    Returns
    -------
    u, v : ndarray of shape (n_features, len(nodes))
        Zero outside each node's active set.
    """
    n_features, n_nodes = active.shape
    node_of, variable = np.nonzero(active.T)  # grouped by node, in variable order
    counts = np.bincount(node_of, minlength=n_nodes)
    width = max(int(counts.max(initial=0)), 1)
    slot = np.arange(node_of.size) - (np.cumsum(counts) - counts)[node_of]
    index = np.zeros((n_nodes, width), dtype=np.intp)
    index[node_of, slot] = variable
    valid = np.zeros((n_nodes, width), dtype=bool)
    valid[node_of, slot] = True
    gram = R[index[:, :, None], index[:, None, :]]
    gram *= valid[:, :, None] & valid[:, None, :]
    padded_node, padded_slot = np.nonzero(~valid)
    gram[padded_node, padded_slot, padded_slot] = 1.0
    rhs = np.zeros((n_nodes, width, 2))
    rhs[node_of, slot, 0] = R[variable, np.asarray(nodes)[node_of]]
    rhs[node_of, slot, 1] = signs[variable, node_of]
    solution = np.linalg.solve(gram, rhs)  # (nodes, width, 2)
    u = np.zeros((n_features, n_nodes))
    v = np.zeros((n_features, n_nodes))
    u[variable, node_of] = solution[node_of, slot, 0]
    v[variable, node_of] = solution[node_of, slot, 1]
    return u, v


def _limit_entering(active, excess, current):
    """Keep only the most violating of the variables about to enter, in place.

    Near a saturated fit many residual correlations sit just above the penalty;
    letting them all enter at once makes the iteration overshoot to a large,
    badly conditioned active set and cycle. A node may add at most half its
    current active set (and at least ``_MIN_ENTERING``) per iteration, those
    with the largest excess over the threshold.
    """
    entering = active & ~current
    counts = entering.sum(axis=0)
    limit = np.maximum(_MIN_ENTERING, current.sum(axis=0) // 2)
    over = np.flatnonzero(counts > limit)
    if over.size == 0:
        return
    ranked = np.where(entering[:, over], excess[:, over], -np.inf)
    cutoff = -np.sort(-ranked, axis=0)[limit[over] - 1, np.arange(over.size)]
    active[:, over] &= ~entering[:, over] | (ranked >= cutoff)


def _active_set_iterations(R, allowed, nodes, penalty, W, scaled, max_active):
    """Run the active-set iteration for ``nodes`` from their columns of ``W``.

    Parameters
    ----------
    R : ndarray of shape (p, p)
        Correlation matrix (unit diagonal, zero rows for constant columns).
    allowed : ndarray of shape (p, p), bool
        Which variable may enter which node (column).
    nodes : ndarray of shape (k,), int
        The nodes to solve.
    penalty : ndarray of shape (k,)
        ``lam`` of each of ``nodes``.
    W : ndarray of shape (p, p)
        Coefficients (column ``m``: node ``m``); the columns of ``nodes`` are
        the start and are overwritten.
    scaled : bool
        Square-root lasso instead of lasso.
    max_active : int
        Largest active set the iteration may try (the rank of ``R`` bounds the
        size of a unique solution).

    Returns
    -------
    settled : ndarray of shape (k,), bool
        Which of ``nodes`` settled: their columns of ``W`` are exact solutions.
        The others hold the last iterate.
    """
    settled = np.zeros(nodes.size, dtype=bool)
    # The active set and signs that produced each column at this penalty; the
    # start came from another penalty, so no column matches before one solve.
    solved = np.zeros(nodes.size, dtype=bool)
    used_active = np.zeros((R.shape[0], nodes.size), dtype=bool)
    used_signs = np.zeros((R.shape[0], nodes.size))
    pending = np.arange(nodes.size)  # positions in ``nodes``
    for _ in range(_MAX_ITER):
        columns = nodes[pending]
        Wp = W[:, columns]
        # R @ Wp through the sparse coefficients: nnz * p operations, not p^3.
        RW = np.asarray((sparse.csr_array(Wp.T) @ R).T)
        q = R[:, columns]
        threshold = penalty[pending]
        if scaled:
            variance = 1.0 - 2.0 * np.sum(q * Wp, axis=0) + np.sum(Wp * RW, axis=0)
            threshold = threshold * np.sqrt(np.maximum(variance, 0.0))
        moved = Wp + (q - RW)
        excess = np.abs(moved) - threshold
        active = (excess > 0) & allowed[:, columns]
        _limit_entering(active, excess, Wp != 0)
        signs = np.where(active, np.sign(moved), 0.0)
        same = (
            solved[pending]
            & np.all(active == used_active[:, pending], axis=0)
            & np.all(signs == used_signs[:, pending], axis=0)
        )
        settled[pending[same]] = True
        keep = ~same & (active.sum(axis=0) <= max_active)
        pending, active, signs = pending[keep], active[:, keep], signs[:, keep]
        if pending.size == 0:
            break
        columns = nodes[pending]
        try:
            u, v = _solve_active(R, columns, active, signs)
        except np.linalg.LinAlgError:
            break  # an exactly singular active block: another method decides
        lam = penalty[pending]
        if scaled:
            numerator = 1.0 - np.sum(R[:, columns] * u, axis=0)
            denominator = 1.0 - lam**2 * np.sum(signs * v, axis=0)
            ok = (numerator > 0) & (denominator > 0)
            sigma = np.sqrt(
                np.divide(numerator, denominator, where=ok, out=np.ones_like(lam))
            )
            lam = np.where(ok, lam * sigma, np.nan)
        update = u - lam * v
        finite = np.all(np.isfinite(update), axis=0)
        pending = pending[finite]
        W[:, nodes[pending]] = update[:, finite]
        solved[pending] = True
        used_active[:, pending] = active[:, finite]
        used_signs[:, pending] = signs[:, finite]
    return settled


def _coordinate_descent(Z, allowed, node, lam, start, square_root):
    """One node at one penalty by scikit-learn's coordinate descent.

    The square-root lasso alternates ``sigma = ||residual|| / sqrt(n)`` with a
    lasso at ``lam * sigma`` (the scaled lasso of Sun & Zhang 2012, whose fixed
    point is the square-root lasso solution). Converges always, to the duality
    gap tolerance.
    """
    n_samples = Z.shape[0]
    predictors = np.flatnonzero(allowed[:, node])
    coef = np.zeros(Z.shape[1])
    if predictors.size == 0:
        return coef
    design = np.asfortranarray(Z[:, predictors])
    target = Z[:, node]
    gram = design.T @ design
    xy = design.T @ target
    current = start[predictors].copy()
    sigma = 1.0
    for _ in range(_SCALED_MAX_ITER if square_root else 1):
        if square_root:
            sigma = np.linalg.norm(target - design @ current) / np.sqrt(n_samples)
        with config_context(skip_parameter_validation=True, assume_finite=True):
            _, coefs, _ = lasso_path(
                design,
                target,
                alphas=[lam * sigma],
                precompute=gram,
                Xy=xy,
                coef_init=current,
                tol=_FALLBACK_TOL,
                max_iter=_FALLBACK_MAX_ITER,
                check_input=False,
            )
        previous, current = current, coefs[:, 0]
        if square_root and np.allclose(current, previous, rtol=_SCALED_RTOL, atol=0):
            break
    coef[predictors] = current
    return coef


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
    n_samples, n_features = Z.shape
    penalties = np.asarray(penalties, dtype=float)
    R = Z.T @ Z / n_samples
    allowed = _allowed_predictors(R)
    # A unique lasso solution has at most rank(centred data) variables; a larger
    # tentative active set is singular.
    max_active = max(min(n_samples - 1, n_features - 1), 0)
    # Penalty at which each column of W is the exact solution. The empty model
    # is optimal for both problems above the node's largest |correlation|
    # (sigma = 1 at w = 0).
    reached = np.max(np.abs(R) * allowed, axis=0, initial=0.0)
    W = np.zeros((n_features, n_features))
    coef = np.zeros((penalties.size, n_features, n_features))
    for k in np.argsort(-penalties, kind="stable"):
        target = penalties[k]
        # Per node: the factor of its next continuation step, moved towards 1
        # each time a step fails to settle.
        ratio = np.full(n_features, _CONTINUATION_RATIO)
        while True:
            nodes = np.flatnonzero(reached > target)
            if nodes.size == 0:
                break
            proposal = np.maximum(target, reached[nodes] * ratio[nodes])
            start = W[:, nodes].copy()
            settled = _active_set_iterations(
                R, allowed, nodes, proposal, W, square_root, max_active
            )
            reached[nodes[settled]] = proposal[settled]
            failed = nodes[~settled]
            W[:, failed] = start[:, ~settled]
            ratio[failed] = np.sqrt(ratio[failed])
            for node in failed[ratio[failed] > _SMALLEST_STEP_RATIO]:
                # Near-optimal from coordinate descent, then exact if the
                # active-set iteration settles from there.
                W[:, node] = _coordinate_descent(
                    Z, allowed, node, target, W[:, node], square_root
                )
                approximate = W[:, node].copy()
                if not _active_set_iterations(
                    R,
                    allowed,
                    np.array([node]),
                    np.array([target]),
                    W,
                    square_root,
                    max_active,
                )[0]:
                    W[:, node] = approximate
                reached[node] = target
        coef[k] = W.T
    return coef
