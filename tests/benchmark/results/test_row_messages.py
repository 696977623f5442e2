"""Deterministic rows: messages hold no memory address, temporary path or process
id, so a study's rows are identical for any n_jobs and backend (issue 28)."""

import os
import sys
import tempfile
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.covariance import LedoitWolf

from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.analysis.leaderboard import warning_summary
from skggm_bench.benchmark.results._messages import normalise_message
from skggm_bench.generators import DiagonalDominance


class Volatile(BaseEstimator):
    """Fails with a message naming what differs between processes."""

    def fit(self, X, y=None):
        scratch = os.path.join(tempfile.gettempdir(), f"tmp{os.getpid()}q", "c.npy")
        raise RuntimeError(
            f"{self!r} at {hex(id(self))}: <function <lambda> at {hex(id(X))}> "
            f"cannot write {scratch} (pid {os.getpid()}, LokyProcess-{os.getpid()})"
        )


def test_normalise_message_replaces_what_differs_between_processes():
    text = (
        "RuntimeError: <pkg.Model object at 0x7f59a1b2c3d0> cannot write "
        f"{tempfile.gettempdir()}/tmpk3j_x9/c.npy (pid 4242, ForkPoolWorker-7)"
    )
    assert normalise_message(text) == (
        "RuntimeError: <pkg.Model object at 0x...> cannot write <tmp> "
        "(pid <pid>, ForkPoolWorker-<n>)"
    )
    # What does not differ stays: a word that merely contains "tmp", a path that
    # is not temporary, a short hexadecimal value, numbers that are not ids.
    kept = "tmpfile /home/u/tmp/x.npy flags 0x1f; 3-th minor; n_jobs 2"
    assert normalise_message(kept) == kept
    assert normalise_message(normalise_message(text)) == normalise_message(text)


def _study(**options):
    return Benchmark(
        {"dd": DiagonalDominance()},
        {"volatile": Volatile(), "lw": LedoitWolf()},
        n_features=6,
        densities=0.3,
        n_samples=40,
        n_repeats=2,
        random_state=0,
        **options,
    )


@pytest.fixture(scope="module")
def reference():
    return _study().run().frame.drop(columns="fit_time")


@pytest.mark.parametrize(("n_jobs", "backend"), [(2, "loky"), (2, "threading")])
def test_rows_are_identical_for_any_n_jobs_and_backend(reference, n_jobs, backend):
    frame = _study(n_jobs=n_jobs, backend=backend).run().frame.drop(columns="fit_time")
    pd.testing.assert_frame_equal(frame, reference)
    failed = reference[reference.learner == "volatile"]
    assert (failed.status == "failed").all()
    message = failed.message.iloc[0]
    assert "0x..." in message and "<tmp>" in message and "pid <pid>" in message
    assert "LokyProcess-<n>" in message
    assert not np.any(reference.message.str.contains(str(os.getpid())))


# --------------------------------------------------------------------------------------
# Versions of the packages a fit imported
# --------------------------------------------------------------------------------------


class LateImport(BaseEstimator):
    """A wrapper that imports its solver's package inside ``fit`` only."""

    def fit(self, X, y=None):
        import gglasso.problem  # noqa: F401  (imported at call time, as wrappers do)

        self.covariance_ = np.cov(X, rowvar=False) + 0.1 * np.eye(X.shape[1])
        self.precision_ = np.linalg.inv(self.covariance_)
        return self


@pytest.mark.parametrize(("n_jobs", "isolate"), [(1, True), (2, True), (1, False)])
def test_versions_record_the_packages_a_fit_imported(monkeypatch, n_jobs, isolate):
    import importlib.metadata
    import json
    import sys

    # Not imported before the run, so that only the fit can import it (the
    # template of the fork server starts with what this process has imported).
    for name in [m for m in sys.modules if m.partition(".")[0] == "gglasso"]:
        monkeypatch.delitem(sys.modules, name)
    frame = (
        Benchmark(
            {"dd": DiagonalDominance()},
            {"late": LateImport(), "lw": LedoitWolf()},
            n_features=6,
            densities=0.3,
            n_samples=40,
            n_repeats=2,
            random_state=0,
            n_jobs=n_jobs,
            isolate=isolate,
        )
        .run()
        .frame
    )
    assert (frame.status == "ok").all(), frame.message.tolist()
    versions = frame.set_index(["learner", "repeat"]).versions.map(json.loads)
    expected = importlib.metadata.version("gglasso")
    for repeat in (0, 1):  # every fit of the learner, not only the first
        assert versions["late", repeat]["gglasso"] == expected
        assert "gglasso" not in versions["lw", repeat]


class LateImportFails(BaseEstimator):
    """Imports its solver's package inside ``fit``, then fails."""

    def fit(self, X, y=None):
        import gglasso.problem  # noqa: F401

        raise FloatingPointError("the solver diverged")


@pytest.mark.parametrize(("n_jobs", "isolate"), [(1, True), (1, False)])
def test_failed_rows_record_the_packages_their_fit_imported(
    monkeypatch, n_jobs, isolate
):
    # Issue 37: a failed row's versions omitted what its fit had imported.
    import importlib.metadata
    import json
    import sys

    for name in [m for m in sys.modules if m.partition(".")[0] == "gglasso"]:
        monkeypatch.delitem(sys.modules, name)
    frame = (
        Benchmark(
            {"dd": DiagonalDominance()},
            {"late": LateImportFails()},
            n_features=6,
            densities=0.3,
            n_samples=40,
            n_repeats=2,
            random_state=0,
            n_jobs=n_jobs,
            isolate=isolate,
        )
        .run()
        .frame
    )
    assert (frame.status == "failed").all()
    assert (frame.message == "FloatingPointError: the solver diverged").all()
    expected = importlib.metadata.version("gglasso")
    for versions in frame.versions.map(json.loads):
        assert versions["gglasso"] == expected


class Chatty(BaseEstimator):
    """Prints from Python and writes to the standard streams' descriptors."""

    def fit(self, X, y=None):
        print("chatty: iteration 1 of 10")
        print("chatty: to stderr", file=sys.stderr)
        os.write(1, b"chatty: from C\n")
        os.write(2, b"chatty: C error stream\n")
        self.covariance_ = np.cov(X, rowvar=False)
        self.precision_ = np.linalg.inv(self.covariance_)
        return self


def test_what_a_fit_prints_does_not_reach_the_terminal(capfd):
    # Issue 37: POET's and gglasso's own prints leaked to the terminal of `run`.
    frame = (
        Benchmark(
            {"dd": DiagonalDominance()},
            {"chatty": Chatty()},
            n_features=4,
            densities=0.3,
            n_samples=40,
            n_repeats=2,
            random_state=0,
        )
        .run()
        .frame
    )
    assert (frame.status == "ok").all()
    out, err = capfd.readouterr()
    assert "chatty" not in out and "chatty" not in err


class NaNEdges(BaseEstimator):
    """Decides its edges, but one pair is NaN (a missing value passed on)."""

    def __init__(self, value=np.nan):
        self.value = value

    def fit(self, X, y=None):
        p = X.shape[1]
        self.adjacency_ = np.zeros((p, p), dtype=np.asarray(self.value).dtype)
        self.adjacency_[0, 1] = self.adjacency_[1, 0] = self.value
        return self


@pytest.mark.parametrize(("value", "shown"), [(np.nan, "NaN"), (2, "2"), (-1, "-1")])
def test_a_row_whose_edge_decision_is_not_0_1_fails_naming_the_entry(value, shown):
    # Issue 37: a NaN pair was an edge, and such a learner could rank first by F1.
    frame = (
        Benchmark(
            {"dd": DiagonalDominance()},
            {"nan": NaNEdges(value)},
            n_features=4,
            densities=0.3,
            n_samples=40,
            n_repeats=1,
            random_state=0,
        )
        .run()
        .frame
    )
    assert (frame.status == "failed").all()
    assert frame.message.str.contains(
        f"NaNEdges.adjacency_[0, 1] is {shown}; an edge decision must be 0/1",
        regex=False,
    ).all()


# --------------------------------------------------------------------------------------
# Warnings: counted per row, summarised once per learner and class
# --------------------------------------------------------------------------------------


class Warns(BaseEstimator):
    """Warns ``n`` times per fit (twice the same warning: both count)."""

    def __init__(self, n=3):
        self.n = n

    def fit(self, X, y=None):
        from sklearn.exceptions import ConvergenceWarning

        for i in range(self.n):
            warnings.warn(
                f"{self!r} at {hex(id(self))} did not converge; step {i}",
                ConvergenceWarning,
                stacklevel=2,
            )
        warnings.warn("ill-conditioned", RuntimeWarning, stacklevel=2)
        self.covariance_ = np.cov(X, rowvar=False) + 0.1 * np.eye(X.shape[1])
        self.precision_ = np.linalg.inv(self.covariance_)
        return self


@pytest.mark.parametrize(("n_jobs", "isolate"), [(1, True), (2, True), (1, False)])
def test_warnings_are_counted_in_rows_and_summarised_once(capfd, n_jobs, isolate):
    frame = (
        Benchmark(
            {"dd": DiagonalDominance()},
            {"warns": Warns(n=3), "lw": LedoitWolf()},
            n_features=6,
            densities=0.3,
            n_samples=40,
            n_repeats=2,
            random_state=0,
            n_jobs=n_jobs,
            isolate=isolate,
        )
        .run()
        .frame
    )
    assert (frame.status == "ok").all()
    assert frame.n_warnings.dtype == "Int64"
    warned = frame[frame.learner == "warns"]
    assert (warned.n_warnings == 4).all()  # 3 ConvergenceWarning + 1 RuntimeWarning
    assert (frame[frame.learner == "lw"].n_warnings == 0).all()
    # Every class with its count, then the first warning, normalised (no
    # address), in the message; the same in every row, whatever the process.
    assert set(warned.message) == {
        "selected every pair; warnings: ConvergenceWarning 3, RuntimeWarning 1; "
        "first warning: ConvergenceWarning: Warns() at 0x... did not converge, step 0"
    }
    # Every class a fit raised is counted, not only its first warning's (issue 37).
    assert warning_summary(frame).to_dict("records") == [
        {"learner": "warns", "n_ok": 2, "n_warned": 2,
         "classes": "ConvergenceWarning 2, RuntimeWarning 2"}
    ]  # fmt: skip
    err = capfd.readouterr().err
    summary = [line for line in err.splitlines() if line.startswith("warnings:")]
    assert summary == [
        "warnings: learner 'warns' raised ConvergenceWarning 6 times in 2 of 2 fits "
        "(counted in the n_warnings column; each row's message names their classes)",
        "warnings: learner 'warns' raised RuntimeWarning 2 times in 2 of 2 fits "
        "(counted in the n_warnings column; each row's message names their classes)",
    ]
    assert "did not converge" not in err  # not printed by the fits


def test_a_failed_fit_has_no_warning_count():
    frame = (
        Benchmark(
            {"dd": DiagonalDominance()},
            {"volatile": Volatile()},
            n_features=6,
            densities=0.3,
            n_samples=40,
            random_state=0,
        )
        .run()
        .frame
    )
    assert (frame.status == "failed").all() and frame.n_warnings.isna().all()


def test_new_modules_are_read_back_to_the_last_one_before_the_fit(monkeypatch):
    import sys
    import types

    from skggm_bench.benchmark.run._worker import _last_module, _modules_since

    last = _last_module()
    assert _modules_since(last) == []
    for name in ("skggm_bench_test_a", "skggm_bench_test_b"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    assert _modules_since(last) == ["skggm_bench_test_b", "skggm_bench_test_a"]
    # A fit that takes the marker out: every module counts, none is missed.
    monkeypatch.delitem(sys.modules, last)
    since = _modules_since(last)
    assert {"skggm_bench_test_a", "skggm_bench_test_b"} <= set(since)
    assert len(since) == len(sys.modules)
