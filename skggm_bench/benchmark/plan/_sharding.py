"""Splitting a study into K shards: which fits the I-th of K jobs runs.

A shard is a pure function of the study's full list of fits (never of what a store
already holds), so that K jobs of a batch scheduler's array -- each with its own
store, each resumable -- cover every fit of the study exactly once, and their
stores merge (:func:`~skggm_bench.benchmark.results.store.merge_stores`) into the
store of
one uninterrupted run.

Balance
    The fits of one cell (one graph, matrix and noise draw) go to one shard, so a
    cell is drawn by one job only. Cells are dealt out largest expected cost first,
    each to the shard with the least work so far (longest-processing-time-first
    partitioning, within 4/3 of the best split). The expected cost of a fit is
    the size of its data set, ``n_samples * n_features**2``: what the scheduler
    of ``_execution.py`` also starts from before it has measured any learner.
    With fewer cells than shards, single fits are dealt out instead.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from ..run._fits import Fit

__all__ = ["check_shard", "shard_fits"]


def check_shard(shard: object) -> tuple[int, int] | None:
    """``shard`` as ``(index, count)`` with ``1 <= index <= count``, or None.

    Raises
    ------
    ValueError
        Naming what is wrong with ``shard``.
    """
    if shard is None:
        return None
    if (
        not isinstance(shard, (tuple, list))
        or len(shard) != 2
        or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in shard
        )
    ):
        raise ValueError(
            f"shard must be None or a pair (index, count) of ints, e.g. (1, 4) for "
            f"the first of four parts, got {shard!r}"
        )
    index, count = int(shard[0]), int(shard[1])
    if count < 1 or not 1 <= index <= count:
        raise ValueError(
            f"shard=({index}, {count}): the index counts from 1 to the number of "
            "parts, e.g. (1, 4) ... (4, 4)"
        )
    return index, count


def _cost(fit: Fit) -> float:
    return float(fit.n_samples) * float(fit.cell.n_features) ** 2


def shard_fits(fits: Sequence[Fit], index: int, count: int) -> list[Fit]:
    """The fits of shard ``index`` (from 1) of ``count``, in their given order.

    Parameters
    ----------
    fits : sequence of Fit
        Every fit of the study (the same list in every job).
    index, count : int
        Which part, ``1 <= index <= count``.

    Returns
    -------
    list of Fit
        The shards of ``1 .. count`` partition ``fits``.
    """
    groups: dict[object, list[Fit]] = {}
    by_cell = len({fit.cell for fit in fits}) >= count
    for fit in fits:
        groups.setdefault(fit.cell if by_cell else fit, []).append(fit)
    # Largest first; ties broken by the key's text, so every job deals alike.
    units = sorted(
        groups.values(),
        key=lambda group: (-sum(_cost(f) for f in group), repr(group[0].key)),
    )
    loads = [0.0] * count
    chosen: set[Fit] = set()
    for group in units:
        target = min(range(count), key=lambda k: (loads[k], k))
        loads[target] += sum(_cost(f) for f in group)
        if target == index - 1:
            chosen.update(group)
    return [fit for fit in fits if fit in chosen]
