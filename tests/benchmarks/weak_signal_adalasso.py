"""The adaptive lasso on weak, dense signals: ours against parcor (a study, not a test).

Run from the repository root (needs R with GeneNet and parcor; about 20 minutes
of R and 5 of Python on the 2-core host):

    .venv/bin/python tests/benchmarks/weak_signal_adalasso.py \
        [--data-sets 20] [--sparse-data-sets 8] [--keep FOLDER]

R draws partial correlation matrices with GeneNet's
``ggm.simulate.pcor(50, etaA)`` for etaA = 0.2 (245 edges, median |pcor| about
0.095; ``--data-sets`` of them) and etaA = 0.05 (61 edges; parcor is slower
there, ``--sparse-data-sets``), and n = 100 samples of each with
``ggm.simulate.data``;
parcor's ``adalasso.net(X, k = 5, both = TRUE)`` selects its pairs. Then
``AdaptiveLassoNetwork`` selects with ``weight_cv="shared"`` (the default) and
``weight_cv="nested"`` (parcor's nested stage-1 CV). Printed per etaA: mean and
standard error over data sets of the pairs selected, true positives, PPV, TPR,
F1, MCC and the Jaccard index to parcor's selection, and the paired comparisons
of the default against the other two (Wilcoxon signed-rank tests).
"""

import argparse
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from threadpoolctl import threadpool_limits

from skggm_bench.learners import AdaptiveLassoNetwork

R_SCRIPT = r"""
suppressMessages({library(GeneNet); library(parcor)})
args = commandArgs(trailingOnly = TRUE)
out = args[1]; n_sets = c("0.2" = as.integer(args[2]), "0.05" = as.integer(args[3]))
for (eta in c(0.2, 0.05)) for (seed in seq_len(n_sets[[as.character(eta)]])) {
  set.seed(100 * seed + round(100 * eta))
  pc = ggm.simulate.pcor(50, etaA = eta)
  X = ggm.simulate.data(100, pc)
  tag = sprintf("%s_%d", eta, seed)
  write.csv(X, file.path(out, paste0("X_", tag, ".csv")), row.names = FALSE)
  write.csv(pc, file.path(out, paste0("pcor_", tag, ".csv")), row.names = FALSE)
  fit = adalasso.net(X, k = 5, both = TRUE)
  A = fit$pcor.adalasso
  w = which(A != 0 & upper.tri(A), arr.ind = TRUE)
  write.csv(w - 1, file.path(out, paste0("R_", tag, ".csv")), row.names = FALSE)
}
# parcor's own seed-to-seed agreement: the first three dense data sets again,
# with five other CV seeds.
for (seed in 1:min(3, n_sets[["0.2"]])) for (repeat_seed in 1:5) {
  X = as.matrix(read.csv(file.path(out, sprintf("X_0.2_%d.csv", seed))))
  set.seed(1000 + repeat_seed)
  A = adalasso.net(X, k = 5, both = TRUE)$pcor.adalasso
  w = which(A != 0 & upper.tri(A), arr.ind = TRUE)
  write.csv(w - 1, file.path(out, sprintf("Rrepeat_0.2_%d_%d.csv", seed, repeat_seed)),
            row.names = FALSE)
}
"""
P = 50
METRICS = ["selected", "tp", "ppv", "tpr", "f1", "mcc", "jaccard_to_R"]


def read_pairs(path: Path) -> np.ndarray:
    pairs = pd.read_csv(path).to_numpy().astype(int)
    adjacency = np.zeros((P, P), dtype=bool)
    if pairs.size:
        adjacency[pairs[:, 0], pairs[:, 1]] = True
    return adjacency | adjacency.T


def scores(selected: np.ndarray, truth: np.ndarray, parcor: np.ndarray) -> dict:
    iu = np.triu_indices(P, 1)
    a, t, r = selected[iu], truth[iu], parcor[iu]
    tp, fp = np.sum(a & t), np.sum(a & ~t)
    fn, tn = np.sum(~a & t), np.sum(~a & ~t)
    denominator = np.sqrt(float((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))
    union = np.sum(a | r)
    return {
        "selected": tp + fp,
        "tp": tp,
        "ppv": tp / (tp + fp) if tp + fp else 1.0,
        "tpr": tp / (tp + fn),
        "f1": 2 * tp / (2 * tp + fp + fn),
        "mcc": (tp * tn - fp * fn) / denominator if denominator else 0.0,
        "jaccard_to_R": np.sum(a & r) / union if union else 1.0,
    }


def evaluate(folder: Path, eta: str, n_sets: int) -> pd.DataFrame:
    rows = []
    for seed in range(1, n_sets + 1):
        tag = f"{eta}_{seed}"
        X = pd.read_csv(folder / f"X_{tag}.csv").to_numpy()
        pcor = pd.read_csv(folder / f"pcor_{tag}.csv").to_numpy()
        truth = (pcor != 0) & ~np.eye(P, dtype=bool)
        parcor = read_pairs(folder / f"R_{tag}.csv")
        selections = {"parcor adalasso.net": parcor}
        for weight_cv in ("shared", "nested"):
            learner = AdaptiveLassoNetwork(weight_cv=weight_cv, random_state=seed)
            selections[f"ours, weight_cv={weight_cv!r}"] = learner.fit(X).adjacency_
        for method, selected in selections.items():
            rows.append(
                {"data set": seed, "method": method, **scores(selected, truth, parcor)}
            )
    return pd.DataFrame(rows)


def mean_jaccard(first: list, second: list) -> float:
    """Mean Jaccard index over pairs (distinct pairs when ``second is first``)."""
    values = [
        np.sum(np.triu(a & b, 1)) / max(np.sum(np.triu(a | b, 1)), 1)
        for i, a in enumerate(first)
        for j, b in enumerate(second)
        if second is not first or i < j
    ]
    return float(np.mean(values))


def seed_to_seed(folder: Path) -> None:
    """parcor against itself (five CV seeds) and ours against those selections."""
    print("\nJaccard indices on the first three dense data sets (five seeds each):")
    print("| data set | parcor seed to seed | nested to parcor | shared to parcor |")
    print("|---|---|---|---|")
    for seed in (1, 2, 3):
        repeats = [
            read_pairs(folder / f"Rrepeat_0.2_{seed}_{k}.csv") for k in range(1, 6)
        ]
        X = pd.read_csv(folder / f"X_0.2_{seed}.csv").to_numpy()
        cells = [f"{mean_jaccard(repeats, repeats):.2f}"]
        for weight_cv in ("nested", "shared"):
            ours = [
                AdaptiveLassoNetwork(weight_cv=weight_cv, random_state=k)
                .fit(X)
                .adjacency_
                for k in range(5)
            ]
            cells.append(f"{mean_jaccard(ours, repeats):.2f}")
        print(f"| {seed} | " + " | ".join(cells) + " |")


def report(table: pd.DataFrame, eta: str) -> None:
    n_sets = table["data set"].nunique()
    print(f"\netaA = {eta}: mean (standard error) over {n_sets} data sets")
    summary = table.groupby("method")[METRICS].agg(["mean", "sem"])
    print("| method | " + " | ".join(METRICS) + " |")
    print("|---|" + "---|" * len(METRICS))
    for method, row in summary.iterrows():
        cells = [f"{row[(m, 'mean')]:.3g} ({row[(m, 'sem')]:.2g})" for m in METRICS]
        print(f"| {method} | " + " | ".join(cells) + " |")
    wide = table.pivot(index="data set", columns="method", values=METRICS)
    ours = "ours, weight_cv='shared'"
    for other in ("parcor adalasso.net", "ours, weight_cv='nested'"):
        for metric in ("ppv", "tpr", "f1", "mcc"):
            diff = wide[(metric, ours)] - wide[(metric, other)]
            test = stats.wilcoxon(diff) if np.any(diff != 0) else None
            better, worse = int((diff > 0).sum()), int((diff < 0).sum())
            print(
                f"{metric}: default - {other}: {diff.mean():+.4f} "
                f"(better on {better}/{len(diff)}, worse on {worse}"
                + (f", Wilcoxon p = {test.pvalue:.2g})" if test else ")")
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-sets", type=int, default=20)
    parser.add_argument("--sparse-data-sets", type=int, default=8)
    parser.add_argument(
        "--keep",
        type=Path,
        help="folder for R's outputs; if it already holds them, R is not run again",
    )
    args = parser.parse_args()
    if shutil.which("Rscript") is None:
        print("Rscript not found: this study needs R with GeneNet and parcor.")
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        counts = {"0.2": args.data_sets, "0.05": args.sparse_data_sets}
        done = [folder / f"R_{eta}_{k}.csv" for eta, k in counts.items()]
        if not all(path.exists() for path in done):
            subprocess.run(
                ["Rscript", "-e", R_SCRIPT, str(folder), *map(str, counts.values())],
                check=True,
                capture_output=True,
            )
        with threadpool_limits(limits=1), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for eta, n_sets in counts.items():
                report(evaluate(folder, eta, n_sets), eta)
            seed_to_seed(folder)


if __name__ == "__main__":
    main()
