# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The covariance completion's iteration, compiled: sweeps and their acceleration.

A sweep visits every node ``j`` of a matrix ``W`` in order, with neighbours ``N``:
it solves ``W[N, N] beta = W[N, j]`` and sets the entries of row and column ``j``
off the graph to ``W[-j, N] beta`` (Hastie, Tibshirani & Friedman, *The Elements
of Statistical Learning*, 2nd ed., Algorithm 17.1). The entries on the graph and
the diagonal are never written: they stay ``sigma``'s exactly, so ``W[N, j]`` is
the regression's target ``sigma[N, j]``. An isolated node gets zeros off the
diagonal.

The neighbourhoods are small (a few nodes at the sampler's sparse graphs), so
``W[N, N]`` is factored by a Cholesky decomposition written out here, on a
gathered copy, with the reciprocals of its diagonal (multiplications instead of
divisions). The new column is the sum of the rows ``W[k, :]``, ``k`` in ``N``,
weighted by ``beta`` (contiguous reads).

``complete`` sweeps each matrix until a sweep moves no entry off the graph by
more than the matrix's threshold, with the Anderson acceleration that
``_covariance_completion`` describes, one matrix after the other: a matrix's
result does not depend on the rest of the batch. ``_covariance_completion`` builds
the graph's arrays and redoes with plain sweeps the matrices whose extrapolation
failed.
"""

from libc.math cimport fabs, isfinite, sqrt
from libc.string cimport memcpy, memset

import numpy as np


cdef int _sweep_one(
    double[:, ::1] W,
    const int[::1] indptr,
    const int[::1] indices,
    const int[::1] off_indptr,
    const int[::1] off_indices,
    double* factor,
    double* inverse,
    double* beta,
    double* column,
) noexcept nogil:
    """Sweep the nodes of one matrix in place; -1 if a ``W[N, N]`` is not PD."""
    cdef int p = W.shape[0]
    cdef int j, start, d, a, b, c, i, k
    cdef double total, weight
    cdef const double* row
    for j in range(p):
        start = indptr[j]
        d = indptr[j + 1] - start
        # Lower Cholesky factor of W[N, N], row by row (d x d, row-major), with
        # the reciprocals of its diagonal in inverse: multiplications, not divisions.
        for a in range(d):
            k = indices[start + a]
            for b in range(a + 1):
                factor[a * d + b] = W[k, indices[start + b]]
        for a in range(d):
            for b in range(a):
                total = factor[a * d + b]
                for c in range(b):
                    total = total - factor[a * d + c] * factor[b * d + c]
                factor[a * d + b] = total * inverse[b]
            total = factor[a * d + a]
            for c in range(a):
                total = total - factor[a * d + c] * factor[a * d + c]
            if not total > 0.0:  # also false for NaN
                return -1
            inverse[a] = 1.0 / sqrt(total)
        # beta = W[N, N]^{-1} W[N, j]: forward, then backward substitution.
        for a in range(d):
            total = W[indices[start + a], j]
            for c in range(a):
                total = total - factor[a * d + c] * beta[c]
            beta[a] = total * inverse[a]
        for a in range(d - 1, -1, -1):
            total = beta[a]
            for c in range(a + 1, d):
                total = total - factor[c * d + a] * beta[c]
            beta[a] = total * inverse[a]
        for i in range(p):
            column[i] = 0.0
        for a in range(d):
            row = &W[indices[start + a], 0]
            weight = beta[a]
            for i in range(p):
                column[i] = column[i] + weight * row[i]
        for a in range(off_indptr[j], off_indptr[j + 1]):
            i = off_indices[a]
            W[j, i] = column[i]
            W[i, j] = column[i]
    return 0


cdef inline double _dot(const double* a, const double* b, Py_ssize_t size) noexcept nogil:
    cdef Py_ssize_t e
    cdef double total = 0.0
    for e in range(size):
        total = total + a[e] * b[e]
    return total


cdef void _gather(
    const double[:, ::1] W, const int[::1] first, const int[::1] second, double* out
) noexcept nogil:
    cdef Py_ssize_t e
    for e in range(first.shape[0]):
        out[e] = W[first[e], second[e]]


cdef void _scatter(
    double[:, ::1] W, const int[::1] first, const int[::1] second, const double* x
) noexcept nogil:
    cdef Py_ssize_t e
    for e in range(first.shape[0]):
        W[first[e], second[e]] = x[e]
        W[second[e], first[e]] = x[e]


cdef int _gamma(double* gram, double* rhs, double* gamma, int memory) noexcept nogil:
    """Solve ``(gram + ridge I) gamma = rhs`` by Cholesky; -1 if that fails.

    The Tikhonov term is relative to the scale of ``dG`` (``1e-10`` times the
    trace, plus the smallest normal number): collinear differences then give a
    bounded ``gamma`` instead of a singular system, an empty history gamma = 0.
    ``gram`` is overwritten by the factor.
    """
    cdef int a, b, c
    cdef double total, ridge = 0.0
    for a in range(memory):
        ridge = ridge + gram[a * memory + a]
    ridge = 1e-10 * ridge + 2.2250738585072014e-308
    for a in range(memory):
        gram[a * memory + a] = gram[a * memory + a] + ridge
    for a in range(memory):
        for b in range(a + 1):
            total = gram[a * memory + b]
            for c in range(b):
                total = total - gram[a * memory + c] * gram[b * memory + c]
            if a == b:
                if not total > 0.0:
                    return -1
                gram[a * memory + a] = sqrt(total)
            else:
                gram[a * memory + b] = total / gram[b * memory + b]
    for a in range(memory):
        total = rhs[a]
        for c in range(a):
            total = total - gram[a * memory + c] * gamma[c]
        gamma[a] = total / gram[a * memory + a]
    for a in range(memory - 1, -1, -1):
        total = gamma[a]
        for c in range(a + 1, memory):
            total = total - gram[c * memory + a] * gamma[c]
        gamma[a] = total / gram[a * memory + a]
    return 0


def complete(
    double[:, :, ::1] W,
    const int[::1] indptr,
    const int[::1] indices,
    const int[::1] off_indptr,
    const int[::1] off_indices,
    const int[::1] first,
    const int[::1] second,
    const double[::1] threshold,
    int max_iter,
    int memory,
):
    """Sweep every matrix of ``W`` (n, p, p) to its completion, in place.

    ``indices[indptr[j]:indptr[j + 1]]`` are node ``j``'s neighbours,
    ``off_indices[off_indptr[j]:off_indptr[j + 1]]`` the other nodes it is not
    adjacent to (both sorted), and ``first``, ``second`` the rows and columns of
    the entries above the diagonal off the graph, ``x``. Matrix ``m`` is swept
    until no entry of ``x`` moves by more than ``threshold[m]`` in a sweep, at most
    ``max_iter`` times, with Anderson acceleration over the last ``memory``
    sweeps (none when 0), as ``_covariance_completion`` describes.

    Returns the sweeps each matrix took (``int32``): -1 where ``max_iter`` did not
    reach the threshold, -2 where a sweep failed (some ``W[N, N]`` not positive
    definite, a non-finite entry, a singular extrapolation); that matrix is then
    left part-swept, the others are unaffected.
    """
    cdef int n = W.shape[0]
    cdef int p = W.shape[1]
    cdef Py_ssize_t size = first.shape[0]
    cdef int largest = 0
    cdef int j, m, k, sweep, slot, status
    cdef Py_ssize_t e
    cdef double change, norm, norm_previous, cross
    if W.shape[2] != p or indptr.shape[0] != p + 1 or off_indptr.shape[0] != p + 1:
        raise ValueError("W must be (n, p, p) and indptr, off_indptr of length p + 1")
    if threshold.shape[0] != n or second.shape[0] != size or memory < 0:
        raise ValueError("threshold must have length n, second that of first")
    for j in range(p):
        largest = max(largest, indptr[j + 1] - indptr[j])
    cdef double[::1] factor = np.empty(max(1, largest * largest))
    cdef double[::1] inverse = np.empty(max(1, largest))
    cdef double[::1] beta = np.empty(max(1, largest))
    cdef double[::1] column = np.empty(max(1, p))
    # x, F(x), g and their previous values; the histories dG, dF (memory rows of
    # size entries); dG^T dG, its factor; dG^T g (and last step's), gamma.
    cdef double[:, ::1] vectors = np.empty((5, max(1, size)))
    cdef double[:, ::1] history_g = np.empty((max(1, memory), max(1, size)))
    cdef double[:, ::1] history_f = np.empty((max(1, memory), max(1, size)))
    cdef double[::1] gram = np.empty(max(1, memory * memory))
    cdef double[::1] system = np.empty(max(1, memory * memory))
    cdef double[::1] rhs = np.empty(max(1, memory))
    cdef double[::1] products = np.empty(max(1, memory))
    cdef double[::1] gamma = np.empty(max(1, memory))
    cdef double* x = &vectors[0, 0]
    cdef double* f = &vectors[1, 0]
    cdef double* g = &vectors[2, 0]
    cdef double* f_previous = &vectors[3, 0]
    cdef double* g_previous = &vectors[4, 0]
    cdef size_t history_bytes = history_g.shape[0] * history_g.shape[1] * sizeof(double)
    result = np.full(n, -1, dtype=np.intc)
    cdef int[::1] sweeps = result
    with nogil:
        for m in range(n):
            _gather(W[m], first, second, x)
            memset(&history_g[0, 0], 0, history_bytes)
            memset(&history_f[0, 0], 0, history_bytes)
            memset(&gram[0], 0, gram.shape[0] * sizeof(double))
            memset(&products[0], 0, products.shape[0] * sizeof(double))
            norm_previous = 0.0
            for sweep in range(1, max_iter + 1):
                status = _sweep_one(
                    W[m], indptr, indices, off_indptr, off_indices, &factor[0],
                    &inverse[0], &beta[0], &column[0]
                )
                if status < 0:
                    sweeps[m] = -2
                    break
                _gather(W[m], first, second, f)
                change = 0.0
                for e in range(size):
                    g[e] = f[e] - x[e]
                    if not fabs(g[e]) <= change:  # also true for NaN
                        change = fabs(g[e])
                        if change != change:
                            break
                if not isfinite(change):
                    sweeps[m] = -2
                    break
                if change <= threshold[m]:
                    sweeps[m] = sweep
                    break
                if memory and sweep > 1:
                    # The new differences dG, dF go to the oldest slot; the new
                    # row of dG^T dG is dG_k^T g - dG_k^T g_prev (the latter is
                    # last step's right-hand side), its diagonal entry
                    # |g|^2 - 2 g^T g_prev + |g_prev|^2.
                    slot = (sweep - 2) % memory
                    for e in range(size):
                        history_g[slot, e] = g[e] - g_previous[e]
                        history_f[slot, e] = f[e] - f_previous[e]
                    for k in range(memory):
                        rhs[k] = _dot(&history_g[k, 0], g, size)
                    norm = _dot(g, g, size)
                    cross = _dot(g, g_previous, size)
                    for k in range(memory):
                        gram[slot * memory + k] = rhs[k] - products[k]
                    gram[slot * memory + slot] = norm - 2.0 * cross + norm_previous
                    for k in range(memory):
                        gram[k * memory + slot] = gram[slot * memory + k]
                    if norm > norm_previous:
                        # The residual grew: forget the history, a plain sweep.
                        memset(&history_g[0, 0], 0, memory * size * sizeof(double))
                        memset(&history_f[0, 0], 0, memory * size * sizeof(double))
                        memset(&gram[0], 0, memory * memory * sizeof(double))
                        memset(&rhs[0], 0, memory * sizeof(double))
                    memcpy(&products[0], &rhs[0], memory * sizeof(double))
                    norm_previous = norm
                    memcpy(&system[0], &gram[0], memory * memory * sizeof(double))
                    if _gamma(&system[0], &rhs[0], &gamma[0], memory) < 0:
                        sweeps[m] = -2
                        break
                    # x = F(x) - dF gamma, set into W for the next sweep.
                    for e in range(size):
                        x[e] = f[e]
                    for k in range(memory):
                        for e in range(size):
                            x[e] = x[e] - gamma[k] * history_f[k, e]
                    _scatter(W[m], first, second, x)
                else:
                    memcpy(x, f, size * sizeof(double))  # W holds F(x) already
                    if memory:
                        norm_previous = _dot(g, g, size)
                memcpy(g_previous, g, size * sizeof(double))
                memcpy(f_previous, f, size * sizeof(double))
    return result
