"""
Marginal densities of the non-zero entries
==========================================

The paper's Figures 3, 4 and 6. We draw 5000 matrices on an Erdős–Rényi graph with
p = 50 and density 0.05, on its triangulation, and on the 50-chain, with the three
methods of each case, and plot the marginal density of every non-zero entry,
coloured from the first entry (2, 1) to the last.

The paper lacks one thing, shown in the bottom-right panel: under the exact
uniform law the chain's marginals are *not* all equal. The two end entries have
standard deviation 1/2 and the interior ones sqrt(3)/4 ~ 0.433 (see
``docs/uniform_sampler.md`` for the closed form).
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from skggm_bench.generators import (
    DiagonalDominance,
    PartialOrthogonalization,
    TriangulatedOrthogonalization,
    UniformChordal,
)
from skggm_bench.graphs import chain_graph, erdos_renyi_graph, triangulate

parser = argparse.ArgumentParser(
    description="Marginal densities of the non-zero entries (Figures 3, 4, 6)."
)
parser.add_argument("--n-draws", type=int, default=5000)
parser.add_argument(
    "--out", type=Path, default=Path("figures") / "marginal_densities.png"
)
args, _ = parser.parse_known_args()

graph = erdos_renyi_graph(50, 0.05, random_state=1)
triangulation, _ = triangulate(graph)
cases = {
    "Erdős–Rényi, p=50, d=0.05": (
        graph,
        [DiagonalDominance, PartialOrthogonalization, TriangulatedOrthogonalization],
    ),
    "its triangulation": (
        triangulation,
        [DiagonalDominance, PartialOrthogonalization, UniformChordal],
    ),
    "50-chain": (
        chain_graph(50),
        [DiagonalDominance, PartialOrthogonalization, UniformChordal],
    ),
}
bins = np.linspace(-1, 1, 81)
centres = 0.5 * (bins[1:] + bins[:-1])
fig, axes = plt.subplots(3, 3, figsize=(13, 11), sharex=True)
for row, (case, (case_graph, classes)) in enumerate(cases.items()):
    for col, cls in enumerate(classes):
        generator = cls(random_state=0).fit(case_graph)
        draws = generator.sample(args.n_draws)
        rows, cols = np.nonzero(np.tril(generator.adjacency_, -1))
        order = np.lexsort((cols, rows))  # (2,1), (3,1), (3,2), ... as in the paper
        entries = draws[:, rows[order], cols[order]]
        colours = plt.cm.rainbow(np.linspace(0, 1, entries.shape[1]))
        ax = axes[row, col]
        for k in range(entries.shape[1]):
            density, _ = np.histogram(entries[:, k], bins=bins, density=True)
            ax.plot(centres, density, color=colours[k], lw=0.6, alpha=0.7)
        ax.set_title(f"{cls.__name__}\n{case}", fontsize=9)
        sd = entries.std(axis=0)
        print(
            f"{case:<28}{cls.__name__:<32}{entries.shape[1]:>4} entries, "
            f"sd of entries: median {np.median(sd):.3f}, range "
            f"[{sd.min():.3f}, {sd.max():.3f}]"
        )

# The exact uniform chain marginals, end vs interior, against the closed form.
ax = axes[2, 2]
draws = UniformChordal(random_state=0).fit(chain_graph(50)).sample(args.n_draws)
chain = draws[:, np.arange(49), np.arange(1, 50)]
for k, label, colour in [
    (0, "end entry (1,2)", "black"),
    (24, "interior (25,26)", "grey"),
]:
    density, _ = np.histogram(chain[:, k], bins=bins, density=True)
    ax.plot(
        centres,
        density,
        color=colour,
        lw=2,
        label=f"{label}: sd {chain[:, k].std():.3f}",
    )
ax.legend(
    fontsize=7, title="theory: 0.500 vs 0.433", title_fontsize=7, loc="lower center"
)
for ax in axes[-1]:
    ax.set_xlabel("entry value")
fig.tight_layout()
args.out.parent.mkdir(parents=True, exist_ok=True)
fig.savefig(args.out, dpi=110)
print(f"wrote {args.out}")
