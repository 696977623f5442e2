"""The benchmark harness: paired design, seeding, backends, failures, store, resume.

Grids are tiny (p = 8..12, a few repeats) so the whole file runs in well under a
minute on two cores; what is checked is exact (equal tables, equal data), so small
grids lose no power.
"""

import importlib.util
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pandas as pd
import patience
import pytest
import scipy.linalg
from sklearn.base import BaseEstimator
from sklearn.covariance import EmpiricalCovariance, GraphicalLasso, LedoitWolf
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skggm_bench.benchmark import DEFAULT_METRICS, Benchmark, BenchmarkResult
from skggm_bench.benchmark.results._schema import (
    CELL_COLUMNS,
    KEY_COLUMNS,
    OUTCOME_COLUMNS,
)
from skggm_bench.benchmark.results.store import ResultStore, StudyMismatchError
from skggm_bench.generators import (
    DiagonalDominance,
    PartialOrthogonalization,
    TriangulatedOrthogonalization,
)
from skggm_bench.metrics import (
    edge_roc_auc,
    edge_scores_from_estimator,
    edges_from_estimator,
    f1_score,
)

# graphical lasso on p=10 from 30 samples sometimes stops at max_iter; the warning
# is the learner's business, not the harness's.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


# --------------------------------------------------------------------------------------
# Small custom learners
# --------------------------------------------------------------------------------------


class RaisingLearner(BaseEstimator):
    def fit(self, X, y=None):
        raise RuntimeError("this learner always fails")


class NaNLearner(BaseEstimator):
    """Fits 'successfully' but its precision is NaN."""

    def fit(self, X, y=None):
        self.precision_ = np.full((X.shape[1], X.shape[1]), np.nan)
        return self


class SleepingLearner(BaseEstimator):
    """Never finishes on its own within a test, and swallows ordinary exceptions.

    Ten minutes: far above any bound the tests put on a stopped fit, however loaded
    the machine.
    """

    def __init__(self, seconds=600.0):
        self.seconds = seconds

    def fit(self, X, y=None):
        deadline = time.monotonic() + self.seconds
        while time.monotonic() < deadline:
            try:
                time.sleep(0.005)
            except Exception:  # a stubborn learner: the timeout must still stop it
                pass
        self.precision_ = np.eye(X.shape[1])
        return self


class RecordingLearner(BaseEstimator):
    """Remembers a fingerprint of every data set it is fitted on.

    The list lives in the process that fits, so studies that read it run their fits
    in this process (``isolate=False``).
    """

    seen: list = []

    def __init__(self, tag="a", random_state=None):
        self.tag = tag
        self.random_state = random_state

    def fit(self, X, y=None):
        RecordingLearner.seen.append(
            (self.tag, X.shape, X.tobytes(), self.random_state)
        )
        self.precision_ = np.linalg.inv(np.cov(X, rowvar=False) + np.eye(X.shape[1]))
        return self


GENERATORS = {"dd": DiagonalDominance(), "port": PartialOrthogonalization()}
LEARNERS = {"glasso": GraphicalLasso(alpha=0.1), "lw": LedoitWolf()}


def tiny(**changes):
    params = {
        "generators": GENERATORS,
        "learners": LEARNERS,
        "densities": (0.15, 0.3),
        "n_features": 10,
        "n_samples": (30, 60),
        "n_repeats": 2,
        "random_state": 0,
    }
    params |= changes
    return Benchmark(params.pop("generators"), params.pop("learners"), **params)


def without_timing(frame):
    # fit_time is a wall time; every other column must be reproduced exactly.
    return frame.drop(columns="fit_time")


@pytest.fixture(scope="module")
def reference():
    """The tiny grid, run sequentially in memory (with failing learners too)."""
    learners = LEARNERS | {"raise": RaisingLearner(), "nan": NaNLearner()}
    return tiny(learners=learners).run()


# --------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------


def test_frame_has_one_row_per_task_and_the_documented_columns(reference):
    frame = reference.frame
    assert isinstance(reference, BenchmarkResult)
    # 2 generators x 4 learners x 2 densities x 2 sample sizes x 2 repeats
    assert len(frame) == 2 * 4 * 2 * 2 * 2
    assert not frame.duplicated(list(KEY_COLUMNS)).any()
    assert list(frame.columns) == [
        *KEY_COLUMNS,
        *CELL_COLUMNS,
        *DEFAULT_METRICS,
        *OUTCOME_COLUMNS,
    ]
    ok = frame[frame.status == "ok"]
    assert set(ok.learner) == {"glasso", "lw"}
    assert ok[list(DEFAULT_METRICS)].notna().all().all()
    assert (ok.fit_time > 0).all()
    versions = json.loads(frame.versions.iloc[0])
    assert {"python", "numpy", "scipy", "scikit-learn", "skggm-bench"} <= set(versions)
    # Grid order: generators and learners as given, then density, p, n, repeat.
    assert list(dict.fromkeys(frame.generator)) == ["dd", "port"]
    assert list(dict.fromkeys(frame.learner)) == ["glasso", "lw", "raise", "nan"]
    first = frame[(frame.generator == "dd") & (frame.learner == "glasso")]
    assert first[["density", "n_samples", "repeat"]].values.tolist() == [
        [d, n, r] for d in (0.15, 0.3) for n in (30, 60) for r in (0, 1)
    ]


def test_metrics_agree_with_a_direct_computation(reference):
    # Re-create one row's data set, fit the learner by hand, compare with the row.
    bench = tiny()
    data = bench.dataset("port", density=0.3, repeat=1, n_samples=60)
    fitted = GraphicalLasso(alpha=0.1).fit(data.X)
    expected = f1_score(data.adjacency, edges_from_estimator(fitted))
    row = reference.frame.query(
        "generator == 'port' and learner == 'glasso' and density == 0.3 "
        "and n_samples == 60 and repeat == 1"
    )
    assert row.f1.item() == expected
    assert row.seed.item() == data.seed


# --------------------------------------------------------------------------------------
# Paired design and seeding
# --------------------------------------------------------------------------------------


def test_generators_share_the_graph_and_the_noise():
    bench = tiny(model="covariance")
    dd = bench.dataset("dd", density=0.3, repeat=0, n_samples=60)
    port = bench.dataset("port", density=0.3, repeat=0, n_samples=60)
    np.testing.assert_array_equal(dd.adjacency, port.adjacency)
    assert not np.allclose(dd.covariance, port.covariance)  # different samplers...
    # ... applied to the same standard normal noise: X = Z L^T with L L^T = Sigma.
    noise = [
        scipy.linalg.solve_triangular(
            np.linalg.cholesky(d.covariance), d.X.T, lower=True
        ).T
        for d in (dd, port)
    ]
    np.testing.assert_allclose(noise[0], noise[1], rtol=1e-10, atol=1e-10)
    # Another repeat is another graph and other noise.
    other = bench.dataset("dd", density=0.3, repeat=1, n_samples=60)
    assert not np.array_equal(other.adjacency, dd.adjacency)


def test_smaller_samples_are_prefixes_of_larger_ones():
    bench = tiny()
    small = bench.dataset("dd", density=0.15, repeat=0, n_samples=30)
    large = bench.dataset("dd", density=0.15, repeat=0, n_samples=60)
    np.testing.assert_allclose(small.X, large.X[:30], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(small.precision, large.precision)


def test_every_learner_is_fitted_on_the_same_data_set():
    RecordingLearner.seen.clear()
    learners = {"a": RecordingLearner(tag="a"), "b": RecordingLearner(tag="b")}
    result = tiny(learners=learners, n_jobs=1, isolate=False).run()
    assert (result.frame.status == "ok").all()
    by_tag = {"a": [], "b": []}
    for tag, shape, data, random_state in RecordingLearner.seen:
        by_tag[tag].append((shape, data))
        assert random_state is not None  # a None random_state gets a derived seed
    # The same data sets for both learners (the scheduler may order them
    # differently) ...
    assert sorted(by_tag["a"]) == sorted(by_tag["b"])
    # ... and 2 generators x 2 densities x 2 sizes x 2 repeats distinct data sets.
    assert len({data for _, data in by_tag["a"]}) == 16
    # Rows drawn on the same graph and noise share their seed, across generators.
    seeds = result.frame.groupby(["density", "repeat"])["seed"].nunique()
    assert (seeds == 1).all() and result.frame.seed.nunique() == 4


def test_learner_seeds_are_derived_per_row_and_user_seeds_are_kept():
    RecordingLearner.seen.clear()
    learners = {"free": RecordingLearner(tag="free"), "fixed": RecordingLearner("x", 5)}
    tiny(learners=learners, n_jobs=1, isolate=False, densities=0.3, n_repeats=2).run()
    free = [seed for tag, *_, seed in RecordingLearner.seen if tag == "free"]
    fixed = [seed for tag, *_, seed in RecordingLearner.seen if tag == "x"]
    assert fixed == [5] * len(fixed)
    assert len(set(free)) == len(free) == 8  # one per (generator, n, repeat)
    # Nested estimators get theirs too.
    RecordingLearner.seen.clear()
    piped = make_pipeline(StandardScaler(), RecordingLearner(tag="piped"))
    frame = (
        tiny(learners={"piped": piped}, densities=0.3, n_jobs=1, isolate=False)
        .run()
        .frame
    )
    assert (frame.status == "ok").all()
    assert all(seed is not None for *_, seed in RecordingLearner.seen)


def test_rows_do_not_depend_on_the_rest_of_the_grid(reference):
    # Seeds are keyed by grid *values*: a smaller grid, in another order, gives the
    # same rows (so a study can be extended and results compared across studies).
    small = tiny(
        generators={"port": GENERATORS["port"]},
        learners={"lw": LEARNERS["lw"]},
        densities=(0.3,),
        n_samples=(60,),
        n_repeats=2,
    ).run()
    merged = small.frame.merge(
        reference.frame, on=list(KEY_COLUMNS), suffixes=("", "_full")
    )
    assert len(merged) == len(small.frame) == 2
    for column in ("seed", *DEFAULT_METRICS):
        assert (merged[column] == merged[f"{column}_full"]).all(), column


def test_another_random_state_gives_other_data(reference):
    other = tiny(learners=LEARNERS, random_state=1).run().frame
    same = reference.frame[reference.frame.learner.isin(LEARNERS)].reset_index(
        drop=True
    )
    assert not np.array_equal(other.seed, same.seed)
    assert not np.array_equal(other.roc_auc, same.roc_auc)


def test_random_state_accepts_numpy_generators():
    frames = [
        tiny(learners={"lw": LedoitWolf()}, random_state=state).run().frame
        for state in (np.random.SeedSequence(3), np.random.SeedSequence(3))
    ]
    pd.testing.assert_frame_equal(without_timing(frames[0]), without_timing(frames[1]))
    result = tiny(learners={"lw": LedoitWolf()}, random_state=None).run()
    assert result.study["entropy"] > 0


# --------------------------------------------------------------------------------------
# Determinism across n_jobs and backends
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_jobs", "backend"), [(2, "loky"), (2, "threading"), (-1, None), (1, "loky")]
)
def test_same_table_for_any_n_jobs_and_backend(reference, n_jobs, backend):
    learners = LEARNERS | {"raise": RaisingLearner(), "nan": NaNLearner()}
    result = tiny(learners=learners, n_jobs=n_jobs, backend=backend).run()
    pd.testing.assert_frame_equal(
        without_timing(result.frame), without_timing(reference.frame)
    )


def test_same_table_on_a_dask_cluster(reference):
    distributed = pytest.importorskip(
        "distributed", reason="the dask backend needs dask[distributed] (extra 'dask')"
    )
    learners = LEARNERS | {"raise": RaisingLearner(), "nan": NaNLearner()}
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,  # in-process workers start fast; scheduling is real
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
        distributed.get_task_stream(client) as stream,
    ):
        result = tiny(learners=learners, backend="dask").run()
    # The tasks really ran on the cluster's workers, not in this thread.
    assert len(stream.data) > 0
    pd.testing.assert_frame_equal(
        without_timing(result.frame), without_timing(reference.frame)
    )


def test_dask_backend_without_a_client_is_a_clear_error():
    pytest.importorskip("distributed", reason="needs dask[distributed]")
    with pytest.raises(ValueError, match=r"(?i)dask client"):
        tiny(backend="dask").run()


# --------------------------------------------------------------------------------------
# Failures become rows
# --------------------------------------------------------------------------------------


def test_raising_and_nan_learners_become_failed_rows(reference):
    frame = reference.frame
    raised = frame[frame.learner == "raise"]
    assert (raised.status == "failed").all()
    assert (raised.message == "RuntimeError: this learner always fails").all()
    assert raised[list(DEFAULT_METRICS)].isna().all().all()
    assert (raised.fit_time >= 0).all()  # time until the failure
    nan = frame[frame.learner == "nan"]
    assert (nan.status == "failed").all()
    assert nan.message.str.contains("unusable fitted learner").all()
    assert nan.message.str.contains("NaN").all()
    assert (nan.fit_time >= 0).all()  # the fit itself succeeded and was timed
    # The other learners were not affected: their rows are those of a run without
    # the failing learners (a fit that fails on its own data fails there as well).
    alone = tiny().run().frame
    others = frame[frame.learner.isin(LEARNERS)]
    pd.testing.assert_frame_equal(
        without_timing(others).sort_values(list(KEY_COLUMNS), ignore_index=True),
        without_timing(alone).sort_values(list(KEY_COLUMNS), ignore_index=True),
    )


def test_slow_fits_time_out_and_are_stopped(forked_children):
    # 1 s: LedoitWolf's fits (milliseconds) finish within it even under load.
    timeout = 1.0
    learners = {"sleep": SleepingLearner(), "lw": LedoitWolf()}
    start = time.monotonic()
    result = tiny(
        learners=learners,
        densities=0.3,
        n_samples=30,
        n_repeats=2,
        generators={"dd": DiagonalDominance()},
        timeout=timeout,
        n_jobs=1,
    ).run()
    elapsed = time.monotonic() - start
    frame = result.frame
    slow = frame[frame.learner == "sleep"]
    assert (slow.status == "timeout").all() and len(slow) == 2
    assert slow.message.str.contains("timeout of 1 s").all()
    # Abandoned at the deadline: not before, and far from the 600 s the fit wants
    # (the bounds leave room for a machine under any load; they name it if hit).
    assert (slow.fit_time >= timeout).all()
    patience.assert_within(slow.fit_time.max(), 60, "the longest stopped fit")
    patience.assert_within(elapsed, 300, "the study of two stopped fits")
    assert (frame[frame.learner == "lw"].status == "ok").all()
    # The stopped fits are gone, although the learner swallows every Exception:
    # no process of the run is left.
    assert forked_children() == []


def test_timeout_in_worker_processes():
    result = tiny(
        learners={"sleep": SleepingLearner(), "lw": LedoitWolf()},
        generators={"dd": DiagonalDominance()},
        densities=0.3,
        n_samples=30,
        timeout=1.0,  # LedoitWolf's fits finish within it even under load
        n_jobs=2,
        backend="loky",
    ).run()
    assert result.frame.groupby("learner").status.unique().to_dict() == {
        "sleep": ["timeout"],
        "lw": ["ok"],
    }


def test_undefined_metric_is_nan_with_the_reason_not_a_failure():
    # density 0: the true graph is empty; ROC AUC is undefined, TPR is 1 by
    # convention (nothing to find), the learner did nothing wrong.
    result = tiny(learners={"lw": LedoitWolf()}, densities=0.0).run()
    frame = result.frame
    assert (frame.status == "ok").all()
    assert frame.roc_auc.isna().all() and frame.average_precision.isna().all()
    assert (frame.tpr == 1.0).all()
    assert frame.message.str.contains("roc_auc undefined").all()


class FailingGenerator(DiagonalDominance):
    def sample(self, n_samples=1):
        raise np.linalg.LinAlgError("sampler exploded")


def test_a_failing_generator_fails_its_rows_only():
    generators = {"bad": FailingGenerator(), "dd": DiagonalDominance()}
    frame = tiny(generators=generators, learners={"lw": LedoitWolf()}).run().frame
    bad = frame[frame.generator == "bad"]
    assert (bad.status == "failed").all()
    assert bad.message.str.startswith("data generation failed: LinAlgError").all()
    assert (frame[frame.generator == "dd"].status == "ok").all()


# --------------------------------------------------------------------------------------
# Other grids: covariance graphs, graph callables, fixed-structure families
# --------------------------------------------------------------------------------------


def test_covariance_model_reads_covariance_estimates():
    bench = tiny(
        learners={"emp": EmpiricalCovariance()}, model="covariance", n_samples=2000
    )
    frame = bench.run().frame
    assert (frame.status == "ok").all()
    # Exactly what a user computes by hand on the covariance graph from the
    # covariance estimate ...
    data = bench.dataset("dd", density=0.3, repeat=1, n_samples=2000)
    assert data.model == "covariance"
    scores = edge_scores_from_estimator(
        EmpiricalCovariance().fit(data.X), model="covariance"
    )
    row = frame.query("generator == 'dd' and density == 0.3 and repeat == 1")
    assert row.roc_auc.item() == edge_roc_auc(data.adjacency, scores)
    # ... and informative: a ranking unrelated to the true graph has ROC AUC 0.5 on
    # average; with 2000 samples the sampling error of a correlation is ~0.02, so
    # the mean over the 8 rows is far above (0.96 observed; 0.85 leaves room for
    # diagonally dominant matrices, whose small entries hide some edges).
    assert frame.roc_auc.mean() > 0.85


def test_graph_callable_and_fixed_structure_family():
    def two_cliques(n_features, density, random_state):
        assert density is None and isinstance(random_state, int)
        adjacency = np.zeros((n_features, n_features), dtype=bool)
        half = n_features // 2
        adjacency[:half, :half] = adjacency[half:, half:] = True
        np.fill_diagonal(adjacency, False)
        return adjacency

    # A callable is given the density (None: the family default, a NaN row
    # density); a chain's structure is fixed: its rows record its own density,
    # p - 1 edges over p (p - 1) / 2 pairs, whatever the densities axis says.
    for graph, densities, expected in (
        (two_cliques, (None,), np.nan),
        ("chain", (0.3, 0.5), 2 / 10),
    ):
        frame = (
            tiny(graph=graph, densities=densities, learners={"lw": LedoitWolf()})
            .run()
            .frame
        )
        assert (frame.status == "ok").all()
        np.testing.assert_array_equal(frame.density, expected)
        assert (frame.graph == getattr(graph, "__name__", graph)).all()
        assert len(frame) == 2 * 2 * 2


# --------------------------------------------------------------------------------------
# Store: resume, no duplicates, interruption, study mismatch
# --------------------------------------------------------------------------------------


def test_store_resume_skips_stored_rows_and_never_duplicates(tmp_path, reference):
    path = tmp_path / "study.sqlite"
    learners = LEARNERS | {"raise": RaisingLearner(), "nan": NaNLearner()}
    first = tiny(learners=learners, store=path).run()
    assert first.n_computed == len(reference.frame) and first.store == str(path)
    calls = []
    again = tiny(learners=learners, store=path).run(progress=lambda *a: calls.append(a))
    assert again.n_computed == 0
    assert calls == [(len(reference.frame), len(reference.frame))]
    assert len(ResultStore(path)) == len(reference.frame)
    pd.testing.assert_frame_equal(
        without_timing(again.frame), without_timing(reference.frame)
    )


def test_random_state_none_resumes_with_the_stored_entropy(tmp_path):
    path = tmp_path / "study.sqlite"
    first = tiny(learners={"lw": LedoitWolf()}, random_state=None, store=path).run()
    again = tiny(learners={"lw": LedoitWolf()}, random_state=None, store=path).run()
    assert again.n_computed == 0
    assert again.study["entropy"] == first.study["entropy"]


# joblib says which running tasks it cancelled: expected here.
@pytest.mark.filterwarnings("ignore:.*tasks which were still being processed")
def test_ctrl_c_keeps_finished_tasks_and_the_next_run_resumes(tmp_path, reference):
    path = tmp_path / "study.sqlite"
    learners = LEARNERS | {"raise": RaisingLearner(), "nan": NaNLearner()}
    seen = []

    def interrupt_after_three_tasks(done, total):
        seen.append(done)
        if len(seen) == 4:  # the first call reports the 0 stored rows
            raise KeyboardInterrupt

    bench = tiny(learners=learners, store=path, n_jobs=2, backend="threading")
    with pytest.raises(KeyboardInterrupt):
        bench.run(progress=interrupt_after_three_tasks)
    stored = len(ResultStore(path))
    assert stored == seen[-1] and 0 < stored < len(reference.frame)
    resumed = bench.run()
    assert resumed.n_computed == len(reference.frame) - stored
    pd.testing.assert_frame_equal(
        without_timing(resumed.frame), without_timing(reference.frame)
    )


def test_mismatching_study_in_an_existing_store_is_refused(tmp_path):
    path = tmp_path / "study.sqlite"
    tiny(learners={"lw": LedoitWolf()}, store=path).run()
    with pytest.raises(StudyMismatchError, match="learners: stored") as info:
        tiny(learners={"lw": LedoitWolf(assume_centered=True)}, store=path).run()
    assert "new store path" in str(info.value)
    with pytest.raises(StudyMismatchError, match="n_repeats: stored 2, requested 3"):
        tiny(learners={"lw": LedoitWolf()}, store=path, n_repeats=3).run()
    with pytest.raises(StudyMismatchError, match="entropy"):
        tiny(learners={"lw": LedoitWolf()}, store=path, random_state=1).run()
    assert len(ResultStore(path)) == 16  # nothing was added by the refused runs


def test_n_jobs_and_backend_are_not_part_of_the_study(tmp_path):
    path = tmp_path / "study.sqlite"
    tiny(learners={"lw": LedoitWolf()}, store=path, n_jobs=1).run()
    again = tiny(learners={"lw": LedoitWolf()}, store=path, n_jobs=2).run()
    assert again.n_computed == 0


SCRIPT = """
import sys, time
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.covariance import LedoitWolf
from skggm_bench.benchmark import Benchmark
from skggm_bench.generators import DiagonalDominance, PartialOrthogonalization


class SlowLedoitWolf(BaseEstimator):
    # Slow enough that the parent can kill the run half-way.
    def fit(self, X, y=None):
        time.sleep(0.1)
        self.precision_ = LedoitWolf().fit(X).precision_
        return self


def make(store):
    return Benchmark(
        {"dd": DiagonalDominance(), "port": PartialOrthogonalization()},
        {"slow": SlowLedoitWolf(), "lw": LedoitWolf()},
        densities=(0.15, 0.3), n_features=10, n_samples=(30, 60), n_repeats=5,
        random_state=3, store=store, n_jobs=2, backend="threading",
    )


if __name__ == "__main__":
    result = make(sys.argv[1]).run()
    print(result.n_computed)
"""


def test_resume_after_sigkill_equals_an_uninterrupted_run(tmp_path):
    script = tmp_path / "run_study.py"
    script.write_text(textwrap.dedent(SCRIPT))
    path = tmp_path / "killed.sqlite"
    total = 2 * 2 * 2 * 2 * 5
    env = os.environ | {"PYTHONWARNINGS": "ignore"}

    process = subprocess.Popen(
        [sys.executable, str(script), str(path)], env=env, start_new_session=True
    )
    try:

        def a_quarter_stored_or_ended():
            if process.poll() is not None:
                return True
            try:
                with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
                    stored = conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]
            except sqlite3.OperationalError:  # no file, or schema not created yet
                return False
            return stored >= total // 4

        # However long the start takes under load: killed once a quarter is stored.
        patience.wait_for(a_quarter_stored_or_ended, "a quarter of the rows stored")
        os.kill(process.pid, signal.SIGKILL)
        patience.finish(process)
    finally:
        if process.poll() is None:  # pragma: no cover - only if the wait failed
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == -signal.SIGKILL
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    after_kill = len(ResultStore(path))
    assert 0 < after_kill < total, "the run was not killed mid-way"

    restart = patience.run(
        [sys.executable, str(script), str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert int(restart.stdout.strip()) == total - after_kill  # resumed, not redone

    # The uninterrupted reference: the same study in memory, in this process.
    spec = importlib.util.spec_from_file_location("study", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        uninterrupted = module.make(None).run().frame
    resumed = ResultStore(path).frame()
    assert len(resumed) == total and not resumed.duplicated(list(KEY_COLUMNS)).any()
    resumed = resumed.sort_values(list(KEY_COLUMNS)).reset_index(drop=True)
    uninterrupted = uninterrupted.sort_values(list(KEY_COLUMNS)).reset_index(drop=True)
    pd.testing.assert_frame_equal(
        without_timing(resumed), without_timing(uninterrupted[resumed.columns])
    )


# --------------------------------------------------------------------------------------
# Configuration errors
# --------------------------------------------------------------------------------------


class NotAnEstimator:
    def fit(self, X):
        return self


@pytest.mark.parametrize(
    ("changes", "error", "match"),
    [
        ({"densities": (0.1, -0.05)}, ValueError, r"densities\[1\]=-0.05 is negative"),
        ({"densities": (1.5,)}, ValueError, r"densities\[0\]=1.5 is above 1"),
        ({"densities": ()}, ValueError, "densities is empty"),
        ({"densities": (0.1, 0.1)}, ValueError, "lists 0.1 twice"),
        ({"densities": ("dense",)}, TypeError, "must be a number"),
        ({"n_samples": ()}, ValueError, "n_samples is empty"),
        ({"n_samples": (50, 0)}, ValueError, r"n_samples\[1\] must be >= 1"),
        ({"n_features": 1}, ValueError, r"n_features\[0\] must be >= 2"),
        ({"n_repeats": 0}, ValueError, "n_repeats"),
        ({"learners": {}}, ValueError, "learners is empty"),
        ({"generators": {}}, ValueError, "generators is empty"),
        ({"learners": [LedoitWolf()]}, TypeError, "learners must be a dict"),
        ({"learners": {"x": 3}}, TypeError, r"learners\['x'\] = 3 has no fit"),
        ({"learners": {"x": NotAnEstimator()}}, TypeError, "no get_params"),
        ({"generators": {"g": LedoitWolf()}}, TypeError, "no sample method"),
        ({"graph": "erdos"}, ValueError, "graph='erdos' is not a graph family"),
        ({"graph": 3}, TypeError, "graph must be a family name or a callable"),
        (
            {"graph": {"c": {"family": "cluster", "within_density": 0.5}}},
            ValueError,
            "graph 'c' with n_features=10: .*depends on the seed",
        ),
        ({"graph": "lattice", "graph_params": {"n_rows": 3}}, ValueError, "3 x 3"),
        ({"graph": "scale_free", "densities": 0.9}, ValueError, "not achievable"),
        ({"metrics": ("f1", "accuracy")}, ValueError, "unknown metric 'accuracy'"),
        ({"metrics": ("f1", "f1_score")}, ValueError, "lists 'f1' twice"),
        ({"metrics": ("fit_time",)}, ValueError, "recorded in every row"),
        ({"memory_limit": 100}, ValueError, "below 1 MiB"),
        ({"isolate": False, "timeout": 1.0}, ValueError, "need isolate=True"),
        ({"metrics": ()}, ValueError, "metrics is empty"),
        ({"model": "partial"}, ValueError, "model"),
        ({"timeout": 0}, ValueError, "timeout"),
        ({"random_state": -1}, ValueError, "random_state must be >= 0"),
        ({"random_state": "seed"}, TypeError, "random_state must be"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
        ({"backend": "nope"}, ValueError, "backend='nope' is not a joblib backend"),
        ({"store": 3.5}, TypeError, "store must be None, a file path"),
    ],
)
def test_bad_configurations_fail_before_running(tmp_path, changes, error, match):
    with pytest.raises(error, match=match):
        tiny(**changes).run()


def test_metrics_can_be_given_as_functions():
    metrics = (f1_score, "structural_hamming_distance")
    frame = tiny(learners={"lw": LedoitWolf()}, metrics=metrics).run().frame
    assert {"f1", "shd"} <= set(frame.columns)  # canonical names of the registry
    assert frame.f1.between(0, 1).all()


def test_bad_progress_callback():
    with pytest.raises(TypeError, match="progress must be a callable"):
        tiny().run(progress=3)


def test_dataset_needs_a_known_entropy():
    bench = tiny(random_state=None)
    with pytest.raises(ValueError, match="entropy is unknown"):
        bench.dataset("dd", density=0.15, repeat=0, n_samples=10)
    bench.learners = {"lw": LedoitWolf()}
    bench.run()
    assert bench.dataset("dd", density=0.15, repeat=0, n_samples=10).X.shape == (10, 10)


def test_a_third_generator_kind_runs_end_to_end():
    # TriangulatedOrthogonalization needs a chordal completion: a different fit
    # path from the two generators used above.
    frame = (
        tiny(
            generators={"tport": TriangulatedOrthogonalization()},
            learners={"lw": LedoitWolf()},
            n_samples=500,
            densities=0.3,
            n_repeats=3,
        )
        .run()
        .frame
    )
    assert (frame.status == "ok").all()
    # Partial correlations estimated from 500 samples (standard error ~0.045) rank
    # the pairs of a p=10 graph far above chance (0.5): 0.82-1.0 observed over
    # random_state 0..4; 0.7 would still flag data unrelated to the matrix.
    assert (frame.roc_auc > 0.7).all()
