"""Data from skggm-bench's generators: a benchopt dataset in a few lines.

It returns what the objective of benchopt's graphical-lasso benchmark
(``benchmark_graphical_lasso``) takes -- ``S``, ``Theta_true`` and ``X`` -- so the
same file also serves there: copy it to that benchmark's ``datasets/`` folder.
"""

from benchopt import BaseDataset

from skggm_bench.interop import benchopt_data


class Dataset(BaseDataset):
    name = "skggm"
    # Each generator is a benchopt parameter: its results are a dataset of their own.
    parameters = {
        "generator": ["DiagonalDominance", "TriangulatedOrthogonalization"],
        "n_samples, n_features": [(200, 50)],
        "density": [0.1],
        "random_state": [0],
    }

    def get_data(self):
        data = benchopt_data(
            self.n_samples,
            self.n_features,
            density=self.density,
            generator=self.generator,
            random_state=self.random_state,
        )
        return {key: data[key] for key in ("S", "Theta_true", "X")}
