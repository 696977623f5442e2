"""Dispatch: fits to joblib workers, longest expected first; rows as they finish.

Scheduling
    Every fit is one task. At the end of a run the workers that are done wait for
    the others, so the tasks that run last must be short: the scheduler hands out
    the fit with the *longest expected time* first (longest-processing-time-first
    scheduling). A fit's expected time is its learner's cost per unit of work times
    the size of its data set (``n_samples * n_features**2``); the cost per unit is
    learned while the run goes, from the fit times of the finished fits of the same
    learner. A learner not measured yet goes first with its largest fit, so that its
    cost is learned early. Fits of one cell are handed out together where that does
    not change the order, so a worker reuses the cell it has drawn.

Backends
    joblib runs the tasks with the backend of the user's choice (``"loky"``,
    ``"threading"``, ``"dask"`` with a ``dask.distributed`` client, or any
    registered one). Results come back as they finish and are stored at once, so
    an interruption loses only the fits in flight. Which worker runs a fit never
    changes its row: all randomness comes from the row's coordinates
    (``_seeding.py``).
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import joblib

from ._tasks import Fit, Spec, run_fit

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


def _size(fit: Fit) -> float:
    """The work of a fit, up to a learner-specific factor."""
    return float(fit.n_samples) * float(fit.cell.n_features) ** 2


class Scheduler:
    """The pending fits, handed out longest-expected-first (thread-safe).

    Parameters
    ----------
    fits : sequence of Fit
        What is left to run.
    """

    def __init__(self, fits: Sequence[Fit]) -> None:
        self._lock = threading.Lock()
        queues: dict[str, list[Fit]] = {}
        for fit in fits:
            queues.setdefault(fit.learner, []).append(fit)
        # Each learner's fits largest first; equal sizes keep their cells together.
        for queue in queues.values():
            queue.sort(key=lambda f: (-_size(f), str(f.cell), f.data_model))
        self._queues = {learner: queue[::-1] for learner, queue in queues.items()}
        self._cost: dict[str, tuple[float, int]] = {}  # learner: (seconds/size, n)
        self._started: set[str] = set()

    def __iter__(self) -> Iterator[Fit]:
        return self

    def __next__(self) -> Fit:
        with self._lock:
            pending = [learner for learner, queue in self._queues.items() if queue]
            if not pending:
                raise StopIteration
            unmeasured = [
                learner for learner in pending if learner not in self._started
            ]
            if unmeasured:
                learner = unmeasured[0]
            else:
                known = [cost for cost, _ in self._cost.values()]
                default = max(known) if known else 1.0

                def expected(learner: str) -> float:
                    cost = self._cost.get(learner, (default, 0))[0]
                    return cost * _size(self._queues[learner][-1])

                learner = max(pending, key=expected)
            self._started.add(learner)
            return self._queues[learner].pop()

    def record(self, row: dict) -> None:
        """Learn from a finished fit's time (a row of the result table)."""
        fit_time = row.get("fit_time")
        if fit_time is None or not fit_time == fit_time:  # NaN: no fit ran
            return
        size = float(row["n_samples"]) * float(row["n_features"]) ** 2
        with self._lock:
            cost, count = self._cost.get(row["learner"], (0.0, 0))
            self._cost[row["learner"]] = (
                (cost * count + fit_time / size) / (count + 1),
                count + 1,
            )


def execute(
    spec: Spec,
    fits: Sequence[Fit],
    n_jobs: int | None,
    verbose: int,
    on_row: Callable[[dict], None],
) -> None:
    """Run ``fits`` with the active joblib backend; call ``on_row`` per finished fit.

    ``on_row`` runs in the calling thread (it stores the row); an exception in it,
    or ``KeyboardInterrupt``, cancels the fits not started yet.
    """
    if not fits:
        return
    scheduler = Scheduler(fits)
    backend, _ = joblib.parallel.get_active_backend()
    n_workers = joblib.effective_n_jobs(n_jobs)
    tasks = (joblib.delayed(run_fit)(spec, fit) for fit in scheduler)
    if n_workers == 1 or getattr(backend, "supports_return_generator", True):
        outputs = joblib.Parallel(
            n_jobs=n_jobs,
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
    parallel = joblib.Parallel(n_jobs=n_jobs, verbose=verbose)
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
