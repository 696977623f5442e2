"""make_ggm and sample_gaussian: the data have the law the Bunch claims.

Statistical checks compare the sample covariance ``S = X^T X / n`` (the mean is
known to be zero) with the true ``Sigma`` entry by entry, standardised by the exact
Gaussian sampling error ``sd(S_ij) = sqrt((Sigma_ij^2 + Sigma_ii Sigma_jj) / n)``.
Under a correct sampler each standardised entry is approximately N(0, 1); with at
most p (p + 1) / 2 = 55 entries (p <= 10) the Bonferroni bound gives
P(max |z| > 5) <= 55 * 5.7e-7 < 1e-4, so a threshold of 5 almost never fails a
correct implementation, while at n = 20 000 (sd <= ~0.015 for unit-scale entries)
any error of ~0.1 in one entry gives z > 6. ``test_covariance_check_has_power``
shows the check rejecting the classic mistakes.
"""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.stats
from sklearn.base import clone

from skggm_bench import graphs
from skggm_bench.datasets import GRAPH_FAMILIES, make_ggm, sample_gaussian
from skggm_bench.generators import DiagonalDominance, TriangulatedOrthogonalization

N_LARGE = 20_000
Z_MAX = 5.0  # see the module docstring


def standardised_deviation(X: np.ndarray, covariance: np.ndarray) -> float:
    """max_ij |S_ij - Sigma_ij| / sd(S_ij) for zero-mean Gaussian rows."""
    n = X.shape[0]
    sample = X.T @ X / n
    variance = np.diag(covariance)
    sd = np.sqrt((covariance**2 + np.outer(variance, variance)) / n)
    return float(np.max(np.abs(sample - covariance) / sd))


def assert_covariance_matches(X: np.ndarray, covariance: np.ndarray) -> None:
    z = standardised_deviation(X, covariance)
    assert z < Z_MAX, f"sample covariance is {z:.1f} sampling sds from the truth"
    # Means: each column mean is N(0, Sigma_jj / n); same 5-sd argument (p <= 10).
    z_mean = np.abs(X.mean(axis=0)) / np.sqrt(np.diag(covariance) / X.shape[0])
    assert z_mean.max() < Z_MAX


def off_graph_mask(adjacency: np.ndarray) -> np.ndarray:
    return ~adjacency & ~np.eye(adjacency.shape[0], dtype=bool)


# A connected, non-chordal graph: the default generator has to triangulate it and
# the inverse of a matrix on it is dense.
CYCLE = nx.cycle_graph(8)


# --------------------------------------------------------------------------------------
# make_ggm: the law of X and where the zeros are
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["concentration", "covariance"])
def test_sample_covariance_converges_to_covariance(model):
    data = make_ggm(N_LARGE, 8, graph=CYCLE, model=model, random_state=0)
    assert data.X.shape == (N_LARGE, 8)
    assert_covariance_matches(data.X, data.covariance)


@pytest.mark.parametrize("model", ["concentration", "covariance"])
def test_sample_covariance_converges_on_a_family_graph(model):
    data = make_ggm(N_LARGE, 10, density=0.3, model=model, random_state=1)
    assert_covariance_matches(data.X, data.covariance)


def test_concentration_model_zeros_are_in_the_precision():
    data = make_ggm(10, 8, graph=CYCLE, model="concentration", random_state=0)
    off_graph = off_graph_mask(data.adjacency)
    assert off_graph.any()
    assert np.all(data.precision[off_graph] == 0.0)
    assert np.all(data.precision[data.adjacency] != 0.0)
    # The graph is connected, so the covariance has no zero (with probability one).
    assert np.all(np.abs(data.covariance) > 1e-8)
    # Zeros of the precision are zeros of the partial correlation, edges are not.
    assert np.all(data.partial_correlation[off_graph] == 0.0)
    assert np.all(data.partial_correlation[data.adjacency] != 0.0)


def test_covariance_model_zeros_are_in_the_covariance():
    data = make_ggm(10, 8, graph=CYCLE, model="covariance", random_state=0)
    off_graph = off_graph_mask(data.adjacency)
    assert np.all(data.covariance[off_graph] == 0.0)
    assert np.all(data.covariance[data.adjacency] != 0.0)
    # Marginal independence does not carry over to the precision.
    assert np.all(np.abs(data.precision[off_graph]) > 1e-8)


@pytest.mark.parametrize("model", ["concentration", "covariance"])
def test_precision_and_covariance_are_inverse(model):
    data = make_ggm(5, 12, density=0.3, model=model, random_state=2)
    np.testing.assert_allclose(data.precision @ data.covariance, np.eye(12), atol=1e-10)
    np.testing.assert_array_equal(data.covariance, data.covariance.T)
    np.testing.assert_array_equal(data.precision, data.precision.T)
    # Unscaled: the generator's matrix is on the correlation scale in its role.
    role_matrix = data.precision if model == "concentration" else data.covariance
    np.testing.assert_array_equal(np.diag(role_matrix), 1.0)


@pytest.mark.parametrize("model", ["concentration", "covariance"])
def test_partial_correlation_definition(model):
    data = make_ggm(5, 10, density=0.4, model=model, random_state=3)
    K = data.precision
    expected = np.empty_like(K)
    for i in range(10):
        for j in range(10):
            expected[i, j] = -K[i, j] / np.sqrt(K[i, i] * K[j, j])
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_allclose(data.partial_correlation, expected, rtol=1e-13)
    np.testing.assert_array_equal(np.diag(data.partial_correlation), 0.0)
    assert np.all(np.abs(data.partial_correlation) < 1.0)
    # Exact zeros are +0.0, not -0.0.
    assert not np.any(
        np.signbit(data.partial_correlation[data.partial_correlation == 0])
    )


def test_bunch_metadata():
    data = make_ggm(7, 9, graph="band", density=0.35, random_state=0)
    assert data.model == "concentration"
    assert data.generator_name == "TriangulatedOrthogonalization"
    assert isinstance(data.generator, TriangulatedOrthogonalization)
    assert data.graph_family == "band"
    # p = 9, 36 pairs: bandwidth 1 has 8 edges (0.222), 2 has 15 (0.417, closer).
    assert data.graph_params == {"bandwidth": 2}
    assert data.edge_density == pytest.approx(15 / 36)
    assert data.adjacency.dtype == bool
    assert sorted(data.graph.nodes) == list(range(9))
    np.testing.assert_array_equal(
        nx.to_numpy_array(data.graph, nodelist=range(9)) != 0, data.adjacency
    )
    assert data.node_labels == list(range(9))
    assert data.scale is None


# --------------------------------------------------------------------------------------
# scale
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["concentration", "covariance"])
def test_scale_sets_standard_deviations_and_keeps_structure(model):
    stds = np.array([0.5, 1.0, 2.0, 3.0, 0.1, 1.5, 4.0, 0.7])
    plain = make_ggm(N_LARGE, 8, graph=CYCLE, model=model, random_state=5)
    scaled = make_ggm(N_LARGE, 8, graph=CYCLE, model=model, scale=stds, random_state=5)
    np.testing.assert_allclose(np.sqrt(np.diag(scaled.covariance)), stds, rtol=1e-14)
    np.testing.assert_allclose(
        scaled.precision @ scaled.covariance, np.eye(8), atol=1e-10
    )
    off_graph = off_graph_mask(scaled.adjacency)
    role_matrix = scaled.precision if model == "concentration" else scaled.covariance
    assert np.all(role_matrix[off_graph] == 0.0)
    # Partial correlations are scale invariant; same seed -> same graph and matrix.
    np.testing.assert_allclose(
        scaled.partial_correlation, plain.partial_correlation, atol=1e-12
    )
    np.testing.assert_array_equal(scaled.scale, stds)
    # X was rescaled consistently with the matrices.
    assert_covariance_matches(scaled.X, scaled.covariance)


def test_scale_from_distribution_callable_and_scalar():
    distribution = scipy.stats.uniform(1.0, 2.0)  # on [1, 3]
    a = make_ggm(5, 10, scale=distribution, density=0.2, random_state=0)
    b = make_ggm(5, 10, scale=distribution, density=0.2, random_state=0)
    assert np.all((a.scale >= 1.0) & (a.scale <= 3.0))
    np.testing.assert_array_equal(a.scale, b.scale)
    np.testing.assert_allclose(np.diag(a.covariance), a.scale**2, rtol=1e-14)

    def draw(size, rng):
        return rng.uniform(5.0, 6.0, size)

    c = make_ggm(5, 10, scale=draw, density=0.2, random_state=0)
    assert np.all((c.scale >= 5.0) & (c.scale <= 6.0))
    d = make_ggm(5, 10, scale=2.0, density=0.2, random_state=0)
    np.testing.assert_allclose(np.diag(d.covariance), 4.0, rtol=1e-14)


@pytest.mark.parametrize(
    "scale", [np.ones(3), np.array([1.0] * 9 + [0.0]), np.array([1.0] * 9 + [np.nan])]
)
def test_bad_scale(scale):
    with pytest.raises(ValueError, match="scale"):
        make_ggm(5, 10, scale=scale, random_state=0)


def test_bad_scale_from_callable():
    with pytest.raises(ValueError, match="scale"):
        make_ggm(5, 10, scale=lambda size, rng: -np.ones(size), random_state=0)


# --------------------------------------------------------------------------------------
# Randomness
# --------------------------------------------------------------------------------------


def _assert_same_data(a, b):
    for key in ("X", "covariance", "precision", "partial_correlation", "adjacency"):
        np.testing.assert_array_equal(a[key], b[key])


def test_reproducible_with_fixed_seed():
    _assert_same_data(
        make_ggm(20, 15, density=0.2, random_state=7),
        make_ggm(20, 15, density=0.2, random_state=7),
    )
    _assert_same_data(
        make_ggm(20, 15, density=0.2, random_state=np.random.RandomState(7)),
        make_ggm(20, 15, density=0.2, random_state=np.random.RandomState(7)),
    )
    a = make_ggm(20, 15, density=0.2, random_state=7)
    b = make_ggm(20, 15, density=0.2, random_state=8)
    assert not np.array_equal(a.X, b.X)


def test_user_generator_is_not_touched_and_its_seed_is_overridden():
    mine = TriangulatedOrthogonalization(triangulation="min_fill", random_state=123)
    before = mine.get_params()
    a = make_ggm(10, 12, density=0.3, generator=mine, random_state=0)
    assert mine.get_params() == before
    assert not hasattr(mine, "adjacency_")  # still unfitted
    assert a.generator is not mine
    assert a.generator.triangulation == "min_fill"
    other = clone(mine).set_params(random_state=999)
    b = make_ggm(10, 12, density=0.3, generator=other, random_state=0)
    _assert_same_data(a, b)  # make_ggm's random_state alone decides


def test_seeds_are_paired_across_model_and_generator():
    conc = make_ggm(30, 10, density=0.3, model="concentration", random_state=4)
    cov = make_ggm(30, 10, density=0.3, model="covariance", random_state=4)
    np.testing.assert_array_equal(conc.adjacency, cov.adjacency)
    # The same drawn matrix, used in the other role.
    np.testing.assert_array_equal(conc.precision, cov.covariance)
    dd = make_ggm(30, 10, density=0.3, generator=DiagonalDominance(), random_state=4)
    np.testing.assert_array_equal(conc.adjacency, dd.adjacency)
    assert dd.generator_name == "DiagonalDominance"
    assert not np.array_equal(conc.precision, dd.precision)


# --------------------------------------------------------------------------------------
# Graph families and density
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", GRAPH_FAMILIES)
def test_every_family_name_works(family):
    data = make_ggm(30, 16, graph=family, random_state=0)
    assert data.graph_family == family
    assert data.X.shape == (30, 16)
    assert data.adjacency.shape == (16, 16)
    off_graph = off_graph_mask(data.adjacency)
    assert np.all(data.precision[off_graph] == 0.0)
    assert np.all(data.precision[data.adjacency] != 0.0)
    assert data.graph.number_of_nodes() == 16
    # A deterministic family called with the recorded parameters gives this graph.
    if family in {"band", "chain", "complete", "star", "lattice"}:
        function = getattr(graphs, f"{family}_graph")
        size = () if family == "lattice" else (16,)
        expected = graphs.check_adjacency(function(*size, **data.graph_params))
        np.testing.assert_array_equal(data.adjacency, expected)
    assert data.edge_density == pytest.approx(data.adjacency.sum() / (16 * 15))


def test_fixed_families_give_their_structure():
    assert make_ggm(5, 6, graph="chain", random_state=0).graph.number_of_edges() == 5
    assert make_ggm(5, 6, graph="complete", random_state=0).edge_density == 1.0
    star = make_ggm(5, 6, graph="star", random_state=0)
    assert star.adjacency[0, 1:].all() and not star.adjacency[1:, 1:].any()
    hub = make_ggm(5, 12, graph="hub", n_hubs=3, random_state=0)
    assert hub.graph.number_of_edges() == 12 - 3
    lattice = make_ggm(5, 12, graph="lattice", random_state=0)
    assert (lattice.graph_params["n_rows"], lattice.graph_params["n_cols"]) == (3, 4)
    assert lattice.graph.number_of_edges() == 3 * 3 + 2 * 4
    wide = make_ggm(5, 12, graph="lattice", n_rows=2, random_state=0)
    assert wide.graph_params["n_cols"] == 6
    with pytest.raises(ValueError, match="n_features=12"):
        make_ggm(5, 12, graph="lattice", n_rows=5, random_state=0)


def _edges(data):
    return int(data.adjacency.sum() // 2)


@pytest.mark.parametrize(
    ("family", "parameter", "edges_of"),
    [
        ("band", "bandwidth", lambda p, b: b * p - b * (b + 1) // 2),
        ("small_world", "n_neighbours", lambda p, k: p * (k // 2)),
        ("scale_free", "n_edges_per_node", lambda p, m: m * (p - m)),
    ],
)
@pytest.mark.parametrize("density", [0.05, 0.1, 0.23, 0.4])
def test_discrete_families_hit_the_closest_density(
    family, parameter, edges_of, density
):
    p = 40
    data = make_ggm(
        5,
        p,
        graph=family,
        density=density,
        generator=DiagonalDominance(),
        random_state=0,
    )
    value = data.graph_params[parameter]
    assert _edges(data) == edges_of(p, value)
    # No other value of the parameter comes closer to the target.
    n_pairs = p * (p - 1) // 2
    candidates = range(1, p // 2 + 1) if family == "scale_free" else range(0, p - 1)
    if family == "small_world":
        candidates = range(0, p, 2)
    best = min(abs(edges_of(p, v) / n_pairs - density) for v in candidates)
    assert abs(_edges(data) / n_pairs - density) == pytest.approx(best)


@pytest.mark.parametrize(
    ("family", "params"),
    [
        ("erdos_renyi", {}),
        ("cluster", {"n_clusters": 2}),
        ("cluster", {"n_clusters": 3, "between_density": 0.05}),
    ],
)
def test_random_families_hit_the_density_in_mean(family, params):
    # One graph on p = 120 nodes: N = 7140 pairs. The edge count is a sum of
    # independent Bernoulli's with mean density * N, so its sd is at most
    # sqrt(N / 4) = 42, i.e. 0.006 in density; 5 sds = 0.03.
    p, density = 120, 0.2
    data = make_ggm(
        5,
        p,
        graph=family,
        density=density,
        generator=DiagonalDominance(),
        random_state=0,
        **params,
    )
    assert abs(data.edge_density - density) < 5 * np.sqrt(0.25 / (p * (p - 1) / 2))


def test_random_chordal_expected_density_formula():
    # The density -> join probability map rests on an exact recursion for the
    # expected edge count; check it against the empirical mean of many graphs with
    # a z-test (sd estimated from the same draws).
    from skggm_bench.datasets._families import _chordal_expected_edges

    p, q, repeats = 25, 0.6, 600
    rng = np.random.RandomState(0)
    counts = np.array(
        [
            graphs.random_chordal_graph(p, q, random_state=rng).number_of_edges()
            for _ in range(repeats)
        ]
    )
    z = (counts.mean() - _chordal_expected_edges(p, q)) / (
        counts.std(ddof=1) / np.sqrt(repeats)
    )
    assert abs(z) < Z_MAX
    # Power: the formula without the join term (a tree, p - 1 edges) is far off.
    assert abs(counts.mean() - (p - 1)) > 10 * counts.std(ddof=1) / np.sqrt(repeats)


def test_random_chordal_density_is_inverted():
    from skggm_bench.datasets._families import _chordal_expected_edges

    p, density = 30, 0.15
    data = make_ggm(
        5,
        p,
        graph="random_chordal",
        density=density,
        generator=DiagonalDominance(),
        random_state=0,
    )
    q = data.graph_params["density"]  # the family's join probability
    assert 0.0 < q < 1.0
    assert _chordal_expected_edges(p, q) / (p * (p - 1) / 2) == pytest.approx(density)
    assert nx.is_chordal(data.graph)


def test_density_defaults():
    assert make_ggm(5, 20, random_state=0).graph_params["density"] == 0.1
    band = make_ggm(5, 20, graph="band", random_state=0)
    assert band.graph_params == {"bandwidth": 1}  # the family's own default
    er = make_ggm(5, 20, n_edges=17, random_state=0)
    assert _edges(er) == 17


# --------------------------------------------------------------------------------------
# Graph objects
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["networkx", "ndarray", "sparse"])
def test_graph_objects(form):
    graph = nx.relabel_nodes(CYCLE, {k: f"g{k}" for k in CYCLE.nodes})
    dense = nx.to_numpy_array(graph, nodelist=list(graph.nodes), dtype=int)
    given = {"networkx": graph, "ndarray": dense, "sparse": sp.csr_matrix(dense)}[form]
    data = make_ggm(10, 8, graph=given, random_state=0)
    np.testing.assert_array_equal(data.adjacency, dense != 0)
    assert data.graph_family is None and data.graph_params == {}
    expected_labels = list(graph.nodes) if form == "networkx" else list(range(8))
    assert data.node_labels == expected_labels
    assert make_ggm(10, None, graph=given, random_state=0).X.shape == (10, 8)


# --------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_samples": 0}, "n_samples"),
        ({"n_samples": -3}, "n_samples"),
        ({"n_samples": 2.5}, "n_samples"),
        ({"density": -0.1}, "density"),
        ({"density": 1.5}, "density"),
        ({"graph": "erdos-renyi"}, "graph"),
        ({"model": "precision"}, "model"),
        ({"graph": nx.path_graph(5)}, "n_features=10"),
        ({"graph": np.zeros((11, 11))}, "n_features=10"),
        ({"graph": "chain", "density": 0.2}, "density"),
        ({"graph": nx.path_graph(10), "density": 0.2}, "density"),
        ({"graph": nx.path_graph(10), "bandwidth": 2}, "graph_params"),
        ({"graph": "band", "density": 0.2, "bandwidth": 2}, "density"),
        ({"graph": "erdos_renyi", "density": 0.2, "n_edges": 3}, "density"),
        ({"graph": "hub", "n_hub": 2}, "graph_params"),
        ({"graph": "hub", "n_nodes": 4}, "graph_params"),
        ({"graph": "scale_free", "density": 0.9}, "density=0.9"),
        ({"graph": "random_chordal", "density": 0.9}, "density=0.9"),
        ({"graph": "cluster", "density": 0.9}, "density=0.9"),
        ({"graph": "band", "n_features": None}, "n_features"),
        ({"generator": "TriangulatedOrthogonalization"}, "generator"),
    ],
)
def test_make_ggm_bad_input(kwargs, match):
    kwargs = {"n_samples": 5, "n_features": 10, **kwargs}
    with pytest.raises(ValueError, match=match):
        make_ggm(**kwargs)


# --------------------------------------------------------------------------------------
# sample_gaussian
# --------------------------------------------------------------------------------------


def _spd_on_graph(p: int, density: float, seed: int) -> np.ndarray:
    graph = graphs.erdos_renyi_graph(p, density, random_state=seed)
    return TriangulatedOrthogonalization(random_state=seed).fit(graph).sample(1)[0]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("role", ["covariance", "precision"])
def test_sample_gaussian_converges(role, sparse):
    matrix = _spd_on_graph(10, 0.3, seed=0)
    covariance = matrix if role == "covariance" else np.linalg.inv(matrix)
    given = sp.csr_matrix(matrix) if sparse else matrix
    X = sample_gaussian(given, N_LARGE, role=role, random_state=1)
    assert X.shape == (N_LARGE, 10)
    assert_covariance_matches(X, covariance)


@pytest.mark.parametrize("role", ["covariance", "precision"])
def test_sparse_and_dense_paths_have_exactly_the_same_law(role):
    # Both paths return X = Z A^T with Z the documented standard normal draws and a
    # path-specific factor A. Recovering A by least squares (n > p: Z has full
    # column rank) and checking A A^T = Sigma to rounding proves the law is exactly
    # N(0, Sigma) on both paths -- a far sharper test than any sample size allows.
    # p = 60 at density 0.1 makes the minimum-degree ordering non-trivial.
    p, n = 60, 150
    matrix = _spd_on_graph(p, 0.1, seed=3)
    covariance = matrix if role == "covariance" else np.linalg.inv(matrix)
    noise = np.random.RandomState(11).standard_normal((n, p))
    factors = {}
    for name, given in [("dense", matrix), ("sparse", sp.csc_matrix(matrix))]:
        X = sample_gaussian(given, n, role=role, random_state=11)
        factors[name] = np.linalg.lstsq(noise, X, rcond=None)[0].T
        np.testing.assert_allclose(noise @ factors[name].T, X, atol=1e-10)
        np.testing.assert_allclose(
            factors[name] @ factors[name].T, covariance, atol=1e-10
        )
    # The sparse path used a genuinely different (permuted) factor.
    assert not np.allclose(factors["dense"], factors["sparse"])


def test_sparse_precision_for_large_p():
    # p = 100 000, banded precision: a dense route would need 80 GB. For x ~ N(0,
    # K^{-1}), x^T K x ~ chi2_p, so mean_rows(x^T K x) / p has mean 1 and sd
    # sqrt(2 / (p n)) = 0.0014 at n = 10; 5 sds = 0.007. Forgetting the pivots'
    # square roots or returning N(0, K) data moves it by far more.
    p, n = 100_000, 10
    K = sp.diags(
        [np.full(p - 1, -0.45), np.full(p, 1.0), np.full(p - 1, -0.45)], [-1, 0, 1]
    ).tocsr()
    X = sample_gaussian(K, n, role="precision", random_state=0)
    assert X.shape == (n, p)
    statistic = np.einsum("ij,ij->", X, (K @ X.T).T) / (n * p)
    assert abs(statistic - 1.0) < 5 * np.sqrt(2.0 / (n * p))


def test_covariance_check_has_power():
    """The convergence check rejects the mistakes it is meant to catch."""
    sigma = _spd_on_graph(10, 0.5, seed=0)
    precision = np.linalg.inv(sigma)
    rng = np.random.RandomState(0)
    noise = rng.standard_normal((N_LARGE, 10))
    factor = np.linalg.cholesky(sigma)
    right = noise @ factor.T
    assert standardised_deviation(right, sigma) < Z_MAX
    # Transposed factor: covariance L^T L instead of L L^T.
    assert standardised_deviation(noise @ factor, sigma) > 2 * Z_MAX
    # Role confusion: data from the precision used as a covariance.
    assert standardised_deviation(right, precision) > 2 * Z_MAX
    # Off by a 5% scale in one variable.
    scaled = right.copy()
    scaled[:, 0] *= 1.05
    assert standardised_deviation(scaled, sigma) > Z_MAX


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    ("matrix", "match"),
    [
        (np.array([[1.0, 0.5], [0.0, 1.0]]), "not symmetric"),
        (np.array([[1.0, 2.0], [2.0, 1.0]]), "not positive definite"),
        (np.array([[1.0, 1.0], [1.0, 1.0]]), "not positive definite"),
        (np.array([[0.0, 1.0], [1.0, 0.0]]), "not positive definite"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN"),
        (np.ones((2, 3)), "square"),
    ],
)
def test_sample_gaussian_bad_matrix(matrix, match, sparse):
    given = sp.csr_matrix(matrix) if sparse else matrix
    with pytest.raises(ValueError, match=match):
        sample_gaussian(given, 5, role="precision")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"n_samples": 0}, "n_samples"), ({"role": "correlation"}, "role")],
)
def test_sample_gaussian_bad_arguments(kwargs, match):
    kwargs = {"n_samples": 5, **kwargs}
    with pytest.raises(ValueError, match=match):
        sample_gaussian(np.eye(3), **kwargs)


@pytest.mark.parametrize("family", ["erdos_renyi", "band", "scale_free", "chain"])
def test_single_feature(family):
    density = None if family == "chain" else 0.5
    data = make_ggm(10, 1, graph=family, density=density, random_state=0)
    assert data.X.shape == (10, 1)
    np.testing.assert_array_equal(data.covariance, [[1.0]])
    np.testing.assert_array_equal(data.partial_correlation, [[0.0]])
    assert data.edge_density == 0.0
