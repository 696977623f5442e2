"""DiagonalDominance: its law against a naive implementation of Algorithm 1.

The reference below is written from the paper, one matrix at a time: i.i.d. entries
on the edges, each diagonal entry the sum of the absolute values of its row plus a
perturbation uniform on (0, perturbation], then D^{-1/2} A D^{-1/2}. Two-sample KS
on every edge entry and log det M (11 tests on the graph below), 4000 draws on each
side, Bonferroni at ALPHA = 1e-3: the family detects CDF differences of about 0.045.
Each branch of the sampler (normal, uniform, scipy distribution, the perturbation)
is also compared with a reference carrying a plausible bug in that branch, which
must be rejected with p < 1e-6.
"""

import numpy as np
import pytest
from scipy import stats

from skggm_bench.generators import DiagonalDominance
from skggm_bench.graphs import check_adjacency
from tests.conftest import GRAPHS

ALPHA = 1e-3
POWER_P_VALUE = 1e-6
N_DRAWS = 4000
# Degrees 1 to 4: the perturbation weighs most on the low-degree nodes.
ADJACENCY = check_adjacency(GRAPHS["chordal_random"])


def algorithm_1(draw_entries, perturbation: float, n: int, seed: int) -> np.ndarray:
    """The paper's Algorithm 1, written out matrix by matrix."""
    rng = np.random.RandomState(seed)
    p = ADJACENCY.shape[0]
    edges = np.argwhere(np.triu(ADJACENCY, 1))
    draws = np.empty((n, p, p))
    for k in range(n):
        a = np.zeros((p, p))
        for (i, j), value in zip(edges, draw_entries(rng, len(edges)), strict=True):
            a[i, j] = a[j, i] = value
        for i in range(p):
            a[i, i] = np.abs(a[i]).sum() + perturbation * (1.0 - rng.random_sample())
        scale = 1.0 / np.sqrt(np.diag(a))
        draws[k] = a * np.outer(scale, scale)
    return draws


def statistics(draws: np.ndarray) -> np.ndarray:
    rows, cols = np.nonzero(np.triu(ADJACENCY, 1))
    return np.column_stack([draws[:, rows, cols], np.linalg.slogdet(draws)[1]])


def p_values(draws: np.ndarray, reference: np.ndarray) -> np.ndarray:
    a, b = statistics(draws), statistics(reference)
    return np.array(
        [stats.ks_2samp(x, y).pvalue for x, y in zip(a.T, b.T, strict=True)]
    )


LAPLACE = stats.laplace(scale=0.5)
# name: (sampler parameters, right entry law, perturbation, wrong variant's entry
# law and perturbation). The wrong variants: the perturbation ignored (1 instead
# of 0.2); uniform on [0, 1] instead of [-1, 1]; the scipy distribution ignored
# (standard normal instead).
CASES = {
    "normal, perturbation 0.2": (
        dict(distribution="normal", perturbation=0.2),
        lambda rng, size: rng.standard_normal(size),
        0.2,
        (lambda rng, size: rng.standard_normal(size), 1.0),
    ),
    "uniform": (
        dict(distribution="uniform"),
        lambda rng, size: rng.uniform(-1, 1, size),
        1.0,
        (lambda rng, size: rng.uniform(0, 1, size), 1.0),
    ),
    "scipy laplace, perturbation 3": (
        dict(distribution=LAPLACE, perturbation=3.0),
        lambda rng, size: LAPLACE.rvs(size=size, random_state=rng),
        3.0,
        (lambda rng, size: rng.standard_normal(size), 3.0),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_algorithm_1_and_rejects_a_wrong_variant(case):
    params, entry, perturbation, (wrong_entry, wrong_perturbation) = CASES[case]
    draws = DiagonalDominance(random_state=0, **params).fit(ADJACENCY).sample(N_DRAWS)
    right = p_values(draws, algorithm_1(entry, perturbation, N_DRAWS, seed=1))
    assert right.min() > ALPHA / right.size, right
    wrong = algorithm_1(wrong_entry, wrong_perturbation, N_DRAWS, seed=2)
    assert p_values(draws, wrong).min() < POWER_P_VALUE


def test_single_edge_closed_form():
    # p = 2: m = x / sqrt((|x| + c u1) (|x| + c u2)) with x ~ N(0, 1) and u1, u2
    # uniform on (0, 1]. Its CDF is a three-dimensional integral; the reference is
    # the formula simulated with 10^6 draws (KS error ~ 1e-3, well below the 0.02
    # that 20000 draws resolve). Wrong variant: the perturbation c ignored.
    c, n = 0.5, 20000
    draws = (
        DiagonalDominance(perturbation=c, random_state=3)
        .fit(np.array([[0, 1], [1, 0]]))
        .sample(n)[:, 0, 1]
    )
    rng = np.random.RandomState(4)
    x = rng.standard_normal(10**6)
    u1, u2 = 1.0 - rng.random_sample((2, 10**6))
    reference = x / np.sqrt((np.abs(x) + c * u1) * (np.abs(x) + c * u2))
    assert stats.ks_2samp(draws, reference).pvalue > ALPHA
    ignored = x / np.sqrt((np.abs(x) + u1) * (np.abs(x) + u2))  # c ignored
    assert stats.ks_2samp(draws, ignored).pvalue < POWER_P_VALUE
