"""The benchmark harness: run learners on generated ground truth and rank them.

The subpackages follow the data flow of a study (see ``docs/architecture.md``),
split like benchopt's run generation, execution, results and reports:

* :class:`Benchmark` / :class:`BenchmarkResult` -- the study's parameters and its rows;
  :mod:`~skggm_bench.benchmark.config` -- presets and TOML files -> ``Benchmark``;
* ``plan`` -- the graph and model axes, shards, shipping the learners;
* ``run`` -- cells, fits and seeds, dispatch (joblib, dask) and the fork server
  that isolates each fit;
* ``results`` -- the result schema and the resumable SQLite store
  (:mod:`~skggm_bench.benchmark.results.store`);
* ``analysis`` -- rankings, intervals, rank shifts
  (:mod:`~skggm_bench.benchmark.analysis.leaderboard`);
* ``present`` -- findings, tables, figures
  (:mod:`~skggm_bench.benchmark.present.plotting`) and the HTML report
  (:mod:`~skggm_bench.benchmark.present.report`).
"""

from ._benchmark import DEFAULT_METRICS, Benchmark, BenchmarkResult, StudyError

__all__ = ["DEFAULT_METRICS", "Benchmark", "BenchmarkResult", "StudyError"]
