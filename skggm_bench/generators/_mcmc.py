"""What the Markov chain samplers share: draws handed out by rounds, diagnostics.

:class:`HitAndRunUniform` and :class:`GWishart` (``method="gibbs"``) run several
chains in lockstep. :class:`ChainDraws` turns their rounds into draws and keeps the
traces of the monitored quantities; :func:`mixing_diagnostics` computes rank-
normalised split R-hat, bulk effective sample sizes and lag-1 autocorrelations
(Vehtari, Gelman, Simpson, Carpenter & Bürkner, 2021) and :func:`mixing_problems`
turns them into the messages of :class:`PoorMixingWarning`, with thresholds
calibrated on independent draws (``docs/hit_and_run.md``).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from typing import TypedDict

import numpy as np
from numpy.typing import NDArray
from scipy import fft, stats
from threadpoolctl import threadpool_limits

__all__ = [
    "ChainDraws",
    "MixingReport",
    "MixingSummary",
    "PoorMixingWarning",
    "mixing_diagnostics",
    "mixing_problems",
    "mixing_report",
    "single_threaded_blas",
]

# The diagnostics use at most this many stored values (rounds x chains x entries)
# of the most recent draws, to bound memory on large graphs.
_HISTORY_MAX_VALUES = 2_000_000
# ... and are recomputed after a sample() call once the number of rounds has grown
# by this fraction since they were last computed.
_DIAGNOSTICS_GROWTH = 0.1
# Level of the calibrated tests behind the warnings (Bonferroni over the monitored
# quantities): a chain that mixes well triggers a warning with probability < 1e-3.
_WARNING_LEVEL = 1e-3
# Conventional floor on R-hat (Vehtari et al. 2021): disagreement between chains
# below 1% is never worth a warning, however many draws there are.
_R_HAT_FLOOR = 1.01
# Lag-1 autocorrelation promised for consecutive draws of a chain.
_LAG1_PROMISE = 0.05
# ESS below this fraction of the number of draws means the draws are far from the
# promised near-independence (an AR(1) chain with lag-1 autocorrelation 1/3).
_ESS_FRACTION = 0.5
# ESS estimates need this many draws in total before they are trusted for a warning
# (below it the Geyer truncation alone scatters ESS/N by tens of per cent).
_ESS_MIN_DRAWS = 2000


class MixingSummary(TypedDict):
    """:func:`mixing_diagnostics`'s result: one value per monitored quantity."""

    ess: NDArray[np.float64]
    r_hat: NDArray[np.float64]
    lag1: NDArray[np.float64]
    r_hat_threshold: float
    n_draws: int
    n_per_chain: int
    n_chains: int


#: :func:`mixing_report`'s entries of a sampler's ``diagnostics_``: counts, figures
#: and the lag-1 autocorrelation of each monitored entry.
MixingReport = dict[str, float | NDArray[np.float64]]


class PoorMixingWarning(UserWarning):
    """The Markov chains behind a sample show signs of poor mixing.

    Raised by the Markov chain samplers (:class:`HitAndRunUniform`,
    :class:`GWishart` with ``method="gibbs"``) when R-hat across chains, the
    effective sample size or the lag-1 autocorrelation of the returned draws fail
    calibrated checks. The draws are still valid states of the chains, but they may
    be autocorrelated or not yet representative of the target law.

    Examples
    --------
    >>> from skggm_bench.generators import PoorMixingWarning
    >>> issubclass(PoorMixingWarning, UserWarning)
    True
    """


class ChainDraws:
    """Rounds of lockstep chains turned into draws, and the traces behind diagnostics.

    A round is one state per chain; draw ``k`` of a round comes from chain ``k``.
    Draws of a round left over by one call are returned first by the next, so
    ``take(a)`` then ``take(b)`` gives exactly ``take(a + b)``. The monitored values
    of the most recent rounds are kept (at most 2 million values) for
    :func:`mixing_diagnostics`.
    """

    def __init__(self, shape: tuple[int, ...], n_chains: int, n_monitored: int):
        self.pending = np.empty((0, *shape))
        rounds_kept = max(4, _HISTORY_MAX_VALUES // (n_chains * n_monitored))
        self.history: deque[np.ndarray] = deque(maxlen=rounds_kept)
        self.n_rounds = 0
        self.n_rounds_diagnosed = 0

    def take(
        self, n_samples: int, advance: Callable[[], tuple[np.ndarray, np.ndarray]]
    ) -> np.ndarray:
        """``n_samples`` draws; ``advance()`` runs one round and returns its states
        ``(n_chains, ...)`` and monitored values ``(n_chains, n_monitored)``."""
        n_pending = min(n_samples, self.pending.shape[0])
        draws = np.empty((n_samples, *self.pending.shape[1:]))
        draws[:n_pending] = self.pending[:n_pending]
        self.pending = self.pending[n_pending:]
        position = n_pending
        while position < n_samples:
            states, monitored = advance()
            self.history.append(np.array(monitored))
            self.n_rounds += 1
            used = min(states.shape[0], n_samples - position)
            draws[position : position + used] = states[:used]
            # Each round's states are copied once, into the draws or the leftovers.
            self.pending = np.array(states[used:])
            position += used
        return draws

    @property
    def diagnostics_due(self) -> bool:
        """Whether the rounds grew by 10% since the last diagnosis.

        Diagnostics cost time proportional to the stored history; recomputing them
        only then keeps a loop of small ``sample`` calls linear in the draws.
        """
        return self.n_rounds >= (1.0 + _DIAGNOSTICS_GROWTH) * self.n_rounds_diagnosed

    def diagnose(self) -> tuple[MixingSummary, NDArray[np.float64]]:
        """:func:`mixing_diagnostics` of the stored traces, and the traces."""
        traces = np.stack(self.history)  # (rounds, chains, monitored)
        self.n_rounds_diagnosed = self.n_rounds
        return mixing_diagnostics(traces), traces


def single_threaded_blas() -> threadpool_limits:
    """BLAS limited to one thread while the chains run.

    Every operation in a move is small (rank-2 products, factorisations of
    ``(degree x degree)`` blocks, per-sweep inversions of ``p x p`` matrices), too
    small to gain from threads; but a multithreaded OpenBLAS on a busy 2-core
    machine made single runs of a p = 100 hit-and-run benchmark up to 16 times
    slower, erratically (docs/hit_and_run.md). threadpoolctl is a dependency of
    scikit-learn.
    """
    return threadpool_limits(limits=1, user_api="blas")


def min_or_nan(values: np.ndarray) -> float:
    return float(values.min()) if values.size else math.nan


def max_or_nan(values: np.ndarray) -> float:
    return float(values.max()) if values.size else math.nan


def _autocorrelation(traces: NDArray[np.float64]) -> NDArray[np.float64]:
    """Multi-chain autocorrelation ``rho_t`` of (n, chains, q) traces, shape (n, q).

    ``rho_t = 1 - (W - mean_c acov_c(t)) / var_plus`` (Vehtari et al. 2021, eq. 10),
    with ``W`` the mean within-chain variance and ``var_plus`` the pooled variance
    estimate; it is the within-chain autocorrelation when the chains agree and is
    pulled up when they do not. Autocovariances via FFT.
    """
    n, n_chains = traces.shape[:2]
    centred = traces - traces.mean(axis=0)
    size = fft.next_fast_len(2 * n)
    spectrum = fft.rfft(centred, n=size, axis=0)
    autocovariance: NDArray[np.float64] = (
        fft.irfft(spectrum * spectrum.conj(), n=size, axis=0)[:n] / n
    )
    within = autocovariance[0].mean(axis=0) * n / (n - 1)
    between = traces.mean(axis=0).var(axis=0, ddof=1) if n_chains > 1 else 0.0
    var_plus = within * (n - 1) / n + between
    with np.errstate(invalid="ignore", divide="ignore"):
        rho: NDArray[np.float64] = (
            1.0 - (within - autocovariance.mean(axis=1)) / var_plus
        )
    rho[0] = 1.0
    return rho


def _effective_sample_size(traces: NDArray[np.float64]) -> NDArray[np.float64]:
    """ESS by Geyer's initial monotone sequence on the multi-chain ``rho_t``."""
    n, n_chains = traces.shape[:2]
    rho = _autocorrelation(traces)
    n_pairs = n // 2
    pairs = rho[0 : 2 * n_pairs : 2] + rho[1 : 2 * n_pairs : 2]
    positive = np.cumprod(pairs > 0, axis=0).astype(bool)
    monotone = np.minimum.accumulate(np.where(positive, pairs, 0.0), axis=0)
    tau = -1.0 + 2.0 * monotone.sum(axis=0)
    total = n * n_chains
    # Stan's cap: an antithetic chain cannot claim more than N log10(N) draws.
    tau = np.maximum(tau, 1.0 / np.log10(max(total, 2)))
    ess: NDArray[np.float64] = total / tau
    return ess


def _rank_normal_scores(traces: NDArray[np.float64]) -> NDArray[np.float64]:
    """Normal scores of the pooled ranks, per quantity (Vehtari et al. 2021)."""
    n, n_chains, q = traces.shape
    ranks = stats.rankdata(traces.reshape(n * n_chains, q), axis=0)
    scores: NDArray[np.float64] = stats.norm.ppf(
        (ranks - 0.375) / (n * n_chains + 0.25)
    )
    return scores.reshape(n, n_chains, q)


def _split_chains(traces: np.ndarray) -> np.ndarray:
    half = traces.shape[0] // 2
    return np.concatenate([traces[:half], traces[traces.shape[0] - half :]], axis=1)


def _r_hat_of(traces: NDArray[np.float64]) -> NDArray[np.float64]:
    n = traces.shape[0]
    within = traces.var(axis=0, ddof=1).mean(axis=0)
    between = traces.mean(axis=0).var(axis=0, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r_hat: NDArray[np.float64] = np.sqrt(((n - 1) / n * within + between) / within)
    return r_hat


def _r_hat_null_quantile(n: int, n_chains: int, n_tests: int) -> float:
    """Quantile of split R-hat for independent draws, Bonferroni over ``n_tests``.

    For i.i.d. normal draws, ``R^2 = (n - 1) / n + F / n`` with
    ``F ~ F(m - 1, m (n - 1))`` (between over within variance), ``n`` draws per
    split chain and ``m`` split chains; rank normalisation makes draws close to
    normal.
    """
    level = 1.0 - _WARNING_LEVEL / max(n_tests, 1)
    quantile = stats.f.ppf(level, n_chains - 1, n_chains * (n - 1))
    return float(np.sqrt((n - 1) / n + quantile / n))


def mixing_diagnostics(traces: NDArray[np.float64]) -> MixingSummary:
    """R-hat, ESS and lag-1 autocorrelation of (draws per chain, chains, q) traces."""
    n, n_chains, q = traces.shape
    total = n * n_chains
    nan = np.full(q, np.nan)
    result = MixingSummary(
        ess=nan,
        r_hat=nan,
        lag1=nan,
        r_hat_threshold=np.nan,
        n_draws=total,
        n_per_chain=n,
        n_chains=n_chains,
    )
    if n < 4 or q == 0:
        return result
    constant = np.ptp(traces.reshape(total, q), axis=0) == 0
    split = _split_chains(traces)
    scores = _rank_normal_scores(split)
    folded = _rank_normal_scores(np.abs(split - np.median(split, axis=(0, 1))))
    r_hat = np.maximum(_r_hat_of(scores), _r_hat_of(folded))
    ess = _effective_sample_size(scores)
    lag1 = _autocorrelation(traces)[1]
    r_hat[constant], ess[constant], lag1[constant] = 1.0, total, 0.0
    half = split.shape[0]
    # Two R-hat statistics (bulk, folded) per quantity are tested.
    threshold = max(_R_HAT_FLOOR, _r_hat_null_quantile(half, split.shape[1], 2 * q))
    result["ess"], result["r_hat"], result["lag1"] = ess, r_hat, lag1
    result["r_hat_threshold"] = threshold
    return result


def mixing_problems(summary: MixingSummary, names: list[str], advice: str) -> list[str]:
    """Messages for the checks that fail; empty when the chains look fine.

    ``names`` labels the monitored quantities, ``advice`` ends every message.
    """
    if np.isnan(summary["r_hat_threshold"]):
        return []
    problems = []
    total, q = summary["n_draws"], len(names)
    advice = "; " + advice
    worst = int(np.nanargmax(summary["r_hat"]))
    if summary["r_hat"][worst] > summary["r_hat_threshold"]:
        problems.append(
            f"R-hat across chains is {summary['r_hat'][worst]:.3f} for "
            f"{names[worst]}, above {summary['r_hat_threshold']:.3f}: the chains "
            f"disagree{advice}"
        )
    # Lag-1 autocorrelation: for independent draws its estimate is ~N(0, 1/N);
    # test "rho_1 > 0.05" at the warning level, Bonferroni over quantities.
    allowance = stats.norm.isf(_WARNING_LEVEL / q) / math.sqrt(total)
    worst = int(np.nanargmax(summary["lag1"]))
    if summary["lag1"][worst] > _LAG1_PROMISE + allowance:
        problems.append(
            f"consecutive draws of a chain are correlated: lag-1 autocorrelation "
            f"{summary['lag1'][worst]:.3f} for {names[worst]}{advice}"
        )
    worst = int(np.nanargmin(summary["ess"]))
    if total >= _ESS_MIN_DRAWS and summary["ess"][worst] < _ESS_FRACTION * total:
        problems.append(
            f"effective sample size {summary['ess'][worst]:.0f} of {total} draws "
            f"for {names[worst]}{advice}"
        )
    return problems


def mixing_report(
    summary: MixingSummary,
    traces: NDArray[np.float64],
    names: list[str],
    advice: str,
) -> tuple[MixingReport, list[str]]:
    """The diagnostics every sampler reports, and the warning messages.

    ``summary`` and ``traces`` are :meth:`ChainDraws.diagnose`'s; the last monitored
    quantity is ``log det`` of the draw, and ``names`` labels them all. Returns
    the entries of the samplers' ``diagnostics_`` shared by all of them (samplers
    add their own counters), and :func:`mixing_problems`'s messages.
    """
    lag1 = summary["lag1"][:-1]
    report: MixingReport = {
        "n_draws": int(traces.shape[0] * traces.shape[1]),
        "n_chains": int(traces.shape[1]),
        "min_effective_sample_size": min_or_nan(summary["ess"][:-1]),
        "max_r_hat": max_or_nan(summary["r_hat"][:-1]),
        "r_hat_threshold": float(summary["r_hat_threshold"]),
        "lag1_autocorrelation": lag1,
        "max_lag1_autocorrelation": max_or_nan(lag1),
        "log_det_effective_sample_size": float(summary["ess"][-1]),
        "log_det_r_hat": float(summary["r_hat"][-1]),
    }
    return report, mixing_problems(summary, names, advice)
