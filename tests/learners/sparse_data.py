"""Gaussian test data with a sparse graph, shared by the path solvers' tests."""

import numpy as np


def sparse_gaussian_data(n, p, seed, *, scale_columns=False):
    """``n`` Gaussian rows whose precision ``I - W`` has about 3 edges per node.

    With ``scale_columns`` every column is then multiplied by its own factor in
    [0.5, 3] (units that differ by column), drawn after the rows.
    """
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((p, p)) < 3.0 / p, 1)
    weights = upper * rng.choice([-1.0, 1.0], upper.shape) * rng.uniform(0.2, 0.4)
    weights = weights + weights.T
    weights *= min(1.0, 0.8 / np.abs(np.linalg.eigvalsh(weights)).max())
    covariance = np.linalg.inv(np.eye(p) - weights)
    X = rng.multivariate_normal(np.zeros(p), covariance, size=n)
    return X * rng.uniform(0.5, 3.0, p) if scale_columns else X
