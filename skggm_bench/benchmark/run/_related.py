"""What a worker does with a cell of a related model (``plan/_models.py``).

Draw it through the data pipeline (``datasets._pipeline``), cut a data set of
``n`` rows per group, and score a fitted learner through the metric registry:
what ``run/_worker.py`` does with a single model's cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ...datasets._pipeline import draw_group_rows, draw_related_model
from ...metrics import (
    GroundTruth,
    LearnerScores,
    score_group_learner,
    score_latent_learner,
)
from ...metrics._related import Changes

__all__ = ["CHANGES", "RelatedCell", "draw_related_cell", "row_generator"]

#: Which groups the change metrics compare, per kind of labelled model: every pair
#: of classes, or consecutive time points.
CHANGES: dict[str, Changes] = {
    "joint": "pairs",
    "time_varying": "consecutive",
}


def row_generator(model: str, generator: str) -> str:
    """The ``generator`` of a row: the generator's name, prefixed by the name of
    its related model (``"joint/dd"``); ``model`` is ``""`` for the single model."""
    return f"{model}/{generator}" if model else generator


@dataclass
class RelatedCell:
    """A drawn cell of a related model, as plain arrays (a worker keeps it).

    ``rows`` holds the Gaussian rows of each group, of the largest sample size;
    the data set of ``n`` rows takes the first ``n`` of each group.
    """

    kind: str
    adjacency: np.ndarray  # (K, p, p)
    precision: np.ndarray  # (K, p, p), of the observed variables
    covariance: np.ndarray
    rows: list[np.ndarray]
    signal: dict[str, int | float]
    sparse: np.ndarray | None = None
    low_rank: np.ndarray | None = None

    def data(self, n_samples: int) -> tuple[np.ndarray, np.ndarray | None]:
        """``X`` (the groups' first ``n_samples`` rows, in blocks) and ``y``."""
        X = np.concatenate([rows[:n_samples] for rows in self.rows])
        if self.kind not in CHANGES:
            return X, None
        return X, np.repeat(np.arange(len(self.rows)), n_samples)

    def score(
        self,
        estimator: Any,
        metrics: Sequence[str],
        X: np.ndarray,
        y: np.ndarray | None,
    ) -> LearnerScores:
        """Every metric of the fitted ``estimator`` against this cell's truth."""
        truths = [
            GroundTruth(a, "concentration", c, k)
            for a, c, k in zip(
                self.adjacency, self.covariance, self.precision, strict=True
            )
        ]
        if y is None:
            # A cell without groups is a latent one, which has both parts.
            sparse, low_rank = (
                cast(np.ndarray, self.sparse),
                cast(np.ndarray, self.low_rank),
            )
            return score_latent_learner(
                estimator, truths[0], sparse, low_rank, metrics, X=X
            )
        groups = [X[y == k] for k in range(len(truths))]
        return score_group_learner(
            estimator, truths, metrics, changes=CHANGES[self.kind], X=groups
        )


def _plain(value: Any) -> int | float:
    return int(value) if isinstance(value, (int, np.integer)) else float(value)


def draw_related_cell(
    entry: Any,
    adjacency: np.ndarray,
    generator: Any,
    largest_n: int,
    seed: int,
) -> RelatedCell:
    """Draw a cell of a related model: its truth, and rows of the largest size.

    ``entry`` is the model's entry on the axis (``plan/_models.py``): its
    ``kind`` and ``params``.

    The draws are those of :func:`~skggm_bench.datasets.make_joint_ggm` (and of
    the time-varying and latent functions) with ``random_state=seed``.
    """
    truth = draw_related_model(
        adjacency, entry.kind, generator, dict(entry.params), seed
    )
    rows = draw_group_rows(truth, [largest_n] * len(truth.factors), seed)
    signal = {name: _plain(value) for name, value in truth.signal().items()}
    return RelatedCell(
        entry.kind,
        np.asarray(truth.adjacency, dtype=bool),
        np.asarray(truth.precision, dtype=np.float64),
        np.asarray(truth.covariance, dtype=np.float64),
        [np.asarray(r, dtype=np.float64) for r in rows],
        signal,
        truth.sparse,
        truth.low_rank,
    )
