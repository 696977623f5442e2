"""``BenchmarkResult``: the rows of a study, with its fingerprint and store."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from .analysis.leaderboard import DEFAULT_TIE_TOLERANCE
from .results._schema import Status

__all__ = ["BenchmarkResult"]


class BenchmarkResult:
    """The rows of a benchmark study, as a tidy pandas DataFrame.

    Returned by :meth:`Benchmark.run`; not meant to be built by hand.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per (generator, graph, data model, learner, density,
        n_features, n_samples, repeat).
    study : dict
        The study fingerprint (what the store checks on resume).
    store : str or None
        Path of the store the rows live in, or None for an in-memory run.
    n_computed : int
        Number of rows computed by this run (the others were already stored).
    tie_tolerance : float, default=1e-4
        The study's tie tolerance: the default of :meth:`leaderboard`.

    Attributes
    ----------
    frame : pandas.DataFrame
        The columns are described in ``docs/harness.md`` (and defined in one
        place, the harness's result schema): the grid coordinates (``graph``
        is the row's name on the graph axis); ``seed``
        (``make_ggm(..., random_state=seed)`` reproduces the row's data set) and
        the difficulty of the true graph (``n_edges``, ``n_added_edges``,
        ``min_edge_partial_correlation``, ``median_edge_partial_correlation``,
        ``max_non_edge_correlation``, ``condition_number``); one column per
        metric (NaN unless ``status == "ok"``, and where a metric is undefined,
        with the reason in ``message``); ``fit_time`` (seconds); ``status``
        (``"ok"``, ``"failed"``, ``"timeout"``, ``"crashed"``, ``"memory"``);
        ``message``; ``versions`` (JSON of the package versions).
    study : dict
        The study fingerprint.
    store : str or None
        The store path.
    n_computed : int
        Rows computed by the run that returned this result.

    Examples
    --------
    >>> from sklearn.covariance import GraphicalLasso
    >>> from skggm_bench.benchmark import Benchmark
    >>> from skggm_bench.generators import DiagonalDominance
    >>> result = Benchmark({"dd": DiagonalDominance()},
    ...                    {"glasso": GraphicalLasso(alpha=0.1)},
    ...                    n_features=8, n_samples=(50, 100), n_repeats=2,
    ...                    metrics=("f1", "shd"), random_state=0).run()
    >>> result
    BenchmarkResult(4 rows: 4 ok)
    >>> result.frame.groupby("n_samples")["status"].count().to_dict()
    {50: 2, 100: 2}
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        study: dict[str, Any],
        store: str | None = None,
        n_computed: int = 0,
        tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
    ) -> None:
        self.frame = frame
        self.study = study
        self.store = store
        self.n_computed = n_computed
        self.tie_tolerance = tie_tolerance

    def __repr__(self) -> str:
        counts = self.frame["status"].value_counts()
        parts = [f"{counts.get(Status.OK.value, 0)} ok"] + [
            f"{counts[status.value]} {status.value}"
            for status in Status
            if status is not Status.OK and counts.get(status.value, 0)
        ]
        return f"BenchmarkResult({len(self.frame)} rows: {', '.join(parts)})"

    def leaderboard(
        self, metric: str = "f1", by: Sequence[str] = ("density",), **kwargs: Any
    ) -> pd.DataFrame:
        """Rank the learners by ``metric`` (see ``analysis.leaderboard``).

        Parameters
        ----------
        metric : str, default="f1"
            A metric column of :attr:`frame`.
        by : sequence of str, default=("density",)
            Columns that define the scenarios the ranking is reported for.
        **kwargs
            Passed on to :func:`skggm_bench.benchmark.analysis.leaderboard.leaderboard`;
            ``tie_tolerance`` defaults to the study's.

        Returns
        -------
        pandas.DataFrame
            What :func:`skggm_bench.benchmark.analysis.leaderboard.leaderboard` returns.

        Examples
        --------
        >>> from sklearn.covariance import GraphicalLasso, LedoitWolf
        >>> from skggm_bench.benchmark import Benchmark
        >>> from skggm_bench.generators import DiagonalDominance
        >>> result = Benchmark({"dd": DiagonalDominance()},
        ...                    {"glasso": GraphicalLasso(alpha=0.1),
        ...                     "ledoit_wolf": LedoitWolf()},
        ...                    n_features=8, densities=0.3, n_samples=100,
        ...                    n_repeats=3, metrics=("f1",), random_state=0).run()
        >>> board = result.leaderboard("f1", by=("density",))
        >>> board[["learner", "position"]].to_dict("list")
        {'learner': ['glasso', 'ledoit_wolf'], 'position': [1, 2]}
        """
        from .analysis.leaderboard import leaderboard

        kwargs.setdefault("tie_tolerance", self.tie_tolerance)
        return leaderboard(self.frame, metric=metric, by=by, **kwargs)

    def plot(self, **kwargs: Any) -> Any:
        """Plot the results (see ``present.plotting.plot_results``).

        Parameters
        ----------
        **kwargs
            Passed on to :func:`skggm_bench.benchmark.present.plotting.plot_results`.

        Returns
        -------
        object
            What :func:`skggm_bench.benchmark.present.plotting.plot_results` returns.

        Examples
        --------
        >>> from sklearn.covariance import LedoitWolf
        >>> from skggm_bench.benchmark import Benchmark
        >>> from skggm_bench.generators import DiagonalDominance
        >>> result = Benchmark({"dd": DiagonalDominance()}, {"lw": LedoitWolf()},
        ...                    n_features=8, densities=(0.1, 0.3),
        ...                    n_samples=(50, 100), metrics=("tpr", "ppv"),
        ...                    random_state=0).run()
        >>> figures = result.plot(metrics="tpr")   # one figure per density
        >>> sorted(figures)
        [0.1, 0.3]
        """
        from .present.plotting import plot_results

        return plot_results(self.frame, **kwargs)
