"""Gaussian data with a known graph: a generator + a graph family -> a ``Bunch``.

Two public functions:

* :func:`make_ggm` draws a graph (or takes yours), a random positive definite matrix
  with that graph's zero pattern from a :class:`~skggm_bench.generators.
  GraphicalModelGenerator`, gives the matrix a *role* (precision for a concentration
  graph, covariance for a covariance graph), optionally rescales the variables, and
  samples Gaussian data. Everything comes back as a :class:`sklearn.utils.Bunch`.
* :func:`sample_gaussian` draws ``N(0, Sigma)`` data from a covariance or a precision
  matrix, dense or ``scipy.sparse``, without inverting anything.

Both draw the standard normal matrix ``Z`` of shape ``(n_samples, p)`` from
``random_state`` first and then map it linearly, so the same seed gives *paired*
data across roles, generators and dense/sparse input.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import networkx as nx
import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from sklearn.base import clone
from sklearn.utils import Bunch, check_random_state
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    StrOptions,
    validate_parameter_constraints,
)

from .. import graphs
from ..generators import GraphicalModelGenerator, TriangulatedOrthogonalization
from ..graphs import check_adjacency

__all__ = ["GRAPH_FAMILIES", "make_ggm", "sample_gaussian"]

RandomStateLike = int | np.random.RandomState | None

# A user's matrix that went through a pseudo-inverse or a product ``A @ A.T`` is
# symmetric only up to a few ulps of its largest entry (~1e-16 relative); 1e-8 leaves
# room for that and still rejects any genuinely asymmetric input.
_SYMMETRY_RTOL = 1e-8
# Densities are compared with this slack so that e.g. ``density=2 / p`` computed in
# floating point still counts as inside a family's achievable range.
_DENSITY_SLACK = 1e-12


# --------------------------------------------------------------------------------------
# Graph families: how ``density`` maps to each family's own parameter
# --------------------------------------------------------------------------------------


def _n_pairs(p: int) -> int:
    return p * (p - 1) // 2


def _out_of_range(name: str, p: int, density: float, low: float, high: float):
    return ValueError(
        f"density={density} is not achievable by the {name!r} graph family with "
        f"n_features={p}: its edge density ranges over [{low:.4g}, {high:.4g}]. "
        "Choose a density in that range, set the family's own parameters through "
        "graph_params (with density=None), or draw the graph yourself with "
        "skggm_bench.graphs and pass it as graph."
    )


def _closest_count(
    name: str, p: int, density: float, values: np.ndarray, edges: np.ndarray
) -> int:
    """The parameter value whose (exact) edge count is closest to ``density``."""
    if _n_pairs(p) == 0:  # one node: no pair can be an edge, any density is met
        return int(values[0])
    fractions = edges / _n_pairs(p)
    low, high = fractions.min(), fractions.max()
    if not low - _DENSITY_SLACK <= density <= high + _DENSITY_SLACK:
        raise _out_of_range(name, p, density, low, high)
    # argmin returns the first minimiser: ties go to the smaller parameter.
    return int(values[np.argmin(np.abs(fractions - density))])


def _band_from_density(p: int, density: float, params: dict) -> int:
    # A band of width b has sum_{k=1..b} (p - k) = b p - b (b + 1) / 2 edges.
    widths = np.arange(p)
    return _closest_count(
        "band", p, density, widths, widths * p - widths * (widths + 1) / 2
    )


def _small_world_from_density(p: int, density: float, params: dict) -> int:
    # The ring lattice joins each node to k // 2 neighbours on each side: p (k // 2)
    # edges, and rewiring moves edges without changing their number. Only even k
    # are used (odd k gives the same graph as k - 1); k < p.
    halves = np.arange((p - 1) // 2 + 1)
    return 2 * _closest_count("small_world", p, density, halves, p * halves)


def _scale_free_from_density(p: int, density: float, params: dict) -> int:
    # Barabási–Albert from a star on m + 1 nodes: m + (p - m - 1) m = m (p - m)
    # edges. m and p - m give the same count; the smaller (sparser hubs) is used.
    m = np.arange(1, max(p // 2, 1) + 1)
    return _closest_count("scale_free", p, density, m, m * (p - m))


def _cluster_from_density(p: int, density: float, params: dict) -> float:
    defaults = _FAMILY_DEFAULTS["cluster"]
    n_clusters = params.get("n_clusters", defaults["n_clusters"])
    between = params.get("between_density", defaults["between_density"])
    if not isinstance(n_clusters, Integral) or not 1 <= n_clusters <= p:
        raise ValueError(
            f"graph_params['n_clusters'] must be an integer in [1, n_features={p}], "
            f"got {n_clusters!r}"
        )
    if _n_pairs(p) == 0:
        return 0.0
    sizes = np.array([len(b) for b in np.array_split(np.arange(p), n_clusters)])
    within_pairs = float(np.sum(sizes * (sizes - 1) // 2))
    between_pairs = _n_pairs(p) - within_pairs
    low = between * between_pairs / _n_pairs(p)
    high = (within_pairs + between * between_pairs) / _n_pairs(p)
    if not low - _DENSITY_SLACK <= density <= high + _DENSITY_SLACK or not within_pairs:
        raise _out_of_range("cluster", p, density, low, high)
    # Expected edges: within * W + between * B = density * N, solved for within.
    within = (density * _n_pairs(p) - between * between_pairs) / within_pairs
    return float(np.clip(within, 0.0, 1.0))


def _chordal_expected_edges(p: int, join_probability: float) -> float:
    """Expected number of edges of ``random_chordal_graph(p, join_probability)``.

    Vertex ``v`` picks ``u`` uniformly among ``0..v-1`` and takes ``u`` plus each of
    ``u``'s earlier neighbours with probability ``q``. By linearity of expectation
    its expected number of earlier neighbours is ``a_v = 1 + q * mean(a_0..a_{v-1})``
    with ``a_0 = 0``; the graph has ``sum_v a_v`` edges on average.
    """
    total = 0.0  # running sum of a_0 .. a_{v-1}
    for v in range(1, p):
        total += 1.0 + join_probability * total / v
    return total


def _random_chordal_from_density(p: int, density: float, params: dict) -> float:
    target = density * _n_pairs(p)
    low, high = _chordal_expected_edges(p, 0.0), _chordal_expected_edges(p, 1.0)
    if (
        not low - _DENSITY_SLACK * _n_pairs(p)
        <= target
        <= high + _DENSITY_SLACK * _n_pairs(p)
    ):
        raise _out_of_range(
            "random_chordal", p, density, low / _n_pairs(p), high / _n_pairs(p)
        )
    if high - low <= 0.0:  # p <= 2: every join probability gives the same graph
        return 0.5
    # The expected edge count is a polynomial in q with non-negative coefficients,
    # hence increasing: the root is unique.
    target = min(max(target, low), high)
    return float(
        scipy.optimize.brentq(
            lambda q: _chordal_expected_edges(p, q) - target, 0.0, 1.0, xtol=1e-12
        )
    )


def _identity_density(p: int, density: float, params: dict) -> float:
    return density


@dataclass(frozen=True)
class _Family:
    """A graph family and how ``make_ggm``'s ``density`` drives it."""

    function: Callable[..., nx.Graph]
    # The family parameter that ``density`` sets (None: a fixed structure, which
    # ``density`` cannot describe) and how to compute it from the edge density.
    density_parameter: str | None = None
    from_density: Callable[[int, float, dict], Any] | None = None
    # Other parameters that also fix the number of edges (then ``density`` must be
    # None), and the density used when neither is given (None: family default).
    alternatives: tuple[str, ...] = ()
    default_density: float | None = None


_FAMILIES: dict[str, _Family] = {
    "erdos_renyi": _Family(
        graphs.erdos_renyi_graph, "density", _identity_density, ("n_edges",), 0.1
    ),
    "band": _Family(graphs.band_graph, "bandwidth", _band_from_density),
    "cluster": _Family(graphs.cluster_graph, "within_density", _cluster_from_density),
    "small_world": _Family(
        graphs.small_world_graph, "n_neighbours", _small_world_from_density
    ),
    "scale_free": _Family(
        graphs.scale_free_graph, "n_edges_per_node", _scale_free_from_density
    ),
    "random_chordal": _Family(
        graphs.random_chordal_graph, "density", _random_chordal_from_density
    ),
    "chain": _Family(graphs.chain_graph),
    "star": _Family(graphs.star_graph),
    "complete": _Family(graphs.complete_graph),
    "random_tree": _Family(graphs.random_tree_graph),
    "hub": _Family(graphs.hub_graph),
    "lattice": _Family(graphs.lattice_graph),
}

#: Names accepted by ``make_ggm(graph=...)``.
GRAPH_FAMILIES: tuple[str, ...] = tuple(sorted(_FAMILIES))

# Parameters make_ggm sets itself; never accepted in graph_params.
_CONTROLLED = {"n_nodes", "random_state"}
# Each family's own keyword parameters and their defaults.
_FAMILY_DEFAULTS: dict[str, dict[str, Any]] = {
    name: {
        key: parameter.default
        for key, parameter in inspect.signature(family.function).parameters.items()
        if key not in _CONTROLLED
    }
    for name, family in _FAMILIES.items()
}


def _lattice_shape(p: int, params: dict) -> dict:
    """``n_rows`` and ``n_cols`` with ``n_rows * n_cols == p``."""
    given = {key: params.get(key) for key in ("n_rows", "n_cols")}
    for key, value in given.items():
        if value is not None and (not isinstance(value, Integral) or value < 1):
            raise ValueError(
                f"graph_params[{key!r}] must be a positive integer, got {value!r}"
            )
    n_rows, n_cols = given["n_rows"], given["n_cols"]
    if n_rows is None and n_cols is None:
        # The squarest grid: the largest divisor of p not above sqrt(p) (a prime p
        # gives a 1 x p grid, i.e. a chain).
        n_rows = max(d for d in range(1, math.isqrt(p) + 1) if p % d == 0)
    if n_rows is None:
        n_rows = p // n_cols
    if n_cols is None:
        n_cols = p // n_rows
    if n_rows * n_cols != p:
        raise ValueError(
            f"a lattice with graph_params {given} has {n_rows} x {n_cols} nodes, "
            f"not n_features={p}"
        )
    return {"n_rows": int(n_rows), "n_cols": int(n_cols)}


def _family_graph(
    name: str, p: int, density: float | None, graph_params: dict, seed: int
) -> tuple[nx.Graph, dict]:
    """Draw a graph of family ``name`` on ``p`` nodes; return it and its parameters."""
    family = _FAMILIES[name]
    params = dict(graph_params)
    unknown = set(params) - set(_FAMILY_DEFAULTS[name])
    if unknown:
        raise ValueError(
            f"graph_params {sorted(unknown)} are not parameters of the {name!r} "
            f"family; it accepts {sorted(set(_FAMILY_DEFAULTS[name]) - {'density'})} "
            "(n_features, density and random_state are make_ggm's own arguments)"
        )
    if family.density_parameter is None:
        if density is not None:
            raise ValueError(
                f"density={density} cannot be used with the {name!r} graph family, "
                "whose structure is fixed; leave density=None (its parameters go "
                "in graph_params)"
            )
    else:
        fixed_by_user = [
            key
            for key in (family.density_parameter, *family.alternatives)
            if key in params
        ]
        if density is not None and fixed_by_user:
            raise ValueError(
                f"give either density or graph_params {fixed_by_user} for the "
                f"{name!r} family, not both"
            )
        if density is None and not fixed_by_user:
            density = family.default_density
        if density is not None:
            params[family.density_parameter] = family.from_density(p, density, params)
    # Record every argument of the call, defaults included, so that the Bunch says
    # exactly which graph model was used.
    params = {
        key: default
        for key, default in _FAMILY_DEFAULTS[name].items()
        if default is not inspect.Parameter.empty
    } | params
    if name == "lattice":
        params.update(_lattice_shape(p, params))
        graph = family.function(**params)
    elif "random_state" in inspect.signature(family.function).parameters:
        graph = family.function(p, **params, random_state=seed)
    else:
        graph = family.function(p, **params)
    return graph, params


def _graph_from_adjacency(adjacency: np.ndarray) -> nx.Graph:
    """A networkx graph whose node ``k`` is row/column ``k`` of ``adjacency``."""
    graph = nx.empty_graph(adjacency.shape[0])
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    graph.add_edges_from(zip(rows.tolist(), cols.tolist(), strict=True))
    return graph


# --------------------------------------------------------------------------------------
# Sampling N(0, Sigma) from a covariance or a precision
# --------------------------------------------------------------------------------------


def _check_dense_spd_input(matrix: Any, name: str) -> np.ndarray:
    matrix = np.array(matrix, dtype=np.float64)  # a copy: symmetrised below
    _check_square(matrix.shape, name)
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"{name} contains NaN or infinite values")
    asymmetry = np.max(np.abs(matrix - matrix.T))
    if asymmetry > _SYMMETRY_RTOL * np.max(np.abs(matrix)):
        raise ValueError(
            f"{name} is not symmetric: max |{name} - {name}.T| = {asymmetry:.3g}"
        )
    return 0.5 * (matrix + matrix.T)


def _check_square(shape: tuple, name: str) -> None:
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 1:
        raise ValueError(f"{name} must be a non-empty square 2-D matrix, got {shape}")


def _cholesky(matrix: np.ndarray, name: str) -> np.ndarray:
    """Lower Cholesky factor, with a ValueError naming ``name`` if not PD."""
    try:
        return scipy.linalg.cholesky(matrix, lower=True, check_finite=False)
    except np.linalg.LinAlgError as exc:
        raise ValueError(f"{name} is not positive definite ({exc})") from exc


def _transform_dense(factor: np.ndarray, noise: np.ndarray, role: str) -> np.ndarray:
    """Map rows ``z ~ N(0, I)`` to ``N(0, Sigma)`` with ``L = factor``.

    covariance ``Sigma = L L^T``: ``x = L z``, i.e. ``X = Z L^T``.
    precision ``K = L L^T``: ``x = L^{-T} z`` (covariance ``L^{-T} L^{-1} = K^{-1}``),
    i.e. solve ``L^T X^T = Z^T`` -- one triangular solve, no inverse.
    """
    if role == "covariance":
        return noise @ factor.T
    return scipy.linalg.solve_triangular(
        factor, noise.T, lower=True, trans="T", check_finite=False
    ).T


def _sample_sparse(matrix: Any, noise: np.ndarray, role: str, name: str) -> np.ndarray:
    """``N(0, Sigma)`` rows from a sparse covariance or precision, via sparse LU.

    scipy has no sparse Cholesky, but for a symmetric positive definite ``A`` an LU
    factorisation with *symmetric* permutation and diagonal pivots, ``P^T A P =
    L U``, is a Cholesky factorisation in disguise: ``U = D L^T`` with ``D =
    diag(U) > 0``. So ``C = P L D^{1/2}`` satisfies ``C C^T = A`` and

    * covariance ``A = Sigma``: ``x = C z``;
    * precision ``A = K``: ``x = K^{-1} C z``, whose covariance is
      ``K^{-1} K K^{-1} = K^{-1}``; the solve reuses the same LU.

    The minimum-degree ordering of ``A + A^T`` keeps the fill-in small (a banded
    or otherwise sparse ``A`` stays cheap). Positive pivots and a symmetric
    permutation are checked: together they prove ``A`` positive definite.
    """
    matrix = sp.csc_matrix(matrix, dtype=np.float64)
    _check_square(matrix.shape, name)
    matrix.sum_duplicates()
    if not np.all(np.isfinite(matrix.data)):
        raise ValueError(f"{name} contains NaN or infinite values")
    scale = abs(matrix).max()
    asymmetry = abs(matrix - matrix.T).max() if matrix.nnz else 0.0
    if asymmetry > _SYMMETRY_RTOL * scale:
        raise ValueError(
            f"{name} is not symmetric: max |{name} - {name}.T| = {asymmetry:.3g}"
        )
    matrix = ((matrix + matrix.T) * 0.5).tocsc()
    try:
        lu = spla.splu(
            matrix,
            permc_spec="MMD_AT_PLUS_A",
            diag_pivot_thresh=0.0,  # always pivot on the diagonal
            options={"SymmetricMode": True},
        )
    except RuntimeError as exc:  # SuperLU: "Factor is exactly singular"
        raise ValueError(f"{name} is not positive definite ({exc})") from exc
    pivots = lu.U.diagonal()
    if not np.array_equal(lu.perm_r, lu.perm_c) or not np.all(pivots > 0):
        raise ValueError(
            f"{name} is not positive definite (its LU factorisation has a "
            "non-positive pivot)"
        )
    # C z = P (L (D^{1/2} z)); with scipy's convention (P y)[i] = y[perm_c[i]].
    correlated = (lu.L @ (np.sqrt(pivots)[:, None] * noise.T))[lu.perm_c]
    if role == "covariance":
        return np.ascontiguousarray(correlated.T)
    return np.ascontiguousarray(lu.solve(correlated).T)


def sample_gaussian(
    matrix: Any,
    n_samples: int,
    *,
    role: str = "covariance",
    random_state: RandomStateLike = None,
) -> np.ndarray:
    """Draw centred Gaussian data from a covariance or a precision matrix.

    Nothing is inverted. With ``matrix = L L^T`` (Cholesky) the rows are ``x = L z``
    for a covariance and ``x = L^{-T} z`` (one triangular solve) for a precision,
    where ``z ~ N(0, I)``. A ``scipy.sparse`` matrix is factorised by a sparse LU
    with a fill-reducing symmetric ordering (see Notes), so a sparse precision of a
    large sparse graph never becomes dense.

    Parameters
    ----------
    matrix : array-like or scipy.sparse matrix of shape (p, p)
        Symmetric positive definite covariance ``Sigma`` or precision ``K``.
    n_samples : int
        Number of rows to draw, at least 1.
    role : {"covariance", "precision"}, default="covariance"
        Whether ``matrix`` is the covariance of the data or its inverse.
    random_state : int, RandomState instance or None, default=None
        Seed or generator for the standard normal draws.

    Returns
    -------
    X : ndarray of shape (n_samples, p)
        Independent rows from ``N(0, Sigma)`` with ``Sigma = matrix`` or
        ``matrix^{-1}``.

    Raises
    ------
    ValueError
        If ``n_samples < 1``, ``role`` is unknown, or ``matrix`` is not square,
        finite, symmetric (up to a relative ``1e-8``) and positive definite.

    Notes
    -----
    The data are ``X = Z A^T`` with ``Z = check_random_state(random_state)
    .standard_normal((n_samples, p))`` and ``A A^T = Sigma``: the same seed gives
    the same ``Z`` for both roles and for dense or sparse input. Dense and sparse
    inputs use different factors ``A``, hence different (equally distributed)
    draws, except that a sparse matrix whose fill-reducing ordering is the natural
    one reproduces the dense draw up to rounding.

    For sparse input: SuperLU factorises ``P^T A P = L U`` with diagonal pivots and
    a symmetric minimum-degree ordering ``P``; for a symmetric positive definite
    ``A`` this is ``L D L^T`` with ``D = diag(U) > 0``, i.e. a Cholesky
    factorisation. A precision is handled as ``x = K^{-1} (P L D^{1/2} z)``.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from skggm_bench.datasets import sample_gaussian
    >>> K = sp.diags([[-0.4] * 999, [1.0] * 1000, [-0.4] * 999], [-1, 0, 1])
    >>> X = sample_gaussian(K, 2000, role="precision", random_state=0)
    >>> X.shape
    (2000, 1000)
    >>> Sigma = np.array([[1.0, 0.5], [0.5, 2.0]])
    >>> X = sample_gaussian(Sigma, 100_000, random_state=0)
    >>> bool(np.allclose(X.T @ X / len(X), Sigma, atol=0.03))  # sampling sd < 0.01
    True
    """
    validate_parameter_constraints(
        {
            "matrix": ["array-like", "sparse matrix"],
            "n_samples": [Interval(Integral, 1, None, closed="left")],
            "role": [StrOptions({"covariance", "precision"})],
            "random_state": ["random_state"],
        },
        {
            "matrix": matrix,
            "n_samples": n_samples,
            "role": role,
            "random_state": random_state,
        },
        caller_name="sample_gaussian",
    )
    if sp.issparse(matrix):
        p = matrix.shape[0]
        noise = _standard_normal(random_state, n_samples, p)
        return _sample_sparse(matrix, noise, role, "matrix")
    dense = _check_dense_spd_input(matrix, "matrix")
    factor = _cholesky(dense, "matrix")
    noise = _standard_normal(random_state, n_samples, dense.shape[0])
    return _transform_dense(factor, noise, role)


def _standard_normal(
    random_state: RandomStateLike, n_samples: int, p: int
) -> np.ndarray:
    return check_random_state(random_state).standard_normal((int(n_samples), p))


# --------------------------------------------------------------------------------------
# make_ggm
# --------------------------------------------------------------------------------------


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
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"scale must give {p} positive numbers: {exc}") from exc
    if values.ndim == 0:
        values = np.full(p, float(values))
    if values.shape != (p,):
        raise ValueError(
            f"scale must give one standard deviation per feature, shape ({p},), got "
            f"shape {values.shape}"
        )
    if not np.all(np.isfinite(values) & (values > 0)):
        raise ValueError("scale must hold finite positive standard deviations")
    return values


def _partial_correlation(precision: np.ndarray) -> np.ndarray:
    """``-K_ij / sqrt(K_ii K_jj)`` off the diagonal, 0 on it."""
    root = np.sqrt(np.diag(precision))
    partial = -precision / np.outer(root, root)
    np.fill_diagonal(partial, 0.0)
    # Negating an exact zero gives -0.0; keep exact zeros plain +0.0 so that the
    # conditional independences compare and print as ordinary zeros.
    partial[partial == 0.0] = 0.0
    return partial


def _inverse_from_cholesky(factor: np.ndarray) -> np.ndarray:
    inverse = scipy.linalg.cho_solve(
        (factor, True), np.eye(factor.shape[0]), check_finite=False
    )
    return 0.5 * (inverse + inverse.T)


_MAKE_GGM_CONSTRAINTS: dict = {
    "n_samples": [Interval(Integral, 1, None, closed="left")],
    "n_features": [Interval(Integral, 1, None, closed="left"), None],
    "graph": [StrOptions(set(GRAPH_FAMILIES)), nx.Graph, "array-like", "sparse matrix"],
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
    "random_state": ["random_state"],
}


def make_ggm(
    n_samples: int = 100,
    n_features: int | None = 50,
    *,
    graph: Any = "erdos_renyi",
    density: float | None = None,
    generator: GraphicalModelGenerator | None = None,
    model: str = "concentration",
    scale: Any = None,
    random_state: RandomStateLike = None,
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
    graph : str, networkx.Graph, array-like or sparse matrix, default="erdos_renyi"
        A family name from :data:`GRAPH_FAMILIES`, or an undirected graph (see
        :func:`skggm_bench.graphs.check_adjacency`; node ``k`` of a networkx graph
        is ``list(graph.nodes)[k]``, i.e. column ``k`` of ``X``).
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
    random_state : int, RandomState instance or None, default=None
        The only source of randomness. Four seeds are drawn from it, in this order,
        for the graph, the matrix, the scale and the data, so with a fixed seed
        changing the generator keeps the graph and the noise, and changing ``model``
        keeps the graph and the drawn matrix (paired comparisons).
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
            Rows drawn independently from ``N(0, covariance)``.
        covariance, precision : ndarray of shape (p, p)
            Inverses of each other. The matrix named by ``model`` has exact zeros
            off the graph; the other is generally dense.
        partial_correlation : ndarray of shape (p, p)
            ``-K_ij / sqrt(K_ii K_jj)``, zero diagonal (the convention of the edge
            scores in :mod:`skggm_bench.metrics`).
        adjacency : ndarray of shape (p, p), dtype bool
            The true graph: the zero pattern of the ``model``'s matrix.
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
        edge_density : float
            Realised fraction of pairs that are edges.
        scale : ndarray of shape (p,) or None
            The marginal standard deviations imposed, if any.

    Raises
    ------
    ValueError
        For ``n_samples < 1``, ``density`` outside [0, 1] or not achievable, an
        unknown family or ``model``, a graph whose size is not ``n_features``, a
        density or ``graph_params`` that the chosen graph cannot use, or a bad
        ``scale``.

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
    validate_parameter_constraints(
        _MAKE_GGM_CONSTRAINTS,
        {
            "n_samples": n_samples,
            "n_features": n_features,
            "graph": graph,
            "density": density,
            "generator": generator,
            "model": model,
            "scale": scale,
            "random_state": random_state,
        },
        caller_name="make_ggm",
    )
    rng = check_random_state(random_state)
    # Always four draws, in a fixed order, whatever is used: each stream stays the
    # same when another option changes.
    graph_seed, matrix_seed, scale_seed, data_seed = (
        int(seed) for seed in rng.randint(np.iinfo(np.int32).max, size=4)
    )

    if isinstance(graph, str):
        if n_features is None:
            raise ValueError(
                "n_features=None is only allowed when graph is a graph object"
            )
        family_graph, used_params = _family_graph(
            graph, int(n_features), density, graph_params, graph_seed
        )
        # Index by node label so column k is node k whatever the insertion order.
        labelled = nx.empty_graph(int(n_features))
        labelled.add_edges_from(family_graph.edges)
        adjacency = check_adjacency(labelled)
        family, node_labels = graph, list(range(int(n_features)))
    else:
        if density is not None or graph_params:
            raise ValueError(
                "density and graph_params only apply to a named graph family, not "
                f"to a graph object (got density={density}, graph_params="
                f"{graph_params})"
            )
        adjacency = check_adjacency(graph)
        if n_features is not None and adjacency.shape[0] != n_features:
            raise ValueError(
                f"graph has {adjacency.shape[0]} nodes but n_features={n_features}"
            )
        if adjacency.shape[0] < 1:
            raise ValueError("graph has no nodes")
        node_labels = (
            list(graph.nodes)
            if isinstance(graph, nx.Graph)
            else list(range(len(adjacency)))
        )
        family, used_params = None, {}
    p = adjacency.shape[0]

    sampler = clone(TriangulatedOrthogonalization() if generator is None else generator)
    if "random_state" in sampler.get_params():
        sampler.set_params(random_state=matrix_seed)
    matrix = sampler.fit(adjacency).sample(1)[0]
    factor = _cholesky(matrix, f"the matrix drawn by {type(sampler).__name__}")
    role = "precision" if model == "concentration" else "covariance"
    X = _transform_dense(factor, _standard_normal(data_seed, n_samples, p), role)
    inverse = _inverse_from_cholesky(factor)
    covariance, precision = (
        (inverse, matrix) if role == "precision" else (matrix, inverse)
    )

    stds = _draw_scale(scale, p, check_random_state(scale_seed))
    if stds is not None:
        # x -> D x maps Sigma to D Sigma D and K to D^{-1} K D^{-1}; exact zeros stay
        # exact (0 * d = 0) and partial correlations are invariant.
        multiplier = stds / np.sqrt(np.diag(covariance))
        covariance = covariance * np.outer(multiplier, multiplier)
        np.fill_diagonal(covariance, stds**2)
        precision = precision / np.outer(multiplier, multiplier)
        X = X * multiplier

    return Bunch(
        X=X,
        covariance=covariance,
        precision=precision,
        partial_correlation=_partial_correlation(precision),
        adjacency=adjacency,
        graph=_graph_from_adjacency(adjacency),
        node_labels=node_labels,
        model=model,
        generator=sampler,
        generator_name=type(sampler).__name__,
        graph_family=family,
        graph_params=used_params,
        edge_density=float(adjacency.sum() / (p * (p - 1))) if p > 1 else 0.0,
        scale=stds,
    )
