"""gglasso's ADMM for the single graphical lasso, if installed."""

import warnings

from benchopt import BaseSolver, safe_import_context

# benchopt lists the solver as "not installed" when gglasso is missing.
with safe_import_context() as import_ctx:
    import numpy as np
    from gglasso.solver.single_admm_solver import ADMM_SGL


class Solver(BaseSolver):
    name = "gglasso"
    sampling_strategy = "iteration"
    requirements = ["pip::gglasso"]

    def set_objective(self, S, alpha):
        self.S, self.alpha = S, alpha

    def warm_up(self):
        # Compile the numba code before the timed runs.
        self.run_once(2)

    def run(self, n_iter):
        if n_iter == 0:
            self.Theta = np.eye(self.S.shape[0])
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            solution, _ = ADMM_SGL(
                self.S,
                self.alpha,
                np.eye(self.S.shape[0]),
                max_iter=n_iter,
                tol=1e-12,
                rtol=1e-12,
            )
        self.Theta = solution["Theta"]

    def get_result(self):
        return dict(Theta=self.Theta)
