"""CLIME along a penalty path by a parametric dual simplex.

Column ``j`` of CLIME solves the linear program

    minimise ||b||_1  subject to  -alpha <= (S b - e_j)_i <= alpha  (every i).

Written with ``b = b+ - b-`` (``b+, b- >= 0``) and ``r = S b - e_j`` as boxed
variables, it has ``p`` equality rows ``S b+ - S b- - r = e_j`` and only the
bounds of ``r`` depend on ``alpha``. The reduced costs do not depend on
``alpha``, so an optimal basis stays optimal while its basic values stay within
their bounds; they are affine in ``alpha`` (``beta + alpha gamma``) because the
nonbasic ``r_i`` sit at ``+alpha`` or ``-alpha``. Hence the whole path: start at
``alpha = 1`` where ``b = 0`` (every ``r`` basic) is optimal, lower ``alpha``
to the next value where a basic variable reaches a bound, and let it leave by a
dual simplex pivot (the entering variable keeps the reduced costs of the right
sign); the solutions at the requested penalties are read off on the way. This
is the parametric simplex of Vanderbei (and of R's fastclime, Pang, Liu &
Vanderbei 2014), written from the method's description.

A solution is read off with the current inverse of its basis and certified:
primal feasible (``b+, b- >= 0``, ``|S b - e_j| <= alpha``) and dual feasible
(reduced costs of the right signs), both to a tolerance of 1e-9, which makes it
optimal. Failing that, the inverse is recomputed from the basis (undoing the
pivots' rounding) and the check repeated. A column whose path breaks down (no
eligible entering variable, a check failing twice, or too many pivots) is
reported, and the caller solves it by HiGHS.

The path itself is compiled (``_clime_simplex.pyx``: each column in turn, its
tolerances and pivot rules described there); this module orders the penalties.
"""

import numpy as np

from ._clime_simplex import simplex_paths


def clime_path(S: np.ndarray, alphas) -> tuple[np.ndarray, np.ndarray]:
    """CLIME's column solutions of ``S`` at every penalty.

    Parameters
    ----------
    S : ndarray of shape (p, p)
        Symmetric positive definite matrix (the perturbed correlation matrix).
    alphas : array-like of shape (n_alphas,)
        Positive penalties, any order.

    Returns
    -------
    solutions : ndarray of shape (n_alphas, p, p)
        ``solutions[k][:, j]``: column ``j``'s solution at ``alphas[k]``.
    solved : ndarray of shape (n_alphas, p), bool
        False for the columns whose path broke down (their entries are 0).
    """
    S = np.asarray(S, dtype=float)
    alphas = np.asarray(alphas, dtype=float)
    p = S.shape[0]
    order = np.argsort(-alphas, kind="stable")
    solutions = np.zeros((alphas.size, p, p))
    solved = np.ones((alphas.size, p), dtype=bool)
    # b = 0 is optimal for alpha >= 1 (||e_j||_inf = 1).
    below = order[alphas[order] < 1.0]
    if below.size == 0:
        return solutions, solved
    grid = np.ascontiguousarray(alphas[below])
    out = np.zeros((grid.size, p, p))
    read = np.zeros((grid.size, p), dtype=np.uint8)
    simplex_paths(np.ascontiguousarray(S), grid, out, read)
    solutions[below], solved[below] = out, read.astype(bool)
    return solutions, solved
