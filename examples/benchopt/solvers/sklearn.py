"""scikit-learn's GraphicalLasso on the sample covariance, one solver per mode."""

import warnings

import numpy as np
from benchopt import BaseSolver
from sklearn.covariance import GraphicalLasso
from sklearn.exceptions import ConvergenceWarning


class Solver(BaseSolver):
    name = "sklearn"
    parameters = {"mode": ["cd", "lars"]}
    sampling_strategy = "iteration"

    def set_objective(self, S, alpha):
        self.S, self.alpha = S, alpha

    def run(self, n_iter):
        if n_iter == 0:
            self.Theta = np.eye(self.S.shape[0])
            return
        model = GraphicalLasso(
            alpha=self.alpha,
            mode=self.mode,
            covariance="precomputed",
            max_iter=n_iter,
            tol=1e-12,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(self.S)
        self.Theta = model.precision_

    def get_result(self):
        return dict(Theta=self.Theta)
