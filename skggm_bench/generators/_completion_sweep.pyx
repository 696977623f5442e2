# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""One sweep of the covariance completion's iterative regressions, compiled.

For every matrix ``W`` of a batch and every node ``j`` in order, with neighbours
``N``: solve ``W[N, N] beta = W[N, j]`` and set the entries of row and column
``j`` off the graph to ``W[-j, N] beta`` (Hastie, Tibshirani & Friedman, *The
Elements of Statistical Learning*, 2nd ed., Algorithm 17.1). The entries on the
graph and the diagonal are never written: they stay ``sigma``'s exactly, so
``W[N, j]`` is the regression's target ``sigma[N, j]``. An isolated node gets
zeros off the diagonal.

The neighbourhoods are small (a few nodes at the sampler's sparse graphs), so
``W[N, N]`` is factored by a Cholesky decomposition written out here, on a
gathered copy: a LAPACK call costs more than the factorisation at that size.
The new column is the sum of the rows ``W[k, :]``, ``k`` in ``N``, weighted by
``beta`` (contiguous reads). Each matrix is swept on its own, so its result does
not depend on the rest of the batch. ``_covariance_completion`` runs the
iteration (the Anderson acceleration, the stopping rule) around this kernel.
"""

from libc.math cimport sqrt

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


def sweep(
    double[:, :, ::1] W,
    const int[::1] indptr,
    const int[::1] indices,
    const int[::1] off_indptr,
    const int[::1] off_indices,
):
    """One sweep over every node of every matrix of ``W`` (n, p, p), in place.

    ``indices[indptr[j]:indptr[j + 1]]`` are node ``j``'s neighbours, and
    ``off_indices[off_indptr[j]:off_indptr[j + 1]]`` the nodes other than ``j``
    it is not adjacent to (both sorted). Raises ``numpy.linalg.LinAlgError`` if
    some ``W[N, N]`` is not positive definite (or not finite), which positive
    definite input never gives; the matrix is then left part-swept.
    """
    cdef int n = W.shape[0]
    cdef int p = W.shape[1]
    cdef int largest = 0
    cdef int j, m
    cdef int status = 0
    if W.shape[2] != p or indptr.shape[0] != p + 1 or off_indptr.shape[0] != p + 1:
        raise ValueError("W must be (n, p, p) and indptr, off_indptr of length p + 1")
    for j in range(p):
        largest = max(largest, indptr[j + 1] - indptr[j])
    cdef double[::1] factor = np.empty(max(1, largest * largest))
    cdef double[::1] inverse = np.empty(max(1, largest))
    cdef double[::1] beta = np.empty(max(1, largest))
    cdef double[::1] column = np.empty(max(1, p))
    with nogil:
        for m in range(n):
            status = _sweep_one(
                W[m], indptr, indices, off_indptr, off_indices, &factor[0],
                &inverse[0], &beta[0], &column[0]
            )
            if status < 0:
                break
    if status < 0:
        raise np.linalg.LinAlgError(
            f"a neighbourhood block of matrix {m} is not positive definite"
        )


def gather(const double[:, :, ::1] W, const int[::1] first, const int[::1] second):
    """``W[:, first, second]`` as a new C-contiguous ``(n, len(first))`` array.

    Cheaper than numpy's indexing with two index arrays, once per sweep.
    """
    cdef Py_ssize_t n = W.shape[0]
    cdef Py_ssize_t size = first.shape[0]
    cdef Py_ssize_t m, e
    out_array = np.empty((n, size))
    cdef double[:, ::1] out = out_array
    with nogil:
        for m in range(n):
            for e in range(size):
                out[m, e] = W[m, first[e], second[e]]
    return out_array


def scatter(double[:, :, ::1] W, const int[::1] first, const int[::1] second,
            const double[:, ::1] values):
    """Set ``W[:, first, second]`` and ``W[:, second, first]`` to ``values``."""
    cdef Py_ssize_t n = W.shape[0]
    cdef Py_ssize_t size = first.shape[0]
    cdef Py_ssize_t m, e
    if values.shape[0] != n or values.shape[1] != size:
        raise ValueError("values must be (n, len(first))")
    with nogil:
        for m in range(n):
            for e in range(size):
                W[m, first[e], second[e]] = values[m, e]
                W[m, second[e], first[e]] = values[m, e]
