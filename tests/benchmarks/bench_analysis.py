"""The analysis behind ``skggm-bench publish`` on a 100,000-row store: CPU time.

Run from the repository root (not a test):

    .venv/bin/python tests/benchmarks/bench_analysis.py [--rows 100000]
        [--save DIR] [--against DIR]

Builds the synthetic store of ``bench_publish.py`` and times, on one BLAS thread,
what publishing a version computes from its rows: ``analyse`` (leaderboards,
critical differences, comparisons) and the chart data (a leaderboard per
scenario and metric), both with the command's 1000 bootstrap replicates.
``--save DIR`` pickles every table they return; ``--against DIR`` checks that
they equal those saved (exactly: ``assert_frame_equal`` with ``check_exact``,
``==`` on the chart data), e.g. by another version of the code:

    PYTHONPATH=OLD .venv/bin/python tests/benchmarks/bench_analysis.py --save before
    .venv/bin/python tests/benchmarks/bench_analysis.py --against before
"""

import argparse
import dataclasses
import pickle
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from bench_publish import make_store  # (a script's folder is on sys.path)
from threadpoolctl import threadpool_limits

from skggm_bench.benchmark.analysis._analysis import analyse
from skggm_bench.benchmark.publish import _content
from skggm_bench.benchmark.results.store import ResultStore


def tables(value, name, into):
    """Every table of an :class:`Analysis` (nested comparisons included), by name."""
    if dataclasses.is_dataclass(value):
        for field in dataclasses.fields(value):
            tables(getattr(value, field.name), f"{name}.{field.name}", into)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            tables(item, f"{name}[{index}]", into)
    else:
        into[name] = value
    return into


def differences(saved, outputs):
    for name, before in saved.items():
        after = outputs[name]
        if isinstance(before, pd.DataFrame):
            try:
                pd.testing.assert_frame_equal(before, after, check_exact=True)
            except AssertionError as error:
                yield f"{name}: {str(error).splitlines()[0]}"
            if before.attrs != after.attrs:
                yield f"{name}: attrs differ"
        elif before != after:
            yield f"{name} differs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--against", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "large.sqlite"
        make_store(store, args.rows)
        with ResultStore(store, read_only=True) as opened:
            frame, study = opened.frame(), opened.metadata()["study"]
    with threadpool_limits(1):
        start = time.process_time()
        analysis = analyse(frame, "f1", n_bootstrap=1000)
        middle = time.process_time()
        metrics = _content.chart_metrics(frame, study, analysis.metric)
        chart = _content.chart_data(
            frame,
            study,
            metrics,
            n_bootstrap=1000,
            tie_tolerance=analysis.tie_tolerance,
        )
        end = time.process_time()
    print(f"rows: {len(frame)}")
    print(f"analyse: {middle - start:.2f} s CPU; chart data: {end - middle:.2f} s CPU")
    outputs = tables(analysis, "analysis", {"chart": chart})
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
        (args.save / f"{args.rows}.pickle").write_bytes(pickle.dumps(outputs))
    if args.against:
        saved = pickle.loads((args.against / f"{args.rows}.pickle").read_bytes())
        found = [f"{name} is not computed" for name in saved if name not in outputs]
        found += [f"{name} is new" for name in outputs if name not in saved]
        found += list(differences(saved, outputs)) if not found else []
        print("\n".join(found) or f"all {len(saved)} outputs equal those saved")
        sys.exit(bool(found))


if __name__ == "__main__":
    main()
