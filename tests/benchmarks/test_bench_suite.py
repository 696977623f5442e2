"""pytest-benchmark suite: ``make bench``; not part of ``make test``.

Covers every generator, ``triangulate``, ``make_ggm``, each learner's fit and a
small ``Benchmark`` grid at n_jobs=1 and 2, next to the floors the figures are
read against: one batched matrix product (samplers) and one Cholesky
factorisation (data sampling). Compare within one run (``--benchmark-compare`` or
the printed table), never against absolute times from another machine.
"""

import networkx as nx
import numpy as np
import pytest
import scipy.linalg

from skggm_bench import generators, learners
from skggm_bench.benchmark import Benchmark
from skggm_bench.datasets import make_ggm
from skggm_bench.graphs import erdos_renyi_graph, triangulate

P, N_DRAWS = 50, 100
GRAPH = erdos_renyi_graph(P, 0.1, random_state=0)
CHORDAL = nx.from_numpy_array(triangulate(GRAPH)[0].astype(int))

GENERATORS = {
    "DiagonalDominance": (generators.DiagonalDominance, GRAPH),
    "PartialOrthogonalization": (generators.PartialOrthogonalization, GRAPH),
    "UniformChordal": (generators.UniformChordal, CHORDAL),
    "TriangulatedOrthogonalization": (generators.TriangulatedOrthogonalization, GRAPH),
    "HitAndRunUniform": (generators.HitAndRunUniform, GRAPH),
    "GWishart": (generators.GWishart, CHORDAL),
    "GWishartGibbs": (
        lambda random_state: generators.GWishart(
            method="gibbs", random_state=random_state
        ),
        GRAPH,
    ),
    "GWishartLenkoski": (
        lambda random_state: generators.GWishart(
            method="lenkoski", random_state=random_state
        ),
        GRAPH,
    ),
    "EigenShift": (generators.EigenShift, GRAPH),
    "CholeskyProduct": (generators.CholeskyProduct, CHORDAL),
    "SpectralControl": (
        lambda random_state: generators.SpectralControl(
            generators.TriangulatedOrthogonalization(),
            condition_number=50.0,
            random_state=random_state,
        ),
        GRAPH,
    ),
}


def test_floor_batched_product(benchmark):
    factors = np.random.RandomState(0).standard_normal((N_DRAWS, P, P))
    benchmark(lambda: factors @ np.swapaxes(factors, 1, 2))


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_generator_sample(benchmark, name):
    make, graph = GENERATORS[name]
    generator = make(random_state=0).fit(graph)
    benchmark(generator.sample, N_DRAWS)


@pytest.mark.parametrize("method", ["min_degree", "min_fill"])
def test_triangulate_p400(benchmark, method):
    graph = erdos_renyi_graph(400, 5 / 399, random_state=0)
    benchmark(triangulate, graph, method)


def test_floor_one_cholesky(benchmark):
    matrix = make_ggm(200, 100, random_state=0).precision
    benchmark(scipy.linalg.cholesky, matrix, lower=True)


def test_make_ggm_p100(benchmark):
    benchmark(make_ggm, 200, 100, density=0.1, random_state=0)


LEARNERS = {
    "shrink": learners.ShrinkagePartialCorrelation,
    "lasso": learners.LassoNetwork,
    "adalasso": learners.AdaptiveLassoNetwork,
    "ridge": learners.RidgeNetwork,
    "pls": learners.PLSNetwork,
}


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_learner_fit_p100_n200(benchmark, name):
    X = make_ggm(200, 100, density=0.1, random_state=0).X
    benchmark.pedantic(LEARNERS[name]().fit, args=(X,), rounds=3, iterations=1)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_benchmark_grid(benchmark, n_jobs):
    def run():
        return Benchmark(
            {"diagdom": generators.DiagonalDominance()},
            {
                "shrink": learners.ShrinkagePartialCorrelation(),
                "ridge": learners.RidgeNetwork(),
            },
            densities=(0.1, 0.3),
            n_features=30,
            n_samples=(50, 100),
            n_repeats=5,
            n_jobs=n_jobs,
            random_state=0,
        ).run()

    result = benchmark.pedantic(run, rounds=2, iterations=1)
    assert len(result.frame) == 40
