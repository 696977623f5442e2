"""``Benchmark``: a study's parameters, their checks, and its run; its result.

The user guide is ``docs/harness.md``; the shape of the harness is in
``docs/architecture.md``. In short:

Paired design
    For each (graph, n_features, density, repeat) one graph is drawn and shared by
    all generators, and one standard normal noise matrix is drawn and shared by all
    generators, data models and sample sizes; every learner sees the very same data
    set. Differences between learners, generators, data models and sample sizes are
    therefore paired comparisons (common random numbers). The data pipeline is the
    one of :func:`skggm_bench.datasets.make_ggm`: ``make_ggm(...,
    random_state=row.seed)`` reproduces a row's data set.

Isolation
    Every draw and every fit runs in a child process of its worker, with an
    optional deadline (``timeout``) and memory limit (``memory_limit``): whatever
    a learner or a generator does, it becomes a row with a status and a message,
    and the study goes on (``_isolation.py``).

Results
    Rows are committed to the
    :class:`~skggm_bench.benchmark.results.store.ResultStore` as
    they finish; an interrupted run loses only the fits in flight, and running the
    same study again resumes it. The columns are defined in ``_schema.py``.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sklearn.utils import Bunch
from sklearn.utils._param_validation import StrOptions, validate_parameter_constraints

from ..datasets._make_ggm import data_bunch
from ..datasets._pipeline import draw_graph, draw_latent, draw_model, observe
from ..utils._validation import Interval
from ._result import BenchmarkResult
from ._running import run_study
from .analysis.leaderboard import DEFAULT_TIE_TOLERANCE
from .plan._checks import (
    DEFAULT_DATA_MODEL,
    MAX_FITS,
    MAX_N_FEATURES,
    MAX_TIMEOUT,
    StudyError,
    check_densities,
    check_execution,
    check_graphs,
    check_integers,
    check_models,
    check_named,
)
from .plan._graphs import realised_density
from .plan._grid import Grid, fingerprint, make_grid
from .results.store import ResultStore
from .run._related import draw_related_cell
from .run._seeding import cell_seed, check_study_random_state

# check_execution: what the command line checks its --n-jobs and --backend with.
__all__ = [
    "DEFAULT_METRICS",
    "Benchmark",
    "BenchmarkResult",
    "StudyError",
    "check_execution",
]

#: Metrics computed when ``metrics`` is not given (names of the metric registry,
#: :data:`skggm_bench.metrics.METRICS`).
DEFAULT_METRICS: tuple[str, ...] = (
    "tpr",
    "ppv",
    "f1",
    "mcc",
    "shd",
    "roc_auc",
    "average_precision",
    "n_selected_edges",
)


class Benchmark:
    """Run structure learners on data from graphical model generators, over a grid.

    For every generator, graph, data model, number of variables, density, sample size
    and repeat, a data set with a known graph is drawn and every learner is fitted on it
    and scored. The design is paired and seeded from one ``SeedSequence``, and every
    draw and fit is isolated in a child process; see the module docstring and
    ``docs/harness.md``.

    Parameters
    ----------
    generators : dict of str to GraphicalModelGenerator
        Named matrix samplers (any estimator-like object with ``fit(graph)`` and
        ``sample(n)``; it is cloned, and its ``random_state`` set per cell). The
        true graph of a row is the support of the matrix the generator drew.
    learners : dict of str to estimator
        Named scikit-learn estimators -- a Pipeline and a search (e.g.
        ``GridSearchCV``) included -- fitted as ``fit(X)`` on clones. The graph and
        the matrices are read from the fitted learner with the estimator protocol of
        :mod:`skggm_bench.metrics`. A learner's ``random_state`` (nested ones
        included) that is ``None`` gets a seed derived from the row.
    graph : str, callable or dict, default="erdos_renyi"
        The graph axis. A family of :data:`skggm_bench.datasets.GRAPH_FAMILIES`,
        or a function ``graph(n_features, density, random_state, **graph_params)``
        returning a graph in any form :func:`skggm_bench.graphs.check_adjacency`
        accepts: one graph, named by the family (or the function's ``__name__``)
        in the ``graph`` column. A dict ``{name: spec}`` makes several, each a
        family name, a function, or a dict ``{"family": name or function,
        **parameters}`` (then ``graph_params`` must be None). A graph whose
        structure is fixed (``hub``, ``chain``, ..., or e.g. ``band`` with a
        ``bandwidth``) ignores ``densities``: it is drawn once per
        (n_features, repeat), and its rows' ``density`` is its number of edges
        over ``p (p - 1) / 2``, which must not depend on the seed.
    densities : float or sequence of float or None, default=(0.1,)
        Fractions of the node pairs that are edges, in [0, 1] (see
        :func:`skggm_bench.datasets.make_ggm`), for the graphs that follow a
        density. ``None`` means the family's default; such rows have a NaN
        density.
    n_features : int or sequence of int, default=50
        Numbers of variables ``p`` (at least 2).
    n_samples : int or sequence of int or None, default=None
        Sample sizes, the same for every ``n_features``; ``None`` means
        ``(100,)``, unless ``sample_size_ratios`` is given. The data set of size
        ``n`` is the first ``n`` rows of the largest one of its cell.
    sample_size_ratios : float or sequence of float or None, default=None
        Sample sizes relative to the number of variables, instead of
        ``n_samples`` (give one or the other): the sizes at ``n_features=p`` are
        ``ratio * p`` rounded to the nearest integer, halves up. E.g.
        ``n_features=(50, 200), sample_size_ratios=(0.5, 1, 2)`` gives n of 25,
        50 and 100 at p=50 and 100, 200 and 400 at p=200, and no other. Rows
        carry the ``n_samples`` they were drawn with; the study records the
        ratios.
    n_repeats : int, default=1
        Independent repeats of every cell (new graph, matrices and noise). A
        study has at most 1,000,000 fits.
    data_models : dict of str to data model, or None, default=None
        Named ways of observing the latent Gaussian data (objects with an
        ``observe(latent, covariance)`` method, see ``docs/data_models.md``); every
        learner sees the same latent draw under each of them. ``None`` means the
        Gaussian data as drawn, under the name ``"gaussian"``.
    models : dict of str to model spec, list of str, or None, default=None
        The model axis: named kinds of model, each a kind or a dict of a
        ``"kind"`` and its parameters. ``"single"`` (what ``None`` means): one
        graph and one matrix per data set. ``{"kind": "joint", "n_classes": K,
        "shared_fraction": ..., "similarity": ...}``, ``{"kind":
        "time_varying", "n_times": T, "change_rate": ..., "smoothness": ...,
        "window": ...}``: K classes or T time points drawn around each generator
        (:class:`~skggm_bench.generators.JointGenerator`,
        :class:`~skggm_bench.generators.TimeVaryingGenerator`), ``n_samples``
        rows per group, learners fitted with ``fit(X, y)`` (``y``: the group of
        each row) and scored per group, averaged (and on the changes between
        groups: ``change_tpr``, ``change_ppv``); ``{"kind": "latent",
        "n_latent": h, "n_attached": ...}``: hidden variables
        (:class:`~skggm_bench.generators.LatentGenerator`), learners fitted with
        ``fit(X)``, scored against the graph of the sparse part (and ``rank``,
        ``rank_error``, ``sparse_relative_error``). A related model's rows name
        their generator ``"<model>/<generator>"``; see
        ``docs/related_models.md``. Related models are concentration graphs
        observed as drawn (no ``data_models``).
    model : {"concentration", "covariance"}, default="concentration"
        Role of the generated matrix: the precision (the graph is a conditional
        independence graph) or the covariance (a marginal independence graph).
    metrics : sequence of str, default=DEFAULT_METRICS
        Names of the metric registry :data:`skggm_bench.metrics.METRICS`: edge
        metrics (``"tpr"``, ``"ppv"``, ``"fpr"``, ``"f1"``, ``"mcc"``, ``"shd"``),
        edge-score metrics (``"roc_auc"``, ``"average_precision"``) and matrix
        losses (``"frobenius_loss"``, ``"spectral_loss"``, ``"kl_divergence"``,
        ``"stein_loss"`` of ``covariance_`` against the true covariance;
        ``"precision_frobenius_loss"`` of ``precision_``), or their aliases. Each
        becomes a column holding the raw value (lower is better for losses).
    n_jobs : int or None, default=None
        Parallel workers, as in joblib (``None``: 1 unless a surrounding
        ``joblib.parallel_config`` says otherwise; ``-1``: all cores); not 0, at
        most 4096 in absolute value.
    backend : str or None, default="loky"
        joblib backend: ``"loky"`` (processes), ``"threading"``, ``"dask"`` (needs
        a ``dask.distributed.Client`` in this process) or any registered backend;
        ``None`` uses the active ``joblib.parallel_config``.
    store : str, os.PathLike, ResultStore or None, default=None
        Where rows are written as they finish. ``None`` keeps them in memory; a
        path (one SQLite file per study) persists them, and running the same study
        again skips the stored rows. A store holding a different study raises
        :class:`~skggm_bench.benchmark.results.store.StudyMismatchError`.
    random_state : int, numpy SeedSequence, RandomState, Generator or None, \
default=None
        Entropy of the study's SeedSequence. ``None`` draws fresh entropy, except
        when resuming a stored study, whose entropy is reused.
    timeout : float or None, default=None
        Seconds allowed to each fit (its scoring included) and to each draw of a
        data set; at the deadline the process running it is stopped and the row
        gets status ``"timeout"`` (``"failed"`` with ``data generation failed``
        for a draw). At most 10**6 s (about 11.6 days).
    memory_limit : int or None, default=None
        Bytes each fit or draw may allocate, from 1 MiB to
        2**60 bytes; beyond it the row gets status
        ``"memory"``.
    isolate : bool, default=True
        Run draws and fits in child processes (see Notes). ``False`` runs them in
        the worker itself, e.g. to stop inside a learner with a debugger; then
        ``timeout`` and ``memory_limit`` are not available and a crash ends the run.
    graph_params : dict or None, default=None
        Extra parameters of a single graph family (e.g. ``{"n_clusters": 3}`` for
        ``"cluster"``) or keyword arguments of the graph callable; with a dict
        of graphs, each spec carries its own.
    verbose : int, default=0
        joblib's verbosity.
    shard : tuple of (int, int) or None, default=None
        ``(i, k)``: run only the i-th (counting from 1) of k deterministic parts
        of the study's fits, balanced by expected cost, e.g. one job of a batch
        scheduler's array. The k parts cover the study exactly once; each job
        writes its own store (which it resumes like any other), and
        :func:`~skggm_bench.benchmark.results.store.merge_stores` joins them into the
        store of one uninterrupted run. The shard is not part of the study: all
        k stores hold the same study. ``run`` returns the rows of its store.
    tie_tolerance : float, default=1e-4
        Relative difference within which two values of a metric in one block
        rank as a tie (:func:`skggm_bench.benchmark.analysis.leaderboard.leaderboard`);
        the default of :meth:`BenchmarkResult.leaderboard`. It changes no row,
        so it is not part of the stored study.

    Attributes
    ----------
    entropy_ : int
        The study entropy used by the last :meth:`run` (set by it); with it and the
        grid, every row's data set can be regenerated (:meth:`dataset`).

    See Also
    --------
    skggm_bench.benchmark.results.store.ResultStore : The results store.
    skggm_bench.datasets.make_ggm : One data set with a known graph.

    Notes
    -----
    Whatever a learner or a generator does, it becomes a row: one that raises
    (``SystemExit`` and ``KeyboardInterrupt`` included) or exposes nothing usable
    gives status ``"failed"``; one that runs past ``timeout``, in Python or in C,
    ``"timeout"``; one whose process dies (a segmentation fault, ``os._exit``)
    ``"crashed"``; one that exceeds ``memory_limit`` or is killed by the operating
    system for memory, ``"memory"``. A draw that fails gives ``"failed"`` rows
    with ``data generation failed: ...`` for every fit of its data set. Each fit
    gets its own copy of its data. The run goes on, and a resume never re-runs a
    fit that has a row. How this is done (a forked child process per worker,
    stopped at deadlines and replaced) is explained in ``docs/harness.md``; it
    needs ``os.fork`` (Linux, macOS).

    Interrupting :meth:`run` (Ctrl-C) keeps every committed row and re-raises
    ``KeyboardInterrupt``; the next run of the same study resumes.

    Examples
    --------
    >>> from sklearn.covariance import GraphicalLasso, LedoitWolf
    >>> from skggm_bench.benchmark import Benchmark
    >>> from skggm_bench.generators import DiagonalDominance, PartialOrthogonalization
    >>> bench = Benchmark(
    ...     generators={"dd": DiagonalDominance(),
    ...                 "port": PartialOrthogonalization()},
    ...     learners={"glasso": GraphicalLasso(alpha=0.1),
    ...               "ledoit_wolf": LedoitWolf()},
    ...     densities=(0.2, 0.4), n_features=10, n_samples=200, n_repeats=2,
    ...     metrics=("tpr", "ppv"), random_state=0)
    >>> frame = bench.run().frame
    >>> frame.shape
    (16, 23)
    >>> # LedoitWolf's precision is dense: every pair is an edge, every edge is found
    >>> frame.loc[frame.learner == "ledoit_wolf", "tpr"].unique()
    array([1.])
    >>> data = bench.dataset("dd", density=0.2, repeat=0, n_samples=200)
    >>> data.X.shape, data.adjacency.shape
    ((200, 10), (10, 10))
    """

    _parameter_constraints: dict[str, Any] = {
        "n_repeats": [Interval(numbers.Integral, 1, MAX_FITS, closed="both")],
        "model": [StrOptions({"concentration", "covariance"})],
        "timeout": [Interval(numbers.Real, 0, MAX_TIMEOUT, closed="right"), None],
        "graph_params": [dict, None],
        "isolate": ["boolean"],
        "verbose": ["verbose"],
        "tie_tolerance": [Interval(numbers.Real, 0, 1, closed="left")],
        # Each ratio is checked, naming its index, with the grid.
        "sample_size_ratios": [numbers.Real, "array-like", None],
    }

    def __init__(
        self,
        generators: Mapping[str, Any],
        learners: Mapping[str, Any],
        *,
        graph: str | Callable[..., Any] | Mapping[str, Any] = "erdos_renyi",
        densities: Any = (0.1,),
        n_features: Any = 50,
        n_samples: Any = None,
        sample_size_ratios: Any = None,
        n_repeats: int = 1,
        data_models: Mapping[str, Any] | None = None,
        models: Any = None,
        model: str = "concentration",
        metrics: Sequence[str] = DEFAULT_METRICS,
        n_jobs: int | None = None,
        backend: str | None = "loky",
        store: Any = None,
        random_state: Any = None,
        timeout: float | None = None,
        memory_limit: int | None = None,
        isolate: bool = True,
        graph_params: Mapping[str, Any] | None = None,
        verbose: int = 0,
        shard: tuple[int, int] | None = None,
        tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
    ) -> None:
        self.generators = generators
        self.learners = learners
        self.graph = graph
        self.densities = densities
        self.n_features = n_features
        self.n_samples = n_samples
        self.sample_size_ratios = sample_size_ratios
        self.n_repeats = n_repeats
        self.data_models = data_models
        self.models = models
        self.model = model
        self.metrics = metrics
        self.n_jobs = n_jobs
        self.backend = backend
        self.store = store
        self.random_state = random_state
        self.timeout = timeout
        self.memory_limit = memory_limit
        self.isolate = isolate
        self.graph_params = graph_params
        self.verbose = verbose
        self.shard = shard
        self.tie_tolerance = tie_tolerance

    def __repr__(self) -> str:
        return (
            f"Benchmark(generators={list(self.generators)}, "
            f"learners={list(self.learners)}, graph={self.graph!r}, "
            f"densities={self.densities!r}, n_features={self.n_features!r}, "
            f"n_samples={self.n_samples!r}, "
            + (
                ""
                if self.sample_size_ratios is None
                else f"sample_size_ratios={self.sample_size_ratios!r}, "
            )
            + f"n_repeats={self.n_repeats!r})"
        )

    # -- validation ------------------------------------------------------------------

    def validate(self) -> None:
        """Check the whole study before anything runs; raise on the first problem.

        Checks every parameter; draws each graph of the grid once, so that an
        unreachable density or a bad graph parameter fails now; and fits every
        generator on each of these graphs (a dry probe), so that a generator that
        cannot sample on the study's graphs (e.g. ``UniformChordal`` on a
        non-chordal family) is reported with both names before any fit runs.

        Raises
        ------
        StudyError
            Naming the parameter at fault (``error.parameter``) and, for
            generators, learners and data models, the entry (``error.entry``).

        Examples
        --------
        >>> from skggm_bench.generators import UniformChordal
        >>> from sklearn.covariance import LedoitWolf
        >>> bench = Benchmark({"uniform": UniformChordal()}, {"lw": LedoitWolf()},
        ...                   densities=0.3, n_features=20)
        >>> bench.validate()
        Traceback (most recent call last):
        ...
        skggm_bench.benchmark.StudyError: generator 'uniform' cannot \
sample on graph='erdos_renyi' with n_features=20, density=0.3: ...
        """
        self._validate()

    def _validate(self) -> Grid:
        for name, constraints in self._parameter_constraints.items():
            try:
                validate_parameter_constraints(
                    {name: constraints},
                    {name: getattr(self, name)},
                    caller_name="Benchmark",
                )
            except ValueError as exc:  # sklearn's InvalidParameterError
                raise StudyError(name, str(exc)) from None
        return make_grid(self)

    # What a store records of the study (``plan._grid.fingerprint``); scripts that
    # compare studies' fingerprints call it on a Benchmark.
    _fingerprint = staticmethod(fingerprint)

    # -- running ---------------------------------------------------------------------

    def run(
        self,
        progress: Callable[[int, int], Any] | None = None,
        *,
        against: str | os.PathLike[str] | ResultStore | None = None,
    ) -> BenchmarkResult:
        """Run every fit of the grid that is not stored yet; return all the rows.

        Parameters
        ----------
        progress : callable or None, default=None
            Called as ``progress(done, total)`` (numbers of rows) once before the
            first fit, with the rows already stored, and after every fit.
        against : str, os.PathLike, ResultStore or None, default=None
            A published study's store, to add this study's learners to it without
            re-running its own. This study's data side (generators, graphs, data
            models, densities, sizes, repeats, ``random_state``; None takes the
            published seed) and its metrics, timeout and memory limit must be the
            published study's, and a learner of both the same estimator; only the
            learners the published study lacks are run, each row checked to carry
            the seed and data hash of the published rows of its data set. ``store``
            then receives the extended study: the published rows and the new ones
            (the published store is never changed, so ``store`` must be another
            path). ``shard`` splits the new learners' fits.

        Returns
        -------
        BenchmarkResult
            All the rows of the grid (stored earlier or computed now), sorted in
            grid order: models, generators, graphs, data models and learners as
            given, then densities, n_features, n_samples and repeats.

        Raises
        ------
        StudyError
            For an invalid study, before anything runs.
        StudyMismatchError
            If ``store`` holds a different study; with ``against``, if this
            study's data side or judging differs from the published one (naming
            the first difference), or a new row's data set is not the published
            one (naming the row).
        KeyboardInterrupt
            Re-raised after an interruption; the rows committed so far are kept.

        Examples
        --------
        >>> from sklearn.covariance import GraphicalLasso
        >>> from skggm_bench.generators import DiagonalDominance
        >>> calls = []
        >>> result = Benchmark({"dd": DiagonalDominance()},
        ...                    {"glasso": GraphicalLasso(alpha=0.2)},
        ...                    n_features=8, n_samples=50, n_repeats=3,
        ...                    random_state=0).run(progress=lambda *a: calls.append(a))
        >>> calls[0], calls[-1]
        ((0, 3), (3, 3))

        Adding a learner to a published study runs that learner alone:

        >>> import tempfile, pathlib
        >>> from sklearn.covariance import LedoitWolf
        >>> tmp = pathlib.Path(tempfile.mkdtemp())
        >>> study = dict(generators={"dd": DiagonalDominance()}, n_features=8,
        ...              n_samples=50, n_repeats=3, random_state=0)
        >>> _ = Benchmark(learners={"glasso": GraphicalLasso(alpha=0.2)},
        ...               store=tmp / "published.sqlite", **study).run()
        >>> extended = Benchmark(learners={"lw": LedoitWolf()},
        ...                      store=tmp / "extended.sqlite", **study).run(
        ...     against=tmp / "published.sqlite")
        >>> extended.n_computed, sorted(extended.frame.learner.unique())
        (3, ['glasso', 'lw'])
        """
        if progress is not None and not callable(progress):
            raise TypeError(
                f"progress must be a callable(done, total), got {progress!r}"
            )
        return run_study(self, self._validate(), progress, against)

    def dataset(
        self,
        generator: str,
        *,
        density: float | None,
        repeat: int,
        n_samples: int,
        n_features: int | None = None,
        data_model: str | None = None,
        graph: str | None = None,
        model: str | None = None,
    ) -> Bunch:
        """Re-create the data set behind a result row (e.g. to debug a failure).

        Parameters
        ----------
        generator : str
            A key of ``generators``.
        density : float or None
            The row's density (None for families without one).
        repeat : int
            The row's repeat.
        n_samples : int
            The row's sample size.
        n_features : int or None, default=None
            The row's ``n_features``; may be omitted when the grid has one value.
        data_model : str or None, default=None
            The row's data model; may be omitted when the study has one.
        graph : str or None, default=None
            The row's graph (a name of the graph axis); may be omitted when the
            study has one.
        model : str or None, default=None
            The row's model (a name of the model axis); may be omitted when the
            study has one. ``generator`` is then the generator's own name.

        Returns
        -------
        sklearn.utils.Bunch
            The same keys as :func:`skggm_bench.datasets.make_ggm` returns:
            ``X``, the true ``adjacency`` (the support of the drawn matrix),
            ``covariance``, ``precision``, ``seed`` (the row's seed), ... For a
            related model: ``X``, ``y`` (the group of each row, None for a latent
            model), ``adjacency``, ``precision`` and ``covariance`` of shape
            (K, p, p), ``sparse`` and ``low_rank`` (latent), ``seed``: the data of
            ``make_joint_ggm`` (``make_time_varying_ggm``, ``make_latent_ggm``)
            with ``random_state=seed``.

        Raises
        ------
        ValueError
            If the study entropy is unknown (set an int ``random_state`` or call
            :meth:`run` first), or a coordinate is not in the grid.

        Examples
        --------
        >>> from skggm_bench.generators import DiagonalDominance
        >>> bench = Benchmark({"dd": DiagonalDominance()}, {}, n_features=6,
        ...                   random_state=0)
        >>> bench.dataset("dd", density=0.1, repeat=0, n_samples=20).X.shape
        (20, 6)
        """
        entropy = getattr(self, "entropy_", None)
        if entropy is None:
            entropy = check_study_random_state(self.random_state)
        if entropy is None:
            raise ValueError(
                "the study entropy is unknown: set random_state to an int, or call "
                "run() first"
            )
        generators = check_named(
            self.generators, "generators", ("fit", "sample", "get_params"), "{}"
        )
        if generator not in generators:
            raise ValueError(
                f"unknown generator {generator!r}; have {list(generators)}"
            )
        data_models = (
            {DEFAULT_DATA_MODEL: None}
            if self.data_models is None
            else check_named(self.data_models, "data_models", ("observe",), "{}")
        )
        if data_model is None:
            if len(data_models) != 1:
                raise ValueError(
                    f"the study has data models {list(data_models)}: say which one"
                )
            data_model = next(iter(data_models))
        if data_model not in data_models:
            raise ValueError(
                f"unknown data model {data_model!r}; have {list(data_models)}"
            )
        if n_features is None:
            sizes = check_integers(self.n_features, "n_features", 2, MAX_N_FEATURES)
            if len(sizes) != 1:
                raise ValueError(f"the grid has n_features {sizes}: say which one")
            n_features = sizes[0]
        graphs = check_graphs(self.graph, self.graph_params)
        if graph is None:
            if len(graphs) != 1:
                raise ValueError(f"the study has graphs {list(graphs)}: say which one")
            graph = next(iter(graphs))
        if graph not in graphs:
            raise ValueError(f"unknown graph {graph!r}; have {list(graphs)}")
        entry = graphs[graph]
        density = check_densities((density,))[0]
        if not entry.follows_density:
            realised = realised_density(entry, int(n_features))
            if density is not None and density != realised:
                raise ValueError(
                    f"graph {graph!r} has a fixed structure: its rows with "
                    f"n_features={n_features} have density {realised}, not {density}"
                )
            density = None  # fixed structures are drawn without a density
        seed = cell_seed(entropy, graph, int(n_features), density, int(repeat))
        drawn = draw_graph(
            entry.family, int(n_features), density, dict(entry.params), seed
        )
        models = check_models(self.models, data_models, self.model)
        if model is None:
            if len(models) != 1:
                raise ValueError(f"the study has models {list(models)}: say which one")
            model = next(iter(models))
        if model not in models:
            raise ValueError(f"unknown model {model!r}; have {list(models)}")
        if not models[model].is_single:
            related = draw_related_cell(
                models[model],
                drawn.adjacency,
                generators[generator],
                int(n_samples),
                seed,
            )
            X, y = related.data(int(n_samples))
            return Bunch(
                X=X,
                y=y,
                adjacency=related.adjacency,
                precision=related.precision,
                covariance=related.covariance,
                sparse=related.sparse,
                low_rank=related.low_rank,
                seed=seed,
            )
        truth = draw_model(drawn.adjacency, generators[generator], self.model, seed)
        latent = draw_latent(truth, int(n_samples), seed)
        X, observer = observe(latent, truth.covariance, data_models[data_model], seed)
        return data_bunch(drawn, truth, X, latent=None, data_model=observer, seed=seed)
