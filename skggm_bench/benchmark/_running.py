"""The run of a study: its store opened or resumed, the missing fits computed.

:meth:`Benchmark.run <skggm_bench.benchmark.Benchmark.run>` validates the study and
hands its grid to :func:`run_study`, which opens the store (a new one, one to
resume, or the extension of a published study), computes the rows it lacks through
the dispatcher of ``run/`` and returns every row of the grid, in grid order.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import uuid
from collections.abc import Callable
from typing import Any

import pandas as pd

from ._result import BenchmarkResult
from .plan._checks import StudyError, backend_config
from .plan._grid import Grid, fingerprint
from .plan._sharding import check_shard, shard_fits
from .plan._tasks import process_setups
from .results._messages import WarningTally
from .results._provenance import learner_modules
from .results._schema import KEY_COLUMNS, result_columns
from .results.store import ResultStore, StudyExtension, extend_study
from .run._execution import execute
from .run._fits import Spec
from .run._isolation import adopt_strays, close_children
from .run._seeding import check_study_random_state, fresh_entropy
from .run._worker import WARNING_COUNTS


def run_study(
    bench: Any,
    grid: Grid,
    progress: Callable[[int, int], Any] | None,
    against: str | os.PathLike[str] | ResultStore | None,
) -> BenchmarkResult:
    """Run the fits of ``grid`` that ``bench``'s store lacks; return all its rows.

    ``bench`` is the validated :class:`~skggm_bench.benchmark.Benchmark` whose grid
    this is; its ``entropy_`` is set as soon as the study's entropy is known (an
    interrupted run keeps it).
    """
    _check_against(bench.store, against)
    # Entering the backend's configuration validates it (unknown name, dask
    # without a client) before the store is touched.
    with backend_config(bench.backend):
        extension = None
        if against is not None:  # refused before the store is created
            entropy = _published_entropy(bench.random_state, against)
            extension = extend_study(against, fingerprint(grid, entropy))
        store = _open_store(bench.store)
        try:
            if extension is None:
                entropy = _entropy(bench.random_state, store)
                study_fingerprint = fingerprint(
                    grid, entropy, stored=bench.store is not None
                )
            else:
                study_fingerprint = extension.study
            study = store.ensure_study(study_fingerprint)
            bench.entropy_ = entropy
            n_computed = _fill(
                store, grid, entropy, progress, bench, extension=extension
            )
            if extension is not None:  # rank every learner, published first
                grid = dataclasses.replace(
                    grid, learners=dict.fromkeys(extension.study["learners"])
                )
            frame = _ordered_frame(store.frame(), grid)
        finally:
            if store is not bench.store:  # opened here: close it here
                store.close()
    path = None if store.path == ":memory:" else store.path
    return BenchmarkResult(
        frame,
        study,
        store=path,
        n_computed=n_computed,
        tie_tolerance=float(bench.tie_tolerance),
    )


def _open_store(store: Any) -> ResultStore:
    if store is None:
        return ResultStore(":memory:")
    if isinstance(store, ResultStore):
        return store
    if isinstance(store, (str, os.PathLike)):
        return ResultStore(store)
    raise StudyError(
        "store",
        f"store must be None, a file path or a ResultStore, got {store!r}",
    )


def _check_against(store: Any, against: Any) -> None:
    """``against`` is a store other than ``store``: a published one stays."""
    if against is None:
        return
    if not isinstance(against, (str, os.PathLike, ResultStore)):
        raise StudyError(
            "against",
            f"against must be None, a file path or a ResultStore, got {against!r}",
        )
    published = against.path if isinstance(against, ResultStore) else against
    store = store.path if isinstance(store, ResultStore) else store
    if store is None or os.fspath(store) == ":memory:":
        return
    if os.path.exists(store) and os.path.exists(published):
        if os.path.samefile(store, published):
            raise StudyError(
                "store",
                f"store {os.fspath(store)!r} is the published store given as "
                "against, which is never changed: give store a new path for "
                "the extended study",
            )


def _entropy(random_state: Any, store: ResultStore) -> int:
    entropy = check_study_random_state(random_state)
    if entropy is not None:
        return entropy
    stored = store.study()  # random_state=None resumes with the stored entropy
    if stored is not None and "entropy" in stored:
        return int(stored["entropy"])
    return fresh_entropy()


def _published_entropy(
    random_state: Any, against: str | os.PathLike[str] | ResultStore
) -> int:
    """random_state=None extends a published study with its own seed."""
    if isinstance(against, ResultStore):
        return _entropy(random_state, against)
    with ResultStore(against, read_only=True) as published:
        return _entropy(random_state, published)


def make_spec(grid: Grid, entropy: int) -> Spec:
    return Spec(
        token=uuid.uuid4().hex,
        entropy=entropy,
        generators=grid.generators,
        data_models=grid.data_models,
        learners=grid.shipped,
        versions=grid.versions,
        modules={
            name: learner_modules(learner) for name, learner in grid.learners.items()
        },
        graphs=grid.graphs,
        model=grid.model,
        metrics=grid.metrics,
        largest_n={p: max(sizes) for p, sizes in grid.n_samples.items()},
        timeout=grid.timeout,
        memory_limit=grid.memory_limit,
        isolate=grid.isolate,
        setups=process_setups(grid.learners),
        models=grid.models,
    )


def _fill(
    store: ResultStore,
    grid: Grid,
    entropy: int,
    progress: Callable[[int, int], Any] | None,
    bench: Any,
    *,
    extension: StudyExtension | None = None,
) -> int:
    """Compute the rows missing from ``store``; return how many were added.

    With ``extension``, the published rows are copied first, only the new
    learners run, and each of their rows is checked before it is stored.
    """
    if extension is not None:
        store.append(extension.published_rows())  # present ones are kept
        grid = dataclasses.replace(
            grid,
            learners={n: grid.learners[n] for n in extension.new_learners},
        )
    done = store.completed_keys()
    fits = grid.fits()
    shard = check_shard(bench.shard)
    if shard is not None:
        fits = shard_fits(fits, *shard)
    if extension is not None:
        extension.check_covers(fit.key for fit in fits)
    total = len(fits)
    fits = [fit for fit in fits if fit.key not in done]
    counts = {"done": total - len(fits), "computed": 0}
    if progress is not None:
        progress(counts["done"], total)
    warned = WarningTally()

    def on_row(row: dict[str, Any]) -> None:
        warned.add(row.pop(WARNING_COUNTS, {}), row["learner"])
        if extension is not None:  # refused before it is stored
            extension.check_row(row)
        # One transaction per row: an interruption (Ctrl-C, SIGKILL) leaves
        # every finished fit committed and nothing half-written.
        counts["computed"] += store.append([row])
        counts["done"] += 1
        if progress is not None:
            progress(counts["done"], total)

    spec = make_spec(grid, entropy)
    identity, before = store.identity(), len(store)
    try:
        adopt_strays()  # what an interrupted run's fits leave ends with it
        execute(spec, fits, bench.n_jobs, bench.verbose, on_row)
    finally:  # children of this process (n_jobs=1, threading) end with the run
        close_children(spec.token)
        # The warnings of the fits, one line per learner and warning class
        # (they are counted in the rows, never printed by the fits).
        for line in warned.lines():
            print(line, file=sys.stderr)
    # A learner runs with this process's permissions: it cannot reach the
    # store's descriptors, but it can remove or replace the file by its path.
    # A run whose rows are no longer where it wrote them must not look done.
    store.check_intact(identity, before + counts["computed"])
    return counts["computed"]


def _ordered_frame(frame: pd.DataFrame, grid: Grid) -> pd.DataFrame:
    """The grid's rows, in grid order, with the columns in schema order."""
    position = {key: index for index, key in enumerate(grid.keys())}
    columns = {name: frame[name].tolist() for name in KEY_COLUMNS}
    columns["density"] = [None if math.isnan(d) else d for d in columns["density"]]
    keys = zip(*(columns[name] for name in KEY_COLUMNS), strict=True)
    order = [position.get(tuple(key)) for key in keys]
    keep = [index is not None for index in order]
    frame = frame.loc[keep].assign(
        _order=[index for index in order if index is not None]
    )
    return frame.sort_values("_order")[result_columns(grid.metrics)].reset_index(
        drop=True
    )
