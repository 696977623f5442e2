"""Gaussian graphical models with a known graph, and data drawn from them."""

from ._make_ggm import GRAPH_FAMILIES, make_ggm, sample_gaussian

__all__ = ["GRAPH_FAMILIES", "make_ggm", "sample_gaussian"]
