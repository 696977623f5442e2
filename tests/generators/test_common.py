"""The GraphicalModelGenerator contract, checked on every generator and graph kind."""

import networkx as nx
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from skggm_bench.generators import (
    CholeskyProduct,
    DiagonalDominance,
    EigenShift,
    GWishart,
    HitAndRunUniform,
    JointGenerator,
    LatentGenerator,
    PartialOrthogonalization,
    SpectralControl,
    TimeVaryingGenerator,
    TriangulatedOrthogonalization,
    UniformChordal,
)
from skggm_bench.graphs import check_adjacency
from tests.conftest import CHORDAL, GRAPHS, as_form, assert_valid_draws

GENERATORS = {
    "DiagonalDominance": DiagonalDominance,
    "PartialOrthogonalization": PartialOrthogonalization,
    "TriangulatedOrthogonalization": TriangulatedOrthogonalization,
    "UniformChordal": UniformChordal,
    "UniformChordalMetropolis": lambda **kw: UniformChordal("metropolis", **kw),
    "HitAndRunUniform": HitAndRunUniform,
    "GWishart": lambda **kw: GWishart(unit_diagonal=True, **kw),
    "SpectralControl": lambda **kw: SpectralControl(
        TriangulatedOrthogonalization(), condition_number=20.0, **kw
    ),
    "EigenShift": EigenShift,
    "CholeskyProduct": CholeskyProduct,
}
NEEDS_CHORDAL = {"UniformChordal", "UniformChordalMetropolis", "CholeskyProduct"}
# EigenShift is deterministic given the graph (huge.generator's construction), so
# it has no fresh draws to check.
DETERMINISTIC = {"EigenShift"}


@pytest.mark.parametrize("form", ["networkx", "ndarray", "sparse"])
@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_invariants_on_every_graph_kind(name, form, graph_name):
    graph = GRAPHS[graph_name]
    generator = GENERATORS[name](random_state=0)
    if name in NEEDS_CHORDAL and graph_name not in CHORDAL:
        with pytest.raises(ValueError, match="not chordal"):
            generator.fit(as_form(graph, form))
        return
    if name == "SpectralControl" and graph.number_of_edges() == 0:
        # Every unit-diagonal draw on an edgeless graph is the identity: a target
        # condition number other than 1 is impossible, and is reported as such.
        with pytest.raises(ValueError, match="no edges"):
            generator.fit(as_form(graph, form)).sample(2)
        return
    draws = generator.fit(as_form(graph, form)).sample(20)
    adjacency = nx.to_numpy_array(graph, nodelist=list(graph.nodes)) != 0
    np.testing.assert_array_equal(generator.adjacency_, adjacency)
    assert_valid_draws(draws, adjacency)


# The non-chordal grid exercises rejection and MCMC streams (GWishart, hit-and-run).
@pytest.mark.parametrize(
    "name, graph_name",
    [
        (name, graph_name)
        for name in sorted(set(GENERATORS) - DETERMINISTIC)
        for graph_name in ("chordal_random", "grid3x3")
        if name not in NEEDS_CHORDAL or graph_name in CHORDAL
    ],
)
def test_random_state_semantics(name, graph_name):
    graph = GRAPHS[graph_name]
    make = GENERATORS[name]
    first = make(random_state=7).fit(graph)
    second = make(random_state=7).fit(graph)
    a1, a2 = first.sample(3), first.sample(2)
    b1, b2 = second.sample(3), second.sample(2)
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    assert not np.allclose(a1[:2], a2), "consecutive calls must give fresh draws"
    # Refitting restarts the stream.
    np.testing.assert_array_equal(first.fit(graph).sample(3), a1)
    # A shared RandomState instance is advanced, not copied.
    shared = np.random.RandomState(1)
    c1 = make(random_state=shared).fit(graph).sample(2)
    c2 = make(random_state=shared).fit(graph).sample(2)
    assert not np.allclose(c1, c2)


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_sklearn_estimator_contract(name):
    generator = GENERATORS[name](random_state=3)

    def comparable(params):
        # Nested estimators are cloned, not shared: compare them by their params.
        return {
            k: v.get_params() if hasattr(v, "get_params") else v
            for k, v in params.items()
        }

    params = generator.get_params()
    cloned = clone(generator)
    assert comparable(cloned.get_params()) == comparable(params)
    assert cloned.set_params(random_state=4).random_state == 4
    with pytest.raises(NotFittedError):
        generator.sample(1)
    generator.fit(GRAPHS["chain"])
    assert not hasattr(clone(generator), "adjacency_")
    for bad in (0, -1, 2.5, "3", True, None):
        with pytest.raises(ValueError, match="n_samples"):
            generator.sample(bad)


@pytest.mark.parametrize(
    "generator, message",
    [
        (UniformChordal(method="gibbs"), "method"),
        (UniformChordal(n_burn_in=-1), "n_burn_in"),
        (UniformChordal(proposal_scale=0.0), "proposal_scale"),
        (DiagonalDominance(distribution="cauchy"), "distribution"),
        (DiagonalDominance(perturbation=0), "perturbation"),
        (TriangulatedOrthogonalization(triangulation="best"), "triangulation"),
        (UniformChordal(random_state="seed"), "random_state"),
    ],
)
def test_invalid_parameters_are_reported_at_fit(generator, message):
    with pytest.raises(ValueError, match=message):
        generator.fit(GRAPHS["chain"])


@pytest.mark.parametrize(
    "graph, error, message",
    [
        (np.ones((2, 3)), ValueError, "square"),
        ([[0, 1], [0, 0]], ValueError, "symmetric"),
        ([[0, np.nan], [np.nan, 0]], ValueError, "NaN"),
        ([[0, 2], [2, 0]], ValueError, "0/1"),
        (np.zeros((0, 0)), ValueError, "no nodes"),
        (nx.DiGraph([(0, 1)]), ValueError, "directed"),
        ("graph", TypeError, "networkx"),
    ],
)
def test_bad_graphs_get_clear_errors(graph, error, message):
    with pytest.raises(error, match=message):
        TriangulatedOrthogonalization().fit(graph)


def test_uniform_chordal_error_names_alternatives():
    with pytest.raises(ValueError, match="TriangulatedOrthogonalization"):
        UniformChordal().fit(nx.cycle_graph(4))


def test_node_labels_follow_networkx_node_order():
    graph = nx.Graph([("b", "a"), ("a", "c")])  # nodes in order b, a, c
    draws = UniformChordal(random_state=0).fit(graph).sample(5)
    # Matrix index 0 is "b", 1 is "a", 2 is "c": b and c are not adjacent.
    assert np.all(draws[:, 0, 2] == 0.0)
    assert np.all(draws[:, 0, 1] != 0.0)
    np.testing.assert_array_equal(
        check_adjacency(graph), [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    )


def test_partial_orthogonalization_works_at_large_p():
    # The reference R package crashes at p >= 800; p = 2000 is timed by
    # tests/benchmarks/bench_samplers.py (p = 400 keeps this test fast).
    graph = nx.gnp_random_graph(400, 0.01, seed=0)
    draws = PartialOrthogonalization(random_state=0).fit(graph).sample(1)
    assert_valid_draws(draws, check_adjacency(graph))


def test_iter_samples_matches_sample_and_bounds_batches():
    graph = GRAPHS["diamond"]
    whole = UniformChordal(random_state=5).fit(graph).sample(7)
    gen = UniformChordal(random_state=5).fit(graph)
    batches = list(gen.iter_samples(7, batch_size=3))
    assert [b.shape[0] for b in batches] == [3, 3, 1]
    assert np.concatenate(batches).shape == whole.shape
    with pytest.raises(ValueError, match="batch_size"):
        next(gen.iter_samples(3, batch_size=0))


def test_iter_samples_peak_memory_follows_the_batch_not_the_total():
    import tracemalloc

    generator = TriangulatedOrthogonalization(random_state=0).fit(
        nx.gnp_random_graph(30, 0.1, seed=0)
    )
    batch_bytes = 500 * 30 * 30 * 8
    tracemalloc.start()
    total = 0
    for batch in generator.iter_samples(20_000, batch_size=500):
        total += batch.shape[0]
        del batch
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert total == 20_000
    # All 20 000 draws would take 40x a batch; the sampler's working arrays (factor,
    # Gram matrix, inverse, one batch) take a small multiple of one batch.
    assert peak < 8 * batch_bytes


def assert_raw_draws_meet_the_contract(
    draws: np.ndarray, adjacency: np.ndarray, unit_diagonal: bool
) -> None:
    """The contract on what ``_sample`` returns, before the base class cleans it.

    The base class symmetrises, zeroes the non-edges and sets the diagonal, which
    would hide a sampler that gets them wrong; its raw output must already satisfy
    them up to rounding (1e-10 relative to the largest entry).
    """
    p = adjacency.shape[0]
    assert draws.shape[1:] == (p, p) and np.all(np.isfinite(draws))
    tolerance = 1e-10 * np.abs(draws).max(axis=(1, 2))[:, None, None]
    assert np.all(np.abs(draws - np.swapaxes(draws, 1, 2)) <= tolerance)
    off_graph = ~adjacency & ~np.eye(p, dtype=bool)
    assert np.all(np.abs(draws * off_graph) <= tolerance)
    diagonal = np.diagonal(draws, axis1=1, axis2=2)
    if unit_diagonal:
        assert np.all(np.abs(diagonal - 1.0) <= 1e-10)
    assert np.all(np.linalg.eigvalsh(draws)[:, 0] > 0)


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_raw_draws_meet_the_contract(name, graph_name):
    graph = GRAPHS[graph_name]
    if name in NEEDS_CHORDAL and graph_name not in CHORDAL:
        return  # refused at fit, tested above
    if name == "SpectralControl" and graph.number_of_edges() == 0:
        return  # refused at fit, tested above
    generator = GENERATORS[name](random_state=0).fit(graph)
    raw = generator._sample(20, generator._rng)
    assert_raw_draws_meet_the_contract(
        raw, generator.adjacency_, generator._unit_diagonal
    )
    if generator._pattern_exact_by_construction:
        # These skip the cleaning: the contract must hold exactly, as sampled.
        assert_valid_draws(raw, generator.adjacency_, generator._unit_diagonal)


class _MisscaledDiagonalDominance(DiagonalDominance):
    """Wrong variant: rescaled by twice the diagonal (diagonal 1/2, entries halved).

    Once the base class resets the diagonal to one, the draws are valid correlation
    matrices of another law: only the raw output shows the mistake.
    """

    def _sample(self, n_samples, rng):
        return super()._sample(n_samples, rng) * 0.5


class _LeakyDiagonalDominance(DiagonalDominance):
    """Wrong variant: one non-edge left with a small non-zero entry."""

    def _sample(self, n_samples, rng):
        matrices = super()._sample(n_samples, rng)
        matrices[:, 0, 2] = matrices[:, 2, 0] = 0.01
        return matrices


@pytest.mark.parametrize(
    "wrong", [_MisscaledDiagonalDominance, _LeakyDiagonalDominance]
)
def test_raw_contract_catches_what_the_cleaning_hides(wrong):
    graph = GRAPHS["cycle5"]
    adjacency = check_adjacency(graph)
    generator = wrong(random_state=0).fit(graph)
    # The cleaned draws look valid (samplers that skip the cleaning, like the
    # orthogonalization samplers, are held to the contract on their draws) ...
    assert_valid_draws(generator.sample(20), adjacency)
    # ... the raw ones do not.
    with pytest.raises(AssertionError):
        assert_raw_draws_meet_the_contract(
            generator._sample(20, generator._rng), adjacency, True
        )


# ------------------------------------------------ generators of several models

MULTI_GENERATORS = {
    "JointGenerator": lambda **kw: JointGenerator(n_classes=3, **kw),
    "TimeVaryingGenerator": lambda **kw: TimeVaryingGenerator(n_times=4, **kw),
    "LatentGenerator": lambda **kw: LatentGenerator(n_latent=2, **kw),
}


def _stacked(draws):
    # LatentGenerator returns (joint, sparse, low_rank): compare them all.
    return (
        np.concatenate([np.ravel(d) for d in draws])
        if isinstance(draws, tuple)
        else draws
    )


@pytest.mark.parametrize("name", sorted(MULTI_GENERATORS))
def test_multi_model_random_state_semantics(name):
    graph = GRAPHS["grid3x3"]
    make = MULTI_GENERATORS[name]
    first = make(random_state=7).fit(graph)
    second = make(random_state=7).fit(graph)
    np.testing.assert_array_equal(first.adjacency_, second.adjacency_)
    a1, a2 = _stacked(first.sample(3)), _stacked(first.sample(3))
    np.testing.assert_array_equal(a1, _stacked(second.sample(3)))
    assert not np.allclose(a1, a2), "consecutive calls must give fresh draws"
    np.testing.assert_array_equal(_stacked(first.fit(graph).sample(3)), a1)
    other = make(random_state=8).fit(graph)
    assert not np.allclose(_stacked(other.sample(3)), a1)


@pytest.mark.parametrize("name", sorted(MULTI_GENERATORS))
def test_multi_model_sklearn_contract(name):
    generator = MULTI_GENERATORS[name](random_state=3)
    cloned = clone(generator)
    assert cloned.get_params()["random_state"] == 3
    with pytest.raises(NotFittedError):
        generator.sample(1)
    generator.fit(GRAPHS["chain"])
    assert not hasattr(clone(generator), "adjacency_")
    for bad in (0, -1, 2.5, True, None):
        with pytest.raises(ValueError, match="n_samples"):
            generator.sample(bad)


@pytest.mark.parametrize(
    "generator, message",
    [
        (JointGenerator(n_classes=0), "n_classes"),
        (JointGenerator(shared_fraction=1.5), "shared_fraction"),
        (JointGenerator(similarity=-0.1), "similarity"),
        (JointGenerator(generator="uniform"), "generator"),
        (TimeVaryingGenerator(n_times=0), "n_times"),
        (TimeVaryingGenerator(change_rate=2.0), "change_rate"),
        (TimeVaryingGenerator(smoothness=1.0), "smoothness"),
        (TimeVaryingGenerator(window=0), "window"),
        (LatentGenerator(n_latent=0), "n_latent"),
        (LatentGenerator(n_attached=True), "n_attached"),
        (LatentGenerator(random_state="seed"), "random_state"),
    ],
)
def test_multi_model_invalid_parameters_are_reported_at_fit(generator, message):
    with pytest.raises(ValueError, match=message):
        generator.fit(GRAPHS["chain"])


@pytest.mark.parametrize("name", sorted(MULTI_GENERATORS))
def test_multi_model_generators_refuse_bad_graphs(name):
    with pytest.raises(ValueError, match="symmetric"):
        MULTI_GENERATORS[name]().fit([[0, 1], [0, 0]])
