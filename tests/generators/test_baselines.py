"""EigenShift (huge.generator) and CholeskyProduct (make_sparse_spd_matrix)."""

import warnings

import networkx as nx
import numpy as np
import pytest
from scipy import stats

from skggm_bench.generators import CholeskyProduct, EigenShift
from tests.conftest import CHORDAL, GRAPHS, as_form, assert_valid_draws

# --------------------------------------------------------------------------------------
# EigenShift
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("scaling", ["unit_diagonal", "huge"])
def test_eigen_shift_invariants_on_every_graph_kind(graph_name, scaling):
    graph = GRAPHS[graph_name]
    gen = EigenShift(scaling=scaling).fit(as_form(graph, "ndarray"))
    adjacency = nx.to_numpy_array(graph) != 0
    assert_valid_draws(
        gen.sample(3), adjacency, unit_diagonal=scaling == "unit_diagonal"
    )


@pytest.mark.parametrize("v, u", [(0.3, 0.1), (1.0, 0.0), (0.05, 2.0)])
def test_eigen_shift_is_the_huge_construction(v, u):
    # Omega = v A + (|lambda_min(v A)| + 0.1 + u) I, written out independently.
    graph = GRAPHS["erdos_renyi"]
    A = nx.to_numpy_array(graph)
    shift = abs(np.linalg.eigvalsh(v * A).min()) + 0.1 + u
    omega = v * A + shift * np.eye(len(A))
    # Smallest eigenvalue of Omega is 0.1 + u by construction.
    assert np.isclose(np.linalg.eigvalsh(omega).min(), 0.1 + u)
    unit = EigenShift(v, u).fit(graph).sample(1)[0]
    np.testing.assert_allclose(unit, omega / shift, rtol=1e-13, atol=0)
    # huge returns sigma = cov2cor(inv(Omega)) and its inverse as the precision.
    covariance = np.linalg.inv(omega)
    sd = np.sqrt(np.diag(covariance))
    sigma = covariance / np.outer(sd, sd)
    huge = EigenShift(v, u, scaling="huge").fit(graph).sample(1)[0]
    np.testing.assert_allclose(huge, np.linalg.inv(sigma), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.diag(np.linalg.inv(huge)), 1.0, rtol=1e-12)


def test_eigen_shift_partial_correlations_do_not_depend_on_scaling():
    graph = GRAPHS["grid3x3"]
    a = EigenShift(scaling="unit_diagonal").fit(graph).sample(1)[0]
    b = EigenShift(scaling="huge").fit(graph).sample(1)[0]
    d = np.sqrt(np.diag(b))
    np.testing.assert_allclose(a, b / np.outer(d, d), rtol=1e-12, atol=1e-15)


def test_eigen_shift_is_deterministic():
    gen = EigenShift(random_state=0).fit(GRAPHS["cycle5"])
    first, second = gen.sample(2), gen.sample(1)
    np.testing.assert_array_equal(first[0], first[1])
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(gen.matrix_, first[0])


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(v=0.0), "v"),
        (dict(v=-0.3), "v"),
        (dict(u=-0.1), "u"),
        (dict(scaling="cov2cor"), "scaling"),
        (dict(random_state="seed"), "random_state"),
    ],
)
def test_eigen_shift_bad_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        EigenShift(**params).fit(GRAPHS["chain"])


# --------------------------------------------------------------------------------------
# CholeskyProduct
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("unit_diagonal", [True, False])
def test_cholesky_product_invariants_on_every_graph_kind(graph_name, unit_diagonal):
    graph = GRAPHS[graph_name]
    adjacency = nx.to_numpy_array(graph) != 0
    gen = CholeskyProduct(unit_diagonal=unit_diagonal, random_state=0)
    if graph_name not in CHORDAL:
        with pytest.raises(
            ValueError, match=r"not chordal.*TriangulatedOrthogonalization"
        ):
            gen.fit(graph)
        return
    draws = gen.fit(as_form(graph, "sparse")).sample(20)
    np.testing.assert_array_equal(gen.adjacency_, adjacency)
    assert not gen.fill_in_.any()
    assert_valid_draws(draws, adjacency, unit_diagonal)


def test_cholesky_product_factor_is_recovered():
    # M = R^T R with R unit upper triangular in the elimination order: the upper
    # Cholesky factor of M is R itself. Its entries must be -w on the later
    # neighbours, w uniform on [0.1, 0.9], and exactly the graph's pattern.
    graph = GRAPHS["chordal_random"]
    adjacency = nx.to_numpy_array(graph) != 0
    gen = CholeskyProduct(unit_diagonal=False, random_state=0).fit(graph)
    draws = gen.sample(2000)
    order = gen.ordering_
    ordered = draws[:, order[:, None], order]
    factor = np.swapaxes(np.linalg.cholesky(ordered), 1, 2)  # upper, M = R^T R
    np.testing.assert_allclose(np.diagonal(factor, axis1=1, axis2=2), 1.0, rtol=1e-12)
    pattern = np.triu(adjacency[np.ix_(order, order)], 1)
    assert np.abs(factor[:, np.triu(~pattern, 1)]).max() < 1e-12
    weights = -factor[:, pattern]
    assert weights.min() >= 0.1 - 1e-12 and weights.max() <= 0.9 + 1e-12
    # Uniformity: KS on the pooled weights (20,000 values); a wrong law (e.g.
    # uniform on [0, 1]) gives p < 1e-100 at this size.
    assert stats.kstest(weights.ravel(), stats.uniform(0.1, 0.8).cdf).pvalue > 1e-3


def test_cholesky_product_warns_on_numerically_singular_draws():
    # Measured: band graph p=50, bandwidth 5, default weights -> median condition
    # number ~4e14, some draws computed indefinite; largest_coef=0.3 -> ~240.
    band = nx.Graph()
    band.add_nodes_from(range(50))
    band.add_edges_from((i, i + k) for k in range(1, 6) for i in range(50 - k))
    with pytest.warns(UserWarning, match="numerically singular"):
        CholeskyProduct(random_state=0).fit(band).sample(20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        draws = CholeskyProduct(largest_coef=0.3, random_state=0).fit(band).sample(20)
    eigenvalues = np.linalg.eigvalsh(draws)
    assert np.all(eigenvalues[:, -1] / eigenvalues[:, 0] < 1e5)


def test_cholesky_product_unit_diagonal_is_the_rescaled_product():
    graph = GRAPHS["diamond"]
    raw = CholeskyProduct(unit_diagonal=False, random_state=2).fit(graph).sample(5)
    unit = CholeskyProduct(random_state=2).fit(graph).sample(5)
    d = np.sqrt(np.diagonal(raw, axis1=1, axis2=2))
    np.testing.assert_allclose(unit, raw / d[:, :, None] / d[:, None, :], rtol=1e-12)


@pytest.mark.parametrize("graph_name", ["cycle5", "grid3x3", "erdos_renyi"])
def test_cholesky_product_on_a_triangulation(graph_name):
    graph = GRAPHS[graph_name]
    adjacency = nx.to_numpy_array(graph) != 0
    gen = CholeskyProduct(on_non_chordal="triangulate", random_state=0)
    with pytest.warns(UserWarning, match="extra edges"):
        gen.fit(graph)
    # adjacency_ is the triangulation: a chordal supergraph, the fill on top.
    assert nx.is_chordal(nx.from_numpy_array(gen.adjacency_.astype(int)))
    np.testing.assert_array_equal(gen.adjacency_, adjacency | gen.fill_in_)
    assert gen.fill_in_.any() and not (gen.fill_in_ & adjacency).any()
    assert_valid_draws(gen.sample(20), gen.adjacency_)


def test_cholesky_product_triangulate_is_silent_on_chordal_graphs(recwarn):
    gen = CholeskyProduct(on_non_chordal="triangulate", random_state=0)
    gen.fit(GRAPHS["chordal_random"])
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(smallest_coef=0.0), "smallest_coef"),
        (dict(largest_coef=-1.0), "largest_coef"),
        (dict(smallest_coef=0.5, largest_coef=0.2), "must not exceed"),
        (dict(on_non_chordal="ignore"), "on_non_chordal"),
        (dict(unit_diagonal=1), "unit_diagonal"),
    ],
)
def test_cholesky_product_bad_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        CholeskyProduct(**params).fit(GRAPHS["chain"])
