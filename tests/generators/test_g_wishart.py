"""GWishart: exact G-Wishart law on chordal and non-chordal graphs.

Statistical thresholds. Every check is a z-score (estimate minus closed form, over
its standard error estimated from the same draws) or a KS p-value, with a fixed
seed. A battery of ``m`` statistics is compared with a Bonferroni bound so that the
family-wise false-alarm probability under a correct sampler is about 1e-3; each
battery is also run on a sampler known to be wrong to show that it has power.
"""

import functools
import warnings

import networkx as nx
import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from threadpoolctl import threadpool_limits

from skggm_bench.generators import (
    GWishart,
    PoorMixingWarning,
    _g_wishart_gibbs,
)
from skggm_bench.generators._covariance_completion import complete_covariance_batch
from skggm_bench.generators.g_wishart import (
    _ChordalRows,
    _RejectionRows,
    complete_covariance,
    sample_wishart,
)
from skggm_bench.graphs import check_adjacency, erdos_renyi_graph
from tests.conftest import GRAPHS, as_form, assert_valid_draws


@pytest.fixture(autouse=True, scope="module")
def _single_blas_thread():
    # Thousands of tiny batched LAPACK calls: BLAS threads only contend (40x slower
    # on a loaded 2-core machine).
    with threadpool_limits(1):
        yield


def _bonferroni_z(n_statistics: int, family_error: float = 1e-3) -> float:
    """Two-sided normal threshold with family-wise error ``family_error``."""
    return float(stats.norm.isf(family_error / (2 * n_statistics)))


def _random_scale(p: int, seed: int) -> np.ndarray:
    """A dense, well-conditioned SPD scale matrix."""
    a = np.random.RandomState(seed).standard_normal((p, p))
    return a @ a.T / p + np.eye(p)


def _free_pairs(adjacency: np.ndarray) -> list[tuple[int, int]]:
    p = adjacency.shape[0]
    diagonal = [(i, i) for i in range(p)]
    return diagonal + [tuple(e) for e in np.argwhere(np.triu(adjacency, 1))]


def _stein_z_scores(
    K: np.ndarray, scale: np.ndarray, df: float, adjacency
) -> np.ndarray:
    """z-scores of the G-Wishart integration-by-parts identities.

    For a free coordinate x = K[i, j] (i == j or an edge), the density f of
    W_G(df, D) has d log f / dx = c ((df - 2) Sigma[i, j] - D[i, j]) with c = 1 off
    the diagonal and 1/2 on it (Sigma = K^{-1}). Integrating d(g f)/dx over the cone
    (f vanishes on its boundary for df > 2) gives, for g = 1 and g = K[a, b]:

        E[(df - 2) Sigma[i, j] - D[i, j]] = 0,
        E[K[a, b] ((df - 2) Sigma[i, j] - D[i, j])] = -1{(a,b) = (i,j)} / c.

    These hold on every graph, chordal or not, and involve K and Sigma jointly.
    """
    sigma = np.linalg.inv(K)
    n = K.shape[0]
    z = []
    pairs = _free_pairs(adjacency)
    for i, j in pairs:
        score = (df - 2.0) * sigma[:, i, j] - scale[i, j]
        z.append(score.mean() / (score.std() / np.sqrt(n)))
        for a, b in pairs:
            expected = -(2.0 if i == j else 1.0) if (a, b) == (i, j) else 0.0
            product = K[:, a, b] * score
            z.append((product.mean() - expected) / (product.std() / np.sqrt(n)))
    return np.abs(np.array(z))


GRID = nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3))


@pytest.mark.parametrize(
    "graph, scale_seed",
    [
        (nx.path_graph(3), None),
        (nx.path_graph(3), 1),
        (nx.cycle_graph(4), None),
        (nx.cycle_graph(4), 2),
        (GRID, None),
        (GRID, 3),
    ],
    ids=["path-I", "path-D", "cycle4-I", "cycle4-D", "grid-I", "grid-D"],
)
def test_exact_sampler_satisfies_stein_identities(graph, scale_seed):
    # df = 10 so that the products K * Sigma have finite variance (moments of
    # Sigma of order r need df > 2r). 30,000 draws. On the 3x3 grid (462
    # statistics, threshold 4.74) the exact sampler gives max |z| of 2.6-3.9 over
    # seeds 0-2; Lenkoski's gives 6.5-7.4 with scale=I and 51-53 with a dense
    # scale (next test).
    p = graph.number_of_nodes()
    scale = np.eye(p) if scale_seed is None else _random_scale(p, scale_seed)
    adjacency = nx.to_numpy_array(graph) != 0
    gen = GWishart(df=10, scale=scale, random_state=0).fit(graph)
    z = _stein_z_scores(gen.sample(30_000), scale, 10, adjacency)
    assert z.max() < _bonferroni_z(z.size), (z.max(), z.size)


@pytest.mark.parametrize("scale_seed", [None, 3])
def test_lenkoski_sampler_fails_the_stein_identities(scale_seed):
    # Power of the battery above, and the documented finding: BDgraph's algorithm
    # is not exactly G-Wishart (here on the 3x3 grid).
    p = GRID.number_of_nodes()
    scale = np.eye(p) if scale_seed is None else _random_scale(p, scale_seed)
    adjacency = nx.to_numpy_array(GRID) != 0
    gen = GWishart(df=10, scale=scale, method="lenkoski", random_state=0).fit(GRID)
    z = _stein_z_scores(gen.sample(30_000), scale, 10, adjacency)
    assert z.max() > _bonferroni_z(z.size) + 1.0


def test_lenkoski_is_not_exact_on_a_three_node_path():
    # The docstring's numbers: on 0 - 1 - 2 with df=3, scale=I the exact law has
    # K[1, 1] ~ chi2(5) (Bartlett: N(0,1)^2 + chi2(df + 1)). With 100,000 draws a
    # variance 10.8 instead of 10 is a 0.8 / (10 * sqrt(2 * 6.8 / 1e5)) ~ 7 sigma
    # effect; KS against chi2(5) must reject Lenkoski and accept the exact sampler.
    path = nx.path_graph(3)
    chi2_5 = stats.chi2(5).cdf
    exact = GWishart(df=3, random_state=0).fit(path).sample(100_000)
    lenkoski = GWishart(df=3, method="lenkoski", random_state=0).fit(path)
    biased = lenkoski.sample(100_000)
    assert stats.kstest(exact[:, 1, 1], chi2_5).pvalue > 1e-3
    assert stats.kstest(biased[:, 1, 1], chi2_5).pvalue < 1e-6
    assert 10.5 < biased[:, 1, 1].var() < 11.1
    assert 9.7 < exact[:, 1, 1].var() < 10.3  # SE of the variance ~ 0.09


@pytest.mark.parametrize("method", ["exact", "lenkoski"])
def test_complete_graph_is_wishart(method):
    # K ~ Wishart(n, V), n = df + p - 1, V = scale^{-1}:
    #   E K_ij = n V_ij,   Var K_ij = n (V_ij^2 + V_ii V_jj).
    # Means use the closed-form standard error; sample variances use the standard
    # error sqrt((m4 - s^4) / N) from the sample fourth central moment. 20
    # statistics at family-wise 1e-3 -> |z| < 4.4. A df off by one moves E K_ii by
    # V_ii, i.e. sqrt(N / (2 n)) ~ 50 standard errors.
    p, df, n_draws = 4, 3.5, 40_000
    scale = _random_scale(p, 5)
    V = np.linalg.inv(scale)
    n = df + p - 1
    K = (
        GWishart(df=df, scale=scale, method=method, random_state=1)
        .fit(nx.complete_graph(p))
        .sample(n_draws)
    )
    rows, cols = np.triu_indices(p)
    entries = K[:, rows, cols]
    mean = n * V[rows, cols]
    variance = n * (V[rows, cols] ** 2 + V[rows, rows] * V[cols, cols])
    z_mean = (entries.mean(0) - mean) / np.sqrt(variance / n_draws)
    centred = entries - entries.mean(0)
    m4 = (centred**4).mean(0)
    s2 = entries.var(0)
    z_var = (s2 - variance) / np.sqrt((m4 - s2**2) / n_draws)
    threshold = _bonferroni_z(2 * rows.size)
    assert np.abs(z_mean).max() < threshold
    assert np.abs(z_var).max() < threshold


def _bartlett_reference(
    graph: nx.Graph, df: float, n: int, seed: int, jacobian: bool = True
) -> np.ndarray:
    """Independent decomposable construction (scale = I), written from the maths.

    Eliminate simplicial vertices one at a time (a perfect elimination ordering,
    found here by brute force, independently of skggm_bench.graphs). With K =
    Phi^T Phi, Phi upper triangular in that order, Phi[i, i]^2 ~ chi2(df + nu_i)
    where nu_i counts the neighbours eliminated after i, Phi[i, j] ~ N(0, 1) on
    edges and 0 elsewhere (no fill on a chordal graph). ``jacobian=False`` is a
    deliberately wrong variant (chi2(df) diagonals) used to check test power.
    """
    remaining = nx.Graph(graph)
    order = []
    while remaining.number_of_nodes():
        simplicial = next(
            v
            for v in sorted(remaining.nodes)
            if all(
                remaining.has_edge(a, b)
                for a in remaining[v]
                for b in remaining[v]
                if a != b
            )
        )
        order.append(simplicial)
        remaining.remove_node(simplicial)
    nodes = list(graph.nodes)
    position = {v: k for k, v in enumerate(order)}
    p = len(order)
    rng = np.random.RandomState(seed)
    phi = np.zeros((n, p, p))
    for v in order:
        i = position[v]
        later = [position[w] for w in graph[v] if position[w] > i]
        phi[:, i, i] = np.sqrt(rng.chisquare(df + jacobian * len(later), n))
        for j in later:
            phi[:, i, j] = rng.standard_normal(n)
    K_ordered = np.swapaxes(phi, 1, 2) @ phi
    index = [position[v] for v in nodes]
    return K_ordered[:, index][:, :, index]


def _ks_pvalues(a: np.ndarray, b: np.ndarray, pairs) -> np.ndarray:
    return np.array([stats.ks_2samp(a[:, i, j], b[:, i, j]).pvalue for i, j in pairs])


def test_chordal_graph_matches_independent_bartlett_construction():
    # KS on every diagonal entry and every edge (p + |E| = 18 tests, 6,000 draws
    # each side). Family-wise error 1e-3 -> each p-value > 1e-3 / 18. Power: the
    # same battery against a plausible bug (Jacobian forgotten, nu_i = 0, i.e.
    # chi2(df) diagonals) must reject.
    graph = GRAPHS["chordal_random"]
    adjacency = nx.to_numpy_array(graph) != 0
    pairs = _free_pairs(adjacency)
    draws = GWishart(df=3, random_state=0).fit(graph).sample(6000)
    reference = _bartlett_reference(graph, 3, 6000, seed=1)
    pvalues = _ks_pvalues(draws, reference, pairs)
    assert pvalues.min() > 1e-3 / len(pairs), pvalues.min()
    wrong = _bartlett_reference(graph, 3, 6000, seed=2, jacobian=False)
    assert _ks_pvalues(draws, wrong, pairs).min() < 1e-6


def test_rejection_sampler_agrees_with_chordal_sampler():
    # Two exact algorithms, one law. On a chordal graph with a dense scale, the
    # accept-reject sampler (non-diagonal T, so its acceptance is below 1) must
    # match the closed-form row sampler. 9 KS tests on 5,000 draws each.
    graph = GRAPHS["diamond"]
    adjacency = nx.to_numpy_array(graph) != 0
    scale = _random_scale(4, 7)
    inverse = np.linalg.inv(scale)
    chordal = _ChordalRows(adjacency, scale).sample(4.0, 5000, np.random.RandomState(0))
    factor = np.linalg.cholesky(inverse).T  # inverse = T^T T
    rows = _RejectionRows(adjacency, adjacency, factor)
    rng = np.random.RandomState(1)
    batches, n_accepted, n_proposed = [], 0, 0
    while n_accepted < 5000:
        batch = rows.propose(4.0, 4000, rng)
        batches.append(batch)
        n_accepted += batch.shape[0]
        n_proposed += 4000
    rejection = np.concatenate(batches)[:5000]
    # Rejection really happened (else this would only re-test the proposal).
    assert 0.05 < n_accepted / n_proposed < 0.99
    K1 = np.swapaxes(chordal, 1, 2) @ chordal
    K2 = np.swapaxes(rejection, 1, 2) @ rejection
    pairs = _free_pairs(adjacency)
    pvalues = _ks_pvalues(K1, K2, pairs)
    assert pvalues.min() > 1e-3 / len(pairs)
    # Zeros at the non-edge (0, 3) in both parametrisations.
    assert np.abs(K2[:, 0, 3]).max() < 1e-10 * np.abs(K2).max()


@pytest.mark.parametrize("graph_name", ["empty", "single_node"])
def test_graph_without_edges_has_independent_chi_square_diagonal(graph_name):
    # K_ii ~ chi2(df) / D_ii independently. KS per node, p-values > 1e-3 / p.
    graph = GRAPHS[graph_name]
    p = graph.number_of_nodes()
    scale = np.diag(np.linspace(0.5, 2.0, p))
    K = GWishart(df=2.5, scale=scale, random_state=0).fit(graph).sample(5000)
    for i in range(p):
        cdf = stats.chi2(2.5, scale=1 / scale[i, i]).cdf
        assert stats.kstest(K[:, i, i], cdf).pvalue > 1e-3 / p


@pytest.mark.parametrize("unit_diagonal", [False, True])
@pytest.mark.parametrize("method", ["exact", "gibbs", "lenkoski"])
def test_invariants_on_every_graph_kind(graph_name, method, unit_diagonal):
    graph = GRAPHS[graph_name]
    gen = GWishart(method=method, unit_diagonal=unit_diagonal, random_state=0)
    draws = gen.fit(as_form(graph, "sparse")).sample(30)
    adjacency = nx.to_numpy_array(graph) != 0
    np.testing.assert_array_equal(gen.adjacency_, adjacency)
    assert_valid_draws(draws, adjacency, unit_diagonal)
    if method == "exact":
        chordal = nx.is_chordal(graph)
        assert (gen.n_fill_edges_ == 0) == chordal
        assert (gen.acceptance_rate_ == 1.0) == chordal


def test_unit_diagonal_is_the_standardised_draw():
    graph = GRAPHS["cycle5"]
    raw = GWishart(random_state=3).fit(graph).sample(20)
    standard = GWishart(unit_diagonal=True, random_state=3).fit(graph).sample(20)
    d = np.sqrt(np.diagonal(raw, axis1=1, axis2=2))
    np.testing.assert_allclose(
        standard, raw / d[:, :, None] / d[:, None, :], rtol=1e-12
    )


def test_clone_keeps_array_parameters():
    # The random_state semantics and the generic clone / NotFittedError / n_samples
    # checks run for GWishart in test_common.py; here, a clone with an array scale.
    graph = GRAPHS["grid3x3"]
    gen = GWishart(df=4, scale=np.eye(9), method="lenkoski", random_state=3)
    cloned = clone(gen)
    assert cloned.get_params()["df"] == 4 and cloned.method == "lenkoski"
    np.testing.assert_array_equal(cloned.scale, np.eye(9))
    with pytest.raises(NotFittedError):
        cloned.sample(1)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="n_samples"):
            gen.fit(graph).sample(bad)


@pytest.mark.parametrize(
    "params, error, message",
    [
        (dict(df=0), ValueError, "df"),
        (dict(df=-1.0), ValueError, "df"),
        (dict(method="metropolis"), ValueError, "method"),
        (dict(n_chains=0), ValueError, "n_chains"),
        (dict(n_burn_in=-1), ValueError, "n_burn_in"),
        (dict(thinning=0), ValueError, "thinning"),
        (dict(min_acceptance=0.0), ValueError, "min_acceptance"),
        (dict(tol=0.0), ValueError, "tol"),
        (dict(max_iter=0), ValueError, "max_iter"),
        (dict(unit_diagonal="yes"), ValueError, "unit_diagonal"),
        (dict(scale=np.eye(3)), ValueError, r"shape \(5, 5\)"),
        (dict(scale=np.ones((5, 5))), ValueError, "positive definite"),
        (dict(scale=np.triu(np.ones((5, 5)))), ValueError, "symmetric"),
        (dict(scale=np.full((5, 5), np.nan)), ValueError, "NaN"),
        (dict(scale=[["a"] * 5] * 5), TypeError, "numeric"),
    ],
)
def test_bad_parameters_get_clear_errors(params, error, message):
    with pytest.raises(error, match=message):
        GWishart(**params).fit(GRAPHS["cycle5"])


def test_low_acceptance_raises_with_advice():
    # Acceptance on the 3x3 grid is about 0.5 (df=3, scale=I). The check runs once
    # 2000 proposals have been made, so ask for more draws than that yields.
    gen = GWishart(method="exact", min_acceptance=0.9, random_state=0)
    with pytest.raises(RuntimeError, match="method='gibbs'"):
        gen.fit(GRAPHS["grid3x3"]).sample(5000)
    # The same request succeeds with the default bound; the reported rate matches
    # the measured 0.52 (about 10,000 proposals: standard error 0.005).
    default = GWishart(random_state=0).fit(GRAPHS["grid3x3"])
    assert default.sample(5000).shape == (5000, 9, 9)
    assert 0.47 < default.acceptance_rate_ < 0.57


def test_lenkoski_non_convergence_raises():
    gen = GWishart(method="lenkoski", max_iter=1, random_state=0)
    with pytest.raises(RuntimeError, match="did not converge"):
        gen.fit(GRAPHS["grid3x3"]).sample(5)


def test_complete_covariance_solves_the_completion_problem():
    rng = np.random.RandomState(0)
    adjacency = nx.to_numpy_array(GRAPHS["erdos_renyi"]) != 0
    p = adjacency.shape[0]
    a = rng.standard_normal((3, p, 2 * p))
    sigma = a @ np.swapaxes(a, 1, 2) / (2 * p)
    neighbours = [np.flatnonzero(row) for row in adjacency]
    W, n_iter = complete_covariance(sigma, neighbours, 1e-12, 1000)
    free = adjacency | np.eye(p, dtype=bool)
    np.testing.assert_allclose(W[:, free], sigma[:, free], rtol=0, atol=1e-14)
    inverse = np.linalg.inv(W)
    assert np.abs(inverse[:, ~free]).max() < 1e-9 * np.abs(inverse).max()
    assert n_iter > 1


def _inverse_wishart_draws(p: int, density: float, n: int, seed: int):
    """Lenkoski's inputs at df=3: inverses of Wishart(p + 2, I) draws, and a graph."""
    adjacency = check_adjacency(erdos_renyi_graph(p, density, random_state=seed))
    psi = sample_wishart(p + 2.0, np.eye(p), n, np.random.RandomState(seed))
    sigma = np.linalg.inv(psi)
    return 0.5 * (sigma + np.swapaxes(sigma, 1, 2)), [
        np.flatnonzero(row) for row in adjacency
    ]


def test_accelerated_completion_takes_fewer_sweeps_to_the_same_matrix():
    # The speed-up behind docs/performance.md, on a smaller graph: Anderson
    # acceleration reaches the plain sweeps' fixed point in far fewer sweeps
    # (measured: 28 against 99 here at tol=1e-12; 23 against 61 on G(100, 0.1) at
    # the default 1e-8).
    sigma, neighbours = _inverse_wishart_draws(40, 0.1, 20, seed=1)
    plain, plain_sweeps = complete_covariance_batch(
        sigma, neighbours, 1e-12, 1000, accelerate=False
    )
    fast, fast_sweeps = complete_covariance_batch(sigma, neighbours, 1e-12, 1000)
    assert fast_sweeps < 0.5 * plain_sweeps, (fast_sweeps, plain_sweeps)
    scale = np.abs(plain).max(axis=(1, 2))[:, None, None]
    assert np.abs(fast - plain).max(axis=(1, 2)).max() < 1e-10 * scale.max()


def test_completion_of_a_draw_does_not_depend_on_the_batch():
    # Every draw runs its own iteration: alone or among others (which converge
    # earlier or later and leave the arrays), it gets the same matrix.
    # The input is left alone (a one-draw batch once came back overwritten).
    sigma, neighbours = _inverse_wishart_draws(30, 0.15, 12, seed=2)
    original = sigma.copy()
    together, _ = complete_covariance(sigma, neighbours, 1e-8, 1000)
    for k in (0, 5, 11):
        alone, _ = complete_covariance(sigma[k : k + 1], neighbours, 1e-8, 1000)
        np.testing.assert_array_equal(alone[0], together[k])
    np.testing.assert_array_equal(sigma, original)


def test_sample_wishart_mean():
    # E W = df V; 20,000 draws, Var W_ij = df (V_ij^2 + V_ii V_jj) <= 2 df max V^2,
    # so the standard error is below 0.04 here and 0.25 is > 6 of them.
    V = np.array([[2.0, 0.5], [0.5, 1.0]])
    W = sample_wishart(6.0, np.linalg.cholesky(V), 20_000, np.random.RandomState(0))
    np.testing.assert_allclose(W.mean(0), 6.0 * V, atol=0.25)


# ------------------------------------------------------------- the Gibbs sampler

# Non-chordal graphs where the exact sampler runs (df=3, scale=I acceptance):
# 0.89, 0.52, 0.52 and 0.031 (23 fill edges: "a few percent").
GIBBS_GRAPHS = {
    "cycle4": nx.cycle_graph(4),
    "grid3x3": GRID,
    "gnp10": nx.gnp_random_graph(10, 0.3, seed=5),
    "gnp15": nx.gnp_random_graph(15, 0.45, seed=2),
}
N_GIBBS = 4000


def _gibbs_draws(graph, scale=None, seed=0) -> np.ndarray:
    # 16 lockstep chains amortise the per-move overhead; the law does not depend
    # on their number.
    gen = GWishart(method="gibbs", scale=scale, n_chains=16, random_state=seed)
    return gen.fit(graph).sample(N_GIBBS)


@functools.cache
def _exact_draws(graph_name: str, dense_scale: bool = False) -> np.ndarray:
    graph = GIBBS_GRAPHS[graph_name]
    p = graph.number_of_nodes()
    scale = _random_scale(p, 8) if dense_scale else None
    gen = GWishart(method="exact", scale=scale, random_state=2).fit(graph)
    return gen.sample(N_GIBBS)


def _free_entry_p_values(draws, reference, graph) -> np.ndarray:
    pairs = _free_pairs(nx.to_numpy_array(graph) != 0)
    return _ks_pvalues(draws, reference, pairs)


@pytest.mark.parametrize("graph_name", sorted(GIBBS_GRAPHS))
def test_gibbs_agrees_with_the_exact_sampler(graph_name):
    # KS on every free entry (p + |E| = 8, 21, 27 and 55 tests), 4000 draws on each
    # side, Bonferroni at 1e-3: the family detects CDF differences of 0.04 to 0.045.
    # Gibbs draws are two sweeps apart; their lag-1 autocorrelation is at noise
    # level (test below), so the KS levels hold. Measured smallest p-values: 0.020,
    # 0.026, 0.017, 0.012. (The exact reference of seed 1 was itself atypical on
    # the grid: 6e-5 against 40000 exact draws, where Gibbs draws give 0.05-0.09.)
    graph = GIBBS_GRAPHS[graph_name]
    p_values = _free_entry_p_values(
        _gibbs_draws(graph), _exact_draws(graph_name), graph
    )
    assert p_values.min() > 1e-3 / p_values.size, p_values.min()


def test_gibbs_agrees_with_the_exact_sampler_with_a_dense_scale():
    # A dense scale exercises the conditional mean -H^{-1} D_Ni / D_ii of a row.
    graph = GIBBS_GRAPHS["grid3x3"]
    scale = _random_scale(9, 8)
    p_values = _free_entry_p_values(
        _gibbs_draws(graph, scale), _exact_draws("grid3x3", dense_scale=True), graph
    )
    assert p_values.min() > 1e-3 / p_values.size, p_values.min()


def _schur_off_by_one(df, scale_ii, n_chains, rng):
    """Wrong variant: chi2(df + 1) for the Schur complement (a Jacobian slip)."""
    return rng.chisquare(df + 1, n_chains) / scale_ii


@pytest.mark.parametrize("variant", ["schur off by one", "mean ignored"])
def test_gibbs_comparison_rejects_wrong_kernels(monkeypatch, variant):
    # Power of the battery above, on the grid: measured p ~ 6e-37 for chi2(df + 1)
    # (1e-30 to 1e-42 on the four graphs) and ~ 8e-104 without the mean (whose
    # effect needs a dense scale).
    graph = GIBBS_GRAPHS["grid3x3"]
    if variant == "schur off by one":
        monkeypatch.setattr(
            _g_wishart_gibbs, "draw_schur_complement", _schur_off_by_one
        )
        draws, reference = _gibbs_draws(graph), _exact_draws("grid3x3")
    else:
        original = _g_wishart_gibbs.GibbsChains.row_move
        monkeypatch.setattr(
            _g_wishart_gibbs.GibbsChains,
            "row_move",
            lambda self, node: _mean_ignored(self, node, original),
        )
        draws = _gibbs_draws(graph, _random_scale(9, 8))
        reference = _exact_draws("grid3x3", dense_scale=True)
    assert _free_entry_p_values(draws, reference, graph).min() < 1e-6


def _mean_ignored(self, node, original):
    """Wrong variant: the conditional mean of a row dropped (the scale's
    off-diagonal entries ignored; right only for a diagonal scale)."""
    saved = self.scale
    self.scale = np.diag(np.diag(saved))
    try:
        original(self, node)
    finally:
        self.scale = saved


def test_gibbs_draws_are_practically_independent():
    # Two sweeps between draws (the default): the pooled within-chain lag-1
    # autocorrelation of every free entry is at noise level (standard error
    # 1/sqrt(16000) = 0.008), below the 0.05 promised by the diagnostics.
    graph = GIBBS_GRAPHS["gnp15"]
    gen = GWishart(method="gibbs", n_chains=16, random_state=3).fit(graph)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a well-mixing chain raises no warning
        draws = gen.sample(16000)
    pairs = np.array(_free_pairs(gen.adjacency_))
    values = draws[:, pairs[:, 0], pairs[:, 1]].reshape(1000, 16, -1)
    centred = values - values.mean(axis=0)
    lag1 = (centred[1:] * centred[:-1]).sum(axis=(0, 1)) / (centred**2).sum(axis=(0, 1))
    assert np.abs(lag1).max() < 0.035
    diagnostics = gen.diagnostics_
    assert diagnostics["warnings"] == [] and diagnostics["n_draws"] == 16000
    assert diagnostics["min_effective_sample_size"] > 0.7 * 16000
    assert diagnostics["max_r_hat"] < 1.01
    assert gen.effective_sample_size_.shape == (len(pairs),)


def test_auto_switches_to_gibbs_with_a_warning_where_exact_fails():
    # G(40, 0.15): hundreds of fill edges, no proposal accepted.
    graph = nx.gnp_random_graph(40, 0.15, seed=0)
    gen = GWishart(random_state=0).fit(graph)
    assert gen.method_ == "exact"
    with pytest.warns(UserWarning, match="Switching to method='gibbs'"):
        draws = gen.sample(20)
    assert gen.method_ == "gibbs" and gen.acceptance_rate_ == 1.0
    assert_valid_draws(draws, nx.to_numpy_array(graph) != 0, unit_diagonal=False)
    assert gen.diagnostics_["n_draws"] == 20
    # Later calls continue the chains, without a new warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        gen.sample(4)
    # Where exact sampling works, auto is exact and draws like method="exact".
    grid = GWishart(random_state=2).fit(GRID).sample(5)
    np.testing.assert_array_equal(
        grid, GWishart(method="exact", random_state=2).fit(GRID).sample(5)
    )


def test_gibbs_poor_mixing_warns(monkeypatch):
    # Chains that never move (every move a no-op) must be flagged.
    monkeypatch.setattr(
        _g_wishart_gibbs.GibbsChains, "row_move", lambda self, node: None
    )
    gen = GWishart(method="gibbs", random_state=0).fit(GRID)
    with pytest.warns(PoorMixingWarning):
        gen.sample(200)
    assert gen.diagnostics_["warnings"]


def test_gibbs_defaults_and_continuation():
    gen = GWishart(method="gibbs", random_state=7).fit(GRID)
    assert (gen.n_burn_in_, gen.thinning_) == (20, 2)
    a, b = gen.sample(3), gen.sample(6)
    whole = GWishart(method="gibbs", random_state=7).fit(GRID).sample(9)
    np.testing.assert_array_equal(np.concatenate([a, b]), whole)


# ------------------------------------------------ Lenkoski's sampler, unchanged


def _lenkoski_reference(graph, df, scale, n, seed, tol=1e-8):
    """BDgraph's rgwish algorithm (Lenkoski, 2013) written out, one draw at a time.

    Psi ~ Wishart(df + p - 1, scale^{-1}) (the package's Bartlett sampler, with the
    same random stream as GWishart), Sigma = Psi^{-1}; then Hastie, Tibshirani &
    Friedman's Algorithm 17.1 in node order: for each node j with neighbours N,
    solve W[N, N] beta = Sigma[N, j], set W[:, j] = W[j, :] = W[:, N] beta, keep
    W[j, j]; sweep until no entry moves by more than tol * max(diag Sigma); return
    W^{-1}. This is the implementation the sampler had before its completions were
    reorganised for speed.
    """
    adjacency = nx.to_numpy_array(graph) != 0
    p = adjacency.shape[0]
    rng = np.random.RandomState(seed)
    psi = sample_wishart(df + p - 1, np.linalg.cholesky(np.linalg.inv(scale)), n, rng)
    draws = np.empty((n, p, p))
    for k in range(n):
        sigma = np.linalg.inv(psi[k])
        sigma = 0.5 * (sigma + sigma.T)
        w = sigma.copy()
        while True:
            largest_move = 0.0
            for j in range(p):
                nbrs = np.flatnonzero(adjacency[j])
                column = np.zeros(p)
                if nbrs.size:
                    beta = np.linalg.solve(w[np.ix_(nbrs, nbrs)], sigma[nbrs, j])
                    column = w[:, nbrs] @ beta
                column[j] = w[j, j]
                largest_move = max(largest_move, np.abs(column - w[:, j]).max())
                w[:, j] = w[j, :] = column
            if largest_move <= tol * np.diag(sigma).max():
                break
        inverse = np.linalg.inv(w)
        draws[k] = 0.5 * (inverse + inverse.T)
    return draws


@pytest.mark.parametrize("graph_name", ["gnp15", "grid3x3"])
@pytest.mark.parametrize("dense_scale", [False, True])
@pytest.mark.parametrize("tol", [1e-8, 1e-13])
def test_lenkoski_draws_are_those_of_the_written_out_algorithm(
    graph_name, dense_scale, tol
):
    # Same seed, same Wishart draws; the completion is unique, so the accelerated
    # sweeps must reach the written-out algorithm's fixed point (run to 1e-13) up to
    # the stopping tolerance: the law is unchanged. Measured: at most 2.2 tol (3.4
    # tol at 1e-13, rounding), relative to the draw's largest entry; the written-out
    # algorithm itself, stopped at 1e-8, is up to 4.2e-8 away. The completion on
    # the graph less one edge is off by 4e-3 to 0.45.
    graph = GIBBS_GRAPHS[graph_name]
    p = graph.number_of_nodes()
    scale = _random_scale(p, 9) if dense_scale else np.eye(p)
    draws = (
        GWishart(df=3.5, scale=scale, method="lenkoski", tol=tol, random_state=4)
        .fit(graph)
        .sample(15)
    )
    reference = _lenkoski_reference(graph, 3.5, scale, 15, seed=4, tol=1e-13)
    # Free entries; off the graph the reference's inverse is zero only up to the
    # completion's tolerance, where the sampler returns exact zeros.
    free = (nx.to_numpy_array(graph) != 0) | np.eye(p, dtype=bool)
    error = np.abs(draws - reference)[:, free].max(axis=1)
    assert np.all(error <= 20 * tol * np.abs(reference).max(axis=(1, 2)))
