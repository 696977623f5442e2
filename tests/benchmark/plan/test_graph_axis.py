"""The graph family as a grid axis: rows, draws, seeds, store, rankings, config.

One study draws its cells from several named graphs (here hub graphs, the ``huge``
standard, and Erdős–Rényi graphs); each row records its graph, and its true graph
comes from that graph's family. A fixed-structure graph (hub) ignores the density
axis and records its own edge density.
"""

import sqlite3

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from sklearn.covariance import GraphicalLasso, LedoitWolf

from skggm_bench.benchmark import Benchmark, StudyError
from skggm_bench.benchmark.analysis._analysis import analyse
from skggm_bench.benchmark.analysis.leaderboard import leaderboard
from skggm_bench.benchmark.config import ConfigError, parse_config
from skggm_bench.benchmark.present._text import text_report
from skggm_bench.benchmark.present.report import write_report
from skggm_bench.benchmark.results._schema import check_results_frame
from skggm_bench.benchmark.results.store import StudyMismatchError
from skggm_bench.datasets import make_ggm
from skggm_bench.generators import DiagonalDominance, PartialOrthogonalization

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

P, N_HUBS = 12, 3
GRAPHS = {"hub": {"family": "hub", "n_hubs": N_HUBS}, "er": "erdos_renyi"}
# Outcome columns that legitimately differ between two runs of the same study.
VOLATILE = ["fit_time", "versions"]


def study(**changes):
    params = {
        "graph": GRAPHS,
        "densities": (0.1, 0.25),
        "n_features": P,
        "n_samples": (60,),
        "n_repeats": 3,
        "metrics": ("f1", "mcc"),
        "random_state": 0,
    } | changes
    learners = params.pop(
        "learners", {"glasso": GraphicalLasso(alpha=0.2), "lw": LedoitWolf()}
    )
    generators = params.pop("generators", {"dd": DiagonalDominance()})
    return Benchmark(generators, learners, **params)


@pytest.fixture(scope="module")
def two_graphs():
    return study().run().frame


def test_rows_carry_their_graph_and_fixed_structures_their_own_density(two_graphs):
    frame = two_graphs
    assert (frame.status == "ok").all()
    # Grid order: the graphs as given; hub once per (p, repeat), er per density.
    assert list(dict.fromkeys(frame.graph)) == ["hub", "er"]
    hub, er = frame[frame.graph == "hub"], frame[frame.graph == "er"]
    assert len(hub) == 1 * 3 * 2 and len(er) == 2 * 3 * 2
    # A hub graph of p nodes in n_hubs stars has p - n_hubs edges, whatever the seed.
    np.testing.assert_array_equal(hub.density, (P - N_HUBS) / (P * (P - 1) / 2))
    assert sorted(er.density.unique()) == [0.1, 0.25]
    # The true graph of each row comes from its family: every hub row has exactly
    # p - n_hubs edges; Erdős–Rényi counts vary from repeat to repeat.
    assert (hub.n_edges == P - N_HUBS).all() and (hub.n_added_edges == 0).all()
    assert er.loc[er.density == 0.25, "n_edges"].nunique() > 1


def test_a_row_is_reproduced_from_its_graph_family_and_seed(two_graphs):
    bench = study()
    for graph, family, params, density in (
        ("hub", "hub", {"n_hubs": N_HUBS}, None),
        ("er", "erdos_renyi", {}, 0.25),
    ):
        row = two_graphs[two_graphs.graph == graph].iloc[-1]
        data = bench.dataset(
            "dd",
            graph=graph,
            density=row["density"],
            repeat=int(row["repeat"]),
            n_samples=60,
        )
        assert data.seed == row["seed"]
        again = make_ggm(
            60,
            P,
            graph=family,
            density=density,
            generator=DiagonalDominance(),
            random_state=int(row["seed"]),
            **params,
        )
        np.testing.assert_array_equal(again.X, data.X)
        assert again.adjacency.sum() // 2 == row["n_edges"]
    # The hub graph really is n_hubs disjoint stars covering every node.
    hub_data = bench.dataset("dd", graph="hub", density=None, repeat=0, n_samples=60)
    hubs = nx.from_numpy_array(hub_data.adjacency.astype(int))
    components = [hubs.subgraph(c) for c in nx.connected_components(hubs)]
    assert len(components) == N_HUBS and nx.is_forest(hubs)
    assert all(
        max(d for _, d in c.degree()) == c.number_of_nodes() - 1 for c in components
    )
    assert hubs.number_of_nodes() == P
    # A fixed structure has one density: another one is refused, naming it.
    with pytest.raises(ValueError, match=r"fixed structure.*density 0\.136"):
        bench.dataset("dd", graph="hub", density=0.1, repeat=0, n_samples=60)
    with pytest.raises(ValueError, match=r"graphs \['hub', 'er'\]: say which"):
        bench.dataset("dd", density=0.1, repeat=0, n_samples=60)


def test_graphs_get_independent_draws_and_a_row_depends_on_its_own_name_only():
    two = study(graph={"a": "erdos_renyi", "b": "erdos_renyi"}, n_repeats=2).run()
    frame = two.frame
    a, b = (frame[frame.graph == g].reset_index(drop=True) for g in ("a", "b"))
    # Same family, same (p, density, repeat): different seeds, different graphs.
    assert not np.intersect1d(a.seed, b.seed).size
    assert not a.n_edges.equals(b.n_edges)
    bench = study(graph={"a": "erdos_renyi", "b": "erdos_renyi"}, n_repeats=2)
    first, second = (
        bench.dataset("dd", graph=g, density=0.25, repeat=0, n_samples=60)
        for g in ("a", "b")
    )
    assert not np.array_equal(first.adjacency, second.adjacency)
    # Entry "a" alone draws what it drew beside "b"; a single family is the
    # one-entry axis named by it.
    alone = study(graph={"a": "erdos_renyi"}, n_repeats=2).run().frame
    pd.testing.assert_frame_equal(
        alone.drop(columns=VOLATILE), a.drop(columns=VOLATILE)
    )
    named = study(graph="erdos_renyi", n_repeats=1).run().frame
    as_dict = study(graph={"erdos_renyi": "erdos_renyi"}, n_repeats=1).run().frame
    pd.testing.assert_frame_equal(
        named.drop(columns=VOLATILE), as_dict.drop(columns=VOLATILE)
    )
    assert (named.graph == "erdos_renyi").all()


def test_generators_share_each_graph_draw():
    frame = (
        study(
            generators={"dd": DiagonalDominance(), "port": PartialOrthogonalization()},
            learners={"lw": LedoitWolf()},
            n_repeats=2,
        )
        .run()
        .frame
    )
    seeds = frame.pivot_table(
        index=["graph", "density", "repeat"], columns="generator", values="seed"
    )
    np.testing.assert_array_equal(seeds["dd"], seeds["port"])


def test_results_do_not_depend_on_n_jobs(two_graphs):
    parallel = study(n_jobs=2, backend="threading").run().frame
    pd.testing.assert_frame_equal(
        parallel.drop(columns=VOLATILE), two_graphs.drop(columns=VOLATILE)
    )


def test_store_resumes_and_refuses_another_graph_axis(tmp_path, two_graphs):
    path = tmp_path / "graphs.sqlite"
    first = study(store=path).run()
    assert first.n_computed == len(two_graphs)
    # Lose the hub rows (as an interrupted run would): only they are recomputed,
    # to the same values.
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM results WHERE graph = 'hub'")
    conn.close()
    resumed = study(store=path).run()
    assert resumed.n_computed == (two_graphs.graph == "hub").sum()
    pd.testing.assert_frame_equal(
        resumed.frame.drop(columns=VOLATILE), two_graphs.drop(columns=VOLATILE)
    )
    assert study(store=path).run().n_computed == 0
    changed = {"hub": {"family": "hub", "n_hubs": N_HUBS + 1}, "er": "erdos_renyi"}
    renamed = {"hubs": GRAPHS["hub"], "er": "erdos_renyi"}
    for graph in (changed, renamed, "erdos_renyi"):
        with pytest.raises(StudyMismatchError, match="graph"):
            study(store=path, graph=graph).run()


def test_leaderboards_split_by_graph(two_graphs):
    board = leaderboard(two_graphs, "f1", by=("graph",), n_bootstrap=200)
    assert set(board.graph) == {"hub", "er"}
    for (graph, learner), rows in two_graphs.groupby(["graph", "learner"]):
        shown = board[(board.graph == graph) & (board.learner == learner)]
        assert shown.mean_metric.item() == pytest.approx(rows.f1.mean())
    # Pooled over graphs, each learner has one row; split, one per graph.
    assert len(leaderboard(two_graphs, "f1", by=(), n_bootstrap=50)) == 2
    assert len(board) == 4
    # The summary and the text report split by graph on their own, and compare
    # the graphs' orderings (pooled over densities: hub has its own).
    analysis = analyse(two_graphs, "f1", n_bootstrap=100)
    assert "graph" in analysis.by and "graph" in analysis.overall.columns
    assert [(c.axis, c.source, c.target) for c in analysis.comparisons] == [
        ("graph", "er", "hub")
    ]
    assert "density" not in analysis.comparisons[0].shift.attrs["by"]
    text = text_report(analysis)
    assert "Rank shift between graphs er -> hub" in text
    assert "on hub graphs" in text


def test_report_shows_the_graphs(tmp_path, two_graphs):
    page = write_report(two_graphs, tmp_path, n_bootstrap=100).read_text("utf-8")
    assert "Graph er \u2192 hub" in page
    assert "<td>graphs</td>" in page or ">graphs<" in page
    assert "graph hub" in page and "graph er" in page  # per-graph curve figures
    assert "or the graph from another family" in page


def test_older_tables_without_a_graph_column_are_read_as_unknown(two_graphs):
    frame = check_results_frame(two_graphs.drop(columns="graph"))
    assert (frame.graph == "unknown").all()


# --------------------------------------------------------------------------------------
# Checks of the axis, through Benchmark and through the configuration
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes, parameter, entry, message",
    [
        (
            {"graph": {"h": "hub"}, "graph_params": {"n_hubs": 2}},
            "graph_params",
            None,
            "graph_params applies to a single graph",
        ),
        ({"graph": {"h": "hubb"}}, "graph", "h", r"graph\['h'\]='hubb' is not a graph"),
        ({"graph": {"h": {"n_hubs": 2}}}, "graph", "h", "has no 'family'"),
        ({"graph": {}}, "graph", None, "empty dict"),
        ({"graph": {"": "hub"}}, "graph", None, "non-empty strings"),
        (
            {"graph": {"c": {"family": "cluster", "within_density": 0.4}}},
            "graph",
            "c",
            "number of edges depends on the seed",
        ),
        (
            {"graph": {"h": {"family": "hub", "n_hubs": P + 1}}},
            "graph",
            "h",
            "larger than n_nodes",
        ),
        (
            {"graph": {"s": {"family": "scale_free"}}, "densities": (0.9,)},
            "graph",
            "s",
            "not achievable",
        ),
        ({"graph": "hub", "graph_params": {"n_hubs": 99}}, "graph", None, "larger"),
        # An unknown parameter is named where the study gave it, not as make_ggm's
        # graph_params.
        (
            {"graph": {"h": {"family": "hub", "n_hubz": 2}}},
            "graph",
            "h",
            r"^graph\['h'\] gives \['n_hubz'\], which the 'hub' graph family does "
            r"not take; it takes \['n_hubs'\]",
        ),
        (
            {"graph": "hub", "graph_params": {"n_hubz": 2}},
            "graph_params",
            None,
            r"^graph_params gives \['n_hubz'\]",
        ),
        (
            {"graph": "hub", "graph_params": {"density": 0.3}},
            "graph_params",
            None,
            r"^graph_params gives \['density'\], which the 'hub' graph family",
        ),
    ],
)
def test_bad_graph_axes_name_the_entry(changes, parameter, entry, message):
    with pytest.raises(StudyError, match=message) as info:
        study(**changes).validate()
    assert (info.value.parameter, info.value.entry) == (parameter, entry)


CONFIG = {
    "generators": ["DiagonalDominance"],
    "learners": ["ShrinkagePartialCorrelation"],
    "n_features": 10,
    "densities": [0.1, 0.3],
    "n_samples": [40],
    "graph": {
        "erdos_renyi": "erdos_renyi",
        "band": {"family": "band"},
        "band2": {"family": "band", "bandwidth": 2},
        "hub": {"family": "hub", "n_hubs": 2},
    },
}


def test_config_graph_tables_round_trip_and_count_fixed_structures_once():
    config = parse_config(CONFIG)
    assert parse_config(config.to_dict()) == config
    # band follows the densities; band with a bandwidth and hub are fixed.
    assert config.n_tasks == 2 + 2 + 1 + 1
    frame = config.make_benchmark(random_state=0).run().frame
    assert len(frame) == config.n_tasks
    densities = frame.groupby("graph", sort=False)["density"].unique()
    assert [list(d) for d in densities] == [
        [0.1, 0.3],
        [0.1, 0.3],
        [(2 * 10 - 3) / 45],  # a band of width 2: (p - 1) + (p - 2) edges
        [(10 - 2) / 45],
    ]


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"graph_params": {"n_hubs": 2}}, "^graph_params: graph_params applies"),
        ({"graph": {"x": {"family": "hubb"}}}, r"^graph\.x: .*'hubb' is not a graph"),
        (
            {"graph": {"x": {"family": "hub", "n_hub": 2}}},
            r"^graph\.x: graph\['x'\] gives \['n_hub'\]",
        ),
        ({"graph": "nope"}, "^graph: graph='nope' is not a graph family"),
        (
            {"graph": {"x": {"family": "cluster", "within_density": 0.4}}},
            r"^graph\.x: .*depends on the seed",
        ),
        ({"graph_params": [1]}, "^graph_params: must be a table"),
    ],
)
def test_config_graph_errors_name_the_key(changes, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(CONFIG | changes)
