"""``Benchmark``: a study's parameters, their checks, and its run; its result.

The user guide is ``docs/harness.md``; the shape of the harness is in
``docs/architecture.md``. In short:

Paired design
    For each (graph, n_features, density, repeat) one graph is drawn and shared by
    all generators, and one standard normal noise matrix is drawn and shared by all
    generators, data models and sample sizes; every learner sees the very same data
    set. Differences between learners, generators, data models and sample sizes are
    therefore paired comparisons (common random numbers). The data pipeline is the
    one of :func:`skggm_bench.datasets.make_ggm`: ``make_ggm(...,
    random_state=row.seed)`` reproduces a row's data set.

Isolation
    Every draw and every fit runs in a child process of its worker, with an
    optional deadline (``timeout``) and memory limit (``memory_limit``): whatever
    a learner or a generator does, it becomes a row with a status and a message,
    and the study goes on (``_isolation.py``).

Results
    Rows are committed to the
    :class:`~skggm_bench.benchmark.results.store.ResultStore` as
    they finish; an interrupted run loses only the fits in flight, and running the
    same study again resumes it. The columns are defined in ``_schema.py``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import inspect
import json
import math
import numbers
import os
import pickle
import subprocess
import sys
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import joblib
import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils import Bunch
from sklearn.utils._param_validation import StrOptions, validate_parameter_constraints

from ..datasets._make_ggm import data_bunch
from ..datasets._pipeline import draw_graph, draw_latent, draw_model, observe
from ..metrics import get_metric
from ..utils._validation import Interval, is_boolean
from .analysis.leaderboard import DEFAULT_TIE_TOLERANCE
from .plan._graphs import GraphAxisError, GraphEntry, graph_axis, realised_density
from .plan._models import (
    ModelAxisError,
    ModelEntry,
    draw_related_cell,
    model_axis,
    row_generator,
)
from .plan._seeding import (
    SEEDING_SCHEME,
    cell_seed,
    check_study_random_state,
    fresh_entropy,
)
from .plan._sharding import check_shard, shard_fits
from .plan._tasks import WARNING_COUNTS, Cell, Fit, Spec, process_setups, ship_learner
from .results._messages import WarningTally
from .results._provenance import (
    FingerprintError,
    MissingSoftwareError,
    describe,
    learner_modules,
    learner_versions,
)
from .results._schema import KEY_COLUMNS, MAX_NAME_LENGTH, Status, result_columns
from .results.store import ResultStore, StudyExtension, extend_study
from .run._execution import backend_problem, execute
from .run._isolation import adopt_strays, close_children

__all__ = ["DEFAULT_METRICS", "Benchmark", "BenchmarkResult", "StudyError"]

#: Metrics computed when ``metrics`` is not given (names of the metric registry,
#: :data:`skggm_bench.metrics.METRICS`).
DEFAULT_METRICS: tuple[str, ...] = (
    "tpr",
    "ppv",
    "f1",
    "mcc",
    "shd",
    "roc_auc",
    "average_precision",
    "n_selected_edges",
)
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
    >>> from skggm_bench.generators import DiagonalDominance
    >>> try:
    ...     Benchmark({"dd": DiagonalDominance()}, {"lw": LedoitWolf()},
    ...               densities=1.5).validate()
    ... except StudyError as error:
    ...     print(error.parameter, "|", error)
    densities | densities[0]=1.5 is above 1; a density is the fraction of node pairs \
that are edges, in [0, 1]
    """

    def __init__(self, parameter: str, message: str, entry: str | None = None) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.entry = entry


# --------------------------------------------------------------------------------------
# Checks of the grid (all of them: the configuration layer has none of its own)
# --------------------------------------------------------------------------------------


def _as_tuple(values: Any, name: str) -> tuple:
    if isinstance(values, (str, bytes)) or not isinstance(
        values, (Sequence, np.ndarray)
    ):
        values = (values,)
    values = tuple(values)
    if not values:
        raise StudyError(name, f"{name} is empty: the grid needs at least one value")
    return values


def _check_unique(values: tuple, name: str) -> None:
    seen = set()
    for value in values:
        if value in seen:
            raise StudyError(
                name, f"{name} lists {value!r} twice; grid values must be unique"
            )
        seen.add(value)


def _check_integers(values: Any, name: str, low: int, high: int) -> tuple[int, ...]:
    values = _as_tuple(values, name)
    for index, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, numbers.Integral
        ):
            raise StudyError(name, f"{name}[{index}] must be an integer, got {value!r}")
        if value < low:
            raise StudyError(name, f"{name}[{index}] must be >= {low}, got {value}")
        if value > high:
            raise StudyError(
                name, f"{name}[{index}]={value} is above the limit of {high:,}"
            )
    values = tuple(int(value) for value in values)
    _check_unique(values, name)
    return values


def _check_ratios(values: Any) -> tuple[float, ...]:
    """``sample_size_ratios`` as floats: positive, finite and unique."""
    values = _as_tuple(values, "sample_size_ratios")
    checked = []
    for index, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise StudyError(
                "sample_size_ratios",
                f"sample_size_ratios[{index}] must be a number (n_samples / "
                f"n_features), got {value!r}",
            )
        value = float(value)
        if not math.isfinite(value) or value <= 0:
            raise StudyError(
                "sample_size_ratios",
                f"sample_size_ratios[{index}]={value} is not a positive finite "
                "number; a ratio n_samples / n_features is > 0",
            )
        checked.append(value)
    checked = tuple(checked)
    _check_unique(checked, "sample_size_ratios")
    return checked


def sample_size(ratio: float, n_features: int) -> int:
    """The sample size of ``ratio`` at ``n_features``: ``ratio * n_features``,
    rounded to the nearest integer, halves up (``round`` would round 12.5 to 12).

    Examples
    --------
    >>> sample_size(0.5, 25), sample_size(2, 50)
    (13, 100)
    """
    return math.floor(ratio * n_features + 0.5)


def _sample_sizes(
    n_samples: Any, ratios: Any, n_features: tuple[int, ...]
) -> tuple[dict[int, tuple[int, ...]], tuple[float, ...] | None]:
    """The sample sizes of each n_features, and the checked ratios (or None).

    ``n_samples`` gives the same sizes for every n_features; ``sample_size_ratios``
    gives each n_features its own, ``round(ratio * p)``.
    """
    if ratios is None:
        sizes = _check_integers(
            (100,) if n_samples is None else n_samples, "n_samples", 1, MAX_N_SAMPLES
        )
        return dict.fromkeys(n_features, sizes), None
    if n_samples is not None:
        raise StudyError(
            "sample_size_ratios",
            "n_samples and sample_size_ratios are both given; give the sample "
            "sizes one way: n_samples (the same for every n_features) or "
            "sample_size_ratios (n_samples / n_features)",
        )
    ratios = _check_ratios(ratios)
    per_p = {}
    for p in n_features:
        sizes: dict[int, float] = {}
        for ratio in ratios:
            n = sample_size(ratio, p)
            if n < 1:
                raise StudyError(
                    "sample_size_ratios",
                    f"sample_size_ratios {ratio} gives n_samples={n} at "
                    f"n_features={p}; a data set needs at least one row",
                )
            if n > MAX_N_SAMPLES:
                raise StudyError(
                    "sample_size_ratios",
                    f"sample_size_ratios {ratio} gives n_samples={n:,} at "
                    f"n_features={p}, above the limit of {MAX_N_SAMPLES:,}",
                )
            if n in sizes:
                raise StudyError(
                    "sample_size_ratios",
                    f"sample_size_ratios {sizes[n]} and {ratio} both give "
                    f"n_samples={n} at n_features={p}; grid values must be unique",
                )
            sizes[n] = ratio
        per_p[p] = tuple(sizes)
    return per_p, ratios


def _check_data_size(grid: Any) -> None:
    """Refuse a study whose largest data set would not fit any machine's memory."""
    groups = 1
    for entry in grid.models.values():
        if not entry.is_single:  # its matrices: one per class or time point
            params = entry.generator(None).get_params()
            groups = max(groups, params.get("n_classes", params.get("n_times", 1)))
    n, p = max(
        ((max(sizes), p) for p, sizes in grid.n_samples.items()),
        key=lambda size: size[0] * size[1],
    )
    values = n * p * groups
    if values > MAX_DATA_VALUES:
        raise StudyError(
            "n_samples" if grid.sample_size_ratios is None else "sample_size_ratios",
            f"the largest data set has {values:,} values (n_samples "
            f"{n:,} x n_features {p:,}"
            + (f" x {groups:,} classes or time points" if groups > 1 else "")
            + f"), above the limit of {MAX_DATA_VALUES:,}",
        )


def _check_data_model_params(data_models: dict) -> None:
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


def _check_densities(values: Any) -> tuple[float | None, ...]:
    values = _as_tuple(values, "densities")
    checked = []
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
    checked = tuple(checked)
    _check_unique(checked, "densities")
    return checked


def _check_named(
    mapping: Any, name: str, methods: tuple[str, ...], example: str
) -> dict:
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


def _check_unseeded(mapping: dict, name: str) -> dict:
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


# Packages whose classes every worker process imports as the parent does: a
# learner made only of these needs no trial load in a fresh process.
_LOADS_ANYWHERE = frozenset({"sklearn", "skggm_bench", "numpy", "scipy"})
# Learner bytes (by digest) already loaded in a fresh process: None or the error.
_LOAD_CHECKS: dict[str, str | None] = {}
# Loads each learner of a pickled {digest: bytes} in a fresh interpreter; prints
# {digest: error or None} as JSON. First it has SIGKILL sent to it when the thread
# that started it ends (PR_SET_PDEATHSIG, Linux): a run killed during its
# validation leaves no trial process behind.
_LOAD_SCRIPT = """\
import ctypes, os, sys
try:
    ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)
except (AttributeError, OSError):
    pass
if os.getppid() != int(sys.argv[1]):
    sys.exit(1)
import json, pickle
problems = {}
for digest, shipped in pickle.loads(sys.stdin.buffer.read()).items():
    try:
        pickle.loads(shipped)
        problems[digest] = None
    except BaseException as exc:
        problems[digest] = f"{type(exc).__name__}: {exc}"
print(json.dumps(problems))
"""


def _load_problems(shipped: list[bytes]) -> dict[str, str | None]:
    """Why each of ``shipped`` cannot be loaded in a fresh Python process, by digest.

    The worker processes of loky (and of any process backend) are fresh
    interpreters: a learner whose package imports only after some set-up done in
    this session (import shims, a ``sys.modules`` entry) cannot be loaded there.
    One trial process loads them all, with this process's ``sys.path`` (as loky's
    workers have); results are kept for the next validation.
    """
    digests = {hashlib.sha256(item).hexdigest(): item for item in shipped}
    todo = {digest: item for digest, item in digests.items()
            if digest not in _LOAD_CHECKS}  # fmt: skip
    if todo:
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        try:
            done = subprocess.run(
                [sys.executable, "-c", _LOAD_SCRIPT, str(os.getpid())],
                input=pickle.dumps(todo),
                capture_output=True,
                env=environment,
                timeout=300,
                check=False,
            )
            lines = done.stdout.decode(errors="replace").strip().splitlines()
            found = json.loads(lines[-1]) if lines else {}
            failure = f"the process loading it exited with status {done.returncode}"
        except (subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
            found, failure = {}, f"loading it in a fresh process failed: {exc}"
        for digest in todo:
            _LOAD_CHECKS[digest] = found.get(digest, failure)
    return {digest: _LOAD_CHECKS[digest] for digest in digests}


def _check_shipping(learners: dict, fresh_workers: bool) -> dict[str, Any]:
    """What is sent to the workers per learner; a StudyError if one cannot go.

    Workers started afresh (loky, dask) get each learner as pickled bytes, loaded
    by its own fits (``_tasks.load_learner``), after two checks here: that it can
    be pickled, and -- unless it is made only of packages that import anywhere --
    that a fresh Python process can load it. Workers that share this process's
    memory (``n_jobs=1``, threads; fits run in forked children) need no pickling:
    they get the learners themselves.
    """
    if not fresh_workers:
        return dict(learners)
    shipped = {}
    for key, learner in learners.items():
        try:
            shipped[key] = ship_learner(learner)
        except Exception as exc:
            raise StudyError(
                "learners",
                f"learners[{key!r}] cannot be sent to a worker process: it cannot "
                f"be pickled: {type(exc).__name__}: {exc}. Run it with n_jobs=1 "
                "or backend='threading'",
                key,
            ) from None
    to_check = [
        key
        for key, learner in learners.items()
        if not {m.split(".")[0] for m in learner_modules(learner)} <= _LOADS_ANYWHERE
    ]
    problems = _load_problems([shipped[key] for key in to_check])
    for key in to_check:
        problem = problems[hashlib.sha256(shipped[key]).hexdigest()]
        if problem is not None:
            raise StudyError(
                "learners",
                f"learners[{key!r}] cannot be loaded by the worker processes (fresh "
                f"Python processes): {problem}. Run it with n_jobs=1 or "
                "backend='threading', or make its package importable without "
                "set-up in this session",
                key,
            )
    return shipped


def _check_versions(learners: dict) -> dict[str, str]:
    """The versions of each learner's software; a StudyError if some is missing.

    A learner that runs software outside Python (R and its packages) reports its
    versions through ``__skggm_bench_versions__`` and raises there when that
    software is missing; the message says what and how to install it.
    """
    versions = {}
    for key, learner in learners.items():
        try:
            versions[key] = learner_versions(learner)
        except MissingSoftwareError as exc:
            raise StudyError(
                "learners", f"learners[{key!r}] cannot run here: {exc}", key
            ) from None
    return versions


def _check_metrics(metrics: Any) -> tuple[str, ...]:
    """Canonical names (the result columns) of the requested metrics."""
    names = []
    for metric in _as_tuple(metrics, "metrics"):
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
    names = tuple(names)
    _check_unique(names, "metrics")
    return names


def _check_memory_limit(limit: Any) -> int | None:
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
    if limit > MAX_MEMORY_LIMIT:
        raise StudyError(
            "memory_limit",
            f"memory_limit={limit} bytes is above 2**60 (1 EiB), more than any "
            "machine can address; leave memory_limit out (None) for no limit",
        )
    return int(limit)


def _check_random_state(random_state: Any) -> None:
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
    skggm_bench.benchmark._benchmark.StudyError: backend='' is empty; give a joblib \
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
    if n_jobs is not None and abs(n_jobs) > MAX_N_JOBS:
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


def _check_models(models: Any, data_models: dict, model: str) -> dict[str, ModelEntry]:
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


def _check_row_generators(grid: _Grid) -> None:
    """Every (model, generator) must have its own ``generator`` in the rows."""
    seen: dict[str, tuple[str, str]] = {}
    for model in grid._related():
        for generator in grid.generators:
            name = row_generator(model, generator)
            if name in seen:
                raise StudyError(
                    "models",
                    f"the rows of model {model!r} with generator {generator!r} and "
                    f"of model {seen[name][0]!r} with generator {seen[name][1]!r} "
                    f"would both be named {name!r}; rename one",
                )
            seen[name] = (model or "single", generator)


def _check_graphs(graph: Any, graph_params: Any) -> dict[str, GraphEntry]:
    try:
        return graph_axis(graph, graph_params)
    except GraphAxisError as exc:
        raise StudyError(exc.parameter, str(exc), exc.entry) from None


def _fix_structures(
    graphs: dict[str, GraphEntry], n_features: tuple[int, ...], graph: Any
) -> dict[str, GraphEntry]:
    """The graphs, those of fixed structure with their density per n_features."""
    fixed = {}
    for name, entry in graphs.items():
        if entry.follows_density:
            fixed[name] = entry
            continue
        densities = {}
        for p in n_features:
            try:
                densities[p] = realised_density(entry, p)
            except Exception as exc:
                raise StudyError(
                    "graph",
                    f"graph {name!r} with n_features={p}: {exc}",
                    name if isinstance(graph, Mapping) else None,
                ) from exc
        fixed[name] = dataclasses.replace(entry, fixed_densities=densities)
    return fixed


@dataclass(frozen=True)
class _Grid:
    """A validated study: what ``validate`` returns and ``run`` uses."""

    generators: dict
    data_models: dict
    learners: dict
    graphs: dict[str, GraphEntry]
    densities: tuple
    n_features: tuple
    # The sample sizes of each n_features (the same for all unless the study gives
    # them as ratios).
    n_samples: dict[int, tuple[int, ...]]
    n_repeats: int
    model: str
    metrics: tuple
    timeout: float | None
    memory_limit: int | None
    isolate: bool
    tie_tolerance: float = 0.0
    # n_samples / n_features, when the study gives its sample sizes so.
    sample_size_ratios: tuple[float, ...] | None = None
    # The model axis (the single model alone unless ``models`` is given).
    models: dict[str, ModelEntry] = dataclasses.field(
        default_factory=lambda: model_axis(None)
    )
    # Per learner: the bytes sent to workers, and its packages' versions (JSON).
    shipped: dict = dataclasses.field(default_factory=dict)
    versions: dict = dataclasses.field(default_factory=dict)

    def points(self, graph: str) -> list[tuple[float | None, int]]:
        """The (density, n_features) of a graph's rows, densities first.

        A fixed-structure graph has one density per n_features: its own.
        """
        fixed = self.graphs[graph].fixed_densities
        if fixed is not None:
            return [(fixed[p], p) for p in self.n_features]
        return [(density, p) for density in self.densities for p in self.n_features]

    @property
    def n_fits(self) -> int:
        """The number of rows, counted without listing them."""
        n_points = sum(
            len(self.n_samples[p])
            for graph in self.graphs
            for _, p in self.points(graph)
        )
        return (
            len(self.models)
            * len(self.generators)
            * n_points
            * self.n_repeats
            * len(self.data_models)
            * len(self.learners)
        )

    def _related(self) -> list[str]:
        """The cells' ``model`` per model of the axis ("" for the single one)."""
        return ["" if e.is_single else name for name, e in self.models.items()]

    def cells(self) -> list[Cell]:
        return [
            Cell(generator, graph, p, density, repeat, model)
            for model in self._related()
            for generator in self.generators
            for graph in self.graphs
            for density, p in self.points(graph)
            for repeat in range(self.n_repeats)
        ]

    def fits(self) -> list[Fit]:
        return [
            Fit(cell, data_model, n, learner)
            for cell in self.cells()
            for data_model in self.data_models
            for n in self.n_samples[cell.n_features]
            for learner in self.learners
        ]

    def keys(self) -> list[tuple]:
        """Every row key, in the frame's order."""
        return [
            (row_generator(model, g), graph, m, learner, d, p, n, r)
            for model in self._related()
            for g in self.generators
            for graph in self.graphs
            for m in self.data_models
            for learner in self.learners
            for d, p in self.points(graph)
            for n in self.n_samples[p]
            for r in range(self.n_repeats)
        ]


# --------------------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------------------


class BenchmarkResult:
    """The rows of a benchmark study, as a tidy pandas DataFrame.

    Returned by :meth:`Benchmark.run`; not meant to be built by hand.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per (generator, graph, data model, learner, density,
        n_features, n_samples, repeat).
    study : dict
        The study fingerprint (what the store checks on resume).
    store : str or None
        Path of the store the rows live in, or None for an in-memory run.
    n_computed : int
        Number of rows computed by this run (the others were already stored).
    tie_tolerance : float, default=1e-4
        The study's tie tolerance: the default of :meth:`leaderboard`.

    Attributes
    ----------
    frame : pandas.DataFrame
        The columns are described in ``docs/harness.md`` (and defined in one
        place, the harness's result schema): the grid coordinates (``graph``
        is the row's name on the graph axis); ``seed``
        (``make_ggm(..., random_state=seed)`` reproduces the row's data set) and
        the difficulty of the true graph (``n_edges``, ``n_added_edges``,
        ``min_edge_partial_correlation``, ``median_edge_partial_correlation``,
        ``max_non_edge_correlation``, ``condition_number``); one column per
        metric (NaN unless ``status == "ok"``, and where a metric is undefined,
        with the reason in ``message``); ``fit_time`` (seconds); ``status``
        (``"ok"``, ``"failed"``, ``"timeout"``, ``"crashed"``, ``"memory"``);
        ``message``; ``versions`` (JSON of the package versions).
    study : dict
        The study fingerprint.
    store : str or None
        The store path.
    n_computed : int
        Rows computed by the run that returned this result.

    Examples
    --------
    >>> from sklearn.covariance import GraphicalLasso
    >>> from skggm_bench.benchmark import Benchmark
    >>> from skggm_bench.generators import DiagonalDominance
    >>> result = Benchmark({"dd": DiagonalDominance()},
    ...                    {"glasso": GraphicalLasso(alpha=0.1)},
    ...                    n_features=8, n_samples=(50, 100), n_repeats=2,
    ...                    metrics=("f1", "shd"), random_state=0).run()
    >>> result
    BenchmarkResult(4 rows: 4 ok)
    >>> result.frame.groupby("n_samples")["status"].count().to_dict()
    {50: 2, 100: 2}
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        study: dict,
        store: str | None = None,
        n_computed: int = 0,
        tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
    ) -> None:
        self.frame = frame
        self.study = study
        self.store = store
        self.n_computed = n_computed
        self.tie_tolerance = tie_tolerance

    def __repr__(self) -> str:
        counts = self.frame["status"].value_counts()
        parts = [f"{counts.get(Status.OK.value, 0)} ok"] + [
            f"{counts[status.value]} {status.value}"
            for status in Status
            if status is not Status.OK and counts.get(status.value, 0)
        ]
        return f"BenchmarkResult({len(self.frame)} rows: {', '.join(parts)})"

    def leaderboard(
        self, metric: str = "f1", by: Sequence[str] = ("density",), **kwargs: Any
    ) -> pd.DataFrame:
        """Rank the learners by ``metric`` (see ``analysis.leaderboard``).

        Parameters
        ----------
        metric : str, default="f1"
            A metric column of :attr:`frame`.
        by : sequence of str, default=("density",)
            Columns that define the scenarios the ranking is reported for.
        **kwargs
            Passed on to :func:`skggm_bench.benchmark.analysis.leaderboard.leaderboard`;
            ``tie_tolerance`` defaults to the study's.

        Returns
        -------
        pandas.DataFrame
            What :func:`skggm_bench.benchmark.analysis.leaderboard.leaderboard` returns.

        Examples
        --------
        >>> from sklearn.covariance import GraphicalLasso, LedoitWolf
        >>> from skggm_bench.generators import DiagonalDominance
        >>> result = Benchmark({"dd": DiagonalDominance()},
        ...                    {"glasso": GraphicalLasso(alpha=0.1),
        ...                     "ledoit_wolf": LedoitWolf()},
        ...                    n_features=8, densities=0.3, n_samples=100,
        ...                    n_repeats=3, metrics=("f1",), random_state=0).run()
        >>> board = result.leaderboard("f1", by=("density",))
        >>> board[["learner", "position"]].to_dict("list")
        {'learner': ['glasso', 'ledoit_wolf'], 'position': [1, 2]}
        """
        from .analysis.leaderboard import leaderboard

        kwargs.setdefault("tie_tolerance", self.tie_tolerance)
        return leaderboard(self.frame, metric=metric, by=by, **kwargs)

    def plot(self, **kwargs: Any) -> Any:
        """Plot the results (see ``present.plotting.plot_results``).

        Parameters
        ----------
        **kwargs
            Passed on to :func:`skggm_bench.benchmark.present.plotting.plot_results`.

        Returns
        -------
        object
            What :func:`skggm_bench.benchmark.present.plotting.plot_results` returns.

        Examples
        --------
        >>> from sklearn.covariance import LedoitWolf
        >>> from skggm_bench.generators import DiagonalDominance
        >>> result = Benchmark({"dd": DiagonalDominance()}, {"lw": LedoitWolf()},
        ...                    n_features=8, densities=(0.1, 0.3),
        ...                    n_samples=(50, 100), metrics=("tpr", "ppv"),
        ...                    random_state=0).run()
        >>> figures = result.plot(metrics="tpr")   # one figure per density
        >>> sorted(figures)
        [0.1, 0.3]
        """
        from .present.plotting import plot_results

        return plot_results(self.frame, **kwargs)


# --------------------------------------------------------------------------------------
# The study
# --------------------------------------------------------------------------------------


class Benchmark:
    """Run structure learners on data from graphical model generators, over a grid.

    For every generator, graph, data model, number of variables, density, sample size
    and repeat, a data set with a known graph is drawn and every learner is fitted on it
    and scored. The design is paired and seeded from one ``SeedSequence``, and every
    draw and fit is isolated in a child process; see the module docstring and
    ``docs/harness.md``.

    Parameters
    ----------
    generators : dict of str to GraphicalModelGenerator
        Named matrix samplers (any estimator-like object with ``fit(graph)`` and
        ``sample(n)``; it is cloned, and its ``random_state`` set per cell). The
        true graph of a row is the support of the matrix the generator drew.
    learners : dict of str to estimator
        Named scikit-learn estimators -- a Pipeline and a search (e.g.
        ``GridSearchCV``) included -- fitted as ``fit(X)`` on clones. The graph and
        the matrices are read from the fitted learner with the estimator protocol of
        :mod:`skggm_bench.metrics`. A learner's ``random_state`` (nested ones
        included) that is ``None`` gets a seed derived from the row.
    graph : str, callable or dict, default="erdos_renyi"
        The graph axis. A family of :data:`skggm_bench.datasets.GRAPH_FAMILIES`,
        or a function ``graph(n_features, density, random_state, **graph_params)``
        returning a graph in any form :func:`skggm_bench.graphs.check_adjacency`
        accepts: one graph, named by the family (or the function's ``__name__``)
        in the ``graph`` column. A dict ``{name: spec}`` makes several, each a
        family name, a function, or a dict ``{"family": name or function,
        **parameters}`` (then ``graph_params`` must be None). A graph whose
        structure is fixed (``hub``, ``chain``, ..., or e.g. ``band`` with a
        ``bandwidth``) ignores ``densities``: it is drawn once per
        (n_features, repeat), and its rows' ``density`` is its number of edges
        over ``p (p - 1) / 2``, which must not depend on the seed.
    densities : float or sequence of float or None, default=(0.1,)
        Fractions of the node pairs that are edges, in [0, 1] (see
        :func:`skggm_bench.datasets.make_ggm`), for the graphs that follow a
        density. ``None`` means the family's default; such rows have a NaN
        density.
    n_features : int or sequence of int, default=50
        Numbers of variables ``p`` (at least 2).
    n_samples : int or sequence of int or None, default=None
        Sample sizes, the same for every ``n_features``; ``None`` means
        ``(100,)``, unless ``sample_size_ratios`` is given. The data set of size
        ``n`` is the first ``n`` rows of the largest one of its cell.
    sample_size_ratios : float or sequence of float or None, default=None
        Sample sizes relative to the number of variables, instead of
        ``n_samples`` (give one or the other): the sizes at ``n_features=p`` are
        ``ratio * p`` rounded to the nearest integer, halves up. E.g.
        ``n_features=(50, 200), sample_size_ratios=(0.5, 1, 2)`` gives n of 25,
        50 and 100 at p=50 and 100, 200 and 400 at p=200, and no other. Rows
        carry the ``n_samples`` they were drawn with; the study records the
        ratios.
    n_repeats : int, default=1
        Independent repeats of every cell (new graph, matrices and noise). A
        study has at most 1,000,000 fits.
    data_models : dict of str to data model, or None, default=None
        Named ways of observing the latent Gaussian data (objects with an
        ``observe(latent, covariance)`` method, see ``docs/data_models.md``); every
        learner sees the same latent draw under each of them. ``None`` means the
        Gaussian data as drawn, under the name ``"gaussian"``.
    models : dict of str to model spec, list of str, or None, default=None
        The model axis: named kinds of model, each a kind or a dict of a
        ``"kind"`` and its parameters. ``"single"`` (what ``None`` means): one
        graph and one matrix per data set. ``{"kind": "joint", "n_classes": K,
        "shared_fraction": ..., "similarity": ...}``, ``{"kind":
        "time_varying", "n_times": T, "change_rate": ..., "smoothness": ...,
        "window": ...}``: K classes or T time points drawn around each generator
        (:class:`~skggm_bench.generators.JointGenerator`,
        :class:`~skggm_bench.generators.TimeVaryingGenerator`), ``n_samples``
        rows per group, learners fitted with ``fit(X, y)`` (``y``: the group of
        each row) and scored per group, averaged (and on the changes between
        groups: ``change_tpr``, ``change_ppv``); ``{"kind": "latent",
        "n_latent": h, "n_attached": ...}``: hidden variables
        (:class:`~skggm_bench.generators.LatentGenerator`), learners fitted with
        ``fit(X)``, scored against the graph of the sparse part (and ``rank``,
        ``rank_error``, ``sparse_relative_error``). A related model's rows name
        their generator ``"<model>/<generator>"``; see
        ``docs/related_models.md``. Related models are concentration graphs
        observed as drawn (no ``data_models``).
    model : {"concentration", "covariance"}, default="concentration"
        Role of the generated matrix: the precision (the graph is a conditional
        independence graph) or the covariance (a marginal independence graph).
    metrics : sequence of str, default=DEFAULT_METRICS
        Names of the metric registry :data:`skggm_bench.metrics.METRICS`: edge
        metrics (``"tpr"``, ``"ppv"``, ``"fpr"``, ``"f1"``, ``"mcc"``, ``"shd"``),
        edge-score metrics (``"roc_auc"``, ``"average_precision"``) and matrix
        losses (``"frobenius_loss"``, ``"spectral_loss"``, ``"kl_divergence"``,
        ``"stein_loss"`` of ``covariance_`` against the true covariance;
        ``"precision_frobenius_loss"`` of ``precision_``), or their aliases. Each
        becomes a column holding the raw value (lower is better for losses).
    n_jobs : int or None, default=None
        Parallel workers, as in joblib (``None``: 1 unless a surrounding
        ``joblib.parallel_config`` says otherwise; ``-1``: all cores); not 0, at
        most 4096 in absolute value.
    backend : str or None, default="loky"
        joblib backend: ``"loky"`` (processes), ``"threading"``, ``"dask"`` (needs
        a ``dask.distributed.Client`` in this process) or any registered backend;
        ``None`` uses the active ``joblib.parallel_config``.
    store : str, os.PathLike, ResultStore or None, default=None
        Where rows are written as they finish. ``None`` keeps them in memory; a
        path (one SQLite file per study) persists them, and running the same study
        again skips the stored rows. A store holding a different study raises
        :class:`~skggm_bench.benchmark.results.store.StudyMismatchError`.
    random_state : int, numpy SeedSequence, RandomState, Generator or None, \
default=None
        Entropy of the study's SeedSequence. ``None`` draws fresh entropy, except
        when resuming a stored study, whose entropy is reused.
    timeout : float or None, default=None
        Seconds allowed to each fit (its scoring included) and to each draw of a
        data set; at the deadline the process running it is stopped and the row
        gets status ``"timeout"`` (``"failed"`` with ``data generation failed``
        for a draw). At most 10**6 s (about 11.6 days).
    memory_limit : int or None, default=None
        Bytes each fit or draw may allocate, from 1 MiB to
        2**60 bytes; beyond it the row gets status
        ``"memory"``.
    isolate : bool, default=True
        Run draws and fits in child processes (see Notes). ``False`` runs them in
        the worker itself, e.g. to stop inside a learner with a debugger; then
        ``timeout`` and ``memory_limit`` are not available and a crash ends the run.
    graph_params : dict or None, default=None
        Extra parameters of a single graph family (e.g. ``{"n_clusters": 3}`` for
        ``"cluster"``) or keyword arguments of the graph callable; with a dict
        of graphs, each spec carries its own.
    verbose : int, default=0
        joblib's verbosity.
    shard : tuple of (int, int) or None, default=None
        ``(i, k)``: run only the i-th (counting from 1) of k deterministic parts
        of the study's fits, balanced by expected cost, e.g. one job of a batch
        scheduler's array. The k parts cover the study exactly once; each job
        writes its own store (which it resumes like any other), and
        :func:`~skggm_bench.benchmark.results.store.merge_stores` joins them into the
        store of one uninterrupted run. The shard is not part of the study: all
        k stores hold the same study. ``run`` returns the rows of its store.
    tie_tolerance : float, default=1e-4
        Relative difference within which two values of a metric in one block
        rank as a tie (:func:`skggm_bench.benchmark.analysis.leaderboard.leaderboard`);
        the default of :meth:`BenchmarkResult.leaderboard`. It changes no row,
        so it is not part of the stored study.

    Attributes
    ----------
    entropy_ : int
        The study entropy used by the last :meth:`run` (set by it); with it and the
        grid, every row's data set can be regenerated (:meth:`dataset`).

    See Also
    --------
    skggm_bench.benchmark.results.store.ResultStore : The results store.
    skggm_bench.datasets.make_ggm : One data set with a known graph.

    Notes
    -----
    Whatever a learner or a generator does, it becomes a row: one that raises
    (``SystemExit`` and ``KeyboardInterrupt`` included) or exposes nothing usable
    gives status ``"failed"``; one that runs past ``timeout``, in Python or in C,
    ``"timeout"``; one whose process dies (a segmentation fault, ``os._exit``)
    ``"crashed"``; one that exceeds ``memory_limit`` or is killed by the operating
    system for memory, ``"memory"``. A draw that fails gives ``"failed"`` rows
    with ``data generation failed: ...`` for every fit of its data set. Each fit
    gets its own copy of its data. The run goes on, and a resume never re-runs a
    fit that has a row. How this is done (a forked child process per worker,
    stopped at deadlines and replaced) is explained in ``docs/harness.md``; it
    needs ``os.fork`` (Linux, macOS).

    Interrupting :meth:`run` (Ctrl-C) keeps every committed row and re-raises
    ``KeyboardInterrupt``; the next run of the same study resumes.

    Examples
    --------
    >>> from sklearn.covariance import GraphicalLasso, LedoitWolf
    >>> from skggm_bench.benchmark import Benchmark
    >>> from skggm_bench.generators import DiagonalDominance, PartialOrthogonalization
    >>> bench = Benchmark(
    ...     generators={"dd": DiagonalDominance(),
    ...                 "port": PartialOrthogonalization()},
    ...     learners={"glasso": GraphicalLasso(alpha=0.1),
    ...               "ledoit_wolf": LedoitWolf()},
    ...     densities=(0.2, 0.4), n_features=10, n_samples=200, n_repeats=2,
    ...     metrics=("tpr", "ppv"), random_state=0)
    >>> frame = bench.run().frame
    >>> frame.shape
    (16, 23)
    >>> # LedoitWolf's precision is dense: every pair is an edge, every edge is found
    >>> frame.loc[frame.learner == "ledoit_wolf", "tpr"].unique()
    array([1.])
    >>> data = bench.dataset("dd", density=0.2, repeat=0, n_samples=200)
    >>> data.X.shape, data.adjacency.shape
    ((200, 10), (10, 10))
    """

    _parameter_constraints: dict = {
        "n_repeats": [Interval(numbers.Integral, 1, MAX_FITS, closed="both")],
        "model": [StrOptions({"concentration", "covariance"})],
        "timeout": [Interval(numbers.Real, 0, MAX_TIMEOUT, closed="right"), None],
        "graph_params": [dict, None],
        "isolate": ["boolean"],
        "verbose": ["verbose"],
        "tie_tolerance": [Interval(numbers.Real, 0, 1, closed="left")],
        # Each ratio is checked, naming its index, with the grid.
        "sample_size_ratios": [numbers.Real, "array-like", None],
    }

    def __init__(
        self,
        generators: Mapping[str, Any],
        learners: Mapping[str, Any],
        *,
        graph: str | Callable[..., Any] | Mapping[str, Any] = "erdos_renyi",
        densities: Any = (0.1,),
        n_features: Any = 50,
        n_samples: Any = None,
        sample_size_ratios: Any = None,
        n_repeats: int = 1,
        data_models: Mapping[str, Any] | None = None,
        models: Any = None,
        model: str = "concentration",
        metrics: Sequence[str] = DEFAULT_METRICS,
        n_jobs: int | None = None,
        backend: str | None = "loky",
        store: Any = None,
        random_state: Any = None,
        timeout: float | None = None,
        memory_limit: int | None = None,
        isolate: bool = True,
        graph_params: Mapping[str, Any] | None = None,
        verbose: int = 0,
        shard: tuple[int, int] | None = None,
        tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
    ) -> None:
        self.generators = generators
        self.learners = learners
        self.graph = graph
        self.densities = densities
        self.n_features = n_features
        self.n_samples = n_samples
        self.sample_size_ratios = sample_size_ratios
        self.n_repeats = n_repeats
        self.data_models = data_models
        self.models = models
        self.model = model
        self.metrics = metrics
        self.n_jobs = n_jobs
        self.backend = backend
        self.store = store
        self.random_state = random_state
        self.timeout = timeout
        self.memory_limit = memory_limit
        self.isolate = isolate
        self.graph_params = graph_params
        self.verbose = verbose
        self.shard = shard
        self.tie_tolerance = tie_tolerance

    def __repr__(self) -> str:
        return (
            f"Benchmark(generators={list(self.generators)}, "
            f"learners={list(self.learners)}, graph={self.graph!r}, "
            f"densities={self.densities!r}, n_features={self.n_features!r}, "
            f"n_samples={self.n_samples!r}, "
            + (
                ""
                if self.sample_size_ratios is None
                else f"sample_size_ratios={self.sample_size_ratios!r}, "
            )
            + f"n_repeats={self.n_repeats!r})"
        )

    # -- validation ------------------------------------------------------------------

    def validate(self) -> None:
        """Check the whole study before anything runs; raise on the first problem.

        Checks every parameter; draws each graph of the grid once, so that an
        unreachable density or a bad graph parameter fails now; and fits every
        generator on each of these graphs (a dry probe), so that a generator that
        cannot sample on the study's graphs (e.g. ``UniformChordal`` on a
        non-chordal family) is reported with both names before any fit runs.

        Raises
        ------
        StudyError
            Naming the parameter at fault (``error.parameter``) and, for
            generators, learners and data models, the entry (``error.entry``).

        Examples
        --------
        >>> from skggm_bench.generators import UniformChordal
        >>> from sklearn.covariance import LedoitWolf
        >>> bench = Benchmark({"uniform": UniformChordal()}, {"lw": LedoitWolf()},
        ...                   densities=0.3, n_features=20)
        >>> bench.validate()
        Traceback (most recent call last):
        ...
        skggm_bench.benchmark._benchmark.StudyError: generator 'uniform' cannot \
sample on graph='erdos_renyi' with n_features=20, density=0.3: ...
        """
        self._validate()

    def _validate(self) -> _Grid:
        for name, constraints in self._parameter_constraints.items():
            try:
                validate_parameter_constraints(
                    {name: constraints},
                    {name: getattr(self, name)},
                    caller_name="Benchmark",
                )
            except ValueError as exc:  # sklearn's InvalidParameterError
                raise StudyError(name, str(exc)) from None
        check_execution(self.n_jobs, self.backend)
        _check_random_state(self.random_state)
        try:
            check_shard(self.shard)
        except ValueError as exc:
            raise StudyError("shard", str(exc)) from None
        graphs = _check_graphs(self.graph, self.graph_params)
        isolate = bool(self.isolate)
        if isolate and not hasattr(os, "fork"):
            raise StudyError(
                "isolate",
                "isolate=True runs fits in forked child processes, and this platform "
                "has no os.fork; set isolate=False (then without timeouts, memory "
                "limits or crash protection)",
            )
        if not isolate and (self.timeout is not None or self.memory_limit is not None):
            raise StudyError(
                "isolate",
                "timeout and memory_limit need isolate=True: only a separate process "
                "can be stopped at a deadline or capped in memory",
            )
        data_models = (
            {DEFAULT_DATA_MODEL: None}
            if self.data_models is None
            else _check_unseeded(
                _check_named(
                    self.data_models,
                    "data_models",
                    ("observe", "get_params"),
                    "{'npn': Nonparanormal()}",
                ),
                "data_models",
            )
        )
        n_features = _check_integers(self.n_features, "n_features", 2, MAX_N_FEATURES)
        sample_sizes, ratios = _sample_sizes(
            self.n_samples, self.sample_size_ratios, n_features
        )
        grid = _Grid(
            generators=_check_unseeded(
                _check_named(
                    self.generators,
                    "generators",
                    ("fit", "sample", "get_params"),
                    "{'dd': DiagonalDominance()}",
                ),
                "generators",
            ),
            data_models=data_models,
            learners=_check_named(
                self.learners,
                "learners",
                ("fit", "get_params"),
                "{'glasso': GraphicalLasso()}",
            ),
            graphs=graphs,
            densities=_check_densities(self.densities),
            n_features=n_features,
            n_samples=sample_sizes,
            sample_size_ratios=ratios,
            n_repeats=int(self.n_repeats),
            model=self.model,
            metrics=_check_metrics(self.metrics),
            timeout=None if self.timeout is None else float(self.timeout),
            memory_limit=_check_memory_limit(self.memory_limit),
            isolate=isolate,
            models=_check_models(self.models, data_models, self.model),
        )
        _check_row_generators(grid)
        _check_data_size(grid)
        _check_data_model_params(grid.data_models)
        grid = dataclasses.replace(
            grid,
            graphs=_fix_structures(grid.graphs, grid.n_features, self.graph),
            shipped=_check_shipping(grid.learners, self._fresh_workers()),
            versions=_check_versions(grid.learners),
        )
        if grid.n_fits > MAX_FITS:
            raise StudyError(
                "n_repeats",
                f"the study has {grid.n_fits:,} fits, more than the {MAX_FITS:,} a "
                "study may have; use fewer repeats or a smaller grid, or split it "
                "into several studies",
            )
        self._probe(grid)
        return grid

    def _fresh_workers(self) -> bool:
        """Whether the fits may run in worker processes started afresh (loky)."""
        if self.backend == "threading":
            return False
        try:
            with self._backend_config():
                return joblib.effective_n_jobs(self.n_jobs) != 1
        except Exception:  # e.g. dask without a client: refused later, or remote
            return self.n_jobs not in (None, 1)

    def _probe(self, grid: _Grid) -> None:
        """Draw each graph of the grid, and fit each generator on it."""
        for name, entry in grid.graphs.items():
            what = repr(name)
            for density, p in grid.points(name):
                drawn = entry.drawn_density(density)
                try:
                    graph = draw_graph(
                        entry.family, p, drawn, dict(entry.params), seed=0
                    )
                except Exception as exc:
                    raise StudyError(
                        "graph",
                        f"cannot draw a graph={what} with n_features={p}, "
                        f"density={drawn}: {exc}",
                        name if isinstance(self.graph, Mapping) else None,
                    ) from exc
                for generator_name, generator in grid.generators.items():
                    try:
                        clone(generator).fit(graph.adjacency)
                    except Exception as exc:
                        raise StudyError(
                            "generators",
                            f"generator {generator_name!r} cannot sample on graph="
                            f"{what} with n_features={p}, density={drawn}: {exc}",
                            generator_name,
                        ) from exc
                    self._probe_models(grid, generator_name, graph.adjacency)

    @staticmethod
    def _probe_models(grid: _Grid, generator: str, adjacency: np.ndarray) -> None:
        """Fit each related model around ``generator`` on a graph of the grid."""
        for name, model in grid.models.items():
            if model.is_single:
                continue
            try:
                model.generator(grid.generators[generator]).fit(adjacency)
            except Exception as exc:
                raise StudyError(
                    "models",
                    f"model {name!r} cannot be drawn around generator "
                    f"{generator!r} on a graph of {adjacency.shape[0]} nodes with "
                    f"{int(np.triu(adjacency, 1).sum())} edges: {exc}",
                    name,
                ) from exc

    @staticmethod
    def _fingerprint(grid: _Grid, entropy: int, stored: bool = True) -> dict:
        """What must match for a store to be resumed: all that can change a row.

        Without a store (``stored=False``) nothing is resumed: a value that cannot
        be described is recorded as such instead of refusing the study.
        """
        described = {}
        for name in ("generators", "data_models", "learners"):
            try:
                described[name] = describe(getattr(grid, name), name)
            except FingerprintError as exc:
                if stored:
                    raise StudyError(name, str(exc)) from None
                described[name] = {"not described": str(exc)}
        try:
            described["graph"] = describe(
                {name: entry.describe() for name, entry in grid.graphs.items()},
                "graph",
            )
        except FingerprintError as exc:
            raise StudyError("graph", str(exc)) from None
        return {
            "seeding": SEEDING_SCHEME,
            "entropy": entropy,
            **described,
            "densities": list(grid.densities),
            "n_features": list(grid.n_features),
            # A study that gives its sample sizes as ratios records them; the
            # fingerprint of every other study is what it was before they existed.
            **(
                {"n_samples": list(grid.n_samples[grid.n_features[0]])}
                if grid.sample_size_ratios is None
                else {"sample_size_ratios": list(grid.sample_size_ratios)}
            ),
            "n_repeats": grid.n_repeats,
            "model": grid.model,
            # Only a study with related models has the key: the fingerprint of
            # every study of one graph per data set is what it was before.
            **(
                {"models": {n: e.describe() for n, e in grid.models.items()}}
                if any(not e.is_single for e in grid.models.values())
                else {}
            ),
            "metrics": list(grid.metrics),
            "timeout": grid.timeout,
            "memory_limit": grid.memory_limit,
        }

    def _open_store(self) -> ResultStore:
        if self.store is None:
            return ResultStore(":memory:")
        if isinstance(self.store, ResultStore):
            return self.store
        if isinstance(self.store, (str, os.PathLike)):
            return ResultStore(self.store)
        raise StudyError(
            "store",
            f"store must be None, a file path or a ResultStore, got {self.store!r}",
        )

    # -- running ---------------------------------------------------------------------

    def run(
        self,
        progress: Callable[[int, int], Any] | None = None,
        *,
        against: str | os.PathLike | ResultStore | None = None,
    ) -> BenchmarkResult:
        """Run every fit of the grid that is not stored yet; return all the rows.

        Parameters
        ----------
        progress : callable or None, default=None
            Called as ``progress(done, total)`` (numbers of rows) once before the
            first fit, with the rows already stored, and after every fit.
        against : str, os.PathLike, ResultStore or None, default=None
            A published study's store, to add this study's learners to it without
            re-running its own. This study's data side (generators, graphs, data
            models, densities, sizes, repeats, ``random_state``; None takes the
            published seed) and its metrics, timeout and memory limit must be the
            published study's, and a learner of both the same estimator; only the
            learners the published study lacks are run, each row checked to carry
            the seed and data hash of the published rows of its data set. ``store``
            then receives the extended study: the published rows and the new ones
            (the published store is never changed, so ``store`` must be another
            path). ``shard`` splits the new learners' fits.

        Returns
        -------
        BenchmarkResult
            All the rows of the grid (stored earlier or computed now), sorted in
            grid order: models, generators, graphs, data models and learners as
            given, then densities, n_features, n_samples and repeats.

        Raises
        ------
        StudyError
            For an invalid study, before anything runs.
        StudyMismatchError
            If ``store`` holds a different study; with ``against``, if this
            study's data side or judging differs from the published one (naming
            the first difference), or a new row's data set is not the published
            one (naming the row).
        KeyboardInterrupt
            Re-raised after an interruption; the rows committed so far are kept.

        Examples
        --------
        >>> from sklearn.covariance import GraphicalLasso
        >>> from skggm_bench.generators import DiagonalDominance
        >>> calls = []
        >>> result = Benchmark({"dd": DiagonalDominance()},
        ...                    {"glasso": GraphicalLasso(alpha=0.2)},
        ...                    n_features=8, n_samples=50, n_repeats=3,
        ...                    random_state=0).run(progress=lambda *a: calls.append(a))
        >>> calls[0], calls[-1]
        ((0, 3), (3, 3))

        Adding a learner to a published study runs that learner alone:

        >>> import tempfile, pathlib
        >>> from sklearn.covariance import LedoitWolf
        >>> tmp = pathlib.Path(tempfile.mkdtemp())
        >>> study = dict(generators={"dd": DiagonalDominance()}, n_features=8,
        ...              n_samples=50, n_repeats=3, random_state=0)
        >>> _ = Benchmark(learners={"glasso": GraphicalLasso(alpha=0.2)},
        ...               store=tmp / "published.sqlite", **study).run()
        >>> extended = Benchmark(learners={"lw": LedoitWolf()},
        ...                      store=tmp / "extended.sqlite", **study).run(
        ...     against=tmp / "published.sqlite")
        >>> extended.n_computed, sorted(extended.frame.learner.unique())
        (3, ['glasso', 'lw'])
        """
        if progress is not None and not callable(progress):
            raise TypeError(
                f"progress must be a callable(done, total), got {progress!r}"
            )
        grid = self._validate()
        self._check_against(against)
        # Entering the backend's configuration validates it (unknown name, dask
        # without a client) before the store is touched.
        with self._backend_config():
            extension = None
            if against is not None:  # refused before the store is created
                entropy = self._published_entropy(against)
                extension = extend_study(against, self._fingerprint(grid, entropy))
            store = self._open_store()
            try:
                if extension is None:
                    entropy = self._entropy(store)
                    fingerprint = self._fingerprint(
                        grid, entropy, stored=self.store is not None
                    )
                else:
                    fingerprint = extension.study
                study = store.ensure_study(fingerprint)
                self.entropy_ = entropy
                n_computed = self._fill(store, grid, entropy, progress, extension)
                if extension is not None:  # rank every learner, published first
                    grid = dataclasses.replace(
                        grid, learners=dict.fromkeys(extension.study["learners"])
                    )
                frame = _ordered_frame(store.frame(), grid)
            finally:
                if store is not self.store:  # opened here: close it here
                    store.close()
        path = None if store.path == ":memory:" else store.path
        return BenchmarkResult(
            frame,
            study,
            store=path,
            n_computed=n_computed,
            tie_tolerance=float(self.tie_tolerance),
        )

    def _check_against(self, against: Any) -> None:
        """``against`` is a store other than ``store``: a published one stays."""
        if against is None:
            return
        if not isinstance(against, (str, os.PathLike, ResultStore)):
            raise StudyError(
                "against",
                f"against must be None, a file path or a ResultStore, got {against!r}",
            )
        published = against.path if isinstance(against, ResultStore) else against
        store = self.store.path if isinstance(self.store, ResultStore) else self.store
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

    def _entropy(self, store: ResultStore) -> int:
        entropy = check_study_random_state(self.random_state)
        if entropy is not None:
            return entropy
        stored = store.study()  # random_state=None resumes with the stored entropy
        if stored is not None and "entropy" in stored:
            return int(stored["entropy"])
        return fresh_entropy()

    def _published_entropy(self, against: str | os.PathLike | ResultStore) -> int:
        """random_state=None extends a published study with its own seed."""
        if isinstance(against, ResultStore):
            return self._entropy(against)
        with ResultStore(against, read_only=True) as published:
            return self._entropy(published)

    def _spec(self, grid: _Grid, entropy: int) -> Spec:
        return Spec(
            token=uuid.uuid4().hex,
            entropy=entropy,
            generators=grid.generators,
            data_models=grid.data_models,
            learners=grid.shipped,
            versions=grid.versions,
            modules={
                name: learner_modules(learner)
                for name, learner in grid.learners.items()
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
        self,
        store: ResultStore,
        grid: _Grid,
        entropy: int,
        progress: Callable[[int, int], Any] | None,
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
        shard = check_shard(self.shard)
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

        def on_row(row: dict) -> None:
            warned.add(row.pop(WARNING_COUNTS, {}), row["learner"])
            if extension is not None:  # refused before it is stored
                extension.check_row(row)
            # One transaction per row: an interruption (Ctrl-C, SIGKILL) leaves
            # every finished fit committed and nothing half-written.
            counts["computed"] += store.append([row])
            counts["done"] += 1
            if progress is not None:
                progress(counts["done"], total)

        spec = self._spec(grid, entropy)
        identity, before = store.identity(), len(store)
        try:
            adopt_strays()  # what an interrupted run's fits leave ends with it
            execute(spec, fits, self.n_jobs, self.verbose, on_row)
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

    def _backend_config(self) -> Any:
        if self.backend is None:  # keep whatever parallel_config is active
            return contextlib.nullcontext()
        try:
            return joblib.parallel_config(backend=self.backend)
        except (ValueError, KeyError) as exc:
            raise StudyError(
                "backend", f"backend={self.backend!r} is not usable: {exc}"
            ) from exc

    def dataset(
        self,
        generator: str,
        *,
        density: float | None,
        repeat: int,
        n_samples: int,
        n_features: int | None = None,
        data_model: str | None = None,
        graph: str | None = None,
        model: str | None = None,
    ) -> Bunch:
        """Re-create the data set behind a result row (e.g. to debug a failure).

        Parameters
        ----------
        generator : str
            A key of ``generators``.
        density : float or None
            The row's density (None for families without one).
        repeat : int
            The row's repeat.
        n_samples : int
            The row's sample size.
        n_features : int or None, default=None
            The row's ``n_features``; may be omitted when the grid has one value.
        data_model : str or None, default=None
            The row's data model; may be omitted when the study has one.
        graph : str or None, default=None
            The row's graph (a name of the graph axis); may be omitted when the
            study has one.
        model : str or None, default=None
            The row's model (a name of the model axis); may be omitted when the
            study has one. ``generator`` is then the generator's own name.

        Returns
        -------
        sklearn.utils.Bunch
            The same keys as :func:`skggm_bench.datasets.make_ggm` returns:
            ``X``, the true ``adjacency`` (the support of the drawn matrix),
            ``covariance``, ``precision``, ``seed`` (the row's seed), ... For a
            related model: ``X``, ``y`` (the group of each row, None for a latent
            model), ``adjacency``, ``precision`` and ``covariance`` of shape
            (K, p, p), ``sparse`` and ``low_rank`` (latent), ``seed``: the data of
            ``make_joint_ggm`` (``make_time_varying_ggm``, ``make_latent_ggm``)
            with ``random_state=seed``.

        Raises
        ------
        ValueError
            If the study entropy is unknown (set an int ``random_state`` or call
            :meth:`run` first), or a coordinate is not in the grid.

        Examples
        --------
        >>> from skggm_bench.generators import DiagonalDominance
        >>> bench = Benchmark({"dd": DiagonalDominance()}, {}, n_features=6,
        ...                   random_state=0)
        >>> bench.dataset("dd", density=0.1, repeat=0, n_samples=20).X.shape
        (20, 6)
        """
        entropy = getattr(self, "entropy_", None)
        if entropy is None:
            entropy = check_study_random_state(self.random_state)
        if entropy is None:
            raise ValueError(
                "the study entropy is unknown: set random_state to an int, or call "
                "run() first"
            )
        generators = _check_named(
            self.generators, "generators", ("fit", "sample", "get_params"), "{}"
        )
        if generator not in generators:
            raise ValueError(
                f"unknown generator {generator!r}; have {list(generators)}"
            )
        data_models = (
            {DEFAULT_DATA_MODEL: None}
            if self.data_models is None
            else _check_named(self.data_models, "data_models", ("observe",), "{}")
        )
        if data_model is None:
            if len(data_models) != 1:
                raise ValueError(
                    f"the study has data models {list(data_models)}: say which one"
                )
            data_model = next(iter(data_models))
        if data_model not in data_models:
            raise ValueError(
                f"unknown data model {data_model!r}; have {list(data_models)}"
            )
        if n_features is None:
            sizes = _check_integers(self.n_features, "n_features", 2, MAX_N_FEATURES)
            if len(sizes) != 1:
                raise ValueError(f"the grid has n_features {sizes}: say which one")
            n_features = sizes[0]
        graphs = _check_graphs(self.graph, self.graph_params)
        if graph is None:
            if len(graphs) != 1:
                raise ValueError(f"the study has graphs {list(graphs)}: say which one")
            graph = next(iter(graphs))
        if graph not in graphs:
            raise ValueError(f"unknown graph {graph!r}; have {list(graphs)}")
        entry = graphs[graph]
        density = _check_densities((density,))[0]
        if not entry.follows_density:
            realised = realised_density(entry, int(n_features))
            if density is not None and density != realised:
                raise ValueError(
                    f"graph {graph!r} has a fixed structure: its rows with "
                    f"n_features={n_features} have density {realised}, not {density}"
                )
            density = None  # fixed structures are drawn without a density
        seed = cell_seed(entropy, graph, int(n_features), density, int(repeat))
        drawn = draw_graph(
            entry.family, int(n_features), density, dict(entry.params), seed
        )
        models = _check_models(self.models, data_models, self.model)
        if model is None:
            if len(models) != 1:
                raise ValueError(f"the study has models {list(models)}: say which one")
            model = next(iter(models))
        if model not in models:
            raise ValueError(f"unknown model {model!r}; have {list(models)}")
        if not models[model].is_single:
            related = draw_related_cell(
                models[model],
                drawn.adjacency,
                generators[generator],
                int(n_samples),
                seed,
            )
            X, y = related.data(int(n_samples))
            return Bunch(
                X=X,
                y=y,
                adjacency=related.adjacency,
                precision=related.precision,
                covariance=related.covariance,
                sparse=related.sparse,
                low_rank=related.low_rank,
                seed=seed,
            )
        truth = draw_model(drawn.adjacency, generators[generator], self.model, seed)
        latent = draw_latent(truth, int(n_samples), seed)
        X, observer = observe(latent, truth.covariance, data_models[data_model], seed)
        return data_bunch(drawn, truth, X, latent=None, data_model=observer, seed=seed)


def _ordered_frame(frame: pd.DataFrame, grid: _Grid) -> pd.DataFrame:
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
