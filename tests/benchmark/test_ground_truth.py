"""The truth is what was drawn, and the harness reads any learner: pipelines, searches.

* Every generator of the package, on every kind of graph, through ``make_ggm`` and
  through ``Benchmark.dataset``: the returned true graph is exactly the support of the
  model's matrix (precision for a concentration graph, covariance for a covariance
  graph). A generator that samples on a supergraph reports the edges it added.
* ``make_ggm`` and the harness share one data pipeline: the same seed gives the same
  data set, bit for bit.
* Pipelines and fitted searches are read through, by the scorers and the harness.
* Covariance estimators can be benchmarked by the matrix losses.
"""

import math

import networkx as nx
import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.covariance import (
    OAS,
    EmpiricalCovariance,
    GraphicalLasso,
    LedoitWolf,
)
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.analysis.leaderboard import leaderboard
from skggm_bench.datasets import make_ggm
from skggm_bench.generators import (
    CholeskyProduct,
    DiagonalDominance,
    EigenShift,
    GWishart,
    HitAndRunUniform,
    PartialOrthogonalization,
    SpectralControl,
    TriangulatedOrthogonalization,
    UniformChordal,
)
from skggm_bench.learners import ShrinkagePartialCorrelation
from skggm_bench.metrics import edges_from_estimator, make_structure_scorer

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

# Every generator the package exports, in a configuration that samples quickly on
# the small graphs below. Wrappers wrap a generator that changes the graph, so that
# "a wrapper copies the graph of what it wraps" is tested too.
GENERATORS = {
    "DiagonalDominance": DiagonalDominance(),
    "PartialOrthogonalization": PartialOrthogonalization(),
    "TriangulatedOrthogonalization": TriangulatedOrthogonalization(),
    "UniformChordal": UniformChordal(),
    "HitAndRunUniform": HitAndRunUniform(),
    "GWishart": GWishart(),
    "EigenShift": EigenShift(),
    "CholeskyProduct": CholeskyProduct(on_non_chordal="triangulate"),
    "SpectralControl": SpectralControl(
        CholeskyProduct(on_non_chordal="triangulate"), condition_number=50.0
    ),
}
# Generators that sample on the graph itself only when it is chordal.
CHORDAL_ONLY = {"UniformChordal"}
# Generators that sample on a triangulation of a non-chordal graph.
TRIANGULATING = {"CholeskyProduct", "SpectralControl"}

GRAPHS = {
    "chordal": nx.Graph([(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (2, 4), (4, 5)]),
    "non_chordal": nx.cycle_graph(6),
    "empty": nx.empty_graph(6),
    "disconnected": nx.Graph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)]),
}


def support(matrix):
    adjacency = matrix != 0
    np.fill_diagonal(adjacency, False)
    return adjacency


def graph_callable(kind):
    def draw(n_features, density, random_state):
        return GRAPHS[kind]

    draw.__qualname__ = f"graph_{kind}"
    return draw


@pytest.mark.parametrize("model", ["concentration", "covariance"])
@pytest.mark.parametrize("kind", sorted(GRAPHS))
@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_the_true_graph_is_the_support_of_the_drawn_matrix(name, kind, model):
    generator = GENERATORS[name]
    graph = GRAPHS[kind]
    if name in CHORDAL_ONLY and not nx.is_chordal(graph):
        with pytest.raises(ValueError, match="chordal"):
            make_ggm(20, 6, graph=graph, generator=generator, random_state=0)
        return
    if name == "SpectralControl" and kind == "empty":
        # Every unit-diagonal matrix on an empty graph is the identity: a target
        # condition number of 50 is impossible, and said so.
        with pytest.raises(ValueError, match="the graph has no edges"):
            make_ggm(20, 6, graph=graph, generator=generator, random_state=0)
        return
    data = make_ggm(20, 6, graph=graph, generator=generator, model=model,
                    random_state=0)  # fmt: skip
    matrix = data.precision if model == "concentration" else data.covariance
    np.testing.assert_array_equal(data.adjacency, support(matrix))
    requested = nx.to_numpy_array(graph, nodelist=range(6)) != 0
    assert np.all(data.adjacency[requested])  # the graph asked for is kept...
    added = data.adjacency & ~requested
    assert data.n_added_edges == np.count_nonzero(added) // 2  # ...and what is added
    if name in TRIANGULATING and not nx.is_chordal(graph):
        assert data.n_added_edges == 3  # a 6-cycle needs 3 chords
    elif name not in TRIANGULATING:
        assert data.n_added_edges == 0

    # The same through the harness, whose rows carry the same count.
    bench = Benchmark(
        {name: generator},
        {"lw": LedoitWolf()},
        graph=graph_callable(kind),
        densities=None,
        n_features=6,
        n_samples=20,
        model=model,
        metrics=("f1",),
        random_state=0,
    )
    row = bench.dataset(name, density=None, repeat=0, n_samples=20)
    matrix = row.precision if model == "concentration" else row.covariance
    np.testing.assert_array_equal(row.adjacency, support(matrix))
    assert row.n_added_edges == data.n_added_edges


def test_harness_rows_score_against_the_drawn_graph():
    """On a 6-cycle a triangulating generator adds 3 edges that are true edges."""
    generator = CholeskyProduct(on_non_chordal="triangulate")
    bench = Benchmark(
        {"chol": generator},
        {"emp": EmpiricalCovariance()},
        graph=graph_callable("non_chordal"),
        densities=None,
        n_features=6,
        n_samples=20_000,
        metrics=("tpr", "ppv"),
        random_state=0,
    )
    frame = bench.run().frame
    assert frame.n_added_edges.tolist() == [3] and frame.n_edges.tolist() == [9]
    # The empirical precision is dense: every one of the 9 true edges is found and
    # 6 of the 15 pairs are false positives -- not 9 of 15, as it would be if the 3
    # chords the matrix has were scored against the requested 6-cycle.
    assert frame.tpr.item() == 1.0
    assert frame.ppv.item() == pytest.approx(9 / 15)


# --------------------------------------------------------------------------------------
# One data pipeline
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["concentration", "covariance"])
def test_make_ggm_and_the_harness_draw_the_same_data_from_the_same_seed(model):
    generator = PartialOrthogonalization()
    bench = Benchmark(
        {"port": generator},
        {"lw": LedoitWolf()},
        graph="band",
        densities=0.3,
        n_features=12,
        n_samples=(40, 80),
        n_repeats=2,
        model=model,
        random_state=5,
    )
    frame = bench.run().frame
    for n_samples in (40, 80):
        row = bench.dataset("port", density=0.3, repeat=1, n_samples=n_samples)
        data = make_ggm(
            n_samples, 12, graph="band", density=0.3, generator=generator,
            model=model, random_state=row.seed,
        )  # fmt: skip
        assert sorted(row) == sorted(data)  # the same keys
        for key in ("X", "adjacency", "precision", "covariance"):
            np.testing.assert_array_equal(row[key], data[key])
        assert row.signal == data.signal
        stored = frame.query(f"repeat == 1 and n_samples == {n_samples}")
        assert stored.seed.item() == row.seed
        assert stored.n_edges.item() == row.signal["n_edges"]
    # Another seed is another data set.
    other = make_ggm(80, 12, graph="band", density=0.3, generator=generator,
                     model=model, random_state=row.seed + 1)  # fmt: skip
    assert not np.array_equal(other.X, row.X)


# --------------------------------------------------------------------------------------
# Pipelines and searches
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chain_data():
    precision = (
        np.eye(10) + np.diag(np.full(9, -0.45), 1) + np.diag(np.full(9, -0.45), -1)
    )
    rng = np.random.default_rng(0)
    X = rng.multivariate_normal(np.zeros(10), np.linalg.inv(precision), size=300)
    return X * np.linspace(0.5, 4.0, 10), support(precision)


def test_grid_search_over_a_pipeline_scores_like_the_bare_estimator(chain_data):
    X, truth = chain_data
    X = X / X.std(axis=0)  # standardised data: the scaler changes little
    scorer = make_structure_scorer("f1", truth)
    alphas = [0.01, 0.05, 0.2, 0.5]
    piped = GridSearchCV(
        make_pipeline(StandardScaler(), GraphicalLasso()),
        {"graphicallasso__alpha": alphas},
        scoring=scorer,
        cv=3,
    ).fit(X)
    bare = GridSearchCV(GraphicalLasso(), {"alpha": alphas}, scoring=scorer, cv=3).fit(
        X
    )
    assert math.isfinite(piped.best_score_)
    assert piped.best_params_["graphicallasso__alpha"] == bare.best_params_["alpha"]
    assert np.isfinite(piped.cv_results_["mean_test_score"]).all()
    # Fitted pipelines and searches are read through, nested.
    np.testing.assert_array_equal(
        edges_from_estimator(piped), edges_from_estimator(piped.best_estimator_[-1])
    )
    assert math.isfinite(scorer(piped))


class Opaque(BaseEstimator):
    """Fits, but exposes none of the attributes of the learner protocol."""

    def fit(self, X, y=None):
        self.mean_ = X.mean(axis=0)
        return self


def test_an_opaque_final_step_gets_an_error_naming_the_step(chain_data):
    X, _ = chain_data
    pipe = make_pipeline(StandardScaler(), Opaque()).fit(X)
    with pytest.raises(
        ValueError, match=r"Opaque \(final step 'opaque' of a Pipeline\)"
    ):
        edges_from_estimator(pipe)
    search = GridSearchCV(pipe, {"opaque__mean_": [None]}, cv=2)
    search.best_estimator_ = pipe  # a fitted search, as GridSearchCV leaves it
    with pytest.raises(
        ValueError,
        match=r"Opaque \(final step 'opaque' of a Pipeline, best_estimator_ of a "
        r"GridSearchCV\).*Is it fitted\?",
    ):
        edges_from_estimator(search)


def test_pipeline_learners_in_the_harness_equal_the_bare_learner():
    # ShrinkagePartialCorrelation works on correlations: a StandardScaler in front
    # cannot change its graph, so every ok row must equal the bare learner's.
    learners = {
        "bare": ShrinkagePartialCorrelation(),
        "piped": make_pipeline(StandardScaler(), ShrinkagePartialCorrelation()),
        "searched": GridSearchCV(
            make_pipeline(StandardScaler(), GraphicalLasso()),
            {"graphicallasso__alpha": [0.1, 0.3]},
            cv=2,
        ),
    }
    frame = (
        Benchmark(
            {"dd": DiagonalDominance()},
            learners,
            densities=(0.1, 0.3),
            n_features=12,
            n_samples=(60, 120),
            n_repeats=2,
            random_state=0,
        )
        .run()
        .frame
    )
    assert (frame.status == "ok").all(), frame.message.unique()
    metrics = ["tpr", "ppv", "f1", "mcc", "shd", "roc_auc", "average_precision"]
    bare = frame[frame.learner == "bare"][metrics].to_numpy()
    piped = frame[frame.learner == "piped"][metrics].to_numpy()
    np.testing.assert_allclose(piped, bare, rtol=0, atol=1e-12)


# --------------------------------------------------------------------------------------
# Covariance-estimator benchmarks
# --------------------------------------------------------------------------------------

LOSSES = ("frobenius_loss", "spectral_loss", "kl_divergence", "stein_loss")


@pytest.fixture(scope="module")
def covariance_study():
    """n < p: the sample covariance is singular, shrinkage estimators are not."""
    return (
        Benchmark(
            {"dd": DiagonalDominance(), "to": TriangulatedOrthogonalization()},
            {
                "empirical": EmpiricalCovariance(),
                "ledoit_wolf": LedoitWolf(),
                "oas": OAS(),
            },
            densities=(0.1, 0.3),
            n_features=30,
            n_samples=(15, 120),
            n_repeats=4,
            metrics=(*LOSSES, "precision_frobenius_loss", "f1"),
            random_state=0,
        )
        .run()
        .frame
    )


def test_shrinkage_beats_the_sample_covariance_when_n_is_below_p(covariance_study):
    frame = covariance_study
    assert (frame.status == "ok").all()
    small = frame[frame.n_samples == 15]
    means = small.groupby("learner")["frobenius_loss"].mean()
    # Ledoit & Wolf (2004) and Chen et al. (2010): at n/p = 1/2 both shrinkage
    # estimators have a far smaller Frobenius risk than the sample covariance.
    assert means["ledoit_wolf"] < means["empirical"]
    assert means["oas"] < means["empirical"]
    # Diagonally dominant matrices are well conditioned, where shrinkage towards a
    # scaled identity wins in every block; the ill-conditioned covariances of
    # triangulated orthogonalization are not, and there the sample covariance
    # beats both shrinkage estimators in a few blocks (about one in four over
    # seeds 0-2), so its rank there is left to the pooled means above.
    board = leaderboard(
        small[small.generator == "dd"], "frobenius_loss", by=("n_samples",)
    )
    positions = dict(zip(board.learner, board.position, strict=True))
    assert positions["empirical"] == 3, positions
    # The sample covariance is singular at n < p: its KL divergence and Stein's loss
    # are infinite, the row is still ok, and it ranks last on them.
    assert np.isinf(small.loc[small.learner == "empirical", "kl_divergence"]).all()
    assert np.isinf(small.loc[small.learner == "empirical", "stein_loss"]).all()
    assert np.isfinite(small.loc[small.learner != "empirical", "kl_divergence"]).all()
    board = leaderboard(small, "kl_divergence", by=("n_samples",))
    assert set(board.loc[board.learner == "empirical", "position"]) == {3}


def test_losses_are_the_metrics_of_the_estimate_against_the_truth(covariance_study):
    from skggm_bench.metrics import frobenius_loss, kl_divergence

    bench = Benchmark(
        {"dd": DiagonalDominance()}, {"lw": LedoitWolf()}, densities=0.1,
        n_features=30, n_samples=120, random_state=0,
    )  # fmt: skip
    data = bench.dataset("dd", density=0.1, repeat=2, n_samples=120)
    fitted = LedoitWolf().fit(data.X)
    row = covariance_study.query(
        "generator == 'dd' and learner == 'ledoit_wolf' and density == 0.1 and "
        "n_samples == 120 and repeat == 2"
    )
    assert row.frobenius_loss.item() == pytest.approx(
        frobenius_loss(data.covariance, fitted.covariance_), rel=1e-12
    )
    assert row.kl_divergence.item() == pytest.approx(
        kl_divergence(data.covariance, fitted.covariance_, role="covariance"),
        rel=1e-10,
    )


def test_a_structure_learner_without_covariance_gets_nan_losses_with_the_reason():
    from skggm_bench.learners import LassoNetwork

    frame = (
        Benchmark(
            {"dd": DiagonalDominance()},
            {"lasso": LassoNetwork()},
            densities=0.2,
            n_features=8,
            n_samples=60,
            metrics=("f1", "frobenius_loss"),
            random_state=0,
        )
        .run()
        .frame
    )
    assert (frame.status == "ok").all() and frame.f1.notna().all()
    assert frame.frobenius_loss.isna().all()
    assert frame.message.str.contains("exposes no covariance_").all()
