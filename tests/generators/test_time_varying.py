"""TimeVaryingGenerator: switching rate, exact zeros, smoothness, law at each time.

Thresholds as in test_joint.py: KS at ALPHA = 1e-3 Bonferroni-corrected;
correlations from N_DRAWS draws within 0.05 (about three standard errors).
"""

import networkx as nx
import numpy as np
import pytest

from skggm_bench.generators import PartialOrthogonalization, TimeVaryingGenerator
from skggm_bench.generators.time_varying import window_kernel
from tests.conftest import GRAPHS, assert_valid_draws
from tests.generators.test_orthogonalization import two_sample_p_values

ALPHA = 1e-3
N_DRAWS = 3000


@pytest.mark.parametrize("smoothness", [0.0, 0.5, 0.95])
@pytest.mark.parametrize("graph_name", ["empty", "chain", "grid3x3", "erdos_renyi"])
def test_every_time_is_a_valid_draw_with_exact_zeros_off_its_graph(
    graph_name, smoothness
):
    graph = GRAPHS[graph_name]
    gen = TimeVaryingGenerator(
        n_times=6, change_rate=0.3, smoothness=smoothness, random_state=0
    ).fit(graph)
    draws = gen.sample(10)
    p = graph.number_of_nodes()
    assert draws.shape == (10, 6, p, p)
    for t in range(6):
        assert_valid_draws(draws[:, t], gen.adjacency_[t])


def test_each_step_switches_exactly_the_documented_number_of_edges():
    graph = GRAPHS["erdos_renyi"]
    m = graph.number_of_edges()
    gen = TimeVaryingGenerator(n_times=8, change_rate=0.25, random_state=1).fit(graph)
    assert gen.n_changes_ == round(0.25 * m)
    for before, after in zip(gen.adjacency_[:-1], gen.adjacency_[1:], strict=True):
        assert np.triu(after).sum() == m
        assert np.triu(before & ~after).sum() == gen.n_changes_
        assert np.triu(after & ~before).sum() == gen.n_changes_


def test_removed_edges_are_uniform_among_the_edges():
    """Each edge of G_0 is gone at time 1 with probability n_changes / m.

    A chi-square test over the edges; a sampler removing, say, the first edges
    in storage order (or always the same ones) fails it at once.
    """
    from scipy import stats

    graph = nx.cycle_graph(12)
    m, n_fits = 12, 600
    removed = np.zeros((12, 12))
    for seed in range(n_fits):
        gen = TimeVaryingGenerator(n_times=2, change_rate=0.25, smoothness=0.0)
        gen.set_params(random_state=seed).fit(graph)
        removed += gen.adjacency_[0] & ~gen.adjacency_[1]
    rows, cols = np.nonzero(np.triu(nx.to_numpy_array(graph), 1))
    counts = removed[rows, cols]
    expected = n_fits * gen.n_changes_ / m
    assert stats.chisquare(counts, np.full(m, expected)).pvalue > ALPHA


def test_independent_times_have_the_base_law_on_their_graph():
    base = PartialOrthogonalization()
    gen = TimeVaryingGenerator(
        base, n_times=3, change_rate=0.3, smoothness=0.0, random_state=2
    ).fit(GRAPHS["erdos_renyi"])
    draws = gen.sample(N_DRAWS)
    for t in range(3):
        reference = base.set_params(random_state=20 + t).fit(gen.adjacency_[t])
        p_values = two_sample_p_values(
            draws[:, t], reference.sample(N_DRAWS), gen.adjacency_[t]
        )
        assert p_values.min() > ALPHA / p_values.size


@pytest.mark.parametrize("smoothness", [0.0, 0.5, 0.9])
def test_consecutive_correlation_matches_the_documented_formula(smoothness):
    """On a constant graph, corr(Omega_t, Omega_t+1) is the closed form.

    For window 4 the formula gives 0, 0.51 and 0.88 at the three smoothness
    values; a kernel without overlap (or a smooth part redrawn at every time)
    would give 0 throughout.
    """
    window = 4
    gen = TimeVaryingGenerator(
        PartialOrthogonalization(),
        n_times=5,
        change_rate=0.0,
        smoothness=smoothness,
        window=window,
        random_state=3,
    ).fit(GRAPHS["chain"])
    draws = gen.sample(N_DRAWS)
    k = window_kernel(window)
    beta = smoothness
    expected = beta**2 * (k[:-1] @ k[1:]) / ((1 - beta) ** 2 + beta**2 * (k @ k))
    observed = [
        np.corrcoef(draws[:, t, i, i + 1], draws[:, t + 1, i, i + 1])[0, 1]
        for t in (1, 2)  # away from the clipped ends
        for i in range(6)
    ]
    assert abs(np.mean(observed) - expected) < 0.03
    assert max(abs(np.array(observed) - expected)) < 0.08


def test_larger_smoothness_gives_smaller_jumps():
    jumps = []
    for smoothness in (0.0, 0.5, 0.9):
        gen = TimeVaryingGenerator(
            n_times=6, change_rate=0.1, smoothness=smoothness, random_state=4
        ).fit(GRAPHS["erdos_renyi"])
        draws = gen.sample(200)
        jumps.append(np.mean((draws[:, 1:] - draws[:, :-1]) ** 2))
    assert jumps[0] > 1.5 * jumps[1] > 2.25 * jumps[2]


def test_a_vanishing_edge_fades_out_before_it_is_exactly_zero():
    """With a smooth part, an edge's last value before it disappears is smaller.

    Edges about to vanish keep only the kernel's last weight of the smooth part,
    while edges present throughout keep all of it; without smoothness the two
    are alike.
    """
    graph = nx.gnp_random_graph(30, 0.15, seed=8)

    def last_values(smoothness):
        gen = TimeVaryingGenerator(
            PartialOrthogonalization(),
            n_times=6,
            change_rate=0.2,
            smoothness=smoothness,
            window=4,
            random_state=5,
        ).fit(graph)
        draws = gen.sample(400)
        now, then = gen.adjacency_[3], gen.adjacency_[4]
        vanishing = np.triu(now & ~then, 1)
        staying = np.triu(gen.adjacency_.all(axis=0), 1)
        assert np.all(draws[:, 4][:, vanishing] == 0.0)
        return (
            np.abs(draws[:, 3][:, vanishing]).mean(),
            np.abs(draws[:, 3][:, staying]).mean(),
        )

    fading, staying = last_values(0.9)
    assert fading < 0.6 * staying
    fading, staying = last_values(0.0)
    assert fading == pytest.approx(staying, rel=0.15)


def test_kernel_is_a_normalised_symmetric_bump():
    for window in (1, 2, 5):
        k = window_kernel(window)
        assert k.sum() == pytest.approx(1.0)
        np.testing.assert_allclose(k, k[::-1])


def test_a_complete_graph_has_no_pair_to_switch_to():
    gen = TimeVaryingGenerator(n_times=3, change_rate=0.5, random_state=0)
    gen.fit(nx.complete_graph(5))
    assert gen.n_changes_ == 0
    assert gen.adjacency_.all(axis=0).sum() == 20
