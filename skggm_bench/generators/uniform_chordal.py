"""Uniform sampling on the elliptope of a chordal graph (paper, Algorithms 3 and 4).

Along a perfect ordering ``1 < ... < p`` of a chordal graph ``G`` every matrix of
``E_p(G)`` is ``M = U U^T`` for one upper triangular ``U`` with unit rows, positive
diagonal and ``u_ij = 0`` for ``i < j`` non-adjacent. Row ``i`` of ``U`` is a point
of the hemisphere ``S_+^{c_i}`` (``c_i = |ch(i)|`` later neighbours), and the
uniform law on ``E_p(G)`` is the law of independent rows, row ``i`` having density
proportional to ``u_ii^(a_i + 1)`` with respect to the surface measure
(``a_i = |pa(i)|`` earlier neighbours).

Exact sampling of one row. For ``v`` uniform on the sphere ``S^c`` in
``R^(c+1)``, ``v_1^2 ~ Beta(1/2, c/2)`` and the other coordinates, rescaled to unit
length, are uniform on ``S^(c-1)`` and independent of ``v_1``. Weighting by
``v_1^(a+1) = (v_1^2)^((a+1)/2)`` only changes the first Beta parameter:

    u_ii^2 ~ Beta((a + 2) / 2, c / 2),   (u_ij)_{j in ch(i)} = sqrt(1 - u_ii^2) w,

with ``w`` uniform on the unit sphere of ``R^c`` (a normalised Gaussian vector).
``docs/uniform_sampler.md`` has the full derivation and its checks.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils._param_validation import StrOptions

from ..graphs import perfect_ordering
from ..utils._validation import RANDOM_STATE, Interval
from ._base import GraphicalModelGenerator, fast_generator

__all__ = ["UniformChordal"]

_ACCEPTS_ANY_GRAPH = (
    "HitAndRunUniform (uniform, MCMC), TriangulatedOrthogonalization, "
    "PartialOrthogonalization, GWishart or DiagonalDominance"
)


class CholeskyStructure:
    """Sparsity of the unit-row Cholesky factor of a chordal graph, in node indices.

    Row ``i`` of the factor (matrix index ``i``, not ordering position) has its
    diagonal entry and one entry per *later* neighbour in the perfect ordering.
    ``adjacency`` may be dense or ``scipy.sparse``; only its edge list is read.
    """

    def __init__(
        self, adjacency: np.ndarray | sp.csr_array, ordering: np.ndarray
    ) -> None:
        p = adjacency.shape[0]
        position = np.empty(p, dtype=np.int64)
        position[ordering] = np.arange(p)
        rows, cols = adjacency.nonzero()
        later = position[cols] > position[rows]
        self.rows, self.cols = rows[later], cols[later]
        self.n_children = np.bincount(self.rows, minlength=p)
        self.n_parents = np.bincount(rows, minlength=p) - self.n_children
        self.p = p
        # Entries come sorted by row (nonzero() is row-major), so each row with
        # children owns one contiguous segment of the entry list.
        self.parents_rows = np.flatnonzero(self.n_children)
        self.segment_starts = np.r_[0, np.cumsum(self.n_children[self.parents_rows])][
            :-1
        ]

    def draw_rows(
        self, generator: np.random.Generator, batch: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Exact draws of the factor rows: ``(diagonal, edge values)``.

        ``diagonal`` has shape ``batch + (p,)`` and ``edge values`` shape
        ``batch + (|E|,)``, aligned with ``rows`` and ``cols``. Row ``i`` gets
        ``u_ii^2 ~ Beta((a_i + 2) / 2, c_i / 2)`` and a uniform direction scaled to
        ``sqrt(1 - u_ii^2)``; the normalisation works on the compact edge list.
        """
        has_children = self.parents_rows
        diagonal_squared = np.ones((*batch, self.p))
        diagonal_squared[..., has_children] = generator.beta(
            (self.n_parents[has_children] + 2) / 2.0,
            self.n_children[has_children] / 2.0,
            size=(*batch, has_children.size),
        )
        values = generator.standard_normal((*batch, self.rows.size))
        if self.rows.size:
            norms = np.sqrt(
                np.add.reduceat(values * values, self.segment_starts, axis=-1)
            )
            scale = np.sqrt(1.0 - diagonal_squared[..., has_children]) / norms
            values *= np.repeat(scale, self.n_children[has_children], axis=-1)
        return np.sqrt(diagonal_squared), values

    def dense_factors(self, diagonal: np.ndarray, values: np.ndarray) -> np.ndarray:
        """The rows of :meth:`draw_rows` as dense ``(n, p, p)`` factors, node indices.

        Row ``i`` holds ``u_ii`` on the diagonal and ``u_ij`` at the later
        neighbours ``j``.
        """
        factors = np.zeros((diagonal.shape[0], self.p, self.p))
        factors[:, self.rows, self.cols] = values
        index = np.arange(self.p)
        factors[:, index, index] = diagonal
        return factors


def sample_cholesky_factors(
    structure: CholeskyStructure, n_samples: int, rng: np.random.RandomState
) -> np.ndarray:
    """Exact draws of the factor ``U`` of a uniform matrix ``U U^T`` on ``E_p(G)``.

    Returns a dense (n_samples, p, p) array in node indices: row ``i`` holds
    ``u_ii`` on the diagonal and ``u_ij`` at the later neighbours ``j``.
    """
    diagonal, values = structure.draw_rows(fast_generator(rng), (n_samples,))
    return structure.dense_factors(diagonal, values)


def sample_sparse_cholesky_factor(
    structure: CholeskyStructure, rng: np.random.RandomState
) -> sp.csr_array:
    """One exact factor ``U`` as a sparse matrix: memory O(p + |E|).

    Same law as :func:`sample_cholesky_factors`, without the dense (p, p) array.
    """
    p = structure.p
    diagonal, values = structure.draw_rows(fast_generator(rng), (1,))
    index = np.arange(p)
    return sp.csr_array(
        (
            np.concatenate([diagonal[0], values[0]]),
            (
                np.concatenate([index, structure.rows]),
                np.concatenate([index, structure.cols]),
            ),
        ),
        shape=(p, p),
    )


def metropolis_cholesky_factors(
    structure: CholeskyStructure,
    n_samples: int,
    rng: np.random.RandomState,
    n_burn_in: int,
    proposal_scale: float,
) -> np.ndarray:
    """Factors from independent Metropolis chains, one per row and per sample.

    Each row runs the paper's Algorithm 4 on its hemisphere: perturb by Gaussian
    noise, renormalise, accept with probability ``min(1, (v'_1 / v_1)^(a + 1))``
    when ``v'_1 > 0``. The proposal is rotation invariant, hence symmetric with
    respect to the surface measure, so the target is exact in the limit. All
    chains start from a uniform point of the hemisphere and advance together.
    """
    p = structure.p
    n_entries = p + structure.rows.size
    row_of_entry = np.concatenate([np.arange(p), structure.rows])
    col_of_entry = np.concatenate([np.arange(p), structure.cols])
    # Entries sorted by row so that per-row sums are contiguous segments.
    order = np.argsort(row_of_entry, kind="stable")
    row_of_entry, col_of_entry = row_of_entry[order], col_of_entry[order]
    is_first = row_of_entry == col_of_entry
    segment_starts = np.flatnonzero(np.r_[True, np.diff(row_of_entry) != 0])
    power = (structure.n_parents + 1).astype(float)

    def normalise(v: np.ndarray) -> np.ndarray:
        norms = np.sqrt(np.add.reduceat(v * v, segment_starts, axis=1))
        return v / norms[:, row_of_entry]

    state = rng.standard_normal((n_samples, n_entries))
    state[:, is_first] = np.abs(state[:, is_first])
    state = normalise(state)
    for _ in range(n_burn_in):
        proposal = normalise(state + proposal_scale * rng.standard_normal(state.shape))
        first_now, first_new = state[:, is_first], proposal[:, is_first]
        with np.errstate(divide="ignore", invalid="ignore"):
            log_ratio = power * (np.log(first_new) - np.log(first_now))
        accept = (first_new > 0) & (
            np.log(rng.random_sample(first_new.shape)) <= log_ratio
        )
        state = np.where(accept[:, row_of_entry], proposal, state)
    factors = np.zeros((n_samples, p, p))
    factors[:, row_of_entry, col_of_entry] = state
    return factors


class UniformChordal(GraphicalModelGenerator):
    """Uniform random correlation matrices with the zero pattern of a chordal graph.

    Draws from the uniform distribution on ``E_p(G)``, the set of ``p x p``
    correlation matrices with ``m_ij = 0`` whenever ``i`` and ``j`` are not
    adjacent in ``G`` (Córdoba et al., Algorithm 3), through the Cholesky
    parametrisation along a perfect ordering. By default each row of the factor is
    sampled exactly (a Beta-distributed diagonal and a uniform direction), so draws
    are independent and exactly uniform; no Markov chain is involved.

    Parameters
    ----------
    method : {"exact", "metropolis"}, default="exact"
        ``"exact"`` samples each factor row in closed form. ``"metropolis"`` runs
        the paper's Algorithm 4, one independent chain per returned matrix and
        row; it exists to reproduce and compare with the reference package.
    n_burn_in : int, default=1000
        Metropolis steps per chain (``method="metropolis"`` only).
    proposal_scale : float, default=0.2
        Standard deviation of the Gaussian proposal noise (``"metropolis"`` only).
        The reference package's 0.01 with 100 steps is far from stationary.
    sparse_output : bool, default=False
        Return each draw as a ``scipy.sparse.csr_array`` (``sample`` then returns a
        list) and never build a dense ``(p, p)`` array: time and memory are
        ``O(p + |E|)`` per draw, for large sparse chordal graphs such as bands,
        trees and chains (``method="exact"`` only). ``adjacency_`` is then sparse
        too.
    random_state : int, RandomState instance or None, default=None
        Controls the draws (scikit-learn semantics: an int gives reproducible
        draws, consecutive calls to ``sample`` give fresh ones).

    Attributes
    ----------
    adjacency_ : ndarray of shape (p, p), dtype bool
        The validated graph.
    n_nodes_ : int
        Number of nodes.
    ordering_ : ndarray of shape (p,)
        The perfect ordering used for the factor.

    See Also
    --------
    TriangulatedOrthogonalization : Extension to non-chordal graphs.

    Notes
    -----
    The marginal law of an entry is not the same for every edge: on the chain
    ``1 - 2 - ... - p`` the two end edges have standard deviation close to 0.50 and
    interior edges close to 0.43 (for large ``p``), contrary to a statement in the
    paper; see ``docs/uniform_sampler.md``.

    References
    ----------
    I. Córdoba, G. Varando, C. Bielza, P. Larrañaga. On generating random Gaussian
    graphical models. International Journal of Approximate Reasoning, 2020.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.generators import UniformChordal
    >>> gen = UniformChordal(random_state=0).fit(nx.path_graph(3))
    >>> M = gen.sample(1000)
    >>> M.shape, float(M[:, 0, 2].max())
    ((1000, 3, 3), 0.0)
    """

    _fit_is_deterministic = True

    _parameter_constraints: dict[str, list[object]] = {
        "method": [StrOptions({"exact", "metropolis"})],
        "n_burn_in": [Interval(Integral, 0, None, closed="left")],
        "proposal_scale": [Interval(Real, 0, None, closed="neither")],
        "sparse_output": ["boolean"],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        method: str = "exact",
        *,
        n_burn_in: int = 1000,
        proposal_scale: float = 0.2,
        sparse_output: bool = False,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.method = method
        self.n_burn_in = n_burn_in
        self.proposal_scale = proposal_scale
        self.sparse_output = sparse_output
        self.random_state = random_state

    def _fit(self, adjacency: np.ndarray) -> None:
        if self.sparse_output and self.method != "exact":
            raise ValueError("sparse_output=True is only available with method='exact'")
        try:
            self.ordering_ = perfect_ordering(adjacency)
        except ValueError as exc:
            raise ValueError(
                f"UniformChordal needs a chordal graph; {exc}. Generators that "
                f"accept any graph: {_ACCEPTS_ANY_GRAPH}."
            ) from exc
        self._structure = CholeskyStructure(adjacency, self.ordering_)

    def _sample(self, n_samples: int, rng: np.random.RandomState) -> np.ndarray:
        if self.method == "exact":
            factors = sample_cholesky_factors(self._structure, n_samples, rng)
        else:
            factors = metropolis_cholesky_factors(
                self._structure, n_samples, rng, self.n_burn_in, self.proposal_scale
            )
        return gram_matrices(factors)

    def _sample_sparse(self, rng: np.random.RandomState) -> sp.csr_array:
        factor = sample_sparse_cholesky_factor(self._structure, rng)
        # Along a perfect ordering U U^T has no fill-in: its stored entries are the
        # diagonal and the edges, and everything else is an exact (implicit) zero.
        matrix = (factor @ factor.T).tocsr()
        matrix = ((matrix + matrix.T) * 0.5).tocsr()
        matrix.setdiag(1.0)
        return matrix


def gram_matrices(factors: np.ndarray) -> np.ndarray:
    """``U @ U^T`` for a stack of square factors (one batched BLAS product)."""
    grams: NDArray[np.float64] = factors @ np.swapaxes(factors, -1, -2)
    return grams
