"""Diagonal shifts to an exact smallest eigenvalue or condition number (paper, 3.1).

Adding ``t I`` to a matrix on a graph keeps its zero pattern and moves every
eigenvalue by ``t``. Honorio et al. (2012) shift to bound the smallest eigenvalue
from below; Cai, Liu & Luo (2011) shift by ``(lambda_max - k lambda_min) / (k - 1)``
to get condition number exactly ``k``.

Rescaling to unit diagonal afterwards changes the spectrum, so with
``unit_diagonal=True`` the shift is instead the root of a one-dimensional equation.
With ``d_t = diag(M) + t``, the rescaled matrix
``C(t) = d_t^{-1/2} (M + t I) d_t^{-1/2}`` has as eigenvalues the generalised
eigenvalues of ``(M + t I, diag(d_t))``:

    lambda(t) = min / max over x of (x^T M x + t |x|^2) / (x^T diag(d) x + t |x|^2).

For a fixed ``x`` the ratio has derivative in ``t`` of the sign of
``x^T diag(d) x - x^T M x``, which is positive where the ratio is below 1 and
negative where it is above 1. ``C(t)`` has unit diagonal, so unless it is the
identity ``lambda_min < 1 < lambda_max``. By Danskin's theorem ``lambda_min(t)``
then increases strictly and ``lambda_max(t)`` decreases strictly, so the
condition number decreases strictly: a unique root exists, found by
bracketed, safeguarded Newton iterations batched over the draws. The derivative
is exact: for a unit eigenvector ``y`` of ``C(t)`` with eigenvalue ``lambda``,
``d lambda / dt = (1 - lambda) sum_i y_i^2 / d_t,i``.
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone
from sklearn.utils._param_validation import HasMethods

from ..utils._validation import RANDOM_STATE, Interval
from ._base import GraphicalModelGenerator

__all__ = ["SpectralControl"]

# Newton iterations stop when the log of the controlled quantity is this close to
# the log of the target (a relative error of about 1e-13).
_LOG_TOLERANCE = 1e-13
_MAX_NEWTON_ITER = 200


class SpectralControl(GraphicalModelGenerator):
    """Shift the draws of another generator to an exact spectral target.

    A meta-generator in the scikit-learn meta-estimator style: ``generator`` is
    cloned and fitted into ``generator_`` at :meth:`fit`, and each of its draws
    ``M`` is replaced by ``M + t I`` with ``t`` chosen per draw so that

    * the smallest eigenvalue equals ``min_eigenvalue`` exactly (the shift of
      Honorio et al., 2012, made exact: ``t`` may be negative), or
    * the condition number ``lambda_max / lambda_min`` equals
      ``condition_number`` exactly (the shift of Cai, Liu & Luo, 2011; paper
      section 3.1).

    With ``unit_diagonal=True`` the shifted draw is then rescaled to unit
    diagonal, and the shift is solved for so that the target holds *after*
    rescaling (see the module docstring for why the root is unique). The zero
    pattern of the graph is kept; only the diagonal moves before rescaling.

    Parameters
    ----------
    generator : GraphicalModelGenerator
        The generator whose draws are shifted (any object with ``fit`` and
        ``sample`` that returns ``(n, p, p)`` symmetric matrices on the graph).
    min_eigenvalue : float, optional
        Target smallest eigenvalue, ``> 0``; below 1 when ``unit_diagonal`` (a
        correlation matrix other than the identity has ``lambda_min < 1``).
    condition_number : float, optional
        Target condition number, ``> 1``. Give exactly one of the two targets.
    unit_diagonal : bool, default=True
        Rescale the shifted draw to unit diagonal (target met after rescaling).
    random_state : int, RandomState instance or None, default=None
        If not None, set as the ``random_state`` of the cloned inner generator
        (so a harness can seed any generator the same way); if None the inner
        generator keeps its own. The shift itself is deterministic.

    Attributes
    ----------
    generator_ : GraphicalModelGenerator
        The fitted clone of ``generator``.
    adjacency_ : ndarray of shape (p, p), dtype bool
        The inner generator's graph (equal to the input unless the inner
        generator changes it, e.g. ``CholeskyProduct(on_non_chordal="triangulate")``).
    n_nodes_ : int
        Number of nodes.
    shifts_ : ndarray of shape (n_samples,)
        The shifts ``t`` applied in the last call to :meth:`sample`.

    Notes
    -----
    Accuracy: the root is computed to ``1e-13`` relative, or to the rounding
    floor when that is larger: the smallest eigenvalue of a matrix is only
    known to about ``1e-16 * lambda_max``, so a condition number ``k`` is met to
    about ``2e-15 * k`` relative (``2e-9`` at ``k = 1e6``). A ``RuntimeError`` is
    raised if a draw misses the target by more than 100 times that floor (and at
    least ``1e-9``).

    Targets that a diagonal shift cannot reach raise a ``ValueError``: e.g. any
    target with ``unit_diagonal=True`` on a graph without edges (every rescaled
    draw is the identity), or a condition number for a draw that is a multiple
    of the identity.

    References
    ----------
    J. Honorio, D. Samaras, I. Rish, G. Cecchi. Variable selection for Gaussian
    graphical models. AISTATS, 2012.

    T. Cai, W. Liu, X. Luo. A constrained l1 minimization approach to sparse
    precision matrix estimation. JASA 106:594-607, 2011.

    Examples
    --------
    >>> import numpy as np
    >>> import networkx as nx
    >>> from skggm_bench.generators import DiagonalDominance, SpectralControl
    >>> gen = SpectralControl(DiagonalDominance(), condition_number=10.0,
    ...                       random_state=0).fit(nx.cycle_graph(6))
    >>> M = gen.sample(3)
    >>> eigenvalues = np.linalg.eigvalsh(M)
    >>> np.round(eigenvalues[:, -1] / eigenvalues[:, 0], 10)
    array([10., 10., 10.])
    >>> np.diagonal(M, axis1=1, axis2=2).min()
    np.float64(1.0)
    """

    _parameter_constraints: dict[str, list[object]] = {
        "generator": [HasMethods(["fit", "sample"])],
        "min_eigenvalue": [Interval(Real, 0, None, closed="neither"), None],
        "condition_number": [Interval(Real, 1, None, closed="neither"), None],
        "unit_diagonal": ["boolean"],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        generator: Any,
        *,
        min_eigenvalue: float | None = None,
        condition_number: float | None = None,
        unit_diagonal: bool = True,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.generator = generator
        self.min_eigenvalue = min_eigenvalue
        self.condition_number = condition_number
        self.unit_diagonal = unit_diagonal
        self.random_state = random_state

    def _fit(self, adjacency: np.ndarray) -> None:
        if (self.min_eigenvalue is None) == (self.condition_number is None):
            raise ValueError(
                "give exactly one of min_eigenvalue and condition_number, got "
                f"min_eigenvalue={self.min_eigenvalue!r} and "
                f"condition_number={self.condition_number!r}"
            )
        if self.unit_diagonal and self.min_eigenvalue is not None:
            if self.min_eigenvalue >= 1.0:
                raise ValueError(
                    f"min_eigenvalue={self.min_eigenvalue} is unreachable with "
                    "unit_diagonal=True: a correlation matrix has smallest "
                    "eigenvalue < 1 unless it is the identity"
                )
        generator = clone(self.generator)
        if self.random_state is not None and "random_state" in generator.get_params():
            generator.set_params(random_state=self.random_state)
        self.generator_ = generator.fit(adjacency)
        self.adjacency_ = np.array(
            getattr(self.generator_, "adjacency_", adjacency), dtype=bool
        )
        has_edges = bool(self.adjacency_.any())
        if self.unit_diagonal and not has_edges:
            raise ValueError(
                "the graph has no edges: after rescaling to unit diagonal every "
                "draw is the identity (smallest eigenvalue 1, condition number "
                "1), which no diagonal shift changes; use unit_diagonal=False"
            )

    def _sample(self, n_samples: int, rng: np.random.RandomState) -> np.ndarray:
        matrices: NDArray[np.float64] = np.array(
            self.generator_.sample(n_samples), dtype=float
        )
        p = self.n_nodes_
        if matrices.shape != (n_samples, p, p):
            raise ValueError(
                f"generator.sample({n_samples}) returned shape {matrices.shape}, "
                f"expected {(n_samples, p, p)}"
            )
        matrices = 0.5 * (matrices + np.swapaxes(matrices, -1, -2))
        if self.unit_diagonal:
            shifts = self._rescaled_shifts(matrices)
        else:
            shifts = self._plain_shifts(matrices)
        self.shifts_ = shifts
        if self.unit_diagonal:
            return _shift_and_rescale(matrices, shifts)
        index = np.arange(p)
        matrices[:, index, index] += shifts[:, None]
        return matrices

    def _plain_shifts(self, matrices: np.ndarray) -> np.ndarray:
        """Closed-form shifts (no rescaling): Honorio made exact, or Cai."""
        eigenvalues = np.linalg.eigvalsh(matrices)
        smallest, largest = eigenvalues[:, 0], eigenvalues[:, -1]
        if self.min_eigenvalue is not None:
            return self.min_eigenvalue - smallest
        # _fit checked that exactly one of the two targets is given.
        assert self.condition_number is not None
        k = float(self.condition_number)
        spread = largest - smallest
        flat = spread <= 1e-12 * np.maximum(np.abs(largest), np.abs(smallest))
        if flat.any():
            raise ValueError(
                f"draw {int(np.argmax(flat))} has all eigenvalues equal (it is a "
                "multiple of the identity, e.g. on a graph without edges): no "
                f"diagonal shift gives condition_number={k}"
            )
        return (largest - k * smallest) / (k - 1.0)

    def _rescaled_shifts(self, matrices: np.ndarray) -> np.ndarray:
        """Shifts hitting the target after rescaling to unit diagonal."""
        p = matrices.shape[1]
        off_diagonal = ~np.eye(p, dtype=bool)
        flat = ~np.any(matrices[:, off_diagonal] != 0.0, axis=1)
        if flat.any():
            raise ValueError(
                f"draw {int(np.argmax(flat))} is diagonal: rescaled to unit diagonal "
                "it is the identity, whose spectrum no diagonal shift changes"
            )
        eigenvalues, vectors = np.linalg.eigh(matrices)
        smallest, largest = eigenvalues[:, 0], eigenvalues[:, -1]
        diagonal = np.diagonal(matrices, axis1=1, axis2=2)
        spread = largest - smallest
        # c >= 0 measures how much the lowest eigenvector of M couples nodes; it
        # bounds the rescaled spectrum from the "small shift" side.
        coupling = np.maximum(
            np.einsum("ni,ni->n", vectors[:, :, 0] ** 2, diagonal) - smallest, 0.0
        )
        if self.condition_number is not None:
            k = float(self.condition_number)
            sign, goal = -1.0, np.log(k)
            # kappa(C) <= (1 + spread / s)^2 and kappa(C) >= 1 + coupling / s.
            s_high = 2.0 * spread / (np.sqrt(k) - 1.0)
            s_low = 0.5 * coupling / (k - 1.0)
            s_guess = spread / (k - 1.0)
            # Rounding in eigvalsh: lambda_min is known to ~eps * lambda_max.
            noise = k
        else:
            # _fit checked that exactly one of the two targets is given.
            assert self.min_eigenvalue is not None
            eps = float(self.min_eigenvalue)
            sign, goal = 1.0, np.log(eps)
            # s / (spread + s) <= lambda_min(C) <= s / (coupling + s).
            s_high = 2.0 * eps * spread / (1.0 - eps)
            s_low = 0.5 * eps * coupling / (1.0 - eps)
            s_guess = eps * (diagonal.mean(axis=1) - smallest) / (1.0 - eps)
            noise = p / eps  # lambda_max(C) <= trace(C) = p
        # Stop iterating at the rounding floor; fail only well above it.
        stop = max(_LOG_TOLERANCE, 8.0 * np.finfo(float).eps * noise)
        tolerance = max(1e-9, 100.0 * stop)
        # Without coupling the lower bound is void: try far down, check below.
        unproven = s_low <= 1e-12 * spread
        s_low = np.where(unproven, 1e-12 * spread, s_low)

        def signed_gap(
            index: np.ndarray, log_s: np.ndarray
        ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
            """sign * (log quantity - log target), increasing in log_s, and slope."""
            s = np.exp(log_s)
            shift = s - smallest[index]
            shifted_diagonal = diagonal[index] + shift[:, None]
            # Exactly the matrices _sample returns, so the check below is honest.
            values, vecs = np.linalg.eigh(_shift_and_rescale(matrices[index], shift))
            low, high = values[:, 0], values[:, -1]
            weight_low = np.einsum("ni,ni->n", vecs[:, :, 0] ** 2, 1 / shifted_diagonal)
            weight_high = np.einsum(
                "ni,ni->n", vecs[:, :, -1] ** 2, 1 / shifted_diagonal
            )
            with np.errstate(divide="ignore", invalid="ignore"):
                slope_low = s * (1.0 - low) / low * weight_low
                if self.condition_number is not None:
                    value = np.log(high) - np.log(low)
                    slope = s * (1.0 - high) / high * weight_high - slope_low
                else:
                    value = np.log(low)
                    slope = slope_low
            gap = sign * (value - goal)
            # A non-positive computed lambda_min means "too far left".
            gap = np.where(low > 0, gap, -np.inf)
            return gap, sign * slope

        log_low, log_high = np.log(s_low), np.log(s_high)
        # The bracket is proven by the bounds above except where coupling is 0;
        # check those draws numerically.
        check = np.flatnonzero(unproven)
        if check.size:
            gap_low, _ = signed_gap(check, log_low[check])
            gap_high, _ = signed_gap(check, log_high[check])
            unreachable = ~(gap_low < 0) | ~(gap_high > 0)
        if check.size and unreachable.any():
            which = int(check[np.argmax(unreachable)])
            raise ValueError(
                f"draw {which}: the target {self._target_text()} is not reachable by "
                "a diagonal shift followed by rescaling to unit diagonal"
            )
        log_s = np.clip(np.log(np.maximum(s_guess, 1e-300)), log_low, log_high)
        log_s = np.where(
            (log_s > log_low) & (log_s < log_high), log_s, 0.5 * (log_low + log_high)
        )
        active = np.arange(matrices.shape[0])
        final_gap = np.full(matrices.shape[0], np.inf)
        for _ in range(_MAX_NEWTON_ITER):
            gap, slope = signed_gap(active, log_s[active])
            final_gap[active] = gap
            below = gap < 0
            log_low[active] = np.where(below, log_s[active], log_low[active])
            log_high[active] = np.where(below, log_high[active], log_s[active])
            with np.errstate(divide="ignore", invalid="ignore"):
                newton = log_s[active] - gap / slope
            inside = (
                np.isfinite(newton)
                & (newton > log_low[active])
                & (newton < log_high[active])
            )
            midpoint = 0.5 * (log_low[active] + log_high[active])
            step = np.where(inside, newton, midpoint)
            collapsed = (log_high[active] - log_low[active]) <= 4e-16 * (
                1.0 + np.abs(log_s[active])
            )
            done = (np.abs(gap) <= stop) | collapsed
            log_s[active] = np.where(done, log_s[active], step)
            active = active[~done]
            if active.size == 0:
                break
        else:
            final_gap[active] = signed_gap(active, log_s[active])[0]
        missed = ~(np.abs(final_gap) <= tolerance)
        if missed.any():
            raise RuntimeError(
                f"could not reach {self._target_text()} to {tolerance:g} (relative) "
                f"for {int(missed.sum())} draws; worst log-error "
                f"{float(np.nanmax(np.abs(final_gap))):.3g}. The draw is too "
                "ill-conditioned for double precision."
            )
        shifts: NDArray[np.float64] = np.exp(log_s) - smallest
        return shifts

    def _target_text(self) -> str:
        if self.condition_number is not None:
            return f"condition_number={self.condition_number}"
        return f"min_eigenvalue={self.min_eigenvalue}"


def _shift_and_rescale(matrices: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """``d^{-1/2} (M + t I) d^{-1/2}``, ``d = diag(M) + t``; diagonal exactly 1."""
    p = matrices.shape[1]
    index = np.arange(p)
    scale = 1.0 / np.sqrt(matrices[:, index, index] + shifts[:, None])
    rescaled: NDArray[np.float64] = matrices * scale[:, :, None] * scale[:, None, :]
    rescaled[:, index, index] = 1.0
    return rescaled
