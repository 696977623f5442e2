"""Samplers of random positive definite matrices with a graph's zero pattern.

Every sampler is a :class:`GraphicalModelGenerator`: ``fit(graph)`` then
``sample(n_samples)``.
"""

from ._base import GraphicalModelGenerator
from .diagonal_dominance import DiagonalDominance
from .partial_orthogonalization import PartialOrthogonalization
from .triangulated_orthogonalization import TriangulatedOrthogonalization
from .uniform_chordal import UniformChordal

__all__ = [
    "DiagonalDominance",
    "GraphicalModelGenerator",
    "PartialOrthogonalization",
    "TriangulatedOrthogonalization",
    "UniformChordal",
]
