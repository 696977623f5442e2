"""The benchmark harness: run learners on generated ground truth and rank them.

The modules follow the data flow of a study (see ``docs/architecture.md``):

* :class:`Benchmark` / :class:`BenchmarkResult` -- the study's parameters and its rows;
* :mod:`~skggm_bench.benchmark.store` -- the resumable SQLite store of result rows;
* :mod:`~skggm_bench.benchmark.config` -- presets and TOML files -> ``Benchmark``;
* :mod:`~skggm_bench.benchmark.leaderboard` -- rankings, intervals, rank shifts;
* :mod:`~skggm_bench.benchmark.plotting` and :mod:`~skggm_bench.benchmark.report`
  -- figures and the HTML report.
"""

from ._benchmark import DEFAULT_METRICS, Benchmark, BenchmarkResult, StudyError

__all__ = ["DEFAULT_METRICS", "Benchmark", "BenchmarkResult", "StudyError"]
