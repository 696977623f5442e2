# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Block coordinate descent for the graphical lasso, compiled.

One component of the screened problem (``S`` at unit scale, ``alpha`` its
penalty), from a positive definite covariance ``W`` with ``W_ii = S_ii`` and the
regression coefficients ``B`` of its precision (``B[j, k] = -K_jk / K_jj``,
``B[j, j] = 0``). Each step of a sweep holds every column but ``j`` of ``W``
fixed and maximises ``log det W`` over column ``j`` within the box
``|W_jk - S_jk| <= alpha`` (Friedman, Hastie & Tibshirani 2008): a lasso in the
coefficients ``beta = B[j]``,

    min  1/2 beta' W_11 beta - s_12' beta + alpha |beta|_1,

solved by coordinate descent, after which column ``j`` of ``W`` becomes
``W_11 beta``. ``W`` stays positive definite (each step raises ``log det W``
from a feasible point), so each lasso is strictly convex.

The work of a step is kept to the support: ``W_11 beta`` is rebuilt from the
non-zero coefficients alone (``W`` changed since the column was last visited),
each coordinate move updates it with one ``daxpy`` of a row of ``W``, and
coordinate descent sweeps the active coefficients until they settle before a
full pass checks the zeros. At the graphical lasso's typical penalties (a few
per cent of the pairs) a sweep of all columns costs a few times ``p^2``
multiply-adds, against ``p^3`` for the inverse a Newton step needs.

The caller (``_glasso_path._descend``) turns ``W`` and ``B`` into a precision
and checks the optimality conditions from a fresh inverse: this kernel is only
a fast way to a point near the minimiser.
"""

from libc.math cimport fabs, isfinite
from libc.string cimport memset
from scipy.linalg.cython_blas cimport daxpy

import numpy as np

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
    double[::1] gram,
    double[::1] small,
    int j,
    double tol,
    int max_passes,
) noexcept nogil:
    """Coordinate descent on column ``j``'s lasso; leaves ``W beta`` in ``product``.

    Passes over the active coefficients ``A`` alone, on their Gram matrix
    ``W[A, A]`` gathered into ``gram`` (a move costs ``|A|``, not ``n``),
    alternate with a full pass over all coefficients, which needs all of
    ``W beta``: computed afresh from the active rows of ``W`` before it (``n
    |A|``, the step's main cost, once per step near the minimiser) and kept
    current through its moves. The lasso is solved when a full pass moves no
    coefficient by more than ``tol`` (in units of the gradient: the move times
    ``W_kk``, read from ``diagonal``, ``S``'s, contiguous: read down ``W``,
    a cache line each, it took a third of the time at p = 1000). Returns the
    number of passes, or -1 when ``max_passes`` did not settle it or the
    coefficients stopped being finite.
    """
    cdef int n = S.shape[0]
    cdef int one = 1
    cdef int passes = 0
    cdef int n_active = 0
    cdef int a, b, k
    cdef double move, largest, w_kk, old, new, total
    for k in range(n):
        if beta[k] != 0.0:
            active[n_active] = k
            n_active += 1
    while passes < max_passes:
        if 0 < n_active and n_active * n_active <= gram.shape[0]:
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
                        daxpy(
                            &n_active, &move, &gram[a * n_active], &one, &small[0], &one
                        )
                        beta[k] = new
                        if fabs(move) * w_kk > largest:
                            largest = fabs(move) * w_kk
                passes += 1
                if not isfinite(largest):
                    return -1
                if largest <= tol:
                    break
        memset(&product[0], 0, n * sizeof(double))
        for a in range(n_active):
            k = active[a]
            if beta[k] != 0.0:
                daxpy(&n, &beta[k], &W[k, 0], &one, &product[0], &one)
        largest = 0.0
        n_active = 0
        for k in range(n):
            if k == j:
                continue
            w_kk = diagonal[k]
            old = beta[k]
            new = _soft(S[j, k] - product[k] + w_kk * old, alpha) / w_kk
            if new != old:
                move = new - old
                daxpy(&n, &move, &W[k, 0], &one, &product[0], &one)
                beta[k] = new
                if fabs(move) * w_kk > largest:
                    largest = fabs(move) * w_kk
            if new != 0.0:
                active[n_active] = k
                n_active += 1
        passes += 1
        if not isfinite(largest):
            return -1
        if largest <= tol:
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
):
    """Sweep the columns of ``W`` until no entry moves by more than ``tol``.

    ``W`` and ``B`` are updated in place. Returns ``(sweeps, change)``: the
    sweeps done and the largest move of an entry of ``W`` in the last one;
    ``sweeps`` is -1 when a lasso did not settle in ``max_passes`` passes (or
    went non-finite), and ``change`` then is ``inf``.
    """
    cdef int n = S.shape[0]
    cdef int j, k, sweep
    cdef int status = 0
    cdef double change = 0.0
    cdef double move
    product_array = np.empty(n)
    active_array = np.empty(n, dtype=np.intc)
    cdef double[::1] product = product_array
    cdef int[::1] active = active_array
    # Room for the Gram matrix of up to _GATHERED active coefficients.
    cdef double[::1] gram = np.empty(min(n, _GATHERED) ** 2)
    cdef double[::1] small = np.empty(2 * n)
    cdef double[::1] diagonal = np.array(np.diag(S))  # a copy: diag is read-only
    with nogil:
        for sweep in range(max_sweeps):
            change = 0.0
            for j in range(n):
                status = _lasso(
                    S, alpha, W, diagonal, B[j], product, active, gram, small, j, tol,
                    max_passes
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
            if change <= tol:
                break
    if status < 0:
        return -1, float("inf")
    return sweep + 1, change
