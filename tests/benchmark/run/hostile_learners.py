"""Learners that change the process they run in, or leave processes behind.

A helper module (not a test module) so that loky workers, dask workers and a CLI
run in a subprocess can import the classes by name.
"""

import ctypes
import os
import signal
import subprocess
import tempfile
import threading
import time

import numpy as np
import sklearn.covariance._shrunk_covariance as shrunk
from sklearn.base import BaseEstimator
from threadpoolctl import threadpool_info, threadpool_limits

# A module-level cache, as a learner's helper module might keep one.
CACHE: dict = {}


def _estimate(estimator, X):
    covariance = np.cov(X, rowvar=False) + 0.1 * np.eye(X.shape[1])
    estimator.covariance_ = covariance
    estimator.precision_ = np.linalg.inv(covariance)
    return estimator


class Poisoner(BaseEstimator):
    """Fits well, but first changes the state of its process as ``kind`` says."""

    def __init__(self, kind="numpy_patch"):
        self.kind = kind

    def fit(self, X, y=None):
        kind = self.kind
        if kind == "numpy_patch":
            cov = np.cov
            np.cov = lambda *args, **kwargs: 3.0 * cov(*args, **kwargs)
        elif kind == "sklearn_patch":
            shrunk.ledoit_wolf_shrinkage = lambda *args, **kwargs: 0.9
        elif kind == "seterr":
            np.seterr(all="raise")
        elif kind == "global_seed":
            np.random.seed(0)  # noqa: NPY002 - the global state is the point
        elif kind == "environ":
            os.environ["SKGGM_BENCH_POISON"] = "1"
        elif kind == "threadpool":
            threadpool_limits(limits=3)
        elif kind == "module_cache":
            CACHE["ridge"] = 5.0
        else:
            raise ValueError(f"unknown kind {kind!r}")
        return _estimate(self, X)


def _blas_threads() -> int:
    return sum(pool["num_threads"] for pool in threadpool_info())


class Probe(BaseEstimator):
    """A learner whose estimate depends on every kind of state a Poisoner changes.

    Its ridge is the sum of what it sees: the BLAS thread count, the global random
    state, ``np.geterr``, an environment variable and the module cache. In a clean
    process these are the same for every fit, so its rows are reproducible; in a
    poisoned one its rows change.
    """

    def __init__(self, scale=0.01):
        self.scale = scale

    def fit(self, X, y=None):
        seeded = np.array_equal(
            np.random.get_state()[1],  # noqa: NPY002 - the global state
            np.random.RandomState(0).get_state()[1],
        )
        seen = (
            _blas_threads()
            + 10 * seeded
            + 100 * (np.geterr()["under"] == "raise")
            + 1000 * ("SKGGM_BENCH_POISON" in os.environ)
            + CACHE.get("ridge", 0.0)
        )
        covariance = np.cov(X, rowvar=False) + self.scale * (1 + seen) * np.eye(
            X.shape[1]
        )
        self.covariance_ = covariance
        self.precision_ = np.linalg.inv(covariance)
        return self


# Shared by the test and its learners: the temporary folder of the process that
# imports this module first (the test's, or a worker's; never a fit's, which is
# its own working directory, removed with it).
_SHARED_FOLDER = tempfile.gettempdir()


def killed_templates_file(tag):
    """Where a ``Leaver("kill_template", tag)`` writes the pids it killed."""
    return os.path.join(_SHARED_FOLDER, f"skggm-test-killed-{tag}")


class Leaver(BaseEstimator):
    """Fits well, but leaves something running as ``kind`` says.

    ``tag`` is the first argument of the ``sleep`` it starts, so that a test finds
    exactly its processes.
    """

    def __init__(self, kind="subprocess", tag="600.1", pause=0.0):
        self.kind = kind
        self.tag = tag
        self.pause = pause

    def fit(self, X, y=None):
        kind = self.kind
        if kind in ("subprocess", "new_session", "then_segfault", "then_exit",
                    "kill_template"):  # fmt: skip
            subprocess.Popen(
                ["sleep", self.tag],
                start_new_session=kind in ("new_session", "kill_template"),
            )
        if kind == "kill_worker":
            # What loky does to a worker's process tree on an interruption, at the
            # worst moment: a process of a session of its own kills the template
            # and the worker above it at once (no clean-up runs), then stays.
            template = os.getppid()
            with open(f"/proc/{template}/stat") as stat:
                worker = int(stat.read().rsplit(")", 1)[1].split()[1])
            started = killed_templates_file(self.tag)
            subprocess.Popen(
                ["sh", "-c", f"echo {template} >> {started}; "
                 f"kill -9 {template} {worker}; exec sleep {self.tag}"],
                start_new_session=True,
            )  # fmt: skip
            time.sleep(600)
        if kind == "kill_template":  # its parent, the fork server's template
            # Which template it killed, for the test to find what it left.
            with open(killed_templates_file(self.tag), "a") as killed:
                killed.write(f"{os.getppid()}\n")
            os.kill(os.getppid(), signal.SIGKILL)
            time.sleep(600)
        elif kind == "thread":
            threading.Thread(target=time.sleep, args=(600,)).start()
        time.sleep(self.pause)
        if kind == "then_segfault":
            ctypes.string_at(0)
        if kind == "then_exit":
            os._exit(7)
        return _estimate(self, X)


def _harness_frame_locals():
    """The locals of the frames above this fit (what a learner can reach)."""
    import sys

    frame = sys._getframe(1)
    while frame is not None:
        yield frame.f_code.co_name, frame.f_locals
        frame = frame.f_back


class _Exec:
    """Pickles as a call of ``exec``: run when unpickled by ``pickle.loads``."""

    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        return (exec, (self.code,))


class StackWalker(BaseEstimator):
    """Fits well, but first attacks the fork server through its stack frames.

    ``kind``: ``exec_reduce`` sends the template an answer whose unpickling runs
    code (it writes ``marker`` and patches ``LedoitWolf.fit``); ``poison_kept``
    overwrites the kept data sets and calls ``keep()``; ``keep_other`` keeps a
    poisoned copy under another cell's key; ``forge_prepare`` sends a plain answer
    to a draw request, with poisoned data to keep; ``forge_fit`` sends a plain
    answer to its fit request, with poisoned data to keep.
    """

    def __init__(self, kind="exec_reduce", marker=""):
        self.kind = kind
        self.marker = marker

    def _poisoned(self, server):
        import dataclasses

        entries = {}
        for key, data in list(server.kept.items()):
            observed = {name: 2.0 * X + 1.0 for name, X in data.observed.items()}
            entries[key] = dataclasses.replace(data, observed=observed, hashes={})
        return entries

    def fit(self, X, y=None):
        import dataclasses
        import pickle

        from skggm_bench.benchmark.run._outcomes import Outcome
        from skggm_bench.benchmark.run._server import Server

        conn = server = None
        for name, local in _harness_frame_locals():
            if name == "_child_main":
                conn = local["conn"]
            for value in local.values():
                if isinstance(value, Server):
                    server = value
        kind = self.kind
        if kind == "exec_reduce":
            code = (
                f"open({self.marker!r}, 'w').write('ran');"
                "import sklearn.covariance as c;"
                "c.LedoitWolf.fit = lambda self, X, y=None: 1 / 0"
            )
            answer = (_Exec(code), Outcome("ok", None, "", 0.0), [])
            conn.send_bytes(pickle.dumps(answer))
        elif kind == "poison_kept":
            for key, data in self._poisoned(server).items():
                server.kept[key].observed.update(data.observed)
                server.keep(key, server.kept[key])
        elif kind == "keep_other":
            for key, data in self._poisoned(server).items():
                other = dataclasses.replace(key, repeat=(key.repeat + 1) % 3)
                server.keep(other, data)
        elif kind in ("forge_prepare", "forge_fit"):
            request = "prepare" if kind == "forge_prepare" else "fit"
            fresh = list(self._poisoned(server).items())
            answer = (request, "ok", {"fit_time": 0.0}, "", 0.0, fresh)
            conn.send_bytes(pickle.dumps(answer))
        else:
            raise ValueError(f"unknown kind {kind!r}")
        return _estimate(self, X)


class StoreAttacker(BaseEstimator):
    """Fits well, but first goes for the results store.

    ``kind``: ``truncate_fds`` truncates every descriptor of its process that
    points to an SQLite file (and raises if it found one, so that its row says
    so); ``delete_cwd`` deletes every ``*.sqlite*`` file of its working directory
    (psics writes files there); ``delete_path`` deletes the files at ``path``
    (what no isolation can prevent: the run must say it happened).
    """

    def __init__(self, kind="truncate_fds", path=""):
        self.kind = kind
        self.path = path

    def fit(self, X, y=None):
        import glob

        if self.kind == "truncate_fds":
            found = []
            for fd in os.listdir("/proc/self/fd"):
                try:
                    target = os.readlink(f"/proc/self/fd/{fd}")
                except OSError:
                    continue
                if ".sqlite" in target:
                    found.append(target)
                    os.ftruncate(int(fd), 0)
            if found:
                raise RuntimeError(f"truncated {found}")
        elif self.kind == "delete_cwd":
            for name in glob.glob("*.sqlite*"):
                os.remove(name)
        elif self.kind == "delete_path":
            for name in glob.glob(self.path + "*"):
                os.remove(name)
        else:
            raise ValueError(f"unknown kind {self.kind!r}")
        return _estimate(self, X)
