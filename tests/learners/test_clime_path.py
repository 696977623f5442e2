"""CLIME's parametric simplex path against the per-penalty programs solved by
HiGHS (``clime_columns``), on several data sets, on R huge's stored data sets
(whose flare references test_huge_agreement.py checks ``clime_columns``
against), on ill-conditioned and disconnected matrices; the compiled path
(``_clime_simplex.pyx``) against the numpy lockstep it replaced
(``clime_lockstep.py``); and the fallback to HiGHS."""

import json
from pathlib import Path

import numpy as np
import pytest
from clime_lockstep import lockstep_path
from sparse_data import sparse_gaussian_data

import skggm_bench.learners._clime_path as clime_path_module
from skggm_bench.learners import CLIME
from skggm_bench.learners._clime import clime_columns
from skggm_bench.learners._clime_path import clime_path

DATA = Path(__file__).parent / "data"
REFERENCE = json.loads((DATA / "huge_reference.json").read_text())


def load(name):
    return np.loadtxt(DATA / f"huge_{name}.csv", delimiter=",", skiprows=1)


def perturbed_correlation(X):
    n, p = X.shape
    return np.corrcoef(X, rowvar=False) + np.eye(p) / np.sqrt(n)


def check_against_highs(S, alphas):
    """Every column of the path is the HiGHS solution: the same support and
    values to 1e-9, feasible, and both at the optimum l1 norm."""
    solutions, solved = clime_path(S, alphas)
    assert solved.all()
    for alpha, ours in zip(alphas, solutions, strict=True):
        theirs = clime_columns(S, alpha)
        np.testing.assert_array_equal(ours != 0, theirs != 0)
        np.testing.assert_allclose(ours, theirs, atol=1e-9)
        assert np.abs(S @ ours - np.eye(S.shape[0])).max() <= alpha + 1e-9


@pytest.mark.parametrize(("n", "p", "seed"), [(100, 30, 0), (40, 30, 1), (200, 20, 2)])
def test_path_is_the_per_penalty_solution(n, p, seed):
    S = perturbed_correlation(sparse_gaussian_data(n, p, seed))
    largest = np.abs(S - np.diag(np.diag(S))).max()
    check_against_highs(S, largest * np.geomspace(1.0, 0.1, 6))


@pytest.mark.parametrize("name", list(REFERENCE))
def test_path_is_the_per_penalty_solution_on_huge_data(name):
    """At flare's penalties on R huge's data sets (p = 30 and 60)."""
    check_against_highs(
        perturbed_correlation(load(name)), np.array(REFERENCE[name]["clime_lambda"])
    )


def test_penalties_at_or_above_one_give_no_edge_and_any_order_is_kept():
    X = sparse_gaussian_data(80, 12, 3)
    alphas = np.array([0.1, 1.5, 0.25, 1.0])
    path = CLIME().adjacency_path(X, alphas)
    assert not path[1].any() and not path[3].any()
    for k in (0, 2):
        np.testing.assert_array_equal(path[k], CLIME(alpha=alphas[k]).fit(X).adjacency_)
    assert path[0].sum() > path[2].sum()


def ill_conditioned(p, seed):
    """A perturbed correlation matrix of nearly collinear columns (condition
    number about 1e6): pairs of columns differ by 1e-3 of noise."""
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((200, (p + 1) // 2))
    X = np.repeat(base, 2, axis=1)[:, :p] + 1e-3 * rng.standard_normal((200, p))
    return np.corrcoef(X, rowvar=False) + 1e-6 * np.eye(p)


def disconnected(p, seed):
    """Block diagonal: three groups of variables independent of each other."""
    S = np.zeros((p, p))
    for block in np.array_split(np.arange(p), 3):
        X = sparse_gaussian_data(40, block.size, seed + block[0])
        S[np.ix_(block, block)] = perturbed_correlation(X)
    return S


def random_spd(p, seed):
    """A Wishart draw at unit diagonal, few samples (p + 5), shifted by 0.1 I."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((p + 5, p)) @ rng.standard_normal((p, p))
    return perturbed_correlation(X) - np.eye(p) / np.sqrt(p + 5) + 0.1 * np.eye(p)


MATRICES = {
    "sparse data, p = 50": lambda: perturbed_correlation(
        sparse_gaussian_data(60, 50, 7)
    ),
    "random SPD, p = 30": lambda: random_spd(30, 8),
    "ill-conditioned, p = 24": lambda: ill_conditioned(24, 9),
    "disconnected, p = 30": lambda: disconnected(30, 10),
    "many columns, p = 120": lambda: perturbed_correlation(
        sparse_gaussian_data(100, 120, 11)
    ),
}


def grid_of(S, n_alphas=12, smallest=0.05):
    largest = np.abs(S - np.diag(np.diag(S))).max()
    return largest * np.geomspace(1.0, smallest, n_alphas)


@pytest.mark.parametrize("name", list(MATRICES))
def test_compiled_path_is_the_numpy_lockstep(name):
    """The same pivots: the same columns read, the same supports, the same
    values (to rounding; the kernel makes numpy's BLAS calls)."""
    S = MATRICES[name]()
    grid = grid_of(S)
    solutions, solved = clime_path(S, grid)
    expected, expected_solved = lockstep_path(S, grid)
    np.testing.assert_array_equal(solved, expected_solved)
    assert solved.mean() > 0.9
    np.testing.assert_array_equal(solutions != 0, expected != 0)
    np.testing.assert_allclose(solutions, expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", list(MATRICES)[1:4])
def test_compiled_path_is_optimal(name):
    """Each solution read is a CLIME optimum: feasible, and of the least l1 norm
    (HiGHS' optimal value at that penalty)."""
    S = MATRICES[name]()
    p = S.shape[0]
    grid = grid_of(S, n_alphas=5, smallest=0.1)
    solutions, solved = clime_path(S, grid)
    assert solved.all()
    for alpha, ours in zip(grid, solutions, strict=True):
        assert np.abs(S @ ours - np.eye(p)).max() <= alpha + 1e-9
        theirs = clime_columns(S, alpha)
        np.testing.assert_allclose(
            np.abs(ours).sum(axis=0), np.abs(theirs).sum(axis=0), rtol=1e-8
        )


def test_a_column_whose_program_is_infeasible_is_reported():
    """``S`` of rank one: ``|S b - e_j| <= alpha`` has a solution only for
    ``alpha >= 1/2`` (then ``b`` sums to ``1 - alpha``); below, every column's
    path breaks down (no entering variable) and is reported, its entries 0."""
    S = np.ones((6, 6))
    solutions, solved = clime_path(S, [0.8, 0.3, 0.1])
    assert solved[0].all() and not solved[1:].any()
    np.testing.assert_allclose(solutions[0].sum(axis=0), 0.2)
    assert not solutions[1:].any()


def test_columns_whose_path_breaks_down_are_solved_by_highs(monkeypatch):
    X = sparse_gaussian_data(60, 15, 4)
    alphas = np.geomspace(0.5, 0.1, 4)
    expected = CLIME().adjacency_path(X, alphas)

    calls = []

    def broken(S, grid, out, solved):
        """Reads nothing."""
        calls.append(grid.size)

    monkeypatch.setattr(clime_path_module, "simplex_paths", broken)
    np.testing.assert_array_equal(CLIME().adjacency_path(X, alphas), expected)
    assert calls == [4] and expected[-1].any()


def test_fit_is_the_path_at_its_penalty():
    """``CLIME.fit`` reads its columns off the path (no HiGHS call): exactly the
    path's solution at ``alpha_``, symmetrised and rescaled."""
    X = sparse_gaussian_data(100, 30, 6) * np.linspace(1.0, 2.0, 30)
    est = CLIME().fit(X)
    S = CLIME()._perturbed_correlation(X)
    solutions, solved = clime_path(S, [est.alpha_])
    assert solved.all()
    B = solutions[0]
    smaller = np.where(np.abs(B) <= np.abs(B.T), B, B.T)
    scale = X.std(axis=0)
    np.testing.assert_array_equal(est.precision_, smaller / np.outer(scale, scale))


def test_fit_where_the_path_breaks_down_is_solved_by_highs(monkeypatch):
    X = sparse_gaussian_data(60, 15, 4)
    expected = CLIME(alpha=0.2).fit(X)

    calls = []

    def broken(S, grid, out, solved):
        """Reads nothing."""
        calls.append(grid.size)

    monkeypatch.setattr(clime_path_module, "simplex_paths", broken)
    by_highs = CLIME(alpha=0.2).fit(X)
    np.testing.assert_array_equal(by_highs.adjacency_, expected.adjacency_)
    np.testing.assert_allclose(by_highs.precision_, expected.precision_, atol=1e-9)
    assert calls == [1] and expected.adjacency_.any()
