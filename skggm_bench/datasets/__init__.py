"""Gaussian graphical models with a known graph, data drawn from them, and data models.

:func:`make_ggm` and :func:`sample_gaussian` draw latent Gaussian data; the data
models (:class:`DataModel` and its subclasses) turn them into what a learner
observes: transformed, heavy-tailed, contaminated, discretised or incomplete data,
with the truth still the latent graph.
"""

from ._data_models import (
    Binary,
    Contaminated,
    DataModel,
    Gaussian,
    MissingAtRandom,
    MissingCompletelyAtRandom,
    MultivariateT,
    Nonparanormal,
    Ordinal,
)
from ._make_ggm import GRAPH_FAMILIES, make_ggm, sample_gaussian

__all__ = [
    "GRAPH_FAMILIES",
    "Binary",
    "Contaminated",
    "DataModel",
    "Gaussian",
    "MissingAtRandom",
    "MissingCompletelyAtRandom",
    "MultivariateT",
    "Nonparanormal",
    "Ordinal",
    "make_ggm",
    "sample_gaussian",
]
