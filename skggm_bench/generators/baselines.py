"""Constructions from other packages, as generators on a given graph.

Users compare structure learners on matrices made by ``huge.generator`` (R) or
``sklearn.datasets.make_sparse_spd_matrix``; these classes rebuild both on a
*given* graph, so the benchmark harness can rank them side by side with the
paper's generators.
"""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..graphs import is_chordal, triangulate
from ..utils._validation import RANDOM_STATE, Interval
from ._base import GraphicalModelGenerator

__all__ = ["CholeskyProduct", "EigenShift"]

# Above this condition number a draw is singular to double precision for practical
# purposes (a solve loses all but ~4 of 16 digits).
_SINGULAR_CONDITION = 1e12

_ACCEPTS_ANY_GRAPH = (
    "TriangulatedOrthogonalization, PartialOrthogonalization, DiagonalDominance, "
    "GWishart or EigenShift"
)


class EigenShift(GraphicalModelGenerator):
    """The ``huge.generator`` construction: constant edge weight, shifted diagonal.

    From the R package ``huge`` (Zhao, Liu, Roeder, Lafferty & Wasserman, 2012),
    function ``huge.generator``: the matrix ``A`` has ``v`` on every edge and 0
    elsewhere; its diagonal is set to ``|lambda_min(A)| + 0.1 + u``, which makes
    ``Omega = A + (|lambda_min(A)| + 0.1 + u) I`` positive definite with smallest
    eigenvalue ``0.1 + u``. ``Omega`` is the precision matrix: it carries the
    graph's zeros.

    Scaling. ``huge`` returns the covariance ``Sigma = cov2cor(Omega^{-1})`` (a
    correlation matrix, dense) and its inverse as the precision. With
    ``scaling="huge"`` this generator returns exactly that precision,
    ``Sigma^{-1}``, whose diagonal is not 1. With ``scaling="unit_diagonal"``
    (default, the convention of the other generators) it returns ``Omega``
    rescaled to unit diagonal, ``Omega / Omega[0, 0]``: ``v / (|lambda_min| + 0.1
    + u)`` on the edges. Both have the same zeros and the same partial
    correlations; they differ by a diagonal rescaling of the variables.

    The construction is deterministic given the graph: every draw is the same
    matrix, as in ``huge`` (whose randomness is only in the graph).

    Parameters
    ----------
    v : float, default=0.3
        Off-diagonal value on the edges (``huge``'s ``v``), ``> 0``.
    u : float, default=0.1
        Extra diagonal shift (``huge``'s ``u``), ``>= 0``.
    scaling : {"unit_diagonal", "huge"}, default="unit_diagonal"
        Which rescaling of ``Omega`` to return, see above.
    random_state : int, RandomState instance or None, default=None
        Accepted for API uniformity; the construction uses no randomness.

    Attributes
    ----------
    adjacency_ : ndarray of shape (p, p), dtype bool
        The validated graph.
    n_nodes_ : int
        Number of nodes.
    matrix_ : ndarray of shape (p, p)
        The matrix every draw equals.

    References
    ----------
    T. Zhao, H. Liu, K. Roeder, J. Lafferty, L. Wasserman. The huge package for
    high-dimensional undirected graph estimation in R. JMLR 13:1059-1062, 2012.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.generators import EigenShift
    >>> M = EigenShift().fit(nx.path_graph(3)).sample(2)
    >>> round(float(M[0, 0, 1]), 4)  # 0.3 / (0.3 * sqrt(2) + 0.2)
    0.4806
    >>> bool((M[0] == M[1]).all())
    True
    """

    _parameter_constraints: dict[str, list[object]] = {
        "v": [Interval(Real, 0, None, closed="neither")],
        "u": [Interval(Real, 0, None, closed="left")],
        "scaling": [StrOptions({"unit_diagonal", "huge"})],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        v: float = 0.3,
        u: float = 0.1,
        *,
        scaling: str = "unit_diagonal",
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.v = v
        self.u = u
        self.scaling = scaling
        self.random_state = random_state

    @property
    def _unit_diagonal(self) -> bool:  # read by the base class's ``sample``
        return self.scaling == "unit_diagonal"

    def _fit(self, adjacency: np.ndarray) -> None:
        weighted = self.v * adjacency.astype(float)
        diagonal = abs(np.linalg.eigvalsh(weighted)[0]) + 0.1 + self.u
        omega = weighted + diagonal * np.eye(adjacency.shape[0])
        if self.scaling == "unit_diagonal":
            self.matrix_ = omega / diagonal
        else:
            # huge's precision is inv(cov2cor(inv(Omega))) = S Omega S with
            # S = diag(sqrt(diag(inv(Omega)))): computed as such rather than by a
            # second inversion, so that the zeros stay exact.
            scale = np.sqrt(np.diag(np.linalg.inv(omega)))
            self.matrix_ = omega * np.outer(scale, scale)

    def _sample(self, n_samples: int, rng: np.random.RandomState) -> np.ndarray:
        return np.repeat(self.matrix_[None], n_samples, axis=0)


class CholeskyProduct(GraphicalModelGenerator):
    """Products ``R^T R`` of a random sparse unit triangular factor on the graph.

    The construction of scikit-learn's ``make_sparse_spd_matrix``: a triangular
    factor with unit diagonal and off-diagonal entries ``-w``, ``w`` uniform on
    ``[smallest_coef, largest_coef]``, multiplied by its transpose. In scikit-learn
    the factor's sparsity pattern is random and the product's support is whatever
    it turns out to be. Here the pattern is dictated by the graph: along a
    perfect elimination ordering of a chordal graph, row ``i`` of ``R`` is
    non-zero at ``i`` and at its later neighbours, which form a clique, so
    ``R^T R`` has exactly the graph's zero pattern (no fill-in).

    On a non-chordal graph there is no such factor: any triangular factor of a
    matrix on ``G`` has the fill-in of some triangulation. By default this is an
    error; with ``on_non_chordal="triangulate"`` the factor lives on a
    minimum-fill triangulation ``H`` and the draws have the zero pattern of ``H``,
    *not* of ``G``: the support grows, ``adjacency_`` is set to ``H`` (so the
    contract "exact zeros off ``adjacency_``" still holds) and a warning says how
    many edges were added. Structure learners scored against the input graph
    would then be penalised for finding true (fill-in) edges; score them against
    ``adjacency_``.

    Conditioning. ``R`` has unit determinant, so ``R^T R`` is positive definite in
    exact arithmetic, but ``R^{-1}`` sums products of weights along paths of the
    elimination order and grows geometrically with the number of later
    neighbours. With the default weights on a band graph of bandwidth 5 and
    ``p = 50`` the median condition number is about 4e14 and some draws are
    numerically indefinite (with ``largest_coef=0.5``: 5e6; ``0.3``: 240).
    scikit-learn avoids this by making its factor very sparse (``alpha=0.95``).
    A ``UserWarning`` is emitted when a draw's condition number exceeds 1e12.

    Parameters
    ----------
    smallest_coef, largest_coef : float, default=0.1, 0.9
        Range of the magnitudes of the factor's off-diagonal entries
        (scikit-learn's defaults), ``0 < smallest_coef <= largest_coef``.
    unit_diagonal : bool, default=True
        Rescale each draw to unit diagonal (scikit-learn's ``norm_diag``, which
        defaults to False there).
    on_non_chordal : {"error", "triangulate"}, default="error"
        What to do with a non-chordal graph, see above.
    random_state : int, RandomState instance or None, default=None
        Controls the draws.

    Attributes
    ----------
    adjacency_ : ndarray of shape (p, p), dtype bool
        The support of the draws: the input graph, or its triangulation.
    n_nodes_ : int
        Number of nodes.
    ordering_ : ndarray of shape (p,)
        The elimination ordering of the factor.
    fill_in_ : ndarray of shape (p, p), dtype bool
        Edges added to the input graph (all False on a chordal graph).

    References
    ----------
    scikit-learn, ``sklearn.datasets.make_sparse_spd_matrix``.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.generators import CholeskyProduct
    >>> M = CholeskyProduct(random_state=0).fit(nx.path_graph(4)).sample(5)
    >>> float(abs(M[:, 0, 2]).max()), bool((M[:, 0, 1] != 0).all())
    (0.0, True)
    >>> CholeskyProduct().fit(nx.cycle_graph(4))
    Traceback (most recent call last):
    ...
    ValueError: CholeskyProduct needs a chordal graph ...
    """

    _parameter_constraints: dict[str, list[object]] = {
        "smallest_coef": [Interval(Real, 0, None, closed="neither")],
        "largest_coef": [Interval(Real, 0, None, closed="neither")],
        "unit_diagonal": ["boolean"],
        "on_non_chordal": [StrOptions({"error", "triangulate"})],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        smallest_coef: float = 0.1,
        largest_coef: float = 0.9,
        *,
        unit_diagonal: bool = True,
        on_non_chordal: str = "error",
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.smallest_coef = smallest_coef
        self.largest_coef = largest_coef
        self.unit_diagonal = unit_diagonal
        self.on_non_chordal = on_non_chordal
        self.random_state = random_state

    def _fit(self, adjacency: np.ndarray) -> None:
        if self.smallest_coef > self.largest_coef:
            raise ValueError(
                f"smallest_coef={self.smallest_coef} must not exceed "
                f"largest_coef={self.largest_coef}"
            )
        chordal = is_chordal(adjacency)
        if not chordal and self.on_non_chordal == "error":
            raise ValueError(
                "CholeskyProduct needs a chordal graph (graph is not chordal: a "
                "triangular factor of a matrix on it has fill-in). Pass "
                "on_non_chordal='triangulate' to sample on a triangulation (the "
                "support grows), or use a generator that accepts any graph: "
                f"{_ACCEPTS_ANY_GRAPH}."
            )
        support, perfect = triangulate(adjacency, "min_fill")
        self.fill_in_ = support & ~adjacency
        n_fill = int(self.fill_in_.sum() // 2)
        if n_fill:
            warnings.warn(
                f"CholeskyProduct: the graph is not chordal; draws are supported on "
                f"a triangulation with {n_fill} extra edges, and adjacency_ is that "
                "triangulation, not the input graph",
                UserWarning,
                stacklevel=3,
            )
        self.adjacency_ = support
        self.ordering_ = perfect[::-1].copy()
        position = np.empty_like(self.ordering_)
        position[self.ordering_] = np.arange(self.ordering_.size)
        # Upper triangle in elimination positions = later neighbours.
        ordered = support[np.ix_(self.ordering_, self.ordering_)]
        self._rows, self._cols = np.nonzero(np.triu(ordered, 1))
        self._position = position

    def _sample(self, n_samples: int, rng: np.random.RandomState) -> np.ndarray:
        p = self.n_nodes_
        factor = np.zeros((n_samples, p, p))
        index = np.arange(p)
        factor[:, index, index] = 1.0
        weights = rng.uniform(
            self.smallest_coef, self.largest_coef, (n_samples, self._rows.size)
        )
        factor[:, self._rows, self._cols] = -weights
        product = np.swapaxes(factor, -1, -2) @ factor
        matrices = product[:, self._position[:, None], self._position]
        if self.unit_diagonal:
            scale = 1.0 / np.sqrt(np.diagonal(matrices, axis1=1, axis2=2))
            matrices = matrices * scale[:, :, None] * scale[:, None, :]
        _warn_if_numerically_singular(matrices)
        return matrices


def _warn_if_numerically_singular(matrices: np.ndarray) -> None:
    """Warn when draws are positive definite in theory but not in floating point."""
    eigenvalues = np.linalg.eigvalsh(matrices)
    with np.errstate(divide="ignore"):
        condition = np.where(
            eigenvalues[:, 0] > 0, eigenvalues[:, -1] / eigenvalues[:, 0], np.inf
        )
    singular = condition > _SINGULAR_CONDITION
    if singular.any():
        warnings.warn(
            f"CholeskyProduct: {int(singular.sum())} of {len(matrices)} draws are "
            f"numerically singular (condition number > {_SINGULAR_CONDITION:.0e}; "
            "computed smallest eigenvalue "
            f"{float(eigenvalues[:, 0].min()):.1e}). The condition number of R^T R "
            "grows geometrically with the number of later neighbours per node; "
            "lower largest_coef or use a sparser graph.",
            UserWarning,
            stacklevel=3,
        )
