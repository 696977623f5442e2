"""The compiled covariance completion (``skggm_bench.generators._completion_sweep``)
and the batch function built on it: its plain sweeps are the written-out iterative
regressions to rounding, on random positive definite batches and every kind of
graph (isolated nodes, complete, p = 1); the completions meet their defining
conditions; a draw does not depend on the rest of its batch; a failure stays with
its draw."""

import networkx as nx
import numpy as np
import pytest

from skggm_bench.generators import GWishart, _covariance_completion
from skggm_bench.generators._completion_sweep import complete
from skggm_bench.generators._covariance_completion import (
    _graph_arrays,
    _off_graph_pairs,
    complete_covariance_batch,
)
from skggm_bench.generators.g_wishart import sample_wishart


def reference_sweep(W, neighbours):
    """Hastie, Tibshirani & Friedman's Algorithm 17.1, one pass, node by node."""
    W = W.copy()
    p = W.shape[0]
    for j in range(p):
        nbrs = neighbours[j]
        column = np.zeros(p)
        if nbrs.size:
            beta = np.linalg.solve(W[np.ix_(nbrs, nbrs)], W[nbrs, j])
            column = W[:, nbrs] @ beta
        column[nbrs] = W[nbrs, j]  # sigma's entries stay exact
        column[j] = W[j, j]
        W[:, j] = W[j, :] = column
    return W


def _neighbours(adjacency):
    return [np.flatnonzero(row) for row in adjacency]


def _graphs():
    rng = np.random.RandomState(0)
    er = nx.to_numpy_array(nx.gnp_random_graph(25, 0.15, seed=1)) != 0
    with_isolated = er.copy()
    with_isolated[[3, 17], :] = with_isolated[:, [3, 17]] = False
    dense = np.triu(rng.uniform(size=(12, 12)) < 0.6, 1)
    return {
        "erdos_renyi": er,
        "isolated_nodes": with_isolated,
        "no_edges": np.zeros((6, 6), dtype=bool),
        "complete": ~np.eye(7, dtype=bool),
        "dense": dense | dense.T,
        "path": nx.to_numpy_array(nx.path_graph(5)) != 0,
        "single_node": np.zeros((1, 1), dtype=bool),
    }


GRAPHS = _graphs()


def _random_spd(n, p, seed, condition=False):
    """Random positive definite matrices; inverse Wishart (ill-conditioned) too."""
    rng = np.random.RandomState(seed)
    if condition:
        psi = sample_wishart(p + 2.0, np.eye(p), n, rng)
        sigma = np.linalg.inv(psi)
    else:
        a = rng.standard_normal((n, p, 2 * p))
        sigma = a @ np.swapaxes(a, 1, 2) / (2 * p)
    return 0.5 * (sigma + np.swapaxes(sigma, 1, 2))


def _sweeps(W, neighbours, n_sweeps, memory=0, threshold=-1.0):
    """The kernel on W in place; a negative threshold: exactly n_sweeps sweeps."""
    p = W.shape[1]
    graph = _graph_arrays(neighbours, p)
    first, second = _off_graph_pairs(graph)
    thresholds = np.full(W.shape[0], threshold)
    return complete(W, *graph, first, second, thresholds, n_sweeps, memory)


@pytest.mark.parametrize("name", list(GRAPHS))
@pytest.mark.parametrize("ill_conditioned", [False, True])
def test_compiled_sweeps_are_the_written_out_sweeps(name, ill_conditioned):
    adjacency = GRAPHS[name]
    p = adjacency.shape[0]
    neighbours = _neighbours(adjacency)
    sigma = _random_spd(6, p, seed=p, condition=ill_conditioned)
    expected = sigma.copy()
    for n_sweeps in (1, 2, 3):  # later sweeps start off sigma's off-graph entries
        W = sigma.copy()
        outcome = _sweeps(W, neighbours, n_sweeps)
        np.testing.assert_array_equal(outcome, -1)  # not converged: all sweeps done
        expected = np.array([reference_sweep(w, neighbours) for w in expected])
        scale = np.abs(expected).max()
        np.testing.assert_allclose(W, expected, rtol=0, atol=1e-12 * scale)
    # The diagonal and the edges are never written: sigma's, bit for bit.
    free = adjacency | np.eye(p, dtype=bool)
    np.testing.assert_array_equal(W[:, free], sigma[:, free])
    np.testing.assert_array_equal(W, np.swapaxes(W, 1, 2))


@pytest.mark.parametrize("memory", [0, 4])
def test_the_kernel_stops_each_matrix_at_its_own_threshold(memory):
    # Sweeps until the last one moved no off-graph entry by more than the matrix's
    # threshold: one more plain sweep moves nothing beyond it.
    adjacency = GRAPHS["erdos_renyi"]
    neighbours = _neighbours(adjacency)
    one = _random_spd(1, adjacency.shape[0], seed=3, condition=True)
    sigma = np.repeat(one, 5, axis=0)
    thresholds = np.array([1e-4, 1e-6, 1e-8, 1e-10, 1e-12])
    W = sigma.copy()
    p = W.shape[1]
    graph = _graph_arrays(neighbours, p)
    first, second = _off_graph_pairs(graph)
    sweeps = complete(W, *graph, first, second, thresholds, 1000, memory)
    assert np.all(sweeps > 0) and np.all(np.diff(sweeps) >= 0), sweeps
    again = W.copy()
    _sweeps(again, neighbours, 1)
    moved = np.abs(again - W)[:, first, second].max(axis=1)
    # The returned matrix is the last sweep of the (accelerated) iteration: one
    # more moves it by about as much as that sweep did, not more than 10 times.
    assert np.all(moved <= 10 * thresholds), moved / thresholds


@pytest.mark.parametrize("name", list(GRAPHS))
@pytest.mark.parametrize("accelerate", [True, False])
def test_completion_meets_its_defining_conditions(name, accelerate):
    # W equals sigma on the diagonal and the edges, and W^{-1} vanishes off the
    # graph; on inverse Wishart inputs, Lenkoski's ill-conditioned ones.
    adjacency = GRAPHS[name]
    p = adjacency.shape[0]
    sigma = _random_spd(8, p, seed=10 + p, condition=True)
    W, n_iter = complete_covariance_batch(
        sigma, _neighbours(adjacency), 1e-13, 2000, accelerate=accelerate
    )
    free = adjacency | np.eye(p, dtype=bool)
    np.testing.assert_array_equal(W[:, free], sigma[:, free])
    inverse = np.linalg.inv(W)
    scale = np.abs(inverse).max(axis=(1, 2))
    off = np.abs(inverse[:, ~free]).max(axis=1, initial=0.0)
    assert np.all(off <= 1e-9 * scale), off / scale
    assert np.all(np.linalg.eigvalsh(W) > 0)
    assert n_iter >= 1


@pytest.mark.parametrize("memory", [0, 4])
def test_a_failed_sweep_is_reported_for_its_matrix_alone(memory):
    adjacency = GRAPHS["path"]
    p = adjacency.shape[0]
    neighbours = _neighbours(adjacency)
    sigma = _random_spd(4, p, seed=0)
    sigma[1, 0, 0] = -1.0  # in node 1's block W[N, N] (N = nodes 0 and 2)
    sigma[2, 0, 4] = sigma[2, 4, 0] = np.nan  # off the graph: a non-finite change
    W = sigma.copy()
    sweeps = _sweeps(W, neighbours, 100, memory, threshold=1e-10)
    np.testing.assert_array_equal(sweeps[1:3], -2)
    expected = sigma[[0, 3]].copy()
    np.testing.assert_array_equal(
        _sweeps(expected, neighbours, 100, memory, threshold=1e-10), sweeps[[0, 3]]
    )
    np.testing.assert_array_equal(W[[0, 3]], expected)
    with pytest.raises(np.linalg.LinAlgError, match="2 of 4 matrices"):
        complete_covariance_batch(sigma, neighbours, 1e-10, 100)


def test_kernel_rejects_a_graph_of_another_size():
    graph = _graph_arrays(_neighbours(GRAPHS["path"]), 5)
    first, second = _off_graph_pairs(graph)
    with pytest.raises(ValueError, match="length p"):
        complete(_random_spd(2, 4, seed=0), *graph, first, second, np.ones(2), 1, 0)
    with pytest.raises(ValueError, match="threshold must have length n"):
        complete(_random_spd(2, 5, seed=0), *graph, first, second, np.ones(3), 1, 0)


def test_off_graph_pairs_are_the_upper_triangle_off_the_graph():
    for adjacency in GRAPHS.values():
        p = adjacency.shape[0]
        first, second = _off_graph_pairs(_graph_arrays(_neighbours(adjacency), p))
        expected = np.nonzero(np.triu(~(adjacency | np.eye(p, dtype=bool)), 1))
        np.testing.assert_array_equal(first, expected[0])
        np.testing.assert_array_equal(second, expected[1])


@pytest.mark.parametrize("accelerate", [True, False])
def test_completion_does_not_depend_on_the_chunking(accelerate):
    # Each draw runs its own iteration: cut into chunks of 3 draws (and of 1), or
    # reversed, the batch gives the same matrices bit for bit as in one call.
    adjacency = GRAPHS["erdos_renyi"]
    sigma = _random_spd(10, adjacency.shape[0], seed=5, condition=True)
    neighbours = _neighbours(adjacency)

    def completions(batch):
        return complete_covariance_batch(
            batch, neighbours, 1e-8, 1000, accelerate=accelerate
        )[0]

    whole = completions(sigma)
    for size in (3, 1):
        chunks = [completions(sigma[k : k + size]) for k in range(0, 10, size)]
        np.testing.assert_array_equal(np.concatenate(chunks), whole)
    np.testing.assert_array_equal(completions(sigma[::-1])[::-1], whole)


def test_failed_extrapolations_are_redone_with_plain_sweeps(monkeypatch):
    # An extrapolation that leaves the domain must cost time, never the answer:
    # the draws it broke are redone with plain sweeps from sigma, the others kept.
    adjacency = GRAPHS["erdos_renyi"]
    sigma = _random_spd(5, adjacency.shape[0], seed=6, condition=True)
    neighbours = _neighbours(adjacency)
    fast, _ = complete_covariance_batch(sigma, neighbours, 1e-12, 1000)
    plain, _ = complete_covariance_batch(
        sigma, neighbours, 1e-12, 1000, accelerate=False
    )
    kernel = _covariance_completion.complete

    def breaking(W, *arguments):
        sweeps = kernel(W, *arguments)
        if arguments[-1] and len(W) == 5:  # accelerated, the whole batch
            W[[1, 3]] = np.nan
            sweeps[[1, 3]] = -2
        return sweeps

    monkeypatch.setattr(_covariance_completion, "complete", breaking)
    W, _ = complete_covariance_batch(sigma, neighbours, 1e-12, 1000)
    np.testing.assert_array_equal(W[[1, 3]], plain[[1, 3]])
    np.testing.assert_array_equal(W[[0, 2, 4]], fast[[0, 2, 4]])


def test_lenkoski_draws_are_reproducible():
    graph = nx.gnp_random_graph(30, 0.1, seed=3)

    def draws(seed):
        return GWishart(method="lenkoski", random_state=seed).fit(graph).sample(12)

    first = draws(7)
    np.testing.assert_array_equal(draws(7), first)
    assert not np.allclose(draws(8), first)
