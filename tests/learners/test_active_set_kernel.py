"""The compiled active-set iteration (``skggm_bench.learners._active_set_kernel``)
against the NumPy iteration it replaced, and its contract on one call.

``data/active_set_supports.npz`` holds the supports that the NumPy iteration
(``nodewise_lasso_path`` at commit 80406e1, all nodes in lockstep, batched
solves) found on the problems of :func:`problems`: the whole node-wise lasso path
of each, and the square-root lasso where ``n > p`` (with ``n <= p`` some
regressions fit the data exactly, where TIGER warns and the solution is not
unique to working precision). Made with that commit's module as
``np.packbits(nodewise_lasso_path(Z, penalties, ...) != 0)`` per problem and
problem kind (``"lasso/<name>"``, ``"sqrt/<name>"``).
"""

from pathlib import Path

import numpy as np
import pytest

from skggm_bench.learners._active_set_kernel import active_set_iterations
from skggm_bench.learners._active_set_lasso import _Problem, nodewise_lasso_path
from skggm_bench.learners._utils import standardize_columns

SUPPORTS = Path(__file__).parent / "data" / "active_set_supports.npz"


def problems():
    """Named data sets: generic, strongly correlated, nearly collinear and
    ill-conditioned columns, a constant column; n > p and n < p."""
    rng = np.random.default_rng(40)
    shapes = [(200, 50), (100, 50), (50, 50), (30, 50), (20, 40), (120, 15)]
    for n, p in shapes:
        X = rng.standard_normal((n, p))
        yield f"generic_{n}x{p}", X.copy()
        ar = X.copy()
        for j in range(1, p):  # AR(1) at 0.95: the iteration cycles, homotopy
            ar[:, j] = 0.95 * ar[:, j - 1] + np.sqrt(1 - 0.95**2) * ar[:, j]
        yield f"ar95_{n}x{p}", ar
        near = X.copy()  # nearly collinear pairs: ill-conditioned blocks
        near[:, 1] = near[:, 0] + 1e-6 * rng.standard_normal(n)
        near[:, 3] = near[:, 2] + 1e-4 * rng.standard_normal(n)
        yield f"collinear_{n}x{p}", near
        mixed = X.copy()  # a common factor in half of the columns
        half = p // 2
        mixed[:, :half] = 0.3 * mixed[:, :half] @ rng.standard_normal((half, half))
        mixed[:, :half] += mixed[:, :1]
        yield f"mixed_{n}x{p}", mixed
        constant = X.copy()
        constant[:, -1] = 1.0
        yield f"constant_{n}x{p}", constant


def penalties_of(Z, square_root):
    n, p = Z.shape
    if square_root:
        return np.sqrt(np.log(p) / n) * np.array([2.0, 1.0, 0.5])
    R = Z.T @ Z / n
    return np.abs(R - np.diag(np.diag(R))).max() * np.geomspace(0.9, 0.05, 10)


def cases():
    for name, X in problems():
        yield "lasso", name, X
        n, p = X.shape
        if n > p and np.ptp(X[:, -1]) > 0:
            yield "sqrt", name, X


@pytest.mark.parametrize(
    ("kind", "name", "X"), list(cases()), ids=[f"{k}/{n}" for k, n, _ in cases()]
)
def test_supports_equal_the_numpy_iteration(kind, name, X):
    """Every support along the path is the NumPy iteration's (the coefficients
    may differ in the last bits: the sums are taken in another order)."""
    Z, _ = standardize_columns(X)
    square_root = kind == "sqrt"
    coef = nodewise_lasso_path(Z, penalties_of(Z, square_root), square_root=square_root)
    with np.load(SUPPORTS) as stored:
        expected = np.unpackbits(stored[f"{kind}/{name}"], count=coef.size)
    np.testing.assert_array_equal(coef != 0, expected.reshape(coef.shape) == 1)


def lasso_violation(R, w, node, lam):
    """Largest violation of node ``node``'s lasso optimality conditions at ``w``."""
    d = R[node] - R @ w
    v = np.where(w != 0, np.abs(d - lam * np.sign(w)), np.maximum(np.abs(d) - lam, 0))
    v[node] = 0.0
    return v.max()


def segments_of(problem):
    s = problem.segments
    return {"known": s.known.view(np.uint8), "signs": s.signs, "u": s.u, "v": s.v}


def test_settles_from_zero_exactly_and_records_the_segment():
    rng = np.random.default_rng(1)
    Z, _ = standardize_columns(rng.standard_normal((80, 12)))
    problem = _Problem(Z)
    nodes = np.arange(12)
    lam = 0.1
    W = np.zeros((12, 12))
    settled = active_set_iterations(
        problem.R,
        problem.allowed.view(np.uint8),
        nodes,
        np.full(12, lam),
        W,
        False,
        problem.max_active,
        np.full(12, 20),
        **segments_of(problem),
    )
    assert settled.all()
    for node in nodes:
        assert lasso_violation(problem.R, W[node], node, lam) < 1e-12
    s = problem.segments
    assert s.known.all()
    np.testing.assert_array_equal(s.signs, np.sign(W))
    np.testing.assert_allclose(s.u - lam * s.v, W, atol=1e-15)
    # A start on that segment settles without a solve (no iteration allowed),
    # at another penalty where the signs still hold; without segments it cannot.
    shifted = lam * 1.0001
    for segments, expected in ((segments_of(problem), True), ({}, False)):
        V = W.copy()
        settled = active_set_iterations(
            problem.R,
            problem.allowed.view(np.uint8),
            nodes,
            np.full(12, shifted),
            V,
            False,
            problem.max_active,
            np.zeros(12, dtype=np.intp),
            **segments,
        )
        assert settled.all() == expected
        if expected:
            np.testing.assert_allclose(V, s.u - shifted * s.v, atol=0)
        else:
            np.testing.assert_array_equal(V, W)  # the start, untouched


def test_a_singular_block_leaves_the_node_unsettled_at_its_last_iterate():
    """Two identical columns entering together make the block exactly singular:
    the node fails (another method decides) and keeps its start, never NaN."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((60, 4))
    X[:, 1] = X[:, 0]
    X[:, 2] = X[:, 0] + X[:, 3]  # node 2 needs both copies of column 0
    Z, _ = standardize_columns(X)
    problem = _Problem(Z)
    W = np.zeros((4, 4))
    settled = active_set_iterations(
        problem.R,
        problem.allowed.view(np.uint8),
        np.array([2]),
        np.array([1e-3]),
        W,
        False,
        problem.max_active,
        np.array([20]),
    )
    assert not settled[0]
    np.testing.assert_array_equal(W, 0.0)
