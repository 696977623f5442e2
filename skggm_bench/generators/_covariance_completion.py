"""Maximum-determinant covariance completion, batched and Anderson-accelerated.

Given ``sigma`` (positive definite) and a graph, the completion is the unique ``W``
equal to ``sigma`` on the diagonal and the edges whose inverse vanishes off the
graph. Hastie, Tibshirani & Friedman's iterative regressions (*The Elements of
Statistical Learning*, 2nd ed., Algorithm 17.1) compute it: a *sweep* visits every
node ``j`` with neighbours ``N``, solves ``W[N, N] beta = sigma[N, j]`` and sets
``W[-j, j] = W[-j, N] beta``. A sweep only moves the entries off the graph (the
others are ``sigma``'s by construction), so it is a map ``x -> F(x)`` on those
entries whose unique fixed point is the completion.

The sweeps converge linearly, slowly when ``sigma`` is ill conditioned: an inverse
Wishart draw with ``p + 2`` degrees of freedom (Lenkoski's sampler at ``df=3``)
needs 40 to 80 sweeps to move no entry by more than ``1e-8``. Anderson
acceleration (Anderson, 1965; Walker & Ni, 2011) extrapolates from the last
``memory`` sweeps: with residuals ``g_k = F(x_k) - x_k`` and the differences
``dG``, ``dF`` of the last residuals and sweeps, the next iterate is
``F(x_k) - dF gamma`` with ``gamma`` the least-squares solution of
``dG gamma ~ g_k``. It reaches the same fixed point in about a third of the sweeps.
A draw whose residual grows drops its history (the next step is a plain sweep), and
a chunk whose extrapolation breaks a sweep (a singular ``W[N, N]``, a non-finite
entry) is redone with plain sweeps, which cannot fail on positive definite input.

Every draw runs its own iteration (batched over draws, nothing shared), so its
completion does not depend on the others in the batch. A draw has converged when
its last sweep moved no entry by more than ``tol`` times the largest diagonal entry
of its ``sigma``: the stopping rule of the plain iteration, which bounds the
residual of the returned matrix, since the returned matrix is that last sweep.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ._completion_sweep import gather, scatter
from ._completion_sweep import sweep as sweep_nodes

__all__ = ["complete_covariance_batch"]

# Sweeps remembered by Anderson acceleration. Slowest of 100 inverse Wishart draws
# (df = p + 2) on G(50, 0.1) / G(100, 0.1): 48 / 36 sweeps with memory 1, 33 / 28
# with 2, 25 / 23 with 3, 25 / 21 with 4, 23 / 20 with 6 (83 / 61 unaccelerated);
# 4 is the fastest, a longer memory costs more per sweep than it saves.
_MEMORY = 4
# Draws completed together: at most this many entries in one (draws, p, p) array
# (512 KB), which keeps a chunk's matrices and its Anderson history in cache, and
# stops a chunk's fast draws from waiting in arrays swept for its slowest. 100 draws
# with the compiled sweep, CPU seconds at p = 50 / 100 (medians of 8, alternating in
# one process, 2026-11-29): 0.098 / 0.415 with 2**18 entries (104 / 26 draws a
# chunk), 0.073 / 0.389 with 2**16, 0.083 / 0.417 with 2**15, 0.096 / 0.479 with 2**14.
_CHUNK_ENTRIES = 2**16


def complete_covariance_batch(
    sigma: np.ndarray,
    neighbours: list[np.ndarray],
    tol: float,
    max_iter: int,
    accelerate: bool = True,
) -> tuple[np.ndarray, int]:
    """Completions of a batch of positive definite matrices, in chunks of draws.

    Returns the completions and the number of sweeps of the slowest matrix; raises
    ``RuntimeError`` if some matrix has not converged after ``max_iter`` sweeps.
    """
    n_samples, p = sigma.shape[:2]
    chunk = max(1, _CHUNK_ENTRIES // (p * p))
    graph = _graph_arrays(neighbours, p)
    completion = np.empty_like(sigma)
    n_iter = 0
    for start in range(0, n_samples, chunk):
        part = sigma[start : start + chunk]
        result = None
        if accelerate:
            try:
                result = _complete(part, graph, tol, max_iter, _MEMORY)
            except (np.linalg.LinAlgError, FloatingPointError):
                result = None  # the extrapolation broke a sweep
        if result is None:
            result = _complete(part, graph, tol, max_iter, 0)
        completion[start : start + chunk], sweeps = result
        n_iter = max(n_iter, sweeps)
    return completion, n_iter


def _graph_arrays(neighbours: list[np.ndarray], p: int) -> tuple[np.ndarray, ...]:
    """The kernel's graph: neighbours and non-neighbours of each node, as CSR.

    ``indptr, indices, off_indptr, off_indices`` (``int32``, sorted): node ``j``'s
    neighbours are ``indices[indptr[j]:indptr[j + 1]]``, the other nodes it is not
    adjacent to ``off_indices[off_indptr[j]:off_indptr[j + 1]]``.
    """
    adjacent = np.zeros((p, p), dtype=bool)
    for j, nbrs in enumerate(neighbours):
        adjacent[j, nbrs] = True
    off = ~(adjacent | np.eye(p, dtype=bool))
    arrays: list[np.ndarray] = []
    for mask in (adjacent, off):
        indptr = np.zeros(p + 1, dtype=np.intc)
        np.cumsum(mask.sum(axis=1), out=indptr[1:])
        arrays += [indptr, np.nonzero(mask)[1].astype(np.intc)]
    return tuple(arrays)


def _off_graph_pairs(graph: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the entries above the diagonal that are off the graph."""
    off_indptr, off_indices = graph[2:]
    rows = np.repeat(np.arange(off_indptr.size - 1), np.diff(off_indptr))
    upper = off_indices > rows
    return rows[upper].astype(np.intc), off_indices[upper]


def _complete(
    sigma: np.ndarray,
    graph: tuple[np.ndarray, ...],
    tol: float,
    max_iter: int,
    memory: int,
) -> tuple[np.ndarray, int]:
    """Sweeps from ``W = sigma``, Anderson-accelerated when ``memory > 0``."""
    n_samples = sigma.shape[0]
    first, second = _off_graph_pairs(graph)
    threshold = tol * np.max(np.diagonal(sigma, axis1=1, axis2=2), axis=1)
    completion = np.empty_like(sigma)
    # Draws still iterated (positions in the batch); converged ones are copied out
    # at once and dropped from the arrays when a quarter of them are done.
    index = np.arange(n_samples)
    done = np.zeros(n_samples, dtype=bool)
    matrices: np.ndarray = np.array(sigma, dtype=np.float64, order="C")  # a copy
    # The entries off the graph, (n, n_off), C-contiguous: every draw's row has the
    # same layout whatever the batch, so its inner products round alike.
    x = gather(matrices, first, second)
    history_g = np.zeros((n_samples, memory, first.size))
    history_f = np.zeros((n_samples, memory, first.size))
    gram = np.zeros((n_samples, memory, memory))
    # dG^T g and g^T g of the last step, from which the next step's new row of
    # dG^T dG follows without another pass over the history.
    products = np.zeros((n_samples, memory))
    norms = np.zeros(n_samples)
    # g and f of the previous sweep.
    previous: tuple[np.ndarray, np.ndarray] | None = None
    for sweep in range(1, max_iter + 1):
        sweep_nodes(matrices, *graph)
        f = gather(matrices, first, second)
        g = f - x
        change = np.abs(g).max(axis=1, initial=0.0)
        if memory and not np.all(np.isfinite(change)):
            raise FloatingPointError("non-finite entry after an extrapolation")
        newly = ~done & (change <= threshold[index])
        completion[index[newly]] = matrices[newly]
        done |= newly
        if done.all():
            return completion, sweep
        if 4 * done.sum() >= done.size:
            keep = ~done
            matrices = matrices[keep]
            index, done, x, f, g = (a[keep] for a in (index, done, x, f, g))
            history_g, history_f, gram = (a[keep] for a in (history_g, history_f, gram))
            products, norms = products[keep], norms[keep]
            if previous is not None:
                previous = (previous[0][keep], previous[1][keep])
        if memory and previous is not None:
            x = _anderson_step(
                sweep,
                (g, f, *previous),
                (history_g, history_f, gram, products, norms),
            )
            scatter(matrices, first, second, x)
        else:
            x = f  # matrices hold F(x) already
            if memory:
                norms = np.einsum("nl,nl->n", g, g)
        previous = (g, f)
    raise RuntimeError(
        f"covariance completion did not converge for {np.sum(~done)} of "
        f"{n_samples} matrices after max_iter={max_iter} sweeps (tol={tol:g}); "
        "increase max_iter or tol"
    )


def _anderson_step(
    sweep: int,
    iterates: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    state: tuple[np.ndarray, ...],
) -> np.ndarray:
    """Next iterate ``F(x) - dF gamma``; updates the state in place.

    ``iterates`` are ``g``, ``f`` and their previous values; ``state`` the histories
    ``dG``, ``dF``, ``dG^T dG`` and last step's ``dG^T g`` and ``g^T g``.
    """
    g, f, previous_g, previous_f = iterates
    history_g, history_f, gram, products, norms = state
    memory = history_g.shape[1]
    slot = (sweep - 2) % memory
    np.subtract(g, previous_g, out=history_g[:, slot])
    np.subtract(f, previous_f, out=history_f[:, slot])
    # One pass over the history gives the right-hand side dG^T g; the new
    # difference's inner products with the others are then dG_k^T g - dG_k^T g_prev
    # (the latter from the last step), and its own is |g|^2 - 2 g^T g_prev + |g_prev|^2.
    rhs = (history_g @ g[:, :, None])[:, :, 0]
    norm = np.einsum("nl,nl->n", g, g)
    new_row = rhs - products
    new_row[:, slot] = norm - 2.0 * np.einsum("nl,nl->n", g, previous_g) + norms
    gram[:, slot, :] = new_row
    gram[:, :, slot] = new_row
    # Restart where the residual grew: gamma = 0, a plain sweep.
    grew = norm > norms
    if grew.any():
        history_g[grew] = 0.0
        history_f[grew] = 0.0
        gram[grew] = 0.0
        rhs[grew] = 0.0
    products[...] = rhs
    norms[...] = norm
    # Tikhonov term relative to the scale of dG: collinear differences then give a
    # bounded gamma instead of a singular system; empty histories give gamma = 0.
    ridge = 1e-10 * np.trace(gram, axis1=1, axis2=2) + np.finfo(float).tiny
    system = gram + ridge[:, None, None] * np.eye(memory)
    gamma = np.linalg.solve(system, rhs[:, :, None])
    step = np.matmul(np.swapaxes(gamma, 1, 2), history_f)[:, 0, :]
    iterate: NDArray[np.float64] = np.subtract(f, step, out=step)
    return iterate
