"""Gaussian graphical models with a known graph, and data drawn from them."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import networkx as nx
import numpy as np
from numpy.typing import NDArray
from sklearn.utils import Bunch, check_random_state
from sklearn.utils._param_validation import (
    HasMethods,
    InvalidParameterError,
    StrOptions,
)

from ..generators import GraphicalModelGenerator, TriangulatedOrthogonalization
from ..utils._linalg import partial_correlation_from_precision
from ..utils._validation import Interval, validate_params
from ._families import GRAPH_FAMILIES, graph_from_adjacency
from ._pipeline import (
    DrawnGraph,
    Stream,
    TrueModel,
    draw_graph,
    draw_latent,
    draw_model,
    observe,
    stream_seed,
)

__all__ = ["data_bunch", "make_ggm", "seed_from_random_state"]


def seed_from_random_state(random_state: Any) -> int:
    """The integer seed material of ``random_state``.

    An int is used as it is (so ``make_ggm(random_state=row.seed)`` reproduces a
    benchmark row); a RandomState (or None: fresh entropy) draws a 63-bit seed.
    """
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return int(random_state)
    rng = check_random_state(random_state)
    return int(rng.randint(np.iinfo(np.int64).max, dtype=np.int64))


def _draw_scale(scale: Any, p: int, rng: np.random.RandomState) -> np.ndarray | None:
    """Standard deviations from a vector, a scalar, a distribution or a callable."""
    if scale is None:
        return None
    if hasattr(scale, "rvs"):
        values = scale.rvs(size=p, random_state=rng)
    elif callable(scale):
        values = scale(p, rng)
    else:
        values = scale
    try:
        deviations: NDArray[np.float64] = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"scale must give {p} positive numbers: {exc}") from exc
    if deviations.ndim == 0:
        deviations = np.full(p, float(deviations))
    if deviations.shape != (p,):
        raise ValueError(
            f"scale must give one standard deviation per feature, shape ({p},), got "
            f"shape {deviations.shape}"
        )
    if not np.all(np.isfinite(deviations) & (deviations > 0)):
        raise ValueError("scale must hold finite positive standard deviations")
    return deviations


def data_bunch(
    graph: DrawnGraph,
    truth: TrueModel,
    X: np.ndarray,
    *,
    latent: np.ndarray | None,
    data_model: Any,
    seed: int,
    scale: np.ndarray | None = None,
) -> Bunch:
    """The Bunch that :func:`make_ggm` and ``Benchmark.dataset`` both return."""
    p = truth.adjacency.shape[0]
    data = Bunch(
        X=X,
        covariance=truth.covariance,
        precision=truth.precision,
        partial_correlation=partial_correlation_from_precision(truth.precision),
        adjacency=truth.adjacency,
        n_added_edges=truth.n_added_edges,
        graph=graph_from_adjacency(truth.adjacency),
        node_labels=graph.node_labels,
        model=truth.model,
        generator=truth.generator,
        generator_name=type(truth.generator).__name__,
        graph_family=graph.family,
        graph_params=graph.params,
        edge_density=(float(truth.adjacency.sum() / (p * (p - 1))) if p > 1 else 0.0),
        signal=truth.signal(),
        scale=scale,
        data_model=data_model,
        seed=seed,
    )
    if latent is not None:
        data.X_latent = latent
    return data


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left"), None],
        "graph": [
            StrOptions(set(GRAPH_FAMILIES)),
            nx.Graph,
            "array-like",
            "sparse matrix",
            callable,
        ],
        "density": [Interval(Real, 0, 1, closed="both"), None],
        "generator": [GraphicalModelGenerator, None],
        "model": [StrOptions({"concentration", "covariance"})],
        "scale": [
            None,
            Interval(Real, 0, None, closed="neither"),
            "array-like",
            HasMethods(["rvs"]),
            callable,
        ],
        "data_model": [HasMethods(["observe", "get_params"]), None],
        "return_latent": ["boolean"],
        # Any non-negative int is a seed (a benchmark row's 63-bit seed included).
        "random_state": [
            Interval(Integral, 0, None, closed="left"),
            np.random.RandomState,
            None,
        ],
    },
    # False: a generator wrapped by ``generator`` (SpectralControl's) is validated
    # by its fit, as when it is used alone.
    prefer_skip_nested_validation=False,
)
def make_ggm(
    n_samples: int = 100,
    n_features: int | None = 50,
    *,
    graph: Any = "erdos_renyi",
    density: float | None = None,
    generator: GraphicalModelGenerator | None = None,
    model: str = "concentration",
    scale: Any = None,
    data_model: Any = None,
    return_latent: bool = False,
    random_state: int | np.random.RandomState | None = None,
    **graph_params: Any,
) -> Bunch:
    """Generate a Gaussian graphical model with a known graph, and data from it.

    A graph is drawn from a named family (or given), a generator draws a random
    symmetric positive definite matrix with exact zeros off the graph, the matrix is
    the precision (``model="concentration"``) or the covariance
    (``model="covariance"``) of a centred Gaussian, and ``n_samples`` rows are
    drawn from it. See ``docs/datasets.md`` for the user guide.

    Parameters
    ----------
    n_samples : int, default=100
        Number of observations, at least 1.
    n_features : int or None, default=50
        Number of variables ``p``. When ``graph`` is a graph object its size must
        equal ``n_features``; ``None`` takes the size from the graph.
    graph : str, callable, networkx.Graph, array-like or sparse matrix, \
default="erdos_renyi"
        A family name from :data:`GRAPH_FAMILIES`; a callable
        ``graph(n_features, density, random_state, **graph_params)`` that returns a
        graph; or an undirected graph (see
        :func:`skggm_bench.graphs.check_adjacency`; node ``k`` of a networkx graph
        is ``list(graph.nodes)[k]``, i.e. column ``k`` of ``X``). This is the graph
        *asked for*; the true graph is the one the generator samples on (see
        ``adjacency`` below).
    density : float in [0, 1] or None, default=None
        Target fraction of the ``p (p - 1) / 2`` pairs that are edges, for the
        families with a size parameter (table below). ``None`` means the family's
        own defaults, and ``0.1`` for ``"erdos_renyi"``. The fixed-structure
        families (``chain``, ``star``, ``complete``, ``random_tree``, ``hub``,
        ``lattice``) and graph objects reject an explicit density, since it could
        not be honoured. A density outside a family's achievable range raises.

        ==============  ====================  ===============================
        family          parameter set         how ``density`` is met
        ==============  ====================  ===============================
        erdos_renyi     ``density``           edge probability (in mean)
        band            ``bandwidth``         closest exact edge count
        small_world     ``n_neighbours``      closest exact count ``p k / 2``
        scale_free      ``n_edges_per_node``  closest exact count ``m (p - m)``
        cluster         ``within_density``    in mean, given ``n_clusters``
                                              and ``between_density``
        random_chordal  join probability      in mean (exact recursion)
        ==============  ====================  ===============================

    generator : GraphicalModelGenerator or None, default=None
        The matrix sampler; ``None`` means
        :class:`~skggm_bench.generators.TriangulatedOrthogonalization`. It is cloned
        and its ``random_state`` replaced by a seed derived from ``random_state``:
        your object is left untouched and the result is reproducible.
    model : {"concentration", "covariance"}, default="concentration"
        Role of the generator's matrix. ``"concentration"``: it is the precision
        ``K``, zeros are conditional independences. ``"covariance"``: it is the
        covariance ``Sigma``, zeros are marginal independences.
    scale : None, float, array-like of shape (p,), frozen distribution or callable, \
default=None
        Marginal standard deviations of the variables. ``None`` keeps the matrix
        as drawn (correlation scale in its role). Otherwise the covariance becomes
        ``D Sigma D`` and the precision ``D^{-1} K D^{-1}`` with ``D`` diagonal and
        chosen so that ``sqrt(diag(covariance)) == scale`` exactly; zero patterns and
        partial correlations are unchanged. A scalar applies to every variable; an
        object with ``rvs`` (e.g. ``scipy.stats.loguniform(0.1, 10)``) is called as
        ``rvs(size=p, random_state=rng)``; a callable as ``scale(p, rng)``.
    data_model : object with an ``observe`` method or None, default=None
        How the data are observed, e.g. :class:`Nonparanormal` or
        :class:`MissingCompletelyAtRandom`; ``None`` returns the Gaussian rows as
        they are. It is cloned and seeded like ``generator``. Whatever it does, the
        truth refers to the latent Gaussian model.
    return_latent : bool, default=False
        Also return the clean latent Gaussian rows as ``X_latent``.
    random_state : int, RandomState instance or None, default=None
        The only source of randomness. An int is the *seed* itself (returned as
        ``seed``); a RandomState or None draws one. Each random quantity (graph,
        matrix, scale, noise, data model) has its own stream derived from the seed
        (see the data pipeline in ``docs/architecture.md``), so with a fixed seed
        changing the generator keeps the graph and the noise, changing ``model``
        keeps the graph and the drawn matrix, and a smaller ``n_samples`` gives the
        first rows of a larger one (paired comparisons). A benchmark result row's
        ``seed`` given here reproduces that row's data set.
    **graph_params
        Other parameters of the family's function in :mod:`skggm_bench.graphs`,
        e.g. ``n_hubs`` for ``"hub"``, ``n_clusters`` for ``"cluster"``,
        ``n_edges`` for ``"erdos_renyi"`` (with ``density=None``), ``n_rows`` for
        ``"lattice"`` (``n_cols = p / n_rows``; by default the squarest grid).

    Returns
    -------
    data : sklearn.utils.Bunch
        With the keys:

        X : ndarray of shape (n_samples, p)
            Rows drawn independently from ``N(0, covariance)`` (observed through
            ``data_model`` when one is given).
        X_latent : ndarray of shape (n_samples, p)
            Only with ``return_latent=True``: the Gaussian rows before
            ``data_model``.
        covariance, precision : ndarray of shape (p, p)
            Inverses of each other. The matrix named by ``model`` has exact zeros
            off the graph; the other is generally dense.
        partial_correlation : ndarray of shape (p, p)
            ``-K_ij / sqrt(K_ii K_jj)``, zero diagonal (the convention of the edge
            scores in :mod:`skggm_bench.metrics`).
        adjacency : ndarray of shape (p, p), dtype bool
            The true graph: the support of the ``model``'s matrix, as drawn (the
            fitted generator's ``adjacency_``). It contains the graph asked for,
            plus any edges the generator added.
        n_added_edges : int
            Edges of ``adjacency`` that the graph asked for did not have (e.g. the
            fill-in of ``CholeskyProduct(on_non_chordal="triangulate")``); 0 for
            every generator that samples on the given graph.
        graph : networkx.Graph
            The same graph on nodes ``0, ..., p - 1`` (node ``k`` is column ``k``).
        node_labels : list
            The input graph's node labels in column order (``0..p-1`` for a family).
        model : str
            ``"concentration"`` or ``"covariance"``.
        generator : GraphicalModelGenerator
            The fitted clone that drew the matrix.
        generator_name : str
            Its class name.
        graph_family : str or None
            The family name, ``None`` for a given graph.
        graph_params : dict
            Parameters the family was called with (after mapping ``density``).
        signal : dict
            How hard the graph is to recover (``n_edges``, minimum and median
            absolute partial correlation over the edges, largest absolute
            correlation over the non-edges, condition number of the matrix).
        edge_density : float
            Realised fraction of pairs that are edges.
        scale : ndarray of shape (p,) or None
            The marginal standard deviations imposed, if any.
        data_model : object or None
            The fitted clone of ``data_model``, if any.
        seed : int
            The seed every stream was derived from.

    Raises
    ------
    ValueError
        For ``n_samples < 1``, ``density`` outside [0, 1] or not achievable, an
        unknown family or ``model``, a graph whose size is not ``n_features``, a
        density or ``graph_params`` that the chosen graph cannot use, a bad
        ``scale``, or a parameter of ``generator`` or ``data_model`` that its
        constraints refuse (the message names it).

    See Also
    --------
    sample_gaussian : Data from a given covariance or precision.
    skggm_bench.graphs : The graph families.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.datasets import make_ggm
    >>> data = make_ggm(n_samples=200, n_features=10, graph="band", density=0.2,
    ...                 random_state=0)
    >>> data.X.shape, data.graph_params, data.graph.number_of_edges()
    ((200, 10), {'bandwidth': 1}, 9)
    >>> off_graph = ~data.adjacency & ~np.eye(10, dtype=bool)
    >>> bool(np.all(data.precision[off_graph] == 0))
    True
    >>> cov = make_ggm(50, 10, graph="chain", model="covariance", scale=2.0,
    ...                random_state=0)
    >>> bool(np.all(cov.covariance[off_graph] == 0)), np.diag(cov.covariance)[:2]
    (True, array([4., 4.]))
    """
    for name, estimator in (("generator", generator), ("data_model", data_model)):
        _check_own_parameters(estimator, name)
    seed = seed_from_random_state(random_state)
    drawn = draw_graph(graph, n_features, density, graph_params, seed)
    truth = draw_model(
        drawn.adjacency,
        TriangulatedOrthogonalization() if generator is None else generator,
        model,
        seed,
    )
    latent = draw_latent(truth, n_samples, seed)
    stds = _draw_scale(
        scale,
        truth.adjacency.shape[0],
        np.random.RandomState(stream_seed(seed, Stream.SCALE)),
    )
    if stds is not None:
        truth, latent = _rescaled(truth, latent, stds)
    X, observer = observe(latent, truth.covariance, data_model, seed)
    return data_bunch(
        drawn,
        truth,
        X,
        latent=latent if return_latent else None,
        data_model=observer,
        seed=seed,
        scale=stds,
    )


def _check_own_parameters(estimator: Any, name: str) -> None:
    """Validate a generator's or a data model's parameters, naming it.

    Raised as a ValueError: validate_params would relabel an InvalidParameterError
    as one of make_ggm's own parameters.
    """
    if estimator is None or not hasattr(estimator, "_validate_params"):
        return
    try:
        estimator._validate_params()
    except InvalidParameterError as exc:
        raise ValueError(f"{name}={type(estimator).__name__}(...): {exc}") from None


def _rescaled(
    truth: TrueModel, latent: np.ndarray, stds: np.ndarray
) -> tuple[TrueModel, np.ndarray]:
    """The model and data of ``x -> D x`` with ``sqrt(diag(D Sigma D)) = stds``.

    ``Sigma`` becomes ``D Sigma D`` and ``K`` becomes ``D^{-1} K D^{-1}``: exact zeros
    stay exact (``0 * d = 0``) and partial correlations are invariant.
    """
    multiplier = stds / np.sqrt(np.diag(truth.covariance))
    outer = np.outer(multiplier, multiplier)
    covariance = truth.covariance * outer
    np.fill_diagonal(covariance, stds**2)
    precision = truth.precision / outer
    matrix = precision if truth.model == "concentration" else covariance
    factor = (
        truth.factor / multiplier[:, None]
        if truth.model == "concentration"
        else truth.factor * multiplier[:, None]
    )
    scaled = TrueModel(
        truth.adjacency,
        matrix,
        truth.model,
        covariance,
        precision,
        factor,
        truth.generator,
        truth.n_added_edges,
    )
    return scaled, latent * multiplier
