"""The estimator-style base class shared by every sampler."""

from __future__ import annotations

import copy
import numbers
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from numpy.random.bit_generator import ISeedSequence
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..graphs import check_adjacency
from ..utils._validation import fit_context

if TYPE_CHECKING:  # scikit-learn >= 1.6; the annotation is never evaluated
    from sklearn.utils import Tags

__all__ = [
    "GraphicalModelGenerator",
    "fitted_clones",
    "sample_fitted",
    "seeded_random_state",
]


class GraphicalModelGenerator(BaseEstimator):
    """Base class for random symmetric positive definite matrices on a graph.

    A generator follows the scikit-learn estimator contract, with a graph in
    place of ``X``: :meth:`fit` validates the graph and precomputes whatever the
    sampler needs (orderings, triangulations); :meth:`sample` then draws matrices
    ``M`` that are symmetric positive definite with ``M[i, j] == 0.0`` exactly for
    every pair ``i != j`` that is not an edge.

    Randomness follows :func:`sklearn.utils.check_random_state`: with an integer
    ``random_state`` the same sequence of calls after :meth:`fit` gives the same
    matrices, and consecutive calls to :meth:`sample` give fresh draws.

    Subclasses implement ``_fit(adjacency)`` and ``_sample(n_samples, rng)``.

    Attributes
    ----------
    adjacency_ : ndarray of shape (p, p), dtype bool
        The validated graph.
    n_nodes_ : int
        Number of nodes ``p``.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.generators import UniformChordal
    >>> gen = UniformChordal(random_state=0).fit(nx.path_graph(4))
    >>> gen.sample(2).shape
    (2, 4, 4)
    """

    # Samplers whose raw draws are exactly symmetric, with exact zeros and the
    # promised diagonal (tests/generators/test_common.py checks the raw output of
    # every sampler) skip the cleaning pass, a third of the cost of a fast sampler.
    _pattern_exact_by_construction = False

    # Whether ``_fit`` reads only the graph and the parameters, never the random
    # state: clones fitted on equal graphs may then share their fitted state
    # (``fitted_clones``), e.g. the classes of a joint model with every edge shared.
    _fit_is_deterministic = False

    @property
    def _unit_diagonal(self) -> bool:
        """Whether draws promise a unit diagonal (correlation scale).

        Generators with a ``unit_diagonal`` parameter follow it; the others always
        return correlation matrices.
        """
        return bool(getattr(self, "unit_diagonal", True))

    # Parameters are validated against ``_parameter_constraints`` on entry, as
    # scikit-learn's estimators do; a wrapped generator is validated by its own fit.
    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, graph: Any, y: None = None) -> GraphicalModelGenerator:
        """Validate ``graph`` and precompute what sampling needs.

        Parameters
        ----------
        graph : networkx.Graph, array-like of shape (p, p) or scipy.sparse matrix
            The undirected graph; see :func:`skggm_bench.graphs.check_adjacency`.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        self : GraphicalModelGenerator
            The fitted generator.
        """
        if getattr(self, "sparse_output", False):
            # Large sparse graphs: never build a dense (p, p) array.
            adjacency = check_adjacency(graph, sparse=True)
        else:
            adjacency = check_adjacency(graph)
        if adjacency.shape[0] < 1:
            raise ValueError("graph has no nodes; at least one node is needed")
        return self._fit_adjacency(adjacency, check_random_state(self.random_state))

    def _fit_adjacency(
        self, adjacency: np.ndarray | sp.csr_array, rng: np.random.RandomState
    ) -> GraphicalModelGenerator:
        """:meth:`fit` on a validated graph, drawing from ``rng``."""
        self.adjacency_ = adjacency
        self.n_nodes_ = adjacency.shape[0]
        self._rng = rng
        self._fit(adjacency)
        return self

    def sample(self, n_samples: int = 1) -> NDArray[np.float64] | list[sp.csr_array]:
        """Draw independent random matrices.

        Parameters
        ----------
        n_samples : int, default=1
            Number of matrices.

        Returns
        -------
        matrices : ndarray of shape (n_samples, p, p), dtype float64
            Symmetric positive definite, exact zeros at non-edges. Generators with
            ``sparse_output=True`` return instead a list of ``n_samples``
            ``scipy.sparse.csr_array`` matrices whose stored entries are the
            diagonal and the edges.
        """
        check_is_fitted(self, "adjacency_")
        n_samples = _check_n_samples(n_samples)
        if getattr(self, "sparse_output", False):
            return [self._sample_sparse(self._rng) for _ in range(n_samples)]
        matrices = self._sample(n_samples, self._rng)
        if self._pattern_exact_by_construction:
            return matrices
        return _enforce_pattern(matrices, self.adjacency_, self._unit_diagonal)

    def iter_samples(
        self, n_samples: int, batch_size: int = 1000
    ) -> Iterator[NDArray[np.float64] | list[sp.csr_array]]:
        """Yield ``n_samples`` draws in batches, to bound peak memory.

        The concatenated batches are distributed exactly as ``sample(n_samples)``;
        memory in use is proportional to ``batch_size``, not to ``n_samples``.

        Parameters
        ----------
        n_samples : int
            Total number of matrices.
        batch_size : int, default=1000
            Matrices per batch (the last batch may be smaller).

        Yields
        ------
        batch : ndarray of shape (batch, p, p)

        Examples
        --------
        >>> import networkx as nx
        >>> from skggm_bench.generators import UniformChordal
        >>> gen = UniformChordal(random_state=0).fit(nx.path_graph(3))
        >>> [b.shape[0] for b in gen.iter_samples(5, batch_size=2)]
        [2, 2, 1]
        """
        check_is_fitted(self, "adjacency_")
        n_samples = _check_n_samples(n_samples)
        batch_size = _check_n_samples(batch_size, name="batch_size")
        for start in range(0, n_samples, batch_size):
            yield self.sample(min(batch_size, n_samples - start))

    @abstractmethod
    def _fit(self, adjacency: np.ndarray) -> None:
        """Precompute from the validated adjacency."""

    @abstractmethod
    def _sample(self, n_samples: int, rng: np.random.RandomState) -> np.ndarray:
        """Return (n_samples, p, p) draws; the base class enforces the pattern."""

    def _sample_sparse(self, rng: np.random.RandomState) -> sp.csr_array:
        """One draw as a sparse matrix (generators with ``sparse_output``)."""
        raise NotImplementedError(
            f"{type(self).__name__} has no sparse sampler"
        )  # pragma: no cover - only reachable through a sparse_output parameter

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.requires_fit = True
        return tags


def fitted_clones(
    generator: GraphicalModelGenerator,
    adjacencies: Sequence[np.ndarray],
    seeds: Sequence[int],
) -> list[GraphicalModelGenerator]:
    """``clone(generator).set_params(random_state=seed).fit(adjacency)`` for each pair.

    The same fitted generators (the same draws), made faster for the many clones
    of a related-models generator, which fits ``2 K + 1`` of them for K classes:
    the parameters are validated once; the graphs, derived by that generator
    from a validated one, are taken as they are (boolean, symmetric, with a
    ``False`` diagonal: what :func:`~skggm_bench.graphs.check_adjacency`
    returns); the random states are made by :func:`seeded_random_state`; and
    when ``_fit`` is deterministic a graph equal to an earlier one reuses its
    fitted state instead of fitting again (a triangulation, say). A class that
    overrides :meth:`~GraphicalModelGenerator.fit`, or asks for sparse output,
    is fitted clone by clone.
    """
    if type(generator).fit is not GraphicalModelGenerator.fit or getattr(
        generator, "sparse_output", False
    ):
        return [
            clone(generator).set_params(random_state=seed).fit(adjacency)
            for adjacency, seed in zip(adjacencies, seeds, strict=True)
        ]
    template = clone(generator)
    template._validate_params()
    deterministic = generator._fit_is_deterministic
    fitted: list[GraphicalModelGenerator] = []
    by_graph: dict[bytes, GraphicalModelGenerator] = {}
    for adjacency, seed in zip(adjacencies, seeds, strict=True):
        key = adjacency.tobytes() if deterministic else b""
        clone_ = copy.copy(by_graph.get(key, template))
        clone_.random_state = seed
        if key in by_graph:
            clone_._rng = seeded_random_state(seed)
        else:
            clone_._fit_adjacency(adjacency, seeded_random_state(seed))
            if deterministic:
                by_graph[key] = clone_
        fitted.append(clone_)
    return fitted


class _ConstantSeed(ISeedSequence):
    """A seed sequence that hashes nothing, for a state overwritten at once."""

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        return np.ones(n_words, dtype=dtype)


def seeded_random_state(seed: int) -> np.random.RandomState:
    """``np.random.RandomState(seed)``: the same state, about three times faster.

    ``RandomState(seed)`` first seeds a new MT19937 from fresh entropy through a
    ``SeedSequence`` (hashing 624 words, most of its cost), then overwrites that
    state by the legacy seeding of ``seed``; here the MT19937 starts from a
    constant state instead, which the same legacy seeding overwrites.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.generators._base import seeded_random_state
    >>> a, b = seeded_random_state(7), np.random.RandomState(7)
    >>> bool((a.standard_normal(3) == b.standard_normal(3)).all())
    True
    """
    # numpy documents (and accepts) any ISeedSequence; its stub says SeedSequence.
    bit_generator = np.random.MT19937(_ConstantSeed())  # type: ignore[arg-type]
    random_state = np.random.RandomState(bit_generator)
    random_state.seed(seed)
    return random_state


def sample_fitted(
    generators: Sequence[GraphicalModelGenerator], n_samples: int
) -> np.ndarray:
    """``np.stack([g.sample(n_samples) for g in generators])``, batched if possible.

    Fitted generators of one class that defines a ``_sample_clones`` class method
    (``_sample_clones(generators, n_samples)``, same result) are drawn by it: each
    still draws from its own random state exactly what its ``sample`` would (the
    same matrices up to rounding), but the work is batched across the graphs.
    A subclass that does not define its own ``_sample_clones`` is sampled one by
    one, since it may have changed ``_sample``.

    Returns
    -------
    draws : ndarray of shape (len(generators), n_samples, p, p)
    """
    draws: NDArray[np.float64]
    n_samples = _check_n_samples(n_samples)
    kind = type(generators[0])
    if "_sample_clones" in vars(kind) and all(type(g) is kind for g in generators):
        for generator in generators:
            check_is_fitted(generator, "adjacency_")
        draws = kind._sample_clones(generators, n_samples)
    else:
        draws = np.stack([generator.sample(n_samples) for generator in generators])
    return draws


def fast_generator(rng: np.random.RandomState) -> np.random.Generator:
    """A ``numpy.random.Generator`` seeded from (and advancing) ``rng``.

    Generators follow scikit-learn's ``RandomState`` semantics, but the legacy
    normal and Beta samplers are ~2x slower than ``Generator``'s; hot paths draw
    from a Generator seeded by one draw of the RandomState, which keeps results
    reproducible for a fixed seed and fresh across consecutive calls.
    """
    return np.random.default_rng(rng.randint(0, 2**32, size=4, dtype=np.uint64))


def _check_n_samples(n_samples: Any, name: str = "n_samples") -> int:
    if isinstance(n_samples, (bool, np.bool_)) or not isinstance(
        n_samples, numbers.Integral
    ):
        raise ValueError(f"{name} must be a positive integer, got {n_samples!r}")
    if n_samples < 1:
        raise ValueError(f"{name} must be >= 1, got {n_samples}")
    return int(n_samples)


def _enforce_pattern(
    matrices: np.ndarray, adjacency: np.ndarray, unit_diagonal: bool
) -> np.ndarray:
    """Make draws exactly symmetric, zero off the graph and (optionally) unit-diagonal.

    The samplers produce these properties up to rounding (e.g. ``U @ U.T`` in BLAS
    is not bitwise symmetric and orthogonalised rows leave ~1e-16 residues); the
    contract promises them exactly, so they are imposed here once for everyone.
    """
    # One multiplication both halves the symmetrised sum and zeroes the non-edges
    # (a boolean-mask assignment is several times slower on large batches); the
    # passes run on chunks of about 8 MB, which stay in cache.
    half_on_graph = np.where(adjacency, 0.5, 0.0)
    np.fill_diagonal(half_on_graph, 0.5)
    p = adjacency.shape[0]
    chunk = max(1, 2**20 // (p * p))
    cleaned = np.empty_like(matrices, dtype=np.float64)
    for start in range(0, matrices.shape[0], chunk):
        block = cleaned[start : start + chunk]
        raw = matrices[start : start + chunk]
        np.add(raw, np.swapaxes(raw, -1, -2), out=block)
        block *= half_on_graph
        # x * 0.0 is -0.0 for negative x; adding +0.0 turns every zero into +0.0.
        block += 0.0
    matrices = cleaned
    if unit_diagonal:
        index = np.arange(adjacency.shape[0])
        matrices[:, index, index] = 1.0
    return matrices
