"""HitAndRunUniform: exactness, mixing, diagnostics, numerics, generator contract.

Statistical acceptance criterion (the one of test_uniform_chordal.py): a family of
KS tests passes when its smallest p-value exceeds ALPHA / (number of tests), with
ALPHA = 1e-3 (Bonferroni), so a correct sampler fails with probability < 1e-3 per
test; seeds are fixed, so the outcome is deterministic. Every family also tests
``log det M``, a global statistic that is much more sensitive than the entries to a
law tilted towards or away from the boundary. Power tests feed the same statistics
with wrong samplers and require p-values below 1e-6, far below every threshold used
(>= 1e-3 / 13), which shows the tests would catch a wrong sampler.

Why the sample sizes: with n draws on each side, the two-sample KS test at level
1e-3 / 13 detects CDF differences of about 2.3 * sqrt(2 / n): 0.036 for n = 8000,
0.024 for n = 20000 (see REFERENCE_SIZE).
"""

import functools
import warnings

import networkx as nx
import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from skggm_bench.generators import (
    HitAndRunUniform,
    TriangulatedOrthogonalization,
    UniformChordal,
    _mcmc,
    hit_and_run,
)
from skggm_bench.generators.hit_and_run import PoorMixingWarning
from skggm_bench.graphs import check_adjacency
from tests.conftest import GRAPHS, assert_valid_draws

ALPHA = 1e-3
N_DRAWS = 8000
POWER_P_VALUE = 1e-6
NON_CHORDAL = {
    "cycle4": nx.cycle_graph(4),
    "cycle5": nx.cycle_graph(5),
    "grid3x3": GRAPHS["grid3x3"],
}
# Exact references: 20000 draws where rejection is cheap (acceptance 1/3 and 1/4 on
# the cycles), 8000 on the grid (acceptance 1.2%, ~3 s). The node-move samples have
# the same sizes; at 20000 the KS family detects CDF differences of 0.024, enough
# to reject Algorithm 5 on the 5-cycle (p ~ 1e-12), which 8000 draws only just do.
REFERENCE_SIZE = {"cycle4": 20000, "cycle5": 20000, "grid3x3": 8000}


# ----------------------------------------------------------------------- helpers


def edge_index(adjacency: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.nonzero(np.triu(adjacency, 1))


def statistics(draws: np.ndarray, adjacency: np.ndarray) -> np.ndarray:
    """Every edge entry and log det M, shape (n, n_edges + 1)."""
    rows, cols = edge_index(adjacency)
    return np.column_stack([draws[:, rows, cols], np.linalg.slogdet(draws)[1]])


def matrices_from_entries(entries: np.ndarray, adjacency: np.ndarray) -> np.ndarray:
    rows, cols = edge_index(adjacency)
    matrices = np.tile(np.eye(adjacency.shape[0]), (entries.shape[0], 1, 1))
    matrices[:, rows, cols] = matrices[:, cols, rows] = entries
    return matrices


@functools.cache
def rejection_reference(graph_name: str, seed: int = 11):
    """Exact uniform draws on E_p(G): edge entries uniform on [-1, 1]^|E|, kept if PD.

    Cached: the same exact sample is the reference of several tests.
    """
    adjacency = check_adjacency(NON_CHORDAL[graph_name])
    n = REFERENCE_SIZE[graph_name]
    rng = np.random.RandomState(seed)
    n_edges = edge_index(adjacency)[0].size
    kept, n_kept = [], 0
    while n_kept < n:
        matrices = matrices_from_entries(
            rng.uniform(-1, 1, size=(50_000, n_edges)), adjacency
        )
        accepted = matrices[np.linalg.eigvalsh(matrices)[:, 0] > 0]
        kept.append(accepted)
        n_kept += accepted.shape[0]
    return statistics(np.concatenate(kept)[:n], adjacency)


def ks_p_values(sample: np.ndarray, reference: np.ndarray) -> np.ndarray:
    return np.array(
        [
            stats.ks_2samp(sample[:, k], reference[:, k]).pvalue
            for k in range(reference.shape[1])
        ]
    )


def assert_matches(sample: np.ndarray, reference: np.ndarray) -> None:
    p_values = ks_p_values(sample, reference)
    assert p_values.min() > ALPHA / p_values.size, p_values


def within_chain_lag1(draws: np.ndarray, adjacency: np.ndarray, n_chains: int):
    """Lag-1 autocorrelation of each statistic along each chain, pooled over chains.

    Draw k comes from chain k % n_chains, so chain c is draws[c::n_chains].
    """
    values = statistics(draws, adjacency)
    n = values.shape[0] // n_chains
    chains = values[: n * n_chains].reshape(n, n_chains, -1)
    centred = chains - chains.mean(axis=0)
    return (centred[1:] * centred[:-1]).sum(axis=(0, 1)) / (centred**2).sum(axis=(0, 1))


# ---------------------------------------------------------------- the formulas


def test_edge_interval_ends_are_exactly_the_boundary():
    rng = np.random.RandomState(0)
    matrices = UniformChordal(random_state=0).fit(nx.complete_graph(6)).sample(20)
    for matrix in matrices:
        inverse = np.linalg.inv(matrix)
        i, j = sorted(rng.choice(6, 2, replace=False))
        lower, upper = hit_and_run._edge_interval(
            inverse[i, i], inverse[j, j], inverse[i, j]
        )
        # Same roots as the quadratic formula of (1 + t k_ij)^2 - t^2 k_ii k_jj.
        roots = np.roots(
            [inverse[i, j] ** 2 - inverse[i, i] * inverse[j, j], 2 * inverse[i, j], 1]
        )
        np.testing.assert_allclose(sorted(roots), [lower, upper], rtol=1e-9)
        # M(t) is singular at both ends, positive definite just inside, not just
        # outside.
        moved = matrix.copy()
        for end in (lower, upper):
            for scale, positive in [(1 - 1e-6, True), (1.0, None), (1 + 1e-6, False)]:
                moved[i, j] = moved[j, i] = matrix[i, j] + scale * end
                smallest = np.linalg.eigvalsh(moved)[0]
                if positive is None:
                    assert abs(smallest) < 1e-10
                else:
                    assert (smallest > 0) == positive


def test_node_ellipsoid_boundary_is_exactly_the_boundary():
    # K5 on {0, 1, 3, 4, 5} plus node 2 joined to 0, 3, 5 (simplicial: chordal).
    graph = nx.complete_graph([0, 1, 3, 4, 5])
    graph.add_edges_from([(2, 0), (2, 3), (2, 5)])
    adjacency = nx.to_numpy_array(graph, nodelist=range(6)) != 0
    matrix = UniformChordal(random_state=1).fit(adjacency).sample(1)[0]
    node, neighbours = 2, np.array([0, 3, 5])
    inverse = np.linalg.inv(matrix)
    k = inverse[:, node]
    schur_inverse = (
        inverse[np.ix_(neighbours, neighbours)]
        - np.outer(k[neighbours], k[neighbours]) / k[node]
    )
    # The formula for B_NN = ((M_{-i,-i})^{-1})_NN from K:
    rest = np.delete(np.arange(6), node)
    direct = np.linalg.inv(matrix[np.ix_(rest, rest)])
    positions = np.searchsorted(rest, neighbours)
    np.testing.assert_allclose(schur_inverse, direct[np.ix_(positions, positions)])
    factor = np.linalg.cholesky(schur_inverse)
    for direction in np.random.RandomState(0).standard_normal((10, 3)):
        z = direction / np.linalg.norm(direction)
        x = np.linalg.solve(factor.T, z)
        for scale, expected in [(1 - 1e-6, True), (1 + 1e-6, False)]:
            moved = matrix.copy()
            moved[node, neighbours] = moved[neighbours, node] = scale * x
            assert (np.linalg.eigvalsh(moved)[0] > 0) == expected


@pytest.mark.parametrize("move", ["node", "edge"])
def test_rank_two_updates_track_the_exact_inverse(move):
    graph = nx.gnp_random_graph(25, 0.25, seed=4)
    adjacency = check_adjacency(graph)
    starts = TriangulatedOrthogonalization(random_state=0).fit(graph).sample(3)
    chains = hit_and_run._Chains(starts, adjacency, move, np.random.RandomState(0))
    worst = 0.0
    for step in range(300):
        if move == "node":
            chains.node_move(chains.nodes[step % chains.nodes.size])
        else:
            edge = step % chains.rows.size
            chains.edge_move(
                chains.rows[edge], chains.cols[edge], chains.rng.random_sample(3)
            )
        exact = np.linalg.inv(chains.matrix)
        error = np.abs(chains.inverse - exact).max(axis=(1, 2))
        worst = max(worst, (error / np.abs(exact).max(axis=(1, 2))).max())
    # 300 updates with only the cancellation-triggered refreshes (no per-sweep
    # refresh): measured worst 1e-9 to 3e-8 relative depending on the BLAS build and
    # thread count (rounding accumulates like cond(M) * eps per update). The bound,
    # 1e-6, is still far below the 1e-4 that the boundary check tolerates, and a wrong
    # W or rank-2 formula gives errors of order 1.
    assert worst < 1e-6
    assert_valid_draws(chains.matrix, adjacency)


# ---------------------------------------------- exactness on non-chordal graphs


@pytest.mark.parametrize("graph_name", sorted(NON_CHORDAL))
def test_node_move_matches_rejection_sampling(graph_name):
    graph = NON_CHORDAL[graph_name]
    generator = HitAndRunUniform(n_chains=16, random_state=0).fit(graph)
    draws = generator.sample(REFERENCE_SIZE[graph_name])
    assert_matches(
        statistics(draws, check_adjacency(graph)), rejection_reference(graph_name)
    )


@pytest.mark.parametrize("graph_name", sorted(NON_CHORDAL))
def test_edge_move_matches_rejection_sampling(graph_name):
    # 4000 draws (the edge move needs 20 sweeps between draws): the test still
    # detects CDF differences of about 0.045; 64 chains amortise the per-move
    # overhead (the law does not depend on the number of chains).
    graph = NON_CHORDAL[graph_name]
    generator = HitAndRunUniform("edge", n_chains=64, n_burn_in=50, random_state=0)
    draws = generator.fit(graph).sample(N_DRAWS // 2)
    assert_matches(
        statistics(draws, check_adjacency(graph)), rejection_reference(graph_name)
    )


@pytest.mark.parametrize("graph_name", ["cycle5", "grid3x3"])
def test_rejection_test_rejects_triangulated_orthogonalization(graph_name):
    # Not on the 4-cycle: there Algorithm 5 is indistinguishable from uniform (also
    # at 1e5 draws, docs/hit_and_run.md); the biased kernels below show power there.
    graph = NON_CHORDAL[graph_name]
    generator = TriangulatedOrthogonalization(random_state=0).fit(graph)
    draws = generator.sample(REFERENCE_SIZE[graph_name])
    p_values = ks_p_values(
        statistics(draws, check_adjacency(graph)), rejection_reference(graph_name)
    )
    assert p_values.min() < POWER_P_VALUE


def _shrunk_interval(k_ii, k_jj, k_ij, original=hit_and_run._edge_interval):
    """A wrong kernel: the central 90% of the feasible interval."""
    lower, upper = original(k_ii, k_jj, k_ij)
    middle, half = (lower + upper) / 2, (upper - lower) / 2 * 0.9
    return middle - half, middle + half


def _radius_tilted_ball(
    rng, n_points, dimension, original=hit_and_run._uniform_in_ball
):
    """A wrong kernel: density of the radius ~ r^d instead of r^(d - 1)."""
    points, squared_radius = original(rng, n_points, dimension)
    radius = rng.random_sample(n_points) ** (1.0 / (dimension + 1))
    return points * (radius / np.sqrt(squared_radius))[:, None], radius**2


@pytest.mark.parametrize(
    "move, attribute, wrong",
    [
        ("edge", "_edge_interval", _shrunk_interval),
        ("node", "_uniform_in_ball", _radius_tilted_ball),
    ],
)
def test_rejection_test_rejects_biased_kernels(monkeypatch, move, attribute, wrong):
    monkeypatch.setattr(hit_and_run, attribute, wrong)
    graph = NON_CHORDAL["cycle4"]
    generator = HitAndRunUniform(move, n_chains=64, n_burn_in=50, random_state=0)
    draws = generator.fit(graph).sample(N_DRAWS // 2)
    p_values = ks_p_values(
        statistics(draws, check_adjacency(graph)), rejection_reference("cycle4")
    )
    assert p_values.min() < POWER_P_VALUE


# --------------------------------------------------- exactness on chordal graphs


@pytest.mark.parametrize("move", ["node", "edge"])
@pytest.mark.parametrize("graph_name", ["diamond", "chordal_random"])
def test_chordal_graphs_match_uniform_chordal(graph_name, move):
    graph = GRAPHS[graph_name]
    adjacency = check_adjacency(graph)
    n = N_DRAWS if move == "node" else N_DRAWS // 4
    exact = UniformChordal(random_state=3).fit(graph).sample(N_DRAWS)
    generator = HitAndRunUniform(move, n_chains=64, random_state=3)
    if move == "edge":
        generator.set_params(n_burn_in=50)
    draws = generator.fit(graph).sample(n)
    assert_matches(statistics(draws, adjacency), statistics(exact, adjacency))


@pytest.mark.parametrize("p", [4, 7])
def test_complete_graph_entries_are_beta(p):
    """On the full elliptope every (m_ij + 1) / 2 ~ Beta(p/2, p/2) (exact law)."""
    graph = nx.complete_graph(p)
    draws = HitAndRunUniform(n_chains=16, random_state=1).fit(graph).sample(N_DRAWS)
    rows, cols = edge_index(check_adjacency(graph))
    beta = stats.beta(p / 2, p / 2)
    p_values = [
        stats.kstest((draws[:, i, j] + 1) / 2, beta.cdf).pvalue
        for i, j in zip(rows, cols, strict=True)
    ]
    assert min(p_values) > ALPHA / len(p_values)


# ------------------------------------------------------------------------ mixing


@pytest.mark.parametrize(
    "graph",
    [*NON_CHORDAL.values(), GRAPHS["complete"], GRAPHS["erdos_renyi"]],
    ids=[*NON_CHORDAL, "complete6", "erdos_renyi15"],
)
def test_default_draws_are_practically_independent(graph):
    # 4000 draws per chain: the estimate's standard error is 1/sqrt(16000) = 0.008,
    # so the maximum over <= 40 statistics of a true value near 0 (measured
    # <= 0.01) stays below 0.03; a chain with lag-1 autocorrelation 0.05 would give
    # estimates around 0.05 and fail.
    generator = HitAndRunUniform(random_state=2).fit(graph)
    draws = generator.sample(16000)
    adjacency = check_adjacency(graph)
    assert np.abs(within_chain_lag1(draws, adjacency, 4)).max() < 0.03
    # Consecutive returned draws (different chains) are independent too.
    assert np.abs(within_chain_lag1(draws, adjacency, 1)).max() < 0.03


def test_lag1_statistic_catches_an_unthinned_edge_chain():
    graph = NON_CHORDAL["grid3x3"]
    generator = HitAndRunUniform("edge", thinning=1, random_state=2).fit(graph)
    with pytest.warns(PoorMixingWarning, match="lag-1"):
        draws = generator.sample(8000)
    # Measured 0.12 for the worst entry: the criterion above would fail.
    assert within_chain_lag1(draws, check_adjacency(graph), 4).max() > 0.05


# ------------------------------------------------------------------- diagnostics


def test_diagnostics_after_sampling():
    generator = HitAndRunUniform(random_state=0).fit(NON_CHORDAL["grid3x3"])
    assert not hasattr(generator, "diagnostics_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a well-mixing chain raises no warning
        generator.sample(2000)
    diagnostics = generator.diagnostics_
    assert generator.edges_.shape == (12, 2)
    assert generator.effective_sample_size_.shape == generator.r_hat_.shape == (12,)
    assert diagnostics["n_draws"] == 2000 and diagnostics["n_chains"] == 4
    assert diagnostics["acceptance_rate"] == 1.0
    assert diagnostics["warnings"] == []
    # Practically independent draws: ESS close to N, R-hat close to 1.
    assert diagnostics["min_effective_sample_size"] > 0.7 * 2000
    assert diagnostics["max_r_hat"] < 1.01
    assert diagnostics["log_det_r_hat"] < 1.01
    assert diagnostics["max_lag1_autocorrelation"] < 0.1
    # Measured 1.1e-9 (node moves refresh after a 1e4-fold cancellation; 4.7e-11
    # with the edge moves' 1e2 rule), four orders below the warning tolerance.
    assert diagnostics["max_inverse_drift"] < 1e-8
    assert diagnostics["n_moves"] > 0 and diagnostics["n_inverse_refreshes"] > 0


def test_diagnostics_accumulate_over_calls():
    generator = HitAndRunUniform(random_state=0).fit(NON_CHORDAL["cycle4"])
    generator.sample(40)
    assert generator.diagnostics_["n_draws"] == 40
    generator.sample(60)
    assert generator.diagnostics_["n_draws"] == 100
    generator.sample(1)  # rounds grew by 1%: diagnostics are not recomputed yet
    assert generator.diagnostics_["n_draws"] == 100


def test_poorly_mixing_chain_warns():
    # Edge moves without thinning on a dense graph: measured lag-1 ~0.5, ESS ~N/4.
    generator = HitAndRunUniform("edge", thinning=1, random_state=0)
    generator.fit(nx.complete_graph(6))
    with pytest.warns(PoorMixingWarning) as record:
        generator.sample(2400)
    messages = " ".join(str(w.message) for w in record)
    assert "lag-1" in messages and "effective sample size" in messages
    assert generator.diagnostics_["warnings"]


def names(q: int) -> list[str]:
    return [f"quantity {k}" for k in range(q)]


@pytest.mark.parametrize(
    "shape", [(5, 4, 300), (25, 4, 13), (25, 4, 300), (600, 4, 60)]
)
def test_warning_checks_are_calibrated_on_independent_draws(shape):
    # Independent draws must pass: 20 replicates per shape, at a level of 1e-3 each.
    # Small shapes are where a fixed threshold (e.g. R-hat < 1.01) would fire.
    rng = np.random.RandomState(0)
    for _ in range(20):
        summary = _mcmc.mixing_diagnostics(rng.standard_normal(shape))
        assert _mcmc.mixing_problems(summary, names(shape[2]), "") == []


def test_warning_checks_detect_disagreeing_and_autocorrelated_chains():
    rng = np.random.RandomState(1)
    n, q = 600, 20
    shifted = rng.standard_normal((n, 4, q))
    shifted[:, 0, 3] += 0.5  # one chain sits half a standard deviation away
    problems = _mcmc.mixing_problems(_mcmc.mixing_diagnostics(shifted), names(q), "")
    assert any("R-hat" in message for message in problems)
    noise = rng.standard_normal((n, 4, q))
    ar = np.empty_like(noise)
    ar[0] = noise[0]
    for t in range(1, n):  # AR(1) with rho = 0.5: ESS/N = 1/3
        ar[t] = 0.5 * ar[t - 1] + np.sqrt(0.75) * noise[t]
    summary = _mcmc.mixing_diagnostics(ar)
    problems = _mcmc.mixing_problems(summary, names(q), "")
    assert any("lag-1" in message for message in problems)
    assert any("effective sample size" in message for message in problems)
    np.testing.assert_allclose(np.median(summary["ess"]) / (4 * n), 1 / 3, atol=0.05)


# ---------------------------------------------------------------------- numerics


def _widened_interval(k_ii, k_jj, k_ij, original=hit_and_run._edge_interval):
    lower, upper = original(k_ii, k_jj, k_ij)
    return lower * 1.02, upper * 1.02


def _widened_ball(rng, n_points, dimension, original=hit_and_run._uniform_in_ball):
    points, squared_radius = original(rng, n_points, dimension)
    return points * 1.02, squared_radius * 1.02**2


@pytest.mark.parametrize(
    "move, attribute, wrong",
    [
        ("edge", "_edge_interval", _widened_interval),
        ("node", "_uniform_in_ball", _widened_ball),
    ],
)
def test_boundary_check_redraws_moves_that_leave_the_set(
    monkeypatch, move, attribute, wrong
):
    # Simulate rounding errors far larger than real ones: sections 2% too wide and
    # a check zone of 5%. Every exit must be caught and redrawn.
    monkeypatch.setattr(hit_and_run, attribute, wrong)
    monkeypatch.setattr(hit_and_run, "_BOUNDARY_MARGIN", 0.05)
    graph = NON_CHORDAL["grid3x3"]
    generator = HitAndRunUniform(move, n_burn_in=5, thinning=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the drift is real here
        draws = generator.fit(graph).sample(400)
    assert_valid_draws(draws, check_adjacency(graph))
    assert generator.diagnostics_["n_boundary_redraws"] > 0
    assert (
        generator.diagnostics_["n_boundary_checks"]
        > (generator.diagnostics_["n_boundary_redraws"])
    )


def test_inverse_drift_above_tolerance_warns(monkeypatch):
    monkeypatch.setattr(hit_and_run, "_DRIFT_TOLERANCE", 0.0)
    generator = HitAndRunUniform(random_state=0).fit(NON_CHORDAL["cycle5"])
    with pytest.warns(RuntimeWarning, match="drifted"):
        generator.sample(8)


# ---------------------------------------------------------------------- contract


@pytest.mark.parametrize("move", ["node", "edge"])
def test_valid_draws_on_every_graph_kind(move, graph_name):
    graph = GRAPHS[graph_name]
    generator = HitAndRunUniform(move, n_burn_in=3, thinning=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PoorMixingWarning)  # few sweeps on purpose
        draws = generator.fit(graph).sample(21)
    adjacency = check_adjacency(graph)
    assert draws.shape[0] == 21
    assert_valid_draws(draws, adjacency)
    assert np.all(draws[:, adjacency] != 0.0)


def test_graph_without_edges_gives_the_identity():
    generator = HitAndRunUniform(random_state=0).fit(nx.empty_graph(3))
    np.testing.assert_array_equal(generator.sample(5), np.tile(np.eye(3), (5, 1, 1)))
    assert generator.edges_.shape == (0, 2)
    assert generator.diagnostics_["warnings"] == []


def test_random_state_and_continuation_semantics():
    graph = NON_CHORDAL["cycle5"]
    first = HitAndRunUniform(random_state=7).fit(graph)
    second = HitAndRunUniform(random_state=7).fit(graph)
    a1, a2 = first.sample(3), first.sample(6)
    np.testing.assert_array_equal(a1, second.sample(3))
    np.testing.assert_array_equal(a2, second.sample(6))
    # Calls continue the chains: sample(3) + sample(6) is sample(9) exactly.
    whole = HitAndRunUniform(random_state=7).fit(graph).sample(9)
    np.testing.assert_array_equal(np.concatenate([a1, a2]), whole)
    # Fresh draws, all distinct (the 4 chains and successive rounds differ).
    rows, cols = edge_index(check_adjacency(graph))
    assert np.unique(whole[:, rows[0], cols[0]]).size == 9
    # Refitting restarts the stream; iter_samples agrees with sample.
    np.testing.assert_array_equal(first.fit(graph).sample(9), whole)
    batches = list(first.fit(graph).iter_samples(9, batch_size=4))
    np.testing.assert_array_equal(np.concatenate(batches), whole)
    # A different seed gives different draws.
    assert not np.allclose(HitAndRunUniform(random_state=8).fit(graph).sample(9), whole)


def test_a_single_chain_is_diagnosed_by_its_halves():
    generator = HitAndRunUniform(n_chains=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        generator.fit(NON_CHORDAL["cycle5"]).sample(400)
    assert generator.diagnostics_["n_chains"] == 1
    assert generator.diagnostics_["max_r_hat"] < 1.05
    assert generator.diagnostics_["min_effective_sample_size"] > 200


@pytest.mark.parametrize("start", ["identity", "triangulated"])
def test_starts(start):
    graph = NON_CHORDAL["grid3x3"]
    generator = HitAndRunUniform(start=start, n_burn_in=0, random_state=0).fit(graph)
    first_states = generator._chains.matrix
    identical = np.allclose(first_states, np.eye(9))
    assert identical == (start == "identity")
    assert_valid_draws(generator.sample(8), check_adjacency(graph))


def test_defaults_and_sklearn_contract():
    generator = HitAndRunUniform(random_state=3)
    assert clone(generator).get_params() == generator.get_params()
    with pytest.raises(NotFittedError):
        generator.sample(1)
    generator.fit(NON_CHORDAL["cycle4"])
    assert (generator.n_burn_in_, generator.thinning_) == (20, 1)
    assert not hasattr(clone(generator), "edges_")
    edge = HitAndRunUniform("edge").fit(NON_CHORDAL["cycle4"])
    assert (edge.n_burn_in_, edge.thinning_) == (100, 20)
    custom = HitAndRunUniform(n_burn_in=0, thinning=3).fit(NON_CHORDAL["cycle4"])
    assert (custom.n_burn_in_, custom.thinning_) == (0, 3)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"move": "gibbs"}, "move"),
        ({"n_burn_in": -1}, "n_burn_in"),
        ({"thinning": 0}, "thinning"),
        ({"thinning": 1.5}, "thinning"),
        ({"n_chains": 0}, "n_chains"),
        ({"start": "random"}, "start"),
        ({"random_state": "seed"}, "random_state"),
    ],
)
def test_invalid_parameters_are_reported_at_fit(params, message):
    generator = HitAndRunUniform(**params)  # no validation in __init__
    with pytest.raises(ValueError, match=message):
        generator.fit(NON_CHORDAL["cycle4"])


def test_bad_graph_and_bad_n_samples_get_clear_errors():
    with pytest.raises(ValueError, match="symmetric"):
        HitAndRunUniform().fit([[0, 1], [0, 0]])
    generator = HitAndRunUniform(random_state=0).fit(NON_CHORDAL["cycle4"])
    for bad in (0, -1, 2.5, None):
        with pytest.raises(ValueError, match="n_samples"):
            generator.sample(bad)
