"""Shared test data for the learners: the "easy case" chain model, Gaussian samples,
and correlation statistics with a known null and mixture."""

import numpy as np
import pytest
from scipy import special, stats

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


def null_correlations(rng, kappa: float, size: int) -> np.ndarray:
    """Exact null draws: R = T / sqrt(T^2 + kappa - 1) with T ~ Student t(kappa - 1)."""
    t = rng.standard_t(kappa - 1, size=size)
    return t / np.sqrt(t**2 + kappa - 1)


def correlation_mixture(seed: int):
    """90 % nulls (kappa=50), 10 % alternatives +-tanh(N(0.6, 0.15^2)); true lfdr."""
    kappa, eta0, size = 50.0, 0.9, 5000
    rng = np.random.default_rng(seed)
    n_null = int(eta0 * size)
    alt = np.tanh(rng.normal(0.6, 0.15, size - n_null)) * rng.choice(
        [-1.0, 1.0], size - n_null
    )
    x = np.concatenate([null_correlations(rng, kappa, n_null), alt])
    f0 = np.exp(
        -special.betaln(0.5, (kappa - 1) / 2) + (kappa - 3) / 2 * np.log1p(-(x**2))
    )
    z = np.arctanh(x)
    fa = (
        0.5
        * (stats.norm.pdf(z, 0.6, 0.15) + stats.norm.pdf(z, -0.6, 0.15))
        / (1 - x**2)
    )
    return x, eta0 * f0 / (eta0 * f0 + (1 - eta0) * fa)
