# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Block coordinate descent for the graphical lasso, compiled.

One component of the screened problem (``S`` scaled so that its largest
variance lies in [1, 2), ``alpha`` its penalty), from a positive definite covariance ``W`` with ``W_ii = S_ii`` and the
regression coefficients ``B`` of its precision (``B[j, k] = -K_jk / K_jj``,
``B[j, j] = 0``). Each step of a sweep holds every column but ``j`` of ``W``
fixed and maximises ``log det W`` over column ``j`` within the box
``|W_jk - S_jk| <= alpha`` (Friedman, Hastie & Tibshirani 2008): a lasso in the
coefficients ``beta = B[j]``,

    min  1/2 beta' W_11 beta - s_12' beta + alpha |beta|_1,

solved by coordinate descent, after which column ``j`` of ``W`` becomes
``W_11 beta``. ``W`` stays positive definite (each step raises ``log det W``
from a feasible point), so each lasso is strictly convex.

The work of a step is kept to the support: coordinate descent sweeps the
active coefficients on their gathered Gram matrix until they settle, then
``W_11 beta`` is rebuilt from the non-zero coefficients alone (``W`` changed
since the column was last visited) to check the zeros; a zero outside the
penalty joins the active coefficients for the next sweeps on the Gram matrix,
rather than being moved against all of ``W_11 beta``. At the graphical lasso's
typical penalties (a few
per cent of the pairs) a sweep of all columns costs a few times ``p^2``
multiply-adds, against ``p^3`` for the inverse a Newton step needs.

The caller (``_glasso_path._descend``) turns ``W`` and ``B`` into a precision
and checks the optimality conditions from a fresh inverse: this kernel is only
a fast way to a point near the minimiser.
"""

from libc.math cimport INFINITY, fabs, isfinite
from libc.string cimport memset

import numpy as np


# y += a x, each entry with one rounding (a fused multiply-add) where the CPU
# has the instruction, as OpenBLAS's daxpy kernels for such CPUs do: the same
# steps to the bit as with daxpy, without its interface, which on the short
# rows of the methods preset's components (about 12 active coefficients at p
# = 50) took longer than the arithmetic (the descent 18 % faster).
cdef extern from *:
    """
    #include <math.h>
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __attribute__((target("fma")))
    static void skggm_axpy_fused(int n, double a, const double *x, double *y)
    {
        for (int i = 0; i < n; i++) y[i] = __builtin_fma(a, x[i], y[i]);
    }
    static int skggm_has_fma(void)
    {
        __builtin_cpu_init();
        return __builtin_cpu_supports("fma");
    }
    #else
    static void skggm_axpy_fused(int n, double a, const double *x, double *y)
    {
        for (int i = 0; i < n; i++) y[i] = fma(a, x[i], y[i]);
    }
    static int skggm_has_fma(void) { return 1; }
    #endif
    static int skggm_fused = 0;
    static void skggm_axpy(int n, double a, const double *x, double *y)
    {
        if (skggm_fused) {
            skggm_axpy_fused(n, a, x, y);
            return;
        }
        for (int i = 0; i < n; i++) y[i] += a * x[i];
    }
    /* y += sum_r a[r] X[rows[r]] over m rows of X (a row every `stride`
       doubles), eight rows to a pass over y: each y[i] takes the m terms in
       order, one rounding each, the same steps to the bit as m calls of
       skggm_axpy, with y read and written once per eight rows, not per row
       (the product W beta of a step, 13 % faster at p = 2000). */
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __attribute__((target("fma")))
    static void skggm_rows_fused(int n, int m, const double *a, const int *rows,
                                 const double *X, long stride, double *y)
    {
        int r = 0;
        for (; r + 8 <= m; r += 8) {
            const double *x0 = X + rows[r] * stride, *x1 = X + rows[r + 1] * stride;
            const double *x2 = X + rows[r + 2] * stride, *x3 = X + rows[r + 3] * stride;
            const double *x4 = X + rows[r + 4] * stride, *x5 = X + rows[r + 5] * stride;
            const double *x6 = X + rows[r + 6] * stride, *x7 = X + rows[r + 7] * stride;
            const double *c = a + r;
            for (int i = 0; i < n; i++) {
                double t = __builtin_fma(c[0], x0[i], y[i]);
                t = __builtin_fma(c[1], x1[i], t);
                t = __builtin_fma(c[2], x2[i], t);
                t = __builtin_fma(c[3], x3[i], t);
                t = __builtin_fma(c[4], x4[i], t);
                t = __builtin_fma(c[5], x5[i], t);
                t = __builtin_fma(c[6], x6[i], t);
                y[i] = __builtin_fma(c[7], x7[i], t);
            }
        }
        for (; r < m; r++) skggm_axpy_fused(n, a[r], X + rows[r] * stride, y);
    }
    #else
    static void skggm_rows_fused(int n, int m, const double *a, const int *rows,
                                 const double *X, long stride, double *y)
    {
        for (int r = 0; r < m; r++) skggm_axpy_fused(n, a[r], X + rows[r] * stride, y);
    }
    #endif
    static void skggm_rows(int n, int m, const double *a, const int *rows,
                           const double *X, long stride, double *y)
    {
        if (skggm_fused) {
            skggm_rows_fused(n, m, a, rows, X, stride, y);
            return;
        }
        for (int r = 0; r < m; r++) skggm_axpy(n, a[r], X + rows[r] * stride, y);
    }
    """
    void _axpy "skggm_axpy"(int n, double a, const double *x, double *y) noexcept nogil
    void _rows "skggm_rows"(
        int n, int m, const double *a, const int *rows, const double *X, long stride,
        double *y
    ) noexcept nogil
    int _has_fma "skggm_has_fma"() noexcept nogil
    int _fused "skggm_fused"

_fused = _has_fma()

# Most active coefficients whose Gram matrix is gathered (_lasso): beyond, a
# pass over them costs more than the full ones it replaces.
_GATHERED = 1024


cdef inline double _soft(double x, double a) noexcept nogil:
    if x > a:
        return x - a
    if x < -a:
        return x + a
    return 0.0


cdef int _lasso(
    const double[:, ::1] S,
    double alpha,
    double[:, ::1] W,
    const double[::1] diagonal,
    double[::1] beta,
    double[::1] product,
    int[::1] active,
    int[::1] rows,
    double[::1] gram,
    double[::1] small,
    int j,
    double tol,
    int max_passes,
) noexcept nogil:
    """Coordinate descent on column ``j``'s lasso; leaves ``W beta`` in ``product``.

    Passes over the active coefficients ``A`` alone, on their Gram matrix
    ``W[A, A]`` gathered into ``gram`` (a move costs ``|A|``, not ``n``), until
    none moves by more than ``tol`` (in units of the gradient: the move times
    ``W_kk``), alternate with a check of the zeros, which needs all of ``W
    beta``: computed afresh from the non-zero rows of ``W`` (``n |A|``, the
    step's main cost, once per step near the minimiser). A zero whose
    gradient exceeds the penalty joins ``A`` unmoved, to be moved by the next
    passes on the Gram matrix: moved at once, each move would cost an update
    of all of ``W beta`` (``n``), and near the minimiser so would a move of an
    active coefficient, which the check therefore leaves to those passes. The
    lasso is solved when the check finds no such zero. Where ``A`` outgrows
    ``gram`` (more than ``_GATHERED`` coefficients), the check is a full pass
    of coordinate descent instead, every move kept in ``W beta``, and the
    lasso is solved when it moves no coefficient by more than ``tol``.
    ``diagonal`` holds ``S``'s diagonal, contiguous (read down ``W``, a cache
    line each, it took a third of the time at p = 1000). Returns the number
    of passes, or -1 when ``max_passes`` did not settle it or the
    coefficients stopped being finite.
    """
    cdef int n = S.shape[0]
    cdef int passes = 0
    cdef int n_active = 0
    cdef int n_rows, entered, a, b, k
    cdef bint gathered
    cdef double move, largest, w_kk, old, new, total
    for k in range(n):
        if beta[k] != 0.0:
            active[n_active] = k
            n_active += 1
    while passes < max_passes:
        # The Gram matrix of A fits; so will that of the zeros joining it.
        gathered = n_active * n_active <= gram.shape[0]
        if 0 < n_active and gathered:
            # small holds W_AA beta_A, then S_jA.
            for a in range(n_active):
                k = active[a]
                total = 0.0
                for b in range(n_active):
                    gram[a * n_active + b] = W[k, active[b]]
                    total = total + W[k, active[b]] * beta[active[b]]
                small[a] = total
                small[n + a] = S[j, k]
            while passes < max_passes:
                largest = 0.0
                for a in range(n_active):
                    k = active[a]
                    w_kk = gram[a * n_active + a]
                    old = beta[k]
                    new = _soft(small[n + a] - small[a] + w_kk * old, alpha) / w_kk
                    if new != old:
                        move = new - old
                        _axpy(n_active, move, &gram[a * n_active], &small[0])
                        beta[k] = new
                        if fabs(move) * w_kk > largest:
                            largest = fabs(move) * w_kk
                passes += 1
                if not isfinite(largest):
                    return -1
                if largest <= tol:
                    break
        # W beta, the non-zero coefficients in A's order (small, free until
        # the next gathering, holds them).
        n_rows = 0
        for a in range(n_active):
            k = active[a]
            if beta[k] != 0.0:
                rows[n_rows] = k
                small[n_rows] = beta[k]
                n_rows += 1
        memset(&product[0], 0, n * sizeof(double))
        _rows(n, n_rows, &small[0], &rows[0], &W[0, 0], W.shape[1], &product[0])
        largest = 0.0
        entered = 0
        n_active = 0
        for k in range(n):
            old = beta[k]
            # A zero coefficient whose gradient is within the penalty stays
            # zero (its soft threshold is 0): most are, and this test spares
            # them the diagonal's read and the division (5-10 % of the
            # kernel's time at p = 2000).
            if old == 0.0 and fabs(S[j, k] - product[k]) <= alpha:
                continue
            if k == j:
                continue
            if gathered and (
                old != 0.0 or (n_active + 1) * (n_active + 1) <= gram.shape[0]
            ):
                active[n_active] = k
                n_active += 1
                entered += old == 0.0
                continue
            w_kk = diagonal[k]
            new = _soft(S[j, k] - product[k] + w_kk * old, alpha) / w_kk
            if new != old:
                move = new - old
                _axpy(n, move, &W[k, 0], &product[0])
                beta[k] = new
                if fabs(move) * w_kk > largest:
                    largest = fabs(move) * w_kk
            if new != 0.0:
                active[n_active] = k
                n_active += 1
        passes += 1
        if not isfinite(largest):
            return -1
        if largest <= tol and entered == 0:
            return passes
    return -1


def block_descent(
    const double[:, ::1] S,
    double alpha,
    double[:, ::1] W,
    double[:, ::1] B,
    double tol,
    int max_sweeps,
    int max_passes=10000,
    double first_tol=0.0,
    double share=0.0,
):
    """Sweep the columns of ``W`` until no entry moves by more than ``tol``.

    ``W`` and ``B`` are updated in place. The lassos of the first sweep stop
    at ``max(tol, first_tol)``, those of each later one at ``max(tol, share *
    change)``, ``change`` the largest move of the sweep before: far from the
    fixed point a lasso solved to ``tol`` is solved again next sweep, against
    a ``W`` that has moved by more than its error (the defaults, 0, solve every
    lasso to ``tol``). The sweeps stop after one whose lassos stopped at
    ``tol`` moves no entry by more than ``tol``. Returns ``(sweeps, change)``:
    the sweeps done and the largest move of an entry of ``W`` in the last one;
    ``sweeps`` is -1 when a lasso did not settle in ``max_passes`` passes (or
    went non-finite), and ``change`` then is ``inf``.
    """
    cdef int n = S.shape[0]
    cdef int j, k, sweep
    cdef int status = 0
    cdef double change = 0.0
    cdef double move
    cdef double inner = first_tol
    product_array = np.empty(n)
    active_array = np.empty(n, dtype=np.intc)
    cdef double[::1] product = product_array
    cdef int[::1] active = active_array
    cdef int[::1] rows = np.empty(n, dtype=np.intc)
    # Room for the Gram matrix of up to _GATHERED active coefficients.
    cdef double[::1] gram = np.empty(min(n, _GATHERED) ** 2)
    cdef double[::1] small = np.empty(2 * n)
    cdef double[::1] diagonal = np.array(np.diag(S))  # a copy: diag is read-only
    with nogil:
        for sweep in range(max_sweeps):
            if inner < tol:
                inner = tol
            change = 0.0
            for j in range(n):
                status = _lasso(
                    S, alpha, W, diagonal, B[j], product, active, rows, gram, small,
                    j, inner, max_passes
                )
                if status < 0:
                    break
                for k in range(n):
                    if k == j:
                        continue
                    move = fabs(product[k] - W[j, k])
                    if move > change:
                        change = move
                    W[j, k] = product[k]
                    W[k, j] = product[k]
            if status < 0:
                break
            if change <= tol and inner <= tol:
                break
            inner = share * change
    if status < 0:
        return -1, float("inf")
    return sweep + 1, change


# The dense p x p steps around the descent, compiled: in numpy each was a
# pass with a fresh p x p temporary (whose pages are faulted in on first
# write), some of them transposed; at p = 2000 they took longer than the
# descent itself (0.3 of 0.55 s outside the kernel, _glasso_path._descend).
# Square tiles of this side keep a transposed read in cache.
cdef Py_ssize_t _TILE = 64


def symmetric_part(const double[:, :] S, double unit, bint check=False):
    """``(S + S^T) / 2`` divided by ``unit``, and whether ``S`` is symmetric.

    Each entry is ``0.5 * (S_ij / unit + S_ji / unit)``, as numpy computes
    ``0.5 * (S / unit + (S / unit).T)``, read in tiles. With ``check``, ``S``
    counts as symmetric where every pair is within ``1e-12 max|S| + 1e-10
    min(|S_ij|, |S_ji|)`` (np.allclose's test both ways round); without it
    the answer is True.
    """
    cdef Py_ssize_t n = S.shape[0], i, j, ib, jb, bi, bj, i_end, j_end
    cdef Py_ssize_t tiles = (n + _TILE - 1) // _TILE
    cdef double a, b, largest = 0.0, slack
    cdef bint symmetric = True
    out_array = np.empty((n, n))
    cdef double[:, ::1] out = out_array
    with nogil:
        if check:
            for i in range(n):
                for j in range(n):
                    if fabs(S[i, j]) > largest:
                        largest = fabs(S[i, j])
        slack = 1e-12 * largest
        for bi in range(tiles):
            ib = bi * _TILE
            i_end = min(ib + _TILE, n)
            for bj in range(bi, tiles):
                jb = bj * _TILE
                j_end = min(jb + _TILE, n)
                for i in range(ib, i_end):
                    for j in range(max(jb, i), j_end):
                        a = S[i, j]
                        b = S[j, i]
                        if check and fabs(a - b) > slack + 1e-10 * min(fabs(a), fabs(b)):
                            symmetric = False
                        a = 0.5 * (a / unit + b / unit)
                        out[i, j] = a
                        out[j, i] = a
    return out_array, symmetric


def exactly_symmetric(const double[:, ::1] S):
    """Whether ``S_ij == S_ji`` for every pair: one read of ``S``, in tiles.

    Such an ``S`` is its own symmetric part at unit scale (``0.5 * (s + s)
    == s``), which then need not be built.
    """
    cdef Py_ssize_t n = S.shape[0], i, j, ib, jb, bi, bj, i_end, j_end
    cdef Py_ssize_t tiles = (n + _TILE - 1) // _TILE
    cdef bint symmetric = True
    with nogil:
        for bi in range(tiles):
            ib = bi * _TILE
            i_end = min(ib + _TILE, n)
            for bj in range(bi, tiles):
                jb = bj * _TILE
                j_end = min(jb + _TILE, n)
                for i in range(ib, i_end):
                    for j in range(max(jb, i + 1), j_end):
                        if S[i, j] != S[j, i]:
                            symmetric = False
                if not symmetric:
                    break
            if not symmetric:
                break
    return symmetric


def mirror_upper(double[:, ::1] A):
    """Copy the upper triangle of ``A`` onto its lower one, in place, in tiles."""
    cdef Py_ssize_t n = A.shape[0], i, j, ib, jb, bi, bj, i_end, j_end
    cdef Py_ssize_t tiles = (n + _TILE - 1) // _TILE
    with nogil:
        for bi in range(tiles):
            ib = bi * _TILE
            i_end = min(ib + _TILE, n)
            for bj in range(bi, tiles):
                jb = bj * _TILE
                j_end = min(jb + _TILE, n)
                for j in range(jb, j_end):
                    for i in range(ib, min(i_end, j)):
                        A[j, i] = A[i, j]


def into_box(const double[:, ::1] S, double[:, ::1] W, double alpha):
    """Move ``W`` into the box ``|W_ij - S_ij| <= alpha``, ``W_ii = S_ii``, in place.

    ``W`` gets ``S``'s diagonal, then, where it is outside the box by a
    largest gap ``g > alpha``, moves along the segment towards ``S`` to
    ``(alpha / g) W + (1 - alpha / g) S`` (positive definite when ``W`` is:
    ``S`` is positive semi-definite).
    """
    cdef Py_ssize_t n = S.shape[0], i, j
    cdef double outside = 0.0, gap, keep, towards
    with nogil:
        for i in range(n):
            W[i, i] = S[i, i]
            for j in range(n):
                gap = fabs(W[i, j] - S[i, j])
                if gap > outside:
                    outside = gap
        if outside > alpha:
            keep = alpha / outside
            towards = 1.0 - keep
            for i in range(n):
                for j in range(n):
                    W[i, j] = keep * W[i, j] + towards * S[i, j]
                W[i, i] = S[i, i]


def diagonal_into_box(const double[:, ::1] S, double alpha):
    """``into_box`` of the diagonal start ``diag(S)``, as a new array, bit for bit.

    ``S``'s diagonal, and off it ``keep * 0 + (1 - keep) S_ij`` with ``keep =
    alpha / g`` where the largest ``|S_ij|`` off the diagonal, ``g``, exceeds
    ``alpha`` (0 where it does not): the start is never built (a p x p matrix
    and a pass over it, 8 ms at p = 2000).
    """
    cdef Py_ssize_t n = S.shape[0], i, j
    cdef double outside = 0.0, keep = 1.0, towards = 0.0
    out_array = np.empty((n, n))
    cdef double[:, ::1] out = out_array
    with nogil:
        for i in range(n):
            for j in range(n):
                if j != i and fabs(S[i, j]) > outside:
                    outside = fabs(S[i, j])
        if outside > alpha:
            keep = alpha / outside
            towards = 1.0 - keep
        for i in range(n):
            for j in range(n):
                # into_box's keep * W_ij + towards * S_ij at W_ij = 0, the
                # same rounding (and signed zeros).
                out[i, j] = keep * 0.0 + towards * S[i, j] if outside > alpha else 0.0
            out[i, i] = S[i, i]
    return out_array


def regressions(const double[:, ::1] K):
    """``B[j, k] = -K_jk / K_jj`` off the diagonal, 0 on it (``K_jj > 0``)."""
    cdef Py_ssize_t n = K.shape[0], j, k
    cdef double diagonal
    out_array = np.zeros((n, n))
    cdef double[:, ::1] out = out_array
    with nogil:
        for j in range(n):
            diagonal = K[j, j]
            for k in range(n):
                if k != j and K[j, k] != 0.0:
                    out[j, k] = -K[j, k] / diagonal
    return out_array


def precision_from(
    const double[:, ::1] W,
    B_array,
    const double[::1] diagonal,
    bint overwrite=False,
):
    """The precision read off the descent's ``W`` and regressions ``B``, or None.

    ``K_jj = 1 / (S_jj - W_j. B_j.)`` (``diagonal`` holds ``S_jj``) and
    ``K_kj = -B_jk K_jj``, symmetrised as ``(K + K^T) / 2``; ``B`` is read
    once, ``W`` only where ``B`` is non-zero. None where a ``K_jj`` would not
    be positive (or finite). With ``overwrite``, the precision is built in
    ``B``'s place, the same to the bit, and returned as ``B`` itself (a fresh
    p x p array, whose pages are faulted in as it is written, took 15-45 ms
    at p = 2000); ``B`` is then spoilt, whether or not the precision exists.
    """
    cdef Py_ssize_t n = W.shape[0], j, k, m, count, i, ib, jb, bi, bj, i_end, j_end
    cdef Py_ssize_t tiles = (n + _TILE - 1) // _TILE
    cdef double total, schur, k_jj, half
    cdef double[:, ::1] out
    cdef double[:, ::1] B = B_array
    support_array = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] support = support_array
    inverse_array = np.empty(n)
    cdef double[::1] inverse = inverse_array
    cdef bint positive = True
    if overwrite:
        with nogil:
            # Each row scaled to its halves in place (K_jj kept aside), then
            # the halves of each pair added: 0 + a + b as below, in the
            # order of the rows (a + b == b + a, 0 + a == a).
            for j in range(n):
                total = 0.0
                for k in range(n):
                    if k != j and B[j, k] != 0.0:
                        total = total + W[j, k] * B[j, k]
                schur = diagonal[j] - total
                if not (schur > 0.0 and isfinite(schur)):
                    positive = False
                    break
                inverse[j] = 1.0 / schur
                for k in range(n):
                    if k != j and B[j, k] != 0.0:
                        B[j, k] = 0.5 * (B[j, k] / -schur)
            if positive:
                for bi in range(tiles):
                    ib = bi * _TILE
                    i_end = min(ib + _TILE, n)
                    for bj in range(bi, tiles):
                        jb = bj * _TILE
                        j_end = min(jb + _TILE, n)
                        for i in range(ib, i_end):
                            for j in range(max(jb, i + 1), j_end):
                                half = B[i, j] + B[j, i]
                                B[i, j] = half
                                B[j, i] = half
                for j in range(n):
                    B[j, j] = inverse[j]
        if not positive:
            return None
        return B_array
    out_array = np.zeros((n, n))
    out = out_array
    with nogil:
        for j in range(n):
            count = 0
            total = 0.0
            for k in range(n):
                if k != j and B[j, k] != 0.0:
                    total = total + W[j, k] * B[j, k]
                    support[count] = k
                    count += 1
            schur = diagonal[j] - total
            if not (schur > 0.0 and isfinite(schur)):
                positive = False
                break
            k_jj = 1.0 / schur
            out[j, j] += k_jj
            for m in range(count):
                k = support[m]
                # 0.5 * (a + b) == 0.5 * a + 0.5 * b: the halves are exact.
                half = 0.5 * (B[j, k] / -schur)
                out[j, k] += half
                out[k, j] += half
    if not positive:
        return None
    return out_array


def kkt_violation(
    const double[:, ::1] W, const double[:, ::1] S, const double[:, ::1] K, double alpha
):
    """The largest violation of the optimality conditions, given ``W = K^-1``.

    ``|W_ij - S_ij - alpha sign(K_ij)|`` where ``K_ij != 0`` (no ``alpha`` on
    the diagonal), ``|W_ij - S_ij| - alpha`` where ``K_ij = 0``; at least 0,
    ``inf`` if an entry is not finite. One pass over the three matrices.
    """
    cdef Py_ssize_t n = W.shape[0], i, j
    cdef double worst = 0.0, gap, entry, violation
    with nogil:
        for i in range(n):
            for j in range(n):
                gap = W[i, j] - S[i, j]
                entry = K[i, j]
                if i == j and entry != 0.0:
                    violation = fabs(gap)
                elif entry > 0.0:
                    violation = fabs(gap - alpha)
                elif entry < 0.0:
                    violation = fabs(gap + alpha)
                else:
                    violation = fabs(gap) - alpha
                if violation > worst:
                    worst = violation
                elif violation != violation:  # NaN
                    worst = INFINITY
                    break
            if worst == INFINITY:
                break
    return worst


def screened_components(const double[:, ::1] S, double alpha):
    """The connected components of the graph ``|S_ij| > alpha`` (``i != j``).

    Returns the label of each variable, the components numbered in the order
    of their smallest variable. One pass over ``S``, each row read once, by a
    depth-first search: 8 microseconds at p = 50, where scipy's
    ``connected_components`` on the graph in CSR form took about 0.1 ms
    (mostly its input checks), a sixth of a penalty's time on the methods
    preset's StARS paths once the descent was fast.
    """
    cdef Py_ssize_t n = S.shape[0], root, i, j, top
    cdef Py_ssize_t label = 0
    labels_array = np.full(n, -1, dtype=np.intp)
    cdef Py_ssize_t[::1] labels = labels_array
    cdef Py_ssize_t[::1] stack = np.empty(n, dtype=np.intp)
    with nogil:
        for root in range(n):
            if labels[root] >= 0:
                continue
            labels[root] = label
            stack[0] = root
            top = 1
            while top > 0:
                top -= 1
                i = stack[top]
                for j in range(n):
                    if labels[j] < 0 and fabs(S[i, j]) > alpha:
                        labels[j] = label
                        stack[top] = j
                        top += 1
            label += 1
    return labels_array
