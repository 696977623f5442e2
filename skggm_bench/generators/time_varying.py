"""A sequence of graphical models whose edges switch and whose values drift smoothly."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.utils._param_validation import HasMethods

from ..utils._validation import RANDOM_STATE, Interval
from ._related import (
    MAX_GROUPS,
    RelatedModelsGenerator,
    default_generator,
    draw_stack,
    drawn_adjacency,
    fit_clone,
    has_unit_diagonal,
    swap_edges,
)

__all__ = ["TimeVaryingGenerator", "window_kernel"]


def window_kernel(window: int) -> np.ndarray:
    """The weights ``k_0 .. k_{L-1}`` of the smooth part, a normalised sine bump.

    They rise from and fall back towards zero, so a component enters and leaves
    the sum gradually.

    Examples
    --------
    >>> from skggm_bench.generators.time_varying import window_kernel
    >>> window_kernel(3).round(3).tolist()
    [0.293, 0.414, 0.293]
    """
    weights = np.sin(np.pi * np.arange(1, window + 1) / (window + 1))
    kernel: NDArray[np.float64] = weights / weights.sum()
    return kernel


class TimeVaryingGenerator(RelatedModelsGenerator):
    """T graphical models in time: edges switch at a set rate, values drift smoothly.

    **Graphs.** ``G_0`` is the graph given to :meth:`fit` (``m`` edges). From
    ``G_t`` to ``G_{t+1}``, ``round(change_rate * m)`` edges drawn uniformly
    disappear and as many pairs drawn uniformly among the non-edges of ``G_t``
    appear, so every graph has ``m`` edges and exactly that many edges switch off
    (and on) at each step (at most the number ``N - m`` of non-edges, e.g. none
    on a complete graph; ``n_changes_`` says how many).

    **Values.** With ``L = window``, ``beta = smoothness`` and ``k`` the sine
    kernel of :func:`window_kernel`, the matrix at time ``t`` is the convex
    combination::

        Omega_t = (1 - beta) N_t + beta * sum_{j < L} k_j C_{t - j},

    of independent draws of ``generator``: an innovation ``N_t`` on ``G_t`` and
    slowly varying components ``C_s`` on ``J_s``, the edges present at every time
    of ``s, ..., s + L - 1`` (times before 0 and after ``T - 1`` have the graphs
    ``G_0`` and ``G_{T-1}``). Every ``C_s`` used at time ``t`` has ``J_s`` inside
    ``G_t``, so ``Omega_t`` is symmetric positive definite with exact zeros off
    ``G_t`` (and a unit diagonal whenever the generator's draws have one); the
    innovation makes every edge of ``G_t`` non-zero.

    Consecutive matrices share ``L - 1`` of their ``L`` smooth components: the
    larger ``beta``, the smaller the jumps. An edge that disappears after time
    ``t_0`` is in no ``C_s`` whose window reaches past ``t_0``, so before it
    disappears its smooth part fades out through the kernel's tail, and it is
    exactly zero from ``t_0 + 1`` on (an edge that appears fades in the same way).
    With a constant graph and equal variances ``v`` of an entry under the
    innovation and smooth draws, the correlation of an entry at consecutive times
    is ``beta^2 sum_j k_j k_{j+1} / ((1 - beta)^2 + beta^2 sum_j k_j^2)``.

    What is promised about the law: with ``smoothness=0`` each ``Omega_t`` has
    exactly the law of ``generator`` on ``G_t``, independently across times; with
    ``smoothness > 0`` the matrices are mixtures, not draws of that law.

    Parameters
    ----------
    generator : GraphicalModelGenerator, default=None
        The single-model generator; None means
        :class:`TriangulatedOrthogonalization` (the graphs are in general not
        chordal).
    n_times : int, default=5
        Number of time points ``T``.
    change_rate : float in [0, 1], default=0.1
        Share of the edges that disappear (and of new edges that appear) at each
        step.
    smoothness : float in [0, 1), default=0.8
        Weight ``beta`` of the smooth part; 0 draws independent matrices.
    window : int, default=4
        Number ``L`` of time points each smooth component spans.
    random_state : int, RandomState instance or None, default=None
        Controls the graphs and, through seeds given to clones of ``generator``,
        every draw.

    Attributes
    ----------
    adjacency_ : ndarray of shape (n_times, p, p), dtype bool
        The graph at each time.
    n_changes_ : int
        Edges switched off (and on) at each step.
    n_nodes_ : int
        Number of nodes ``p``.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.generators import TimeVaryingGenerator
    >>> gen = TimeVaryingGenerator(n_times=4, change_rate=0.2, random_state=0)
    >>> draws = gen.fit(nx.cycle_graph(10)).sample(2)
    >>> draws.shape, gen.n_changes_
    ((2, 4, 10, 10), 2)
    >>> bool(((draws != 0) == (gen.adjacency_ | np.eye(10, dtype=bool))).all())
    True
    """

    _parameter_constraints: dict[str, list[object]] = {
        "generator": [HasMethods(["fit", "sample"]), None],
        "n_times": [Interval(Integral, 1, MAX_GROUPS, closed="both")],
        "change_rate": [Interval(Real, 0, 1, closed="both")],
        "smoothness": [Interval(Real, 0, 1, closed="left")],
        "window": [Interval(Integral, 1, MAX_GROUPS, closed="both")],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        generator: Any = None,
        *,
        n_times: int = 5,
        change_rate: float = 0.1,
        smoothness: float = 0.8,
        window: int = 4,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.generator = generator
        self.n_times = n_times
        self.change_rate = change_rate
        self.smoothness = smoothness
        self.window = window
        self.random_state = random_state

    def _fit(self, adjacency: np.ndarray, rng: np.random.RandomState) -> None:
        base = default_generator(self.generator)
        m = int(np.triu(adjacency, 1).sum())
        n_pairs = adjacency.shape[0] * (adjacency.shape[0] - 1) // 2
        self.n_changes_ = min(round(self.change_rate * m), n_pairs - m)
        everything = np.ones_like(adjacency)
        sequence = [adjacency]
        for _ in range(self.n_times - 1):
            sequence.append(swap_edges(sequence[-1], everything, self.n_changes_, rng))
        graphs = np.stack(sequence)
        self._innovations = [fit_clone(base, g, rng) for g in graphs]
        self.adjacency_ = np.stack(
            [
                drawn_adjacency(f, g)
                for f, g in zip(self._innovations, graphs, strict=True)
            ]
        )
        self._smooth = []
        if self.smoothness > 0:
            # C_s for s = -(L - 1), ..., T - 1 on the edges present throughout
            # its window (times are clipped to [0, T - 1]).
            window = self.window
            for s in range(-(window - 1), self.n_times):
                times = np.clip(np.arange(s, s + window), 0, self.n_times - 1)
                persistent = np.logical_and.reduce(graphs[times])
                self._smooth.append(fit_clone(base, persistent, rng))

    def _sample(self, n_samples: int) -> np.ndarray:
        """Return draws of shape (n_samples, n_times, p, p)."""
        p, n_times, beta = self.n_nodes_, self.n_times, self.smoothness
        out = np.empty((n_samples, n_times, p, p))
        unit = True
        for t, fitted in enumerate(self._innovations):
            draws = draw_stack(fitted, n_samples, p)
            unit &= has_unit_diagonal(draws)
            out[:, t] = (1.0 - beta) * draws
        if beta > 0:
            kernel = beta * window_kernel(self.window)
            for index, fitted in enumerate(self._smooth):
                draws = draw_stack(fitted, n_samples, p)
                unit &= has_unit_diagonal(draws)
                s = index - (self.window - 1)
                # C_s enters Omega_t for t = s, ..., s + L - 1 with weight k_{t-s}.
                for j in range(self.window):
                    if 0 <= s + j < n_times:
                        out[:, s + j] += kernel[j] * draws
        if unit:
            # The weights sum to 1 up to rounding; the promise is an exact one.
            nodes = np.arange(p)
            out[:, :, nodes, nodes] = 1.0
        return out
