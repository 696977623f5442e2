# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The node-wise lasso's paths, compiled: the homotopy's loop and the CV errors.

``LassoHomotopy``: the lasso homotopy's knot-to-knot loop, on every fold of a
node at once. ``held_out_errors``: the mean squared errors of a chunk of any
solver's paths on every fold's held-out rows.

``_FoldHomotopy`` in ``_nodewise_lasso.py`` sets up the problems (the weighted
Gram matrices ``G`` scaled by the number of samples, ``q = X'y`` likewise, the
predictors' correlation matrices and inverse norms); this module follows the
piecewise-linear paths between the knots, where the numpy version spent about
30 small array operations per knot, most of the adaptive lasso's time, and
checks the solutions' optimality conditions.

Both perform the numpy version's arithmetic operation for operation: the
matrix products are the BLAS calls that numpy's ``matmul`` makes for those
shapes and memory layouts (``dgemm`` for a matrix times a matrix, e.g. the two
columns ``[q, s]`` or ``[u, v]``, ``dgemv`` for a matrix times a vector,
``ddot`` for two vectors), through ``scipy.linalg.cython_blas``, and the sums
are numpy's (pairwise along a contiguous axis, else in order), so that the
paths and errors are the same to the last bit where numpy's and scipy's BLAS
compute alike (the same OpenBLAS kernels). Folds that do not step at a knot
are left as they are, where numpy recomputed them to the same values.
"""

from libc.math cimport NAN, fabs, isnan
from scipy.linalg.cython_blas cimport ddot, dgemm, dgemv

import numpy as np

# What ``LassoHomotopy.path`` returns.
cpdef enum Outcome:
    OK = 0
    COLLINEAR = 1
    TOO_MANY_KNOTS = 2
    NOT_OPTIMAL = 3

# numpy's blocks of pairwise summation (``PW_BLOCKSIZE``).
cdef Py_ssize_t _PAIRWISE_BLOCK = 128


cdef double _pairwise_sum(const double* a, Py_ssize_t n) noexcept nogil:
    """``numpy.add.reduce`` of a contiguous vector, to the same bits: eight
    accumulators over blocks of at most 128 values, halves above that."""
    cdef Py_ssize_t i, k, half
    cdef double r[8]
    cdef double result
    if n < 8:
        result = -0.0
        for i in range(n):
            result += a[i]
        return result
    if n <= _PAIRWISE_BLOCK:
        for k in range(8):
            r[k] = a[k]
        i = 8
        while i < n - n % 8:
            for k in range(8):
                r[k] += a[i + k]
            i += 8
        result = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            result += a[i]
            i += 1
        return result
    half = n // 2
    half -= half % 8
    return _pairwise_sum(a, half) + _pairwise_sum(a + half, n - half)


cdef inline double _sign(double x) noexcept nogil:
    """``numpy.sign``: 0 for a zero of either sign, NaN for NaN."""
    if x > 0:
        return 1.0
    if x < 0:
        return -1.0
    if x == 0:
        return 0.0
    return x


cdef class LassoHomotopy:
    """The lasso paths of one node on ``n_folds`` folds, from the empty model down.

    Fold ``f`` minimises ``w'Gw / 2 - q'w + alpha |w|_1``. Between two knots the
    active set ``A`` and the signs ``s`` of its coefficients are fixed and
    ``w_A = u - alpha v``; the correlations of the others with the residual are
    ``a + alpha b``. ``inverse`` holds ``inv(R_AA)``, ``R`` the correlation matrix
    of the predictors, zero outside ``A``; ``inv(G_AA)`` is ``D^-1 inv(R_AA)
    D^-1`` with ``D^-1`` the inverse norms.

    Parameters
    ----------
    gram : ndarray of shape (n_folds, n_predictors, n_predictors), C order
        ``G`` of every fold.
    correlation : ndarray of the same shape, C order
        ``R`` of every fold.
    xy : ndarray of shape (n_folds, n_predictors), C order
        ``q`` of every fold.
    inverse_norms : ndarray of shape (n_folds, n_predictors), C order
        The inverse norms of the weighted predictors (0 for those without
        variance or weight, which never enter).
    max_knots : int
        Knots at which some fold steps, over all calls to ``path``, beyond
        which the path is taken to cycle.
    min_pivot : float
        An entering predictor whose residual variance given the active ones,
        relative to its own, is below this is collinear with them.
    zero_rtol : float
        A coefficient ``w_j`` with ``|w_j| G_jj`` at most ``zero_rtol`` times
        the penalty is rounding residue of a knot, set to exactly 0.
    kkt_rtol : float
        Every solution must satisfy the lasso's optimality conditions to
        ``kkt_rtol`` times the penalty.
    """

    cdef const double[:, :, ::1] gram
    cdef const double[:, :, ::1] correlation
    cdef const double[:, ::1] xy
    cdef const double[:, ::1] inverse_norms
    cdef double min_pivot, zero_rtol, kkt_rtol
    cdef Py_ssize_t knots_left
    cdef unsigned char[:, ::1] active
    cdef double[:, ::1] signs
    cdef double[:, :, ::1] inverse
    # The current segment of each fold: u and v side by side, a, its top alpha,
    # and the knot that ends it.
    cdef double[:, :, ::1] uv
    cdef double[:, ::1] a
    cdef double[::1] alpha
    cdef double[::1] next_alpha
    cdef Py_ssize_t[::1] next_predictor
    # Work space.
    cdef double[:, ::1] pair
    cdef double[::1] column
    cdef double[::1] projected
    cdef double[::1] direction

    def __init__(
        self,
        const double[:, :, ::1] gram,
        const double[:, :, ::1] correlation,
        const double[:, ::1] xy,
        const double[:, ::1] inverse_norms,
        Py_ssize_t max_knots,
        double min_pivot,
        double zero_rtol,
        double kkt_rtol,
    ):
        cdef Py_ssize_t n_folds = gram.shape[0], n = gram.shape[1], f
        self.gram, self.correlation = gram, correlation
        self.xy, self.inverse_norms = xy, inverse_norms
        self.knots_left, self.min_pivot = max_knots, min_pivot
        self.zero_rtol, self.kkt_rtol = zero_rtol, kkt_rtol
        self.active = np.zeros((n_folds, n), dtype=np.uint8)
        self.signs = np.zeros((n_folds, n))
        self.inverse = np.zeros((n_folds, n, n))
        self.uv = np.empty((n_folds, n, 2))
        self.a = np.empty((n_folds, n))
        self.alpha = np.full(n_folds, np.inf)
        self.next_alpha = np.empty(n_folds)
        self.next_predictor = np.empty(n_folds, dtype=np.intp)
        self.pair = np.empty((n, 2))
        self.column = np.empty(n)
        self.projected = np.empty(n)
        self.direction = np.empty(n)
        for f in range(n_folds):
            self._solve_segment(f)

    cdef void _solve_segment(self, Py_ssize_t f) noexcept nogil:
        """Segment ``u - alpha v`` of fold ``f`` and the knot that ends it."""
        cdef int n = self.gram.shape[1], two = 2
        cdef double one = 1.0, zero = 0.0
        cdef char no = b"N"
        cdef Py_ssize_t i, best
        cdef double numerator, denominator, knot, largest
        # [q, s] D^-1 ...
        for i in range(n):
            self.pair[i, 0] = self.xy[f, i] * self.inverse_norms[f, i]
            self.pair[i, 1] = self.signs[f, i] * self.inverse_norms[f, i]
        # ... times inv(R_AA) (the C-order product numpy makes: BLAS's
        # column-major product of the transposes), then D^-1 again.
        dgemm(&no, &no, &two, &n, &n, &one, &self.pair[0, 0], &two,
              &self.inverse[f, 0, 0], &n, &zero, &self.uv[f, 0, 0], &two)
        for i in range(n):
            self.uv[f, i, 0] *= self.inverse_norms[f, i]
            self.uv[f, i, 1] *= self.inverse_norms[f, i]
        # G [u, v]: a = q - G u, b = G v.
        dgemm(&no, &no, &two, &n, &n, &one, &self.uv[f, 0, 0], &two,
              <double*> &self.gram[f, 0, 0], &n, &zero, &self.pair[0, 0], &two)
        # Knot of each predictor: numerator / denominator when both are
        # positive. Inactive j: c_j reaches sigma * alpha, sigma = sign(a_j), at
        # |a_j| / (1 - sigma b_j). Active j: w_j reaches 0 at u_j / v_j, if it
        # shrinks as alpha decreases (-s_j u_j > 0 and -s_j v_j > 0). These
        # conditions also discard the event that created the segment. The
        # largest knot below the segment's top ends it (the first on ties; a
        # NaN wins, as in numpy's argmax).
        best, largest = 0, 0.0
        for i in range(n):
            self.a[f, i] = self.xy[f, i] - self.pair[i, 0]
            if self.active[f, i]:
                numerator = -self.signs[f, i] * self.uv[f, i, 0]
                denominator = -self.signs[f, i] * self.uv[f, i, 1]
            else:
                numerator = fabs(self.a[f, i])
                denominator = 1.0 - _sign(self.a[f, i]) * self.pair[i, 1]
            knot = numerator / denominator if numerator > 0 and denominator > 0 else 0.0
            if knot > self.alpha[f]:
                knot = 0.0
            if i == 0:
                largest = knot
            elif not isnan(largest) and not knot <= largest:
                best, largest = i, knot
        self.next_predictor[f] = best
        self.next_alpha[f] = largest

    cdef bint _update_inverse(self, Py_ssize_t f, bint entering) noexcept nogil:
        """Add (``entering``) or remove fold ``f``'s next predictor ``j`` in ``inverse``.

        Bordering, with ``H = inv(R_AA)``: adding ``j`` adds ``x x' / d`` with
        ``x = H R_:j - e_j`` and ``d = 1 - R_j: H R_:j``; removing ``j``
        subtracts ``H_:j H_j: / H_jj``. False where ``j`` is collinear with the
        active predictors (``d`` below ``min_pivot``), ``inverse`` unchanged.
        """
        cdef int n = self.gram.shape[1], unit = 1
        cdef double one = 1.0, zero = 0.0
        cdef char transpose = b"T"
        cdef Py_ssize_t j = self.next_predictor[f], r, c
        cdef double pivot, factor, scaled
        if entering:
            for r in range(n):
                self.column[r] = self.correlation[f, r, j]
            # H R_:j, as numpy's matrix-vector product (BLAS's transposed one).
            dgemv(&transpose, &n, &n, &one, &self.inverse[f, 0, 0], &n,
                  &self.column[0], &unit, &zero, &self.projected[0], &unit)
            for r in range(n):
                self.direction[r] = self.projected[r]
                self.column[r] *= self.projected[r]
            self.direction[j] -= 1.0
            pivot = 1.0 - (0.0 + _pairwise_sum(&self.column[0], n))
            if pivot < self.min_pivot:
                return False
        else:
            for r in range(n):
                self.direction[r] = self.inverse[f, r, j]
            pivot = -self.inverse[f, j, j]
        factor = 1.0 / pivot
        for r in range(n):
            scaled = factor * self.direction[r]
            for c in range(n):
                self.inverse[f, r, c] += scaled * self.direction[c]
        if not entering:
            # Exact zeros outside the active set: a removal leaves rounding residue.
            for r in range(n):
                self.inverse[f, j, r] = 0.0
                self.inverse[f, r, j] = 0.0
        return True

    def path(self, const double[::1] alphas, double[:, :, ::1] coefs):
        """Write the coefficients of every fold at ``alphas`` into ``coefs``.

        ``alphas`` (decreasing) continue the sequence of the previous call;
        ``coefs``, shape (n_folds, n_predictors, n_alphas), must hold zeros.
        Returns ``OK``, or ``COLLINEAR`` or ``TOO_MANY_KNOTS`` where the path
        cannot be followed, ``NOT_OPTIMAL`` where a solution fails the
        optimality conditions (the object is then of no further use).
        """
        cdef Outcome outcome
        cdef double[:, ::1] product = np.empty((self.gram.shape[1], alphas.shape[0]))
        with nogil:
            outcome = self._path(alphas, coefs)
            if outcome == OK and not self._optimal(alphas, coefs, product):
                outcome = NOT_OPTIMAL
        return outcome

    cdef Outcome _path(
        self, const double[::1] alphas, double[:, :, ::1] coefs
    ) noexcept nogil:
        cdef Py_ssize_t n_folds = self.gram.shape[0], n = self.gram.shape[1]
        cdef Py_ssize_t m = alphas.shape[0], f, c, i, j
        cdef double last = alphas[m - 1]
        cdef bint stepping, entering
        while True:
            # The penalties on each fold's current segment.
            for f in range(n_folds):
                for c in range(m):
                    if alphas[c] <= self.alpha[f] and alphas[c] >= self.next_alpha[f]:
                        for i in range(n):
                            coefs[f, i, c] = (
                                self.uv[f, i, 0] - alphas[c] * self.uv[f, i, 1]
                            )
            stepping = False
            for f in range(n_folds):
                stepping = stepping or self.next_alpha[f] > last
            if not stepping:
                return OK
            self.knots_left -= 1
            if self.knots_left < 0:
                return TOO_MANY_KNOTS
            for f in range(n_folds):
                if not self.next_alpha[f] > last:
                    continue
                j = self.next_predictor[f]
                entering = not self.active[f, j]
                if not self._update_inverse(f, entering):
                    return COLLINEAR
                self.active[f, j] = entering
                self.signs[f, j] = (1.0 if entering else 0.0) * _sign(self.a[f, j])
                self.alpha[f] = self.next_alpha[f]
                self._solve_segment(f)

    cdef bint _optimal(
        self, const double[::1] alphas, double[:, :, ::1] coefs, double[:, ::1] product
    ) noexcept nogil:
        """Zero the rounding residue in ``coefs``; whether they are optimal.

        The correlations with the residual, ``q - G w``, equal ``alpha sign(w_j)``
        where ``w_j`` is non-zero and are at most ``alpha`` in size elsewhere.
        """
        cdef int n = self.gram.shape[1], m = alphas.shape[0], unit = 1
        cdef double one = 1.0, zero = 0.0
        cdef char no = b"N", transpose = b"T"
        cdef Py_ssize_t f, i, c
        cdef double correlation, excess
        for f in range(self.gram.shape[0]):
            for i in range(n):
                for c in range(m):
                    if fabs(coefs[f, i, c]) * self.gram[f, i, i] <= (
                        self.zero_rtol * alphas[c]
                    ):
                        coefs[f, i, c] = 0.0
            # G w as numpy's matmul computes it: a matrix-vector product for
            # one penalty, else a matrix product.
            if m == 1:
                dgemv(&transpose, &n, &n, &one, <double*> &self.gram[f, 0, 0], &n,
                      &coefs[f, 0, 0], &unit, &zero, &product[0, 0], &unit)
            else:
                dgemm(&no, &no, &m, &n, &n, &one, &coefs[f, 0, 0], &m,
                      <double*> &self.gram[f, 0, 0], &n, &zero, &product[0, 0], &m)
            for i in range(n):
                for c in range(m):
                    correlation = self.xy[f, i] - product[i, c]
                    if coefs[f, i, c] != 0:
                        excess = fabs(correlation - _sign(coefs[f, i, c]) * alphas[c])
                    else:
                        excess = fabs(correlation) - alphas[c]
                    if not excess <= self.kkt_rtol * alphas[c]:  # also on NaN
                        return False
        return True


def held_out_errors(
    const double[:, ::1] X_test,
    const Py_ssize_t[::1] offsets,
    Py_ssize_t node,
    const Py_ssize_t[::1] predictors,
    const double[:, :, ::1] coefs,
    double[:, :] errors,
):
    """Mean squared errors of ``node``'s paths on every fold's held-out rows.

    As numpy computes ``np.mean((y - X[:, predictors] @ coefs[f]) ** 2, axis=0)``
    with ``X`` and ``y`` the held-out rows of fold ``f`` (``X_test[offsets[f]:
    offsets[f + 1]]``, centred with that fold's training means, and their
    column ``node``).

    Parameters
    ----------
    X_test : ndarray of shape (n_held_out, n_features), C order
        The held-out rows of all folds, one fold after the other.
    offsets : ndarray of shape (n_folds + 1,), intp
        Where each fold's rows start in ``X_test``; the last entry ends them.
    node : int
        The column regressed.
    predictors : ndarray of shape (n_predictors,), intp
        Its predictors.
    coefs : ndarray of shape (n_folds, n_predictors, n_alphas), C order
        The coefficients of each fold along a chunk of the path.
    errors : ndarray of shape (n_folds, n_alphas)
        Out: the mean squared errors.
    """
    cdef int m = coefs.shape[2], n_predictors = predictors.shape[0], unit = 1
    cdef int n_rows
    cdef double one = 1.0, zero = 0.0
    cdef char no = b"N", transpose = b"T"
    cdef Py_ssize_t largest = 0, fold, start, row, i, c
    cdef double residual, total
    for fold in range(offsets.shape[0] - 1):
        largest = max(largest, offsets[fold + 1] - offsets[fold])
    # X[:, predictors] as numpy lays it out: column after column (Fortran order).
    cdef double[::1] design = np.empty(largest * n_predictors + 1)
    cdef double[:, ::1] product = np.empty((largest + 1, m))
    cdef double[::1] squares = np.empty(largest + 1)
    with nogil:
        for fold in range(offsets.shape[0] - 1):
            start, n_rows = offsets[fold], offsets[fold + 1] - offsets[fold]
            if n_rows == 0:  # the mean of nothing
                for c in range(m):
                    errors[fold, c] = NAN
                continue
            for i in range(n_predictors):
                for row in range(n_rows):
                    design[i * n_rows + row] = X_test[start + row, predictors[i]]
            # design @ coefs[fold], by the call numpy's matmul makes for these
            # shapes and layouts: one rounded product per entry with one
            # predictor, a dot product for one row and one penalty, a
            # matrix-vector product (either way round) for one of them, else a
            # matrix product.
            if n_predictors == 1:
                for row in range(n_rows):
                    for c in range(m):
                        product[row, c] = design[row] * coefs[fold, 0, c]
            elif n_rows == 1 and m == 1:
                product[0, 0] = ddot(&n_predictors, &design[0], &unit,
                                     <double*> &coefs[fold, 0, 0], &unit)
            elif n_rows == 1:
                dgemv(&no, &m, &n_predictors, &one, <double*> &coefs[fold, 0, 0],
                      &m, &design[0], &unit, &zero, &product[0, 0], &unit)
            elif m == 1:
                dgemv(&no, &n_rows, &n_predictors, &one, &design[0], &n_rows,
                      <double*> &coefs[fold, 0, 0], &unit, &zero, &product[0, 0],
                      &unit)
            else:
                dgemm(&no, &transpose, &m, &n_rows, &n_predictors, &one,
                      <double*> &coefs[fold, 0, 0], &m, &design[0], &n_rows,
                      &zero, &product[0, 0], &m)
            # The sum over rows: numpy's pairwise sum down a single column, in
            # row order across several.
            for c in range(m):
                if m == 1:
                    for row in range(n_rows):
                        residual = X_test[start + row, node] - product[row, 0]
                        squares[row] = residual * residual
                    total = 0.0 + _pairwise_sum(&squares[0], n_rows)
                else:
                    total = 0.0
                    for row in range(n_rows):
                        residual = X_test[start + row, node] - product[row, c]
                        total = total + residual * residual
                errors[fold, c] = total / n_rows
