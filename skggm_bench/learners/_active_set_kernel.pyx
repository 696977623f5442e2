# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The node-wise (square-root) lasso's active-set iteration, one node after the other.

The iteration of ``_active_set_lasso`` (see its docstring for the method): from
a node's coefficients ``w``, the residual correlations ``d = q - Rw``, the next
active set ``{j : |w_j + d_j| > t}`` (at most ``_MIN_ENTERING`` or half the
current support entering at once, the most violating), its signs, and the
solution ``w_A = u - lam v`` of the linear optimality conditions on it, until an
iteration reproduces its active set and signs (the node settled: ``w`` is exact)
or the node fails (it returns to an earlier active set, its block is singular,
the active set outgrows the rank, or ``max_iter`` solves were not enough).

What this saves is the Python around each step: at p = 50 (StARS's
subsamples) a step of all nodes at once costs tens of NumPy calls for
microseconds of arithmetic each. Here a step of one node is ``|A| p``
multiply-adds for ``d`` (only the non-zero coefficients), one LAPACK solve of
the ``|A| x |A|`` block with two right-hand sides (Cholesky, ``dposv``, LU where
the block is not positive definite to working precision, ``dgesv``; from
``scipy.linalg.cython_lapack``), and loops over ``p``. The operations are
those of the NumPy iteration it replaces; the sums are taken in another order,
so coefficients can differ from it in the last bits (the active sets, and so
the edges, do not, but at an exact tie).
"""

from libc.math cimport fabs, isfinite, sqrt
from libc.stdlib cimport free, malloc, qsort
from libc.string cimport memcmp, memcpy, memset
from scipy.linalg.cython_lapack cimport dgesv, dposv

import numpy as np

# Fewest variables a node may add to its active set in one iteration: near a
# saturated fit many residual correlations sit just above the penalty; letting
# them all enter at once makes the iteration overshoot to a large, badly
# conditioned active set and cycle. A node adds at most half its current
# support (and at least this many), those with the largest excess.
cdef int _MIN_ENTERING = 10


cdef int _descending(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const double*> a)[0]
    cdef double y = (<const double*> b)[0]
    return (x < y) - (x > y)


cdef struct _Work:
    double* moved  # w + d, then its excess |w + d| - t
    double* block  # the active block, |A| x |A|
    double* rhs  # q_A and s_A, the two right-hand sides, then u and v
    double* ranked  # excesses of the entering variables
    int* pivots
    int* active  # the active variables, in order
    signed char* signs  # of the current iteration, 0 off the active set
    signed char* used  # that produced the current coefficients
    signed char* visited  # the signs of every solve at this penalty
    int* support  # variables with a non-zero coefficient


cdef bint _solve_block(
    const double[:, ::1] R, int m, _Work* work, int size
) noexcept nogil:
    """``u = R_AA^-1 q_A``, ``v = R_AA^-1 s_A`` into ``work.rhs``; False if singular."""
    cdef int a, b, attempt, info = 0, two = 2
    cdef char upper = b"U"
    for attempt in range(2):
        for a in range(size):
            for b in range(size):
                work.block[a * size + b] = R[work.active[a], work.active[b]]
            work.rhs[a] = R[m, work.active[a]]
            work.rhs[size + a] = work.signs[work.active[a]]
        # The block is symmetric: row-major is the column-major array LAPACK
        # works on.
        if attempt == 0:
            dposv(&upper, &size, &two, work.block, &size, work.rhs, &size, &info)
        else:
            dgesv(&size, &two, work.block, &size, work.pivots, work.rhs, &size, &info)
        if info == 0:
            return True
    return False


cdef bint _iterate_node(
    const double[:, ::1] R,
    const unsigned char[:, ::1] allowed,
    int m,
    double lam0,
    double* w,
    bint scaled,
    int max_active,
    int max_iter,
    unsigned char* known,
    signed char* segment_signs,
    double* segment_u,
    double* segment_v,
    _Work* work,
) noexcept nogil:
    """Iterate node ``m`` from ``w`` (its row of W, overwritten); True if it settled.

    ``known`` and the segment's rows are NULL for the square-root lasso.
    """
    cdef int p = R.shape[0]
    cdef int i, j, a, iteration, n_support, n_active, n_entering, limit
    cdef double t, total, variance, wRw, qw, lam, numerator, denominator, cutoff
    cdef bint solved = False, cycling
    cdef const double* row
    if known != NULL and known[0]:
        # A start on a segment is the solve of its active set and signs at
        # this penalty, exactly as a solve would give it.
        for j in range(p):
            w[j] = segment_u[j] - lam0 * segment_v[j]
        memcpy(work.used, segment_signs, p)
        solved = True
    for iteration in range(max_iter + 1):
        n_support = 0
        for j in range(p):
            if w[j] != 0.0:
                work.support[n_support] = j
                n_support += 1
        # moved = w + (q - Rw), Rw summed over the support only.
        row = &R[m, 0]
        for j in range(p):
            work.moved[j] = row[j]
        for a in range(n_support):
            i = work.support[a]
            row = &R[i, 0]
            for j in range(p):
                work.moved[j] -= w[i] * row[j]
        t = lam0
        if scaled:
            # sigma(w)^2 = 1 - 2 q'w + w'Rw, with Rw = q - d (d = moved, so
            # far: the residual correlations).
            qw = 0.0
            wRw = 0.0
            for a in range(n_support):
                i = work.support[a]
                qw += R[m, i] * w[i]
                wRw += w[i] * (R[m, i] - work.moved[i])
            variance = 1.0 - 2.0 * qw + wRw
            t = lam0 * sqrt(variance if variance > 0.0 else 0.0)
        n_active = 0
        n_entering = 0
        for j in range(p):
            work.moved[j] += w[j]
            work.signs[j] = 1 if work.moved[j] > 0.0 else -1
            work.moved[j] = fabs(work.moved[j]) - t
            if work.moved[j] > 0.0 and allowed[m, j]:
                if w[j] == 0.0:
                    work.ranked[n_entering] = work.moved[j]
                    n_entering += 1
                n_active += 1
            else:
                work.signs[j] = 0
        limit = n_support // 2
        if limit < _MIN_ENTERING:
            limit = _MIN_ENTERING
        if n_entering > limit:
            # Keep the entering variables whose excess is at least the
            # limit-th largest (all of a tie).
            qsort(work.ranked, n_entering, sizeof(double), _descending)
            cutoff = work.ranked[limit - 1]
            n_active = 0
            for j in range(p):
                if work.signs[j] != 0 and w[j] == 0.0 and work.moved[j] < cutoff:
                    work.signs[j] = 0
                elif work.signs[j] != 0:
                    n_active += 1
        if solved and memcmp(work.signs, work.used, p) == 0:
            return True
        # The next iterate is a function of the active set and signs: a node
        # that returns to an earlier one cycles for ever.
        cycling = False
        for a in range(iteration):
            if memcmp(work.signs, &work.visited[a * p], p) == 0:
                cycling = True
                break
        if cycling or n_active > max_active or iteration >= max_iter:
            return False
        n_active = 0
        for j in range(p):
            if work.signs[j] != 0:
                work.active[n_active] = j
                n_active += 1
        if n_active > 0 and not _solve_block(R, m, work, n_active):
            return False  # an exactly singular block: another method decides
        lam = lam0
        if scaled:
            # sigma^2 = (1 - q_A'u) / (1 - lam^2 s_A'v)
            numerator = 1.0
            denominator = 0.0
            for a in range(n_active):
                numerator -= R[m, work.active[a]] * work.rhs[a]
                denominator += work.signs[work.active[a]] * work.rhs[n_active + a]
            denominator = 1.0 - lam0 * lam0 * denominator
            if not (numerator > 0.0 and denominator > 0.0):
                return False  # no closed form
            lam = lam0 * sqrt(numerator / denominator)
        for a in range(n_active):
            if not isfinite(work.rhs[a] - lam * work.rhs[n_active + a]):
                return False
        memset(w, 0, p * sizeof(double))
        for a in range(n_active):
            w[work.active[a]] = work.rhs[a] - lam * work.rhs[n_active + a]
        solved = True
        memcpy(work.used, work.signs, p)
        memcpy(&work.visited[iteration * p], work.signs, p)
        if known != NULL:
            known[0] = True
            memcpy(segment_signs, work.signs, p)
            memset(segment_u, 0, p * sizeof(double))
            memset(segment_v, 0, p * sizeof(double))
            for a in range(n_active):
                segment_u[work.active[a]] = work.rhs[a]
                segment_v[work.active[a]] = work.rhs[n_active + a]
    return False


def active_set_iterations(
    const double[:, ::1] R,
    const unsigned char[:, ::1] allowed,
    const Py_ssize_t[::1] nodes,
    const double[::1] penalty,
    double[:, ::1] W,
    bint scaled,
    int max_active,
    const Py_ssize_t[::1] max_iter,
    unsigned char[::1] known=None,
    signed char[:, ::1] signs=None,
    double[:, ::1] u=None,
    double[:, ::1] v=None,
):
    """Run the active-set iteration for ``nodes`` from their rows of ``W``.

    Parameters
    ----------
    R : ndarray of shape (p, p)
        Correlation matrix (unit diagonal, zero rows for constant columns).
    allowed : ndarray of shape (p, p), uint8
        Which variable (column) may enter which node (row), as bytes.
    nodes : ndarray of shape (k,), intp
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
    max_iter : ndarray of shape (k,), intp
        Solves before a node still moving counts as failed.
    known, signs, u, v : ndarray or None
        Lasso only, the arrays of ``_active_set_lasso._Segments`` (``known``
        as bytes): a node with a known segment starts on it instead of at
        ``W``, and every solve is recorded there.

    Returns
    -------
    settled : ndarray of shape (k,), bool
        Which of ``nodes`` settled: their rows of ``W`` are exact solutions;
        the others hold their last iterate.
    """
    cdef int p = R.shape[0]
    cdef Py_ssize_t k, m, most = 0
    cdef bint segments = known is not None
    cdef _Work work
    settled = np.zeros(nodes.shape[0], dtype=bool)
    cdef unsigned char[::1] out = settled.view(np.uint8)
    for k in range(nodes.shape[0]):
        if max_iter[k] > most:
            most = max_iter[k]
    work.moved = <double*> malloc(p * sizeof(double))
    # No block is solved beyond max_active variables.
    work.block = <double*> malloc((max_active * max_active + 1) * sizeof(double))
    work.rhs = <double*> malloc(2 * p * sizeof(double))
    work.ranked = <double*> malloc(p * sizeof(double))
    work.pivots = <int*> malloc(p * sizeof(int))
    work.active = <int*> malloc(p * sizeof(int))
    work.support = <int*> malloc(p * sizeof(int))
    work.signs = <signed char*> malloc(p)
    work.used = <signed char*> malloc(p)
    work.visited = <signed char*> malloc((most + 1) * p)
    try:
        if (
            work.moved == NULL or work.block == NULL or work.rhs == NULL
            or work.ranked == NULL or work.pivots == NULL or work.active == NULL
            or work.support == NULL or work.signs == NULL or work.used == NULL
            or work.visited == NULL
        ):
            raise MemoryError()
        with nogil:
            for k in range(nodes.shape[0]):
                m = nodes[k]
                out[k] = _iterate_node(
                    R,
                    allowed,
                    m,
                    penalty[k],
                    &W[m, 0],
                    scaled,
                    max_active,
                    max_iter[k],
                    &known[m] if segments else NULL,
                    &signs[m, 0] if segments else NULL,
                    &u[m, 0] if segments else NULL,
                    &v[m, 0] if segments else NULL,
                    &work,
                )
    finally:
        free(work.moved)
        free(work.block)
        free(work.rhs)
        free(work.ranked)
        free(work.pivots)
        free(work.active)
        free(work.support)
        free(work.signs)
        free(work.used)
        free(work.visited)
    return settled
