"""Samplers of random positive definite matrices with a graph's zero pattern.

Every sampler is a :class:`GraphicalModelGenerator`: ``fit(graph)`` then
``sample(n_samples)``.
"""

from ._base import GraphicalModelGenerator
from ._mcmc import PoorMixingWarning
from .baselines import CholeskyProduct, EigenShift
from .diagonal_dominance import DiagonalDominance
from .g_wishart import GWishart
from .hit_and_run import HitAndRunUniform
from .joint import JointGenerator
from .latent import LatentDraws, LatentGenerator
from .partial_orthogonalization import PartialOrthogonalization
from .spectral_control import SpectralControl
from .thresholded_pseudo_inverse import ThresholdedPseudoInverse
from .time_varying import TimeVaryingGenerator
from .triangulated_orthogonalization import TriangulatedOrthogonalization
from .uniform_chordal import UniformChordal

__all__ = [
    "CholeskyProduct",
    "DiagonalDominance",
    "EigenShift",
    "GWishart",
    "GraphicalModelGenerator",
    "HitAndRunUniform",
    "JointGenerator",
    "LatentDraws",
    "LatentGenerator",
    "PartialOrthogonalization",
    "PoorMixingWarning",
    "SpectralControl",
    "ThresholdedPseudoInverse",
    "TimeVaryingGenerator",
    "TriangulatedOrthogonalization",
    "UniformChordal",
]
