"""skglm's GraphicalLasso (primal and dual coordinate descent), if installed."""

import warnings

from benchopt import BaseSolver, safe_import_context

# benchopt lists the solver as "not installed" when skglm is missing.
with safe_import_context() as import_ctx:
    import numpy as np
    from skglm.covariance import GraphicalLasso


class Solver(BaseSolver):
    name = "skglm"
    parameters = {"algo": ["primal", "dual"]}
    sampling_strategy = "iteration"
    requirements = ["pip::skglm"]

    def set_objective(self, S, alpha):
        self.S, self.alpha = S, alpha
        # The objective penalises the off-diagonal entries only.
        self.weights = 1.0 - np.eye(S.shape[0])

    def warm_up(self):
        # Compile the numba code before the timed runs.
        self.run_once(2)

    def run(self, n_iter):
        if n_iter == 0:
            self.Theta = np.eye(self.S.shape[0])
            return
        model = GraphicalLasso(
            alpha=self.alpha,
            weights=self.weights,
            algo=self.algo,
            max_iter=n_iter,
            tol=1e-12,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(self.S, mode="precomputed")
        self.Theta = model.precision_

    def get_result(self):
        return dict(Theta=self.Theta)
