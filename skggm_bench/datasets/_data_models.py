"""Data models: how the observed data arise from a latent Gaussian draw.

A data model maps the clean latent Gaussian rows ``Z ~ N(0, Sigma)`` drawn by
:func:`~skggm_bench.datasets.make_ggm` (or :func:`~skggm_bench.datasets.
sample_gaussian`) to the data a learner sees: transformed, heavy-tailed,
contaminated, discretised or incomplete. The true graph always refers to the latent
matrix; each model says which of its properties survive. See ``docs/data_models.md``.

Every model draws its randomness from independent streams derived from its own
``random_state``: first the model-level draws of fixed size (thresholds, driver
columns, a seed for a wrapped model), then the per-row draws in row-major order.
That is what makes ``observe(latent[:m], covariance)`` equal to
``observe(latent, covariance)[:m]`` (smaller samples are prefixes of larger ones).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from ..utils._validation import RANDOM_STATE, Interval, check_not_masked

__all__ = [
    "Binary",
    "Contaminated",
    "DataModel",
    "Gaussian",
    "MissingAtRandom",
    "MissingCompletelyAtRandom",
    "MultivariateT",
    "Nonparanormal",
    "Ordinal",
]


class _Observation(NamedTuple):
    """What a data model's ``_observe`` returns.

    ``values`` is the observed ``(n, p)`` data; ``cdf`` (only when asked for, else
    ``None``) holds, for the requested columns, the *mid-distribution function*
    ``(F(x-) + F(x)) / 2`` of each observed entry under its marginal law: a
    function of the observed value alone whose mean is exactly 1/2 for any law,
    continuous or discrete. :class:`MissingAtRandom` drives its missingness with it.
    """

    values: np.ndarray
    cdf: np.ndarray | None


def _streams(random_state: Any, salt: str, n_streams: int) -> list[np.random.Generator]:
    """Independent generators from ``random_state``, salted by the model's name.

    The salt keeps two different models given the same seed (e.g. a wrapper and
    the model it wraps) from drawing the same numbers.
    """
    entropy = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    children = np.random.SeedSequence([entropy, zlib.crc32(salt.encode())]).spawn(
        n_streams
    )
    return [np.random.default_rng(child) for child in children]


def _check_observe_input(latent: Any, covariance: Any) -> tuple[np.ndarray, np.ndarray]:
    check_not_masked(latent, "latent")
    check_not_masked(covariance, "covariance")
    latent = np.asarray(latent, dtype=np.float64)
    if latent.ndim != 2 or latent.shape[0] < 1 or latent.shape[1] < 1:
        raise ValueError(
            f"latent must be a non-empty 2-D array (n_samples, n_features), got "
            f"shape {latent.shape}"
        )
    if not np.all(np.isfinite(latent)):
        raise ValueError("latent contains NaN or infinite values")
    covariance = np.asarray(covariance, dtype=np.float64)
    p = latent.shape[1]
    if covariance.shape != (p, p):
        raise ValueError(
            f"covariance must have shape ({p}, {p}) to match latent's {p} columns, "
            f"got {covariance.shape}"
        )
    diagonal = np.diag(covariance)
    if not np.all(np.isfinite(diagonal) & (diagonal > 0)):
        raise ValueError("covariance must have a finite positive diagonal")
    return latent, covariance


def _latent_sd(covariance: np.ndarray) -> np.ndarray:
    return np.sqrt(np.diag(covariance))


class DataModel(BaseEstimator):
    """Base class of the data models: latent Gaussian rows -> observed data.

    A data model is a small scikit-learn-style object (parameters set in
    ``__init__``, validated with ``_parameter_constraints``, ``clone`` and
    ``get_params`` work) with one method, :meth:`observe`.

    **The interface** (what the benchmark's data pipeline calls):
    ``observe(latent, covariance) -> X``, where

    - ``latent`` is an ``(n, p)`` array of rows drawn from ``N(0, covariance)``,
      the clean latent Gaussian data; it is never modified;
    - ``covariance`` is the ``(p, p)`` latent covariance, not necessarily with a
      unit diagonal: transforms that act on standardised variables divide column
      ``j`` by ``sqrt(covariance[j, j])``;
    - ``X`` is the observed ``(n, p)`` float array, ``NaN`` for missing entries.

    ``X`` is a deterministic function of ``(latent, covariance)`` and the model's
    ``random_state`` (when it is an int), and has the **prefix property**:
    ``observe(latent[:m], covariance)`` equals ``observe(latent, covariance)[:m]``,
    so smaller samples are prefixes of larger ones and comparisons across sample
    sizes are paired. Models draw their fixed-size randomness first (it depends on
    ``p`` only), then per-row randomness in row-major order.

    **The truth** of a data set is always the *latent* matrix: the precision (for
    a concentration graph) or covariance (for a covariance graph) of ``Z``.
    ``truth_note`` says, for each model, which properties of that graph the
    observed data keep.

    **Writing a data model**: subclass, declare ``_parameter_constraints`` and
    ``truth_note``, and implement ``_observe(latent, covariance, cdf_columns)``
    returning a pair ``(values, cdf)``; ``latent`` and ``covariance`` arrive
    validated, and ``values`` must be a new array. ``cdf`` may be ``None`` unless
    the model is to be wrapped by :class:`MissingAtRandom`, which asks, for its
    driver columns ``cdf_columns``, the marginal mid-distribution function
    ``(F(x-) + F(x)) / 2`` of each observed value (an ``(n, len(cdf_columns))``
    array).

    Attributes
    ----------
    truth_note : str
        Class attribute: the matrix the truth refers to and the graph properties
        the observed data keep.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.datasets import Gaussian, sample_gaussian
    >>> covariance = np.array([[1.0, 0.5], [0.5, 2.0]])
    >>> latent = sample_gaussian(covariance, 5, random_state=0)
    >>> bool(np.array_equal(Gaussian().observe(latent, covariance), latent))
    True
    """

    truth_note: ClassVar[str] = ""
    _parameter_constraints: ClassVar[dict[str, list[object]]] = {}

    def observe(self, latent: ArrayLike, covariance: ArrayLike) -> NDArray[np.float64]:
        """Observed data for the latent Gaussian rows ``latent``.

        Parameters
        ----------
        latent : array-like of shape (n_samples, n_features)
            Rows drawn from ``N(0, covariance)``; not modified.
        covariance : array-like of shape (n_features, n_features)
            The latent covariance (only its diagonal is read by the built-in
            models, to standardise the variables).

        Returns
        -------
        X : ndarray of shape (n_samples, n_features), float64
            The observed data, ``NaN`` where an entry is missing.
        """
        latent, covariance = _check_observe_input(latent, covariance)
        values, _ = self._observe_validated(latent, covariance, None)
        return values

    def _observe_validated(
        self,
        latent: np.ndarray,
        covariance: np.ndarray,
        cdf_columns: np.ndarray | None,
    ) -> _Observation:
        self._validate_params()
        return self._observe(latent, covariance, cdf_columns)

    def _observe(
        self,
        latent: np.ndarray,
        covariance: np.ndarray,
        cdf_columns: np.ndarray | None,
    ) -> _Observation:
        raise NotImplementedError(
            f"{type(self).__name__} must implement _observe(latent, covariance, "
            "cdf_columns); see the DataModel docstring"
        )


class Gaussian(DataModel):
    """The latent Gaussian data themselves (the default data model).

    ``X = Z``: rows ``N(0, Sigma)``. Every zero of the latent precision is a
    conditional independence and every zero of the latent covariance a marginal
    independence of the observed variables.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.datasets import Gaussian
    >>> latent = np.array([[0.5, -1.0], [2.0, 0.1]])
    >>> Gaussian().observe(latent, np.eye(2))
    array([[ 0.5, -1. ],
           [ 2. ,  0.1]])
    """

    truth_note = (
        "Observed = latent N(0, Sigma): the latent precision's zeros are exactly the "
        "conditional independences of X (the latent covariance's zeros its marginal "
        "independences)."
    )

    def __init__(self) -> None:
        pass

    def _observe(
        self,
        latent: np.ndarray,
        covariance: np.ndarray,
        cdf_columns: np.ndarray | None,
    ) -> _Observation:
        cdf = None
        if cdf_columns is not None:
            cdf = special.ndtr(
                latent[:, cdf_columns] / _latent_sd(covariance)[cdf_columns]
            )
        return _Observation(latent.copy(), cdf)


# --------------------------------------------------------------------------------------
# Nonparanormal: monotone transforms of each variable
# --------------------------------------------------------------------------------------


def _power(z: np.ndarray, exponent: float) -> NDArray[np.float64]:
    powered: NDArray[np.float64] = np.sign(z) * np.abs(z) ** exponent
    return powered


def _exponential(z: np.ndarray, exponent: float) -> NDArray[np.float64]:
    exponential: NDArray[np.float64] = np.exp(z)
    return exponential


def _gaussian_cdf(z: np.ndarray, exponent: float) -> NDArray[np.float64]:
    cdf: NDArray[np.float64] = special.ndtr(z)
    return cdf


_BUILT_IN_TRANSFORMS = {
    "power": _power,
    "exponential": _exponential,
    "cdf": _gaussian_cdf,
}


def _check_strictly_increasing(
    standardised: np.ndarray, transformed: np.ndarray, name: str
) -> None:
    """A user's transform must be finite and strictly increasing on the data."""
    if transformed.shape != standardised.shape:
        raise ValueError(
            f"transform {name} returned shape {transformed.shape} for input of shape "
            f"{standardised.shape}; it must act elementwise"
        )
    if not np.all(np.isfinite(transformed)):
        raise ValueError(f"transform {name} returned NaN or infinite values")
    order = np.argsort(standardised, axis=0)
    steps = np.diff(np.take_along_axis(transformed, order, axis=0), axis=0)
    if np.any(steps <= 0):
        raise ValueError(
            f"transform {name} is not strictly increasing on the data: a "
            "nonparanormal transform must be, so that it keeps the latent graph "
            "(and so that the observed value determines the latent one)"
        )


class Nonparanormal(DataModel):
    """Strictly increasing transforms of each latent variable (Gaussian copula).

    Liu, Lafferty & Wasserman (2009), *The nonparanormal*, JMLR 10. Column ``j``
    is observed as ``X_j = s_j f_j(Z_j / s_j)`` with ``s_j = sqrt(Sigma_jj)``: the
    transform acts on the standardised variable and the result keeps the
    variable's scale. Built-in transforms of ``u = Z_j / s_j ~ N(0, 1)``:

    - ``"power"``: ``sign(u) |u|^exponent`` (symmetric, heavy tails for
      ``exponent > 1``); ``X_j / s_j`` has CDF ``Phi(sign(x) |x|^(1/exponent))``;
    - ``"exponential"``: ``exp(u)``, so ``X_j / s_j`` is log-normal(0, 1);
    - ``"cdf"``: ``Phi(u)``, so ``X_j / s_j`` is uniform on (0, 1).

    **Graph preserved**: exactly. Per-variable strictly increasing maps keep every
    conditional (and marginal) independence, so the latent precision's zeros are
    the conditional independences of ``X``; but ``X`` is not Gaussian, and the
    zeros of the inverse of ``X``'s own covariance generally are *not* the graph.
    Normal scores (:class:`~skggm_bench.learners.NonparanormalTransformer`) or rank
    correlations (:class:`~skggm_bench.learners.RankCorrelationAdapter`) recover
    it.

    Parameters
    ----------
    transform : {"power", "exponential", "cdf"}, callable or list, default="power"
        The increasing function ``f``. A callable is applied elementwise to an
        array of standardised values and must be strictly increasing (checked on
        the data). A list (or tuple) of names and callables gives one per
        variable, cycled: column ``j`` uses ``transform[j % len(transform)]``.
    exponent : float > 0, default=3.0
        The exponent of ``"power"`` (ignored by the other transforms).

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.datasets import Nonparanormal
    >>> latent = np.array([[-2.0, 0.5, 1.0]])
    >>> Nonparanormal("power", exponent=3).observe(latent, np.eye(3))
    array([[-8.   ,  0.125,  1.   ]])
    >>> Nonparanormal(["power", np.arctan]).observe(latent, np.diag([4.0, 1, 1]))
    array([[-2.        ,  0.46364761,  1.        ]])
    """

    truth_note = (
        "Latent precision/covariance: strictly increasing per-variable transforms "
        "keep every conditional and marginal independence of the latent Gaussian, so "
        "the graph is exact (on the Gaussian copula scale, not on X's own covariance)."
    )
    _parameter_constraints: ClassVar[dict[str, list[object]]] = {
        "transform": [
            StrOptions(set(_BUILT_IN_TRANSFORMS)),
            callable,
            list,
            tuple,
        ],
        "exponent": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, transform: Any = "power", exponent: float = 3.0) -> None:
        self.transform = transform
        self.exponent = exponent

    def _transforms(self) -> list[str | Callable[..., np.ndarray]]:
        transforms = (
            list(self.transform)
            if isinstance(self.transform, list | tuple)
            else [self.transform]
        )
        if not transforms:
            raise ValueError("transform must not be an empty list")
        for item in transforms:
            if not (callable(item) or item in _BUILT_IN_TRANSFORMS):
                raise ValueError(
                    f"transform list entries must be callables or one of "
                    f"{sorted(_BUILT_IN_TRANSFORMS)}, got {item!r}"
                )
        return transforms

    def _observe(
        self,
        latent: np.ndarray,
        covariance: np.ndarray,
        cdf_columns: np.ndarray | None,
    ) -> _Observation:
        transforms = self._transforms()
        sd = _latent_sd(covariance)
        standardised = latent / sd
        values = np.empty_like(standardised)
        p = latent.shape[1]
        for index, transform in enumerate(transforms):
            columns = np.arange(index, p, len(transforms))
            block = standardised[:, columns]
            if callable(transform):
                out = np.asarray(transform(block), dtype=np.float64)
                _check_strictly_increasing(block, out, repr(transform))
            else:
                out = _BUILT_IN_TRANSFORMS[transform](block, self.exponent)
            values[:, columns] = out
        values *= sd
        cdf = None
        if cdf_columns is not None:
            # X_j = s_j f(Z_j / s_j) with f strictly increasing, so
            # F(X_j) = Phi(Z_j / s_j): a function of the observed value.
            cdf = special.ndtr(standardised[:, cdf_columns])
        return _Observation(values, cdf)


# --------------------------------------------------------------------------------------
# Heavy tails and outliers
# --------------------------------------------------------------------------------------


class MultivariateT(DataModel):
    """Multivariate Student t with the latent covariance as scale matrix.

    Each row is ``x = z / sqrt(w / df)`` with ``z`` the latent row and one
    ``w ~ chi2(df)`` per row, independent of ``z``: an elliptical t with scale
    matrix ``Sigma``. Each ``X_j / sqrt(Sigma_jj)`` is Student t(``df``); for
    ``df > 2`` the covariance of ``X`` is ``df / (df - 2) Sigma``.

    **What holds, what does not.** Zeros of the scale precision ``Sigma^{-1}``
    remain zeros of the inverse of ``X``'s covariance (it is a multiple of
    ``Sigma^{-1}``): partial correlations are those of the latent model, and
    Kendall's tau gives ``sin(pi tau / 2) = Sigma_ij / sqrt(Sigma_ii Sigma_jj)``
    exactly for any elliptical law. But conditional independence is lost: the
    shared ``w`` makes every pair dependent, given any other variables (e.g. the
    sizes ``|x_i|``, ``|x_j|`` of residuals are correlated even when the partial
    correlation is zero). Marginal independence is lost too. The true graph is that
    of the latent (scale) matrix.

    Parameters
    ----------
    df : float in (0, inf), default=3.0
        Degrees of freedom (heavier tails for smaller ``df``; the covariance
        exists for ``df > 2`` only; the infinite limit is :class:`Gaussian`).
    random_state : int, RandomState instance or None, default=None
        Seeds the ``chi2`` draws (one per row, in row order).

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.datasets import MultivariateT
    >>> latent = np.ones((3, 2))
    >>> X = MultivariateT(df=3, random_state=0).observe(latent, np.eye(2))
    >>> bool(np.all(X[:, 0] == X[:, 1]))  # one mixing variable per row
    True
    """

    truth_note = (
        "Latent (scale) precision: its zeros stay zeros of the inverse covariance and "
        "of the partial correlations of X, but conditional independence is lost (the "
        "shared chi-square mixing variable couples all variables)."
    )
    _parameter_constraints: ClassVar[dict[str, list[object]]] = {
        "df": [Interval(Real, 0, None, closed="neither")],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, df: float = 3.0, random_state: Any = None) -> None:
        self.df = df
        self.random_state = random_state

    def _observe(
        self,
        latent: np.ndarray,
        covariance: np.ndarray,
        cdf_columns: np.ndarray | None,
    ) -> _Observation:
        (rows,) = _streams(self.random_state, type(self).__name__, 1)
        mixing = rows.chisquare(self.df, size=latent.shape[0])
        values = latent / np.sqrt(mixing / self.df)[:, None]
        cdf = None
        if cdf_columns is not None:
            sd = _latent_sd(covariance)[cdf_columns]
            cdf = special.stdtr(self.df, values[:, cdf_columns] / sd)
        return _Observation(values, cdf)


_OUTLIER_CDFS = {
    "normal": special.ndtr,
    "cauchy": lambda t: 0.5 + np.arctan(t) / np.pi,
}


class Contaminated(DataModel):
    """A random fraction of the rows replaced by outliers.

    Each row is, independently with probability ``fraction``, replaced by an
    outlier row whose entries are independent with
    ``x_j = s_j (location + scale * e_j)``, ``s_j = sqrt(Sigma_jj)`` and ``e_j``
    standard normal (``distribution="normal"``) or standard Cauchy
    (``"cauchy"``); the other rows are the latent ones. So each ``X_j / s_j``
    follows the mixture ``(1 - fraction) N(0, 1) + fraction L`` with ``L`` the
    law of ``location + scale * e``. Whether a row is an outlier (one Bernoulli
    per row) and the outlier values (a full row per row, used or not) are drawn in
    row order, which keeps the prefix property.

    **Graph preserved**: only by the clean rows, which carry the latent graph. The
    outliers carry no graph (independent entries), but the mixture is not
    Gaussian and its covariance ``(1 - f) Sigma + f scale^2 diag(Sigma)`` (normal
    outliers, ``location=0``) has an inverse without the latent zeros, so neither
    conditional independence nor the zero pattern of the inverse covariance holds
    in ``X``. The truth is the latent (clean) precision; robust learners are those
    that recover it.

    Parameters
    ----------
    fraction : float in [0, 1], default=0.05
        Probability that a row is an outlier.
    distribution : {"normal", "cauchy"}, default="normal"
        Law of the standardised outlier entries ``e_j``.
    location : float, default=0.0
        Centre of the outliers, in latent standard deviations.
    scale : float > 0, default=5.0
        Spread of the outliers, in latent standard deviations.
    random_state : int, RandomState instance or None, default=None
        Seeds the outlier indicators and values.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.datasets import Contaminated
    >>> latent = np.zeros((1000, 3))
    >>> X = Contaminated(fraction=0.1, random_state=0).observe(latent, np.eye(3))
    >>> outliers = np.any(X != 0, axis=1)
    >>> int(outliers.sum())  # about 100 rows (binomial), each replaced entirely
    99
    """

    truth_note = (
        "Latent (clean-row) precision: a random fraction of rows are outliers with "
        "independent entries; the clean rows carry the latent graph, X as a whole "
        "keeps neither its conditional independences nor its inverse-covariance zeros."
    )
    _parameter_constraints: ClassVar[dict[str, list[object]]] = {
        "fraction": [Interval(Real, 0, 1, closed="both")],
        "distribution": [StrOptions(set(_OUTLIER_CDFS))],
        "location": [Interval(Real, None, None, closed="neither")],
        "scale": [Interval(Real, 0, None, closed="neither")],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        fraction: float = 0.05,
        distribution: str = "normal",
        location: float = 0.0,
        scale: float = 5.0,
        random_state: Any = None,
    ) -> None:
        self.fraction = fraction
        self.distribution = distribution
        self.location = location
        self.scale = scale
        self.random_state = random_state

    def _observe(
        self,
        latent: np.ndarray,
        covariance: np.ndarray,
        cdf_columns: np.ndarray | None,
    ) -> _Observation:
        indicators, outlier_values = _streams(self.random_state, type(self).__name__, 2)
        n, p = latent.shape
        is_outlier = indicators.random(n) < self.fraction
        if self.distribution == "normal":
            noise = outlier_values.standard_normal((n, p))
        else:
            noise = outlier_values.standard_cauchy((n, p))
        sd = _latent_sd(covariance)
        values = latent.copy()
        values[is_outlier] = sd * (self.location + self.scale * noise[is_outlier])
        cdf = None
        if cdf_columns is not None:
            standardised = values[:, cdf_columns] / sd[cdf_columns]
            outlier_cdf = _OUTLIER_CDFS[self.distribution]
            cdf = (1.0 - self.fraction) * special.ndtr(
                standardised
            ) + self.fraction * outlier_cdf((standardised - self.location) / self.scale)
        return _Observation(values, cdf)


# --------------------------------------------------------------------------------------
# Discretised data: ordinal and binary (Gaussian copula with thresholds)
# --------------------------------------------------------------------------------------


def _random_thresholds(
    rng: np.random.Generator, p: int, n_levels: int, concentration: float
) -> np.ndarray:
    """Per-variable thresholds whose level probabilities are Dirichlet draws."""
    probabilities = rng.dirichlet(np.full(n_levels, concentration), size=p)
    cumulative = np.cumsum(probabilities, axis=1)[:, :-1]
    thresholds: NDArray[np.float64] = special.ndtri(np.clip(cumulative, 0.0, 1.0))
    return thresholds


def _given_thresholds(thresholds: Any, p: int, n_levels: int) -> np.ndarray:
    array = np.asarray(thresholds, dtype=np.float64)
    if array.ndim <= 1:
        array = np.broadcast_to(array.reshape(1, -1), (p, array.size))
    if array.shape != (p, n_levels - 1):
        raise ValueError(
            f"thresholds must have shape ({n_levels - 1},) (shared) or "
            f"({p}, {n_levels - 1}) (one row per variable) for {n_levels} levels and "
            f"{p} variables, got {np.shape(thresholds)}"
        )
    if np.any(np.isnan(array)):
        raise ValueError("thresholds contain NaN")
    if np.any(np.diff(array, axis=1) <= 0):
        raise ValueError("each variable's thresholds must be strictly increasing")
    return array


def _discretise(
    latent: np.ndarray,
    covariance: np.ndarray,
    thresholds: np.ndarray,
    cdf_columns: np.ndarray | None,
) -> _Observation:
    """Level ``k`` where ``thresholds[j, k-1] < Z_j / s_j <= thresholds[j, k]``."""
    standardised = latent / _latent_sd(covariance)
    levels = np.sum(standardised[:, :, None] > thresholds[None, :, :], axis=2)
    cdf = None
    if cdf_columns is not None:
        # Cumulative level probabilities [0, Phi(t_1), ..., Phi(t_{L-1}), 1]; the
        # mid-distribution value of level k is the mean of its two bounds.
        p = latent.shape[1]
        bounds = np.hstack(
            [np.zeros((p, 1)), special.ndtr(thresholds), np.ones((p, 1))]
        )
        chosen = bounds[cdf_columns]
        observed = levels[:, cdf_columns]
        rows = np.arange(len(cdf_columns))
        cdf = 0.5 * (chosen[rows, observed] + chosen[rows, observed + 1])
    return _Observation(levels.astype(np.float64), cdf)


_THRESHOLD_TRUTH = (
    "Latent precision (Gaussian copula): X_j is a step function of Z_j, so the "
    "graph is the latent Gaussian's; the observed levels are not Gaussian and do not "
    "keep its conditional independences (marginal independences are kept)."
)


class Ordinal(DataModel):
    """Ordinal data: the latent Gaussian cut at thresholds (Gaussian copula).

    ``X_j = k`` (``k = 0, ..., n_levels - 1``) when
    ``t_{j,k} < Z_j / s_j <= t_{j,k+1}``, with ``s_j = sqrt(Sigma_jj)``,
    ``t_{j,0} = -inf`` and ``t_{j,n_levels} = +inf``. So
    ``P(X_j = k) = Phi(t_{j,k+1}) - Phi(t_{j,k})`` and every pair of columns has the
    bivariate orthant probabilities of the latent correlation.

    Thresholds are given, or drawn at random per variable: the ``n_levels`` level
    probabilities of each variable are a ``Dirichlet(concentration, ...,
    concentration)`` draw (large ``concentration``: near-equal levels), and the
    thresholds their normal quantiles. They depend on ``p`` only (drawn before any
    row).

    **Graph preserved**: the graph is that of the latent Gaussian. Discretisation
    keeps marginal independence (functions of independent variables) but not
    conditional independence: the observed levels given the others are not
    independent. Rank or polychoric correlations estimate the latent ones.

    Parameters
    ----------
    n_levels : int >= 2, default=3
        Number of levels.
    thresholds : None or array-like, default=None
        ``None``: drawn at random. Otherwise strictly increasing thresholds, in
        latent standard deviations, of shape ``(n_levels - 1,)`` (shared by every
        variable) or ``(p, n_levels - 1)``.
    concentration : float > 0, default=5.0
        Dirichlet parameter of the random level probabilities.
    random_state : int, RandomState instance or None, default=None
        Seeds the random thresholds.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.datasets import Ordinal
    >>> latent = np.array([[-1.0, 0.2], [0.0, 3.0]])
    >>> Ordinal(n_levels=3, thresholds=[-0.5, 0.5]).observe(latent, np.eye(2))
    array([[0., 1.],
           [1., 2.]])
    """

    truth_note = _THRESHOLD_TRUTH
    _parameter_constraints: ClassVar[dict[str, list[object]]] = {
        "n_levels": [Interval(Integral, 2, None, closed="left")],
        "thresholds": ["array-like", None],
        "concentration": [Interval(Real, 0, None, closed="neither")],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        n_levels: int = 3,
        thresholds: Any = None,
        concentration: float = 5.0,
        random_state: Any = None,
    ) -> None:
        self.n_levels = n_levels
        self.thresholds = thresholds
        self.concentration = concentration
        self.random_state = random_state

    def _observe(
        self,
        latent: np.ndarray,
        covariance: np.ndarray,
        cdf_columns: np.ndarray | None,
    ) -> _Observation:
        p = latent.shape[1]
        if self.thresholds is None:
            (rng,) = _streams(self.random_state, type(self).__name__, 1)
            cuts = _random_thresholds(rng, p, self.n_levels, self.concentration)
        else:
            cuts = _given_thresholds(self.thresholds, p, self.n_levels)
        return _discretise(latent, covariance, cuts, cdf_columns)


class Binary(DataModel):
    """Binary data: the latent Gaussian cut at one threshold per variable.

    ``X_j = 1`` when ``Z_j / s_j > t_j`` (``s_j = sqrt(Sigma_jj)``), else 0; so
    ``P(X_j = 1) = 1 - Phi(t_j)``. The two-level case of :class:`Ordinal`: a
    random threshold is the normal quantile of a ``Beta(concentration,
    concentration)`` draw.

    **Graph preserved**: that of the latent Gaussian (Gaussian copula); marginal
    independence is kept, conditional independence is not.

    Parameters
    ----------
    threshold : None, float or array-like of shape (p,), default=None
        ``None``: drawn at random per variable. Otherwise the threshold, in latent
        standard deviations, shared or one per variable.
    concentration : float > 0, default=5.0
        Parameter of the random success probabilities.
    random_state : int, RandomState instance or None, default=None
        Seeds the random thresholds.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.datasets import Binary
    >>> latent = np.array([[-1.0, 0.2], [0.5, 3.0]])
    >>> Binary(threshold=0.0).observe(latent, np.eye(2))
    array([[0., 1.],
           [1., 1.]])
    """

    truth_note = _THRESHOLD_TRUTH
    _parameter_constraints: ClassVar[dict[str, list[object]]] = {
        "threshold": [Interval(Real, None, None, closed="neither"), "array-like", None],
        "concentration": [Interval(Real, 0, None, closed="neither")],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        threshold: Any = None,
        concentration: float = 5.0,
        random_state: Any = None,
    ) -> None:
        self.threshold = threshold
        self.concentration = concentration
        self.random_state = random_state

    def _observe(
        self,
        latent: np.ndarray,
        covariance: np.ndarray,
        cdf_columns: np.ndarray | None,
    ) -> _Observation:
        p = latent.shape[1]
        if self.threshold is None:
            (rng,) = _streams(self.random_state, type(self).__name__, 1)
            cuts = _random_thresholds(rng, p, 2, self.concentration)
        else:
            threshold = np.asarray(self.threshold, dtype=np.float64)
            if threshold.ndim > 1 or threshold.size not in (1, p):
                raise ValueError(
                    f"threshold must be a number or have shape ({p},), one per "
                    f"variable, got shape {threshold.shape}"
                )
            shared_or_not = np.broadcast_to(threshold.reshape(-1, 1), (p, 1))
            cuts = _given_thresholds(shared_or_not, p, 2)
        return _discretise(latent, covariance, cuts, cdf_columns)


# --------------------------------------------------------------------------------------
# Missing data: masks on top of another data model
# --------------------------------------------------------------------------------------


def _seeded_inner(
    data_model: DataModel | None, seed_stream: np.random.Generator
) -> DataModel:
    """A clone of the wrapped model; an unseeded one gets a seed from the wrapper.

    So one ``random_state`` on the outermost model fixes the whole composition,
    while an explicitly seeded inner model keeps its own seed.
    """
    seed = int(seed_stream.integers(np.iinfo(np.int32).max))
    inner = Gaussian() if data_model is None else clone(data_model)
    params = inner.get_params(deep=False)
    if "random_state" in params and params["random_state"] is None:
        inner.set_params(random_state=seed)
    return inner


class MissingCompletelyAtRandom(DataModel):
    """Entries of another data model's output set to NaN independently.

    Each entry of ``data_model.observe(latent, covariance)`` is missing (``NaN``)
    with probability ``rate``, independently of everything (MCAR). Composition:
    the mask is applied on top of ``data_model`` (default :class:`Gaussian`), so
    the observed entries are exactly that model's; wrap
    ``MissingCompletelyAtRandom`` around :class:`MissingAtRandom` (not the other
    way round: MAR drivers must be complete) to combine both mechanisms.

    **Graph preserved**: that of ``data_model``; missingness carries no
    information. The truth is the latent precision.

    Parameters
    ----------
    rate : float in [0, 1), default=0.1
        Probability that an entry is missing.
    data_model : DataModel or None, default=None
        The model producing the complete data; ``None`` means :class:`Gaussian`.
        It is cloned; if its ``random_state`` is ``None`` it is seeded from this
        model's ``random_state``.
    random_state : int, RandomState instance or None, default=None
        Seeds the mask (and an unseeded ``data_model``).

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.datasets import MissingCompletelyAtRandom, Nonparanormal
    >>> model = MissingCompletelyAtRandom(0.2, Nonparanormal("exponential"),
    ...                                   random_state=0)
    >>> X = model.observe(np.zeros((10_000, 5)), np.eye(5))
    >>> round(float(np.isnan(X).mean()), 2), float(np.nanmax(X))
    (0.2, 1.0)
    """

    truth_note = (
        "The wrapped model's truth (latent precision): entries are masked "
        "independently of all values, which changes no dependence."
    )
    _parameter_constraints: ClassVar[dict[str, list[object]]] = {
        "rate": [Interval(Real, 0, 1, closed="left")],
        "data_model": [DataModel, None],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        rate: float = 0.1,
        data_model: DataModel | None = None,
        random_state: Any = None,
    ) -> None:
        self.rate = rate
        self.data_model = data_model
        self.random_state = random_state

    def _observe(
        self,
        latent: np.ndarray,
        covariance: np.ndarray,
        cdf_columns: np.ndarray | None,
    ) -> _Observation:
        seeds, masks = _streams(self.random_state, type(self).__name__, 2)
        inner = _seeded_inner(self.data_model, seeds)
        values, cdf = inner._observe_validated(latent, covariance, cdf_columns)
        missing = masks.random(latent.shape) < self.rate
        values = values.copy()
        values[missing] = np.nan
        if cdf is not None:
            cdf = np.where(missing[:, cdf_columns], np.nan, cdf)
        return _Observation(values, cdf)


class MissingAtRandom(DataModel):
    """Entries set to NaN with probabilities that depend on always-observed values.

    A random subset of ``k = max(1, int(always_observed * p))`` columns, the
    *drivers*, is never missing; each other column ``j`` is assigned one driver
    ``d(j)`` at random. Entry ``(i, j)`` of an incomplete column is missing with
    probability

    ``q * (1 + strength * (2 u_{i, d(j)} - 1))``,  ``q = rate * p / (p - k)``,

    where ``u_{i,d}`` is the mid-distribution function ``(F(x-) + F(x)) / 2`` of
    the *observed* driver value under its marginal law (``F`` is known exactly for
    every built-in data model). The missingness thus depends only on observed
    values (MAR, Rubin 1976), is more frequent where the driver is high when
    ``strength > 0``, and since ``E[u] = 1/2`` for any law, continuous or
    discrete, the expected fraction of missing entries over the whole matrix is
    exactly ``rate`` for every ``data_model``. Drivers and assignments depend on
    ``p`` only (drawn before any row); the uniforms deciding each entry are drawn
    for the whole ``(n, p)`` matrix in row-major order.

    Composition: the mask is applied on top of ``data_model`` (default
    :class:`Gaussian`), whose driver columns must be complete (so wrap
    :class:`MissingCompletelyAtRandom` around this model, not inside it; then
    drivers can be missing too and the mechanism is no longer MAR for the entries
    whose driver is missing).

    **Graph preserved**: that of ``data_model`` in the complete data; complete-case
    analysis is biased under MAR, likelihood-based and imputation methods are not.
    The truth is the latent precision.

    Parameters
    ----------
    rate : float in [0, 1), default=0.1
        Expected fraction of missing entries over the whole data matrix.
    always_observed : float in (0, 1), default=0.5
        Fraction of columns that are drivers (at least one, at most ``p - 1``).
    strength : float in [-1, 1], default=1.0
        How strongly the driver moves the missingness probability (0: MCAR within
        the incomplete columns; negative: missing where the driver is low).
    data_model : DataModel or None, default=None
        The model producing the complete data; ``None`` means :class:`Gaussian`.
        Cloned; seeded from this model's ``random_state`` if unseeded.
    random_state : int, RandomState instance or None, default=None
        Seeds the drivers, the mask (and an unseeded ``data_model``).

    Raises
    ------
    ValueError
        From :meth:`observe` when ``p < 2``, when the per-entry probability
        ``q (1 + |strength|)`` would exceed 1, or when a driver column of
        ``data_model``'s output has missing values.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.datasets import MissingAtRandom
    >>> X = MissingAtRandom(rate=0.2, random_state=0).observe(
    ...     np.random.default_rng(0).standard_normal((20_000, 4)), np.eye(4))
    >>> missing = np.isnan(X)
    >>> int(missing.any(axis=0).sum()), round(float(missing.mean()), 2)
    (2, 0.2)
    """

    truth_note = (
        "The wrapped model's truth (latent precision): entries of the incomplete "
        "columns are masked with probabilities that depend only on observed (driver) "
        "values."
    )
    _parameter_constraints: ClassVar[dict[str, list[object]]] = {
        "rate": [Interval(Real, 0, 1, closed="left")],
        "always_observed": [Interval(Real, 0, 1, closed="neither")],
        "strength": [Interval(Real, -1, 1, closed="both")],
        "data_model": [DataModel, None],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        rate: float = 0.1,
        always_observed: float = 0.5,
        strength: float = 1.0,
        data_model: DataModel | None = None,
        random_state: Any = None,
    ) -> None:
        self.rate = rate
        self.always_observed = always_observed
        self.strength = strength
        self.data_model = data_model
        self.random_state = random_state

    def _incomplete_probability(self, p: int, n_drivers: int) -> float:
        if n_drivers >= p:
            raise ValueError(
                f"MissingAtRandom needs at least one incomplete column: with p={p} "
                f"and always_observed={self.always_observed}, all {n_drivers} columns "
                "are drivers (p must be at least 2)"
            )
        q = self.rate * p / (p - n_drivers)
        if q * (1.0 + abs(self.strength)) > 1.0:
            raise ValueError(
                f"rate={self.rate} is too high for always_observed="
                f"{self.always_observed} and strength={self.strength}: the "
                f"{p - n_drivers} incomplete columns would need missingness "
                f"probabilities up to {q * (1 + abs(self.strength)):.3g} > 1"
            )
        return q

    def _observe(
        self,
        latent: np.ndarray,
        covariance: np.ndarray,
        cdf_columns: np.ndarray | None,
    ) -> _Observation:
        n, p = latent.shape
        structure, seeds, masks = _streams(self.random_state, type(self).__name__, 3)
        n_drivers = max(1, int(self.always_observed * p))
        q = self._incomplete_probability(p, n_drivers)
        permutation = structure.permutation(p)
        drivers = np.sort(permutation[:n_drivers])
        incomplete = np.sort(permutation[n_drivers:])
        assigned = structure.integers(n_drivers, size=len(incomplete))

        inner = _seeded_inner(self.data_model, seeds)
        wanted = drivers if cdf_columns is None else np.union1d(drivers, cdf_columns)
        values, wanted_cdf = inner._observe_validated(latent, covariance, wanted)
        if wanted_cdf is None:
            raise ValueError(
                f"{type(inner).__name__} does not provide the marginal distribution "
                "of its values, which MissingAtRandom needs to drive missingness"
            )
        driver_cdf = wanted_cdf[:, np.searchsorted(wanted, drivers)]
        if np.any(np.isnan(driver_cdf)):
            raise ValueError(
                "MissingAtRandom's driver columns must be complete, but "
                f"{type(inner).__name__} returned missing values in them; wrap "
                "MissingCompletelyAtRandom around MissingAtRandom instead"
            )
        uniforms = masks.random((n, p))
        probability = q * (1.0 + self.strength * (2.0 * driver_cdf[:, assigned] - 1.0))
        missing = np.zeros((n, p), dtype=bool)
        missing[:, incomplete] = uniforms[:, incomplete] < probability
        values = values.copy()
        values[missing] = np.nan
        cdf = None
        if cdf_columns is not None:
            cdf = wanted_cdf[:, np.searchsorted(wanted, cdf_columns)]
            cdf = np.where(missing[:, cdf_columns], np.nan, cdf)
        return _Observation(values, cdf)
