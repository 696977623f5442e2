"""skggm-bench: random Gaussian graphical models and structure-learning benchmarks."""

__version__ = "0.1.0.dev0"
