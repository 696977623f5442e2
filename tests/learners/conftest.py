"""Shared test data for the learners: the "easy case" chain model, Gaussian samples."""

import numpy as np
import pytest

EASY_P = 20
# Long-range edges added to the chain, each with partial correlation -0.3.
LONG_RANGE_EDGES = ((0, 10), (4, 14), (8, 18))


def chain_precision(p: int = EASY_P) -> np.ndarray:
    """Unit-diagonal precision: chain of pcor 0.4 plus -0.3 long-range edges.

    With a unit diagonal the partial correlation of (i, j) is -K_ij, so the
    entries are -0.4 on the chain and +0.3 on the long-range edges. Its smallest
    eigenvalue is 0.14 (checked in ``test_chain_precision_is_positive_definite``).
    """
    partial = np.zeros((p, p))
    i = np.arange(p - 1)
    partial[i, i + 1] = partial[i + 1, i] = 0.4
    for a, b in LONG_RANGE_EDGES:
        partial[a, b] = partial[b, a] = -0.3
    return np.eye(p) - partial


def gaussian_sample(precision: np.ndarray, n_samples: int, seed: int) -> np.ndarray:
    """``n_samples`` rows of N(0, inv(precision)) from numpy's default generator."""
    factor = np.linalg.cholesky(np.linalg.inv(precision))
    return (
        np.random.default_rng(seed).standard_normal((n_samples, precision.shape[0]))
        @ factor.T
    )


@pytest.fixture(scope="session")
def easy_precision() -> np.ndarray:
    return chain_precision()


@pytest.fixture(scope="session")
def easy_truth(easy_precision) -> np.ndarray:
    return (easy_precision != 0) & ~np.eye(EASY_P, dtype=bool)
