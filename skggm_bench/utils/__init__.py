"""Private helpers shared by several modules of skggm-bench.

Nothing here is public API: the modules below hold numerics that the generators,
the data pipeline, the metrics and the learners would otherwise each re-implement.
"""
