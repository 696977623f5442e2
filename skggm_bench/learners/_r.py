"""R functions as learners: the bridge to an embedded R (rpy2) and :class:`RLearner`.

Everything that touches R lives here: finding R, rpy2 and R packages (with the
command that installs what is missing), starting the embedded R once per process,
moving the data in and the estimates out, seeding R's random number generator,
turning an R error into a Python exception with R's own message, and the versions
of R, of its packages and of its BLAS.

R in the benchmark harness
    The harness runs each fit in a child forked from a per-worker template
    (``benchmark/run/_isolation.py``). R is an embedded library, not a process: it is
    started, with the learner's packages loaded, in the template
    (:func:`start_r`, which the learner names in its
    ``__skggm_bench_process_setup__``), so every fit's child inherits a started
    R and pays only for its own call. An R error is an exception in the child (a
    ``failed`` row with R's message), a crash in R's compiled code kills the
    child (``crashed``), a hang is stopped at the deadline (``timeout``); R's
    session directory is removed when the template ends, and each fit's
    ``tempdir()`` is a fresh directory of its own (:func:`_fresh_r_tempdir`).

Versions and refusals are found with ``Rscript`` (the R that rpy2 embeds), so that
checking a study does not start R in the calling process.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import importlib.metadata
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Mapping, Sequence
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from ..utils._validation import Interval
from ._utils import validate_samples

__all__ = [
    "RError",
    "RLearner",
    "RUnavailableError",
    "r_seed",
    "r_unavailable",
    "r_versions",
    "start_r",
]

# The Debian package of each R package Debian ships (the others come from CRAN).
_DEBIAN_PACKAGES = {
    "huge": "r-cran-huge",
    "glasso": "r-cran-glasso",
    "BDgraph": "r-cran-bdgraph",
    "qgraph": "r-cran-qgraph",
    "corpcor": "r-cran-corpcor",
    "Matrix": "r-cran-matrix",
}
_RPY2_INSTALL = "pip install 'skggm-bench[r]'  (rpy2 >= 3.5, < 3.6 for R 4.2)"
_R_INSTALL = "apt-get install r-base-core  (or see https://cloud.r-project.org)"
# What the R function may return, by name (a bare matrix is ``returns``).
_MATRICES = (
    "precision",
    "covariance",
    "adjacency",
    "edge_scores",
    "partial_correlation",
)
# R's set.seed takes a 32-bit signed integer.
_R_SEED_BOUND = 2**31 - 1


class RUnavailableError(RuntimeError):
    """R, rpy2 or an R package a learner needs is missing; says how to install it."""


class RError(RuntimeError):
    """R signalled an error in a learner's function; the message is R's own."""


class RMemoryError(RError, MemoryError):
    """R could not allocate memory: a ``MemoryError`` too, so that the harness
    records the fit as ``memory`` (beyond ``memory_limit``), like Python's."""


# How R words an allocation failure (its own messages, untranslated in the C locale
# and in English ones).
_R_ALLOCATION_FAILURES = (
    "cannot allocate vector of size",
    "cannot allocate memory block",
    "vector memory exhausted",
    "memory exhausted",
)


def install_command(package: str) -> str:
    """The one command that installs R package ``package`` (Debian's if it has it)."""
    if package in _DEBIAN_PACKAGES:
        return f"apt-get install {_DEBIAN_PACKAGES[package]}"
    return f"Rscript -e 'install.packages(\"{package}\")'"


@functools.cache
def _rscript() -> str | None:
    """``Rscript`` of the R that rpy2 embeds: ``R_HOME``'s, else the ``PATH``'s.

    rpy2 finds R the same way (``R_HOME``, else ``R RHOME`` of the ``PATH``).
    """
    home = os.environ.get("R_HOME")
    if home:
        candidate = os.path.join(home, "bin", "Rscript")
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("Rscript")


_VERSIONS_SCRIPT = """\
args <- commandArgs(trailingOnly = TRUE)
blas <- tryCatch(sessionInfo()$BLAS, error = function(e) "")
out <- list(R = paste(R.version$major, R.version$minor, sep = "."),
            "R:BLAS" = if (length(blas) && nzchar(blas)) blas else
              unname(extSoftVersion()["BLAS"]))
for (p in args) out[[paste0("R:", p)]] <- tryCatch(
  as.character(utils::packageVersion(p)), error = function(e) "")
cat(sprintf("%s\\t%s", names(out), unlist(out)), sep = "\\n")
"""


@functools.cache
def _rpy2_problem() -> str | None:
    """Why rpy2 cannot load R's library here (tried in a fresh interpreter)."""
    if importlib.util.find_spec("rpy2") is None:
        return f"rpy2 is not installed; install it with: {_RPY2_INSTALL}"
    try:
        done = subprocess.run(
            [sys.executable, "-c", "import rpy2.rinterface"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"rpy2 cannot be imported: {exc}"
    if done.returncode:
        lines = done.stderr.strip().splitlines() or ["(no message)"]
        return (
            f"rpy2 {importlib.metadata.version('rpy2')} cannot load R: {lines[-1]}; "
            f"install a matching rpy2 with: {_RPY2_INSTALL}"
        )
    return None


@functools.cache
def _probe(packages: tuple[str, ...]) -> tuple[dict[str, str], str | None]:
    """Versions (R, its BLAS, each package) and why the learner cannot run, if so."""
    rscript = _rscript()
    if rscript is None:
        return {}, f"R is not installed (no Rscript); install it with: {_R_INSTALL}"
    problem = _rpy2_problem()
    if problem is not None:
        return {}, problem
    try:
        done = subprocess.run(
            [rscript, "--vanilla", "-e", _VERSIONS_SCRIPT, *packages],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {}, f"R does not run ({rscript}): {exc}"
    if done.returncode:
        return {}, f"R does not run ({rscript}): {done.stderr.strip()[-300:]}"
    versions = dict(
        line.split("\t", 1) for line in done.stdout.splitlines() if "\t" in line
    )
    missing = [p for p in packages if not versions.get(f"R:{p}")]
    if missing:
        commands = "; ".join(install_command(p) for p in missing)
        return versions, (
            f"the R package{'s' if len(missing) > 1 else ''} "
            f"{', '.join(missing)} {'are' if len(missing) > 1 else 'is'} not "
            f"installed; install with: {commands}"
        )
    versions["rpy2"] = importlib.metadata.version("rpy2")
    return versions, None


def r_unavailable(packages: Sequence[str] = ()) -> str | None:
    """Why an R learner needing ``packages`` cannot run here, or None if it can.

    Parameters
    ----------
    packages : sequence of str, default=()
        R packages the learner needs.

    Returns
    -------
    str or None
        What is missing (rpy2, R, an R package) and the command that installs it.

    Examples
    --------
    >>> reason = r_unavailable(["no.such.package"])
    >>> "install" in reason
    True
    """
    return _probe(tuple(packages))[1]


def r_versions(packages: Sequence[str] = ()) -> dict[str, str]:
    """R's version, its BLAS and each package's ``packageVersion``.

    Parameters
    ----------
    packages : sequence of str, default=()
        R packages to report.

    Returns
    -------
    dict
        ``{"R": "4.2.2", "R:BLAS": path, "R:huge": "1.3.5", "rpy2": ...}``.

    Raises
    ------
    RUnavailableError
        If R, rpy2 or one of the packages is missing (with the install command).
    """
    versions, problem = _probe(tuple(packages))
    if problem is not None:
        raise RUnavailableError(problem)
    return dict(versions)


def r_seed(random_state: Any) -> int:
    """The seed R's ``set.seed`` gets from a learner's ``random_state``.

    The first draw of :func:`sklearn.utils.check_random_state` ``(random_state)``
    on ``[0, 2**31 - 1)``: an integer ``random_state`` (what the benchmark harness
    derives for each fit from the cell's ``SeedSequence``) always gives the same
    R seed, so R's random choices (StARS subsamples, MCMC) are reproducible.

    Parameters
    ----------
    random_state : int, RandomState instance or None
        The learner's ``random_state``.

    Returns
    -------
    int

    Examples
    --------
    >>> r_seed(0) == r_seed(0)
    True
    """
    return int(check_random_state(random_state).randint(0, _R_SEED_BOUND))


# --------------------------------------------------------------------------------------
# The embedded R: started once per process
# --------------------------------------------------------------------------------------

# Defines the function every fit calls: seed, call, catch R's error and warnings,
# normalise what the learner's function returned to dense double matrices.
_CALLER = """\
local({
  dense <- function(v) {
    if (is.list(v) && !is.data.frame(v)) return(lapply(v, dense))
    v <- as.matrix(v)
    storage.mode(v) <- "double"
    v
  }
  not_numeric <- function(v) {
    if (is.list(v) && !is.data.frame(v)) {
      for (item in v) if (!is.null(what <- not_numeric(item))) return(what)
      return(NULL)
    }
    if (isS4(v) || ((is.numeric(v) || is.logical(v)) && !is.factor(v))) return(NULL)
    if (is.data.frame(v) && all(vapply(v, function(col)
      (is.numeric(col) || is.logical(col)) && !is.factor(col), logical(1))))
      return(NULL)
    if (is.character(v) && length(v))
      return(sprintf("a string (\\"%s\\")", substr(v[[1]], 1L, 60L)))
    sprintf("of R class %s", class(v)[[1]])
  }
  # R's messages as valid UTF-8 (an invalid byte reads <ff>): rpy2 decodes them.
  utf8 <- function(s) iconv(s, "UTF-8", "UTF-8", sub = "byte")
  function(f, x, y, args, seed, returns) {
    set.seed(seed, kind = "Mersenne-Twister", normal.kind = "Inversion",
             sample.kind = "Rejection")
    warned <- character()
    # y is NULL unless the function has an argument y (a joint model's classes).
    call <- if (is.null(y)) function(...) f(x, ...) else function(...) f(x, y = y, ...)
    value <- tryCatch(
      withCallingHandlers(do.call(call, args), warning = function(w) {
        warned <<- c(warned, utf8(conditionMessage(w)))
        invokeRestart("muffleWarning")
      }),
      error = function(e) structure(list(utf8(conditionMessage(e)), utf8(paste(
        deparse(conditionCall(e), width.cutoff = 80L, nlines = 1L),
        collapse = ""))), class = "skggm_error"))
    if (inherits(value, "skggm_error"))
      return(list(error = value[[1]], call = value[[2]], warnings = warned))
    if (!is.list(value) || is.data.frame(value)) {
      value <- list(value)
      names(value) <- returns
    }
    known <- c(KNOWN, "path", "index")
    unknown <- setdiff(names(value), known)
    out <- list(warnings = warned, unknown = unknown)
    for (name in intersect(names(value), known)) {
      v <- value[[name]]
      if (is.null(v)) next
      # A string or a factor would become NA (or its codes) as a double: say
      # what it is instead.
      what <- not_numeric(v)
      if (!is.null(what)) return(list(not_numeric = c(name, what),
                                      warnings = warned))
      out[[name]] <- if (name == "index") as.integer(v) else dense(v)
    }
    out
  }
})
""".replace("KNOWN", ", ".join(f'"{name}"' for name in _MATRICES))

_LOCK = threading.Lock()
_SESSION: dict[str, Any] = {}


def _session() -> dict[str, Any]:
    """The embedded R of this process, started on first use, with the caller."""
    if _SESSION:
        return _SESSION
    with _LOCK:
        if _SESSION:
            return _SESSION
        problem = r_unavailable()
        if problem is not None:
            raise RUnavailableError(problem)
        import rpy2.rinterface as ri
        from rpy2.rinterface_lib import callbacks

        # Starting R changes this process's environment, and every process it
        # starts later inherits it: rpy2 prepends R's library folders to
        # LD_LIBRARY_PATH (too late for this process, whose loader has run) and
        # copies R's start-up variables (EDITOR, PAGER, MAKE, KMP_*, COLUMNS in a
        # run without a terminal, ...) into os.environ. With Debian's R the
        # folders include /usr/lib/<arch>, where a distribution's libpython is
        # found before the running interpreter's own (RUNPATH loses to
        # LD_LIBRARY_PATH): later Python children ran on another patch release's
        # runtime and failed in their standard library; COLUMNS=80 narrowed every
        # later table of the command line. Only R's own variables (R_*) stay.
        before = dict(os.environ)
        try:
            with warnings.catch_warnings():
                # rpy2 says which environment variables R's start-up script
                # sets (R_HOME, LD_LIBRARY_PATH, ...): nothing to act on.
                warnings.simplefilter("ignore", UserWarning)
                ri.initr()
        finally:
            _restore_environment(before)
        # R's console output (progress messages, the error R prints before it
        # unwinds) stays out of the harness's terminal; errors and warnings come
        # back through the caller instead.
        callbacks.consolewrite_print = lambda text: None
        callbacks.consolewrite_warnerror = lambda text: None
        _SESSION.update(
            ri=ri,
            caller=ri.evalr(_CALLER),
            functions={},
            tempdir=str(ri.evalr("tempdir()")[0]),
        )
        # R's session directory goes at this process's normal exit (rpy2's
        # initr does not end R); not at the exit of a forked child, which
        # shares it with its parent.
        atexit.register(_remove_tempdir, os.getpid(), _SESSION["tempdir"])
    return _SESSION


def _restore_environment(before: dict[str, str]) -> None:
    """Put back every variable R's start changed but R's own (``R_*``)."""
    for name in set(before) | set(os.environ):
        if name.startswith(("R_", "_R_")) or os.environ.get(name) == before.get(name):
            continue
        if name in before:
            os.environ[name] = before[name]
        else:
            del os.environ[name]


@contextlib.contextmanager
def _fresh_r_tempdir() -> Any:
    """R's ``tempdir()`` is a fresh directory for the duration of one call.

    R fixes its session directory when it starts, and every fit of a process (in
    the harness: every child of a template, which started R) would share it: a
    learner that writes a file there, or removes it, would change the next fits.
    R has no function that moves it; its C variable ``R_TempDir``, which
    ``tempdir()`` and ``tempfile()`` read, is pointed at a new directory made in
    Python's temporary folder (in the harness, the fit's own working directory,
    removed with the fit even if it is killed), then back; the directory is
    removed after the call.
    """
    import rpy2.situation
    from rpy2.rinterface_lib import openrlib

    lib = ctypes.CDLL(rpy2.situation.get_rlib_path(openrlib.R_HOME, platform.system()))
    pointer = ctypes.c_void_p.in_dll(lib, "R_TempDir")
    fresh = tempfile.mkdtemp(prefix="Rtmp")
    path = ctypes.create_string_buffer(os.fsencode(fresh))
    before = pointer.value
    pointer.value = ctypes.addressof(path)
    try:
        yield fresh
    finally:
        pointer.value = before
        shutil.rmtree(fresh, ignore_errors=True)


def _remove_tempdir(owner: int, path: str) -> None:
    if os.getpid() == owner:
        shutil.rmtree(path, ignore_errors=True)


def start_r(*packages: str) -> Any:
    """Start R in this process and load ``packages``; what to call at its end.

    The benchmark harness calls it in each worker's template process, before any
    fit's child is forked (an :class:`RLearner` asks for it with
    ``__skggm_bench_process_setup__``), so the children inherit a started R
    with the packages loaded and pay only for their own call. Returns a
    function removing R's session directory, which the children share and which
    R removes only at a normal exit (the template ends with ``os._exit``).

    Parameters
    ----------
    *packages : str
        R packages to load (their namespaces; nothing is attached).

    Returns
    -------
    callable
        Removes R's session directory.
    """
    session = _session()
    _load_packages(tuple(packages))
    # A full collection now, in the template: R then sizes its next collection
    # from the live heap, so the children's fits rarely collect, and a child that
    # collects writes to (and so copies) every page of R's inherited heap.
    session["ri"].evalr("invisible(gc())")
    return functools.partial(shutil.rmtree, session["tempdir"], True)


def _to_r(value: Any, name: str) -> Any:
    """A Python argument as an R value (NULL, vectors, matrices, named lists)."""
    ri = _session()["ri"]
    if value is None:
        return ri.NULL
    if isinstance(value, Mapping):
        return _named_list(
            {str(k): _to_r(v, f"{name}[{k!r}]") for k, v in value.items()}
        )
    if isinstance(value, (bool, np.bool_)):
        return ri.BoolSexpVector([bool(value)])
    if isinstance(value, (Integral, np.integer)):
        return ri.IntSexpVector([int(value)])
    if isinstance(value, (float, np.floating)):
        return ri.FloatSexpVector([float(value)])
    if isinstance(value, str):
        return ri.StrSexpVector([value])
    array = np.asarray(value)
    if array.ndim in (1, 2) and array.size and array.dtype.kind in "biuf":
        kind = array.dtype.kind
        if kind == "b":
            vector = ri.BoolSexpVector(array.ravel(order="F").tolist())
        elif kind in "iu":
            vector = ri.IntSexpVector(array.ravel(order="F").astype(int).tolist())
        else:
            flat = np.ascontiguousarray(array.ravel(order="F"), dtype=np.float64)
            vector = ri.FloatSexpVector.from_memoryview(memoryview(flat))
        if array.ndim == 2:
            vector.do_slot_assign("dim", ri.IntSexpVector(list(array.shape)))
        return vector
    if array.ndim == 1 and array.size and array.dtype.kind in "US":
        return ri.StrSexpVector([str(v) for v in array])
    raise TypeError(
        f"{name}: cannot pass {value!r} to R; use None, a number, a string, a bool, "
        "a list or array of them, or a table (a named list)"
    )


def _named_list(items: dict[str, Any]) -> Any:
    ri = _session()["ri"]
    out = ri.ListSexpVector(list(items.values()))
    out.do_slot_assign("names", ri.StrSexpVector(list(items)))
    return out


def _from_r(value: Any) -> Any:
    """A dense double matrix (or a list of them) from the caller as numpy arrays."""
    ri = _session()["ri"]
    if isinstance(value, ri.ListSexpVector):
        return [_from_r(item) for item in value]
    data = np.array(value.memoryview(), dtype=np.float64)
    dim = value.do_slot("dim") if "dim" in value.list_attrs() else None
    if dim is None:
        return data
    return data.reshape(tuple(dim), order="F")


def _names(value: Any) -> list[str]:
    names = value.names
    return [] if names is None or names is _session()["ri"].NULL else list(names)


class RLearner(BaseEstimator):
    """A graph learner written in R: an R function run on the data set.

    ``fit(X)`` calls the R function ``function`` as ``f(x, <args>)`` (or
    ``f(x, y = y, <args>)`` when ``fit`` is given ``y`` and the function has an
    argument ``y``, e.g. the class of each sample for a joint model; other
    functions ignore ``y``), ``x`` the numeric data matrix, in an R started
    once per process (rpy2), after ``set.seed(r_seed(random_state))``. What the
    function returns is read back:

    * a matrix: the estimate named by ``returns``;
    * a named list with any of ``precision``, ``covariance``, ``adjacency``,
      ``edge_scores``, ``partial_correlation`` (matrices, dense or of the
      ``Matrix`` package; a list of matrices for one per class), ``path`` (a
      list of adjacency matrices, one per penalty) and ``index`` (the selected
      one on the path, counted from 1 as in R).

    An edge decision (``adjacency``, a graph of ``path``) holds 0/1 or
    ``TRUE``/``FALSE`` off the diagonal: an ``NA``, a ``NaN`` or a weight raises a
    ValueError naming the entry (counted from 1, as in R), and a string or a
    factor where a matrix is expected a TypeError saying so.
    They become the fitted attributes of the learner protocol
    (:mod:`skggm_bench.metrics`): ``adjacency_`` (the function's own edges; from
    ``path[index]`` when only a path is returned), ``precision_``,
    ``covariance_``, ``partial_correlation_`` and ``edge_scores_`` (a ranking of
    the pairs, e.g. posterior edge probabilities, for ROC and PR curves).

    Parameters
    ----------
    function : str, default="function(x) solve(cov(x))"
        R code that evaluates to a function: a name (``"huge::huge.mb"``) or a
        ``function(x, ...) ...`` expression.
    args : dict or None, default=None
        Further arguments of the function, by R name (``{"lambda.min.ratio":
        0.1}``); values are numbers, strings, bools, None (R's ``NULL``), lists
        or arrays of them, or tables (named lists). They are the learner's
        parameters: ``set_params(args=...)`` and searches vary them.
    packages : tuple of str, default=()
        R packages the function uses: checked before a study runs (the refusal
        says how to install a missing one) and recorded with their versions.
    returns : {"precision", "covariance", "adjacency", "edge_scores", \
"partial_correlation"}, default="precision"
        What a bare matrix returned by the function is.
    blas_threads : int or None, default=None
        Threads of R's BLAS during the fit (through threadpoolctl, for an
        OpenBLAS it can reach); None leaves them as the process has them (R's
        BLAS reads ``OPENBLAS_NUM_THREADS``/``OMP_NUM_THREADS`` as numpy's does).
    random_state : int, RandomState instance or None, default=None
        Seeds R's generator (see :func:`r_seed`); the harness sets it per fit.

    Attributes
    ----------
    precision_, covariance_, partial_correlation_, edge_scores_ : ndarray
        What the function returned under these names (absent otherwise).
    adjacency_ : ndarray of shape (n_features, n_features), bool
        The function's edges (symmetric, no diagonal), when it returned them.
    path_ : list of ndarray of shape (n_features, n_features), bool
        The graphs along the function's path, when it returned one.
    index_ : int
        Position of the selected graph on ``path_`` (from 0).
    r_seed_ : int
        The seed R's ``set.seed`` got.
    r_warnings_ : list of str
        R's warnings during the fit (also issued as Python warnings).
    n_features_in_ : int
        Number of features seen during fit.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import RLearner
    >>> X = np.random.default_rng(0).standard_normal((200, 4))
    >>> X[:, 1] += X[:, 0]
    >>> ct = RLearner("function(x, t) list(adjacency = abs(cor(x)) > t)",
    ...               args={"t": 0.3})
    >>> ct.fit(X).adjacency_.astype(int)  # doctest: +SKIP
    array([[0, 1, 0, 0],
           [1, 0, 0, 0],
           [0, 0, 0, 0],
           [0, 0, 0, 0]])
    """

    _parameter_constraints: dict = {
        "function": [str],
        "args": [dict, None],
        "packages": [tuple, list],
        "returns": [StrOptions(set(_MATRICES))],
        "blas_threads": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        function="function(x) solve(cov(x))",
        args=None,
        packages=(),
        returns="precision",
        blas_threads=None,
        random_state=None,
    ):
        self.function = function
        self.args = args
        self.packages = packages
        self.returns = returns
        self.blas_threads = blas_threads
        self.random_state = random_state

    def _r_program(self) -> tuple[str, dict, tuple[str, ...]]:
        """The R function's code, its arguments and the packages it needs.

        Presets override this to build the call from their own parameters.
        """
        return self.function, dict(self.args or {}), tuple(self.packages)

    def __skggm_bench_process_setup__(self) -> tuple[str, tuple[str, ...]]:
        """What a process that runs this learner's fits sets up once.

        Read by the benchmark harness: ``"module:function"`` and its plain
        arguments, called in each worker's template process (:func:`start_r`
        with the packages), so that no fit pays for starting R or loading them.
        """
        return f"{__name__}:start_r", self._r_program()[2]

    def __skggm_bench_versions__(self) -> dict[str, str]:
        """R's version, its BLAS, rpy2 and every named package's version.

        Read by the benchmark harness for the ``versions`` column; raises
        :class:`RUnavailableError` (with the install command) when something is
        missing, which ``Benchmark.validate`` reports before anything runs.
        """
        return r_versions(self._r_program()[2])

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Run the R function on ``X`` and read its estimates back.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,) or None
            Passed to the function as ``y`` when it has an argument ``y``;
            ignored otherwise.

        Returns
        -------
        self : RLearner
            Fitted estimator.
        """
        X = validate_samples(self, X)
        code, args, packages = self._r_program()
        session = _session()
        ri = session["ri"]
        if packages:
            _load_packages(packages)
        function = session["functions"].get(code)
        if function is None:
            try:
                function = ri.evalr(code)
            except Exception as exc:
                raise RError(f"the R code {code!r} does not parse: {exc}") from None
            takes_y = ri.evalr("function(f) 'y' %in% names(formals(f))")(function)
            function = session["functions"][code] = (function, bool(takes_y[0]))
        function, takes_y = function
        x = _to_r(X, "X")
        r_y = ri.NULL if y is None or not takes_y else _to_r(np.asarray(y), "y")
        r_args = _named_list({k: _to_r(v, f"args[{k!r}]") for k, v in args.items()})
        self.r_seed_ = r_seed(self.random_state)
        limits = _blas_limits(self.blas_threads)
        with limits, _fresh_r_tempdir():
            result = session["caller"](
                function,
                x,
                r_y,
                r_args,
                ri.IntSexpVector([self.r_seed_]),
                ri.StrSexpVector([getattr(self, "returns", "precision")]),
            )
        self._read(result, X.shape[1])
        return self

    def _read(self, result: Any, n_features: int) -> None:
        fields = dict(zip(_names(result), result, strict=True))
        self.r_warnings_ = [str(w) for w in fields.get("warnings", [])]
        for message in self.r_warnings_:
            warnings.warn(f"R: {message}", RuntimeWarning, stacklevel=3)
        if "error" in fields:
            call = str(fields["call"][0])
            # The caller's own call says nothing; a call inside the function does.
            where = "" if call.startswith("f(x") else f" (in R: {call})"
            message = f"{fields['error'][0]}{where}"
            if any(text in message for text in _R_ALLOCATION_FAILURES):
                raise RMemoryError(message)
            raise RError(message)
        if "not_numeric" in fields:
            name, what = (str(v) for v in fields["not_numeric"])
            raise TypeError(f"the R function's {name} is {what}, not a numeric matrix")
        unknown = [str(n) for n in fields.get("unknown", [])]
        read = {name: _from_r(fields[name]) for name in _MATRICES if name in fields}
        if not read and "path" not in fields:
            raise ValueError(
                f"the R function returned none of {', '.join(_MATRICES)} or path"
                + (f" (it returned {', '.join(unknown)})" if unknown else "")
            )
        for name, value in read.items():
            if isinstance(value, list):  # one matrix per class
                value = np.stack(value)
            if value.shape[-2:] != (n_features, n_features):
                raise ValueError(
                    f"the R function's {name} has shape {value.shape}; expected "
                    f"({n_features}, {n_features}) for {n_features} variables"
                )
            if name == "adjacency":
                value = _graph(value, "adjacency")
            setattr(self, f"{name}_", value)
        if "path" in fields:
            self.path_ = [
                _graph(m, f"path[[{k}]]")
                for k, m in enumerate(_from_r(fields["path"]), start=1)
            ]
            if "index" in fields:
                index = int(fields["index"][0]) - 1
                if not 0 <= index < len(self.path_):
                    raise ValueError(
                        f"the R function's index {index + 1} is not on its path "
                        f"of {len(self.path_)} graphs"
                    )
                self.index_ = index
                if "adjacency" not in read:
                    self.adjacency_ = self.path_[index]


# R's NA as a double is a NaN whose lower 32 bits are 1954 (R_NaReal).
_R_NA_PAYLOAD = 1954


def _graph(matrix: np.ndarray, name: str) -> np.ndarray:
    """A 0/1 (or TRUE/FALSE) matrix as a boolean graph without self-loops.

    Any other value off the diagonal -- R's ``NA``, ``NaN``, a weight -- is an
    error naming the entry (counted from 1, as in R), never an edge.
    """
    values = np.asarray(matrix, dtype=np.float64)
    off_diagonal = ~np.eye(values.shape[-1], dtype=bool)
    bad = ~np.isin(values, (0.0, 1.0)) & off_diagonal
    if bad.any():
        index = tuple(int(k) for k in np.argwhere(bad)[0])
        value = values[index]
        if np.isnan(value):
            bits = int(np.float64(value).view(np.uint64)) & 0xFFFFFFFF
            shown = "NA" if bits == _R_NA_PAYLOAD else "NaN"
        else:
            shown = repr(float(value))
        *layer, i, j = (k + 1 for k in index)  # a list of matrices: one per class
        entry = "".join(f"[[{k}]]" for k in layer) + f"[{i}, {j}]"
        raise ValueError(
            f"the R function's {name}{entry} is {shown}; an edge "
            "decision must be 0/1 or TRUE/FALSE (row and column counted from 1, "
            "as in R)"
        )
    graph = values != 0
    if graph.ndim == 2:
        np.fill_diagonal(graph, False)
    else:
        for layer in graph:
            np.fill_diagonal(layer, False)
    return graph


def _load_packages(packages: tuple[str, ...]) -> None:
    """Attach nothing, load the namespaces (a missing package: a clear error)."""
    session = _session()
    loaded = session.setdefault("loaded", set())
    todo = [p for p in packages if p not in loaded]
    if not todo:
        return
    ri = session["ri"]
    check = ri.evalr(
        "function(p) p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)]"
    )
    missing = list(check(ri.StrSexpVector(todo)))
    if missing:
        commands = "; ".join(install_command(p) for p in missing)
        raise RUnavailableError(
            f"the R package(s) {', '.join(missing)} cannot be loaded; install "
            f"with: {commands}"
        )
    loaded.update(todo)


def _blas_limits(threads: int | None) -> Any:
    if threads is None:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=threads, user_api="blas")
