"""G-Wishart precision matrices on any graph.

The G-Wishart law ``W_G(df, D)`` lives on the positive definite matrices ``K`` with
``K[i, j] == 0`` at every non-edge of ``G``. In the parametrisation of BDgraph's
``rgwish`` its density with respect to the Lebesgue measure on the free entries
(edges and diagonal) is proportional to

    |K|^((df - 2) / 2) exp(-tr(D K) / 2);

on the complete graph this is ``Wishart(df + p - 1, D^{-1})``. Only the free entries
of ``D`` matter, since ``tr(D K)`` never reads the others.

Exact sampling (``method="exact"``) uses the Cholesky parametrisation of
Roverato (2002) and Atay-Kayis & Massam (2005). Take a perfect elimination ordering
of a triangulation ``H`` of ``G`` and write ``K = Phi^T Phi`` with ``Phi`` upper
triangular in that order; ``Phi`` has the pattern of ``H`` (no fill beyond ``H``).
Its free entries are the diagonal and the edges of ``G``; the entries on the fill
edges ``H \\ G`` are the functions of the earlier rows that make ``K`` vanish there:

    Phi[i, j] = -sum_{k < i} Phi[k, i] Phi[k, j] / Phi[i, i].

The Jacobian of ``K -> Phi`` on the free entries is ``2^p prod Phi[i, i]^(nu_i + 1)``
(``nu_i`` = later neighbours of ``i`` in ``G``), so the free entries have density
proportional to

    prod_i Phi[i, i]^(df + nu_i - 1) exp(-sum_i Phi[i, :] D Phi[i, :]^T / 2).

*Chordal graph* (no fill). The density factorises over the rows. Row ``i`` is
``(Phi[i, i], phi_R)`` on ``S = {i} + later neighbours``; with ``A = D[S, S]``,
``phi_R | Phi[i, i] ~ N(-A_RR^{-1} A_Ri Phi[i, i], A_RR^{-1})`` and
``Phi[i, i]^2 ~ chi2(df + nu_i) / (A_ii - A_iR A_RR^{-1} A_Ri)``: an exact
Bartlett-type draw, for any ``D``.

*Non-chordal graph.* Write ``Phi = Psi T`` with ``T`` the upper Cholesky factor of
``E^{-1}`` (``E^{-1} = T^T T``), where ``E`` agrees with ``D`` on the free entries
(so ``tr(D K) = tr(E K)``) and ``E^{-1}`` vanishes off ``G``. Then
``tr(E K) = sum Psi[i, j]^2`` and the free entries of ``Psi`` have density
``prod Psi[i, i]^(df + nu_i - 1) exp(-sum_free Psi^2 / 2) * w`` with
``w = exp(-sum_non-free Psi^2 / 2) <= 1``. Drawing the free entries from the
chi-square / normal product and accepting with probability ``w`` is an exact
accept-reject sampler (Wang & Carvalho, 2010). Its acceptance rate falls with the
amount of fill-in; the sampler stops with an error when it would be wasteful.

``method="gibbs"`` is a blocked Gibbs sampler on the free entries (one node's row
per move, exact conditional draws; ``_g_wishart_gibbs``): a Markov chain whose
stationary law is exactly ``W_G(df, D)`` on any graph, with the diagnostics of
:class:`HitAndRunUniform`. The default ``method="auto"`` uses it where the exact
accept-reject would be too wasteful.

``method="lenkoski"`` is BDgraph's ``rgwish`` algorithm (Lenkoski, 2013): complete
an inverse-Wishart draw into the matrix agreeing with it on the free entries whose
inverse vanishes off ``G``. It is fast on any graph but **not** exactly G-Wishart
(see :class:`GWishart`, Notes).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import lapack
from sklearn.utils._param_validation import StrOptions

from ..graphs import triangulate
from ..utils._validation import RANDOM_STATE, Interval
from ._base import GraphicalModelGenerator
from ._covariance_completion import complete_covariance_batch
from ._g_wishart_gibbs import GibbsChains
from ._mcmc import (
    ChainDraws,
    PoorMixingWarning,
    mixing_report,
    single_threaded_blas,
)

__all__ = ["GWishart", "complete_covariance", "sample_wishart"]

# Proposals tried before the acceptance rate is trusted enough to give up on it.
_PILOT_PROPOSALS = 2000
# Bound on the proposals held in memory at once (entries of (batch, p, p) arrays).
_MAX_BATCH_ENTRIES = 2**23
# Gibbs defaults, in sweeps (one move per node). Started from Lenkoski draws, which
# are close to the target, log det K is stationary from the first sweeps (mean over
# sweeps 1-3 within 0.5 of its stationary value on the 4-cycle, the 3x3 grid,
# G(30, 0.3) and G(100, 0.1)). One sweep between draws leaves lag-1
# autocorrelations near noise level (largest 0.012 to 0.044), but on G(100, 0.1)
# the effective sample size per draw is then 0.84 (median over the free entries;
# 0.66 at worst); two sweeps give 0.99 (0.82 at worst), what independent draws
# give to this estimator (0.99, 0.83). docs/performance.md has the measurements.
_GIBBS_BURN_IN = 20
_GIBBS_THINNING = 2


class _LowAcceptance(RuntimeError):
    """The exact accept-reject sampler accepts too few proposals to be used."""


def sample_wishart(
    df: float, scale_cholesky: np.ndarray, n_samples: int, rng: np.random.RandomState
) -> np.ndarray:
    """Batched ``Wishart(df, V)`` draws by the Bartlett decomposition.

    ``V = L L^T`` with ``L = scale_cholesky`` lower triangular. With ``A`` lower
    triangular, ``A[i, i]^2 ~ chi2(df - i)`` (``i = 0, ..., p - 1``) and standard
    normal entries below the diagonal, ``L A A^T L^T ~ Wishart(df, V)``.

    Parameters
    ----------
    df : float
        Degrees of freedom, ``df > p - 1``.
    scale_cholesky : ndarray of shape (p, p)
        Lower Cholesky factor of the scale matrix ``V``.
    n_samples : int
        Number of draws.
    rng : numpy.random.RandomState
        Source of randomness.

    Returns
    -------
    draws : ndarray of shape (n_samples, p, p)

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.generators.g_wishart import sample_wishart
    >>> W = sample_wishart(5.0, np.eye(3), 2000, np.random.RandomState(0))
    >>> bool(np.allclose(W.mean(axis=0), 5.0 * np.eye(3), atol=0.3))
    True
    """
    factor = _wishart_factor(df, scale_cholesky, n_samples, rng)
    draws: NDArray[np.float64] = factor @ np.swapaxes(factor, -1, -2)
    return draws


def _wishart_factor(
    df: float, scale_cholesky: np.ndarray, n_samples: int, rng: np.random.RandomState
) -> np.ndarray:
    """Lower Cholesky factors ``L A`` of the draws of ``sample_wishart``."""
    p = scale_cholesky.shape[0]
    bartlett = np.zeros((n_samples, p, p))
    rows, cols = np.tril_indices(p, -1)
    bartlett[:, rows, cols] = rng.standard_normal((n_samples, rows.size))
    index = np.arange(p)
    bartlett[:, index, index] = np.sqrt(rng.chisquare(df - index, (n_samples, p)))
    diagonal = np.diagonal(scale_cholesky)
    if np.array_equal(scale_cholesky, np.diag(diagonal)):
        # A diagonal L (the default identity scale) scales rows: the same numbers
        # as the product, without a batch of dense p x p products.
        return diagonal[:, None] * bartlett
    return scale_cholesky @ bartlett


def complete_covariance(
    sigma: np.ndarray, neighbours: list[np.ndarray], tol: float, max_iter: int
) -> tuple[np.ndarray, int]:
    """Positive definite completion whose inverse vanishes off the graph.

    For each matrix of the batch, returns the unique ``W`` equal to ``sigma`` on
    the diagonal and the edges with ``W^{-1}`` zero off the graph (the
    maximum-determinant completion), by the iterative regressions of Hastie,
    Tibshirani & Friedman (*The Elements of Statistical Learning*, 2nd ed.,
    Algorithm 17.1): for each node ``j`` with neighbours ``N``, solve
    ``W[N, N] beta = sigma[N, j]`` and set ``W[-j, j] = W[-j, N] beta``, node after
    node. The sweeps are Anderson-accelerated (the same fixed point in about a
    third of the sweeps; see ``_covariance_completion``). The iteration is
    compiled and runs matrix after matrix, so a matrix's completion does not
    depend on the others in the batch.

    Parameters
    ----------
    sigma : ndarray of shape (n, p, p)
        Positive definite matrices to complete.
    neighbours : list of ndarray
        ``neighbours[j]`` lists the neighbours of node ``j``.
    tol : float
        A matrix has converged when no entry moved by more than ``tol`` times its
        largest diagonal entry during a sweep.
    max_iter : int
        Maximum number of sweeps.

    Returns
    -------
    completion : ndarray of shape (n, p, p)
    n_iter : int
        Sweeps used by the slowest matrix.

    Raises
    ------
    RuntimeError
        If some matrix has not converged after ``max_iter`` sweeps.
    numpy.linalg.LinAlgError
        If a sweep fails even without extrapolation (a neighbourhood block not
        positive definite, a non-finite entry): ``sigma`` is not positive definite.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.generators.g_wishart import complete_covariance
    >>> sigma = np.array([[[2.0, 0.5, 0.3], [0.5, 1.0, 0.4], [0.3, 0.4, 1.5]]])
    >>> path = [np.array([1]), np.array([0, 2]), np.array([1])]
    >>> W, _ = complete_covariance(sigma, path, 1e-12, 100)
    >>> round(float(W[0, 0, 2]), 6)  # sigma_01 sigma_12 / sigma_11 on a path
    0.2
    >>> bool(abs(np.linalg.inv(W[0])[0, 2]) < 1e-10)
    True
    """
    return complete_covariance_batch(sigma, neighbours, tol, max_iter)


class _ChordalRows:
    """Per-row constants of the exact factor draw on a chordal graph.

    In elimination coordinates row ``i`` of ``Phi`` is non-zero on ``i`` and its
    later neighbours ``R``; ``Phi[i, R] = mean * Phi[i, i] + z @ noise`` with ``z``
    standard normal, ``Phi[i, i]^2 = chi2(df + |R|) / schur``.
    """

    def __init__(self, adjacency: np.ndarray, scale: np.ndarray) -> None:
        p = adjacency.shape[0]
        self.later = [np.flatnonzero(adjacency[i, i + 1 :]) + i + 1 for i in range(p)]
        self.schur = np.empty(p)
        self.mean: list[np.ndarray] = []
        self.noise: list[np.ndarray] = []
        for i, later in enumerate(self.later):
            if later.size == 0:
                self.schur[i] = scale[i, i]
                self.mean.append(np.zeros(0))
                self.noise.append(np.zeros((0, 0)))
                continue
            a_rr = scale[np.ix_(later, later)]
            a_ri = scale[later, i]
            solved = np.linalg.solve(a_rr, a_ri)
            self.schur[i] = scale[i, i] - a_ri @ solved
            self.mean.append(-solved)
            # z @ noise with noise = L^{-1} (A_RR = L L^T) has covariance
            # L^{-T} L^{-1} = A_RR^{-1}.
            self.noise.append(np.linalg.inv(np.linalg.cholesky(a_rr)))
        self.n_later = np.array([later.size for later in self.later])

    def sample(
        self, df: float, n_samples: int, rng: np.random.RandomState
    ) -> np.ndarray:
        p = self.n_later.size
        factor = np.zeros((n_samples, p, p))
        diagonal = np.sqrt(
            rng.chisquare(df + self.n_later, (n_samples, p)) / self.schur
        )
        normals = rng.standard_normal((n_samples, int(self.n_later.sum())))
        start = 0
        for i, later in enumerate(self.later):
            factor[:, i, i] = diagonal[:, i]
            if later.size:
                z = normals[:, start : start + later.size]
                start += later.size
                factor[:, i, later] = (
                    diagonal[:, i, None] * self.mean[i] + z @ self.noise[i]
                )
        return factor


class _RejectionRows:
    """Per-row constants of the exact accept-reject draw on a non-chordal graph.

    Row ``i`` of ``Psi`` has free positions ``F`` (``i`` and its later neighbours
    in ``G``) and non-free positions ``N``. Given the earlier rows of
    ``Phi = Psi T``, the targets ``Phi[i, N]`` are fixed by ``K[i, N] = 0`` and
    ``Psi[i, N] = (Phi[i, N] - Psi[i, F] T[F, N]) T[N, N]^{-1}``.
    """

    def __init__(
        self, adjacency: np.ndarray, triangulation: np.ndarray, factor: np.ndarray
    ) -> None:
        p = adjacency.shape[0]
        diagonal_factor = bool(np.all(factor == np.diag(np.diag(factor))))
        self.factor = factor
        self.free: list[np.ndarray] = []
        self.non_free: list[np.ndarray] = []
        self.t_free_non_free: list[np.ndarray] = []
        self.t_non_free_inverse: list[np.ndarray] = []
        for i in range(p):
            later = np.arange(i + 1, p)
            free = np.r_[i, later[adjacency[i, later]]]
            # With a diagonal T, Psi is Phi up to column scaling and vanishes off the
            # triangulation; otherwise every non-edge position may be non-zero.
            if diagonal_factor:
                non_free = later[triangulation[i, later] & ~adjacency[i, later]]
            else:
                non_free = later[~adjacency[i, later]]
            self.free.append(free)
            self.non_free.append(non_free)
            self.t_free_non_free.append(factor[np.ix_(free, non_free)])
            self.t_non_free_inverse.append(
                np.linalg.inv(factor[np.ix_(non_free, non_free)])
            )
        self.n_later = np.array([free.size - 1 for free in self.free])

    def propose(
        self, df: float, n_proposals: int, rng: np.random.RandomState
    ) -> np.ndarray:
        """Return the accepted factors ``Phi`` among ``n_proposals`` proposals."""
        p = self.n_later.size
        phi = np.zeros((n_proposals, p, p))
        # Accept iff sum of non-free Psi^2 <= budget, i.e. with probability w.
        budget = -2.0 * np.log1p(-rng.random_sample(n_proposals))
        diagonal = np.sqrt(rng.chisquare(df + self.n_later, (n_proposals, p)))
        normals = rng.standard_normal((n_proposals, int(self.n_later.sum())))
        start = 0
        for i in range(p):
            free, non_free = self.free[i], self.non_free[i]
            psi_free = np.empty((phi.shape[0], free.size))
            psi_free[:, 0] = diagonal[:, i]
            psi_free[:, 1:] = normals[:, start : start + free.size - 1]
            start += free.size - 1
            row = psi_free @ self.factor[free]
            if non_free.size:
                with np.errstate(over="ignore", invalid="ignore"):
                    earlier = phi[:, :i]
                    target = -np.einsum(
                        "nk,nkj->nj", earlier[:, :, i], earlier[:, :, non_free]
                    )
                    target /= row[:, i, None]
                    psi_non_free = (
                        target - psi_free @ self.t_free_non_free[i]
                    ) @ self.t_non_free_inverse[i]
                    row += psi_non_free @ self.factor[non_free]
                    budget -= np.einsum("nj,nj->n", psi_non_free, psi_non_free)
                # Drop proposals already rejected (overflow gives NaN: rejected too).
                alive = budget >= 0.0
                phi, row, budget = phi[alive], row[alive], budget[alive]
                diagonal, normals = diagonal[alive], normals[alive]
            phi[:, i] = row
        return phi


class GWishart(GraphicalModelGenerator):
    """Random precision matrices from the G-Wishart law, on any graph.

    Draws ``K ~ W_G(df, scale)``, with density proportional to
    ``|K|^((df - 2) / 2) exp(-tr(scale K) / 2)`` on the positive definite matrices
    with zeros at the non-edges of ``G`` (the parametrisation of BDgraph's
    ``rgwish``). On the complete graph the law is ``Wishart(df + p - 1,
    scale^{-1})``; on a graph without edges the diagonal entries are independent,
    ``K[i, i] ~ chi2(df) / scale[i, i]``. It is the conjugate prior of Gaussian
    graphical models and the usual random model of Bayesian structure learning.

    With ``method="exact"`` draws are independent and exactly G-Wishart, with no
    Markov chain and no convergence tolerance:

    * on a chordal graph, by a closed-form Bartlett-type construction of the
      Cholesky factor along a perfect elimination ordering (Roverato, 2002;
      Atay-Kayis & Massam, 2005), for any ``scale``;
    * on a non-chordal graph, by exact accept-reject in the same
      parametrisation (Atay-Kayis & Massam, 2005; Wang & Carvalho, 2010) on a
      minimum-fill triangulation. The acceptance rate falls with the fill-in
      (measured with ``scale=None``, ``df=3``: 89% on the 4-cycle, 52% on the 3x3
      grid, 15% on a G(15, 0.3) graph, 3% on a G(50, 0.05) graph, essentially 0
      with several hundred fill edges). Below ``min_acceptance`` it stops with a
      ``RuntimeError``.

    ``method="gibbs"`` runs ``n_chains`` Markov chains whose stationary law is
    exactly the G-Wishart law, on any graph: a blocked Gibbs sampler (in the spirit
    of Wang & Li, 2012) whose moves redraw one node's diagonal entry and edge
    entries jointly from their exact conditional law (a chi-square and a Gaussian;
    see ``skggm_bench/generators/_g_wishart_gibbs.py``). ``fit`` starts the chains
    from Lenkoski draws and runs the burn-in; ``sample`` continues them, with the
    R-hat, effective sample size and lag-1 checks of :class:`HitAndRunUniform`
    (``diagnostics_``, :class:`PoorMixingWarning`). One sweep costs ``O(p^3)`` per
    chain.

    ``method="auto"`` (the default) is ``"exact"`` until the accept-reject falls
    below ``min_acceptance``, then switches to ``"gibbs"`` with a ``UserWarning``
    that says so: independent exact draws where they are affordable, a provably
    correct Markov chain elsewhere (e.g. on G(50, 0.1) or G(100, 0.1), where no
    proposal of thousands is accepted). ``method_`` tells which one made the draws.

    ``method="lenkoski"`` runs BDgraph's ``rgwish`` algorithm (the direct sampler of
    Lenkoski, 2013): complete a draw ``Sigma = Psi^{-1}``,
    ``Psi ~ Wishart(df + p - 1, scale^{-1})``, into the matrix agreeing with
    ``Sigma`` on the diagonal and the edges whose inverse vanishes off ``G``, and
    return its inverse. It is fast on any graph, but its law is **not** the
    G-Wishart law; see Notes.

    Parameters
    ----------
    df : float, default=3.0
        Degrees of freedom, ``df > 0``. BDgraph requires ``df > 2``; the law is
        proper for every ``df > 0`` (on the complete graph it is a Wishart law
        with ``df + p - 1 > p - 1`` degrees of freedom). Moments of ``K^{-1}`` of
        order ``r`` exist only for ``df > 2 r``.
    scale : array-like of shape (p, p) or None, default=None
        Symmetric positive definite scale matrix ``D``; the identity if None.
        Only its diagonal and its entries on the edges affect the law.
    method : {"auto", "exact", "gibbs", "lenkoski"}, default="auto"
        Sampling algorithm, see above.
    unit_diagonal : bool, default=False
        If True, return ``diag(K)^{-1/2} K diag(K)^{-1/2}`` (same zeros, unit
        diagonal, off-diagonal entries equal to minus the partial correlations)
        instead of the G-Wishart draw itself.
    min_acceptance : float, default=1e-3
        Exact sampling on non-chordal graphs: after 2000 proposals, if fewer than
        this fraction were accepted, ``method="exact"`` stops with a
        ``RuntimeError`` and ``method="auto"`` switches to ``"gibbs"``.
    tol : float, default=1e-8
        Convergence tolerance of the covariance completions (used by
        ``method="lenkoski"``, and at fit time to complete a non-diagonal
        ``scale`` on a non-chordal graph), relative to the largest diagonal entry.
    max_iter : int, default=1000
        Maximum number of sweeps of a completion; a ``RuntimeError`` is raised if
        it has not converged by then.
    n_chains : int, default=4
        Gibbs chains run in lockstep; R-hat compares them.
    n_burn_in : int or None, default=None
        Gibbs burn-in, in sweeps (one move per node); None means 20.
    thinning : int or None, default=None
        Gibbs sweeps between two returned draws of a chain; None means 2.
    random_state : int, RandomState instance or None, default=None
        Controls the draws.

    Attributes
    ----------
    adjacency_ : ndarray of shape (p, p), dtype bool
        The validated graph.
    n_nodes_ : int
        Number of nodes.
    scale_ : ndarray of shape (p, p)
        The validated scale matrix.
    ordering_ : ndarray of shape (p,)
        The elimination ordering of the Cholesky factor (``method="exact"``).
    n_fill_edges_ : int
        Edges added by the triangulation (0 on chordal graphs).
    acceptance_rate_ : float
        Fraction of proposals accepted by the last call to :meth:`sample`
        (1.0 when no rejection is involved).
    n_iter_ : int
        Completion sweeps used by the last call to :meth:`sample`
        (``method="lenkoski"``; 0 otherwise).
    method_ : str
        The method that made the last draws: ``"exact"``, ``"gibbs"`` or
        ``"lenkoski"``.
    effective_sample_size_ : ndarray of shape (p + n_edges,)
        Gibbs only: bulk effective sample size of every free entry (diagonal, then
        the edges ``(i, j)``, ``i < j``, in row-major order) over the draws since the
        chains started. Set by :meth:`sample`.
    r_hat_ : ndarray of shape (p + n_edges,)
        Gibbs only: rank-normalised split R-hat of the same entries.
    diagnostics_ : dict
        Gibbs only: the summary of :class:`HitAndRunUniform`'s ``diagnostics_``
        for ``K`` (``n_draws``, ``n_chains``, ``min_effective_sample_size``,
        ``max_r_hat``, ``r_hat_threshold``, ``lag1_autocorrelation``,
        ``max_lag1_autocorrelation``, ``log_det_effective_sample_size``,
        ``log_det_r_hat``, ``n_moves``, ``warnings``).

    See Also
    --------
    UniformChordal : Uniform correlation matrices on a chordal graph.
    SpectralControl : Shift draws to a target condition number.
    HitAndRunUniform : The same chain diagnostics, for the uniform law.

    Notes
    -----
    **Lenkoski's sampler is not exact.** The completion is a function of the
    entries of ``Sigma`` on the diagonal and the edges; for ``K = W^{-1}`` to be
    G-Wishart on a decomposable graph these entries must follow the hyper
    inverse Wishart law, which is hyper Markov (e.g. on the path ``0 - 1 - 2``,
    ``Sigma[{0, 1}]`` and ``Sigma[{1, 2}]`` are conditionally independent given
    ``Sigma[1, 1]``). Under the inverse Wishart law of ``Sigma`` they are not. On
    that path with ``df=3`` and ``scale=I`` the exact law has
    ``K[1, 1] ~ chi2(5)``, variance 10; Lenkoski's sampler gives the right mean
    but variance 10.8 (200,000 draws, standard error 0.05; KS p < 1e-15).
    ``tests/generators/test_g_wishart.py`` keeps this check. The method is kept
    for comparison with BDgraph-based studies.

    References
    ----------
    A. Roverato. Hyper inverse Wishart distribution for non-decomposable graphs
    and its application to Bayesian inference for Gaussian graphical models.
    Scandinavian Journal of Statistics 29:391-411, 2002.

    A. Atay-Kayis, H. Massam. A Monte Carlo method for computing the marginal
    likelihood in nondecomposable Gaussian graphical models. Biometrika
    92:317-335, 2005.

    H. Wang, C. M. Carvalho. Simulation of hyper-inverse Wishart distributions
    for non-decomposable graphs. Electronic Journal of Statistics 4:1470-1475,
    2010.

    A. Lenkoski. A direct sampler for G-Wishart variates. Stat 2:119-128, 2013.

    H. Wang, S. Z. Li. Efficient Gaussian graphical model determination under
    G-Wishart prior distributions. Electronic Journal of Statistics 6:168-198,
    2012.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.generators import GWishart
    >>> gen = GWishart(df=3, random_state=0).fit(nx.cycle_graph(4))
    >>> K = gen.sample(2000)
    >>> float(abs(K[:, 0, 2]).max())
    0.0
    >>> bool(0.8 < gen.acceptance_rate_ < 0.95)
    True
    >>> K1 = GWishart(df=3, random_state=0).fit(nx.complete_graph(4)).sample(4000)
    >>> round(float(K1[:, 0, 0].mean()))  # Wishart(df + p - 1, I): mean 6 I
    6
    """

    _parameter_constraints: dict[str, list[object]] = {
        "df": [Interval(Real, 0, None, closed="neither")],
        "scale": [None, "array-like"],
        "method": [StrOptions({"auto", "exact", "gibbs", "lenkoski"})],
        "unit_diagonal": ["boolean"],
        "min_acceptance": [Interval(Real, 0, 1, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "n_chains": [Interval(Integral, 1, None, closed="left")],
        "n_burn_in": [Interval(Integral, 0, None, closed="left"), None],
        "thinning": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        df: float = 3.0,
        scale: Any = None,
        *,
        method: str = "auto",
        unit_diagonal: bool = False,
        min_acceptance: float = 1e-3,
        tol: float = 1e-8,
        max_iter: int = 1000,
        n_chains: int = 4,
        n_burn_in: int | None = None,
        thinning: int | None = None,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.df = df
        self.scale = scale
        self.method = method
        self.unit_diagonal = unit_diagonal
        self.min_acceptance = min_acceptance
        self.tol = tol
        self.max_iter = max_iter
        self.n_chains = n_chains
        self.n_burn_in = n_burn_in
        self.thinning = thinning
        self.random_state = random_state

    def _fit(self, adjacency: np.ndarray) -> None:
        p = adjacency.shape[0]
        self.scale_ = _check_scale(self.scale, p)
        self._neighbours = [np.flatnonzero(adjacency[j]) for j in range(p)]
        triangulation, perfect = triangulate(adjacency, "min_fill")
        self.n_fill_edges_ = int((triangulation.sum() - adjacency.sum()) // 2)
        # Elimination order = reverse of the perfect ordering: the later
        # neighbours of every vertex form a clique of the triangulation.
        self.ordering_ = perfect[::-1].copy()
        self.acceptance_rate_ = 1.0
        self.n_iter_ = 0
        for attribute in ("effective_sample_size_", "r_hat_", "diagnostics_"):
            if hasattr(self, attribute):
                delattr(self, attribute)
        # Lenkoski's sampler also makes the starting points of the Gibbs chains.
        self._wishart_cholesky = np.linalg.cholesky(np.linalg.inv(self.scale_))
        self.method_ = "exact" if self.method == "auto" else self.method
        if self.method_ == "lenkoski":
            return
        if self.method_ == "gibbs":
            self._start_gibbs()
            return
        order = np.ix_(self.ordering_, self.ordering_)
        self._rows: _ChordalRows | _RejectionRows
        if self.n_fill_edges_ == 0:
            self._rows = _ChordalRows(adjacency[order], self.scale_[order])
            return
        # Only the free entries of scale matter; replace it by its completion E
        # whose inverse vanishes off G. A diagonal scale is its own completion,
        # and then T is diagonal and Psi vanishes off the triangulation.
        completed = self.scale_
        if np.any(self.scale_[~np.eye(p, dtype=bool)] != 0.0):
            completed = complete_covariance(
                self.scale_[None], self._neighbours, self.tol, self.max_iter
            )[0][0]
            completed = 0.5 * (completed + completed.T)
        inverse = np.linalg.inv(completed[order])
        # Upper factor T with inverse = T^T T.
        factor = np.linalg.cholesky(0.5 * (inverse + inverse.T)).T
        self._rows = _RejectionRows(adjacency[order], triangulation[order], factor)

    def _sample(self, n_samples: int, rng: np.random.RandomState) -> np.ndarray:
        # Set by the method that runs: exact, or gibbs (also when exact fell back
        # to it), or lenkoski.
        precision: NDArray[np.float64]
        if self.method_ == "exact":
            try:
                factor = self._sample_exact_factor(n_samples, rng)
            except _LowAcceptance as exc:
                if self.method == "exact":
                    raise RuntimeError(
                        f"{exc} Use method='gibbs' (exact in the limit, Markov "
                        "chain), method='lenkoski' (fast, approximate), a chordal "
                        "graph, or a smaller min_acceptance."
                    ) from None
                warnings.warn(
                    f"{exc} Switching to method='gibbs': a blocked Gibbs sampler "
                    "whose stationary law is exactly G-Wishart; its draws come from "
                    f"{self.n_chains} Markov chains (see diagnostics_ for R-hat and "
                    "effective sample sizes). Pass method='gibbs' to skip the exact "
                    "attempt, or method='exact' to get an error instead.",
                    UserWarning,
                    stacklevel=3,
                )
                self.method_ = "gibbs"
                self._start_gibbs()
            else:
                precision_ordered = np.swapaxes(factor, -1, -2) @ factor
                position = np.empty_like(self.ordering_)
                position[self.ordering_] = np.arange(self.ordering_.size)
                precision = precision_ordered[:, position[:, None], position]
        if self.method_ == "gibbs":
            precision = self._sample_gibbs(n_samples)
        elif self.method_ == "lenkoski":
            precision = self._sample_lenkoski(n_samples, rng)
        if self.unit_diagonal:
            scale = 1.0 / np.sqrt(np.diagonal(precision, axis1=1, axis2=2))
            precision = precision * scale[:, :, None] * scale[:, None, :]
        return precision

    def _sample_exact_factor(
        self, n_samples: int, rng: np.random.RandomState
    ) -> np.ndarray:
        if isinstance(self._rows, _ChordalRows):
            self.acceptance_rate_ = 1.0
            return self._rows.sample(self.df, n_samples, rng)
        p = self.n_nodes_
        accepted: list[np.ndarray] = []
        n_accepted = n_proposed = 0
        batch_cap = max(1, _MAX_BATCH_ENTRIES // (p * p))
        while n_accepted < n_samples:
            rate = (n_accepted + 1) / (n_proposed + 1)
            batch = int(min(batch_cap, max(64, 1.2 * (n_samples - n_accepted) / rate)))
            factors = self._rows.propose(self.df, batch, rng)
            accepted.append(factors)
            n_accepted += factors.shape[0]
            n_proposed += batch
            if (
                n_proposed >= _PILOT_PROPOSALS
                and n_accepted < self.min_acceptance * n_proposed
            ):
                raise _LowAcceptance(
                    f"exact G-Wishart sampling accepted {n_accepted} of {n_proposed} "
                    f"proposals (below min_acceptance={self.min_acceptance:g}): the "
                    f"triangulation adds {self.n_fill_edges_} fill edges to this "
                    "non-chordal graph."
                )
        self.acceptance_rate_ = n_accepted / n_proposed
        return np.concatenate(accepted)[:n_samples]

    def _start_gibbs(self) -> None:
        """Start the Gibbs chains from Lenkoski draws and run the burn-in."""
        adjacency = self.adjacency_
        starts = self._sample_lenkoski(self.n_chains, self._rng)
        self.n_iter_ = 0
        self.acceptance_rate_ = 1.0
        self.n_burn_in_ = _GIBBS_BURN_IN if self.n_burn_in is None else self.n_burn_in
        self.thinning_ = _GIBBS_THINNING if self.thinning is None else self.thinning
        self._chains = GibbsChains(
            starts, adjacency, float(self.df), self.scale_, self._rng
        )
        with single_threaded_blas():
            for _ in range(self.n_burn_in_):
                self._chains.sweep()
        n_monitored = self._chains.monitored().shape[1]
        self._draws = ChainDraws(adjacency.shape, self.n_chains, n_monitored)

    def _sample_gibbs(self, n_samples: int) -> np.ndarray:
        with single_threaded_blas():
            draws = self._draws.take(n_samples, self._next_gibbs_round)
        if self._draws.diagnostics_due:
            self._update_gibbs_diagnostics()
        return draws

    def _next_gibbs_round(self) -> tuple[np.ndarray, np.ndarray]:
        for _ in range(self.thinning_):
            self._chains.sweep()
        return self._chains.precision, self._chains.monitored()

    def _update_gibbs_diagnostics(self) -> None:
        summary, traces = self._draws.diagnose()
        chains = self._chains
        p = self.n_nodes_
        names = [f"K[{i}, {i}]" for i in range(p)]
        names += [f"K[{i}, {j}]" for i, j in zip(chains.rows, chains.cols, strict=True)]
        names.append("log det K")
        self.effective_sample_size_ = summary["ess"][:-1]
        self.r_hat_ = summary["r_hat"][:-1]
        report, messages = mixing_report(
            summary, traces, names, "increase thinning (or n_burn_in)"
        )
        self.diagnostics_ = {**report, "n_moves": chains.n_moves, "warnings": messages}
        for message in messages:
            warnings.warn(message, PoorMixingWarning, stacklevel=5)

    def _sample_lenkoski(
        self, n_samples: int, rng: np.random.RandomState
    ) -> np.ndarray:
        p = self.n_nodes_
        factor = _wishart_factor(
            self.df + p - 1, self._wishart_cholesky, n_samples, rng
        )
        if self.adjacency_.sum() == p * (p - 1):
            # Complete graph: the completion is the identity map.
            self.n_iter_ = 0
            draws: NDArray[np.float64] = factor @ np.swapaxes(factor, -1, -2)
            return draws
        completion, self.n_iter_ = complete_covariance(
            _inverse_from_cholesky(factor), self._neighbours, self.tol, self.max_iter
        )
        return _symmetric_inverse(completion)


def _inverse_from_cholesky(factors: np.ndarray) -> np.ndarray:
    """``(F F^T)^{-1}`` for a batch of lower Cholesky factors ``F``, exactly symmetric.

    LAPACK's ``potri`` from the factor the Bartlett draw already is: a third of
    the flops of forming ``F F^T`` and inverting it by LU.
    """
    inverses = np.empty_like(factors)
    for k, factor in enumerate(factors):
        inverse, info = lapack.dpotri(factor, lower=True)
        if info != 0:
            raise np.linalg.LinAlgError("Wishart factor is singular")
        inverses[k] = inverse
    # potri fills the lower triangle only.
    lower = np.tril(inverses)
    symmetric: NDArray[np.float64] = lower + np.swapaxes(np.tril(inverses, -1), -1, -2)
    return symmetric


def _symmetric_inverse(matrices: np.ndarray) -> np.ndarray:
    """Inverse of a batch of SPD matrices, symmetrised (LAPACK's is not exactly)."""
    inverse = np.linalg.inv(matrices)
    return 0.5 * (inverse + np.swapaxes(inverse, -1, -2))


def _check_scale(scale: Any, p: int) -> np.ndarray:
    if scale is None:
        return np.eye(p)
    try:
        matrix: NDArray[np.float64] = np.array(scale, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"scale must be a numeric (p, p) array, got {type(scale).__name__}"
        ) from exc
    if matrix.shape != (p, p):
        raise ValueError(
            f"scale must have shape ({p}, {p}) to match the graph, got {matrix.shape}"
        )
    if not np.all(np.isfinite(matrix)):
        raise ValueError("scale contains NaN or infinite values")
    if not np.allclose(matrix, matrix.T, rtol=1e-10, atol=0.0):
        raise ValueError("scale must be symmetric")
    matrix = 0.5 * (matrix + matrix.T)
    try:
        np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError as exc:
        raise ValueError("scale must be positive definite") from exc
    return matrix
