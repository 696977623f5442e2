"""The compiled sweep of the covariance completion
(``skggm_bench.generators._completion_sweep``) and the completion built on it:
one sweep is the written-out iterative regressions to rounding, on random
positive definite batches and every kind of graph (isolated nodes, complete,
p = 1); the completions meet their defining conditions; draws do not depend on
how a batch is cut into chunks."""

import networkx as nx
import numpy as np
import pytest

from skggm_bench.generators import GWishart, _covariance_completion
from skggm_bench.generators._completion_sweep import gather, scatter, sweep
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


@pytest.mark.parametrize("name", list(GRAPHS))
@pytest.mark.parametrize("ill_conditioned", [False, True])
def test_compiled_sweep_is_the_written_out_sweep(name, ill_conditioned):
    adjacency = GRAPHS[name]
    p = adjacency.shape[0]
    neighbours = _neighbours(adjacency)
    sigma = _random_spd(6, p, seed=p, condition=ill_conditioned)
    W = sigma.copy()
    expected = sigma.copy()
    for _ in range(3):  # later sweeps start off sigma's off-graph entries
        sweep(W, *_graph_arrays(neighbours, p))
        expected = np.array([reference_sweep(w, neighbours) for w in expected])
        scale = np.abs(expected).max()
        np.testing.assert_allclose(W, expected, rtol=0, atol=1e-12 * scale)
    # The diagonal and the edges are never written: sigma's, bit for bit.
    free = adjacency | np.eye(p, dtype=bool)
    np.testing.assert_array_equal(W[:, free], sigma[:, free])
    np.testing.assert_array_equal(W, np.swapaxes(W, 1, 2))


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


def test_a_block_that_is_not_positive_definite_raises():
    adjacency = GRAPHS["path"]
    p = adjacency.shape[0]
    W = _random_spd(3, p, seed=0)
    W[1, 0, 0] = -1.0  # in node 1's block W[N, N] (N = nodes 0 and 2)
    with pytest.raises(np.linalg.LinAlgError, match="matrix 1"):
        sweep(W, *_graph_arrays(_neighbours(adjacency), p))
    W = _random_spd(2, p, seed=0)
    W[0, 0, 0] = np.nan
    with pytest.raises(np.linalg.LinAlgError, match="matrix 0"):
        sweep(W, *_graph_arrays(_neighbours(adjacency), p))


def test_sweep_rejects_a_graph_of_another_size():
    graph = _graph_arrays(_neighbours(GRAPHS["path"]), 5)
    with pytest.raises(ValueError, match="length p"):
        sweep(_random_spd(2, 4, seed=0), *graph)


@pytest.mark.parametrize("name", ["erdos_renyi", "complete", "single_node"])
def test_off_graph_entries_are_gathered_and_scattered_as_numpy_indexes(name):
    adjacency = GRAPHS[name]
    p = adjacency.shape[0]
    first, second = _off_graph_pairs(_graph_arrays(_neighbours(adjacency), p))
    expected_first, expected_second = np.nonzero(
        np.triu(~(adjacency | np.eye(p, dtype=bool)), 1)
    )
    np.testing.assert_array_equal(first, expected_first)
    np.testing.assert_array_equal(second, expected_second)
    W = _random_spd(4, p, seed=1)
    values = gather(W, first, second)
    np.testing.assert_array_equal(values, W[:, first, second])
    assert values.flags.c_contiguous
    expected = W.copy()
    expected[:, first, second] = expected[:, second, first] = 2.0 * values
    scatter(W, first, second, 2.0 * values)
    np.testing.assert_array_equal(W, expected)
    with pytest.raises(ValueError, match="values must be"):
        scatter(W, first, second, values[:1] if first.size else np.zeros((3, 0)))


def test_completion_does_not_depend_on_the_chunking(monkeypatch):
    # Each draw runs its own iteration: cut into chunks of 3 draws (and of 1),
    # the batch gives the same matrices bit for bit as in one chunk.
    adjacency = GRAPHS["erdos_renyi"]
    p = adjacency.shape[0]
    sigma = _random_spd(10, p, seed=5, condition=True)
    neighbours = _neighbours(adjacency)
    whole, _ = complete_covariance_batch(sigma, neighbours, 1e-8, 1000)
    for draws in (3, 1):
        monkeypatch.setattr(_covariance_completion, "_CHUNK_ENTRIES", draws * p * p)
        chunked, _ = complete_covariance_batch(sigma, neighbours, 1e-8, 1000)
        np.testing.assert_array_equal(chunked, whole)


def test_lenkoski_draws_are_reproducible_and_independent_of_the_chunking(
    monkeypatch,
):
    graph = nx.gnp_random_graph(30, 0.1, seed=3)

    def draws():
        return GWishart(method="lenkoski", random_state=7).fit(graph).sample(12)

    first = draws()
    np.testing.assert_array_equal(draws(), first)
    monkeypatch.setattr(_covariance_completion, "_CHUNK_ENTRIES", 5 * 30 * 30)
    np.testing.assert_array_equal(draws(), first)
    other = GWishart(method="lenkoski", random_state=8).fit(graph).sample(12)
    assert not np.allclose(other, first)
