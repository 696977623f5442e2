"""The work a harness worker is given: cells, fits and the study's spec.

A *cell* is one generator on one (graph, n_features, density, repeat): one graph,
one matrix, one latent Gaussian data set of the largest sample size. A *fit* is one
learner on one data set of a cell: a data model and a sample size. Each fit is one
task, so that the scheduler can balance the work finely. The plan (``plan/``) makes
them; a worker runs them (``_worker.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...metrics._protocol import Model
from ._related import row_generator

__all__ = ["Cell", "Fit", "Spec"]


@dataclass(frozen=True)
class Cell:
    """One generator on one (graph, n_features, density, repeat), of one model.

    ``density`` is the row's (a fixed-structure graph's realised density);
    ``model`` the name of a related model on the model axis (``plan/_models.py``),
    or ``""`` for the single model.
    """

    generator: str
    graph: str
    n_features: int
    density: float | None
    repeat: int
    model: str = ""


@dataclass(frozen=True)
class Fit:
    """One learner on one data set (data model, sample size) of a cell."""

    cell: Cell
    data_model: str
    n_samples: int
    learner: str

    @property
    def key(self) -> tuple[str, str, str, str, float | None, int, int, int]:
        """The row key, in the order of ``KEY_COLUMNS``."""
        c = self.cell
        return (
            row_generator(c.model, c.generator),
            c.graph,
            self.data_model,
            self.learner,
            c.density,
            c.n_features,
            self.n_samples,
            c.repeat,
        )


@dataclass(frozen=True)
class Spec:
    """Everything a worker needs besides the fit's coordinates.

    To workers started afresh the learners travel as pickled bytes
    (``plan/_tasks.py``'s ``ship_learner``), loaded by each fit: a learner that
    cannot be loaded in a worker (its package imports only after some set-up done
    in the user's session) fails its own fits, instead of the whole spec failing
    to reach the worker and taking the run down. Workers that share the parent's
    memory get the learners themselves.
    """

    token: str  # identifies the study run: a worker's child serves one spec
    entropy: int
    generators: Mapping[str, Any]
    data_models: Mapping[str, Any]
    learners: Mapping[str, Any]  # bytes for workers started afresh
    versions: Mapping[str, str]  # per learner: the JSON of its packages' versions
    modules: Mapping[str, tuple[str, ...]]  # per learner: the modules it needs
    graphs: Mapping[str, Any]  # plan/_graphs.py's GraphEntry, by name
    model: Model
    metrics: tuple[str, ...]
    largest_n: Mapping[int, int]  # per n_features: the largest sample size
    timeout: float | None
    memory_limit: int | None
    isolate: bool
    # ("module:function", plain arguments): what the learners ask each worker's
    # template to set up once (:func:`process_setups`).
    setups: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    # The model axis, by name (a study without one has only the single model).
    models: Mapping[str, Any] = field(default_factory=dict)  # plan/_models.py's
