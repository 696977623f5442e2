"""skggm-bench data in other tools' benchmarks.

:func:`benchopt_data` gives a `benchopt <https://benchopt.github.io>`_ dataset what
benchopt's graphical-lasso benchmark (``benchmark_graphical_lasso``) expects --
the data ``X``, its sample covariance ``S`` and the true precision matrix -- drawn
by :func:`skggm_bench.datasets.make_ggm`, so that the benchmark's solvers can be
ranked on our generators instead of diagonal dominance alone. A dataset file is a
few lines; ``examples/benchopt/datasets/skggm.py`` is one, and
``docs/harness.md`` shows how to use it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import datasets, generators
from .datasets import make_ggm

__all__ = ["benchopt_data"]


def _named(value: Any, module: Any, base: type, what: str) -> Any:
    """An instance of ``base`` named by its class name in ``module``, or ``value``."""
    if not isinstance(value, str):
        return value
    cls = getattr(module, value, None)
    if not (isinstance(cls, type) and issubclass(cls, base)) or cls is base:
        names = sorted(
            name
            for name in module.__all__
            if isinstance(getattr(module, name), type)
            and issubclass(getattr(module, name), base)
            and getattr(module, name) is not base
        )
        raise ValueError(f"unknown {what} {value!r}; choose one of {names}")
    return cls()


def benchopt_data(
    n_samples: int,
    n_features: int,
    *,
    graph: Any = "erdos_renyi",
    density: float | None = 0.1,
    generator: Any = None,
    data_model: Any = None,
    random_state: int | np.random.RandomState | None = None,
) -> dict[str, Any]:
    """A graphical model with a known graph, as a benchopt dataset returns it.

    Draws through :func:`~skggm_bench.datasets.make_ggm` (the same data as
    ``make_ggm`` with these arguments, bit for bit) and adds the sample covariance.

    Parameters
    ----------
    n_samples : int
        Number of observations.
    n_features : int
        Number of variables.
    graph : str or graph, default="erdos_renyi"
        A graph family of :data:`skggm_bench.datasets.GRAPH_FAMILIES` or a graph
        (see :func:`~skggm_bench.datasets.make_ggm`).
    density : float or None, default=0.1
        Fraction of the node pairs that are edges (None: the family's default).
    generator : str, GraphicalModelGenerator or None, default=None
        The matrix sampler, as an instance or by class name (e.g.
        ``"TriangulatedOrthogonalization"``: convenient as a benchopt parameter);
        None is ``make_ggm``'s default.
    data_model : str, DataModel or None, default=None
        How the Gaussian data are observed, as an instance or by class name
        (e.g. ``"Nonparanormal"``); None: the Gaussian rows themselves. Data
        models with missing values are refused, since ``S`` needs every value.
    random_state : int, RandomState or None, default=None
        Seed of the draw.

    Returns
    -------
    dict
        ``X`` (n_samples, n_features), the data; ``S``, its sample covariance
        (centred, denominator ``n_samples``, as
        :func:`sklearn.covariance.empirical_covariance`); ``Theta_true``, the
        precision matrix drawn; ``Sigma_true``, its inverse; ``adjacency``, the
        true graph (boolean, the support of ``Theta_true`` off the diagonal).

    Raises
    ------
    ValueError
        For an unknown generator or data model name, data with missing values,
        or the errors of ``make_ggm``.

    Examples
    --------
    >>> data = benchopt_data(200, 10, generator="TriangulatedOrthogonalization",
    ...                      random_state=0)
    >>> sorted(data)
    ['S', 'Sigma_true', 'Theta_true', 'X', 'adjacency']
    >>> data["S"].shape, bool((data["Theta_true"][data["adjacency"]] != 0).all())
    ((10, 10), True)
    """
    bunch = make_ggm(
        n_samples,
        n_features,
        graph=graph,
        density=density,
        generator=_named(
            generator, generators, generators.GraphicalModelGenerator, "generator"
        ),
        data_model=_named(data_model, datasets, datasets.DataModel, "data model"),
        random_state=random_state,
    )
    X = np.asarray(bunch.X, dtype=np.float64)
    if np.isnan(X).any():
        raise ValueError(
            f"the data model {type(bunch.data_model).__name__} leaves values "
            "missing, and the sample covariance S needs every value; choose a data "
            "model without missing values"
        )
    centred = X - X.mean(axis=0)
    return {
        "X": X,
        "S": centred.T @ centred / X.shape[0],
        "Theta_true": bunch.precision,
        "Sigma_true": bunch.covariance,
        "adjacency": bunch.adjacency,
    }
