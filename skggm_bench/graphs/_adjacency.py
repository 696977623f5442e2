"""Graphs in any accepted form (networkx, dense, sparse) checked and converted:
:func:`check_adjacency`, and the conversions the families and chordal tools share."""

from __future__ import annotations

from typing import Any, Literal, overload

import networkx as nx
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from ..utils._validation import check_not_masked

__all__ = ["check_adjacency", "csr_from_pairs", "graph_from_pairs"]


# --------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------


# The result's type follows ``sparse``, so that callers need no isinstance check.
@overload
def check_adjacency(
    graph: Any, *, name: str = ..., sparse: Literal[False] = ...
) -> NDArray[np.bool_]: ...
@overload
def check_adjacency(
    graph: Any, *, name: str = ..., sparse: Literal[True]
) -> sp.csr_array: ...
@overload
def check_adjacency(
    graph: Any, *, name: str = ..., sparse: bool
) -> NDArray[np.bool_] | sp.csr_array: ...
def check_adjacency(
    graph: Any, *, name: str = "adjacency matrix", sparse: bool = False
) -> NDArray[np.bool_] | sp.csr_array:
    """Validate a graph and return its boolean adjacency matrix.

    This is the one validator of graphs in skggm-bench: generators, the data
    pipeline and the metrics all read graphs through it.

    Parameters
    ----------
    graph : networkx.Graph, array-like of shape (p, p) or scipy.sparse matrix
        The undirected graph. For a networkx graph, row ``k`` of the result is the
        node ``list(graph.nodes)[k]``. Arrays must hold booleans or the numbers 0 and
        1 off the diagonal and be symmetric. Explicitly stored zeros of a sparse
        matrix are not edges.
    name : str, default="adjacency matrix"
        What to call the graph in error messages (e.g. ``"true_adjacency"``).
    sparse : bool, default=False
        Return a ``scipy.sparse.csr_array`` instead of a dense array. Networkx
        graphs and sparse matrices are then read without ever building a dense
        ``(p, p)`` array: time and memory are proportional to ``p + |E|``.

    Returns
    -------
    adjacency : ndarray of shape (p, p) or scipy.sparse.csr_array, dtype bool
        Symmetric, with a ``False`` diagonal. A fresh array (never a view of the
        input); a sparse result is canonical (sorted indices, no duplicates, no
        stored zeros).

    Raises
    ------
    TypeError
        If ``graph`` is a string, an object that is neither a graph nor numeric,
        or a numpy masked array (its mask would be ignored).
    ValueError
        If the graph is directed or a multigraph, or the matrix is not 2-D, not
        square, not symmetric, contains NaN/inf or values other than 0 and 1 off the
        diagonal.

    Notes
    -----
    The diagonal is ignored, whatever it holds, and so are the self-loops of a
    networkx graph: in a Gaussian graphical model every variable depends on itself
    and the diagonal of a covariance or precision matrix is never zero, so a
    self-loop carries no information. The support of a precision matrix,
    ``precision != 0``, is therefore a valid graph as it is.

    See Also
    --------
    is_chordal, perfect_ordering, triangulate : Read sparse and networkx input
        without building a dense matrix.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from skggm_bench.graphs import check_adjacency
    >>> check_adjacency(nx.path_graph(3)).astype(int)
    array([[0, 1, 0],
           [1, 0, 1],
           [0, 1, 0]])
    >>> check_adjacency(np.array([[2.0, -0.5], [-0.5, 1.0]]) != 0).astype(int)
    array([[0, 1],
           [1, 0]])
    >>> check_adjacency([[0, 1], [0, 0]], name="true_adjacency")
    Traceback (most recent call last):
    ...
    ValueError: true_adjacency is not symmetric: entry (0, 1) is 1 but (1, 0) is 0
    """
    check_not_masked(graph, name)
    if isinstance(graph, nx.Graph):
        adjacency = _sparse_from_networkx(graph)
    elif sp.issparse(graph):
        adjacency = _sparse_from_sparse(graph, name)
    else:
        dense = _adjacency_from_matrix(_as_matrix(graph, name), name)
        return sp.csr_array(dense) if sparse else dense
    return adjacency if sparse else adjacency.toarray()


def _as_matrix(graph: Any, name: str) -> np.ndarray:
    if isinstance(graph, (str, bytes)) or graph is None:
        raise TypeError(
            f"{name} must be a networkx.Graph, a (p, p) adjacency array or a "
            f"scipy.sparse matrix, got {type(graph).__name__}"
        )
    try:
        return np.asarray(graph)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} of type {type(graph).__name__} cannot be read as an adjacency "
            "matrix"
        ) from exc


def _check_matrix_type(
    dtype: np.dtype[Any], ndim: int, shape: tuple[int, ...], name: str
) -> None:
    """Checks shared by dense and sparse matrices, in the order users hit them."""
    # kinds: b(ool), i(nt), u(nsigned), f(loat), c(omplex); not object/str/time.
    if dtype.kind not in "biufc":
        raise TypeError(f"{name} must be boolean or numeric, got dtype {dtype}")
    if ndim != 2:
        raise ValueError(f"{name} must be 2-D, got {ndim} dimensions")
    if shape[0] != shape[1]:
        raise ValueError(f"{name} must be square, got shape {shape}")
    if np.issubdtype(dtype, np.complexfloating):
        raise ValueError(f"{name} must be real, got complex values")


def _check_values(
    values: np.ndarray, rows: np.ndarray, cols: np.ndarray, name: str
) -> None:
    """Reject NaN/inf and values other than 0/1; the first offender is row-major."""
    if values.dtype == bool:
        return
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} contains NaN or infinite values off the diagonal")
    bad = np.flatnonzero((values != 0) & (values != 1))
    if bad.size:
        k = bad[0]
        raise ValueError(
            f"{name} must hold only 0/1 or booleans off the diagonal, got "
            f"{values[k].item()!r} at ({rows[k]}, {cols[k]}); threshold edge "
            "weights first, or use the edge-score metrics for continuous scores"
        )


def _adjacency_from_matrix(matrix: np.ndarray, name: str) -> np.ndarray:
    _check_matrix_type(matrix.dtype, matrix.ndim, matrix.shape, name)
    off_diagonal = ~np.eye(matrix.shape[0], dtype=bool)
    if matrix.dtype != bool:
        bad = (~np.isfinite(matrix) | ((matrix != 0) & (matrix != 1))) & off_diagonal
        if bad.any():
            rows, cols = np.nonzero(bad)
            _check_values(matrix[rows, cols], rows, cols, name)
    adjacency = np.array(matrix != 0, dtype=bool) & off_diagonal
    asymmetric = adjacency != adjacency.T
    if asymmetric.any():
        i, j = np.argwhere(asymmetric)[0]
        raise ValueError(
            f"{name} is not symmetric: entry ({i}, {j}) is "
            f"{int(adjacency[i, j])} but ({j}, {i}) is {int(adjacency[j, i])}"
        )
    return adjacency


def _sparse_from_sparse(matrix: Any, name: str) -> sp.csr_array:
    _check_matrix_type(matrix.dtype, matrix.ndim, matrix.shape, name)
    p = matrix.shape[0]
    # A fresh canonical CSR copy: duplicates of a COO input are summed (as
    # ``toarray`` would), indices sorted so that entry order is row-major.
    csr = sp.csr_array(matrix, copy=True)
    csr.sum_duplicates()
    rows = np.repeat(np.arange(p, dtype=np.int64), np.diff(csr.indptr))
    cols = csr.indices.astype(np.int64)
    off_diagonal = rows != cols
    rows, cols, values = rows[off_diagonal], cols[off_diagonal], csr.data[off_diagonal]
    _check_values(values, rows, cols, name)
    stored = values != 0
    rows, cols = rows[stored], cols[stored]
    # Row-major keys are sorted; the matrix is symmetric iff the transposed keys are
    # the same set. The first asymmetric pair in row-major order matches the dense
    # check's message.
    keys = rows * p + cols
    transposed = np.sort(cols * p + rows)
    if not np.array_equal(keys, transposed):
        first = int(np.setxor1d(keys, transposed, assume_unique=True)[0])
        i, j = divmod(first, p)
        present = bool(np.isin(first, keys))
        raise ValueError(
            f"{name} is not symmetric: entry ({i}, {j}) is "
            f"{int(present)} but ({j}, {i}) is {int(not present)}"
        )
    return csr_from_pairs(p, rows, cols)


def _sparse_from_networkx(graph: nx.Graph) -> sp.csr_array:
    if graph.is_directed():
        raise ValueError(
            "graph is directed; covariance and concentration graphs are undirected "
            "(use graph.to_undirected() if that is what you mean)"
        )
    if graph.is_multigraph():
        raise ValueError("graph is a multigraph; parallel edges are not allowed")
    index = {node: k for k, node in enumerate(graph.nodes)}
    n_edges = graph.number_of_edges()
    ends = np.fromiter(
        (index[node] for edge in graph.edges for node in edge),
        dtype=np.int64,
        count=2 * n_edges,
    )
    rows, cols = ends[0::2], ends[1::2]
    proper = rows != cols  # self-loops are ignored, as the diagonal of a matrix
    rows, cols = rows[proper], cols[proper]
    return csr_from_pairs(
        len(index), np.concatenate([rows, cols]), np.concatenate([cols, rows])
    )


def csr_from_pairs(p: int, rows: np.ndarray, cols: np.ndarray) -> sp.csr_array:
    """Canonical boolean CSR matrix with ``True`` at ``(rows[k], cols[k])``."""
    matrix = sp.csr_array(
        (np.ones(rows.size, dtype=bool), (rows, cols)), shape=(p, p), dtype=bool
    )
    matrix.sum_duplicates()
    return matrix


def graph_from_pairs(n_nodes: int, rows: np.ndarray, cols: np.ndarray) -> nx.Graph:
    """Graph on nodes 0..n_nodes-1 with the edges (rows[k], cols[k])."""
    graph = nx.empty_graph(n_nodes)
    graph.add_edges_from(zip(rows.tolist(), cols.tolist(), strict=True))
    return graph
