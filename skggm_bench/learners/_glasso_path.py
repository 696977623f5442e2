"""The graphical lasso along a penalty path: screening, warm starts, descent, Newton.

scikit-learn's ``GraphicalLasso`` minimises, over positive definite ``K``,

    f(K) = -log det K + tr(S K) + alpha sum_{i != j} |K_ij|

(the diagonal is not penalised). Two facts make a whole path cheap:

* Screening (Witten, Friedman & Simon 2011; Mazumder & Hastie 2012): the
  connected components of the graph ``|S_ij| > alpha`` (``i != j``) split the
  solution exactly; it is block diagonal on them, and a variable alone in its
  component has ``K_ii = 1 / S_ii``. Components only merge as ``alpha``
  decreases, so the solution at the previous (larger) penalty, restricted to a
  component, is a positive definite warm start.
* On a component, block coordinate descent (Friedman, Hastie & Tibshirani
  2008), compiled (``_glasso_descent.pyx``): each step holds all columns of
  ``W = K^-1`` but one fixed and solves a lasso for that column's regression
  by coordinate descent on its active set. It starts from the previous
  penalty's ``W`` moved into the new box ``|W_ij - S_ij| <= alpha``
  (_descend) and stops when no entry of ``W`` moves by more than ``tol`` in a
  sweep; the precision read off its regressions is then checked against the
  optimality conditions from a fresh inverse (_violation), and where they
  miss ``tol`` the descent goes on with a tighter stop.
* Where that still misses, or the descent gives up, an orthant-wise Newton
  method finishes the component: with the sign pattern of the
  current ``K`` (and the entries that violate the optimality conditions, with the
  sign that decreases ``f``) the objective is smooth, its gradient is
  ``S - W + alpha sign(K)`` on that support and its Hessian the
  map ``D -> W D W``; the Newton direction is found by conjugate gradients, the
  step is cut back to the orthant (an entry that would change sign becomes 0)
  and shortened until ``f`` decreases enough and ``K`` stays positive definite.

Either way it stops when the optimality conditions hold to ``tol`` (``_KKT_TOL``,
1e-10, by default):
``W_ii = S_ii``, ``W_ij = S_ij + alpha sign(K_ij)`` where ``K_ij != 0`` and
``|W_ij - S_ij| <= alpha`` where ``K_ij = 0``. The zeros are exact, so the
edges are those of the exact solution, not of a stopping tolerance.

A component where the iteration does not settle keeps its last iterate
(positive definite, of lower objective than the start) and the penalty is
reported as unsolved: :class:`ExactGraphicalLasso` returns it with its
certificate and a warning, the penalty searches fit that penalty the ordinary
way.
"""

import math
from typing import NamedTuple

import numpy as np
from scipy import linalg, sparse
from scipy.linalg import lapack
from sklearn.covariance import GraphicalLasso, empirical_covariance

from ._glasso_descent import (
    block_descent,
    diagonal_into_box,
    into_box,
    kkt_violation,
    mirror_upper,
    precision_from,
    regressions,
    screened_components,
    symmetric_part,
)

# Largest violation of the optimality conditions accepted, relative to the
# largest diagonal entry of S (graphical_lasso_path scales it into [1, 2) and
# the tolerance with it).
_KKT_TOL = 1e-10
_MAX_NEWTON = 200
# The block coordinate descent (_descend) stops when no entry of W moves by
# more than this share of the tolerance in a sweep, or after _MAX_SWEEPS; where
# the optimality conditions then miss the tolerance, it goes on to the next
# share. The conditions' largest violation was 0.01-0.45 of the last sweep's
# largest move on bench_glasso_exact.py's covariances at p = 300 and 1000 (1 %
# and 2 % densities, tol 1e-2 to 1e-10), up to 10 on AR(1) correlations of 0.98
# (tests/learners/test_glasso_descent.py). A first share of 0.1 instead of 1
# took 2-4 more sweeps at tol 1e-2 (6-7 against 3 at p = 1000).
_DESCENT_SHARES = (1.0, 0.01)
_MAX_SWEEPS = 500
# The lassos of a sweep stop at this share of the largest move of the sweep
# before (of the penalty in the first sweep from a start, 0.01 below), not at
# the tolerance (block_descent). On the methods preset's StARS paths at p = 50
# (DiagonalDominance cells) each lasso took 6.8 passes over its active
# coefficients when solved to the tolerance every sweep, 1.5 this way (2.2 on
# the TriangulatedOrthogonalization cells), for 12 % more sweeps: the descent
# took 0.46x the time, to the same zeros. Shares of 0.01 and 0.3 took 22 % and
# 6 % longer there; on the TriangulatedOrthogonalization cells 0.03 as long,
# 0.3 and 0.5 about twice as long (many more sweeps).
_INNER_SHARE = 0.1
_FIRST_INNER = 0.01
# A component of at least this share of the variables is solved with the
# variables alone in theirs, as one block (graphical_lasso_path).
_WHOLE = 0.9
# When more than this share of the entering entries would move against the
# sign chosen for them, the Newton direction is solved again without them
# (_solve_component); fewer are cut back by the line search at little cost.
# Against never solving again: on 40 ill-conditioned fits (unstandardised
# TriangulatedOrthogonalization data, p = 60) 34 settled instead of 22; on 48
# paths of 10 penalties at p = 60-150, 43 % less CPU; on 12 single-penalty fits
# of standardised data at p = 1000, 15 % less (at p = 300, 5 %). Solving
# again whenever any entry did (0) took 1.5x the CPU at p = 1000 on er; 0.7
# settled 32 of the 40.
_AGAINST_SHARE = 0.3
# Fewest pairs that may enter the support in one Newton step (_limit_entering).
# Half the active pairs and at least 10: 6 % less CPU than no limit over the
# methods preset's 72 cells, 17 % on its TriangulatedOrthogonalization cells at
# n = 50 (singular subsample covariances); a floor of 5, 10 or 20 made no
# difference, twice the active pairs lost most of the gain.
_MIN_ENTERING = 10
# ... and at least this many pairs per variable: from the diagonal start at
# p = 1000 (ER, 2.7 % density) the floor of 10 alone took 22 Newton steps
# (6.3 s), 4 per variable 8 steps (3.3 s), no limit at all 8 steps.
_PER_NODE = 4
_MAX_CG = 500
# The conjugate gradients also stop once no entry of their residual exceeds
# this share of the tolerance: the Newton step then leaves the optimality
# conditions within it (the residual is the linearised gradient), where the
# forcing term alone asked for a residual up to 500x smaller in the last step
# (10 fewer iterations of 42 at p = 300 on er, 5 of 51 at p = 1000 on to).
_CG_ENTRY_SHARE = 0.25
# The Hessian product's dense W (D W) costs about p^3 multiply-adds; its
# entries on the support alone (_sparse_products), row by row and one
# triangle, cost about _GATHER_COST of those per support entry (both
# triangles counted) and per p (a gathered row and a dot product) and
# _ROW_COST per row (numpy's call overhead), measured in single precision: 3.5x
# faster than the dense product at p = 1000 (5.5 % of the entries), 4.3x at
# p = 2000, slower at p = 300.
_GATHER_COST = 4
_ROW_COST = 1e5
# Components of at most this many variables use dense products in the
# conjugate gradients (_dense_products): the path solver took 20 % less CPU
# with them on a component of 52 variables, as much at 97, 30 % more at 200.
_SMALL = 64
# Columns per block of the sparse-dense products (_newton_direction): 256
# was fastest of 64-512 at p = 2000.
_BLOCK = 256
# A full Newton step near the solution shrinks the gradient's norm far more
# than this factor (to about its square, and the forcing term's share); a step
# that does not, once the norm is below _LOCAL, tells the single-precision
# products of the conjugate gradients apart from the exact Hessian, and the
# component is finished in double precision (_solve_component).
_CONTRACTION = 0.1
_LOCAL = 1e-2
_PRECISIONS = (np.float32, np.float64)
# Armijo constant of the line search and its shortest step.
_ARMIJO = 1e-4
_MIN_STEP = 1e-12
# Near the solution the decrease of f falls below its rounding error; a step
# within this many ulps of f is accepted (the optimality conditions decide).
_ROUNDING_SLACK = 64 * np.finfo(float).eps


class _Support(NamedTuple):
    """The entries a Newton step may move: both triangles and the diagonal.

    Row-major order (as ``np.nonzero`` gives it; the sparse products read the
    rows in order). ``mirror[e]`` is the position of entry ``e``'s transpose,
    ``diagonal`` the positions of the diagonal entries.
    """

    rows: np.ndarray
    cols: np.ndarray
    mirror: np.ndarray
    diagonal: np.ndarray


def _support_of(rows, cols, positions):
    """The :class:`_Support` of the symmetric set of entries ``(rows, cols)``.

    The entries must be in row-major order. ``positions`` is a p x p integer
    scratch array of the component, reused by every step: only the support's
    entries are written and read, so it needs no clearing (a fresh one per
    step was a p x p fill).
    """
    positions[rows, cols] = np.arange(rows.size)
    return _Support(rows, cols, positions[cols, rows], np.flatnonzero(rows == cols))


def _objective(S_values, values, diagonal, candidate, alpha):
    """``f`` of ``candidate``, whose nonzeros are ``values`` on the support.

    The trace and the penalty are sums over the support's entries alone
    (``S_values``: ``S`` there): at p = 1000 three dense passes over
    ``candidate`` took about as long as its Cholesky factorisation.
    """
    try:
        factor = linalg.cholesky(candidate, lower=True, check_finite=False)
    except linalg.LinAlgError:
        return np.inf, None
    log_det = 2.0 * np.sum(np.log(np.diag(factor)))
    penalty = np.abs(values).sum() - values[diagonal].sum()
    return -log_det + np.dot(S_values, values) + alpha * penalty, factor


def _inverse_from_factor(factor):
    """``K^-1`` from the lower Cholesky factor of ``K``, exactly symmetric.

    LAPACK's ``potri`` (a third of the flops of solving against the identity)
    fills one triangle, in the factor's place (the factor, Fortran-ordered as
    scipy's cholesky and ``potrf`` return it, is consumed: a copy of it took
    6 ms of potri's 0.14 s at p = 2000); the other is its mirror, so the sign
    patterns derived from ``W`` are symmetric as ``S`` and ``K`` are.
    """
    lower, _ = lapack.dpotri(factor, lower=1, overwrite_c=1)
    # potri returns Fortran order: the transpose is C-contiguous, its upper
    # triangle filled (its lower holds the factor's leftovers, overwritten).
    inverse = lower.T
    mirror_upper(inverse)
    return inverse


def _newton_direction(W, K, gradient, support, dtype, tol):
    """Solve ``P(W D W) = -gradient`` for ``D`` on ``support`` (P: restriction).

    ``gradient`` and the returned ``D`` are their values on the
    :class:`_Support` ``support``.

    Preconditioned conjugate gradients in the Frobenius inner product, on the
    vector of the support's entries (both triangles and the diagonal). The
    preconditioner is ``R -> P(K R K)`` (``K = W^-1``), the inverse of the
    operator before restriction, exact when the support is full; on the
    methods preset's ill-conditioned cells it needed about a third fewer
    seconds than the operator's diagonal, for two more products per
    iteration. The tolerance tightens as the gradient shrinks, so the Newton
    steps converge superlinearly. The direction is symmetrised (with
    ``support.mirror``): ``K`` must stay exactly symmetric, since its
    objective reads one triangle (Cholesky) and its gradient both, and
    rounding left to accumulate made them disagree until the line search
    stalled.

    The products (_sparse_products, or _dense_products for a small
    component) run in ``dtype``; the iterates, residuals and inner products
    stay in double precision. In single precision (``sgemm`` is twice
    ``dgemm``'s speed) a product is off by about 1e-6 of its size, so the
    direction is off by about that share of the gradient, which near the
    solution is itself small: the Newton steps still converge as fast (the
    same steps at p = 1000), and the optimality conditions, checked in double
    precision by the caller, decide when to stop.
    """
    products = _dense_products if W.shape[0] <= _SMALL else _sparse_products
    hessian, preconditioner = products(W, K, support, dtype)

    residual = -gradient
    norm0 = np.linalg.norm(residual)
    target = (norm0 * min(0.1, norm0)) ** 2
    d = np.zeros_like(residual)
    z = preconditioner(residual)
    direction = z.copy()
    rz = np.dot(residual, z)
    for _ in range(_MAX_CG):
        image = hessian(direction)
        curvature = np.dot(direction, image)
        if curvature <= 0:
            break
        step = rz / curvature
        d += step * direction
        residual -= step * image
        if (
            np.dot(residual, residual) <= target
            or np.abs(residual).max() <= _CG_ENTRY_SHARE * tol
        ):
            break
        z = preconditioner(residual)
        rz_next = np.dot(residual, z)
        direction *= rz_next / rz
        direction += z
        rz = rz_next
    return 0.5 * (d + d[support.mirror])


def _sparse_products(W, K, support, dtype):
    """The Hessian and preconditioner maps of _newton_direction, sparse.

    ``D``, ``R`` and ``K`` live on the support (a few per cent of the entries
    at the penalties of interest): products with them are sparse times dense,
    so an iteration costs one dense product (``W (D W)``) where it cost four;
    at p = 1000 this more than halved the solver's time. Where it costs less
    (_GATHER_COST), even that one is computed on the support alone.
    """
    p = W.shape[0]
    rows, cols = support.rows, support.cols
    indptr = np.zeros(p + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=p), out=indptr[1:])
    sampled = _GATHER_COST * rows.size * p + _ROW_COST * p < p**3

    def on_support(values):
        return sparse.csr_array((values.astype(dtype), cols, indptr), shape=(p, p))

    # ``D`` and ``R`` share one sparse array, built once; each product only
    # writes its values (building a scipy sparse array, with its checks, took
    # longer than the products at p = 100).
    pattern = on_support(np.zeros(rows.size))

    # Sparse times dense one block of columns at a time: each nonzero reads a
    # row of the block, which stays in cache; over the whole dense matrix
    # (32 MB at p = 2000) the same product took 2.3x longer.
    blocks = [slice(start, start + _BLOCK) for start in range(0, p, _BLOCK)]
    W = W.astype(dtype)
    W_blocks = [np.ascontiguousarray(W[:, block]) for block in blocks]
    K_blocks = [np.ascontiguousarray(K[:, block], dtype=dtype) for block in blocks]
    K_sparse = on_support(K[rows, cols])
    buffer = np.empty_like(W)
    # The products write into arrays reused by every iteration: a fresh
    # p x p result is a fresh mapping, its pages faulted in each time.
    product = np.empty_like(W)
    if sampled:
        image = np.empty(rows.size, dtype=dtype)
        # W D W is symmetric: each row's entries on or above the diagonal (the
        # end of its run, columns being sorted) are computed, the others
        # mirrored; at p = 1000 and 2000 this took a half to two thirds of the
        # time of computing both triangles.
        lower = rows > cols
        upper_start = indptr[:-1] + np.bincount(rows[lower], minlength=p)
        row_cols = [
            cols[start:end] for start, end in zip(upper_start, indptr[1:], strict=True)
        ]
        lower = np.flatnonzero(lower)
        mirrored = support.mirror[lower]

    def hessian(values):
        pattern.data[:] = values
        for block, W_block in zip(blocks, W_blocks, strict=True):
            buffer[:, block] = pattern @ W_block
        if not sampled:
            np.matmul(W, buffer, out=product)
            return product[rows, cols].astype(float)
        # Only the support's entries of W (D W): entry (i, j) is row i of W
        # times row j of (D W)^T, one small product per row of the support.
        np.copyto(product, buffer.T)
        for i, (start, end) in enumerate(zip(upper_start, indptr[1:], strict=True)):
            image[start:end] = product[row_cols[i]] @ W[i]
        image[lower] = image[mirrored]
        return image.astype(float)

    def preconditioner(values):
        pattern.data[:] = values
        for block, K_block in zip(blocks, K_blocks, strict=True):
            buffer[:, block] = K_sparse @ (pattern @ K_block)
        return buffer[rows, cols].astype(float)

    return hessian, preconditioner


def _dense_products(W, K, support, dtype):
    """The Hessian and preconditioner maps of _newton_direction, dense.

    For a small component (up to _SMALL variables) dense products cost less
    than building scipy's sparse arrays and calling them.
    """
    rows, cols = support.rows, support.cols
    W = W.astype(dtype)
    K = K.astype(dtype)
    full = np.zeros_like(W)

    def hessian(values):
        full[rows, cols] = values
        return (W @ full @ W)[rows, cols].astype(float)

    def preconditioner(values):
        full[rows, cols] = values
        return (K @ full @ K)[rows, cols].astype(float)

    return hessian, preconditioner


def _limit_entering(excess, active, p):
    """Which of the entries about to enter do enter: a mask over ``excess``.

    When a penalty lets many entries enter at once (a dense component of an
    ill-conditioned covariance), the Newton step over all of them overshoots and
    the line search cuts it back hard. At most half as many pairs as are active
    (``active`` off-diagonal entries; and at least ``_MIN_ENTERING`` and
    ``_PER_NODE`` per variable) enter per step, those with the largest
    excess of ``|S_ij - W_ij|`` over the penalty; the others are checked again
    at the next step. The optimality conditions still decide when to stop.
    ``excess`` holds both triangles' entries, equal in pairs (``S`` and ``W``
    are exactly symmetric), so the kept entries are symmetric too.
    """
    count = excess.size // 2
    limit = max(_MIN_ENTERING, _PER_NODE * p, active // 4)
    if count <= limit:
        return np.ones(excess.size, dtype=bool)
    cutoff = np.partition(excess, excess.size - 2 * limit)[excess.size - 2 * limit]
    return excess >= cutoff


def _line_search(S_values, alpha, K, support, D, orthant, gradient, value):
    """The step along ``D`` (halved from 1) that decreases ``f`` enough.

    ``D``, ``orthant`` and ``gradient`` are values on ``support``, the only
    entries a step changes. Returns the new ``K``, its values on the support,
    its objective and Cholesky factor, or None when no step longer than
    ``_MIN_STEP`` does.
    """
    rows, cols = support.rows, support.cols
    current = K[rows, cols]
    candidate = K.copy()
    step = 1.0
    while step >= _MIN_STEP:
        values = current + step * D
        # Cut back to the orthant: an entry leaving its sign becomes 0 (the
        # diagonal's orthant is 0).
        values[values * orthant < 0] = 0.0
        candidate[rows, cols] = values
        new_value, new_factor = _objective(
            S_values, values, support.diagonal, candidate, alpha
        )
        decrease = np.dot(gradient, values - current)
        allowed = value + _ARMIJO * decrease + _ROUNDING_SLACK * abs(value)
        if new_factor is not None and new_value <= allowed:
            return candidate, values, new_value, new_factor
        step /= 2.0
    return None


def _solve_component(S, alpha, K, tol):
    """Graphical lasso of one component from the positive definite start ``K``.

    Returns the last iterate, its inverse ``W`` when it settled (else None)
    and whether it settled (the optimality conditions hold to ``tol``; not
    after ``_MAX_NEWTON`` steps, or a direction along which no step decreases
    ``f`` in double precision), or None when the start is not positive
    definite. The conjugate
    gradients' products run in single precision until a Newton step shows
    that they limit the convergence (a local step that does not contract the
    gradient by ``_CONTRACTION``, or a direction along which the line search
    finds no decrease); from then on they run in double precision.

    Apart from ``W = K^-1``, ``S - W`` and the search for entries that violate
    the optimality conditions off the support, a step works on the support's
    values alone (a few per cent of the entries at the penalties of interest).
    """
    p = S.shape[0]
    positions = np.empty((p, p), dtype=np.intp)
    mask = K != 0
    support = _support_of(*np.nonzero(mask), positions)
    values = K[support.rows, support.cols]
    value, factor = _objective(
        S[support.rows, support.cols], values, support.diagonal, K, alpha
    )
    if factor is None:
        return None
    precise = False
    previous_norm = np.inf
    for _ in range(_MAX_NEWTON):
        W = _inverse_from_factor(factor)
        smooth = S - W
        # Entries leave the support where the last step set them to 0 (the
        # diagonal, K_ii > 0, never does); what stays keeps its row-major order.
        left = values == 0
        mask[support.rows[left], support.cols[left]] = False
        rows, cols = support.rows[~left], support.cols[~left]
        # The diagonal is not penalised: its orthant is 0.
        orthant = np.sign(values[~left])
        orthant[rows == cols] = 0.0
        on_support = smooth[rows, cols] + alpha * orthant
        # Off the support the violation is |S_ij - W_ij| beyond the penalty.
        outside = np.abs(smooth) > alpha
        outside[rows, cols] = False
        out_rows, out_cols = np.nonzero(outside)
        excess = np.abs(smooth[out_rows, out_cols]) - alpha
        if max(np.abs(on_support).max(), excess.max(initial=0.0)) <= tol:
            return K, W, True
        active = rows.size - p
        kept = _limit_entering(excess, active, p)
        mask[out_rows[kept], out_cols[kept]] = True
        support = _support_of(*np.nonzero(mask), positions)
        # Entering entries (K_ij = 0 off the diagonal) take the sign that
        # makes f decrease.
        K_values = K[support.rows, support.cols]
        smooth_values = smooth[support.rows, support.cols]
        orthant = np.where(K_values != 0, np.sign(K_values), -np.sign(smooth_values))
        orthant[support.diagonal] = 0.0
        gradient = smooth_values + alpha * orthant
        norm = np.linalg.norm(gradient)
        if previous_norm < _LOCAL and norm > _CONTRACTION * previous_norm:
            precise = True
        previous_norm = norm
        S_values = S[support.rows, support.cols]
        found = None
        for dtype in _PRECISIONS[precise:]:
            direction = _newton_direction(W, K, gradient, support, dtype, tol)
            # An entering entry that the direction moves against the sign
            # chosen for it is cut back to 0 by the line search. When many are
            # (ill-conditioned covariances with dense solutions, e.g.
            # unstandardised TriangulatedOrthogonalization data at p = 60 and
            # alpha = 0.1), hundreds of entries entered and left at every step,
            # the steps shrank to a few per cent and half the components did
            # not settle in _MAX_NEWTON steps: those entries then stay out of
            # this step and the direction is solved again without them.
            against = (K_values == 0) & (direction * orthant < 0)
            if against.sum() > _AGAINST_SHARE * np.count_nonzero(K_values == 0):
                mask[support.rows[against], support.cols[against]] = False
                keep = ~against
                support = _support_of(support.rows[keep], support.cols[keep], positions)
                K_values, orthant, gradient, S_values = (
                    array[keep] for array in (K_values, orthant, gradient, S_values)
                )
                direction = _newton_direction(W, K, gradient, support, dtype, tol)
            found = _line_search(
                S_values, alpha, K, support, direction, orthant, gradient, value
            )
            if found is not None:
                break
            precise = True
        if found is None:
            return K, None, False
        K, values, value, factor = found
    return K, None, False


def _descend(S, alpha, K, W, tol, check=True):
    """The component solved by block coordinate descent: ``(K, W)``, or None.

    ``K`` is a positive definite start of the component and ``W`` its inverse
    (up to rounding), which is overwritten; both None for the diagonal start
    ``diag(1 / S_ii)``. The compiled kernel
    (``_glasso_descent.block_descent``) needs a covariance inside the box
    ``|W_ij - S_ij| <= alpha`` with ``W_ii = S_ii``: a start from a larger
    penalty, or the diagonal one, lies outside it, so ``W`` is first moved
    towards ``S`` along the segment between them (positive definite: ``S`` is
    positive semi-definite) until it is inside (``into_box``). The kernel
    sweeps until no entry of ``W`` moves by more than
    ``_DESCENT_SHARES[0] * tol``, and the precision is read off its
    regressions (``K_jj = 1 / (S_jj - W_j. B_j.)``, ``K_kj = -B_jk K_jj``),
    symmetrised. The optimality conditions are then checked as the Newton
    method checks them, from a fresh inverse (:func:`_violation`); where they
    miss ``tol`` the sweeps go on to the next, tighter share.

    Returns the precision and its inverse when the conditions hold (with
    ``check=False``, after the first share and unchecked: the precision and
    the descent's ``W``, for a caller that checks them itself); the last
    precision and None when they still do not (the Newton method finishes from
    there); None when the kernel gave up (a lasso that did not settle) or left
    a non-positive ``K_jj`` or a precision that is not positive definite (the
    Newton method then starts from ``K`` itself, or the diagonal start).
    """
    diagonal = np.diag(S).copy()
    if K is None:  # the diagonal start: no regressions, W = diag(S) moved
        W = diagonal_into_box(S, alpha)
        B = np.zeros(S.shape)
    else:
        # W is the caller's to overwrite: a copy took a tenth of the fit at
        # p = 2000.
        W = np.ascontiguousarray(W, dtype=float)
        into_box(S, W, alpha)
        # Row j holds the regression of variable j on the others: -K_jk / K_jj.
        B = regressions(np.ascontiguousarray(K, dtype=float))
    # The first share's sweeps start far from the fixed point, the next's at it.
    first_tol = _FIRST_INNER * alpha
    for share in _DESCENT_SHARES:
        sweeps, _ = block_descent(
            S,
            alpha,
            W,
            B,
            share * tol,
            _MAX_SWEEPS,
            first_tol=first_tol,
            share=_INNER_SHARE,
        )
        first_tol = 0.0
        # The precision takes B's place where no sweeps follow.
        overwrite = not check or share == _DESCENT_SHARES[-1]
        precision = precision_from(W, B, diagonal, overwrite) if sweeps >= 0 else None
        if precision is None:
            return None
        if not check:
            return precision, W
        violation, inverse = _violation(S, precision, alpha)
        if inverse is None:
            return None
        if violation <= tol:
            return precision, inverse
    return precision, None


def _violation(S, K, alpha, work=None):
    """The largest violation of the optimality conditions at ``K``, and ``K^-1``.

    ``(inf, None)`` when ``K`` is not positive definite. The conditions of
    :func:`_solve_component`'s stopping rule, on the unscaled violation.
    ``work``, a C-contiguous float array of ``K``'s shape or None, holds the
    factorisation and then the inverse (overwritten; None: a fresh array).
    """
    # Factorised and inverted in one Fortran-ordered copy of K, the copy
    # scipy's cholesky factorises (its upper triangle left as it is: potrf
    # and potri read the lower one); scipy's cholesky and potri each made a
    # copy of their own, about 10 ms of the certificate's 0.22 s at p = 2000.
    if work is None:
        copy = np.array(K, dtype=float, order="F")
    else:  # its transpose is Fortran-ordered: the same copy, in place
        copy = work.T
        np.copyto(copy, K)
    factor, info = lapack.dpotrf(copy, lower=1, overwrite_a=1, clean=0)
    if info != 0:
        return np.inf, None
    W = _inverse_from_factor(factor)
    # One compiled pass over W, S and K (numpy's passes and temporaries took
    # as long as the Cholesky factorisation at p = 1000).
    S, K = (np.ascontiguousarray(array, dtype=float) for array in (S, K))
    return kkt_violation(W, S, K, alpha), W


def _solve_pair(S, alpha):
    """The graphical lasso of a component of two variables, in closed form.

    The optimality conditions ask ``W = K^-1`` to keep ``S``'s diagonal and
    ``W_12 = S_12 + alpha sign(K_12)``; with ``|S_12| > alpha`` (the pair is a
    component) ``W_12 = S_12 - alpha sign(S_12)`` meets them, and ``W`` is
    positive definite (``|W_12| < |S_12| <= sqrt(S_11 S_22)``). The Newton
    solver took several steps, each with its fixed cost, for the same result.
    """
    covariance = S - alpha * np.sign(S[0, 1]) * np.array([[0.0, 1.0], [1.0, 0.0]])
    (a, c), (_, b) = covariance
    return np.array([[b, -c], [-c, a]]) / (a * b - c * c)


def graphical_lasso_path(
    S: np.ndarray,
    alphas,
    start: np.ndarray | None = None,
    tol: float = _KKT_TOL,
    check: bool = True,
    symmetric: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact graphical lasso solutions of ``S`` at every penalty.

    Parameters
    ----------
    S : ndarray of shape (p, p)
        Positive semi-definite covariance with a positive diagonal.
    alphas : array-like of shape (n_alphas,)
        Positive penalties on the off-diagonal entries, in any order.
    start : ndarray of shape (p, p) or None, default=None
        Positive definite start of the largest penalty (a warm start, e.g. the
        solution at a nearby penalty); None starts from ``diag(1 / S_ii)``.
        Every principal submatrix of a positive definite matrix is positive
        definite, so its blocks on the components are valid starts.
    tol : float, default=1e-10
        Largest violation of the optimality conditions accepted, relative to
        the largest ``S_ii``.
    check : bool, default=True
        False leaves a component that the block coordinate descent settles
        unchecked (no inverse is computed for it here), for a caller that
        checks the optimality conditions of every solution itself, from an
        inverse of its own, and fits again with ``check=True`` where they miss
        ``tol`` (:class:`ExactGraphicalLasso`, whose certificate is that
        check): ``solved`` then only says that no component gave up.
    symmetric : bool, default=False
        True when ``S`` is exactly symmetric (as ``_glasso_descent``'s
        ``symmetric_part`` leaves it): it is then only scaled, not
        symmetrised (a transposed pass over ``S``, 10 ms at p = 2000), with
        the same result.

    Returns
    -------
    precisions : ndarray of shape (n_alphas, p, p)
        The solutions.
    solved : ndarray of shape (n_alphas,), bool
        False where some component did not settle: that precision holds the
        solver's last iterate there (positive definite, not the minimiser),
        and a caller that needs the minimiser must fit the penalty another
        way.
    """
    precisions, solved, _ = _solve_path(S, alphas, start, tol, check, symmetric)
    return precisions, solved


def _solve_path(S, alphas, start, tol, check, symmetric):
    """:func:`graphical_lasso_path`, and a spare ``p x p`` array.

    The spare is the descent's ``W`` at the last penalty where the descent
    solved the whole matrix in one piece (None otherwise): no longer needed,
    C-contiguous, for :func:`certified_path`'s certificate to overwrite
    rather than fault in a fresh array's pages (5-85 ms at p = 2000 here,
    as the machine has huge pages to hand or must compact memory for them).
    """
    # f is equivariant: (S, alpha) -> (S / c, alpha / c) maps K to c K, so the
    # problem is solved at a scale c where the largest variance lies in [1, 2),
    # with the tolerance taken relative to it. c is a power of two: dividing by
    # it is exact, and a covariance whose largest variance is already in [1, 2)
    # (a correlation matrix) is read as it is, where a copy scaled to exactly
    # 1 cost a pass and a fresh p x p array (5-85 ms at p = 2000 in a fresh
    # process, its pages faulted in).
    S = np.asarray(S, dtype=float)
    unit = float(np.max(np.diag(S)))
    scale = math.ldexp(1.0, math.frexp(unit)[1] - 1)
    tol = tol * (unit / scale)
    if not symmetric:
        S, _ = symmetric_part(S, scale)
    elif scale != 1.0:
        # Each entry as symmetric_part computes it: 0.5 * (s / c + s / c).
        S = np.ascontiguousarray(S) / scale
    else:  # read, never written, below
        S = np.ascontiguousarray(S)
    alphas = np.asarray(alphas, dtype=float) / scale
    p = S.shape[0]
    # Every entry is written (np.divide below): no zero fill. One penalty's
    # solution is scaled in its own place instead (a fresh p x p array, whose
    # pages are faulted in as it is written, took 5-30 ms at p = 2000).
    precisions = np.empty((alphas.size, p, p)) if alphas.size > 1 else None
    solved = np.ones(alphas.size, dtype=bool)
    if start is None:
        # The diagonal start diag(1 / S_ii) and its inverse diag(S_ii), left
        # implicit: _descend and _solve_component build what they need of it
        # (two p x p matrices, and reading them, took 15 ms at p = 2000).
        K = W = None
    else:
        K = np.asarray(start, dtype=float) * scale
        W = np.linalg.inv(K)
    order = np.argsort(-alphas, kind="stable")
    spare = None
    for k in order:
        alpha = alphas[k]
        # The next penalty's warm start needs the inverse too; the last does
        # not (a p x p assembly, and an inverse per Newton-solved component).
        last = k == order[-1]
        labels = screened_components(S, alpha)
        sizes = np.bincount(labels)
        components = [np.flatnonzero(labels == c) for c in np.flatnonzero(sizes > 1)]
        whole = 1 < sizes.max() >= _WHOLE * p
        if whole:
            # One component of nearly every variable: the whole matrix is solved
            # as one (the variables alone in theirs stay alone: their |S_ij|
            # are within the penalty, their regressions stay 0), without the
            # fancy-indexed copies of S, K and W, 5-10 ms each at p = 1000;
            # its solution and inverse are taken as they are, not copied into
            # the diagonal start.
            components = [np.arange(p)]
        # The diagonal start, where a component is not the whole matrix.
        current = None if whole else np.diag(1.0 / np.diag(S))
        inverse = None if last or whole else np.diag(np.diag(S))
        for nodes in components:
            block = np.ix_(nodes, nodes) if nodes.size < p else Ellipsis
            if nodes.size == 2:
                pair = _solve_pair(S[block], alpha)
                current = _placed(current, block, pair)
                if not last:
                    inverse = _placed(inverse, block, np.linalg.inv(pair))
                continue
            K_block, W_block = (None, None) if K is None else (K[block], W[block])
            near = _descend(S[block], alpha, K_block, W_block, tol, check)
            if near is not None and near[1] is not None:
                current = _placed(current, block, near[0])
                if not last:
                    inverse = _placed(inverse, block, near[1])
                elif whole:
                    spare = near[1]
                continue
            solution = None
            if near is not None:  # near the minimiser: Newton steps finish it
                solution = _solve_component(S[block], alpha, near[0], tol)
            if solution is None:  # no descent, or it did not end positive definite
                if K_block is None:
                    K_block = np.diag(1.0 / np.diag(S[block]))
                solution = _solve_component(S[block], alpha, K_block, tol)
            if solution is None:  # the start was not positive definite
                solved[k] = False
                continue
            component, component_inverse, settled = solution
            current = _placed(current, block, component)
            if not last:
                if component_inverse is None:
                    component_inverse = np.linalg.inv(component)
                inverse = _placed(inverse, block, component_inverse)
            solved[k] &= settled
        if current is None:  # the whole matrix did not settle
            current = np.diag(1.0 / np.diag(S))
            inverse = None if last else np.diag(np.diag(S))
        # Positive definite whether or not every component settled (the last
        # iterates passed the line search's Cholesky factorisation), and nearer
        # the next penalty's solution than the previous start.
        K, W = current, inverse
        if precisions is None:  # the only penalty: current is this path's own
            precisions = np.divide(current, scale, out=current)[np.newaxis]
        else:
            np.divide(current, scale, out=precisions[k])
    return precisions, solved, spare


def _placed(target, block, value):
    """``value`` put at ``block`` of ``target``; for the whole matrix, ``value``.

    The whole matrix's solution replaces the start rather than being copied
    into it (a p x p copy).
    """
    if block is Ellipsis:
        return value
    target[block] = value
    return target


def kkt_residual(S: np.ndarray, K: np.ndarray, alpha: float) -> float:
    """Largest violation of the graphical lasso's optimality conditions at ``K``.

    With ``W = K^-1``: ``|W_ii - S_ii|`` on the diagonal,
    ``|W_ij - S_ij - alpha sign(K_ij)|`` where ``K_ij != 0`` and
    ``max(|W_ij - S_ij| - alpha, 0)`` where ``K_ij = 0``, divided by the largest
    ``S_ii`` (the conditions are equivariant under scaling ``S`` and ``alpha``
    together). 0 exactly at the minimiser; ``inf`` if ``K`` is not positive
    definite. ``W`` is computed afresh here, not taken from the solver.
    """
    return certificate(S, K, alpha)[0]


def certificate(
    S: np.ndarray, K: np.ndarray, alpha: float, work: np.ndarray | None = None
) -> tuple[float, np.ndarray | None]:
    """:func:`kkt_residual` and the ``W = K^-1`` it checked (None if not PD).

    ``W`` is the covariance of the fit: returning it spares its caller a
    second inversion (``np.linalg.inv`` took 6x the Cholesky factorisation's
    time at p = 1000). ``work`` (a C-contiguous float array of ``K``'s shape,
    overwritten) holds the factorisation and then ``W``; None allocates it.
    """
    violation, W = _violation(S, K, alpha, work)
    return float(violation / np.max(np.diag(S))), W


def certified_path(
    S: np.ndarray,
    alphas,
    start: np.ndarray | None = None,
    tol: float = _KKT_TOL,
    symmetric: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """:func:`graphical_lasso_path`, each solution certified from a fresh inverse.

    The path's descent leaves its solutions unchecked (``check=False``): the
    certificate (:func:`certificate`) is the check, one inverse per penalty
    rather than two, and a penalty where it misses ``tol`` is solved again
    with the solver's own checks and Newton steps, from there (not where the
    solver gave up: its Newton steps were already checked). Parameters as
    :func:`graphical_lasso_path`'s.

    Returns
    -------
    precisions : ndarray of shape (n_alphas, p, p)
        The solutions.
    residuals : ndarray of shape (n_alphas,)
        Each solution's :func:`kkt_residual`.
    covariance : ndarray of shape (p, p) or None
        The inverse of the last penalty's solution that its certificate
        checked (exactly symmetric); None where that solution is not positive
        definite.
    """
    alphas = np.asarray(alphas, dtype=float)
    precisions, solved, spare = _solve_path(S, alphas, start, tol, False, symmetric)
    residuals = np.empty(alphas.size)
    for k, (K, alpha) in enumerate(zip(precisions, alphas, strict=True)):
        # Only the last penalty's covariance is kept: the spare holds it.
        work = spare if k == alphas.size - 1 else None
        residuals[k], covariance = certificate(S, K, alpha, work)
        if residuals[k] > tol and solved[k]:
            again = K if covariance is not None else start
            precisions[k] = graphical_lasso_path(
                S, [alpha], again, tol, symmetric=symmetric
            )[0][0]
            residuals[k], covariance = certificate(S, precisions[k], alpha)
    return precisions, residuals, covariance


def plain_graphical_lasso_path(estimator, X: np.ndarray, alphas) -> tuple | None:
    """The path of scikit-learn's ``GraphicalLasso`` fitted on ``X``, or None.

    Applies to ``GraphicalLasso`` itself (not a subclass, whose ``fit`` may
    differ) fitting the samples (``covariance=None``): it minimises ``f`` at the
    empirical covariance of ``X`` (centred unless ``assume_centered``), which is
    what :func:`graphical_lasso_path` solves exactly, whatever its ``mode`` and
    tolerances. None where it does not apply or the covariance has a zero
    variance, finite values aside (the caller then fits the learner).

    Returns
    -------
    precisions, solved : see :func:`graphical_lasso_path`.
    """
    if type(estimator) is not GraphicalLasso or estimator.covariance is not None:
        return None
    S = empirical_covariance(X, assume_centered=estimator.assume_centered)
    if not np.all(np.isfinite(S)) or np.any(np.diag(S) <= 0):
        return None
    return graphical_lasso_path(S, alphas)
