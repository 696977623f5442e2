"""Exactness of the uniform samplers on chordal graphs, against exact references.

Every "passes" test uses a fixed seed and a Bonferroni-corrected level of 1e-3 over
the entries tested, so a correct sampler fails with probability < 1e-3 per test
(and, with the seed fixed, deterministically passes). The power tests feed the same
statistics with draws of non-uniform samplers and require them to fail the same
acceptance criterion (mostly with p-values below 1e-6), which shows the thresholds
would catch a wrong sampler.
"""

import networkx as nx
import numpy as np
import pytest
from scipy import stats

from skggm_bench.generators import (
    DiagonalDominance,
    PartialOrthogonalization,
    TriangulatedOrthogonalization,
    UniformChordal,
)
from skggm_bench.graphs import check_adjacency
from tests.conftest import GRAPHS

ALPHA = 1e-3
N_DRAWS = 5000

UNIFORM_SAMPLERS = {
    "exact": lambda seed: UniformChordal(random_state=seed),
    "metropolis": lambda seed: UniformChordal("metropolis", random_state=seed),
    "triangulated": lambda seed: TriangulatedOrthogonalization(random_state=seed),
}


def disk_p_values(draws: np.ndarray) -> tuple[float, float]:
    """KS p-values of (m12, m23) against the uniform law on the unit disk.

    For a uniform point of the disk, the squared radius is U(0, 1) and the angle is
    U(-pi, pi), independently.
    """
    x, y = draws[:, 0, 1], draws[:, 1, 2]
    radius = stats.kstest(x**2 + y**2, "uniform").pvalue
    angle = stats.kstest(np.arctan2(y, x), stats.uniform(-np.pi, 2 * np.pi).cdf).pvalue
    return radius, angle


def upper_entries(draws: np.ndarray, adjacency: np.ndarray) -> np.ndarray:
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    return draws[:, rows, cols]


def cube_rejection_sample(adjacency: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Exact uniform draws on E_p(G): edge entries uniform on the cube, kept if PD."""
    rng = np.random.RandomState(seed)
    p = adjacency.shape[0]
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    kept = []
    while sum(len(k) for k in kept) < n:
        values = rng.uniform(-1, 1, size=(4 * n, rows.size))
        matrices = np.tile(np.eye(p), (4 * n, 1, 1))
        matrices[:, rows, cols] = values
        matrices[:, cols, rows] = values
        kept.append(values[np.linalg.eigvalsh(matrices)[:, 0] > 0])
    return np.concatenate(kept)[:n]


@pytest.mark.parametrize("name", sorted(UNIFORM_SAMPLERS))
def test_three_chain_is_uniform_on_the_disk(name):
    draws = UNIFORM_SAMPLERS[name](0).fit(nx.path_graph(3)).sample(N_DRAWS)
    assert min(disk_p_values(draws)) > ALPHA / 2


@pytest.mark.parametrize(
    "wrong",
    [DiagonalDominance(random_state=0), PartialOrthogonalization(random_state=0)],
)
def test_disk_test_rejects_non_uniform_samplers(wrong):
    draws = wrong.fit(nx.path_graph(3)).sample(N_DRAWS)
    assert min(disk_p_values(draws)) < 1e-6


def test_disk_test_rejects_reference_package_metropolis_defaults():
    # The R package's defaults: 100 burn-in steps with proposal sd 0.01.
    gen = UniformChordal(
        "metropolis", n_burn_in=100, proposal_scale=0.01, random_state=0
    )
    draws = gen.fit(nx.path_graph(3)).sample(N_DRAWS)
    assert min(disk_p_values(draws)) < 1e-6


@pytest.mark.parametrize("p", [4, 7])
@pytest.mark.parametrize("name", sorted(UNIFORM_SAMPLERS))
def test_complete_graph_entries_are_beta(name, p):
    """On the full elliptope every (r + 1) / 2 ~ Beta(p/2, p/2)."""
    draws = UNIFORM_SAMPLERS[name](1).fit(nx.complete_graph(p)).sample(N_DRAWS)
    entries = upper_entries(draws, check_adjacency(nx.complete_graph(p)))
    beta = stats.beta(p / 2, p / 2)
    p_values = [stats.kstest((e + 1) / 2, beta.cdf).pvalue for e in entries.T]
    assert min(p_values) > ALPHA / len(p_values)


def test_beta_test_rejects_diagonal_dominance():
    p = 7
    draws = DiagonalDominance(random_state=1).fit(nx.complete_graph(p)).sample(N_DRAWS)
    entries = upper_entries(draws, check_adjacency(nx.complete_graph(p)))
    assert (
        stats.kstest((entries[:, 0] + 1) / 2, stats.beta(p / 2, p / 2).cdf).pvalue
        < 1e-6
    )


@pytest.mark.parametrize("graph_name", ["diamond", "chordal_random"])
@pytest.mark.parametrize("name", sorted(UNIFORM_SAMPLERS))
def test_small_chordal_graphs_match_rejection_sampling(name, graph_name):
    graph = GRAPHS[graph_name]
    adjacency = check_adjacency(graph)
    reference = cube_rejection_sample(adjacency, N_DRAWS, seed=11)
    draws = UNIFORM_SAMPLERS[name](2).fit(graph).sample(N_DRAWS)
    entries = upper_entries(draws, adjacency)
    p_values = [
        stats.ks_2samp(entries[:, k], reference[:, k]).pvalue
        for k in range(entries.shape[1])
    ]
    assert min(p_values) > ALPHA / len(p_values)


def test_rejection_comparison_has_power():
    adjacency = check_adjacency(GRAPHS["diamond"])
    reference = cube_rejection_sample(adjacency, N_DRAWS, seed=11)
    draws = PartialOrthogonalization(random_state=2).fit(adjacency).sample(N_DRAWS)
    entries = upper_entries(draws, adjacency)
    p_values = [
        stats.ks_2samp(entries[:, k], reference[:, k]).pvalue
        for k in range(entries.shape[1])
    ]
    # Partial orthogonalization is close to uniform on this tiny graph, so the
    # separation is smaller than elsewhere; it still fails the acceptance criterion.
    assert min(p_values) < ALPHA / len(p_values)


def test_chain_end_entries_differ_from_interior_entries():
    """The paper says all uniform chain marginals are identical; they are not.

    Along the chain's perfect ordering, m_{i,i+1} = u_{i,i+1} u_{i+1,i+1} with
    independent factors whose squares are Beta variables (docs/uniform_sampler.md):
    E[m^2] = 1/3 * 3/4 = 1/4 at the first edge, 1/4 * 1 = 1/4 at the last, and
    1/4 * 3/4 = 3/16 inside. So the standard deviations are exactly 0.5 at the ends
    and sqrt(3)/4 = 0.433 inside, for every p >= 4.
    """
    p, n = 50, 20000
    draws = UniformChordal(random_state=3).fit(nx.path_graph(p)).sample(n)
    chain = draws[:, np.arange(p - 1), np.arange(1, p)]
    sd = chain.std(axis=0)
    # Standard error of a sd estimate here is about 0.003; 0.012 is four of them.
    np.testing.assert_allclose(sd[[0, -1]], 0.5, atol=0.012)
    np.testing.assert_allclose(sd[1:-1], np.sqrt(3) / 4, atol=0.012)
    # And the difference is unmistakable as a distribution test too.
    assert stats.ks_2samp(chain[:, 0], chain[:, p // 2]).pvalue < 1e-10
    # Entries are still symmetric about zero (mean zero).
    assert np.abs(chain.mean(axis=0)).max() < 0.03


def test_metropolis_chains_are_independent_across_draws():
    # Each returned matrix comes from its own chain: no lag-1 autocorrelation.
    draws = (
        UniformChordal("metropolis", random_state=4)
        .fit(nx.path_graph(3))
        .sample(N_DRAWS)
    )
    x = draws[:, 0, 1]
    lag1 = np.corrcoef(x[:-1], x[1:])[0, 1]
    # Under independence lag1 ~ N(0, 1/n): |lag1| < 4 / sqrt(5000) = 0.057.
    assert abs(lag1) < 4 / np.sqrt(N_DRAWS)


@pytest.mark.parametrize("graph_name", ["chain", "chordal_random", "complete", "empty"])
def test_sparse_output_draws_the_same_matrix_as_the_dense_path(graph_name):
    import scipy.sparse as sp

    graph = GRAPHS[graph_name]
    dense = UniformChordal(random_state=8).fit(graph).sample(1)[0]
    sparse_draws = (
        UniformChordal(sparse_output=True, random_state=8).fit(graph).sample(2)
    )
    assert len(sparse_draws) == 2 and all(sp.issparse(m) for m in sparse_draws)
    np.testing.assert_allclose(sparse_draws[0].toarray(), dense, atol=1e-14)
    # Stored entries are exactly the diagonal and the edges.
    adjacency = check_adjacency(graph)
    stored = sparse_draws[1].toarray() != 0
    np.testing.assert_array_equal(
        stored, adjacency | np.eye(len(adjacency), dtype=bool)
    )


def test_sparse_output_requires_the_exact_method():
    with pytest.raises(ValueError, match="sparse_output"):
        UniformChordal("metropolis", sparse_output=True).fit(nx.path_graph(3))


def test_sparse_output_is_statistically_uniform_on_the_three_chain():
    draws = UniformChordal(sparse_output=True, random_state=0).fit(nx.path_graph(3))
    dense = np.stack([m.toarray() for m in draws.sample(N_DRAWS)])
    assert min(disk_p_values(dense)) > ALPHA / 2
