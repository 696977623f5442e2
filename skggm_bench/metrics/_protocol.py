"""Reading a fitted learner: the estimator protocol (documented in the package).

Every part of skggm-bench that turns a fitted estimator into a graph, edge scores or
a matrix -- the scorers, the metric registry and therefore the benchmark harness --
goes through the functions here, so the rules exist once.
"""

from __future__ import annotations

import numbers
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from sklearn.pipeline import Pipeline

from ._validation import check_adjacency, check_symmetric_real

__all__ = [
    "DEFAULT_TOL",
    "MODELS",
    "Model",
    "check_edge_decisions",
    "check_model",
    "check_tol",
    "covariance_from_estimator",
    "edge_scores_from_estimator",
    "edges_from_estimator",
    "feature_scale",
    "fitted_learner",
    "precision_from_estimator",
]

Model = Literal["concentration", "covariance"]
MODELS: tuple[Model, ...] = ("concentration", "covariance")

# Default tolerance on |partial correlation| for "non-zero": far above round-off of
# a standardised matrix, far below anything estimable from data (the standard
# error of a partial correlation is about 1/sqrt(n)).
DEFAULT_TOL = 1e-8

# The attributes the protocol reads, in its order of preference for edges.
_PROTOCOL_ATTRIBUTES = (
    "adjacency_",
    "precision_",
    "partial_correlation_",
    "covariance_",
)


def check_model(model: object) -> Model:
    """``model`` itself, or a ValueError naming the two choices."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}.")
    return model


def check_tol(tol: Any) -> float:
    """``tol`` as a float in [0, 1), or a clear error."""
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real):
        raise TypeError(f"tol must be a real number, got {tol!r}.")
    if not (0.0 <= float(tol) < 1.0):
        raise ValueError(
            "tol must lie in [0, 1) because it thresholds absolute (partial) "
            f"correlations; got {tol!r}."
        )
    return float(tol)


def check_edge_decisions(decisions: Any, name: str) -> Any:
    """``decisions`` itself, or a ValueError naming its first entry that is no decision.

    An edge decision (``adjacency_``, one graph of a path, one per group) is 0/1
    or True/False off the diagonal. Anything else -- NaN, an R ``NA`` passed on as
    a number, 2, -1 -- must not become an edge by being "non-zero": the row fails
    with the entry named instead. The diagonal is not a decision and is ignored.
    Sparse matrices, graphs and masked arrays are left to
    :func:`~skggm_bench.graphs.check_adjacency`; so are arrays that are not
    numeric or not square, whose errors say so.

    Parameters
    ----------
    decisions : array-like of shape (..., p, p)
        The decisions.
    name : str
        What to call them in the error, e.g. ``"GraphicalLasso.adjacency_"``.

    Returns
    -------
    object
        ``decisions``, unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> check_edge_decisions(np.array([[0, np.nan], [np.nan, 0]]), "adjacency_")
    Traceback (most recent call last):
    ...
    ValueError: adjacency_[0, 1] is NaN; an edge decision must be 0/1 or True/False
    """
    if not isinstance(decisions, (np.ndarray, list, tuple)) or isinstance(
        decisions, np.ma.MaskedArray
    ):
        return decisions
    values = np.asarray(decisions)
    if (
        values.dtype.kind not in "iuf"
        or values.ndim < 2
        or values.shape[-1] != values.shape[-2]
    ):
        return decisions
    off_diagonal = ~np.eye(values.shape[-1], dtype=bool)
    bad = ~np.isin(values, (0, 1)) & off_diagonal
    if bad.any():
        index = tuple(int(k) for k in np.argwhere(bad)[0])
        value = values[index].item()
        shown = "NaN" if value != value else repr(value)
        raise ValueError(
            f"{name}[{', '.join(map(str, index))}] is {shown}; an edge decision "
            "must be 0/1 or True/False"
        )
    return decisions


def _attribute(estimator: Any, name: str) -> Any:
    # Unfitted sklearn estimators lack the attribute; some fitted ones set it to None
    # (e.g. EmpiricalCovariance(store_precision=False).precision_). Both mean "absent".
    return getattr(estimator, name, None)


def _exposes_protocol(estimator: Any) -> bool:
    return any(_attribute(estimator, name) is not None for name in _PROTOCOL_ATTRIBUTES)


def _walk(estimator: Any) -> tuple[Any, str, list[tuple[str, Any]]]:
    """The learner reached, its description, and the pipeline steps before it.

    The steps are in the order they transform the data: an outer pipeline's
    steps come before those of a pipeline that is its final step.
    """
    path = []
    steps: list[tuple[str, Any]] = []
    while not _exposes_protocol(estimator):
        if isinstance(estimator, Pipeline):
            name, step = estimator.steps[-1]
            path.append(f"final step {name!r} of a Pipeline")
            steps += [
                (label, transform)
                for label, transform in estimator.steps[:-1]
                if transform is not None and not isinstance(transform, str)
            ]
            estimator = step
        elif _attribute(estimator, "best_estimator_") is not None:
            path.append(f"best_estimator_ of a {type(estimator).__name__}")
            estimator = estimator.best_estimator_
        else:
            break
    where = type(estimator).__name__
    if path:
        where += f" ({', '.join(reversed(path))})"
    return estimator, where, steps


def fitted_learner(estimator: Any) -> tuple[Any, str]:
    """The object whose attributes the protocol reads, and how it was reached.

    An estimator that exposes a protocol attribute itself is read directly.
    Otherwise a :class:`~sklearn.pipeline.Pipeline` is read through its final step
    and a fitted search (anything with ``best_estimator_``, e.g.
    :class:`~sklearn.model_selection.GridSearchCV`) through its best estimator,
    nested to any depth (a search over a pipeline, a pipeline ending in a search).

    Parameters
    ----------
    estimator : object
        A fitted estimator, pipeline or search.

    Returns
    -------
    learner : object
        The innermost estimator reached.
    where : str
        Its description for error messages, e.g. ``"GraphicalLasso (final step
        'graphicallasso' of a Pipeline)"``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import GraphicalLasso
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X = np.random.default_rng(0).standard_normal((50, 3))
    >>> pipe = make_pipeline(StandardScaler(), GraphicalLasso()).fit(X)
    >>> learner, where = fitted_learner(pipe)
    >>> where
    "GraphicalLasso (final step 'graphicallasso' of a Pipeline)"
    """
    learner, where, _ = _walk(estimator)
    return learner, where


# A step's map is confirmed affine per feature on this many rows besides the two
# that define it; and up to this relative round-off (far above that of a
# subtraction and a division, far below any nonlinearity a transformer has).
_CHECK_ROWS = 8
_AFFINE_RTOL = 1e-8


def _probe_rows(p: int, X: Any) -> NDArray[np.float64]:
    """A centre, the centre plus one spread per feature, then rows to check on."""
    if X is None:
        centre, spread = np.zeros(p), np.ones(p)
        rows = np.random.default_rng(0).standard_normal((_CHECK_ROWS, p))
    else:
        data = np.asarray(X, dtype=np.float64)
        if data.ndim != 2 or data.shape[1] != p or data.shape[0] < 1:
            raise ValueError(
                f"X must have shape (n_samples, {p}) to map the learner's matrices "
                f"back to the data's scale, got {data.shape}"
            )
        centre = data.mean(axis=0)
        spread = data.std(axis=0)
        spread[~(spread > 0)] = 1.0
        rows = data[:_CHECK_ROWS]
    return np.vstack([centre, centre + spread, rows])


def _step_multipliers(
    name: str, step: Any, probe: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``a`` with ``step.transform(x) = a * x + b`` for every x, and the image."""
    label = f"the Pipeline step {name!r} ({type(step).__name__})"
    try:
        # A copy: a step fitted with copy=False transforms its input in place.
        image = np.asarray(step.transform(probe.copy()), dtype=np.float64)
    except Exception as exc:
        raise ValueError(
            f"{label} cannot be applied to probe rows to learn its scale "
            f"({type(exc).__name__}: {exc})"
        ) from None
    if image.shape != probe.shape:
        raise ValueError(
            f"{label} turns {probe.shape[1]} features into "
            f"{image.shape[1] if image.ndim == 2 else image.shape}, so the "
            "learner's matrices are not of the data's variables"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        multipliers = (image[1] - image[0]) / (probe[1] - probe[0])
    predicted = image[0] + (probe[2:] - probe[0]) * multipliers
    size = np.maximum(np.abs(image).max(axis=0), np.abs(predicted).max(axis=0))
    if not (
        np.all(np.isfinite(multipliers))
        and np.all(np.abs(image[2:] - predicted) <= _AFFINE_RTOL * size)
    ):
        raise ValueError(
            f"{label} is not a rescaling of each feature (x -> a x + b), so the "
            "learner's matrices cannot be mapped back to the data's scale"
        )
    if np.any(multipliers == 0):
        raise ValueError(
            f"{label} maps feature {int(np.flatnonzero(multipliers == 0)[0])} to a "
            "constant, so the learner's matrices cannot be mapped back to the "
            "data's scale"
        )
    return multipliers, image


def feature_scale(estimator: Any, X: Any = None) -> NDArray[np.float64] | None:
    """How the steps of a pipeline rescaled each feature before its learner saw it.

    The learner at the end of a :class:`~sklearn.pipeline.Pipeline` (nested to any
    depth, also inside a fitted search) was fitted on ``z = a * x + b``: each
    step that rescales features (``StandardScaler``, ``RobustScaler``,
    ``MaxAbsScaler``, ``MinMaxScaler``, or any transformer of that form) is an
    affine map per feature. Its ``a`` is read from the step's fitted ``transform``
    applied to two probe rows (the centre of ``X`` and the centre plus one
    standard deviation per feature), and confirmed, to round-off, on eight more
    rows; the centring ``b`` does not change a covariance. The learner's matrices
    then map back to the data's scale: with ``D = diag(1 / a)``,
    ``Sigma_data = D Sigma D`` and ``Theta_data = D^-1 Theta D^-1``.

    Parameters
    ----------
    estimator : object
        A fitted estimator, pipeline or search.
    X : array-like of shape (n_samples, p) or None, default=None
        The data it was fitted on, where the probe rows are taken from; without
        it, standard normal rows are used.

    Returns
    -------
    ndarray of shape (p,) or None
        The multipliers ``a`` (the product over the steps), or None when no step
        comes before the learner.

    Raises
    ------
    ValueError
        If a step is not a rescaling of each feature (it mixes, drops or bends
        them, e.g. a PCA or a quantile transform), or maps a feature to a
        constant: then there is no data-scale reading of the learner's matrices.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import EmpiricalCovariance
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X = np.random.default_rng(0).standard_normal((500, 2)) * [1.0, 10.0]
    >>> pipe = make_pipeline(StandardScaler(), EmpiricalCovariance()).fit(X)
    >>> np.allclose(feature_scale(pipe, X), 1 / X.std(axis=0))
    True
    """
    learner, _, steps = _walk(estimator)
    if not steps:
        return None
    p = _n_features(learner, steps, X)
    probe = _probe_rows(p, X)
    total = np.ones(p)
    for name, step in steps:
        multipliers, probe = _step_multipliers(name, step, probe)
        total *= multipliers
    return total


def _n_features(learner: Any, steps: list[tuple[str, Any]], X: Any) -> int:
    if X is not None:
        return int(np.shape(X)[1])
    n = _attribute(steps[0][1], "n_features_in_")
    if n is None:
        for name in ("covariance_", "precision_"):
            matrix = _attribute(learner, name)
            if matrix is not None:
                return int(np.shape(matrix)[0])
        raise ValueError(
            "cannot tell how many features the pipeline was fitted on; pass X"
        )
    return int(n)


def _matrix_attribute(model: str) -> str:
    return "precision_" if model == "concentration" else "covariance_"


def _absolute_standardised(matrix: Any, name: str) -> NDArray[np.float64]:
    """``|M_ij| / sqrt(M_ii M_jj)`` off the diagonal, 0 on it.

    For a precision matrix these are the absolute partial correlations
    (``rho_ij = -Omega_ij / sqrt(Omega_ii Omega_jj)``); for a covariance matrix, the
    absolute correlations.
    """
    arr = check_symmetric_real(matrix, name)
    diagonal = np.diag(arr)
    if np.any(diagonal <= 0):
        raise ValueError(
            f"{name} must have a positive diagonal to be standardised, got minimum "
            f"{diagonal.min()!r}."
        )
    inv_sd = 1.0 / np.sqrt(diagonal)
    standardised = np.abs(arr) * inv_sd[:, None] * inv_sd[None, :]
    np.fill_diagonal(standardised, 0.0)
    return standardised


def _missing_attributes_error(learner: Any, where: str, model: str) -> ValueError:
    wanted = ("adjacency_", _matrix_attribute(model)) + (
        ("partial_correlation_",) if model == "concentration" else ()
    )
    present = [
        name for name in _PROTOCOL_ATTRIBUTES if _attribute(learner, name) is not None
    ]
    hint = (
        f" It exposes {', '.join(present)}; is model={model!r} the intended graph?"
        if present
        else " Is it fitted?"
    )
    return ValueError(
        f"Cannot read a graph from {where} for model={model!r}: it exposes none of "
        f"{', '.join(wanted)}.{hint} See the estimator protocol in the "
        "skggm_bench.metrics module docstring."
    )


def edges_from_estimator(
    estimator: Any,
    *,
    model: Model = "concentration",
    tol: float = DEFAULT_TOL,
) -> NDArray[np.bool_]:
    """Estimated graph of a fitted estimator, following the estimator protocol.

    Reads ``adjacency_`` if present, otherwise ``precision_`` (else
    ``partial_correlation_``) for ``model="concentration"`` or ``covariance_``
    for ``model="covariance"``, and keeps the pairs whose absolute (partial)
    correlation exceeds ``tol``. A
    Pipeline is read through its final step and a fitted search through its
    ``best_estimator_``. The full rules are in the *estimator protocol* section of
    the :mod:`skggm_bench.metrics` module docstring.

    Parameters
    ----------
    estimator : object
        A fitted estimator, pipeline or search.
    model : {"concentration", "covariance"}, default="concentration"
        Which graph is estimated: zeros of the precision (conditional
        independences) or of the covariance (marginal independences).
    tol : float, default=1e-8
        A pair is an edge when its absolute (partial) correlation is ``> tol``.
        Not applied to ``adjacency_``.

    Returns
    -------
    ndarray of shape (p, p), dtype bool
        Symmetric adjacency with a False diagonal.

    Raises
    ------
    ValueError
        If the estimator exposes none of the usable attributes (e.g. it is not
        fitted), or the attribute read is not a valid matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import GraphicalLasso
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 4))
    >>> X[:, 1] += X[:, 0]                       # only variables 0 and 1 related
    >>> model = GraphicalLasso(alpha=0.2).fit(X)
    >>> edges_from_estimator(model).astype(int)
    array([[0, 1, 0, 0],
           [1, 0, 0, 0],
           [0, 0, 0, 0],
           [0, 0, 0, 0]])
    """
    model = check_model(model)
    tol = check_tol(tol)
    learner, where = fitted_learner(estimator)
    adjacency = _attribute(learner, "adjacency_")
    if adjacency is not None:
        name = f"{where}.adjacency_"
        return check_adjacency(check_edge_decisions(adjacency, name), name=name)
    attribute = _matrix_attribute(model)
    matrix = _attribute(learner, attribute)
    if matrix is not None:
        return _absolute_standardised(matrix, f"{where}.{attribute}") > tol
    partial = _attribute(learner, "partial_correlation_")
    if partial is not None and model == "concentration":
        return _absolute_partial_correlation(partial, where) > tol
    raise _missing_attributes_error(learner, where, model)


def _edge_scores(scores: Any, name: str) -> NDArray[np.float64]:
    """A learner's own ``edge_scores_``, validated: symmetric, in [0, 1]."""
    matrix = check_symmetric_real(scores, name)
    if matrix.min(initial=0.0) < 0.0 or matrix.max(initial=0.0) > 1.0 + 1e-8:
        raise ValueError(f"{name} has entries outside [0, 1]")
    matrix = np.array(matrix, dtype=np.float64)
    np.fill_diagonal(matrix, 0.0)
    return matrix


def _absolute_partial_correlation(partial: Any, where: str) -> NDArray[np.float64]:
    """``|partial_correlation_|`` validated as a symmetric matrix in [-1, 1]."""
    matrix = np.asarray(partial, dtype=np.float64)
    name = f"{where}.partial_correlation_"
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if np.abs(matrix).max(initial=0.0) > 1.0 + 1e-8:
        raise ValueError(f"{name} has entries outside [-1, 1]")
    if not np.allclose(matrix, matrix.T, rtol=0.0, atol=1e-8):
        raise ValueError(f"{name} is not symmetric")
    scores = np.abs(matrix)
    np.fill_diagonal(scores, 0.0)
    return scores


def edge_scores_from_estimator(
    estimator: Any, *, model: Model = "concentration"
) -> NDArray[np.float64]:
    """Edge scores of a fitted estimator, following the estimator protocol.

    The learner's own ``edge_scores_`` when it has them (e.g. posterior edge
    probabilities); else absolute partial correlations from ``precision_``
    (``model="concentration"``) or absolute correlations from ``covariance_``
    (``model="covariance"``); for a
    concentration graph without ``precision_``, ``|partial_correlation_|`` (node-wise
    learners); failing all that, ``adjacency_`` as 0/1 scores. Pipelines and
    searches are read as in :func:`edges_from_estimator`. The full rules are in the
    *estimator protocol* section of the :mod:`skggm_bench.metrics` module
    docstring.

    Parameters
    ----------
    estimator : object
        A fitted estimator, pipeline or search.
    model : {"concentration", "covariance"}, default="concentration"
        Which graph is estimated.

    Returns
    -------
    ndarray of shape (p, p), dtype float64
        Symmetric scores in [0, 1] with a zero diagonal, higher = more likely an
        edge.

    Raises
    ------
    ValueError
        If the estimator exposes none of the usable attributes (e.g. it is not
        fitted), or the attribute read is not a valid matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import EmpiricalCovariance
    >>> X = np.random.default_rng(0).standard_normal((500, 3))
    >>> X[:, 2] += X[:, 1]
    >>> scores = edge_scores_from_estimator(EmpiricalCovariance().fit(X))
    >>> int(np.argmax(scores[1]))       # variable 1's strongest partner
    2
    """
    model = check_model(model)
    learner, where = fitted_learner(estimator)
    scores = _attribute(learner, "edge_scores_")
    if scores is not None:
        return _edge_scores(scores, f"{where}.edge_scores_")
    attribute = _matrix_attribute(model)
    matrix = _attribute(learner, attribute)
    if matrix is not None:
        return _absolute_standardised(matrix, f"{where}.{attribute}")
    partial = _attribute(learner, "partial_correlation_")
    if partial is not None and model == "concentration":
        return _absolute_partial_correlation(partial, where)
    adjacency = _attribute(learner, "adjacency_")
    if adjacency is not None:
        name = f"{where}.adjacency_"
        edges = check_adjacency(check_edge_decisions(adjacency, name), name=name)
        return edges.astype(np.float64)
    raise _missing_attributes_error(learner, where, model)


def _matrix_from_estimator(
    estimator: Any, attribute: str, X: Any
) -> NDArray[np.float64]:
    learner, where, _ = _walk(estimator)
    matrix = _attribute(learner, attribute)
    if matrix is None:
        raise AttributeError(
            f"{where} exposes no {attribute}, so losses of the "
            f"{attribute.rstrip('_')} cannot be computed for it"
        )
    matrix = check_symmetric_real(matrix, f"{where}.{attribute}")
    scale = feature_scale(estimator, X)
    if scale is None:
        return matrix
    # The learner saw z = a x + b: Sigma_z = A Sigma_x A with A = diag(a).
    outer = np.outer(scale, scale)
    return matrix / outer if attribute == "covariance_" else matrix * outer


def covariance_from_estimator(estimator: Any, *, X: Any = None) -> NDArray[np.float64]:
    """The ``covariance_`` of a fitted estimator, on the scale of its data.

    Read through pipelines and searches. When pipeline steps rescaled the
    features before the learner (a ``StandardScaler``, ...), the learner's
    matrix is mapped back to the scale of the data given to the pipeline,
    ``Sigma_data = D Sigma D`` (:func:`feature_scale`).

    Parameters
    ----------
    estimator : object
        A fitted estimator, pipeline or search.
    X : array-like of shape (n_samples, p) or None, default=None
        The data it was fitted on (where :func:`feature_scale` probes the steps).

    Returns
    -------
    ndarray of shape (p, p)
        The estimated covariance, validated (finite, symmetric up to round-off) and
        exactly symmetrised.

    Raises
    ------
    AttributeError
        If the estimator has no ``covariance_`` (e.g. a learner that only decides
        edges); the message names the estimator reached.
    ValueError
        If a pipeline step is not a rescaling of each feature.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import LedoitWolf
    >>> X = np.random.default_rng(0).standard_normal((100, 3))
    >>> covariance_from_estimator(LedoitWolf().fit(X)).shape
    (3, 3)
    """
    return _matrix_from_estimator(estimator, "covariance_", X)


def precision_from_estimator(estimator: Any, *, X: Any = None) -> NDArray[np.float64]:
    """The ``precision_`` of a fitted estimator, on the scale of its data.

    Read through pipelines and searches, and mapped back through rescaling steps
    as in :func:`covariance_from_estimator`: ``Theta_data = D^-1 Theta D^-1``.

    Parameters
    ----------
    estimator : object
        A fitted estimator, pipeline or search.
    X : array-like of shape (n_samples, p) or None, default=None
        The data it was fitted on.

    Returns
    -------
    ndarray of shape (p, p)
        The estimated precision, validated and exactly symmetrised.

    Raises
    ------
    AttributeError
        If the estimator has no ``precision_``.
    ValueError
        If a pipeline step is not a rescaling of each feature.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import LedoitWolf
    >>> X = np.random.default_rng(0).standard_normal((100, 3))
    >>> precision_from_estimator(LedoitWolf().fit(X)).shape
    (3, 3)
    """
    return _matrix_from_estimator(estimator, "precision_", X)
