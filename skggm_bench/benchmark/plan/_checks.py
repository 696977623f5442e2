"""The checks of a study's parameters, each raising a :class:`StudyError` that
names the parameter at fault (and the entry, for named generators, learners and
data models); the limits they enforce.

``Benchmark.validate`` runs them (through ``_grid.make_grid``), and so does
``Benchmark.dataset`` for the coordinates it is given. They check values only:
the grid they make, and the probe of its graphs, are ``_grid.py``'s.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import joblib
import numpy as np
from sklearn.base import clone

from ...metrics import get_metric
from ...utils._validation import is_boolean
from ..results._schema import MAX_NAME_LENGTH
from ..run._execution import backend_problem
from ..run._seeding import check_study_random_state
from ._graphs import GraphAxisError, GraphEntry, graph_axis
from ._models import ModelAxisError, ModelEntry, model_axis

#: The data model of a study that names none: the Gaussian rows as drawn.
DEFAULT_DATA_MODEL = "gaussian"
#: The most fits a study may have: listing more would take minutes and gigabytes
#: before the first fit (and running them, months).
MAX_FITS = 1_000_000
#: The longest ``timeout``, in seconds (about 11.6 days): waiting longer overflows
#: the operating system's wait calls.
MAX_TIMEOUT = 1_000_000
#: The largest ``|n_jobs|``: more workers than any one machine has.
MAX_N_JOBS = 4096
#: The most variables of a study's data sets: the generators and learners work on
#: (p, p) matrices, at O(p**3) cost; 10**4 is 800 MB a matrix.
MAX_N_FEATURES = 10_000
#: The most rows of a study's data sets (per class or time point of a related model).
MAX_N_SAMPLES = 10_000_000
#: The most values of one data set (rows x variables x classes or time points): 8 GB
#: of float64, drawn in every worker that fits on it.
MAX_DATA_VALUES = 10**9
#: The largest ``memory_limit``, in bytes (1 EiB): a cap above the address space
#: of every machine, which the operating system would refuse.
MAX_MEMORY_LIMIT = 2**60


class StudyError(ValueError, TypeError):
    """A study parameter is invalid; ``parameter`` says which.

    A ``ValueError`` and a ``TypeError`` (like scikit-learn's
    ``InvalidParameterError``), so that either ``except`` catches it.

    Attributes
    ----------
    parameter : str
        The ``Benchmark`` parameter at fault (e.g. ``"densities"``).
    entry : str or None
        For ``generators``, ``learners`` and ``data_models``: the name at fault.

    Examples
    --------
    >>> from sklearn.covariance import LedoitWolf
    >>> from skggm_bench.benchmark import Benchmark, StudyError
    >>> from skggm_bench.generators import DiagonalDominance
    >>> try:
    ...     Benchmark({"dd": DiagonalDominance()}, {"lw": LedoitWolf()},
    ...               densities=1.5).validate()
    ... except StudyError as error:
    ...     print(error.parameter, "|", error)
    densities | densities[0]=1.5 is above 1; a density is the fraction of node pairs \
that are edges, in [0, 1]
    """

    # Shown as skggm_bench.benchmark.StudyError, where users import it.
    __module__ = "skggm_bench.benchmark"

    def __init__(self, parameter: str, message: str, entry: str | None = None) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.entry = entry


def as_tuple(values: Any, name: str) -> tuple[Any, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(
        values, (Sequence, np.ndarray)
    ):
        values = (values,)
    entries: tuple[Any, ...] = tuple(values)
    if not entries:
        raise StudyError(name, f"{name} is empty: the grid needs at least one value")
    return entries


def check_unique(values: tuple[Any, ...], name: str) -> None:
    seen = set()
    for value in values:
        if value in seen:
            raise StudyError(
                name, f"{name} lists {value!r} twice; grid values must be unique"
            )
        seen.add(value)


def check_integers(values: Any, name: str, low: int, high: int) -> tuple[int, ...]:
    values = as_tuple(values, name)
    for index, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, numbers.Integral
        ):
            raise StudyError(name, f"{name}[{index}] must be an integer, got {value!r}")
        if value < low:
            raise StudyError(name, f"{name}[{index}] must be >= {low}, got {value}")
        if int(value) > high:
            raise StudyError(
                name, f"{name}[{index}]={value} is above the limit of {high:,}"
            )
    integers = tuple(int(value) for value in values)
    check_unique(integers, name)
    return integers


def check_data_model_params(data_models: dict[str, Any]) -> None:
    """Check each data model's parameters now, not in every fit's draw."""
    for key, model in data_models.items():
        check = getattr(model, "_validate_params", None)
        if check is None:
            continue
        try:
            check()
        except (TypeError, ValueError) as exc:
            raise StudyError(
                "data_models", f"data_models[{key!r}]: {exc}", key
            ) from None


def check_densities(values: Any) -> tuple[float | None, ...]:
    values = as_tuple(values, "densities")
    checked: list[float | None] = []
    for index, value in enumerate(values):
        if value is None:
            checked.append(None)
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise StudyError(
                "densities",
                f"densities[{index}] must be a number in [0, 1] (or None for the "
                f"family's default), got {value!r}",
            )
        value = float(value)
        if math.isnan(value):
            raise StudyError("densities", f"densities[{index}] is NaN")
        if not 0 <= value <= 1:
            where = "negative" if value < 0 else "above 1"
            raise StudyError(
                "densities",
                f"densities[{index}]={value} is {where}; a density is the fraction "
                "of node pairs that are edges, in [0, 1]",
            )
        checked.append(value + 0.0)  # -0.0 -> 0.0: one key per value
    densities = tuple(checked)
    check_unique(densities, "densities")
    return densities


def check_named(
    mapping: Any, name: str, methods: tuple[str, ...], example: str
) -> dict[str, Any]:
    if not isinstance(mapping, Mapping):
        raise StudyError(
            name,
            f"{name} must be a dict mapping names to objects (e.g. {example}), got "
            f"{type(mapping).__name__}",
        )
    if not mapping:
        raise StudyError(name, f"{name} is empty: give at least one, e.g. {example}")
    checked = {}
    for key, value in mapping.items():
        if not isinstance(key, str) or not key:
            raise StudyError(
                name, f"{name} keys must be non-empty strings, got {key!r}"
            )
        if len(key) > MAX_NAME_LENGTH:
            raise StudyError(
                name,
                f"{name} keys are names, at most {MAX_NAME_LENGTH} characters; "
                f"got one of {len(key)} ({key[:40]!r}...)",
            )
        if isinstance(value, type):
            value = _default_instance(value, f"{name}[{key!r}]", name, key)
        checked[key] = value
        missing = [m for m in methods if not callable(getattr(value, m, None))]
        if missing:
            raise StudyError(
                name,
                f"{name}[{key!r}] = {value!r} has no {' or '.join(missing)} method",
                key,
            )
        try:
            fresh = clone(value)
        except Exception as exc:
            raise StudyError(
                name,
                f"{name}[{key!r}] cannot be cloned like a scikit-learn estimator: "
                f"{exc}",
                key,
            ) from exc
        # Estimators that declare their parameters' constraints are checked now, not
        # at their first fit; those that do not (any sklearn-compatible estimator
        # may) are checked by their own fit.
        if _fit_uses_constraints(type(fresh)):
            try:
                fresh._validate_params()
            except (ValueError, TypeError) as exc:
                raise StudyError(name, f"{name}[{key!r}]: {exc}", key) from None
    return checked


def _default_instance(cls: type, where: str, name: str, key: str) -> Any:
    """``cls()``: a class given where an instance is needed, built with its defaults.

    Or a StudyError saying why it cannot be (parameters without a default, or
    what the constructor raised).
    """
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):  # a class without an inspectable signature
        required = []
    else:
        required = [
            p.name
            for p in signature.parameters.values()
            if p.default is inspect.Parameter.empty
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
    if required:
        raise StudyError(
            name,
            f"{where} is the class {cls.__name__}, which cannot be built with its "
            f"defaults: {', '.join(map(repr, required))} "
            f"{'has' if len(required) == 1 else 'have'} no default; pass an "
            f"instance, e.g. {cls.__name__}({required[0]}=...)",
            key,
        )
    try:
        return cls()
    except Exception as exc:
        raise StudyError(
            name,
            f"{where} is the class {cls.__name__}, and {cls.__name__}() failed "
            f"({type(exc).__name__}: {exc}); pass an instance with the parameters "
            "it needs",
            key,
        ) from None


def check_unseeded(mapping: dict[str, Any], name: str) -> dict[str, Any]:
    """Generators and data models are seeded per cell: their own seed would be
    silently replaced, so it is refused."""
    for key, value in mapping.items():
        seed = value.get_params(deep=False).get("random_state")
        if seed is not None:
            raise StudyError(
                name,
                f"{name}[{key!r}] has random_state={seed!r}, which the study would "
                "ignore: the harness seeds it per cell from the study's "
                "random_state; leave it None",
                key,
            )
    return mapping


def _package(cls: type) -> str:
    return cls.__module__.split(".")[0]


def _fit_uses_constraints(cls: type) -> bool:
    """Whether the ``fit`` of ``cls`` is the one its ``_parameter_constraints`` are for.

    A class may inherit constraints written for another ``fit``: regain's
    ``GraphicalLasso`` subclasses scikit-learn's, whose constraints allow only
    ``mode`` in {"lars", "cd"}, while regain's own ``fit`` (which never reads
    them) has ``mode="admm"``. The constraints are applied only when the class
    that declares them and the class whose ``fit`` runs come from the same
    package; otherwise the estimator's own ``fit`` is the judge.
    """
    declares = next(
        (c for c in cls.__mro__ if "_parameter_constraints" in c.__dict__), None
    )
    fits = next((c for c in cls.__mro__ if "fit" in c.__dict__), None)
    if declares is None or fits is None:
        return False
    return _package(declares) == _package(fits)


def check_metrics(metrics: Any) -> tuple[str, ...]:
    """Canonical names (the result columns) of the requested metrics."""
    names = []
    for metric in as_tuple(metrics, "metrics"):
        try:
            entry = get_metric(metric)
        except ValueError as exc:
            raise StudyError("metrics", str(exc)) from None
        if entry.needs == "fit":
            raise StudyError(
                "metrics",
                f"{entry.name} is recorded in every row already; it is not a metric "
                "to request",
            )
        names.append(entry.name)
    unique = tuple(names)
    check_unique(unique, "metrics")
    return unique


def check_memory_limit(limit: Any) -> int | None:
    if limit is None:
        return None
    if isinstance(limit, (bool, np.bool_)) or not isinstance(limit, numbers.Integral):
        raise StudyError(
            "memory_limit",
            f"memory_limit must be a number of bytes (an int) or None, got {limit!r}",
        )
    if limit < 2**20:
        raise StudyError(
            "memory_limit",
            f"memory_limit={limit} bytes is below 1 MiB; give it in bytes, e.g. "
            "2 * 2**30 for 2 GiB",
        )
    if int(limit) > MAX_MEMORY_LIMIT:
        raise StudyError(
            "memory_limit",
            f"memory_limit={limit} bytes is above 2**60 (1 EiB), more than any "
            "machine can address; leave memory_limit out (None) for no limit",
        )
    return int(limit)


def check_random_state(random_state: Any) -> None:
    """Check the study's seed without drawing from a generator it may be."""
    if isinstance(
        random_state,
        (np.random.SeedSequence, np.random.RandomState, np.random.Generator),
    ):
        return
    try:
        check_study_random_state(random_state)
    except (TypeError, ValueError) as exc:
        raise StudyError("random_state", str(exc)) from None


def check_execution(n_jobs: Any, backend: Any) -> None:
    """Check ``n_jobs`` and ``backend`` as :meth:`Benchmark.validate` does.

    The command line checks its ``--n-jobs`` and ``--backend`` with this before it
    opens a store.

    Raises
    ------
    StudyError
        With ``parameter`` ``"n_jobs"`` or ``"backend"``.

    Examples
    --------
    >>> check_execution(2, "")
    Traceback (most recent call last):
    ...
    skggm_bench.benchmark.StudyError: backend='' is empty; give a joblib \
backend name (e.g. 'loky') or None
    """
    if n_jobs is not None and (
        is_boolean(n_jobs) or not isinstance(n_jobs, numbers.Integral)
    ):
        raise StudyError("n_jobs", f"n_jobs must be an int or None, got {n_jobs!r}")
    if n_jobs == 0:
        raise StudyError(
            "n_jobs", "n_jobs == 0 has no meaning; use None, -1 or a positive int"
        )
    if n_jobs is not None and abs(int(n_jobs)) > MAX_N_JOBS:
        raise StudyError(
            "n_jobs",
            f"n_jobs={n_jobs} is more workers than any machine has; give at most "
            f"{MAX_N_JOBS} (or -1 for all cores)",
        )
    if backend is None:
        return
    if not isinstance(backend, str):
        raise StudyError("backend", f"backend must be a str or None, got {backend!r}")
    if not backend.strip():
        raise StudyError(
            "backend",
            f"backend={backend!r} is empty; give a joblib backend name (e.g. "
            "'loky') or None",
        )
    if problem := backend_problem(backend):
        raise StudyError("backend", problem)


def check_models(
    models: Any, data_models: dict[str, Any], model: str
) -> dict[str, ModelEntry]:
    try:
        axis = model_axis(models)
    except ModelAxisError as exc:
        raise StudyError("models", str(exc), exc.entry) from None
    related = [name for name, entry in axis.items() if not entry.is_single]
    if related and any(value is not None for value in data_models.values()):
        raise StudyError(
            "models",
            f"models {related} are related models, observed as drawn (Gaussian "
            "rows): data models apply to the single model only; run the data "
            "models in a study of their own",
            related[0],
        )
    if related and model != "concentration":
        raise StudyError(
            "models",
            f"models {related} are related models, whose matrices are precisions: "
            f"they need model='concentration', not {model!r}",
            related[0],
        )
    return axis


def check_graphs(graph: Any, graph_params: Any) -> dict[str, GraphEntry]:
    try:
        return graph_axis(graph, graph_params)
    except GraphAxisError as exc:
        raise StudyError(exc.parameter, str(exc), exc.entry) from None


def backend_config(backend: str | None) -> Any:
    """The joblib configuration of ``backend`` (None: keep the active one)."""
    if backend is None:  # keep whatever parallel_config is active
        return contextlib.nullcontext()
    try:
        return joblib.parallel_config(backend=backend)
    except (ValueError, KeyError) as exc:
        raise StudyError(
            "backend", f"backend={backend!r} is not usable: {exc}"
        ) from exc
