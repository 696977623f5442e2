"""Undirected graphs: validation, random families and chordal tools.

Every function here accepts a graph in any of three forms, validated as in
:func:`check_adjacency`:

* a :class:`networkx.Graph` -- matrix index ``k`` is the node ``list(G.nodes)[k]``;
* a ``(p, p)`` array-like adjacency matrix with boolean or 0/1 entries;
* a ``scipy.sparse`` matrix or array holding such an adjacency.

:func:`check_adjacency` returns a dense boolean matrix. The chordal tools read
networkx and sparse input into sparse neighbour lists instead, so their memory is
proportional to the number of edges (plus the fill-in for :func:`triangulate`,
whose returned matrix alone is dense).

Random families return a :class:`networkx.Graph` on the nodes ``0, ..., p - 1`` and
take a ``random_state`` with :func:`sklearn.utils.check_random_state` semantics.

The chordal tools use the convention of the paper (Córdoba et al.): a *perfect
ordering* lists the vertices so that the *earlier* neighbours of every vertex form a
clique. This is the reverse of a perfect elimination ordering.
"""

from ._adjacency import check_adjacency
from ._chordal import is_chordal, perfect_ordering, triangulate
from ._families import (
    band_graph,
    chain_graph,
    cluster_graph,
    complete_graph,
    erdos_renyi_graph,
    hub_graph,
    lattice_graph,
    random_chordal_graph,
    random_tree_graph,
    scale_free_graph,
    small_world_graph,
    star_graph,
)

__all__ = [
    "band_graph",
    "chain_graph",
    "check_adjacency",
    "cluster_graph",
    "complete_graph",
    "erdos_renyi_graph",
    "hub_graph",
    "is_chordal",
    "lattice_graph",
    "perfect_ordering",
    "random_chordal_graph",
    "random_tree_graph",
    "scale_free_graph",
    "small_world_graph",
    "star_graph",
    "triangulate",
]

# A study records a callable it is given (a graph family, a partial of one) by its
# module and name, in its fingerprint; these functions lived in one module,
# skggm_bench/graphs.py, until it was split by concern. Their __module__ stays
# the public one, so that the studies recorded before the split resume, and a
# pickled function is found where users import it.
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
