"""The graphical lasso's optimality conditions, written afresh for the tests.

Independent of the solvers under test (skggm_bench.learners), so that a solver and
its own certificate cannot agree on a wrong answer: for the penalised problem
``min -log det K + tr(S K) + alpha * sum_{i != j} |K_ij|``, at the minimiser
``W = K^-1`` satisfies ``W_ii = S_ii``, ``W_ij - S_ij = alpha sign(K_ij)`` where
``K_ij != 0`` and ``|W_ij - S_ij| <= alpha`` elsewhere.
"""

import numpy as np


def kkt_violation(S, K, alpha):
    """Largest violation of the optimality conditions at K (<= 0 off the support
    means strictly inside the bound)."""
    W = np.linalg.inv(K)
    gap = W - S
    off = ~np.eye(S.shape[0], dtype=bool)
    active = (K != 0) & off
    violation = np.where(active, np.abs(gap - alpha * np.sign(K)), np.abs(gap) - alpha)
    violation[~off] = np.abs(np.diag(gap))
    return violation.max()
