"""The two projection strategies of partial orthogonalization agree and are exact."""

import networkx as nx
import numpy as np
import pytest

from skggm_bench.generators import _orthogonalization as ortho
from skggm_bench.graphs import check_adjacency


@pytest.mark.parametrize("density", [0.05, 0.3, 0.8])
def test_bordered_and_direct_strategies_agree(monkeypatch, density):
    adjacency = check_adjacency(nx.gnp_random_graph(40, density, seed=1))
    non_neighbours = ortho.earlier_non_neighbours(adjacency)
    factors = np.random.RandomState(0).standard_normal((5, 40, 40))
    results = {}
    for name in ("bordered", "direct"):
        monkeypatch.setattr(
            ortho, "_prefer_bordering", lambda _, n=name: n == "bordered"
        )
        work = factors.copy()
        results[name] = ortho.orthogonalize_rows(work, non_neighbours)
        # The Gram matrix returned is the Gram matrix of the processed rows ...
        np.testing.assert_allclose(
            results[name], work @ np.swapaxes(work, 1, 2), atol=1e-12
        )
        # ... and every non-adjacent pair of rows is orthogonal.
        off = ~adjacency & ~np.eye(40, dtype=bool)
        assert np.abs(results[name][:, off]).max() < 1e-12
    np.testing.assert_allclose(results["bordered"], results["direct"], atol=1e-10)


def test_vanishing_row_without_redraw_is_an_error():
    # Row 2 lies in the span of rows 0 and 1, which it must be orthogonal to.
    adjacency = np.zeros((3, 3), dtype=bool)
    factors = np.array([[[1.0, 0, 0], [0, 1.0, 0], [1.0, 1.0, 0]]])
    with pytest.raises(np.linalg.LinAlgError, match="row 2 became numerically zero"):
        ortho.orthogonalize_rows(factors, ortho.earlier_non_neighbours(adjacency))


def test_vanishing_row_is_redrawn():
    adjacency = np.zeros((3, 3), dtype=bool)
    factors = np.array([[[1.0, 0, 0], [0, 1.0, 0], [1.0, 1.0, 0]]])
    gram = ortho.orthogonalize_rows(
        factors,
        ortho.earlier_non_neighbours(adjacency),
        redraw_row=lambda i, mask: np.array([[0.3, 0.2, 2.0]]),
    )
    np.testing.assert_allclose(gram[0], np.eye(3), atol=1e-15)
    np.testing.assert_allclose(factors[0, 2], [0, 0, 1.0])
