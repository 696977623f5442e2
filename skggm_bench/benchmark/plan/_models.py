"""The model axis of a study: one graph per data set, or related models.

``Benchmark(models=...)`` takes named model specs; this module turns them into
``{name: ModelEntry}``; what a worker does with the cells of a related model
(draw, cut a data set of ``n`` rows per group, score) is ``run/_related.py``.
The kinds are those of the data pipeline
(:data:`~skggm_bench.datasets._pipeline.RELATED_KINDS`); this module knows
nothing of their generators beyond their names and parameters.

* ``"single"`` (the default): one graph and one matrix per data set, the rows of
  every study without a model axis. Its rows keep the generator's name.
* ``"joint"``: K classes (``n_classes``, ``shared_fraction``, ``similarity``),
* ``"time_varying"``: T time points (``n_times``, ``change_rate``,
  ``smoothness``, ``window``), both fitted with ``fit(X, y)``, ``y`` the class or
  time of each row, ``n_samples`` rows per group;
* ``"latent"``: hidden variables (``n_latent``, ``n_attached``), fitted with
  ``fit(X)`` on the observed columns.

The rows of a related model name their generator ``"<model>/<generator>"``, so
that the key of the result table (and every reader of it) is unchanged.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...datasets._pipeline import RELATED_KINDS
from ..run._related import CHANGES

__all__ = [
    "SINGLE",
    "ModelAxisError",
    "ModelEntry",
    "model_axis",
]

#: The kind of the default model: one graph per data set.
SINGLE = "single"
_KINDS = (SINGLE, *RELATED_KINDS)


class ModelAxisError(ValueError):
    """A bad ``models``; ``entry`` names the model at fault."""

    def __init__(self, message: str, entry: str | None = None) -> None:
        super().__init__(message)
        self.parameter = "models"
        self.entry = entry


@dataclass(frozen=True)
class ModelEntry:
    """One model of the axis: a kind and its parameters (plain numbers)."""

    kind: str = SINGLE
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_single(self) -> bool:
        return self.kind == SINGLE

    @property
    def labelled(self) -> bool:
        """Whether its learners are fitted with ``fit(X, y)``."""
        return self.kind in CHANGES

    def describe(self) -> dict[str, Any]:
        """The spec as a dict (what the fingerprint describes)."""
        return {"kind": self.kind, **self.params}

    def generator(self, generator: Any) -> Any:
        """The related-model generator around ``generator`` (unfitted)."""
        return RELATED_KINDS[self.kind](generator, **self.params)


def _plain_number(value: Any) -> Any:
    """A number as a Python int or float: the fingerprint is JSON (numpy's
    integers are not); anything else as it is, for the generator to judge."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return value
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def _entry(name: str, spec: Any) -> ModelEntry:
    if isinstance(spec, str):
        spec = {"kind": spec}
    if not isinstance(spec, Mapping):
        raise ModelAxisError(
            f"models[{name!r}] must be a kind ({', '.join(map(repr, _KINDS))}) or "
            f"a dict with a 'kind' and its parameters, got {spec!r}",
            name,
        )
    params = dict(spec)
    kind = params.pop("kind", None)
    if kind not in _KINDS:
        raise ModelAxisError(
            f"models[{name!r}] has kind={kind!r}; choose one of "
            f"{', '.join(map(repr, _KINDS))}",
            name,
        )
    if kind == SINGLE:
        if params:
            raise ModelAxisError(
                f"models[{name!r}]: the single model takes no parameters, got "
                f"{sorted(params)}",
                name,
            )
        return ModelEntry()
    if "generator" in params or "random_state" in params:
        raise ModelAxisError(
            f"models[{name!r}]: 'generator' and 'random_state' are the study's "
            "(its generators axis and its seed), not a model's",
            name,
        )
    params = {key: _plain_number(value) for key, value in params.items()}
    try:
        RELATED_KINDS[kind](None, **params)._validate_params()
    except (TypeError, ValueError) as exc:
        raise ModelAxisError(f"models[{name!r}]: {exc}", name) from None
    return ModelEntry(kind, params)


def model_axis(models: Any) -> dict[str, ModelEntry]:
    """``{name: ModelEntry}`` from ``Benchmark``'s ``models``.

    ``None`` is the single model alone; a dict maps names to a kind
    (``"joint"``) or a dict of a ``kind`` and its parameters; a list of kinds
    names each model by its kind.

    Examples
    --------
    >>> axis = model_axis({"single": "single",
    ...                    "joint": {"kind": "joint", "n_classes": 2}})
    >>> axis["joint"].describe()
    {'kind': 'joint', 'n_classes': 2}
    """
    if models is None:
        return {SINGLE: ModelEntry()}
    if isinstance(models, str):
        models = [models]
    if isinstance(models, Sequence):
        names = [str(kind) for kind in models]
        if len(set(names)) != len(names):
            raise ModelAxisError(f"models lists a kind twice: {names}")
        models = dict(zip(names, models, strict=True))
    if not isinstance(models, Mapping):
        raise ModelAxisError(
            "models must be a dict mapping names to model specs (e.g. {'single': "
            "'single', 'joint': {'kind': 'joint', 'n_classes': 3}}), got "
            f"{type(models).__name__}"
        )
    if not models:
        raise ModelAxisError("models is empty: give at least one, e.g. ['single']")
    axis = {}
    for name, spec in models.items():
        if not isinstance(name, str) or not name or "/" in name:
            raise ModelAxisError(
                f"models keys must be non-empty strings without '/', got {name!r}"
            )
        axis[name] = _entry(name, spec)
    singles = [name for name, entry in axis.items() if entry.is_single]
    if len(singles) > 1:
        raise ModelAxisError(
            f"models {singles} are all the single model: it may appear once"
        )
    return axis
