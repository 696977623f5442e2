"""CLIME's parametric simplex path against the per-penalty programs solved by
HiGHS (``clime_columns``), on several data sets, on R huge's stored data sets
(whose flare references test_huge_agreement.py checks ``clime_columns``
against), and its fallback to HiGHS."""

import json
from pathlib import Path

import numpy as np
import pytest
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


def test_columns_are_followed_in_groups_with_the_same_result(monkeypatch):
    S = perturbed_correlation(sparse_gaussian_data(60, 20, 5))
    alphas = np.geomspace(0.6, 0.08, 5)
    together = clime_path(S, alphas)
    monkeypatch.setattr(clime_path_module, "_LOCKSTEP_ENTRIES", 3 * 20 * 20)
    apart = clime_path(S, alphas)  # seven groups of at most three columns
    np.testing.assert_allclose(apart[0], together[0], atol=1e-12)
    np.testing.assert_array_equal(apart[1], together[1])


def test_columns_whose_path_breaks_down_are_solved_by_highs(monkeypatch):
    X = sparse_gaussian_data(60, 15, 4)
    alphas = np.geomspace(0.5, 0.1, 4)
    expected = CLIME().adjacency_path(X, alphas)

    def broken(S, grid, cols, out, solved):
        """Reads nothing."""

    monkeypatch.setattr(clime_path_module, "_paths", broken)
    np.testing.assert_array_equal(CLIME().adjacency_path(X, alphas), expected)
    assert expected[-1].any()


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

    def broken(S, grid, cols, out, solved):
        """Reads nothing."""

    monkeypatch.setattr(clime_path_module, "_paths", broken)
    by_highs = CLIME(alpha=0.2).fit(X)
    np.testing.assert_array_equal(by_highs.adjacency_, expected.adjacency_)
    np.testing.assert_allclose(by_highs.precision_, expected.precision_, atol=1e-9)
    assert expected.adjacency_.any()
