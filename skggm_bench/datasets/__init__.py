"""Gaussian graphical models with a known graph, and data drawn from them.

* :func:`make_ggm` draws a graph (or takes yours), a random positive definite matrix
  with that graph's zero pattern from a
  :class:`~skggm_bench.generators.GraphicalModelGenerator`, gives the matrix a
  *role* (precision for a concentration graph, covariance for a covariance graph),
  optionally rescales the variables, and samples Gaussian data, observed through an
  optional data model. Everything comes back as a :class:`sklearn.utils.Bunch`.
* :func:`sample_gaussian` draws ``N(0, Sigma)`` data from a covariance or a
  precision matrix, dense or ``scipy.sparse``, without inverting anything.
* :func:`make_joint_ggm`, :func:`make_time_varying_ggm` and :func:`make_latent_ggm`
  draw data of related models (K classes, T time points, hidden variables) with
  the class or time of each row and the truth of each model.

The route graph -> generator -> matrix -> data is one private routine shared with
the benchmark harness (``docs/architecture.md``), so a benchmark row's ``seed``
reproduces its data set through ``make_ggm(..., random_state=seed)``.

The data models (:class:`DataModel` and its subclasses) turn the latent Gaussian
rows into what a learner observes: transformed, heavy-tailed, contaminated,
discretised or incomplete data, with the truth still the latent graph
(``docs/data_models.md``).
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
from ._families import GRAPH_FAMILIES
from ._gaussian import sample_gaussian
from ._make_ggm import make_ggm
from ._related_models import make_joint_ggm, make_latent_ggm, make_time_varying_ggm

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
    "make_joint_ggm",
    "make_latent_ggm",
    "make_time_varying_ggm",
    "sample_gaussian",
]
