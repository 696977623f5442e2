"""Joining stores: merging the stores of one study (shards, several machines,
learners added later) and extending a published study with new learners.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ._reading import FIXED_COLUMNS, StoreError, key_text, quote_value
from ._schema import KEY_COLUMNS, LATER_COLUMNS
from ._store import ResultStore, StudyMismatchError, raw_rows


class MergeError(ValueError):
    """Stores that cannot be merged; the message names the first difference.

    Examples
    --------
    >>> issubclass(MergeError, ValueError)
    True
    """

    # Shown as results.store.MergeError, where users import it.
    __module__ = "skggm_bench.benchmark.results.store"


# Columns a re-run of the same fit need not reproduce: a time measured on another
# machine, and the package versions of the process that ran it.
_MEASURED = ("fit_time", "versions")


def _merged_study(studies: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """One study for all: equal data sides and judging, the union of learners."""
    from ._provenance import split_study, study_conflict

    first_path, merged = studies[0]
    owner = dict.fromkeys(merged.get("learners", {}), first_path)
    for path, study in studies[1:]:
        conflict = study_conflict(merged, study)
        if conflict is not None and conflict.kind == "data":
            raise MergeError(
                f"{first_path!r} and {path!r} hold studies with different data "
                f"sides (their data sets are not the same): {conflict.difference}"
            )
        if conflict is not None and conflict.kind == "judging":
            raise MergeError(
                f"{first_path!r} and {path!r} judge their learners differently, "
                f"so one leaderboard cannot rank them: {conflict.difference}"
            )
        if conflict is not None:
            raise MergeError(
                f"learner {conflict.learner!r} is not the same estimator in "
                f"{owner[conflict.learner]!r} and {path!r}: {conflict.difference}; "
                "rename one of them"
            )
        learners = dict(merged.get("learners", {}))
        for name, description in study.get("learners", {}).items():
            learners.setdefault(name, description)
            owner.setdefault(name, path)
        data, judged = split_study(merged)
        merged = {**data, **judged, "learners": learners}
    return merged


class StudyExtension:
    """A published study, and the learners a new study adds to it on its data.

    Made by :func:`extend_study`; :meth:`Benchmark.run(against=...)
    <skggm_bench.benchmark.Benchmark.run>` uses it to run only the new learners and
    to check that each of their rows was computed on the published data set.

    Attributes
    ----------
    study : dict
        The extended study: the published data side and judging, the published
        learners, then the new ones.
    published : str
        The path of the published store.
    new_learners : list of str
        The learners of the requested study that the published one lacks.

    Examples
    --------
    >>> columns = ["generator", "graph", "data_model", "learner", "density",
    ...            "n_features", "n_samples", "repeat", "seed", "data_hash"]
    >>> published = [("dd", "er", "gaussian", "glasso", 0.1, 10, 50, 0, 7, "ab12")]
    >>> extension = StudyExtension({}, "pub.sqlite", ["lw"], columns, published)
    >>> new = dict(zip(columns, ("dd", "er", "gaussian", "lw", 0.1, 10, 50, 0, 7,
    ...                          "ab12")))
    >>> extension.check_row(new)  # the published data set: accepted
    >>> extension.check_row({**new, "data_hash": "ff00"})
    Traceback (most recent call last):
    ...
    skggm_bench.benchmark.results.store.StudyMismatchError: the row generator='dd', \
graph='er', data_model='gaussian', learner='lw', density=0.1, n_features=10, \
n_samples=50, repeat=0 was not computed on the published data: its data_hash is \
'ff00', and the published row generator='dd', graph='er', data_model='gaussian', \
learner='glasso', density=0.1, n_features=10, n_samples=50, repeat=0 in \
'pub.sqlite' has 'ab12'; the data sets differ (another version of a generator, \
data model or numpy draws other data)
    """

    def __init__(
        self,
        study: dict[str, Any],
        published: str,
        new_learners: list[str],
        columns: list[str],
        rows: list[tuple[Any, ...]],
    ) -> None:
        self.study = study
        self.published = published
        self.new_learners = new_learners
        self._columns = columns
        self._rows = rows
        learner = KEY_COLUMNS.index("learner")
        key_at = [columns.index(name) for name in KEY_COLUMNS]
        seed, data_hash = columns.index("seed"), columns.index("data_hash")
        # One entry per published data set: the key of its first row (to name
        # it), its seed and its data hash.
        self._data: dict[tuple[Any, ...], tuple[tuple[Any, ...], Any, Any]] = {}
        for row in rows:
            key = tuple(row[i] for i in key_at)
            self._data.setdefault(
                key[:learner] + key[learner + 1 :], (key, row[seed], row[data_hash])
            )

    def published_rows(self) -> Iterable[dict[str, Any]]:
        """The published store's rows, to copy into the extended store."""
        return (dict(zip(self._columns, row, strict=True)) for row in self._rows)

    def check_covers(self, keys: Iterable[tuple[Any, ...]]) -> None:
        """Refuse keys whose data set the published store does not hold.

        Raises
        ------
        StudyMismatchError
            Naming the first such key: nothing proves what its data should be.
        """
        learner = KEY_COLUMNS.index("learner")
        for key in keys:
            if key[:learner] + key[learner + 1 :] not in self._data:
                raise StudyMismatchError(
                    f"the published store {self.published!r} holds no row of the "
                    f"data set of {key_text(key)}, so its data cannot be checked: "
                    "run --against a complete study (merge its shards first)"
                )

    def check_row(self, row: Mapping[str, Any]) -> None:
        """Refuse a new row whose data set is not the published one.

        Raises
        ------
        StudyMismatchError
            Naming the row, the published row of its data set, and the first of
            ``seed`` and ``data_hash`` that differs.
        """
        key = tuple(row[name] for name in KEY_COLUMNS)
        learner = KEY_COLUMNS.index("learner")
        found = self._data.get(key[:learner] + key[learner + 1 :])
        if found is None:
            self.check_covers([key])
            return
        published_key, seed, data_hash = found
        # A data set that could not be drawn has no hash: nothing to compare.
        pairs = [("seed", seed, row.get("seed"))]
        if data_hash and row.get("data_hash"):
            pairs.append(("data_hash", data_hash, row.get("data_hash")))
        for name, published, new in pairs:
            if published != new:
                raise StudyMismatchError(
                    f"the row {key_text(key)} was not computed on the published "
                    f"data: its {name} is {quote_value(new)}, and the published row "
                    f"{key_text(published_key)} in {self.published!r} has "
                    f"{quote_value(published)}; the data sets differ (another version "
                    "of a generator, data model or numpy draws other data)"
                )


def extend_study(
    published: str | os.PathLike[str] | ResultStore, study: Mapping[str, Any]
) -> StudyExtension:
    """Check that ``study`` adds learners to a published study, on its very data.

    The requested study's data side (generators, graphs, data models, densities,
    sizes, seeds, repeats, seeding scheme, model) and its judging (metrics,
    timeout, memory limit) must equal the published study's, and a learner of
    both must be the same estimator. Its other learners are the new ones; the
    rows they produce are then checked one by one against the published rows of
    the same data set (:meth:`StudyExtension.check_row`).

    Parameters
    ----------
    published : str, os.PathLike or ResultStore
        The published study's store (read, never changed).
    study : mapping
        The requested study's fingerprint (what ``Benchmark.run`` records).

    Returns
    -------
    StudyExtension

    Raises
    ------
    StudyMismatchError
        Naming the first difference of the data sides, the judging or a shared
        learner; or if the published store records no study.
    StoreError
        If ``published`` is not a readable results store.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sklearn.covariance import GraphicalLasso, LedoitWolf
    >>> from skggm_bench.benchmark import Benchmark
    >>> from skggm_bench.generators import DiagonalDominance
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "published.sqlite"
    >>> _ = Benchmark({"dd": DiagonalDominance()}, {"lw": LedoitWolf()},
    ...               n_features=6, metrics=("f1",), random_state=0,
    ...               store=path).run()
    >>> study = ResultStore(path, read_only=True).study()
    >>> extend_study(path, study).new_learners
    []
    >>> extend_study(path, {**study, "n_repeats": 2})
    Traceback (most recent call last):
    ...
    skggm_bench.benchmark.results.store.StudyMismatchError: the study does not \
draw the data of the published store '...': n_repeats: 1 against 2 (published \
against requested)
    """
    from ._provenance import split_study, study_conflict

    store = (
        published
        if isinstance(published, ResultStore)
        else ResultStore(published, read_only=True)
    )
    try:
        stored = store.study()
        if stored is None:
            raise StudyMismatchError(
                f"{store.path!r} holds no study description (it was not written by "
                "a Benchmark run), so nothing proves what its rows were computed on"
            )
        columns, rows = raw_rows(store)
    finally:
        if store is not published:
            store.close()
    wanted = json.loads(json.dumps(dict(study), sort_keys=True))
    conflict = study_conflict(stored, wanted)
    if conflict is not None and conflict.kind == "data":
        raise StudyMismatchError(
            f"the study does not draw the data of the published store "
            f"{store.path!r}: {conflict.difference} (published against requested)"
        )
    if conflict is not None and conflict.kind == "judging":
        raise StudyMismatchError(
            f"the study judges its learners otherwise than the published store "
            f"{store.path!r}, so one leaderboard cannot rank them: "
            f"{conflict.difference} (published against requested)"
        )
    if conflict is not None:
        raise StudyMismatchError(
            f"learner {conflict.learner!r} is not the same estimator as in the "
            f"published store {store.path!r}: {conflict.difference} (published "
            "against requested); rename it to add it as a new learner"
        )
    data, judged = split_study(stored)
    learners = dict(judged.get("learners", {}))
    new = [name for name in wanted.get("learners", {}) if name not in learners]
    learners.update({name: wanted["learners"][name] for name in new})
    return StudyExtension(
        {**data, **judged, "learners": learners}, store.path, new, columns, rows
    )


def merge_stores(
    sources: Iterable[str | os.PathLike[str] | ResultStore], out: str | os.PathLike[str]
) -> int:
    """Merge results stores into a new one, proving that their data are the same.

    Two kinds of stores merge:

    * **shards of one study** (``Benchmark(..., shard=(i, k))``, ``skggm-bench run
      --shard I/K``): the merged store equals the store of one uninterrupted run,
      row for row;
    * **studies with the same data side** -- generators, graphs, data models, grid,
      seed entropy, seeding scheme and model -- but different learners (e.g. two
      groups' learners on the very same data sets): the merged store holds every
      learner, and one leaderboard ranks them all.

    The stores' studies must also judge their learners alike (metrics, timeout,
    memory limit), and a learner name present in two studies must be the same
    estimator. Rows are checked, not trusted: a row (key) present in two stores
    must have the same values (all but ``fit_time`` and ``versions``, which a
    re-run on another machine does not reproduce; the first store's copy is
    kept), and every row of one data set (same key but the learner) must carry
    the same ``seed`` and ``data_hash``: a hash of the data the learner was given
    and of the true matrix.

    Parameters
    ----------
    sources : iterable of str, os.PathLike or ResultStore
        The stores to merge (read, never changed), at least one.
    out : str or os.PathLike
        The merged store; it must not exist yet.

    Returns
    -------
    int
        The number of rows of the merged store.

    Raises
    ------
    MergeError
        Naming the first difference: between two data sides, two judging
        conditions, two estimators of one name, two copies of a row, or two
        data hashes of one data set. Nothing is written then.
    StoreError
        If a source is not a results store, or ``out`` exists.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sklearn.covariance import GraphicalLasso, LedoitWolf
    >>> from skggm_bench.benchmark import Benchmark
    >>> from skggm_bench.generators import DiagonalDominance
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> for i in (1, 2):
    ...     _ = Benchmark({"dd": DiagonalDominance()},
    ...                   {"glasso": GraphicalLasso(alpha=0.1), "lw": LedoitWolf()},
    ...                   n_features=6, n_repeats=4, metrics=("f1",),
    ...                   random_state=0, shard=(i, 2),
    ...                   store=tmp / f"part{i}.sqlite").run()
    >>> merge_stores([tmp / "part1.sqlite", tmp / "part2.sqlite"],
    ...              tmp / "all.sqlite")
    8
    """
    sources = list(sources)
    if not sources:
        raise ValueError("give at least one store to merge")
    out_path = os.fspath(out)
    if Path(out_path).exists():
        raise StoreError(
            f"the merged store {out_path!r} exists already; give a new path"
        )
    stores = [
        s if isinstance(s, ResultStore) else ResultStore(s, read_only=True)
        for s in sources
    ]
    try:
        studies = []
        for store in stores:
            study = store.study()
            if study is None:
                raise MergeError(
                    f"{store.path!r} holds no study description (it was not "
                    "written by a Benchmark run), so nothing proves what its "
                    "rows were computed on"
                )
            studies.append((store.path, study))
        study = _merged_study(studies)
        rows, columns = _merged_rows(stores)
    finally:
        for store, source in zip(stores, sources, strict=True):
            if store is not source:
                store.close()
    if out_path == ":memory:":
        raise ValueError("out must be a file path: an in-memory store is lost")
    # Written under a temporary name and renamed when complete: a merge that
    # fails half-way leaves no store that looks finished.
    partial = Path(out_path).with_name(Path(out_path).name + ".partial")
    partial.unlink(missing_ok=True)
    with ResultStore(partial) as merged:
        merged.ensure_study(study)
        merged.append(dict(zip(columns, row, strict=True)) for row in rows)
        count = len(merged)
    os.replace(partial, out_path)
    return count


def _merged_rows(stores: list[ResultStore]) -> tuple[list[tuple[Any, ...]], list[str]]:
    """Every distinct row once, in the stores' order; conflicts refused."""
    columns: list[str] = list(FIXED_COLUMNS)
    tables = []
    for store in stores:
        names, rows = raw_rows(store)
        columns += [name for name in names if name not in columns]
        tables.append((store.path, names, rows))
    key_at = [columns.index(name) for name in KEY_COLUMNS]
    compared = [i for i, name in enumerate(columns) if name not in _MEASURED]
    kept: dict[tuple[Any, ...], tuple[str, tuple[Any, ...]]] = {}
    for path, names, rows in tables:
        position = [names.index(c) if c in names else None for c in columns]
        for raw in rows:
            row = tuple(None if i is None else raw[i] for i in position)
            key = tuple(row[i] for i in key_at)
            if key not in kept:
                kept[key] = (path, row)
                continue
            first_path, first = kept[key]
            for i in compared:
                # A later column is unknown (NULL) in the rows of older stores.
                unknown = columns[i] in LATER_COLUMNS and None in (first[i], row[i])
                if first[i] != row[i] and not unknown:
                    raise MergeError(
                        f"the row {key_text(key)} is in {first_path!r} and "
                        f"{path!r} with different values: {columns[i]} is "
                        f"{quote_value(first[i])} against {quote_value(row[i])}"
                    )
    _check_data_hashes(kept, columns)
    return [row for _, row in kept.values()], columns


def _check_data_hashes(
    kept: dict[tuple[Any, ...], tuple[str, tuple[Any, ...]]], columns: list[Any]
) -> None:
    """Every row of one data set (all learners) has the same seed and data hash."""
    learner = KEY_COLUMNS.index("learner")
    seed, data_hash = columns.index("seed"), columns.index("data_hash")
    seen: dict[tuple[Any, ...], tuple[str, tuple[Any, ...], tuple[Any, ...]]] = {}
    for key, (path, row) in kept.items():
        data_key = key[:learner] + key[learner + 1 :]
        if not row[data_hash]:  # the data set could not be drawn: no data to hash
            continue
        if data_key not in seen:
            seen[data_key] = (path, key, row)
            continue
        first_path, first_key, first = seen[data_key]
        for i in (seed, data_hash):
            if first[i] != row[i]:
                raise MergeError(
                    f"the rows {key_text(first_key)} (in {first_path!r}) and "
                    f"{key_text(key)} (in {path!r}) should share one data set, but "
                    f"their {columns[i]} is {quote_value(first[i])} against "
                    f"{quote_value(row[i])}: the "
                    "data sets differ"
                )
