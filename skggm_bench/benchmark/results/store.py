"""The results store: one SQLite file per study, written row by row, resumable.

A benchmark study produces one *result row* per fit, identified by its grid
coordinates (generator, graph, data model, learner, density, n_features,
n_samples, repeat). :class:`ResultStore` keeps these rows in an SQLite
database (the standard library's :mod:`sqlite3`, no server) so that

* rows are committed as soon as a task finishes: a crash or ``SIGKILL`` loses at most
  the tasks that were running;
* a re-run of the same study skips what is stored (:meth:`ResultStore.completed_keys`);
* a fit cannot be stored twice: the grid coordinates are a unique key and
  :meth:`ResultStore.append` ignores rows whose key is already present;
* the study's configuration is stored next to the rows
  (:meth:`ResultStore.ensure_study`), so a re-run with a different configuration
  fails with a clear error instead of mixing two studies in one file.

While a run writes, the database is in WAL mode (readers never block the writer,
e.g. a report built while a run is in progress) with ``synchronous=NORMAL``: every
committed row survives the death of the writing process; only an operating-system
crash or power loss can drop the last few commits. Closing the store returns the
file to rollback-journal mode, so that a reader opens it without creating any file.

``ResultStore(":memory:")`` gives the same behaviour without a file; the benchmark
harness uses it when no store is requested. ``ResultStore(path, read_only=True)``
(what ``skggm-bench leaderboard`` and ``report`` use) never creates or changes a
file, works in a read-only folder, and refuses a file that is not a store.

Schema
------
``results``: one column per fixed column of the result table (the harness's result
schema: key, cell and outcome columns, typed TEXT, INTEGER or REAL; ``graph`` is
the name of the row's graph on the study's graph axis; ``density`` is NULL for rows
drawn at their family's default density), and one REAL column per metric, added
the first time a row carries it. ``meta``: key/value TEXT pairs
(``schema_version``, ``study`` as JSON, ``created``).
"""

from ._export import EXPORT_FORMATS, export_frame, export_results, read_export
from ._merge import MergeError, StudyExtension, extend_study, merge_stores
from ._reading import StoreError
from ._store import ResultStore, StudyMismatchError

__all__ = [
    "EXPORT_FORMATS",
    "MergeError",
    "ResultStore",
    "StoreError",
    "StudyExtension",
    "StudyMismatchError",
    "export_frame",
    "export_results",
    "extend_study",
    "merge_stores",
    "read_export",
]
