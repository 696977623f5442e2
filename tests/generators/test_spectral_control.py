"""SpectralControl: exact spectral targets, with and without rescaling."""

import networkx as nx
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from threadpoolctl import threadpool_limits

from skggm_bench.generators import (
    CholeskyProduct,
    DiagonalDominance,
    EigenShift,
    GWishart,
    SpectralControl,
    TriangulatedOrthogonalization,
)
from tests.conftest import GRAPHS

# The achieved spectra are promised to 1e-8; the solver aims at 1e-13.
RELATIVE_TOLERANCE = 1e-8

INNER = {
    # Unit-diagonal draws: the rescaled target has a closed form.
    "diagonal_dominance": DiagonalDominance(random_state=0),
    "triangulated": TriangulatedOrthogonalization(random_state=0),
    # Non-constant diagonals: the rescaled target needs the root finder.
    "g_wishart": GWishart(df=3, random_state=0),
    "cholesky": CholeskyProduct(unit_diagonal=False, random_state=0),
}
TARGETS = [
    {"condition_number": 1.5},
    {"condition_number": 30.0},
    {"condition_number": 1e4},
    {"min_eigenvalue": 0.01},
    {"min_eigenvalue": 0.5},
]


@pytest.fixture(autouse=True, scope="module")
def _single_blas_thread():
    # Batched eigendecompositions of small matrices: BLAS threads only contend.
    with threadpool_limits(1):
        yield


def _achieved(matrices: np.ndarray, target: dict) -> np.ndarray:
    eigenvalues = np.linalg.eigvalsh(matrices)
    if "condition_number" in target:
        return eigenvalues[:, -1] / eigenvalues[:, 0] / target["condition_number"]
    return eigenvalues[:, 0] / target["min_eigenvalue"]


@pytest.mark.parametrize("unit_diagonal", [True, False])
@pytest.mark.parametrize(
    "target", TARGETS, ids=lambda t: "{}={}".format(*next(iter(t.items())))
)
@pytest.mark.parametrize(
    "graph_name, inner",
    [("chordal_random", name) for name in sorted(INNER)]
    # CholeskyProduct needs a chordal graph, so it is left out on the grid.
    + [("grid3x3", name) for name in sorted(INNER) if name != "cholesky"],
)
def test_target_is_hit_exactly(graph_name, inner, target, unit_diagonal):
    graph = GRAPHS[graph_name]
    gen = SpectralControl(INNER[inner], unit_diagonal=unit_diagonal, **target)
    draws = gen.fit(graph).sample(40)
    np.testing.assert_allclose(_achieved(draws, target), 1.0, rtol=RELATIVE_TOLERANCE)
    adjacency = nx.to_numpy_array(graph) != 0
    off_graph = ~adjacency & ~np.eye(len(adjacency), dtype=bool)
    assert np.all(draws[:, off_graph] == 0.0)
    np.testing.assert_array_equal(draws, np.swapaxes(draws, 1, 2))
    if unit_diagonal:
        np.testing.assert_array_equal(np.diagonal(draws, axis1=1, axis2=2), 1.0)


def test_without_rescaling_only_the_diagonal_moves():
    # Same inner stream: the output is M + t I with t = shifts_, exactly the Cai
    # shift (lambda_max - k lambda_min) / (k - 1).
    graph = GRAPHS["erdos_renyi"]
    inner = GWishart(random_state=4)
    M = clone(inner).fit(graph).sample(10)
    gen = SpectralControl(inner, condition_number=20.0, unit_diagonal=False).fit(graph)
    shifted = gen.sample(10)
    off_diagonal = ~np.eye(15, dtype=bool)
    np.testing.assert_array_equal(shifted[:, off_diagonal], M[:, off_diagonal])
    eigenvalues = np.linalg.eigvalsh(M)
    cai = (eigenvalues[:, -1] - 20.0 * eigenvalues[:, 0]) / 19.0
    np.testing.assert_allclose(gen.shifts_, cai, rtol=1e-12)
    index = np.arange(15)
    np.testing.assert_allclose(
        shifted[:, index, index], M[:, index, index] + cai[:, None], rtol=1e-12
    )


def test_with_rescaling_the_draw_is_the_rescaled_shift():
    graph = GRAPHS["cycle5"]
    inner = GWishart(random_state=5)
    M = clone(inner).fit(graph).sample(10)
    gen = SpectralControl(inner, min_eigenvalue=0.2).fit(graph)
    C = gen.sample(10)
    d = np.diagonal(M, axis1=1, axis2=2) + gen.shifts_[:, None]
    np.testing.assert_allclose(
        C * np.sqrt(d[:, :, None] * d[:, None, :]),
        M + gen.shifts_[:, None, None] * np.eye(5),
        rtol=1e-12,
        atol=1e-12,
    )


def test_rescaled_condition_number_is_monotone_in_the_shift():
    # The uniqueness argument of the module docstring, checked numerically: on
    # draws with very uneven diagonals, kappa(C(t)) decreases strictly and
    # lambda_min(C(t)) increases strictly over a wide grid of shifts.
    graph = GRAPHS["erdos_renyi"]
    M = GWishart(df=3, random_state=6).fit(graph).sample(20)
    smallest = np.linalg.eigvalsh(M)[:, 0]
    for draw, low in zip(M, smallest, strict=True):
        shifts = -low + np.geomspace(1e-6, 1e4, 200)
        d = np.diag(draw)[None, :] + shifts[:, None]
        C = (draw[None] + shifts[:, None, None] * np.eye(15)) / np.sqrt(
            d[:, :, None] * d[:, None, :]
        )
        eigenvalues = np.linalg.eigvalsh(C)
        assert np.all(np.diff(eigenvalues[:, -1] / eigenvalues[:, 0]) < 0)
        assert np.all(np.diff(eigenvalues[:, 0]) > 0)


@pytest.mark.parametrize(
    "params, message",
    [
        ({}, "exactly one of"),
        ({"min_eigenvalue": 0.1, "condition_number": 10.0}, "exactly one of"),
        ({"min_eigenvalue": 1.0}, "unreachable"),
        ({"min_eigenvalue": 0.0}, "min_eigenvalue"),
        ({"condition_number": 1.0}, "condition_number"),
        ({"condition_number": 10.0, "unit_diagonal": "yes"}, "unit_diagonal"),
        ({"condition_number": 10.0, "random_state": "seed"}, "random_state"),
    ],
)
def test_bad_targets_get_clear_errors(params, message):
    with pytest.raises(ValueError, match=message):
        SpectralControl(DiagonalDominance(), **params).fit(GRAPHS["chain"])


def test_generator_must_be_a_generator():
    with pytest.raises(ValueError, match="generator"):
        SpectralControl("DiagonalDominance", condition_number=3.0).fit(GRAPHS["chain"])


@pytest.mark.parametrize("graph_name", ["empty", "single_node"])
def test_graphs_without_edges(graph_name):
    graph = GRAPHS[graph_name]
    p = graph.number_of_nodes()
    # Rescaled draws are the identity: no target can be reached.
    with pytest.raises(ValueError, match="no edges"):
        SpectralControl(GWishart(), condition_number=5.0).fit(graph)
    # Unscaled: a smallest eigenvalue can always be set ...
    gen = SpectralControl(
        GWishart(random_state=0), min_eigenvalue=0.3, unit_diagonal=False
    )
    draws = gen.fit(graph).sample(5)
    np.testing.assert_allclose(np.linalg.eigvalsh(draws)[:, 0], 0.3, rtol=1e-12)
    assert np.all(draws[:, ~np.eye(p, dtype=bool)] == 0.0)
    # ... and a condition number only if the diagonal is not constant.
    unit = SpectralControl(
        DiagonalDominance(), condition_number=5.0, unit_diagonal=False
    )
    with pytest.raises(ValueError, match="multiple of the identity"):
        unit.fit(graph).sample(2)
    if p > 1:
        spread = SpectralControl(
            GWishart(random_state=0), condition_number=5.0, unit_diagonal=False
        )
        draws = spread.fit(graph).sample(5)
        np.testing.assert_allclose(_achieved(draws, {"condition_number": 5.0}), 1.0)


def test_diagonal_draw_on_a_graph_with_edges_is_reported():
    class ZeroOffDiagonal(DiagonalDominance):
        def _sample(self, n_samples, rng):
            return np.repeat(np.diag(np.arange(1.0, 8.0))[None], n_samples, axis=0)

    gen = SpectralControl(ZeroOffDiagonal(), condition_number=3.0).fit(GRAPHS["chain"])
    with pytest.raises(ValueError, match="is diagonal"):
        gen.sample(2)


def test_meta_estimator_contract():
    inner = GWishart(df=4, random_state=1)
    gen = SpectralControl(inner, condition_number=10.0)
    params = gen.get_params(deep=True)
    assert params["generator__df"] == 4
    cloned = clone(gen)
    assert cloned.generator is not inner
    assert cloned.generator.get_params() == inner.get_params()
    with pytest.raises(NotFittedError):
        gen.sample(1)
    gen.fit(GRAPHS["chain"])
    # fit clones: the parameter itself is never fitted.
    assert not hasattr(inner, "adjacency_")
    assert gen.generator_ is not inner and hasattr(gen.generator_, "adjacency_")
    gen.set_params(generator__df=6)
    assert gen.generator.df == 6 and gen.generator_.df == 4
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="n_samples"):
            gen.sample(bad)


def test_random_state_overrides_the_inner_generator():
    graph = GRAPHS["diamond"]
    via_meta = SpectralControl(
        GWishart(random_state=0), condition_number=4.0, random_state=9
    )
    via_inner = SpectralControl(GWishart(random_state=9), condition_number=4.0)
    a = via_meta.fit(graph).sample(4)
    np.testing.assert_array_equal(a, via_inner.fit(graph).sample(4))
    assert via_meta.generator.random_state == 0  # the parameter is untouched
    # Same seed, same draws; consecutive calls give fresh draws.
    b1, b2 = via_meta.fit(graph).sample(4), via_meta.sample(4)
    np.testing.assert_array_equal(a, b1)
    assert not np.allclose(b1, b2)


def test_inner_generator_graph_is_used():
    # A triangulating inner generator widens the support; SpectralControl follows.
    graph = GRAPHS["cycle5"]
    inner = CholeskyProduct(on_non_chordal="triangulate", random_state=0)
    with pytest.warns(UserWarning, match="triangulation"):
        gen = SpectralControl(inner, condition_number=8.0).fit(graph)
    np.testing.assert_array_equal(gen.adjacency_, gen.generator_.adjacency_)
    assert gen.adjacency_.sum() > nx.to_numpy_array(graph).sum()
    draws = gen.sample(10)
    np.testing.assert_allclose(
        _achieved(draws, {"condition_number": 8.0}), 1.0, rtol=1e-8
    )


def test_deterministic_inner_generator():
    # EigenShift always returns the same matrix; so does SpectralControl of it.
    gen = SpectralControl(EigenShift(), condition_number=12.0).fit(GRAPHS["grid3x3"])
    draws = gen.sample(3)
    np.testing.assert_array_equal(draws[0], draws[2])
    np.testing.assert_allclose(
        _achieved(draws, {"condition_number": 12.0}), 1.0, rtol=1e-8
    )


class _FixedMatrix(DiagonalDominance):
    """Always returns node 0 isolated with the smallest diagonal, then an edge."""

    _unit_diagonal = False  # keep the 0.1 on the diagonal

    def _sample(self, n_samples, rng):
        matrix = np.array([[0.1, 0.0, 0.0], [0.0, 1.0, 0.5], [0.0, 0.5, 1.0]])
        return np.repeat(matrix[None], n_samples, axis=0)


def test_unreachable_target_without_coupling_is_reported():
    # The lowest eigenvector of M is e_0 (isolated node), so the analytic lower
    # bracket does not apply. For t > -0.1 the rescaled edge block has eigenvalues
    # 1 +- 0.5 / (1 + t), so the condition number stays below
    # (1 + 5/9) / (1 - 5/9) = 3.5: 2 is reachable, 10 is not.
    adjacency = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0]])
    reachable = SpectralControl(_FixedMatrix(), condition_number=2.0).fit(adjacency)
    np.testing.assert_allclose(
        _achieved(reachable.sample(2), {"condition_number": 2.0}), 1.0, rtol=1e-8
    )
    unreachable = SpectralControl(_FixedMatrix(), condition_number=10.0).fit(adjacency)
    with pytest.raises(ValueError, match="not reachable"):
        unreachable.sample(2)
