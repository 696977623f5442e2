"""The compiled block coordinate descent of the graphical lasso
(``skggm_bench.learners._glasso_descent``) and the start it gives the path
solver: its fixed point meets the optimality conditions, ``W`` stays positive
definite and inside the box, on well- and ill-conditioned covariances, singular
ones and from the starts the path solver hands it."""

import numpy as np
import pytest
from glasso_optimality import kkt_violation
from scipy.sparse.csgraph import connected_components
from sklearn.covariance import empirical_covariance
from sklearn.preprocessing import StandardScaler
from sparse_data import sparse_gaussian_data

import skggm_bench.learners._glasso_descent as descent_module
import skggm_bench.learners._glasso_path as glasso_path
from skggm_bench.learners import ExactGraphicalLasso
from skggm_bench.learners._glasso_descent import (
    block_descent,
    diagonal_into_box,
    exactly_symmetric,
    into_box,
    mirror_upper,
    precision_from,
    regressions,
    screened_components,
    symmetric_part,
)
from skggm_bench.learners._glasso_descent import (
    kkt_violation as compiled_violation,
)


def correlated(n, p, seed, rho=0.98):
    """Standardised AR(1) columns: condition numbers in the thousands."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    for j in range(1, p):
        X[:, j] = rho * X[:, j - 1] + np.sqrt(1 - rho**2) * X[:, j]
    return empirical_covariance(StandardScaler().fit_transform(X))


COVARIANCES = {
    "sparse": lambda: empirical_covariance(
        StandardScaler().fit_transform(sparse_gaussian_data(200, 40, 0))
    ),
    "ill-conditioned": lambda: correlated(80, 50, 3),
    "singular (n < p)": lambda: empirical_covariance(
        StandardScaler().fit_transform(sparse_gaussian_data(25, 40, 2))
    ),
}


@pytest.mark.parametrize("name", COVARIANCES)
@pytest.mark.parametrize("fraction", [0.5, 0.2])
def test_the_descent_converges_to_the_minimiser(name, fraction):
    """From the feasible start ``S`` moved towards its diagonal, the sweeps
    stop with ``W`` positive definite, ``W_ii = S_ii`` and ``|W - S| <= alpha``
    off the diagonal, and the precision read off the regressions meets the
    optimality conditions (checked here from ``np.linalg.inv``). The box
    holds to the lassos' tolerance: their active coefficients settle on the
    Gram matrix to ``tol`` in units of the gradient."""
    S = np.ascontiguousarray(COVARIANCES[name]())
    p = S.shape[0]
    off = S - np.diag(np.diag(S))
    alpha = fraction * np.abs(off).max()
    W = S - (alpha / np.abs(off).max()) * off
    B = np.zeros((p, p))
    sweeps, change = block_descent(S, alpha, W, B, 1e-12, 2000)
    assert 0 < sweeps < 2000 and change <= 1e-12
    assert np.linalg.eigvalsh(W)[0] > 0
    np.testing.assert_array_equal(np.diag(W), np.diag(S))
    np.testing.assert_array_equal(W, W.T)
    assert np.abs(W - S).max() <= alpha + 1e-12
    schur = np.diag(S) - np.einsum("ij,ij->i", W, B)
    K = -B / schur[:, None]
    K[np.diag_indices(p)] = 1 / schur
    K = 0.5 * (K + K.T)
    assert np.linalg.eigvalsh(K)[0] > 0
    assert kkt_violation(S, K, alpha) <= 1e-8
    assert (K != 0).sum() < p * p  # the lasso's zeros are exact
    # Power: the same K misses the conditions at another penalty.
    assert kkt_violation(S, K, 1.1 * alpha) > 1e-3


def test_a_lasso_that_does_not_settle_is_reported():
    """One pass allowed per lasso: the kernel says it did not settle (-1, inf)
    instead of returning a half-solved column."""
    S = np.ascontiguousarray(COVARIANCES["ill-conditioned"]())
    off = S - np.diag(np.diag(S))
    alpha = 0.2 * np.abs(off).max()
    W = S - 0.2 * off
    sweeps, change = block_descent(S, alpha, W, np.zeros_like(S), 1e-12, 100, 1)
    assert sweeps == -1 and change == np.inf


def soft(x, a):
    return np.sign(x) * max(abs(x) - a, 0.0)


def reference_lasso(S, alpha, W, beta, j, tol, capacity=1024):
    """``_glasso_descent._lasso`` step by step in numpy: column ``j``'s ``W
    beta`` after passes over the active coefficients (on their Gram matrix,
    until none moves by more than ``tol``) alternating with a check of the
    zeros against the exact ``W beta``. A zero outside the penalty joins the
    active coefficients unmoved while their Gram matrix has room (at most
    ``capacity`` of them); the lasso is solved when none joins. Beyond the
    room, the check is a full pass of coordinate descent (every coefficient
    moved, ``W beta`` kept current), solved when it moves none by more than
    ``tol``."""
    n = S.shape[0]
    active = list(np.flatnonzero(beta))
    while True:
        gathered = len(active) <= capacity
        if active and gathered:
            gram = W[np.ix_(active, active)]
            small = gram @ beta[active]
            while True:
                largest = 0.0
                for a, k in enumerate(active):
                    w, old = gram[a, a], beta[k]
                    new = soft(S[j, k] - small[a] + w * old, alpha) / w
                    if new != old:
                        small += (new - old) * gram[a]
                        beta[k] = new
                        largest = max(largest, abs(new - old) * w)
                if largest <= tol:
                    break
        product = W.T @ beta
        largest, entered, active = 0.0, 0, []
        for k in range(n):
            if k == j:
                continue
            w, old = S[k, k], beta[k]
            if old == 0.0 and abs(S[j, k] - product[k]) <= alpha:
                continue
            if gathered and (old != 0.0 or len(active) < capacity):
                active.append(k)
                entered += old == 0.0
                continue
            new = soft(S[j, k] - product[k] + w * old, alpha) / w
            if new != old:
                product += (new - old) * W[k]
                beta[k] = new
                largest = max(largest, abs(new - old) * w)
            if new != 0.0:
                active.append(k)
        if largest <= tol and not entered:
            return product


@pytest.mark.parametrize("name", COVARIANCES)
@pytest.mark.parametrize("tol", [1e-2, 1e-5])
@pytest.mark.parametrize("schedule", [(0.0, 0.0), (0.01, 0.1)])
@pytest.mark.parametrize("capacity", [1024, 3])
def test_the_kernel_is_the_block_descent_step_by_step(
    monkeypatch, name, tol, schedule, capacity
):
    """``block_descent`` takes the steps of the algorithm it implements
    (``reference_lasso`` column by column, ``W``'s row and column ``j`` set
    to ``W beta`` off the diagonal), up to rounding: the same number of
    sweeps, the same ``W`` and ``B``, the same zeros. Its shortcuts (a zero
    coefficient within the penalty is skipped unread) change no step, at a
    loose tolerance (few passes, the start far from the end) as at a tight
    one. With a schedule (``first_tol`` a share of ``alpha``, ``share``), the
    lassos of the first sweep stop at ``max(tol, first_tol)``, those of each
    later one at ``max(tol, share * change)``, and the sweeps end after one
    whose lassos stopped at ``tol`` moved no entry by more than ``tol``.
    With room for the Gram matrix of 3 coefficients, most checks overflow
    into full passes (the rows have more non-zeros than 3)."""
    monkeypatch.setattr(descent_module, "_GATHERED", capacity)
    S = np.ascontiguousarray(COVARIANCES[name]())
    p = S.shape[0]
    off = S - np.diag(np.diag(S))
    alpha = 0.3 * np.abs(off).max()
    W = S - (alpha / np.abs(off).max()) * off
    B = np.zeros((p, p))
    expected_W, expected_B = W.copy(), B.copy()
    first_tol, share = schedule[0] * alpha, schedule[1]
    sweeps, _ = block_descent(
        S, alpha, W, B, tol, 500, first_tol=first_tol, share=share
    )
    expected_sweeps, largest, inner = 0, np.inf, max(tol, first_tol)
    while largest > tol or inner > tol:
        if expected_sweeps:
            inner = max(tol, share * largest)
        expected_sweeps += 1
        largest = 0.0
        for j in range(p):
            product = reference_lasso(
                S, alpha, expected_W, expected_B[j], j, inner, capacity
            )
            others = np.arange(p) != j
            largest = max(largest, np.abs(product - expected_W[j])[others].max())
            expected_W[j, others] = expected_W[others, j] = product[others]
    assert sweeps == expected_sweeps
    np.testing.assert_allclose(W, expected_W, rtol=0, atol=1e-12)
    np.testing.assert_allclose(B, expected_B, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(B != 0, expected_B != 0)


@pytest.mark.parametrize("name", COVARIANCES)
def test_descent_starts_pass_the_check_without_a_newton_step(monkeypatch, name):
    """Along a path, each component's start from the descent (out of the
    previous penalty's solution, outside the new box) already meets the
    optimality conditions: the Newton method only checks it."""
    S = COVARIANCES[name]()
    largest = np.abs(S - np.diag(np.diag(S))).max()
    alphas = largest * np.geomspace(0.9, 0.15, 6)
    steps = []
    direction = glasso_path._newton_direction

    def counted(*args):
        steps.append(args)
        return direction(*args)

    monkeypatch.setattr(glasso_path, "_newton_direction", counted)
    precisions, solved = glasso_path.graphical_lasso_path(S, alphas)
    assert solved.all() and not steps
    for alpha, K in zip(alphas, precisions, strict=True):
        assert kkt_violation(S, K, alpha) <= 1e-8


@pytest.mark.parametrize("name", COVARIANCES)
def test_lassos_stopped_early_reach_the_same_solutions(monkeypatch, name):
    """Along a path, the lassos of the early sweeps stopped at a share of the
    sweep's move (the default) and every lasso solved to the tolerance give
    the same zeros, precisions within rounding of each other and certificates
    within the tolerance, on well- and ill-conditioned and singular
    covariances."""
    S = COVARIANCES[name]()
    largest = np.abs(S - np.diag(np.diag(S))).max()
    alphas = largest * np.geomspace(0.9, 0.1, 10)
    early, solved = glasso_path.graphical_lasso_path(S, alphas)
    assert solved.all()
    monkeypatch.setattr(glasso_path, "_INNER_SHARE", 0.0)
    monkeypatch.setattr(glasso_path, "_FIRST_INNER", 0.0)
    exact, solved = glasso_path.graphical_lasso_path(S, alphas)
    assert solved.all()
    np.testing.assert_array_equal(early != 0, exact != 0)
    np.testing.assert_allclose(early, exact, rtol=0, atol=1e-7 * np.abs(exact).max())
    for alpha, K in zip(alphas, early, strict=True):
        assert glasso_path.kkt_residual(S, K, alpha) <= 1e-10


def test_a_start_the_descent_cannot_use_falls_back_to_newton(monkeypatch):
    """Where the descent gives up (every lasso stopped after one pass here), the
    Newton method solves the component from the previous solution."""
    S = COVARIANCES["ill-conditioned"]()
    descent = glasso_path.block_descent
    monkeypatch.setattr(
        glasso_path,
        "block_descent",
        lambda S, alpha, W, B, tol, sweeps, **schedule: descent(
            S, alpha, W, B, tol, sweeps, 1, **schedule
        ),
    )
    largest = np.abs(S - np.diag(np.diag(S))).max()
    alphas = largest * np.array([0.5, 0.2])
    precisions, solved = glasso_path.graphical_lasso_path(S, alphas)
    assert solved.all()
    for alpha, K in zip(alphas, precisions, strict=True):
        assert kkt_violation(S, K, alpha) <= 1e-8


def test_a_fit_whose_unchecked_descent_misses_tol_is_solved_again(monkeypatch):
    """ExactGraphicalLasso leaves the descent's solutions to its certificate:
    where the descent stops short (a first share of 1e6 times the tolerance
    here), the certificate misses ``tol``, and that penalty is solved again
    with the solver's own checks, to a certificate within ``tol``."""
    S = COVARIANCES["sparse"]()
    largest = np.abs(S - np.diag(np.diag(S))).max()
    calls = []
    solve = glasso_path._solve_path

    def spy(S, alphas, start, tol, check, symmetric):
        calls.append(check)
        return solve(S, alphas, start, tol, check, symmetric)

    monkeypatch.setattr(glasso_path, "_solve_path", spy)
    monkeypatch.setattr(glasso_path, "_DESCENT_SHARES", (1e6, 0.01))
    model = ExactGraphicalLasso(alpha=0.3 * largest, covariance="precomputed")
    model.fit(S)
    assert calls == [False, True]
    assert model.kkt_residual_ <= 1e-10
    assert kkt_violation(S, model.precision_, 0.3 * largest) <= 1e-8


def test_a_component_of_nearly_every_variable_is_solved_with_the_lone_ones(
    monkeypatch,
):
    """At least 90 % of the variables in one component: the whole matrix is one
    block, the variables alone in theirs included. Their rows stay exactly
    ``e_j / S_jj`` and the rest equals the component solved alone."""
    S = np.zeros((32, 32))
    S[:30, :30] = COVARIANCES["sparse"]()[:30, :30]
    S[30, 30], S[31, 31] = 2.0, 0.5
    alpha = 0.2 * np.abs(S[:30, :30] - np.diag(np.diag(S[:30, :30]))).max()
    _, labels = connected_components(np.abs(S) > alpha, directed=False)
    assert np.bincount(labels).max() == 30  # one component, two alone
    whole = glasso_path.graphical_lasso_path(S, [alpha])[0][0]
    np.testing.assert_array_equal(whole[30:, :30], 0.0)
    np.testing.assert_array_equal(np.diag(whole)[30:], [0.5, 2.0])
    monkeypatch.setattr(glasso_path, "_WHOLE", 1.01)  # each component alone
    apart = glasso_path.graphical_lasso_path(S, [alpha])[0][0]
    np.testing.assert_array_equal(whole != 0, apart != 0)
    np.testing.assert_allclose(whole, apart, rtol=1e-7, atol=1e-9)
    assert kkt_violation(S, whole, alpha) <= 1e-8


def test_one_variable_and_read_only_covariances():
    """One variable is its own component, not a block for the descent (its
    read-only 1 x 1 diagonal once reached the kernel and failed); the kernel
    reads a read-only ``S``."""
    X = np.random.default_rng(0).standard_normal((30, 1))
    X.flags.writeable = False
    model = ExactGraphicalLasso(alpha=0.1).fit(X)
    np.testing.assert_allclose(model.precision_, 1 / np.var(X, keepdims=True))
    S = np.ascontiguousarray(COVARIANCES["sparse"]())
    S.flags.writeable = False
    off = S - np.diag(np.diag(S))
    alpha = 0.3 * np.abs(off).max()
    W = S - 0.3 * off
    sweeps, _ = block_descent(S, alpha, W, np.zeros_like(S), 1e-10, 500)
    assert sweeps > 0


# The compiled dense steps around the descent, against the numpy they replace,
# at sizes around the tile side (64) so that partial tiles are covered.
SIZES = [1, 2, 63, 64, 65, 130]


@pytest.mark.parametrize("p", SIZES)
def test_symmetric_part_and_its_symmetry_check(p):
    """``symmetric_part`` is numpy's ``(S / u + (S / u)^T) / 2`` bit for bit,
    for C and Fortran input, and calls a matrix symmetric exactly when
    np.allclose's test holds both ways round."""
    rng = np.random.default_rng(p)
    A = rng.standard_normal((p, p))
    expected = 0.5 * (A / 3.0 + (A / 3.0).T)
    for layout in (A, np.asfortranarray(A)):
        out, symmetric = symmetric_part(layout, 3.0, check=True)
        assert np.array_equal(out, expected)
        assert symmetric == (p == 1)
    out, symmetric = symmetric_part(expected, 1.0, check=True)
    assert symmetric and np.array_equal(out, expected)
    # Within rounding of symmetric: still symmetric; one pair 1e-8 apart: not.
    nearly = expected * (1 + 1e-14 * rng.standard_normal((p, p)))
    assert symmetric_part(nearly, 1.0, check=True)[1]
    if p > 1:
        nearly[p - 1, 0] += 1e-8
        assert not symmetric_part(nearly, 1.0, check=True)[1]
        assert symmetric_part(nearly, 1.0)[1]  # unchecked


@pytest.mark.parametrize("p", SIZES)
def test_exactly_symmetric(p):
    """True for an exactly symmetric matrix; False where one pair differs by
    an ulp, in the first tile, the last, or across them."""
    rng = np.random.default_rng(p)
    A = rng.standard_normal((p, p))
    A = A + A.T
    assert exactly_symmetric(A)
    for i, j in {(0, p - 1), (p - 1, 0), (p // 2, p - 1), (p - 1, p // 2), (0, 1)}:
        if i == j or max(i, j) >= p:
            continue
        B = A.copy()
        B[i, j] = np.nextafter(B[i, j], np.inf)
        assert not exactly_symmetric(B)


@pytest.mark.parametrize("p", SIZES)
def test_mirror_upper(p):
    A = np.random.default_rng(p).standard_normal((p, p))
    mirrored = A.copy()
    mirror_upper(mirrored)
    assert np.array_equal(mirrored, np.triu(A) + np.triu(A, 1).T)


def sparse_precision(p, seed):
    """A sparse diagonally dominant precision and its inverse."""
    rng = np.random.default_rng(seed)
    K = np.where(rng.random((p, p)) < 0.2, rng.standard_normal((p, p)), 0.0)
    K = K + K.T
    np.fill_diagonal(K, np.abs(K).sum(axis=1) + 1.0)
    return K, np.linalg.inv(K)


@pytest.mark.parametrize("p", SIZES)
def test_the_compiled_violation_is_the_independent_check(p):
    """``kkt_violation`` (compiled, given ``W``) is the independent check of
    glasso_optimality.py at its own inverse, at penalties that leave the
    support's conditions violated, met or the zeros strictly inside the box;
    a non-finite ``W`` is ``inf``."""
    K, W = sparse_precision(p, p)
    rng = np.random.default_rng(p + 1)
    for S in (W + 0.01 * (lambda E: E + E.T)(rng.standard_normal((p, p))), W):
        for alpha in (0.0, 0.05, 0.5):
            expected = max(kkt_violation(S, K, alpha), 0.0)
            assert compiled_violation(W, S, K, alpha) == pytest.approx(
                expected, rel=1e-12, abs=1e-15
            )
    broken = W.copy()
    broken[0, 0] = np.nan
    assert compiled_violation(broken, W, K, 0.1) == np.inf


@pytest.mark.parametrize("p", SIZES)
def test_regressions_and_the_precision_read_off_them(p):
    """``regressions`` is ``-K_jk / K_jj`` with a zero diagonal, and
    ``precision_from`` reads ``K`` back from ``(W, B)`` (``K_jj = 1 / (S_jj -
    W_j. B_j.)``), exactly symmetric; None when a Schur complement is not
    positive."""
    K, W = sparse_precision(p, p)
    B = regressions(K)
    expected = K / -np.diag(K)[:, None]
    np.fill_diagonal(expected, 0.0)
    assert np.array_equal(B, expected)
    precision = precision_from(W, B, np.diag(W).copy())
    np.testing.assert_allclose(precision, K, rtol=1e-10, atol=1e-12)
    assert np.array_equal(precision, precision.T)
    assert precision_from(W, B, np.diag(W) - 10.0 * np.diag(W)) is None
    # In B's place: the same bits, B itself returned; regressions read off a
    # precision whose support is not symmetric (B_jk != 0, B_kj == 0) too.
    lopsided = np.triu(B) + 0.5 * np.tril(B)
    lopsided[np.arange(1, p), np.arange(p - 1)] = 0.0
    for regression in (B, lopsided):
        expected = precision_from(W, regression, np.diag(W).copy())
        spoilt = regression.copy()
        in_place = precision_from(W, spoilt, np.diag(W).copy(), True)
        assert in_place is spoilt
        assert in_place.tobytes() == expected.tobytes()
    assert precision_from(W, B.copy(), np.diag(W) - 10.0 * np.diag(W), True) is None


@pytest.mark.parametrize("p", SIZES)
def test_into_box(p):
    """``into_box`` gives ``W`` the diagonal of ``S`` and moves it along the
    segment towards ``S`` until ``|W_ij - S_ij| <= alpha``; inside, it stays."""
    _, S = sparse_precision(p, p)
    W = np.diag(np.diag(S) * 2.0)
    alpha = 0.1 * np.abs(S - np.diag(np.diag(S))).max() + 1e-3
    moved = W.copy()
    into_box(S, moved, alpha)
    assert np.array_equal(np.diag(moved), np.diag(S))
    assert np.abs(moved - S).max() <= alpha * (1 + 1e-12)
    start = W.copy()
    np.fill_diagonal(start, np.diag(S))
    gap = np.abs(start - S).max()
    if gap > alpha:
        share = alpha / gap
        expected = share * start + (1 - share) * S
        np.fill_diagonal(expected, np.diag(S))
        np.testing.assert_allclose(moved, expected, rtol=1e-14, atol=1e-15)
    inside = 0.5 * (moved + S)
    kept = inside.copy()
    into_box(S, kept, alpha)
    assert np.array_equal(kept, inside)


@pytest.mark.parametrize("p", SIZES)
def test_diagonal_into_box_is_into_box_of_the_diagonal_start(p):
    """``diagonal_into_box(S, alpha)`` is ``into_box`` of ``diag(S)`` bit for
    bit (signed zeros included), with the penalty below the largest entry off
    the diagonal (the start moves) and above it (it stays diagonal)."""
    _, S = sparse_precision(p, p)
    off = np.abs(S - np.diag(np.diag(S))).max()
    for alpha in (0.3 * off, 2.0 * off + 1.0):
        expected = np.diag(np.diag(S))
        into_box(S, expected, alpha)
        got = diagonal_into_box(S, alpha)
        assert got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("p", SIZES)
def test_screened_components(p):
    """``screened_components`` labels the connected components of ``|S_ij| >
    alpha`` off the diagonal as scipy does, numbered in the order of their
    smallest variable, including a penalty equal to an entry (not above it:
    not an edge), one above every entry (every variable alone) and a chain
    of variables joined only through others, reversed."""
    _, S = sparse_precision(p, p)
    off = np.abs(S)
    np.fill_diagonal(off, 0.0)
    chain = np.eye(p) + 0.5 * (np.eye(p, k=1) + np.eye(p, k=-1))
    chain[p // 2, p // 2 - 1 : p // 2 + 1] = chain[p // 2 - 1 : p // 2 + 1, p // 2] = 0
    chain = np.ascontiguousarray(chain[::-1, ::-1])
    cases = [(S, alpha) for alpha in (np.median(off), off.max(), 0.5 * off.max())]
    for matrix, alpha in [*cases, (chain, 0.4)]:
        labels = screened_components(matrix, alpha)
        graph = np.abs(matrix) > alpha
        np.fill_diagonal(graph, False)
        count, expected = connected_components(graph, directed=False)
        # The same partition: each label of one is one label of the other.
        assert np.unique(labels).size == count
        assert np.unique(np.stack([labels, expected]), axis=1).shape[1] == count
        _, first = np.unique(labels, return_index=True)
        np.testing.assert_array_equal(labels[first], np.arange(count))
        assert np.all(np.diff(first) > 0)
