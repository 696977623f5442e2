"""Seeds of a study: one SeedSequence, children addressed by the grid's values.

One :class:`numpy.random.SeedSequence` built from the study's entropy is the only source
of randomness. Each cell (graph, n_features, density, repeat) gets its own child,
addressed by a spawn key made of the cell's *values* (not positions: the graph by its
display name), whose first 63 bits are the row's ``seed``. From that seed the data
pipeline of :mod:`skggm_bench.datasets` derives the graph, each generator's matrix, the
noise and the data model's randomness (so ``make_ggm(..., random_state=seed)``
reproduces a row's data), and :func:`learner_seed` the seed of each learner on it, from
which the ``random_state`` parameters it leaves to ``None`` are drawn
(``seed_estimator`` in ``_worker.py``; the derivation is written out in docs/harness.md,
"Seeding"). A row therefore depends on nothing but the study entropy and
its own coordinates: not on ``n_jobs``, the backend, the order in which tasks run, or
which other values are in the grid.
"""

from __future__ import annotations

import hashlib
import numbers
from typing import Any, cast

import numpy as np

__all__ = [
    "SEEDING_SCHEME",
    "cell_seed",
    "check_study_random_state",
    "fresh_entropy",
    "learner_seed",
]

# Bump when the seed derivation or the data pipeline changes: a store written by an
# older scheme then refuses to resume instead of mixing incomparable rows.
SEEDING_SCHEME = "cells-v3"


def _name_key(name: str) -> int:
    """A stable 64-bit integer for a name (Python's ``hash`` is salted per process)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big")


def _density_key(density: float | None) -> int:
    # The exact bit pattern of the float, shifted by one so that None (0) differs
    # from density 0.0; densities are normalised so -0.0 never occurs.
    if density is None:
        return 0
    return int(np.float64(density).view(np.uint64)) + 1


def check_study_random_state(random_state: Any) -> int | None:
    """Entropy of the study's SeedSequence, or None for fresh entropy."""
    if random_state is None:
        return None
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError(f"random_state must be an int, got {random_state!r}")
    if isinstance(random_state, numbers.Integral):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}")
        return int(random_state)
    if isinstance(random_state, np.random.SeedSequence):
        return int(random_state.generate_state(2, dtype=np.uint64)[0])
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int64).max))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int64).max))
    raise TypeError(
        "random_state must be None, a non-negative int, a numpy SeedSequence, "
        f"RandomState or Generator, got {random_state!r}"
    )


def fresh_entropy() -> int:
    """New entropy from the operating system, for ``random_state=None``."""
    # Drawn from the operating system when not given: an int, never a sequence.
    return int(cast(int, np.random.SeedSequence().entropy))


def cell_seed(
    entropy: int, graph: str, n_features: int, density: float | None, repeat: int
) -> int:
    """The 63-bit seed of one cell: its graph, matrices, noise and data models.

    ``density`` is the one the graph is drawn with (None for fixed structures).
    """
    key = (n_features, repeat, _density_key(density), _name_key(graph))
    sequence = np.random.SeedSequence(entropy, spawn_key=key)
    # 63 bits: fits SQLite's signed INTEGER and pandas' int64.
    return int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def learner_seed(
    seed: int, generator: str, data_model: str, n_samples: int, learner: str
) -> int:
    """A 32-bit seed for one learner on one data set of a cell."""
    key = (
        _name_key("learner"),
        _name_key(generator),
        _name_key(data_model),
        n_samples,
        _name_key(learner),
    )
    return int(np.random.SeedSequence(seed, spawn_key=key).generate_state(1)[0])
