"""Partial orthogonalization: the batched algorithm is the paper's, and its laws.

Two kinds of evidence.

* Same draws. ``orthogonalized_gram`` reads the rows only through their inner
  products, from a lower triangular factor of their Gram matrix. Fed with the
  Cholesky factor of ``U U^T`` it must reproduce, up to rounding, the paper's loop
  written out naively below (explicit rows, each projected off the span of its
  earlier non-neighbours by the normal equations, then normalised), for any rows
  ``U``; and processing draws one at a time (``chunk_size=1``) must give the same
  draws as the batches.
* Same law. ``PartialOrthogonalization`` draws the factor in Bartlett form instead of
  a full Gaussian matrix (same Wishart Gram matrix, hence the same law, not the
  same draws as the paper's loop for a given seed), and
  ``TriangulatedOrthogonalization`` draws a uniform factor on the triangulation.
  Their laws are tested against closed forms and independent references, and every
  test is run on a plausible wrong variant that it must reject.

Acceptance criterion (as in test_uniform_chordal.py): a family of KS tests passes
when its smallest p-value exceeds ALPHA / (number of tests), ALPHA = 1e-3
(Bonferroni); wrong variants must give p-values below POWER_P_VALUE = 1e-6.
"""

import functools

import networkx as nx
import numpy as np
import pytest
from scipy import stats

from skggm_bench.generators import (
    PartialOrthogonalization,
    TriangulatedOrthogonalization,
)
from skggm_bench.generators._orthogonalization import (
    earlier_neighbours,
    orthogonalized_gram,
    orthogonalized_grams,
    packed_factor_chunks,
)
from skggm_bench.generators.partial_orthogonalization import sample_bartlett_factors
from skggm_bench.graphs import check_adjacency
from tests.conftest import GRAPHS, assert_valid_draws

ALPHA = 1e-3
POWER_P_VALUE = 1e-6


def paper_loop(rows: np.ndarray, adjacency: np.ndarray) -> np.ndarray:
    """Algorithm 2 of the paper on explicit rows, batched over draws only.

    For i = 0, 1, ...: q_i = u_i minus its projection on span{q_j : j < i, j not
    adjacent to i} (normal equations), then q_i /= |q_i|. Returns Q Q^T.
    """
    q = np.array(rows, dtype=float)
    p = q.shape[1]
    for i in range(p):
        others = [j for j in range(i) if not adjacency[i, j]]
        if others:
            basis = q[:, others]  # (n, |S|, d)
            gram = basis @ np.swapaxes(basis, 1, 2)
            coefficients = np.linalg.solve(gram, basis @ q[:, i, :, None])
            q[:, i] -= (np.swapaxes(basis, 1, 2) @ coefficients)[..., 0]
        q[:, i] /= np.linalg.norm(q[:, i], axis=1)[:, None]
    return q @ np.swapaxes(q, 1, 2)


def gram_of_rows(rows: np.ndarray, adjacency: np.ndarray, **kwargs) -> np.ndarray:
    """The package's algorithm on the Cholesky factor of the rows' Gram matrix."""
    factor = np.linalg.cholesky(rows @ np.swapaxes(rows, 1, 2))
    return orthogonalized_gram(
        lambda start, stop: factor[start:stop].copy(),
        factor.shape[0],
        earlier_neighbours(adjacency),
        **kwargs,
    )


def bartlett_gram(diagonal, lower, adjacency) -> np.ndarray:
    """The package's algorithm on packed Bartlett factors."""
    return orthogonalized_gram(
        packed_factor_chunks(diagonal, lower),
        diagonal.shape[0],
        earlier_neighbours(adjacency),
    )


def upper_statistics(draws: np.ndarray, adjacency: np.ndarray) -> np.ndarray:
    """Every edge entry and log det M, shape (n, n_edges + 1)."""
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    return np.column_stack([draws[:, rows, cols], np.linalg.slogdet(draws)[1]])


def two_sample_p_values(draws, reference, adjacency) -> np.ndarray:
    a, b = upper_statistics(draws, adjacency), upper_statistics(reference, adjacency)
    return np.array(
        [stats.ks_2samp(x, y).pvalue for x, y in zip(a.T, b.T, strict=True)]
    )


# ------------------------------------------------------------------ same draws

LARGE = check_adjacency(nx.gnp_random_graph(70, 0.3, seed=4))  # three row blocks


@pytest.mark.parametrize(
    "adjacency",
    [
        check_adjacency(GRAPHS["grid3x3"]),
        check_adjacency(GRAPHS["erdos_renyi"]),
        check_adjacency(GRAPHS["complete"]),
        check_adjacency(GRAPHS["empty"]),
        LARGE,
    ],
    ids=["grid3x3", "erdos_renyi", "complete", "empty", "gnp70"],
)
@pytest.mark.parametrize("rows", ["gaussian", "uniform_wide"])
def test_batched_algorithm_reproduces_the_paper_loop(adjacency, rows):
    # Any rows: square Gaussian ones, and uniform entries in p + 5 dimensions (the
    # algorithm must not rely on Gaussianity or on square factors).
    p = adjacency.shape[0]
    rng = np.random.RandomState(0)
    if rows == "gaussian":
        u = rng.standard_normal((6, p, p))
    else:
        u = rng.uniform(-1, 1, (6, p, p + 5))
    expected = paper_loop(u, adjacency)
    np.testing.assert_allclose(gram_of_rows(u, adjacency), expected, atol=1e-10)


@pytest.mark.parametrize("size", [1, 5, 32, 69, 70])
def test_every_block_size_reproduces_the_paper_loop(monkeypatch, size):
    # Blocks of one row, ragged last blocks, one block short of p, one block: the
    # block-end updates of M^{-1} and of the later rows must not change the draws.
    from skggm_bench.generators import _orthogonalization

    monkeypatch.setattr(_orthogonalization, "block_rows", lambda p: size)
    u = np.random.RandomState(3).standard_normal((4, 70, 70))
    expected = paper_loop(u, LARGE)
    np.testing.assert_allclose(gram_of_rows(u, LARGE), expected, atol=1e-10)


def test_block_rows_grow_with_p_within_bounds():
    from skggm_bench.generators._orthogonalization import block_rows

    assert [block_rows(p) for p in (3, 100, 256, 500, 1000, 5000)] == [
        32,
        32,
        32,
        62,
        125,
        128,
    ]


def test_one_draw_at_a_time_gives_the_same_draws():
    u = np.random.RandomState(1).standard_normal((7, 70, 70))
    batched = gram_of_rows(u, LARGE)
    one_by_one = gram_of_rows(u, LARGE, chunk_size=1)
    np.testing.assert_allclose(one_by_one, batched, rtol=0, atol=1e-14)


@pytest.mark.parametrize("chunk_size", [1, 4, None])
def test_draws_on_different_graphs_in_one_batch_reproduce_the_paper_loop(chunk_size):
    """orthogonalized_grams: each draw on its own graph, chunks mixing graphs.

    The padded neighbour sets (the row itself, with a unit pivot) must change
    nothing: each draw is the paper's loop on its own graph, with exact zeros off
    it. A padding that leaked (a non-zero column or pivot) would fail both.
    """
    graphs = [
        LARGE,
        check_adjacency(nx.gnp_random_graph(70, 0.1, seed=5)),
        np.zeros((70, 70), dtype=bool),
        check_adjacency(nx.complete_graph(70)),
    ]
    graph_of_draw = np.array([0, 1, 1, 2, 3, 0, 2, 1, 3, 0])
    rng = np.random.RandomState(4)
    u = rng.standard_normal((graph_of_draw.size, 70, 70))
    factor = np.linalg.cholesky(u @ np.swapaxes(u, 1, 2))
    gram = orthogonalized_grams(
        lambda start, stop: factor[start:stop].copy(),
        [earlier_neighbours(g) for g in graphs],
        graph_of_draw,
        chunk_size=chunk_size,
    )
    for d, g in enumerate(graph_of_draw):
        expected = paper_loop(u[d : d + 1], graphs[g])[0]
        np.testing.assert_allclose(gram[d], expected, atol=1e-10)
        assert_valid_draws(gram[d : d + 1], graphs[g])


def test_raw_draws_have_exact_zeros_unit_diagonal_and_symmetry():
    # Before the base class cleans anything: the algorithm writes m_iN and m_Ni
    # from the same values and never touches a non-edge.
    diagonal, lower = sample_bartlett_factors(70, 5, np.random.RandomState(2))
    gram = bartlett_gram(diagonal, lower, LARGE)
    off_graph = ~LARGE & ~np.eye(70, dtype=bool)
    assert np.all(gram[:, off_graph] == 0.0)
    np.testing.assert_array_equal(gram, np.swapaxes(gram, 1, 2))
    np.testing.assert_array_equal(np.diagonal(gram, axis1=1, axis2=2), 1.0)
    assert np.linalg.eigvalsh(gram)[:, 0].min() > 0


def test_triangulated_orthogonalization_is_the_paper_loop_on_its_factor():
    # Same random stream: the uniform chordal factor U of the triangulation, then
    # the paper's loop on U's rows, must give the generator's draws.
    from skggm_bench.generators.uniform_chordal import sample_cholesky_factors

    graph = GRAPHS["grid3x3"]
    generator = TriangulatedOrthogonalization(random_state=3).fit(graph)
    factors = sample_cholesky_factors(
        generator._structure, 20, np.random.RandomState(3)
    )
    expected = paper_loop(factors, generator.adjacency_)
    np.testing.assert_allclose(generator.sample(20), expected, atol=1e-12)


# ------------------------------------------------ PartialOrthogonalization's law

CHAIN = check_adjacency(nx.path_graph(3))
N_CHAIN = 100_000


def chain_p_values(draws: np.ndarray) -> np.ndarray:
    """KS p-values of the 3-chain's closed-form law.

    q_0 and q_1 are independent uniform unit vectors of R^3 and q_2 is uniform on
    the circle orthogonal to q_0, so (m01, m12) are two coordinates of q_1 in the
    orthonormal frame (q_0, q_2, q_0 x q_2): each is uniform on [-1, 1] (Archimedes)
    and the third coordinate, +-sqrt(1 - m01^2 - m12^2), is uniform too.
    """
    m01, m12 = draws[:, 0, 1], draws[:, 1, 2]
    uniform = stats.uniform(-1, 2).cdf
    height = np.sqrt(np.clip(1.0 - m01**2 - m12**2, 0.0, None))
    # The asymptotic p-value: exact ones are slow for 10^5 draws and tiny p.
    return np.array(
        [
            stats.kstest(m01, uniform, method="asymp").pvalue,
            stats.kstest(m12, uniform, method="asymp").pvalue,
            stats.kstest(height, "uniform", method="asymp").pvalue,
        ]
    )


def test_partial_orthogonalization_three_chain_closed_form():
    draws = PartialOrthogonalization(random_state=0).fit(CHAIN).sample(N_CHAIN)
    assert chain_p_values(draws).min() > ALPHA / 3


def wrong_chain_draws(variant: str) -> np.ndarray:
    rng = np.random.RandomState(7)
    if variant == "rows in p + 3 dimensions":
        diagonal, lower = sample_bartlett_factors(3, N_CHAIN, rng, dimension=6)
        return bartlett_gram(diagonal, lower, CHAIN)
    if variant == "uniform entries in the rows":
        # The paper's loop on rows of uniform entries (through the batched
        # algorithm, which reproduces it exactly). Its law is close to the right
        # one: 10^5 draws give p ~ 1e-5, so this variant gets 3 x 10^5.
        rows = rng.uniform(-1, 1, (3 * N_CHAIN, 3, 3))
        return gram_of_rows(rows, CHAIN)
    # Bartlett factor with uniform instead of normal entries below the diagonal.
    diagonal, lower = sample_bartlett_factors(3, N_CHAIN, rng)
    lower = rng.uniform(-1, 1, lower.shape)
    return bartlett_gram(diagonal, lower, CHAIN)


@pytest.mark.parametrize(
    "variant",
    [
        "rows in p + 3 dimensions",
        "uniform entries in the rows",
        "uniform entries in the Bartlett factor",
    ],
)
def test_three_chain_closed_form_rejects_wrong_variants(variant):
    # Measured: p ~ 1e-140 (p + 3 dimensions), 1e-9 to 1e-20 over four seeds
    # (uniform rows, through the height statistic: each entry alone is nearly
    # uniform), ~ 0 (uniform Bartlett entries).
    assert chain_p_values(wrong_chain_draws(variant)).min() < POWER_P_VALUE


GRID = check_adjacency(GRAPHS["grid3x3"])
N_GRID = 5000


@functools.cache
def grid_reference() -> np.ndarray:
    """The paper's loop on independent standard Gaussian p x p rows."""
    rows = np.random.RandomState(11).standard_normal((N_GRID, 9, 9))
    return paper_loop(rows, GRID)


def test_partial_orthogonalization_matches_the_paper_loop_on_a_grid():
    # 13 KS tests (12 edge entries and log det M), 5000 draws on each side: the
    # family detects CDF differences of about 0.04.
    draws = PartialOrthogonalization(random_state=1).fit(GRID).sample(N_GRID)
    p_values = two_sample_p_values(draws, grid_reference(), GRID)
    assert p_values.min() > ALPHA / p_values.size, p_values


def test_grid_comparison_rejects_rows_in_more_dimensions():
    diagonal, lower = sample_bartlett_factors(
        9, N_GRID, np.random.RandomState(12), dimension=12
    )
    wrong = bartlett_gram(diagonal, lower, GRID)
    assert two_sample_p_values(wrong, grid_reference(), GRID).min() < POWER_P_VALUE


# ------------------------------------------- TriangulatedOrthogonalization's law

N_TRIANGULATED = 5000


def uniform_on_elliptope(adjacency: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Exact uniform draws on E_p(H): entries uniform on the cube, kept if PD."""
    rng = np.random.RandomState(seed)
    p = adjacency.shape[0]
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    kept, n_kept = [], 0
    while n_kept < n:
        matrices = np.tile(np.eye(p), (20_000, 1, 1))
        values = rng.uniform(-1, 1, (20_000, rows.size))
        matrices[:, rows, cols] = matrices[:, cols, rows] = values
        accepted = matrices[np.linalg.eigvalsh(matrices)[:, 0] > 0]
        kept.append(accepted)
        n_kept += accepted.shape[0]
    return np.concatenate(kept)[:n]


@functools.cache
def triangulated_reference(graph_name: str, wrong: bool = False) -> tuple:
    """Algorithm 5 from independent parts: an exact uniform draw W on the
    triangulation (rejection), rows U with U U^T = W, the paper's loop on them.

    ``wrong=True`` uses the rows of U^T instead (the factor multiplied the other
    way round, as in the reference R package), a plausible wrong variant.
    """
    graph = {"cycle5": nx.cycle_graph(5), "house": nx.house_graph()}[graph_name]
    generator = TriangulatedOrthogonalization(random_state=5).fit(graph)
    seed = 13 if wrong else 17
    within = uniform_on_elliptope(generator.triangulation_, N_TRIANGULATED, seed)
    rows = np.linalg.cholesky(within)
    if wrong:
        rows = np.swapaxes(rows, 1, 2)
    return generator, paper_loop(rows, generator.adjacency_)


@pytest.mark.parametrize("graph_name", ["cycle5", "house"])
def test_triangulated_orthogonalization_matches_independent_reference(graph_name):
    # Non-chordal graphs (2 and 1 fill edges). 6 and 7 KS tests, 5000 draws each.
    generator, reference = triangulated_reference(graph_name)
    draws = generator.sample(N_TRIANGULATED)
    p_values = two_sample_p_values(draws, reference, generator.adjacency_)
    assert p_values.min() > ALPHA / p_values.size, p_values


@pytest.mark.parametrize("graph_name", ["cycle5", "house"])
def test_triangulated_reference_rejects_wrong_variants(graph_name):
    # Measured with 8000 draws: p < 1e-280 for both variants on both graphs.
    generator, reference = triangulated_reference(graph_name)
    transposed = triangulated_reference(graph_name, wrong=True)[1]
    gaussian = (
        PartialOrthogonalization(random_state=6)
        .fit(generator.adjacency_)
        .sample(N_TRIANGULATED)
    )
    for wrong in (transposed, gaussian):
        p_values = two_sample_p_values(wrong, reference, generator.adjacency_)
        assert p_values.min() < POWER_P_VALUE
