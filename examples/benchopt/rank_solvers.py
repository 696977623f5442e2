"""Rank the solvers of a ``benchopt run`` on skggm-bench data, per generator.

In benchopt's terms: a solver's suboptimality at a time is its objective minus the
optimum, relative to the optimum -- here the best objective a solver *ends* at on
that dataset, and iterates below it are counted as invalid (see
:func:`suboptimality`). Solvers are ranked by the time they take to reach a
suboptimality of ``--tol`` (median over the repetitions; never reached ranks last),
and each row also gives the F1 of the graph the solver ends with against the true
graph of the skggm-bench dataset.
It reads the results of this benchmark and of benchopt's graphical-lasso benchmark
(``benchmark_graphical_lasso``, whose F1 column is ``objective_F1_score``) run with
the dataset of ``datasets/skggm.py``.

    benchopt run examples/benchopt --no-plot -n 15 -r 3 --output runs/glasso.parquet
    python examples/benchopt/rank_solvers.py runs/glasso.parquet --figure ranks.png

docs/harness.md gives the run of benchmark_graphical_lasso behind its figure.
"""

import argparse

import numpy as np
import pandas as pd

GENERATOR = "p_dataset_generator"
# The F1 column of this benchmark, then of benchmark_graphical_lasso.
F1_COLUMNS = ("objective_f1", "objective_F1_score")


def suboptimality(results: pd.DataFrame) -> pd.DataFrame:
    """The results with ``suboptimality`` relative to the optimum per dataset.

    The optimum is the best objective at which a solver *ends* (benchopt takes the
    best objective anywhere, which an iterate outside the domain can undercut: an
    objective that ignores the sign of ``det(Theta)`` scores some non positive
    definite matrices below the optimum). An iterate more than ``1e-9`` below it
    is marked ``invalid``.
    """
    final = (
        results.sort_values("stop_val")
        .groupby([GENERATOR, "solver_name", "idx_rep"])["objective_value"]
        .last()
    )
    best = final.groupby(GENERATOR).min()
    optimum = results[GENERATOR].map(best)
    relative = (results["objective_value"] - optimum) / np.abs(optimum)
    return results.assign(suboptimality=relative, invalid=relative < -1e-9)


def ranking(results: pd.DataFrame, tol: float) -> pd.DataFrame:
    """Per generator and solver: time to ``tol``, its rank, and the final F1."""
    results = suboptimality(results)
    f1 = next(c for c in F1_COLUMNS if c in results.columns)
    rows = []
    for (generator, solver), runs in results.groupby([GENERATOR, "solver_name"]):
        valid = runs[~runs["invalid"]]
        reached = valid[valid["suboptimality"] <= tol]
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
                "invalid_iterates": int(runs["invalid"].sum()),
                "f1": float(last[f1].median()),
            }
        )
    table = pd.DataFrame(rows)
    table["rank"] = (
        table.groupby("generator")["time_to_tol"].rank(method="min").astype(int)
    )
    return table.sort_values(["generator", "rank", "solver"]).reset_index(drop=True)


def _label(solver: str) -> str:
    """A solver's name without the parameters that are off (``x=False``)."""
    name, _, rest = solver.partition("[")
    kept = [p for p in rest.rstrip("]").split(",") if p and not p.endswith("=False")]
    return f"{name}[{','.join(kept)}]" if kept else name


def plot(results: pd.DataFrame, tol: float, path: str) -> None:
    """Suboptimality against time, one panel per generator, one colour per solver.

    A solver with results under one generator but not another (it raised there:
    benchopt records no result) is named in the panel where it has none.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = suboptimality(results)
    generators = sorted(results[GENERATOR].unique())
    solvers = sorted(results["solver_name"].unique())
    colours = dict(zip(solvers, plt.cm.tab10.colors, strict=False))
    figure, axes = plt.subplots(
        1, len(generators), figsize=(5.5 * len(generators), 4.4), sharey=True
    )
    axes = np.atleast_1d(axes)
    for ax, generator in zip(axes, generators, strict=True):
        on = results[results[GENERATOR] == generator]
        for solver, runs in on.groupby("solver_name"):
            curve = (
                runs[~runs["invalid"]]
                .groupby("stop_val")[["time", "suboptimality"]]
                .median()
            )
            ax.loglog(
                curve["time"],
                np.maximum(curve["suboptimality"], 1e-14),
                marker="o",
                markersize=3,
                color=colours[solver],
            )
        missing = sorted(set(solvers) - set(on["solver_name"]))
        if missing:
            ax.text(
                0.02,
                0.03,
                "no result (raised): " + ", ".join(_label(m) for m in missing),
                transform=ax.transAxes,
                fontsize=8,
            )
        ax.axhline(tol, color="grey", linestyle=":", linewidth=1)
        ax.set_title(generator)
        ax.set_xlabel("time (s)")
    axes[0].set_ylabel("relative suboptimality")
    handles = [
        plt.Line2D([], [], color=colours[s], marker="o", markersize=3) for s in solvers
    ]
    figure.legend(
        handles,
        [_label(s) for s in solvers],
        loc="lower center",
        ncol=len(solvers),
        fontsize=8,
        frameon=False,
    )
    figure.tight_layout(rect=(0, 0.07, 1, 1))
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
