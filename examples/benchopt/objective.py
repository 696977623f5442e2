"""The graphical lasso, as benchopt's graphical-lasso benchmark states it.

minimise over Theta:  -log det(Theta) + trace(S Theta) + alpha * ||Theta||_1,off

``alpha`` is ``reg`` times the smallest penalty whose solution is diagonal
(``max |S_ij|``, i != j). Besides the objective, each result is scored against the
truth the skggm-bench dataset knows: F1 of the recovered graph and the relative
error of the precision matrix. An iterate that is not positive definite is
outside the domain: its objective is infinite (an objective that ignored the sign
of the determinant would score some such matrices below the optimum).
"""

import numpy as np
from benchopt import BaseObjective


class Objective(BaseObjective):
    name = "Graphical Lasso"
    min_benchopt_version = "1.5"
    parameters = {"reg": [0.5]}

    def set_data(self, S, Theta_true, X):
        self.S, self.Theta_true = S, Theta_true
        # The true graph: the support of the precision matrix drawn.
        self.adjacency = Theta_true != 0
        off_diagonal = np.abs(S - np.diag(np.diag(S)))
        self.alpha = self.reg * off_diagonal.max()

    def get_objective(self):
        return dict(S=self.S, alpha=self.alpha)

    def evaluate_result(self, Theta):
        sign, logdet = np.linalg.slogdet(Theta)
        if sign <= 0:
            return dict(value=np.inf, f1=0.0, nmse=np.inf)
        off = ~np.eye(len(Theta), dtype=bool)
        penalty = self.alpha * np.abs(Theta[off]).sum()
        found = (np.abs(Theta) > 1e-8) & off
        true = self.adjacency & off
        hits = np.count_nonzero(found & true)
        f1 = 2 * hits / max(np.count_nonzero(found) + np.count_nonzero(true), 1)
        error = np.linalg.norm(Theta - self.Theta_true) ** 2
        return dict(
            value=-logdet + np.sum(self.S * Theta) + penalty,
            f1=f1,
            nmse=error / np.linalg.norm(self.Theta_true) ** 2,
        )

    def get_one_result(self):
        return dict(Theta=np.eye(self.S.shape[0]))
