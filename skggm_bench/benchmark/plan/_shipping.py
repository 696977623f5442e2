"""Whether each learner can be sent to the worker processes, and its versions.

Part of ``Benchmark.validate``: a learner that fresh worker processes cannot load,
or whose software (R and its packages) is missing, is refused before any fit runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
from typing import Any

import joblib

from ..results._provenance import (
    MissingSoftwareError,
    learner_modules,
    learner_versions,
)
from ._checks import StudyError, backend_config
from ._tasks import ship_learner

# Packages whose classes every worker process imports as the parent does: a
# learner made only of these needs no trial load in a fresh process.
_LOADS_ANYWHERE = frozenset({"sklearn", "skggm_bench", "numpy", "scipy"})
# Learner bytes (by digest) already loaded in a fresh process: None or the error.
_LOAD_CHECKS: dict[str, str | None] = {}
# Loads each learner of a pickled {digest: bytes} in a fresh interpreter; prints
# {digest: error or None} as JSON. First it has SIGKILL sent to it when the thread
# that started it ends (PR_SET_PDEATHSIG, Linux): a run killed during its
# validation leaves no trial process behind.
_LOAD_SCRIPT = """\
import ctypes, os, sys
try:
    ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)
except (AttributeError, OSError):
    pass
if os.getppid() != int(sys.argv[1]):
    sys.exit(1)
import json, pickle
problems = {}
for digest, shipped in pickle.loads(sys.stdin.buffer.read()).items():
    try:
        pickle.loads(shipped)
        problems[digest] = None
    except BaseException as exc:
        problems[digest] = f"{type(exc).__name__}: {exc}"
print(json.dumps(problems))
"""


def load_problems(shipped: list[bytes]) -> dict[str, str | None]:
    """Why each of ``shipped`` cannot be loaded in a fresh Python process, by digest.

    The worker processes of loky (and of any process backend) are fresh
    interpreters: a learner whose package imports only after some set-up done in
    this session (import shims, a ``sys.modules`` entry) cannot be loaded there.
    One trial process loads them all, with this process's ``sys.path`` (as loky's
    workers have); results are kept for the next validation.
    """
    digests = {hashlib.sha256(item).hexdigest(): item for item in shipped}
    todo = {digest: item for digest, item in digests.items()
            if digest not in _LOAD_CHECKS}  # fmt: skip
    if todo:
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        try:
            done = subprocess.run(
                [sys.executable, "-c", _LOAD_SCRIPT, str(os.getpid())],
                input=pickle.dumps(todo),
                capture_output=True,
                env=environment,
                timeout=300,
                check=False,
            )
            lines = done.stdout.decode(errors="replace").strip().splitlines()
            found = json.loads(lines[-1]) if lines else {}
            failure = f"the process loading it exited with status {done.returncode}"
        except (subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
            found, failure = {}, f"loading it in a fresh process failed: {exc}"
        for digest in todo:
            _LOAD_CHECKS[digest] = found.get(digest, failure)
    return {digest: _LOAD_CHECKS[digest] for digest in digests}


def check_shipping(learners: dict[str, Any], fresh_workers: bool) -> dict[str, Any]:
    """What is sent to the workers per learner; a StudyError if one cannot go.

    Workers started afresh (loky, dask) get each learner as pickled bytes, loaded
    by its own fits (``_worker.load_learner``), after two checks here: that it can
    be pickled, and -- unless it is made only of packages that import anywhere --
    that a fresh Python process can load it. Workers that share this process's
    memory (``n_jobs=1``, threads; fits run in forked children) need no pickling:
    they get the learners themselves.
    """
    if not fresh_workers:
        return dict(learners)
    shipped = {}
    for key, learner in learners.items():
        try:
            shipped[key] = ship_learner(learner)
        except Exception as exc:
            raise StudyError(
                "learners",
                f"learners[{key!r}] cannot be sent to a worker process: it cannot "
                f"be pickled: {type(exc).__name__}: {exc}. Run it with n_jobs=1 "
                "or backend='threading'",
                key,
            ) from None
    to_check = [
        key
        for key, learner in learners.items()
        if not {m.split(".")[0] for m in learner_modules(learner)} <= _LOADS_ANYWHERE
    ]
    problems = load_problems([shipped[key] for key in to_check])
    for key in to_check:
        problem = problems[hashlib.sha256(shipped[key]).hexdigest()]
        if problem is not None:
            raise StudyError(
                "learners",
                f"learners[{key!r}] cannot be loaded by the worker processes (fresh "
                f"Python processes): {problem}. Run it with n_jobs=1 or "
                "backend='threading', or make its package importable without "
                "set-up in this session",
                key,
            )
    return shipped


def check_versions(learners: dict[str, Any]) -> dict[str, str]:
    """The versions of each learner's software; a StudyError if some is missing.

    A learner that runs software outside Python (R and its packages) reports its
    versions through ``__skggm_bench_versions__`` and raises there when that
    software is missing; the message says what and how to install it.
    """
    versions = {}
    for key, learner in learners.items():
        try:
            versions[key] = learner_versions(learner)
        except MissingSoftwareError as exc:
            raise StudyError(
                "learners", f"learners[{key!r}] cannot run here: {exc}", key
            ) from None
    return versions


def fresh_workers(n_jobs: Any, backend: str | None) -> bool:
    """Whether the fits may run in worker processes started afresh (loky)."""
    if backend == "threading":
        return False
    try:
        with backend_config(backend):
            result: bool = joblib.effective_n_jobs(n_jobs) != 1
            return result
    except Exception:  # e.g. dask without a client: refused later, or remote
        return n_jobs not in (None, 1)
