# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Coordinate descent for the lasso on a Gram matrix: warm-started paths.

``lasso_gram_path`` follows one problem's path per call, ``lasso_gram_paths``
those of several problems of one size (the CV folds of a node) in one call.

Minimises ``1/2 w'Qw - q'w + alpha |w|_1`` (``Q = X'X``, ``q = X'y``: the lasso
times the number of samples) at each penalty of a decreasing sequence, each
solve starting from the previous one's solution. The iteration is scikit-learn's
``enet_coordinate_descent_gram`` (1.9, as ``lasso_path`` calls it with a
precomputed Gram matrix: no l2 penalty, cyclic order, gap safe screening)
operation for operation, on the same BLAS calls, so that the coefficients are
the same to the last bit. What this saves is the Python around every penalty:
``lasso_path``'s set-up and scikit-learn's per-call conversions cost more than
the descent itself on the node-wise lasso's problems (at most a few dozen
predictors, a few sweeps per penalty on a warm start); a call per fold still
cost about a tenth of the descent, hence the call for all folds.

Each solve: ``Qw`` computed afresh, the duality gap checked before the first
sweep (a warm start may already be optimal), predictors that the gap safe rule
(Ndiaye et al. 2017) proves inactive at the optimum set to 0 and skipped, then
cyclic sweeps over the others; after a sweep whose largest move is at most
``tol`` times the largest coefficient (or after the last allowed sweep), the
gap is checked against ``tol * y'y`` and the screening repeated.
"""

from libc.math cimport fabs, sqrt
from scipy.linalg.cython_blas cimport dasum, daxpy, ddot, dgemv

import numpy as np


cdef inline double _gap(
    int n,
    double* w,
    double alpha,
    double* Qw,
    const double* q,
    double y_norm2,
    double* XtA,
    double* dual_norm,
) noexcept nogil:
    """Duality gap at ``w``; leaves ``X'(y - Xw)`` in ``XtA``, its max-norm in ``dual_norm``."""
    cdef int one = 1
    cdef int j
    cdef double q_dot_w = ddot(&n, w, &one, <double*> q, &one)
    cdef double wQw = ddot(&n, w, &one, Qw, &one)
    # ||y - Xw||^2 and (y - Xw)'y from the Gram matrix.
    cdef double R_norm2 = y_norm2 + wQw - 2.0 * q_dot_w
    cdef double Ry = y_norm2 - q_dot_w
    cdef double largest, scale, primal, dual
    for j in range(n):
        XtA[j] = q[j] - Qw[j]
    largest = fabs(XtA[0])
    for j in range(1, n):
        if fabs(XtA[j]) > largest:
            largest = fabs(XtA[j])
    dual_norm[0] = largest
    primal = 0.5 * R_norm2 + alpha * dasum(&n, w, &one)
    # The residual scaled into the dual feasible set.
    if largest > alpha:
        scale = alpha / largest
    else:
        scale = 1.0
    dual = -0.5 * (scale ** 2) * R_norm2 + scale * Ry
    return primal - dual


cdef inline int _screen(
    int n,
    const double[:, ::1] Q,
    double[::1] w,
    double[::1] Qw,
    const double[::1] XtA,
    double alpha,
    double gap,
    double dual_norm,
    unsigned char[::1] excluded,
    int[::1] active,
    bint first,
) noexcept nogil:
    """Gap safe screening: the predictors that may be non-zero at the optimum.

    Lists them in ``active`` and returns their number; sets the others (and, on
    the ``first`` call, predictors with ``Q_jj = 0``) to 0 and marks them
    ``excluded`` for the rest of the solve.
    """
    cdef int one = 1
    cdef int j
    cdef int n_active = 0
    cdef double radius = sqrt(2 * fabs(gap)) / alpha  # gap < 0 is rounding
    cdef double theta, distance, step
    for j in range(n):
        if first:
            if Q[j, j] == 0:
                w[j] = 0
                excluded[j] = 1
                continue
        elif excluded[j]:
            continue
        theta = XtA[j] / (alpha if alpha > dual_norm else dual_norm)
        distance = (1 - fabs(theta)) / sqrt(Q[j, j])
        if distance <= radius:
            active[n_active] = j
            excluded[j] = 0
            n_active += 1
        else:
            if w[j] != 0:
                step = -w[j]
                daxpy(&n, &step, <double*> &Q[j, 0], &one, &Qw[0], &one)
                w[j] = 0
            excluded[j] = 1
    return n_active


cdef inline double _sign(double x) noexcept nogil:
    if x == 0:
        return 0
    elif x > 0:
        return 1.0
    return -1.0


cdef Py_ssize_t _solve_path(
    const double[:, ::1] Q,
    const double[::1] q,
    double y_norm2,
    const double[::1] penalties,
    double[::1] w,
    double[:, ::1] coefs,
    int[::1] sweeps,
    double[::1] gaps,
    unsigned char[::1] converged,
    unsigned int max_iter,
    double tol,
    unsigned int sweep_limit,
    double[::1] Qw,
    double[::1] XtA,
    int[::1] active,
    unsigned char[::1] excluded,
) noexcept nogil:
    """``lasso_gram_path`` on work arrays of the problem's size; returns ``n_solved``."""
    cdef int n = Q.shape[0]
    cdef int one = 1
    cdef double unit = 1.0
    cdef double zero = 0.0
    cdef char transpose = b"T"
    cdef Py_ssize_t k, position
    cdef int j, n_active
    cdef unsigned int n_iter
    cdef double alpha, gap, dual_norm, previous, correlation, step
    cdef double move, largest_move, largest_coef
    cdef double tol_scaled = tol * y_norm2
    for k in range(penalties.shape[0]):
        alpha = penalties[k]
        # Qw = Q w (Q symmetric, C order: BLAS's transposed product on it).
        dgemv(&transpose, &n, &n, &unit, <double*> &Q[0, 0], &n, &w[0], &one,
              &zero, &Qw[0], &one)
        sweeps[k] = 0
        converged[k] = 1
        gap = _gap(n, &w[0], alpha, &Qw[0], &q[0], y_norm2, &XtA[0], &dual_norm)
        if 0 <= gap <= tol_scaled:
            # Only a gap >= 0 counts: a singular Q can make it negative.
            gaps[k] = gap
            coefs[k, :] = w
            continue
        n_active = _screen(n, Q, w, Qw, XtA, alpha, gap, dual_norm, excluded,
                           active, True)
        n_iter = 0
        for n_iter in range(max_iter):
            largest_coef = 0.0
            largest_move = 0.0
            for position in range(n_active):
                j = active[position]
                if Q[j, j] == 0.0:
                    continue
                previous = w[j]
                # X_j'(y - Xw + X_j w_j): the correlation without j.
                correlation = q[j] - Qw[j] + previous * Q[j, j]
                # Soft threshold of the correlation, scaled by Q_jj.
                w[j] = _sign(correlation) * (
                    fabs(correlation) - alpha if fabs(correlation) - alpha > 0
                    else 0
                ) / Q[j, j]
                if w[j] != previous:
                    step = w[j] - previous
                    daxpy(&n, &step, <double*> &Q[j, 0], &one, &Qw[0], &one)
                move = fabs(w[j] - previous)
                if move > largest_move:
                    largest_move = move
                if fabs(w[j]) > largest_coef:
                    largest_coef = fabs(w[j])
            if (largest_coef == 0.0 or largest_move / largest_coef <= tol
                    or n_iter == max_iter - 1):
                gap = _gap(n, &w[0], alpha, &Qw[0], &q[0], y_norm2, &XtA[0],
                           &dual_norm)
                if gap <= tol_scaled:
                    gaps[k] = gap
                    break
                n_active = _screen(n, Q, w, Qw, XtA, alpha, gap, dual_norm,
                                   excluded, active, False)
        else:
            gaps[k] = gap
            converged[k] = 0
        sweeps[k] = n_iter + 1
        coefs[k, :] = w
        if <unsigned int> sweeps[k] > sweep_limit:
            return k + 1
    return penalties.shape[0]


def lasso_gram_path(
    const double[:, ::1] Q,
    const double[::1] q,
    double y_norm2,
    const double[::1] penalties,
    double[::1] w,
    double[:, ::1] coefs,
    int[::1] sweeps,
    double[::1] gaps,
    unsigned char[::1] converged,
    unsigned int max_iter,
    double tol,
    unsigned int sweep_limit,
):
    """Solve the lasso at each of ``penalties`` (decreasing), warm-started.

    Stops after the first penalty that needs more than ``sweep_limit`` sweeps.

    Parameters
    ----------
    Q, q : Gram matrix ``X'X`` (C order) and ``X'y``.
    y_norm2 : ``y'y``.
    penalties : l1 penalties on this scale (scikit-learn's ``alpha`` times the
        number of samples), all positive.
    w : the starting coefficients; holds the last solution on return.
    coefs : out, shape (n_penalties, n_predictors): the solutions.
    sweeps : out, per penalty: 0 when the start was already optimal, else the
        number of sweeps (as ``lasso_path``'s ``n_iter``).
    gaps : out, per penalty: the last duality gap computed.
    converged : out, per penalty: 0 when ``max_iter`` sweeps did not bring the
        gap to ``tol * y_norm2``.
    max_iter, tol : as in :func:`sklearn.linear_model.lasso_path`.
    sweep_limit : the caller gives up on the path past this many sweeps at
        one penalty (``max_iter`` or more: never).

    Returns
    -------
    tol_scaled : float
        ``tol * y_norm2``, the tolerance the gaps were held to.
    n_solved : int
        The number of penalties solved (the first ones): all of them unless
        one needed more than ``sweep_limit`` sweeps, which is the last.
    """
    cdef Py_ssize_t n = Q.shape[0], n_solved
    cdef double[::1] Qw = np.zeros(n)
    cdef double[::1] XtA = np.zeros(n)
    cdef int[::1] active = np.empty(n, dtype=np.intc)
    cdef unsigned char[::1] excluded = np.empty(n, dtype=np.uint8)
    with nogil:
        n_solved = _solve_path(Q, q, y_norm2, penalties, w, coefs, sweeps, gaps,
                               converged, max_iter, tol, sweep_limit, Qw, XtA,
                               active, excluded)
    return tol * y_norm2, n_solved


def lasso_gram_paths(
    const double[:, :, ::1] Q,
    const double[:, ::1] q,
    const double[::1] y_norm2,
    const double[:, ::1] penalties,
    double[:, ::1] w,
    double[:, :, ::1] coefs,
    int[:, ::1] sweeps,
    double[:, ::1] gaps,
    unsigned char[:, ::1] converged,
    unsigned int max_iter,
    double tol,
    unsigned int sweep_limit,
):
    """``lasso_gram_path`` on several problems of one size in turn (the CV folds
    of a node), each on its own penalties; one call instead of one per problem.

    The arguments are those of ``lasso_gram_path`` stacked along a first axis
    of one entry per problem. Stops after the first problem whose path stops
    at a penalty that needs more than ``sweep_limit`` sweeps.

    Returns
    -------
    n_problems : int
        The number of problems solved (the first ones).
    n_solved : int
        The number of penalties solved in the last of them.
    """
    cdef Py_ssize_t n = Q.shape[1], problem, n_solved = 0
    cdef Py_ssize_t n_problems = Q.shape[0]
    cdef double[::1] Qw = np.zeros(n)
    cdef double[::1] XtA = np.zeros(n)
    cdef int[::1] active = np.empty(n, dtype=np.intc)
    cdef unsigned char[::1] excluded = np.empty(n, dtype=np.uint8)
    with nogil:
        for problem in range(Q.shape[0]):
            n_solved = _solve_path(
                Q[problem], q[problem], y_norm2[problem], penalties[problem],
                w[problem], coefs[problem], sweeps[problem], gaps[problem],
                converged[problem], max_iter, tol, sweep_limit, Qw, XtA, active,
                excluded,
            )
            if <unsigned int> sweeps[problem, n_solved - 1] > sweep_limit:
                n_problems = problem + 1
                break
    return n_problems, n_solved
