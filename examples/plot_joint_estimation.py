"""
Does joint estimation beat separate estimation? It depends on the generator
============================================================================

Three classes share most of their graph. We estimate their precisions
separately (the graphical lasso of each class: the group graphical lasso with
no group penalty) and jointly (the group graphical lasso, which pulls the
classes towards one graph), and compare the best F1 each reaches over a small
penalty grid (an oracle choice, the same for both, so the comparison is about
the estimators rather than a penalty selection rule).

The grid crosses how similar the classes' values are (``similarity`` 0:
independent, 0.9: nearly equal) with two generators of the class matrices: the
paper's exact generator (triangulated orthogonalization) and the recipe of
GGLasso's own power-network generators (diagonal dominance, then a
pseudo-inverse thresholded at 1e-2), re-implemented in
:class:`~skggm_bench.generators.ThresholdedPseudoInverse`.
"""

import argparse
from itertools import product
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from skggm_bench.datasets import make_joint_ggm
from skggm_bench.generators import (
    ThresholdedPseudoInverse,
    TriangulatedOrthogonalization,
)
from skggm_bench.learners import GroupGraphicalLasso
from skggm_bench.metrics import group_scores

parser = argparse.ArgumentParser(description="Joint versus separate estimation.")
parser.add_argument("--n-repeats", type=int, default=5)
parser.add_argument("--out", type=Path, default=Path("figures") / "joint.png")
args, _ = parser.parse_known_args()

GENERATORS = {
    "exact (triangulated orth.)": TriangulatedOrthogonalization(),
    "GGLasso recipe (thresholded pinv)": ThresholdedPseudoInverse(),
}
SIMILARITIES = (0.0, 0.9)
ALPHAS = (0.02, 0.04, 0.08, 0.16)
BETAS = {"separate": (0.0,), "joint": (0.02, 0.05, 0.1)}


def best_f1(data, betas):
    """The best mean F1 over the classes on the penalty grid, and its changes' PPV."""
    best = (-1.0, np.nan)
    for alpha, beta in product(ALPHAS, betas):
        model = GroupGraphicalLasso(alpha=alpha, beta=beta, max_iter=2000)
        scores = group_scores(model.fit(data.X, data.y), data.adjacency)
        best = max(best, (scores["f1"], scores["change_ppv"]))
    return best


rows = []
for (name, generator), similarity in product(GENERATORS.items(), SIMILARITIES):
    for repeat in range(args.n_repeats):
        data = make_joint_ggm(
            50, 20, n_classes=3, graph="scale_free", generator=generator,
            shared_fraction=0.8, similarity=similarity, random_state=repeat,
        )  # fmt: skip
        for method, betas in BETAS.items():
            f1, change_ppv = best_f1(data, betas)
            rows.append((name, similarity, method, repeat, f1, change_ppv))

print(f"{'generator':<36}{'similarity':>10}{'separate':>16}{'joint':>16}")
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
for ax, name in zip(axes, GENERATORS, strict=True):
    for offset, method in ((-0.1, "separate"), (0.1, "joint")):
        means, errors = [], []
        for similarity in SIMILARITIES:
            f1 = [r[4] for r in rows if r[:3] == (name, similarity, method)]
            means.append(np.mean(f1))
            errors.append(np.std(f1, ddof=1) / np.sqrt(len(f1)))
        ax.errorbar(
            np.arange(len(SIMILARITIES)) + offset, means, yerr=errors, fmt="o",
            capsize=3, label=method,
        )  # fmt: skip
    for similarity in SIMILARITIES:
        cells = [
            [r[4] for r in rows if r[:3] == (name, similarity, method)]
            for method in BETAS
        ]
        gain = np.array(cells[1]) - np.array(cells[0])
        print(
            f"{name:<36}{similarity:>10}"
            + "".join(f"{np.mean(c):>10.3f} ± {np.std(c, ddof=1) / np.sqrt(len(c)):.3f}"
                      for c in cells)
            + f"   joint - separate: {gain.mean():+.3f}"
            + f" ({(gain > 0).sum()}/{gain.size} data sets)"
        )  # fmt: skip
    ax.set_xticks(range(len(SIMILARITIES)), [f"similarity {s}" for s in SIMILARITIES])
    ax.set_title(name, fontsize=10)
axes[0].set_ylabel("best mean F1 over the classes")
axes[0].legend()
fig.suptitle(
    f"3 classes, p = 20, 50 rows each, 80% shared edges; {args.n_repeats} data sets"
)
fig.tight_layout()
args.out.parent.mkdir(parents=True, exist_ok=True)
fig.savefig(args.out, dpi=120)
print(f"wrote {args.out}")
