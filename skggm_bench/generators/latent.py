"""Graphical models with hidden variables: a sparse part minus a low-rank part."""

from __future__ import annotations

from numbers import Integral
from typing import Any, NamedTuple

import numpy as np
from sklearn.utils._param_validation import HasMethods

from ..utils._validation import RANDOM_STATE, Interval
from ._related import (
    MAX_GROUPS,
    RelatedModelsGenerator,
    default_generator,
    draw_stack,
    drawn_adjacency,
    fit_clone,
)

__all__ = ["LatentDraws", "LatentGenerator", "marginal_parts"]


class LatentDraws(NamedTuple):
    """Draws of a latent-variable model, each of shape (n_samples, ...).

    ``joint`` is the precision of observed and hidden variables (observed first),
    ``sparse`` its observed block ``S`` and ``low_rank`` the part ``L`` removed by
    marginalising the hidden variables: the precision of the observed variables
    is ``sparse - low_rank``.
    """

    joint: np.ndarray
    sparse: np.ndarray
    low_rank: np.ndarray


def marginal_parts(joint: np.ndarray, n_observed: int) -> tuple[np.ndarray, np.ndarray]:
    """``S = K_oo`` and ``L = K_oh K_hh^{-1} K_ho`` of joint precisions ``K``.

    By the Schur complement, ``S - L`` is the inverse of the observed block of
    ``K^{-1}``: the precision of the observed variables once the hidden ones are
    integrated out. ``L`` is positive semi-definite of rank at most the number of
    hidden variables.

    Parameters
    ----------
    joint : ndarray of shape (n, p + h, p + h)
        Joint precision matrices, observed variables first.
    n_observed : int
        ``p``.

    Returns
    -------
    sparse, low_rank : ndarrays of shape (n, p, p)

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.generators.latent import marginal_parts
    >>> K = np.array([[[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.5, 0.5, 1.0]]])
    >>> S, L = marginal_parts(K, 2)
    >>> np.allclose(S - L, np.linalg.inv(np.linalg.inv(K)[:, :2, :2]))
    True
    """
    p = n_observed
    sparse = np.array(joint[:, :p, :p])
    cross = joint[:, :p, p:]
    solved = np.linalg.solve(joint[:, p:, p:], np.swapaxes(cross, 1, 2))
    low_rank = cross @ solved
    # Rounding leaves L asymmetric by ~1e-17; the truth is symmetric.
    low_rank = 0.5 * (low_rank + np.swapaxes(low_rank, 1, 2))
    return sparse, low_rank


class LatentGenerator(RelatedModelsGenerator):
    """Hidden variables attached to observed ones: ``S - L`` with ``L`` of rank h.

    :meth:`fit` takes the graph of the ``p`` observed variables and extends it by
    ``n_latent`` hidden nodes, not adjacent to each other. Hidden node ``j`` is
    attached to ``n_attached`` observed nodes: an anchor, distinct for every
    hidden node (a uniformly random injection), and ``n_attached - 1`` others
    drawn uniformly among the remaining observed nodes. ``generator`` (any
    single-model generator) is fitted on the extended graph and draws the joint
    precision ``K``, which therefore has exactly that generator's law on the
    extended graph.

    The observed variables then have precision ``S - L`` (:func:`marginal_parts`):
    ``S = K_oo`` is sparse, with the observed graph as support (the conditional
    graph given the hidden variables), and ``L = K_oh K_hh^{-1} K_ho`` is positive
    semi-definite of rank ``n_latent`` (with probability one: the distinct anchors
    give ``K_oh`` a full column rank pattern).

    Parameters
    ----------
    generator : GraphicalModelGenerator, default=None
        The single-model generator of the joint precision; None means
        :class:`TriangulatedOrthogonalization`.
    n_latent : int, default=2
        Number ``h`` of hidden variables (at most ``p``).
    n_attached : int, default=3
        Observed nodes each hidden variable is attached to (at most ``p``).
    random_state : int, RandomState instance or None, default=None
        Controls the attachment and, through a seed given to the clone of
        ``generator``, every draw.

    Attributes
    ----------
    adjacency_ : ndarray of shape (p + h, p + h), dtype bool
        The extended graph (observed nodes first), as drawn on.
    observed_adjacency_ : ndarray of shape (p, p), dtype bool
        The support of ``S``.
    attachment_ : ndarray of shape (p, h), dtype bool
        Which observed nodes each hidden variable is attached to.
    generator_ : fitted generator
        The clone drawing the joint precision.
    n_nodes_ : int
        Number of observed nodes ``p``.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.generators import LatentGenerator
    >>> gen = LatentGenerator(n_latent=2, random_state=0).fit(nx.path_graph(8))
    >>> draws = gen.sample(3)
    >>> draws.joint.shape, draws.sparse.shape
    ((3, 10, 10), (3, 8, 8))
    >>> [int(np.linalg.matrix_rank(L)) for L in draws.low_rank]
    [2, 2, 2]
    """

    _parameter_constraints: dict[str, list[object]] = {
        "generator": [HasMethods(["fit", "sample"]), None],
        "n_latent": [Interval(Integral, 1, MAX_GROUPS, closed="both")],
        "n_attached": [Interval(Integral, 1, None, closed="left")],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        generator: Any = None,
        *,
        n_latent: int = 2,
        n_attached: int = 3,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.generator = generator
        self.n_latent = n_latent
        self.n_attached = n_attached
        self.random_state = random_state

    def _fit(self, adjacency: np.ndarray, rng: np.random.RandomState) -> None:
        p, h = adjacency.shape[0], self.n_latent
        for name, value in (("n_latent", h), ("n_attached", self.n_attached)):
            if value > p:
                raise ValueError(
                    f"{name}={value} exceeds the number of observed nodes ({p})"
                )
        base = default_generator(self.generator)
        attachment = np.zeros((p, h), dtype=bool)
        anchors = rng.permutation(p)[:h]
        for j, anchor in enumerate(anchors):
            others = np.setdiff1d(np.arange(p), [anchor])
            chosen = rng.choice(others, size=self.n_attached - 1, replace=False)
            attachment[anchor, j] = True
            attachment[chosen, j] = True
        extended = np.zeros((p + h, p + h), dtype=bool)
        extended[:p, :p] = adjacency
        extended[:p, p:] = attachment
        extended[p:, :p] = attachment.T
        self.attachment_ = attachment
        self.generator_ = fit_clone(base, extended, rng)
        self.adjacency_ = drawn_adjacency(self.generator_, extended)
        self.observed_adjacency_ = self.adjacency_[:p, :p].copy()

    def _sample(self, n_samples: int) -> LatentDraws:
        """Return the joint precisions with their parts ``S`` and ``L``."""
        p = self.n_nodes_
        joint = draw_stack(self.generator_, n_samples, p + self.n_latent)
        sparse, low_rank = marginal_parts(joint, p)
        return LatentDraws(joint, sparse, low_rank)
