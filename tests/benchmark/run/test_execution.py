"""The scheduler hands out the longest expected fit first, and learns the costs."""

import pytest

from skggm_bench.benchmark.run._execution import (
    Scheduler,
    backend_problem,
    known_backends,
)
from skggm_bench.benchmark.run._fits import Cell, Fit


def fits(learners, densities=(0.1, 0.3), sizes=(50, 200), repeats=2):
    return [
        Fit(Cell("g", "er", 20, density, repeat), "gaussian", n, learner)
        for learner in learners
        for density in densities
        for n in sizes
        for repeat in range(repeats)
    ]


def row(fit, seconds):
    return {
        "learner": fit.learner,
        "density": fit.cell.density,
        "n_samples": fit.n_samples,
        "n_features": fit.cell.n_features,
        "fit_time": seconds,
    }


def test_every_fit_is_handed_out_once():
    pending = fits(["a", "b", "c"])
    handed = list(Scheduler(pending))
    assert sorted(map(repr, handed)) == sorted(map(repr, pending))


def test_unmeasured_groups_first_then_the_longest_expected():
    scheduler = Scheduler(fits(["slow", "fast"]))
    # Exploration: the largest fit of each (learner, density) group, once each.
    first = [next(scheduler) for _ in range(4)]
    assert {(f.learner, f.cell.density) for f in first} == {
        (learner, d) for learner in ("slow", "fast") for d in (0.1, 0.3)
    }
    assert all(f.n_samples == 200 for f in first)
    # The slow learner costs 100 times more per unit of work, more at density 0.3.
    for fit in first:
        cost = {"slow": 1.0, "fast": 0.01}[fit.learner] * (1 + fit.cell.density)
        scheduler.record(row(fit, cost * fit.n_samples / 200))
    rest = list(scheduler)
    expected = [
        {"slow": 1.0, "fast": 0.01}[f.learner] * (1 + f.cell.density) * f.n_samples
        for f in rest
    ]
    assert expected == sorted(expected, reverse=True)  # longest first, to the end
    assert rest[0].learner == "slow" and rest[0].cell.density == 0.3


def test_failed_fits_teach_nothing():
    scheduler = Scheduler(fits(["a"]))
    fit = next(scheduler)
    scheduler.record(row(fit, float("nan")))
    assert scheduler._cost == {}


def test_backends_known_and_their_problems():
    assert {"loky", "threading", "dask"} <= set(known_backends())
    assert backend_problem("loky") is None
    assert "not a joblib backend" in backend_problem("spark")
    problem = backend_problem("ray")
    assert problem is None or "pip install ray" in problem


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_backend_that_cannot_stream_runs_with_any_n_jobs(n_jobs):
    # multiprocessing cannot return results as they finish: with one worker the
    # calling process runs the fits (streaming), with more they go in waves.
    from sklearn.covariance import LedoitWolf

    from skggm_bench.benchmark import Benchmark
    from skggm_bench.generators import DiagonalDominance

    frame = (
        Benchmark(
            {"dd": DiagonalDominance()},
            {"lw": LedoitWolf()},
            densities=(0.3,),
            n_features=6,
            n_samples=(30,),
            n_repeats=2,
            metrics=("f1",),
            random_state=0,
            n_jobs=n_jobs,
            backend="multiprocessing",
        )
        .run()
        .frame
    )
    assert frame.status.tolist() == ["ok", "ok"], frame.message.tolist()


def test_run_imports_nothing_of_the_plan_nor_private_names():
    # Running a fit is execution: run/ imports nothing of plan/ (the plan describes
    # fits, run/ runs them; docs/architecture.md), and no module of run/ imports a
    # name another module keeps private (what two share is public in a private
    # module both import).
    import ast
    from pathlib import Path

    import skggm_bench.benchmark.run as run

    problems = []
    for path in sorted(Path(run.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            module = "." * node.level + (node.module or "")
            if "plan" in module.split("."):
                problems.append(f"{path.name} imports {module}")
            private = [a.name for a in node.names if a.name.startswith("_")]
            if private and node.module != "__future__":
                problems.append(f"{path.name} imports {private} from {module}")
    assert problems == []
