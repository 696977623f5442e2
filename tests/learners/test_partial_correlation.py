import numpy as np
import pytest

from skggm_bench.learners import (
    partial_correlation_from_coefficients,
    partial_correlation_from_precision,
)
from skggm_bench.learners._partial_correlation import (
    symmetric_from_upper,
    upper_triangle,
)


def _random_precision(p: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((p, p))
    return A @ A.T + p * np.eye(p)


def test_population_coefficients_give_the_population_partial_correlations():
    # b_ij = -K_ij / K_ii are the exact regression coefficients of x_i on the
    # others; the rule sign(b_ij) sqrt(b_ij b_ji) must recover -K_ij/sqrt(K_ii K_jj).
    K = _random_precision(6, seed=0)
    coef = -K / np.diag(K)[:, None]
    np.fill_diagonal(coef, 0.0)
    expected = partial_correlation_from_precision(K)
    np.testing.assert_allclose(
        partial_correlation_from_coefficients(coef), expected, atol=1e-14
    )


def test_sign_disagreement_gives_zero_and_values_are_capped():
    coef = np.array([[0.0, 0.5, -0.3], [0.2, 0.0, 3.0], [0.3, 2.0, 0.0]])
    pcor = partial_correlation_from_coefficients(coef)
    assert pcor[0, 1] == pytest.approx(np.sqrt(0.1))
    assert pcor[0, 2] == 0.0  # -0.3 vs 0.3: signs disagree
    assert pcor[1, 2] == 1.0  # sqrt(6) capped
    np.testing.assert_array_equal(pcor, pcor.T)
    np.testing.assert_array_equal(np.diag(pcor), 0.0)


def test_partial_correlation_from_precision_handles_a_zero_diagonal():
    K = np.array([[2.0, 0.0, -1.0], [0.0, 0.0, 0.0], [-1.0, 0.0, 2.0]])
    pcor = partial_correlation_from_precision(K)
    assert pcor[0, 2] == pytest.approx(0.5)
    np.testing.assert_array_equal(pcor[1], 0.0)


def test_upper_triangle_round_trip():
    values = np.arange(10.0)
    matrix = symmetric_from_upper(values, 5, diagonal=-1.0)
    np.testing.assert_array_equal(upper_triangle(matrix), values)
    np.testing.assert_array_equal(matrix, matrix.T)
    np.testing.assert_array_equal(np.diag(matrix), -1.0)
