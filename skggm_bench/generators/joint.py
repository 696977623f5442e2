"""K related models: a shared graph, class-specific edges, values shared to a degree."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.utils._param_validation import HasMethods

from ..utils._validation import RANDOM_STATE, Interval
from ._related import (
    MAX_GROUPS,
    RelatedModelsGenerator,
    default_generator,
    draw_clones,
    drawn_adjacency,
    fit_clones,
    has_unit_diagonal,
)

__all__ = ["JointGenerator", "mixing_weights"]

# Entries of the components' draws held at once while sampling (128 MB).
_CHUNK_ENTRIES = 2**24


def mixing_weights(similarity: float, shared_share: float) -> tuple[float, float]:
    """Weights ``(a, b)`` of the class draw and of the shared part, ``a + b = 1``.

    With ``c = shared_share`` a class's matrix is ``a A_k + b (c C + (1 - c) B_k)``;
    on a shared edge two classes have covariance ``b^2 c^2 v`` and variance
    ``a^2 v + b^2 c^2 v`` when ``A_k`` and ``C`` give the entry the same variance
    ``v``, so ``(b c / a)^2 = s / (1 - s)`` makes their correlation ``s``.

    Examples
    --------
    >>> from skggm_bench.generators.joint import mixing_weights
    >>> mixing_weights(0.0, 0.8), mixing_weights(1.0, 0.8)
    ((1.0, 0.0), (0.0, 1.0))
    """
    if similarity <= 0.0:
        return 1.0, 0.0
    if similarity >= 1.0 or shared_share == 0.0:
        return 0.0, 1.0
    ratio = np.sqrt(similarity / (1.0 - similarity))
    a = shared_share / (shared_share + ratio)
    return float(a), float(1.0 - a)


class JointGenerator(RelatedModelsGenerator):
    """K related graphical models: shared edges, class-specific edges, shared values.

    **Graphs.** The graph given to :meth:`fit` has ``m`` edges. A uniformly random
    subset ``S`` of ``round(shared_fraction * m)`` of them is common to every
    class; each class ``k`` then gets ``m - |S|`` class-specific edges ``D_k``,
    drawn uniformly without replacement among the pairs not in ``S``,
    independently across classes. Every class graph ``G_k = S + D_k`` has ``m``
    edges, of which exactly ``|S|`` (the share ``shared_fraction_``) are shared by
    all classes (specific edges of two classes may also coincide by chance).

    **Values.** Each class draws from ``generator`` (any single-model generator of
    the package, or any object with ``fit(graph)`` and ``sample(n)``), fitted on
    that class's graph. With ``c = shared_fraction_``, class ``k``'s matrix is the
    convex combination::

        Omega_k = a A_k + b (c C + (1 - c) B_k),     a + b = 1,

    of three independent kinds of draws of ``generator``: ``A_k`` on ``G_k`` (one
    per class), ``C`` on the shared graph ``S`` (one for all classes) and ``B_k`` on
    the specific edges ``D_k`` (one per class). Each is symmetric positive definite
    with exact zeros off its graph, so ``Omega_k`` is too, with exact zeros off
    ``G_k`` and a unit diagonal whenever the generator's draws have one.

    What is promised about the law:

    - ``similarity=0`` gives ``Omega_k = A_k``: each class has exactly the law of
      ``generator`` on its graph, independently across classes.
    - ``similarity=1`` gives ``a = 0``: the values on shared edges are exactly
      equal across classes (``b c C``); with ``shared_fraction=1`` every class is
      the same draw ``C`` of ``generator`` on the graph.
    - In between, ``a`` and ``b`` are set (:func:`mixing_weights`) so that the
      values of two classes on a shared edge have correlation ``similarity``
      whenever ``generator`` gives that entry the same variance on ``G_k`` and on
      ``S`` (exactly so for ``shared_fraction=1``); in general the correlation
      grows from 0 to 1 with ``similarity``. The matrices are then mixtures, not
      draws of ``generator``'s law: mixing shrinks the entries somewhat, as any
      convex combination does.

    Parameters
    ----------
    generator : GraphicalModelGenerator, default=None
        The single-model generator of every class; None means
        :class:`TriangulatedOrthogonalization`, which accepts any graph (class
        graphs are random, hence in general not chordal).
    n_classes : int, default=3
        Number of classes ``K``.
    shared_fraction : float in [0, 1], default=0.8
        Share of the graph's edges common to all classes.
    similarity : float in [0, 1], default=0.5
        How similar the values on shared edges are: 0 independent, 1 equal.
    random_state : int, RandomState instance or None, default=None
        Controls the class graphs and, through seeds given to the clones of
        ``generator``, every draw.

    Attributes
    ----------
    adjacency_ : ndarray of shape (n_classes, p, p), dtype bool
        The graph of each class (as drawn on by its generator).
    shared_adjacency_ : ndarray of shape (p, p), dtype bool
        The shared graph ``S``.
    shared_fraction_ : float
        ``|S| / m``, the share of every class's edges that all classes share.
    weights_ : tuple of float
        The weights ``(a, b)``.
    generators_ : list of fitted generators
        The clones drawing ``A_k``, one per class.
    n_nodes_ : int
        Number of nodes ``p``.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.generators import JointGenerator
    >>> gen = JointGenerator(n_classes=2, similarity=1.0, random_state=0)
    >>> draws = gen.fit(nx.path_graph(6)).sample(3)
    >>> draws.shape
    (3, 2, 6, 6)
    >>> shared = gen.shared_adjacency_
    >>> bool((draws[:, 0][:, shared] == draws[:, 1][:, shared]).all())
    True
    """

    _parameter_constraints: dict[str, list[object]] = {
        "generator": [HasMethods(["fit", "sample"]), None],
        "n_classes": [Interval(Integral, 1, MAX_GROUPS, closed="both")],
        "shared_fraction": [Interval(Real, 0, 1, closed="both")],
        "similarity": [Interval(Real, 0, 1, closed="both")],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        generator: Any = None,
        *,
        n_classes: int = 3,
        shared_fraction: float = 0.8,
        similarity: float = 0.5,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.generator = generator
        self.n_classes = n_classes
        self.shared_fraction = shared_fraction
        self.similarity = similarity
        self.random_state = random_state

    def _fit(self, adjacency: np.ndarray, rng: np.random.RandomState) -> None:
        base = default_generator(self.generator)
        p = adjacency.shape[0]
        rows, cols = np.triu_indices(p, 1)
        edges = np.flatnonzero(adjacency[rows, cols])
        m = edges.size
        n_shared = round(self.shared_fraction * m)
        shared = rng.choice(edges, size=n_shared, replace=False)
        is_outside = np.ones(rows.size, dtype=bool)
        is_outside[shared] = False
        outside = np.flatnonzero(is_outside)
        self.shared_adjacency_ = _from_pairs(p, rows[shared], cols[shared])
        self.shared_fraction_ = n_shared / m if m else 1.0
        self.weights_ = mixing_weights(self.similarity, self.shared_fraction_)
        # A uniform subset of m - |S| pairs per class: those with the smallest
        # of i.i.d. uniform keys (one vectorised draw for all classes; a
        # RandomState.choice without replacement permutes all pairs, 10x slower).
        n_specific = m - n_shared
        keys = rng.random_sample((self.n_classes, outside.size))
        if 0 < n_specific < outside.size:
            chosen = np.argpartition(keys, n_specific - 1, axis=1)[:, :n_specific]
        else:
            chosen = np.argsort(keys, axis=1)[:, :n_specific]
        specific = outside[chosen]
        stack = np.zeros((self.n_classes, p, p), dtype=bool)
        classes = np.arange(self.n_classes)[:, None]
        stack[classes, rows[specific], cols[specific]] = True
        stack[classes, cols[specific], rows[specific]] = True
        specific_graphs = list(stack)
        class_graphs = list(stack | self.shared_adjacency_)
        a, b = self.weights_
        c = self.shared_fraction_
        # Only the components with a positive weight are fitted (and drawn), in
        # the order A_1..A_K, C, B_1..B_K of their seeds.
        graphs = class_graphs if a > 0 else []
        has_shared = b > 0 and c > 0
        if has_shared:
            graphs = [*graphs, self.shared_adjacency_]
        if b > 0 and c < 1:
            graphs = [*graphs, *specific_graphs]
        self._components = fit_clones(base, graphs, rng)
        n_own = self.n_classes if a > 0 else 0
        self._parts = (n_own, int(has_shared), len(graphs) - n_own - has_shared)
        self.generators_ = self._components[:n_own]
        # The truth is the graph of what was drawn (a generator may change it).
        drawn = np.array(
            [
                drawn_adjacency(fitted, g)
                for fitted, g in zip(self._components, graphs, strict=True)
            ]
        )
        own, shared, specific = np.split(drawn, np.cumsum(self._parts[:2]))
        self.adjacency_ = np.zeros((self.n_classes, p, p), dtype=bool)
        for part in (own, shared, specific):
            if len(part):  # one graph per class, or one shared by all
                self.adjacency_ |= part

    def _sample(self, n_samples: int) -> np.ndarray:
        """Return draws of shape (n_samples, n_classes, p, p)."""
        p, n_classes = self.n_nodes_, self.n_classes
        if self._parts[0] == len(self._components):
            # similarity=0: the classes' own draws are the matrices.
            draws = draw_clones(self._components, n_samples, p)
            return np.ascontiguousarray(np.swapaxes(draws, 0, 1))
        out = np.empty((n_samples, n_classes, p, p))
        # Every component is drawn in one batch (batched across graphs where the
        # generator can), a chunk of samples at a time so that the components'
        # draws stay near 128 MB.
        chunk = max(1, _CHUNK_ENTRIES // (len(self._components) * p * p))
        for start in range(0, n_samples, chunk):
            stop = min(start + chunk, n_samples)
            draws = draw_clones(self._components, stop - start, p)
            self._combine(draws, out[start:stop])
        return out

    def _combine(self, draws: np.ndarray, out: np.ndarray) -> None:
        """``out[s, k] = a A_k + b c C + b (1 - c) B_k`` from the components' draws.

        ``draws`` has shape (n_components, n, p, p), in fitting order; a part
        with a zero weight (no shared or no specific edges) was neither fitted
        nor drawn. The specific parts are scaled in place.
        """
        a, b = self.weights_
        c = self.shared_fraction_
        unit = has_unit_diagonal(draws)
        own, shared, specific = np.split(draws, np.cumsum(self._parts[:2]))
        if shared.size:
            shared = (b * c) * shared[0]
        if specific.size:
            specific *= b * (1.0 - c)
        # Class by class, so that the three terms of a class stay in cache.
        for k in range(self.n_classes):
            target = out[:, k]
            if own.size:
                np.multiply(own[k], a, out=target)
            else:
                target[...] = 0.0
            if shared.size:
                target += shared
            if specific.size:
                target += specific[k]
        if unit:
            # a + b (c + 1 - c) is 1 up to rounding; the promise is an exact one.
            index = np.arange(out.shape[-1])
            out[:, :, index, index] = 1.0


def _from_pairs(p: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    adjacency = np.zeros((p, p), dtype=bool)
    adjacency[rows, cols] = True
    return adjacency | adjacency.T
