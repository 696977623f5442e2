# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""CLIME's parametric dual simplex, compiled: one column's path after the other.

The method is described in ``_clime_path`` (Vanderbei's parametric simplex, as
R's fastclime follows it, Pang, Liu & Vanderbei 2014; written from that
description). Column ``j``'s state is the basis (``p`` of the ``3 p`` variables
``b+``, ``b-``, ``r`` of ``S b+ - S b- - r = e_j``), its inverse ``B^-1`` (C
order), the reduced costs and ``tau[i]``: ``+1`` / ``-1`` when ``r_i`` is
nonbasic at ``+alpha`` / ``-alpha``, 0 when it is basic. Each round:

- the event: the largest penalty below the current one where a basic value
  ``beta + alpha gamma`` (``beta = B^-1 e_j``, ``gamma = B^-1 tau``) reaches a
  bound (``b`` at 0, ``r`` at ``+-alpha``); of equal ones the first in the order
  (the ``b`` crossings, then ``r`` at its upper bound, then at its lower one,
  each by row);
- the requested penalties down to it are read off the basis and certified
  (primal and dual feasible to ``_FEASIBILITY_TOL``, the reduced costs
  recomputed from ``B^-1``); one that fails is read again from an inverse
  recomputed from the basis (LAPACK's ``dgesv``), and the path ends if it fails
  again;
- a dual simplex pivot: the basic variable of the event's row leaves, the
  entering one is the first of least ratio ``|reduced| / |pivot row|`` among
  those whose pivot element exceeds ``_PIVOT_TOL`` with the sign that keeps the
  reduced costs of the right signs (none: the path ends); ``B^-1`` by a rank-one
  update, the reduced costs by the pivot row.

A path also ends after ``_MAX_PIVOTS_PER_FEATURE * p`` pivots (plus one round
per requested penalty). The penalties it did not reach stay unread (``solved``
false) and the caller solves them by HiGHS.

The numpy version this replaces followed all columns in lockstep, some 25 array
operations per pivot: at p = 50 their call overhead, not the ``p^2``
multiply-adds, was the time. Here a pivot is three matrix-vector products
(BLAS ``dgemv`` through ``scipy.linalg.cython_blas``) and the rank-one update,
written out as numpy's subtraction of the outer product (a multiply, then a
subtraction: setup.py compiles it without fused multiply-adds). The roundings
are those of the numpy version up to the order of BLAS's sums, so the pivots
are the same (on ``tests/benchmarks/bench_clime_path.py``'s 120 paths the
solutions were the same to the bit).
"""

from libc.math cimport INFINITY, NAN, fabs, isnan
from libc.string cimport memset
from scipy.linalg.cython_blas cimport dgemv
from scipy.linalg.cython_lapack cimport dgesv

import numpy as np

# A basic value within this (relative) of its bound has reached it.
cdef double _BOUND_TOL = 1e-11
# Pivot elements smaller than this are not used (numerically unstable).
cdef double _PIVOT_TOL = 1e-9
cdef double _FEASIBILITY_TOL = 1e-9
# Pivots per column before the path is declared stuck (cycling).
cdef int _MAX_PIVOTS_PER_FEATURE = 20


cdef struct _Column:
    int p
    int col
    const double* S          # p x p, symmetric
    double* inverse          # B^-1, p x p, C order
    double* reduced          # 3 p
    int* basis               # p: the variable basic in each row
    unsigned char* is_basic  # 3 p
    double* tau              # p
    double alpha
    double* work             # p
    double* other            # p
    double* row_copy         # p
    double* full             # 3 p
    double* pivot_row        # 3 p
    double* lu               # p x p, Fortran order
    double* solution         # p x p, Fortran order
    int* ipiv                # p


cdef inline void _matvec(_Column* c, const double* M, const double* x,
                         double* y) noexcept nogil:
    """``y = M x`` for a C-order ``p x p`` matrix ``M`` (BLAS's transposed
    product on its Fortran view, as numpy's ``matmul`` calls it)."""
    cdef int p = c.p
    cdef int one = 1
    cdef double unit = 1.0
    cdef double zero = 0.0
    cdef char transpose = b"T"
    dgemv(&transpose, &p, &p, &unit, <double*> M, &p, <double*> x, &one, &zero,
          y, &one)


cdef inline void _vecmat(_Column* c, const double* x, const double* M,
                         double* y) noexcept nogil:
    """``y = x' M`` for a C-order ``p x p`` matrix ``M``."""
    cdef int p = c.p
    cdef int one = 1
    cdef double unit = 1.0
    cdef double zero = 0.0
    cdef char plain = b"N"
    dgemv(&plain, &p, &p, &unit, <double*> M, &p, <double*> x, &one, &zero, y,
          &one)


cdef inline void _subtract_multiple(double* target, double factor,
                                    const double* row, int n) noexcept nogil:
    """``target -= factor * row``, a multiply then a subtraction as numpy's
    (a helper of its own, so that the compiler can vectorise it)."""
    cdef int j
    for j in range(n):
        target[j] -= factor * row[j]


cdef void _start(_Column* c) noexcept nogil:
    """Every ``r`` basic (``B = -I``): ``r = -e_j``, optimal for ``alpha >= 1``."""
    cdef int p = c.p
    cdef int i
    memset(c.inverse, 0, p * p * sizeof(double))
    for i in range(p):
        c.inverse[i * p + i] = -1.0
        c.basis[i] = 2 * p + i
        c.tau[i] = 0.0
    for i in range(3 * p):
        c.reduced[i] = 1.0 if i < 2 * p else 0.0
        c.is_basic[i] = i >= 2 * p
    c.alpha = 1.0


cdef double _event(_Column* c, int* row, bint* to_upper) noexcept nogil:
    """The largest penalty below the current one where a basic value reaches a
    bound (NaN when one of them is NaN: the path ends), its row, and whether
    the bound is ``r``'s upper one."""
    cdef int p = c.p
    cdef int i, position
    cdef int best_position = 0
    cdef double best = -INFINITY
    cdef double rhs, gamma, value
    _matvec(c, c.inverse, c.tau, c.work)
    for i in range(p):
        rhs = c.inverse[i * p + c.col]
        gamma = c.work[i]
        if c.basis[i] < 2 * p:
            if gamma > 0:
                value = -rhs / gamma
                position = i
                if isnan(value):
                    return NAN
                if value > best or (value == best and position < best_position):
                    best, best_position = value, position
        else:
            if 1 - gamma > 0:
                value = rhs / (1 - gamma)
                position = p + i
                if isnan(value):
                    return NAN
                if value > best or (value == best and position < best_position):
                    best, best_position = value, position
            if 1 + gamma > 0:
                value = -rhs / (1 + gamma)
                position = 2 * p + i
                if isnan(value):
                    return NAN
                if value > best or (value == best and position < best_position):
                    best, best_position = value, position
    row[0] = best_position % p
    to_upper[0] = best_position // p == 1
    return best if best < c.alpha else c.alpha


cdef bint _read(_Column* c, double alpha, double* b) noexcept nogil:
    """``b`` at penalty ``alpha`` off the current basis, the reduced costs
    recomputed from ``B^-1``; whether it is certified optimal."""
    cdef int p = c.p
    cdef int i
    cdef bint valid = True
    cdef double wrong
    for i in range(p):
        c.other[i] = alpha * c.tau[i]
    c.other[c.col] = 1.0 + alpha * c.tau[c.col]
    _matvec(c, c.inverse, c.other, c.work)
    memset(c.full, 0, 3 * p * sizeof(double))
    for i in range(p):
        c.full[c.basis[i]] = c.work[i]
    for i in range(2 * p):
        if not c.full[i] >= -_FEASIBILITY_TOL:
            valid = False
    for i in range(p):
        b[i] = c.full[i] - c.full[p + i]
    # |S b - e_j| <= alpha (S symmetric: S b = b' S).
    _matvec(c, c.S, b, c.work)
    c.work[c.col] -= 1.0
    for i in range(p):
        if not fabs(c.work[i]) <= alpha + _FEASIBILITY_TOL:
            valid = False
    # y = c_B' B^-1; reduced costs b+: 1 - y'S, b-: 1 + y'S, r: y.
    for i in range(p):
        c.other[i] = 1.0 if c.basis[i] < 2 * p else 0.0
    _vecmat(c, c.other, c.inverse, c.row_copy)
    _matvec(c, c.S, c.row_copy, c.work)
    for i in range(p):
        c.reduced[i] = 1.0 - c.work[i]
        c.reduced[p + i] = 1.0 + c.work[i]
        c.reduced[2 * p + i] = c.row_copy[i]
    for i in range(p):
        c.reduced[c.basis[i]] = 0.0
    for i in range(3 * p):
        if i >= 2 * p and c.tau[i - 2 * p] > 0:
            wrong = c.reduced[i]
        else:
            wrong = -c.reduced[i]
        if not wrong <= _FEASIBILITY_TOL:
            valid = False
    return valid


cdef bint _refresh(_Column* c) noexcept nogil:
    """``B^-1`` recomputed from the basis ``[S, -S, -I]`` (LU with partial
    pivoting, as numpy's ``inv``); False where ``B`` is singular."""
    cdef int p = c.p
    cdef int i, r, variable
    cdef int info = 0
    for i in range(p):
        variable = c.basis[i]
        for r in range(p):
            if variable < p:
                c.lu[i * p + r] = c.S[r * p + variable]
            elif variable < 2 * p:
                c.lu[i * p + r] = -c.S[r * p + variable - p]
            else:
                c.lu[i * p + r] = -1.0 if r == variable - 2 * p else 0.0
    memset(c.solution, 0, p * p * sizeof(double))
    for i in range(p):
        c.solution[i * p + i] = 1.0
    dgesv(&p, &p, c.lu, &p, c.ipiv, c.solution, &p, &info)
    if info != 0:
        return False
    for r in range(p):
        for i in range(p):
            c.inverse[r * p + i] = c.solution[i * p + r]
    return True


cdef bint _pivot(_Column* c, int row, bint to_upper) noexcept nogil:
    """One dual simplex pivot: the basic variable of ``row`` leaves to its lower
    bound (``r``'s upper one when ``to_upper``). True when no variable may enter
    (nothing changed)."""
    cdef int p = c.p
    cdef int i, j, variable, leaving
    cdef int entering = -1
    cdef double best = INFINITY
    cdef double element, ratio, pivot, step
    cdef double* inverse_row = c.inverse + row * p
    cdef double* pivot_row = c.pivot_row
    cdef double* column = c.work
    for j in range(p):
        c.row_copy[j] = inverse_row[j]
    # The pivot row B^-1[row] [S, -S, -I], then the ratio test among the
    # nonbasic variables whose element has the sign that keeps the reduced
    # costs' signs: positive when the leaving variable goes up, with the sign
    # turned for r at its upper bound.
    _matvec(c, c.S, c.row_copy, pivot_row)
    for j in range(p):
        pivot_row[p + j] = -pivot_row[j]
        pivot_row[2 * p + j] = -c.row_copy[j]
    for variable in range(3 * p):
        if c.is_basic[variable]:
            continue
        element = pivot_row[variable] if to_upper else -pivot_row[variable]
        if variable >= 2 * p and c.tau[variable - 2 * p] > 0:
            element = -element
        if not element > _PIVOT_TOL:
            continue
        ratio = fabs(c.reduced[variable]) / fabs(element)
        if ratio < best:
            best, entering = ratio, variable
        elif isnan(ratio):
            return True
    if entering < 0:
        return True
    leaving = c.basis[row]
    if leaving >= 2 * p:
        c.tau[leaving - 2 * p] = 1.0 if to_upper else -1.0
    if entering >= 2 * p:
        c.tau[entering - 2 * p] = 0.0
    c.basis[row] = entering
    c.is_basic[leaving] = False
    c.is_basic[entering] = True
    # The entering column of the tableau, B^-1 A[:, entering].
    variable = entering % p
    if entering < 2 * p:
        _matvec(c, c.inverse, c.S + variable * p, column)
        if entering >= p:
            for i in range(p):
                column[i] = -column[i]
    else:
        for i in range(p):
            column[i] = -c.inverse[i * p + variable]
    pivot = column[row]
    for j in range(p):
        inverse_row[j] = c.row_copy[j] / pivot
    for i in range(p):
        if i != row:
            _subtract_multiple(c.inverse + i * p, column[i], inverse_row, p)
    step = c.reduced[entering] / pivot
    _subtract_multiple(c.reduced, step, pivot_row, 3 * p)
    return False


cdef void _path(_Column* c, const double[::1] grid, double[:, :, ::1] out,
                unsigned char[:, ::1] solved, double* b) noexcept nogil:
    """Column ``c.col``'s path from ``alpha = 1`` down, its solutions at
    ``grid`` written into ``out[k, :, col]`` (``solved[k, col]`` set)."""
    cdef int p = c.p
    cdef Py_ssize_t n_grid = grid.shape[0]
    cdef Py_ssize_t next = 0
    cdef Py_ssize_t rounds
    cdef int i, row = 0
    cdef bint to_upper = False
    cdef double event, threshold
    _start(c)
    for rounds in range(_MAX_PIVOTS_PER_FEATURE * p + n_grid):
        event = _event(c, &row, &to_upper)
        if isnan(event):
            return
        # Every penalty down to the event is read off the current basis.
        threshold = event * (1.0 - _BOUND_TOL)
        while next < n_grid and grid[next] >= threshold:
            if not _read(c, grid[next], b):
                # Again from an inverse recomputed from the basis.
                if not _refresh(c) or not _read(c, grid[next], b):
                    return
            for i in range(p):
                out[next, i, c.col] = b[i]
            solved[next, c.col] = 1
            next += 1
        if next == n_grid:
            return
        c.alpha = event
        if _pivot(c, row, to_upper):
            return


def simplex_paths(
    const double[:, ::1] S,
    const double[::1] grid,
    double[:, :, ::1] out,
    unsigned char[:, ::1] solved,
):
    """Every column's CLIME program of ``S`` along the penalties ``grid``.

    Parameters
    ----------
    S : symmetric positive definite matrix, shape (p, p), C order.
    grid : decreasing penalties, all below 1.
    out : out, shape (len(grid), p, p), zeros: ``out[k][:, j]`` is column
        ``j``'s solution at ``grid[k]`` where ``solved[k, j]``.
    solved : out, shape (len(grid), p), zeros: set where a solution was read
        (the others are where the column's path broke down).
    """
    cdef int p = S.shape[0]
    cdef int col
    cdef _Column c
    cdef double[:, ::1] inverse = np.empty((p, p))
    cdef double[::1] reduced = np.empty(3 * p)
    cdef int[::1] basis = np.empty(p, dtype=np.intc)
    cdef unsigned char[::1] is_basic = np.empty(3 * p, dtype=np.uint8)
    cdef double[::1] tau = np.empty(p)
    cdef double[:, ::1] scratch = np.empty((5, p))
    cdef double[::1] full = np.empty(3 * p)
    cdef double[::1] pivot_row = np.empty(3 * p)
    cdef double[:, ::1] lu = np.empty((p, p))
    cdef double[:, ::1] solution = np.empty((p, p))
    cdef int[::1] ipiv = np.empty(p, dtype=np.intc)
    if p == 0:
        return
    c.p = p
    c.S = &S[0, 0]
    c.inverse = &inverse[0, 0]
    c.reduced = &reduced[0]
    c.basis = &basis[0]
    c.is_basic = &is_basic[0]
    c.tau = &tau[0]
    c.work = &scratch[0, 0]
    c.other = &scratch[1, 0]
    c.row_copy = &scratch[2, 0]
    c.full = &full[0]
    c.pivot_row = &pivot_row[0]
    c.lu = &lu[0, 0]
    c.solution = &solution[0, 0]
    c.ipiv = &ipiv[0]
    with nogil:
        for col in range(p):
            c.col = col
            _path(&c, grid, out, solved, &scratch[3, 0])
