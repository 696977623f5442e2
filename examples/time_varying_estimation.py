"""
Time-varying estimation against separate estimation (needs regain)
===================================================================

Five time points whose graphs change by 10% of their edges per step and whose
values drift smoothly (:class:`~skggm_bench.generators.TimeVaryingGenerator`,
``smoothness=0.8``). We compare the best mean F1 over the time points of the
graphical lasso of each time point (``GroupGraphicalLasso(beta=0)``) with
regain's ``TimeGraphicalLasso`` (a fused penalty on consecutive precisions), on
the same penalty grid (regain's ``alpha`` is the graphical lasso's times the rows
per time point), under the exact generator and GGLasso's recipe. regain is not a
dependency of skggm-bench (``pip install regain``); this script is rendered in
the docs, not run there.
"""

import argparse
import warnings
from itertools import product

import numpy as np
from regain.covariance import TimeGraphicalLasso

from skggm_bench.datasets import make_time_varying_ggm
from skggm_bench.generators import (
    ThresholdedPseudoInverse,
    TriangulatedOrthogonalization,
)
from skggm_bench.learners import GroupGraphicalLasso
from skggm_bench.metrics import group_scores

parser = argparse.ArgumentParser(description="Time-varying versus separate.")
parser.add_argument("--n-repeats", type=int, default=5)
args, _ = parser.parse_known_args()

N, P, T = 40, 15, 5
GENERATORS = {
    "exact (triangulated orth.)": TriangulatedOrthogonalization(),
    "GGLasso recipe (thresholded pinv)": ThresholdedPseudoInverse(),
}
ALPHAS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32)
BETAS = (0.1, 0.3, 1.0)


def separate(alpha):
    return GroupGraphicalLasso(alpha=alpha, beta=0.0, max_iter=2000)


def time_varying(alpha, beta):
    return TimeGraphicalLasso(alpha=alpha * N, beta=beta * N, max_iter=500)


print(f"{'generator':<36}{'separate':>16}{'time-varying':>16}")
for name, generator in GENERATORS.items():
    results = {"separate": [], "time-varying": []}
    for repeat in range(args.n_repeats):
        data = make_time_varying_ggm(
            N, P, n_times=T, graph="scale_free", generator=generator,
            change_rate=0.1, smoothness=0.8, random_state=repeat,
        )  # fmt: skip
        candidates = {
            "separate": [separate(a) for a in ALPHAS],
            "time-varying": [time_varying(a, b) for a, b in product(ALPHAS, BETAS)],
        }
        for method, models in candidates.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                f1 = [
                    group_scores(
                        m.fit(data.X, data.y), data.adjacency, changes="consecutive"
                    )["f1"]
                    for m in models
                ]
            results[method].append(max(f1))
    cells = [np.array(results[m]) for m in ("separate", "time-varying")]
    gain = cells[1] - cells[0]
    print(
        f"{name:<36}"
        + "".join(f"{c.mean():>10.3f} ± {c.std(ddof=1) / np.sqrt(c.size):.3f}"
                  for c in cells)
        + f"   time-varying - separate: {gain.mean():+.3f}"
        + f" ({(gain > 0).sum()}/{gain.size} data sets)"
    )  # fmt: skip
