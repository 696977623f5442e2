"""No learner or generator can take a study down, on any backend.

Each hostile learner below does one thing a real learner might do by accident; each
must end as one row with a status and a message that says what happened, the other
learners' rows must be unaffected, the study must finish, and a resume must not run
a fit again. The deadline is short (1 s) and the memory limit small (256 MiB) so
that the whole file runs in well under a minute on an idle machine; no test
bounds how long the study takes, only (generously) how long a stopped fit took.
"""

import ctypes
import os
import sys
import textwrap
import threading

import numpy as np
import pandas as pd
import patience
import pytest
from scipy import stats
from sklearn.base import BaseEstimator
from sklearn.covariance import GraphicalLasso, LedoitWolf

from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.config import parse_config
from skggm_bench.benchmark.results.store import ResultStore, StudyMismatchError
from skggm_bench.generators import CholeskyProduct, DiagonalDominance

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

TIMEOUT = 1.0
MEMORY_LIMIT = 256 * 2**20


class Hostile(BaseEstimator):
    """A learner that misbehaves in the way its ``kind`` says."""

    def __init__(self, kind="raise"):
        self.kind = kind

    def fit(self, X, y=None):
        kind = self.kind
        if kind == "raise":
            raise RuntimeError("boom")
        if kind == "system_exit":
            raise SystemExit(3)
        if kind == "keyboard_interrupt":
            raise KeyboardInterrupt
        if kind == "hang_in_c":
            threading.Event().wait()  # blocks in C, holding no Python bytecode
        if kind == "swallow_everything":
            while True:
                try:
                    while True:
                        pass
                except BaseException:  # no exception can stop this loop
                    pass
        if kind == "segfault":
            ctypes.string_at(0)
        if kind == "os_exit":
            os._exit(7)
        if kind == "memory_hog":
            hoard = []  # leaked buffers, 40 MB at a time
            while True:
                hoard.append(np.empty(5_000_000))
        if kind == "garbage":
            self.precision_ = "not a matrix"
            return "garbage"
        if kind == "in_place":
            X[:] = 0.0  # ruins the data it was given
            raise RuntimeError("wrote zeros into X")
        self.precision_ = np.linalg.inv(np.cov(X, rowvar=False))
        return self

    @property
    def adjacency_(self):
        if self.kind == "blocking_attribute":
            threading.Event().wait()  # reading the fitted attribute never returns
        raise AttributeError("adjacency_")


EXPECTED = {
    # kind: (status, what the message says)
    "raise": ("failed", "RuntimeError: boom"),
    "system_exit": ("failed", "SystemExit: 3"),
    "keyboard_interrupt": ("failed", "KeyboardInterrupt"),
    "hang_in_c": ("timeout", "still running after the timeout of 1 s"),
    "swallow_everything": ("timeout", "still running after the timeout of 1 s"),
    "blocking_attribute": ("timeout", "still running after the timeout of 1 s"),
    "segfault": ("crashed", "segmentation fault (SIGSEGV)"),
    "os_exit": ("crashed", "exited with status 7"),
    "memory_hog": ("memory", "MemoryError"),
    "garbage": ("failed", "unusable fitted learner"),
    "in_place": ("failed", "wrote zeros into X"),
}


def study(n_jobs=1, backend="loky", learners=None, **changes):
    # The in-place writer comes first: with shared data, the learners after it
    # would see zeros.
    learners = learners or {
        "in_place": Hostile("in_place"),
        **{kind: Hostile(kind) for kind in EXPECTED if kind != "in_place"},
        "glasso": GraphicalLasso(alpha=0.2),
        "lw": LedoitWolf(),
    }
    params = {
        "densities": (0.2,),
        "n_features": 8,
        "n_samples": (40,),
        "n_repeats": 1,
        "metrics": ("f1", "shd"),
        "random_state": 0,
        "timeout": TIMEOUT,
        "memory_limit": MEMORY_LIMIT,
        "n_jobs": n_jobs,
        "backend": backend,
    } | changes
    return Benchmark({"dd": DiagonalDominance()}, learners, **params)


def check_outcomes(frame):
    for kind, (status, message) in EXPECTED.items():
        row = frame[frame.learner == kind]
        assert row.status.tolist() == [status], (kind, row.message.tolist())
        assert message in row.message.item(), (kind, row.message.item())
        assert row[["f1", "shd"]].isna().all().all()
    good = frame[frame.learner.isin(["glasso", "lw"])]
    assert (good.status == "ok").all(), good.message.tolist()
    assert (frame.seed == frame.seed.iloc[0]).all()


@pytest.fixture(scope="module")
def reference():
    """The well-behaved learners alone, run in this process without isolation."""
    learners = {"glasso": GraphicalLasso(alpha=0.2), "lw": LedoitWolf()}
    frame = study(learners=learners, timeout=None, memory_limit=None,
                  isolate=False).run().frame  # fmt: skip
    return frame.drop(columns="fit_time").reset_index(drop=True)


@pytest.mark.parametrize(
    ("n_jobs", "backend"), [(1, "loky"), (2, "loky"), (2, "threading")]
)
def test_every_misbehaviour_is_one_row_and_the_study_finishes(
    reference, n_jobs, backend, forked_children
):
    frame = study(n_jobs, backend).run().frame
    check_outcomes(frame)
    # The fits stopped at the deadline took about the deadline, not the forever
    # they want (the bound leaves room for a machine under any load; named if hit).
    stopped = frame[frame.status == "timeout"]
    assert (stopped.fit_time >= TIMEOUT).all()
    patience.assert_within(stopped.fit_time.max(), 60, "the longest stopped fit")
    # The learners after the one that wrote into its X saw the true data: their
    # rows equal those of a run without any hostile learner.
    good = frame[frame.learner.isin(["glasso", "lw"])]
    pd.testing.assert_frame_equal(
        good.drop(columns="fit_time").reset_index(drop=True), reference
    )
    # No process of the run is left behind (joblib's reusable workers aside).
    assert forked_children() == []


def test_same_isolation_on_a_dask_cluster(reference):
    distributed = pytest.importorskip("distributed", reason="needs dask[distributed]")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        frame = study(n_jobs=2, backend="dask").run().frame
    check_outcomes(frame)
    good = frame[frame.learner.isin(["glasso", "lw"])]
    pd.testing.assert_frame_equal(
        good.drop(columns="fit_time").reset_index(drop=True), reference
    )


def test_rows_of_failed_fits_are_never_run_again(tmp_path):
    path = tmp_path / "hostile.sqlite"
    learners = {kind: Hostile(kind) for kind in ("segfault", "os_exit", "hang_in_c")}
    first = study(learners=learners, store=path).run()
    assert first.n_computed == 3
    again = study(learners=learners, store=path).run()
    assert again.n_computed == 0
    # The very rows of the first run, fit times included: no fit ran again.
    pd.testing.assert_frame_equal(again.frame, first.frame)
    assert len(ResultStore(path)) == 3


def test_in_process_runs_reraise_a_keyboard_interrupt_raised_by_a_learner():
    # Without isolation a learner's KeyboardInterrupt cannot be told apart from
    # the user's Ctrl-C: it stops the run, as Ctrl-C must.
    learners = {"ki": Hostile("keyboard_interrupt")}
    with pytest.raises(KeyboardInterrupt):
        study(learners=learners, timeout=None, memory_limit=None, isolate=False).run()


# --------------------------------------------------------------------------------------
# Generators that fail
# --------------------------------------------------------------------------------------


class CrashingGenerator(DiagonalDominance):
    def sample(self, n_samples=1):
        ctypes.string_at(0)


def test_failed_draws_are_data_generation_failed_rows():
    generators = {
        # The classic recipe on a complete graph at p=60 is not positive definite.
        "cholesky": CholeskyProduct(),
        "crashing": CrashingGenerator(),
        "dd": DiagonalDominance(),
    }
    frame = (
        Benchmark(
            generators,
            {"lw": LedoitWolf(), "glasso": GraphicalLasso(alpha=0.5)},
            graph="complete",
            densities=None,
            n_features=60,
            n_samples=(100, 200),
            metrics=("f1",),
            random_state=0,
            n_jobs=2,
        )
        .run()
        .frame
    )
    cholesky = frame[frame.generator == "cholesky"]
    assert (cholesky.status == "failed").all() and len(cholesky) == 4
    assert cholesky.message.str.startswith(
        "data generation failed: ValueError: the matrix drawn by CholeskyProduct is "
        "not positive definite"
    ).all()
    crashing = frame[frame.generator == "crashing"]
    assert (crashing.status == "failed").all()
    assert crashing.message.str.contains(
        "data generation failed: its process died of a segmentation fault"
    ).all()
    assert (frame[frame.generator == "dd"].status == "ok").all()


# --------------------------------------------------------------------------------------
# The study fingerprint
# --------------------------------------------------------------------------------------


def test_studies_that_differ_only_inside_an_object_do_not_share_a_store(tmp_path):
    path = tmp_path / "study.sqlite"
    learners = {"lw": LedoitWolf()}

    def run(generator, graph="erdos_renyi"):
        return Benchmark(
            {"dd": generator}, learners, graph=graph, densities=None, n_features=8,
            n_samples=30, metrics=("f1",), random_state=0, store=path,
        ).run()  # fmt: skip

    run(DiagonalDominance(distribution=stats.uniform(-1, 2)))
    with pytest.raises(StudyMismatchError, match="generators"):
        run(DiagonalDominance(distribution=stats.norm(-1, 2)))
    with pytest.raises(StudyMismatchError, match="generators"):
        run(DiagonalDominance(distribution=stats.uniform(-1, 3)))
    # The same description resumes.
    assert run(DiagonalDominance(distribution=stats.uniform(-1, 2))).n_computed == 0


def test_graph_functions_are_told_apart_by_their_code(tmp_path):
    path = tmp_path / "lambdas.sqlite"

    def run(graph):
        return Benchmark(
            {"dd": DiagonalDominance()}, {"lw": LedoitWolf()}, graph=graph,
            densities=None, n_features=6, n_samples=30, metrics=("f1",),
            random_state=0, store=path,
        ).run()  # fmt: skip

    def ring(n_features, density, random_state):
        return np.roll(np.eye(n_features, dtype=bool), 1, axis=1) | np.roll(
            np.eye(n_features, dtype=bool), -1, axis=1
        )

    run(lambda n_features, density, random_state: np.zeros((6, 6), dtype=bool))
    with pytest.raises(StudyMismatchError, match="graph"):
        run(lambda n_features, density, random_state: np.ones((6, 6), dtype=bool))
    with pytest.raises(StudyMismatchError, match="graph"):
        run(ring)


class Opaque:
    """A distribution-like object: no get_params, only public state."""

    def __init__(self, low=-1.0):
        self.low = low

    def rvs(self, size=None, random_state=None):
        return np.random.default_rng(random_state).uniform(self.low, 1, size)


def test_objects_are_described_by_class_and_public_state(tmp_path):
    # Issue 21: an object parameter never refuses a study. It is described by its
    # class and its own public attributes, so a stored study resumes, and a change
    # of those attributes is a different study.
    def run(low):
        return Benchmark(
            {"dd": DiagonalDominance(distribution=Opaque(low))},
            {"lw": LedoitWolf()},
            n_features=6,
            n_samples=30,
            random_state=0,
            store=tmp_path / "opaque.sqlite",
        ).run()

    assert run(-1.0).n_computed == 1
    assert run(-1.0).n_computed == 0
    with pytest.raises(StudyMismatchError, match="generators"):
        run(-0.5)


# --------------------------------------------------------------------------------------
# Any scikit-learn-compatible estimator in a TOML study
# --------------------------------------------------------------------------------------

PLAIN_ESTIMATOR = """
import numpy as np
from sklearn.base import BaseEstimator


class PlainCovariance(BaseEstimator):
    # A scikit-learn-compatible estimator without _parameter_constraints.
    def __init__(self, ridge=0.1):
        self.ridge = ridge

    def fit(self, X, y=None):
        if self.ridge < 0:
            raise ValueError(f"ridge must be >= 0, got {self.ridge}")
        cov = np.cov(X, rowvar=False) + self.ridge * np.eye(X.shape[1])
        self.covariance_ = cov
        self.precision_ = np.linalg.inv(cov)
        return self
"""


def test_a_plain_estimator_from_a_toml_study_runs(tmp_path, monkeypatch):
    (tmp_path / "my_estimators.py").write_text(textwrap.dedent(PLAIN_ESTIMATOR))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("my_estimators", None)
    data = {
        "generators": ["DiagonalDominance"],
        "learners": {"plain": {"class": "my_estimators.PlainCovariance", "ridge": 0.5}},
        "n_features": 6,
        "densities": [0.3],
        "n_samples": [30],
        "random_state": 0,
    }
    config = parse_config(data)
    frame = config.make_benchmark(n_jobs=1, backend="threading").run().frame
    assert (frame.status == "ok").all()
    # Its parameters are checked by name when the study is parsed ...
    plain = "my_estimators.PlainCovariance"
    typo = data | {"learners": {"plain": {"class": plain, "rigde": 0.5}}}
    with pytest.raises(ValueError, match=r"learners\.plain\.rigde: PlainCovariance"):
        parse_config(typo)
    # ... and by the estimator itself when it fits: a failed row, not a crash.
    bad = data | {"learners": {"plain": {"class": plain, "ridge": -1.0}}}
    frame = parse_config(bad).make_benchmark(n_jobs=1).run().frame
    assert frame.message.str.contains("ridge must be >= 0").all()


def test_a_data_set_already_observed_is_prepared_by_the_template():
    # The second sample size of a kept cell only needs the hash of its rows: the
    # template answers it from the kept data (no child is forked), and the answer
    # is the one a child drawing the cell afresh gives.
    from skggm_bench.benchmark._running import make_spec
    from skggm_bench.benchmark.run._outcomes import MISSING
    from skggm_bench.benchmark.run._worker import _Server

    bench = Benchmark(
        {"dd": DiagonalDominance()},
        {"lw": LedoitWolf()},
        n_features=6,
        n_samples=(10, 20),
        densities=(0.3,),
        n_repeats=1,
        random_state=0,
    )
    grid = bench._validate()
    spec = make_spec(grid, 0)
    small, large = (f for f in grid.fits() if f.learner == "lw")
    args = (small.cell, small.data_model)
    child = _Server(spec)
    child.prepare(*args, small.n_samples)
    template = _Server(spec)
    assert template.cached("prepare", (*args, large.n_samples)) is MISSING
    template.merge(child.take_fresh())
    answer = template.cached("prepare", (*args, large.n_samples))
    assert answer == _Server(spec).prepare(*args, large.n_samples)
    assert answer != template.cached("prepare", (*args, small.n_samples))
    assert template.cached("prepare", (small.cell, "other", 10)) is MISSING
    assert template.cached("fit", (large,)) is MISSING


def test_a_process_with_over_1024_descriptors_runs_isolated_fits():
    # The process that calls run() (n_jobs=1) may hold many files; the template
    # inherits them, so the descriptors of its children and pipes lie above 1023,
    # where select.select refuses them ("filedescriptor out of range").
    read_end, write_end = os.pipe()
    held = [os.dup(read_end) for _ in range(1100)]
    try:
        assert max(held) > 1023
        bench = Benchmark(
            {"dd": DiagonalDominance()},
            {"lw": LedoitWolf(), "crash": Hostile("segfault")},
            n_features=5,
            n_samples=(20,),
            densities=(0.3,),
            n_repeats=2,
            random_state=0,
            n_jobs=1,
            timeout=TIMEOUT,
        )
        frame = bench.run().frame.set_index("learner")
    finally:
        for fd in (*held, read_end, write_end):
            os.close(fd)
    assert (frame.loc["lw", "status"] == "ok").all()
    assert (frame.loc["crash", "status"] == "crashed").all()
