"""Rank the solvers of a ``benchopt run`` of this benchmark, per generator.

benchopt's own terms: a solver's suboptimality at a time is its objective minus the
best objective any solver reached on that dataset, relative to that best; solvers
are ranked by the time they take to reach a suboptimality of ``--tol`` (median over
the repetitions; never reached ranks last), and each row also gives the F1 of the
graph the solver ends with against the true graph of the skggm-bench dataset.

    benchopt run examples/benchopt --no-plot -n 15 -r 3 --output runs/glasso.parquet
    python examples/benchopt/rank_solvers.py runs/glasso.parquet --figure ranks.png
"""

import argparse

import numpy as np
import pandas as pd

GENERATOR = "p_dataset_generator"


def suboptimality(results: pd.DataFrame) -> pd.DataFrame:
    """The results with ``suboptimality`` relative to the best objective per dataset."""
    best = results.groupby(GENERATOR)["objective_value"].transform("min")
    return results.assign(
        suboptimality=(results["objective_value"] - best) / np.abs(best)
    )


def ranking(results: pd.DataFrame, tol: float) -> pd.DataFrame:
    """Per generator and solver: time to ``tol``, its rank, and the final F1."""
    results = suboptimality(results)
    rows = []
    for (generator, solver), runs in results.groupby([GENERATOR, "solver_name"]):
        reached = runs[runs["suboptimality"] <= tol]
        per_repetition = reached.groupby("idx_rep")["time"].min()
        if len(per_repetition) < runs["idx_rep"].nunique():
            time_to_tol = np.inf  # some repetition never got there
        else:
            time_to_tol = float(per_repetition.median())
        last = runs.sort_values("stop_val").groupby("idx_rep").last()
        rows.append(
            {
                "generator": generator,
                "solver": solver,
                "time_to_tol": time_to_tol,
                "final_suboptimality": float(last["suboptimality"].median()),
                "f1": float(last["objective_f1"].median()),
            }
        )
    table = pd.DataFrame(rows)
    table["rank"] = (
        table.groupby("generator")["time_to_tol"].rank(method="min").astype(int)
    )
    return table.sort_values(["generator", "rank", "solver"]).reset_index(drop=True)


def plot(results: pd.DataFrame, tol: float, path: str) -> None:
    """Suboptimality against time, one panel per generator."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = suboptimality(results)
    generators = sorted(results[GENERATOR].unique())
    figure, axes = plt.subplots(
        1, len(generators), figsize=(5.5 * len(generators), 4), sharey=True
    )
    for ax, generator in zip(np.atleast_1d(axes), generators, strict=True):
        on = results[results[GENERATOR] == generator]
        for solver, runs in on.groupby("solver_name"):
            curve = runs.groupby("stop_val")[["time", "suboptimality"]].median()
            ax.loglog(
                curve["time"],
                np.maximum(curve["suboptimality"], 1e-14),
                marker="o",
                markersize=3,
                label=solver,
            )
        ax.axhline(tol, color="grey", linestyle=":", linewidth=1)
        ax.set_title(generator)
        ax.set_xlabel("time (s)")
    np.atleast_1d(axes)[0].set_ylabel("relative suboptimality")
    np.atleast_1d(axes)[-1].legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="the .parquet file of 'benchopt run'")
    parser.add_argument("--tol", type=float, default=1e-6)
    parser.add_argument("--figure", help="write the suboptimality curves here")
    args = parser.parse_args()
    results = pd.read_parquet(args.results)
    table = ranking(results, args.tol)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    if args.figure:
        plot(results, args.tol, args.figure)


if __name__ == "__main__":
    main()
