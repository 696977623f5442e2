"""Dispatch: fits to joblib workers, longest expected first; rows as they finish.

Scheduling
    Every fit is one task. At the end of a run the workers that are done wait for
    the others, so the tasks that run last must be short: the scheduler hands out
    the fit with the *longest expected time* first (longest-processing-time-first
    scheduling). A fit's expected time is the cost per unit of work of its learner
    at its density, times the size of its data set (``n_samples * n_features**2``);
    the costs are learned while the run goes, from the fit times of the finished
    fits. A (learner, density) not measured yet goes first with its largest fit, so
    that its cost is learned early. Fits of one cell are handed out together where
    that does not change the order, so a worker reuses the cell it has drawn.

Backends
    joblib runs the tasks with the backend of the user's choice (``"loky"``,
    ``"threading"``, ``"dask"`` with a ``dask.distributed`` client, or any
    registered one). Results come back as they finish and are stored at once, so
    an interruption loses only the fits in flight. Which worker runs a fit never
    changes its row: all randomness comes from the row's coordinates
    (``_seeding.py``).
"""

from __future__ import annotations

import copy
import importlib.util
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import joblib
from joblib.parallel import LokyBackend, MultiprocessingBackend, SequentialBackend

from ..._parent_watch import watch_parent
from ._fits import Fit, Spec
from ._worker import run_fit

__all__ = ["Scheduler", "backend_problem", "execute", "known_backends"]

# Backends whose support lives in another package: what to import, how to get it.
_OPTIONAL_BACKENDS = {
    "dask": ("distributed", "pip install 'skggm-bench[dask]'"),
    "ray": ("ray", "pip install ray"),
}


def known_backends() -> list[str]:
    """Every joblib backend by name, installed or not (the choices to offer)."""
    return sorted({*joblib.parallel.BACKENDS, *_OPTIONAL_BACKENDS} - {"sequential"})


def backend_problem(backend: str) -> str | None:
    """Why ``backend`` cannot be used here (None if it can)."""
    if backend in _OPTIONAL_BACKENDS:
        module, hint = _OPTIONAL_BACKENDS[backend]
        if importlib.util.find_spec(module) is None:
            return (
                f"backend={backend!r} needs the {module!r} package, which is not "
                f"installed: {hint}"
            )
        return None
    if backend not in joblib.parallel.BACKENDS:
        return (
            f"backend={backend!r} is not a joblib backend; choose one of "
            f"{', '.join(known_backends())} or register it with "
            "joblib.register_parallel_backend"
        )
    return None


# A backend that cannot stream results runs in waves of this many tasks per worker
# (each wave is stored before the next starts).
_WAVE_PER_WORKER = 4

# What the scheduler learns fit times for: a learner, at a density (None: no density
# axis, or NaN).
_GroupKey = tuple[str, float | None]


def _size(n_samples: float, n_features: float) -> float:
    """The work of a fit, up to a factor that depends on the learner and density."""
    return float(n_samples) * float(n_features) ** 2


class Scheduler:
    """The pending fits, handed out longest-expected-first (thread-safe).

    Fits are grouped by (learner, density): a learner's cost per unit of work
    (``n_samples * n_features**2``) depends on how dense the graph is (a lasso path
    on a dense graph has many more knots), not much on anything else. Each group is
    ordered largest first, and the next fit is the head of the group with the
    longest expected time; a group not measured yet goes first, so that its cost is
    learned early.

    Parameters
    ----------
    fits : sequence of Fit
        What is left to run.
    """

    def __init__(self, fits: Sequence[Fit]) -> None:
        self._lock = threading.Lock()
        groups: dict[_GroupKey, list[Fit]] = {}
        for fit in fits:
            groups.setdefault(self._group(fit.learner, fit.cell.density), []).append(
                fit
            )
        # Largest last (popped first); equal sizes keep their cells together, so a
        # worker's next fit is likely on the data set it has just drawn.
        self._groups = {
            key: sorted(
                group,
                key=lambda f: (_size(f.n_samples, f.cell.n_features), str(f.cell)),
            )
            for key, group in groups.items()
        }
        self._cost: dict[_GroupKey, tuple[float, int]] = {}  # group: (s per size, n)
        self._started: set[_GroupKey] = set()

    @staticmethod
    def _group(learner: str, density: float | None) -> _GroupKey:
        return (learner, None if density is None or density != density else density)

    def __iter__(self) -> Iterator[Fit]:
        return self

    def _expected(self, key: _GroupKey, default: float) -> float:
        learner_costs = [
            cost for (learner, _), (cost, _) in self._cost.items() if learner == key[0]
        ]
        fallback = max(learner_costs) if learner_costs else default
        head = self._groups[key][-1]
        return self._cost.get(key, (fallback, 0))[0] * _size(
            head.n_samples, head.cell.n_features
        )

    def __next__(self) -> Fit:
        with self._lock:
            pending = [key for key, group in self._groups.items() if group]
            if not pending:
                raise StopIteration
            unmeasured = [key for key in pending if key not in self._started]
            if unmeasured:
                # The largest unmeasured group first: it is the likeliest long one.
                key = max(unmeasured, key=lambda k: self._expected(k, 1.0))
            else:
                known = [cost for cost, _ in self._cost.values()]
                default = max(known) if known else 1.0
                key = max(pending, key=lambda k: self._expected(k, default))
            self._started.add(key)
            return self._groups[key].pop()

    def record(self, row: dict[str, Any]) -> None:
        """Learn from a finished fit's time (a row of the result table)."""
        fit_time = row.get("fit_time")
        if fit_time is None or fit_time != fit_time:  # NaN: no fit ran
            return
        key = self._group(row["learner"], row["density"])
        unit = fit_time / _size(row["n_samples"], row["n_features"])
        with self._lock:
            cost, count = self._cost.get(key, (0.0, 0))
            self._cost[key] = ((cost * count + unit) / (count + 1), count + 1)


def _watching_parent(backend: Any) -> Any:
    """``backend``; loky's or multiprocessing's, with workers that watch their parent
    from their start.

    A worker watches its parent from its first fork server on anyway
    (``_isolation.py``); but before it, a loky worker imports the harness to
    unpickle its first task, which takes seconds, and a worker that runs its fits
    in its own process (``isolate=False``) never starts a fork server: a run killed
    meanwhile would leave it running that long. As the pool's initializer the
    watch starts before any task is read. A user's initializer is kept: it runs
    after the watch starts. (A dask local cluster's workers need none: distributed
    ends them with the process that started them, from their start.)
    """
    if not isinstance(backend, (LokyBackend, MultiprocessingBackend)):
        return backend
    kwargs = dict(backend.backend_kwargs)
    user = kwargs.pop("initializer", None)
    if user is watch_parent:
        return backend
    watched = copy.copy(backend)
    watched.backend_kwargs = kwargs | {
        "initializer": watch_parent,
        "initargs": () if user is None else (user, *kwargs.get("initargs", ())),
    }
    return watched


def execute(
    spec: Spec,
    fits: Sequence[Fit],
    n_jobs: int | None,
    verbose: int,
    on_row: Callable[[dict[str, Any]], None],
) -> None:
    """Run ``fits`` with the active joblib backend; call ``on_row`` per finished fit.

    ``on_row`` runs in the calling thread (it stores the row); an exception in it,
    or ``KeyboardInterrupt``, cancels the fits not started yet.
    """
    if not fits:
        return
    scheduler = Scheduler(fits)
    backend = _watching_parent(joblib.parallel.get_active_backend()[0])
    n_workers = joblib.effective_n_jobs(n_jobs)
    if n_workers == 1 and not getattr(backend, "supports_return_generator", True):
        # One worker is the calling process (joblib runs it so anyway), which
        # streams; a backend that cannot would refuse the request to.
        backend = SequentialBackend()
    tasks = (joblib.delayed(run_fit)(spec, fit) for fit in scheduler)
    if getattr(backend, "supports_return_generator", True):
        outputs = joblib.Parallel(
            n_jobs=n_jobs,
            backend=backend,
            return_as="generator_unordered",
            verbose=verbose,
            pre_dispatch="n_jobs",  # hand out late, with what was learned so far
        )(tasks)
        try:
            for row in outputs:
                scheduler.record(row)
                on_row(row)
        finally:  # on interruption: cancel what is queued, stop the workers
            outputs.close()
        return
    parallel = joblib.Parallel(n_jobs=n_jobs, backend=backend, verbose=verbose)
    wave: list[Any] = []
    for task in tasks:
        wave.append(task)
        if len(wave) == _WAVE_PER_WORKER * n_workers:
            for row in parallel(wave):
                scheduler.record(row)
                on_row(row)
            wave = []
    for row in parallel(wave):
        scheduler.record(row)
        on_row(row)
