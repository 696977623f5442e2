"""How one fit is run safely: in a fresh child process, forked from a clean template.

Why a process, and why a fresh one each time
    A learner is arbitrary code. It can raise anything (``SystemExit`` and
    ``KeyboardInterrupt`` included), loop for ever inside a compiled solver, block
    on an attribute, allocate until the operating system kills it, crash the
    interpreter (a segmentation fault, ``os._exit``), write into its input, start
    processes and threads, or change the state of the process it runs in: patch a
    numpy or scikit-learn function, call ``np.seterr`` or ``np.random.seed``, set
    environment variables or thread-pool limits, fill a module-level cache. Only a
    separate process can be stopped at a deadline whatever it is doing, and only a
    process that serves *one* request can leave nothing behind for the next one.

The fork server
    Each harness worker (a loky process, a thread, the main process with
    ``n_jobs=1``, a dask worker thread) forks a *template* process once: it has
    every module imported, runs no learner or generator code, and has a single
    thread. Every request (one draw, or one fit with its scoring) runs in a new
    child forked from the template, so every fit starts from the same process
    state, whatever the fits before it did, and whatever threads the worker has.
    The template forks the child of the *next* request (a spare) while a request
    runs, when it would otherwise only wait, so that its answer goes back at once
    and the next request finds its child ready (a fit's draw and fit are one
    exchange, :meth:`ForkServer.call_each`). Its larger memory regions are backed
    by huge pages where the kernel allows, so that ``fork`` and exit copy and free
    few page-table entries. The garbage collector of the children does not walk what
    they inherit (``gc.freeze``), which would copy it page by page.

    What a draw produces (a cell's data, see ``_worker.py``) is sent back to the
    template, which keeps the last few (:class:`Server`): the children forked
    after that inherit them through ``fork``; the spare, forked before, gets them
    with its request.

    The template trusts nothing a child sends (the learner it runs can reach the
    child's channel and its :class:`Server` through its stack frames): it reads
    each answer with a restricted reader that builds plain data only (numbers,
    strings, lists, dicts, numeric numpy arrays, the server's own dataclasses of
    them) and calls nothing the bytes name (``_plain_data.py``); the answer must
    be one to the very request the child was given; and kept data is taken only
    from the answer to a draw (``Server.keeping``), in the form the server
    expects. A fit can so change its own row, never the data of another.

What every request is guaranteed
    * A deadline: the template waits at most ``timeout`` seconds for the answer,
      then kills the child and everything it started. Nothing of the stopped fit
      keeps running.
    * A memory limit: the child caps its address space at what it uses plus
      ``memory_limit`` bytes (``RLIMIT_AS``), so a runaway allocation raises
      ``MemoryError`` in that fit instead of exhausting the machine.
    * Death is an outcome: when the child dies, the template reports how (signal,
      exit status); it is watched through a pidfd, not a pipe, so a descendant that
      inherited the pipe cannot turn a crash into a timeout.
    * Nothing outlives a request: the child runs in a session of its own, and the
      template is a child subreaper; when the request ends (answer, deadline,
      death) the template kills the child's session and every process that was
      left to it, and the child's threads end with the child. The worker is a
      subreaper too: if a learner kills the template (its parent), what it left
      comes to the worker, which ends it (:func:`end_strays`), and the row says
      ``crashed``. The process that called ``run()`` is a subreaper for the run
      (:func:`adopt_strays`): when loky kills a worker's process tree on an
      interruption, what a fit started comes there and is ended. It ends only
      children it did not have before and that are in another session than its
      own (its loky workers are not).
    * No way to the store: the child closes every descriptor it inherited but its
      channel and the standard streams, and unmaps the shared writable file
      mappings (SQLite's ``-shm``), so that a worker that writes the results
      store (``n_jobs=1``, threading) does not hand it to a learner; and it works
      in a fresh temporary directory of its own, removed once it has ended (a
      learner that needs files must name them by absolute path).
    * No output: what a request prints -- a solver's progress or report
      (gglasso's, POET's), from Python or from compiled code -- goes nowhere, so
      the run's terminal shows the harness's own lines only. What a row needs of
      a fit is its exception, its warnings (recorded, never printed) and its
      values. (``isolate=False``, for debugging, leaves the prints.)
    * No orphans: the template and the children ignore the terminal's Ctrl-C (the
      harness handles it); a child dies with its template, a template with the
      worker thread that forked it (``PR_SET_PDEATHSIG``, then it kills what it
      runs), a worker process started by ``multiprocessing`` (loky), even one
      busy with a fit, with its parent (a thread waits on the parent's pidfd,
      from the worker's start on: ``skggm_bench._parent_watch``); a
      template exits after 1.5 s without a request, and the run closes those of
      its own process at its end. So when the process that called ``run()`` is
      killed, even with ``SIGKILL``, the whole chain ends within moments.

What it costs
    One ``fork`` and one exit per request the template cannot answer from its kept
    data (:meth:`Server.cached`), and the copy-on-write faults of the child (it
    writes to reference counts of what it uses) and of the template: some
    milliseconds of CPU per request, measured in docs/performance.md; next to a fit
    of hundreds of milliseconds, a few percent.

The requests are generic: ``server(name, args)`` in the child, where ``server`` is
a :class:`Server`; what the names mean (drawing a data set, fitting a learner) is
defined in ``_worker.py``.
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import functools
import gc
import math
import multiprocessing
import os
import resource
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from multiprocessing.connection import Connection, Pipe
from typing import Any

from ..._parent_watch import watch_parent
from ..results._schema import Status
from ._plain_data import NotPlainError, check_plain, dumps_plain, loads_plain

__all__ = [
    "MISSING",
    "ForkServer",
    "InProcess",
    "Outcome",
    "Server",
    "adopt_strays",
    "close_children",
    "error_message",
    "truncate",
    "worker_for",
]

# A template with no request for this long exits: workers of a finished run (loky
# keeps its processes for reuse) do not keep templates and children. It exits with
# its own status, so that the worker tells this apart from a death and forks anew.
_IDLE_EXIT_SECONDS = 1.5
_IDLE_EXIT_STATUS = 111
# A template that has not answered this long after the request's own deadline is
# broken (it never should be): the worker kills it and reports a timeout.
_TEMPLATE_GRACE_SECONDS = 30.0
# Failure messages keep the head of long texts: a row is not a log.
_MAX_MESSAGE = 2000
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_NAME = 15
# A template's process name (its ``comm``, at most 15 bytes): how the process that
# called ``run()`` tells a template that came to it, its worker killed, from its
# own loky workers (:func:`end_strays`).
_TEMPLATE_NAME = b"skggm-template"

_SIGNAL_NAMES = {
    signal.SIGSEGV: "a segmentation fault (SIGSEGV)",
    signal.SIGABRT: "an abort (SIGABRT)",
    signal.SIGBUS: "a bus error (SIGBUS)",
    signal.SIGFPE: "a floating-point exception (SIGFPE)",
    signal.SIGILL: "an illegal instruction (SIGILL)",
    signal.SIGTERM: "a termination request (SIGTERM)",
}


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""What :meth:`Server.cached` returns when a request needs a child."""


@dataclass(frozen=True)
class Outcome:
    """What became of one request.

    Attributes
    ----------
    status : Status
        ``OK``, or how it failed: ``FAILED`` (it raised), ``TIMEOUT``,
        ``CRASHED`` (its process died), ``MEMORY``.
    value : object
        What the server returned (``None`` unless ``OK``).
    message : str
        What happened, for a failure.
    elapsed : float
        Seconds the request ran (until the failure, or the deadline).
    """

    status: Status
    value: Any
    message: str
    elapsed: float


def truncate(text: str) -> str:
    """``text``, cut to the length a result row keeps."""
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 3] + "..."


def error_message(exc: BaseException) -> str:
    """``"Type: message"`` of an exception, truncated."""
    return truncate(f"{type(exc).__name__}: {exc}")


class Server:
    """The requests a fork server runs, and the plain data its template keeps.

    A subclass defines one method per request name; ``server(name, args)`` calls
    it in a fresh child. What a request computes that later requests reuse (a
    drawn data set) it passes to :meth:`keep`: the entry goes back to the template
    with the answer, and every later child has it. :meth:`cached` answers, in the
    template and without a child, a request whose answer is in the kept data; it
    must run no code of a learner or a generator.

    What a child sends back was possibly written by the learner it ran: the
    template reads it with :func:`~._plain_data.loads_plain` (plain data, and the
    dataclasses named in ``plain_types``, nothing else), and takes kept entries
    only from the answer of a request named in ``keeping`` that
    :meth:`accepts_kept`.
    """

    #: Names of the requests whose answer may bring kept entries (draws).
    keeping: frozenset[str] = frozenset()
    #: Dataclasses (with plain fields) that answers and kept entries may hold.
    plain_types: tuple[type, ...] = ()

    # The last ``min_kept`` entries are kept whatever their size; older ones while
    # all of them take at most ``max_kept_bytes`` (the template's memory is copied,
    # in page tables, at every fork) and number at most ``max_kept``.
    min_kept = 4
    max_kept_bytes = 64 * 2**20
    max_kept = 1024

    def __init__(self) -> None:
        self.kept: OrderedDict[Hashable, Any] = OrderedDict()
        self._sizes: dict[Hashable, int] = {}
        self._fresh: dict[Hashable, Any] = {}

    def __call__(self, name: str, args: tuple) -> Any:
        return getattr(self, name)(*args)

    def cached(self, name: str, args: tuple) -> Any:
        """The answer from the kept data, or :data:`MISSING` (the default)."""
        return MISSING

    def warm_up(self) -> None:
        """Run once in the template, before any child is forked (default: nothing).

        What a first call does once per process (lazy imports, caches of
        signatures and configurations) would otherwise be done again by every
        child. Only the server's own code, on fixed toy data: the template's state
        stays the same whatever the study's learners and generators are.
        """

    def close(self) -> None:
        """Run once in the template as it exits (default: nothing).

        Releases what :meth:`warm_up` set up that would outlive the template
        (it ends with ``os._exit``: no ``atexit`` handler runs), e.g. a
        directory its children share.
        """

    def size(self, value: Any) -> int:
        """Bytes a kept value takes (default: 0, so only ``min_kept`` bounds)."""
        return 0

    def accepts_kept(self, key: Hashable, value: Any) -> bool:
        """Whether a kept entry sent by a child has the expected form (default: no)."""
        return False

    def keep(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` for the following requests (the oldest entries go)."""
        self._fresh[key] = value
        self.merge({key: value})

    def merge(self, entries: dict) -> None:
        """Take kept entries computed elsewhere."""
        for key, value in entries.items():
            self.kept[key] = value
            self.kept.move_to_end(key)
            self._sizes[key] = self.size(value)
        total = sum(self._sizes.values())
        while len(self.kept) > self.min_kept and (
            total > self.max_kept_bytes or len(self.kept) > self.max_kept
        ):
            key, _ = self.kept.popitem(last=False)
            total -= self._sizes.pop(key)

    def take_fresh(self) -> dict:
        """The entries kept since the last call (to send back to the template)."""
        fresh, self._fresh = self._fresh, {}
        return fresh


def _run(server: Server, name: str, args: tuple) -> Outcome:
    start = time.perf_counter()
    try:
        value = server(name, args)
    except MemoryError as exc:
        return Outcome(
            Status.MEMORY, None, error_message(exc), time.perf_counter() - start
        )
    except BaseException as exc:
        return Outcome(
            Status.FAILED, None, error_message(exc), time.perf_counter() - start
        )
    return Outcome(Status.OK, value, "", time.perf_counter() - start)


class InProcess:
    """Requests served in the calling process: no deadline, no crash protection.

    For debugging a learner (a debugger stops inside its ``fit``) and for
    platforms without ``os.fork``. ``KeyboardInterrupt`` is re-raised, since here a
    Ctrl-C of the user cannot be told apart from one raised by a learner.
    """

    def __init__(self, server: Server) -> None:
        self._server = server

    def call(self, name: str, args: tuple, timeout: float | None = None) -> Outcome:
        """Run ``server(name, args)`` here; see :meth:`ForkServer.call`."""
        return self.call_each([(name, args)], timeout)[0]

    def call_each(
        self, requests: list[tuple[str, tuple]], timeout: float | None = None
    ) -> list[Outcome]:
        """Run requests in turn here; see :meth:`ForkServer.call_each`."""
        outcomes = []
        for name, args in requests:
            value = self._server.cached(name, args)
            if value is not MISSING:
                outcomes.append(Outcome(Status.OK, value, "", 0.0))
                continue
            outcome = _run(self._server, name, args)
            self._server.take_fresh()
            if outcome.message.startswith("KeyboardInterrupt"):
                raise KeyboardInterrupt
            outcomes.append(outcome)
            if outcome.status is not Status.OK:
                break
        return outcomes

    def close(self) -> None:
        """Nothing to release."""


# --------------------------------------------------------------------------------------
# Process plumbing (Linux; elsewhere the calls that are missing are skipped)
# --------------------------------------------------------------------------------------


@functools.cache
def _libc_prctl() -> Callable[..., int] | None:
    # Looked up once, in the template: every child calls it, and a lookup (a new
    # ctypes library object and function type) costs a child copy-on-write faults.
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError, TypeError):
        return None


def _prctl(option: int, value: int) -> None:
    prctl = _libc_prctl()
    if prctl is not None:
        prctl(option, value, 0, 0, 0)


def _die_with_parent(parent: int, signum: int) -> None:
    """Have ``signum`` sent to this process when its parent dies; exit if it has."""
    _prctl(_PR_SET_PDEATHSIG, signum)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(0)


def _fresh_standard_streams() -> None:
    # Another thread of the worker may have held the lock of sys.stdout at the
    # fork; in the template that lock would never be released. New stream objects
    # on the same descriptors keep a learner's prints working.
    for name, fd in (("stdout", 1), ("stderr", 2)):
        with contextlib.suppress(OSError, ValueError):
            setattr(sys, name, open(os.dup(fd), "w", buffering=1))


def _discard_output() -> None:
    """Send this process's standard output and error, Python's and C's, nowhere."""
    with contextlib.suppress(OSError, ValueError):
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    null = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(null, fd)
    os.close(null)
    # The template's stream objects write to descriptors of their own (see
    # _fresh_standard_streams): new ones, on the silenced descriptors.
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)


def _address_space() -> int:
    """Bytes of virtual memory this process has mapped (Linux), or 0 if unknown."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


_MADV_HUGEPAGE = 14
_MADV_COLLAPSE = 25  # Linux 6.1+
_HUGE_PAGE = 2 * 2**20


def _huge_pages() -> None:
    """Back this process's larger writable anonymous mappings with huge pages.

    ``fork`` copies a process's page tables, and exit frees them: for a template
    of some 100 MB that is one entry per 4 KiB page, milliseconds per child. A
    2 MiB huge page is one entry. Where the kernel cannot (no transparent huge
    pages, an older kernel, no free huge page), nothing changes.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except (OSError, AttributeError):
        return
    for line in lines:
        fields = line.split()
        if "w" not in fields[1] or (len(fields) > 5 and fields[5] != "[heap]"):
            continue
        low, high = (int(x, 16) for x in fields[0].split("-"))
        start = -(-low // _HUGE_PAGE) * _HUGE_PAGE
        end = high // _HUGE_PAGE * _HUGE_PAGE
        if end - start >= _HUGE_PAGE:
            libc.madvise(start, end - start, _MADV_HUGEPAGE)
            libc.madvise(start, end - start, _MADV_COLLAPSE)


def _pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when ``pid`` exits (None if unsupported)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _readable(fds: list[int], timeout: float | None) -> set[int]:
    """Those of ``fds`` readable (or closed) within ``timeout`` seconds (None: ever).

    A ``poll`` call, where ``multiprocessing.connection.wait`` builds a selector
    and its keys at every call: in the template, whose pages are shared with a
    child forked since, each object written costs a copy-on-write fault (some 40
    per request). Unlike ``select.select`` it takes descriptors above 1023 (the
    process that called ``run()`` may hold that many). It waits at most 2**31 - 1
    ms (24.8 days): the longest wait here is a study's largest ``timeout`` plus
    the template's grace.
    """
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    wait_ms = None if timeout is None else max(0, math.ceil(1e3 * timeout))
    return {fd for fd, _ in poller.poll(wait_ms)}


def _wait_ready(conn: Connection, pidfd: int | None, timeout: float | None) -> bool:
    """Wait until ``conn`` has data or the process behind ``pidfd`` has exited."""
    if pidfd is not None:
        return bool(_readable([conn.fileno(), pidfd], timeout))
    # Without pidfds (Linux before 5.3): a death is seen when the pipe closes, so a
    # descendant that holds the pipe can hide it until the deadline.
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        step = 0.05 if deadline is None else min(0.05, deadline - time.monotonic())
        if step <= 0:
            return False
        if conn.poll(step):
            return True


def _reap(pid: int) -> int | None:
    with contextlib.suppress(ChildProcessError):
        return os.waitpid(pid, 0)[1]
    return None


def _children() -> list[int]:
    """This process's children (Linux; [] where unknown)."""
    # Read with os.read, not open(): the template calls this after every request,
    # and a text file object is a dozen objects to write (copy-on-write faults).
    try:
        fd = os.open(f"/proc/self/task/{os.getpid()}/children", os.O_RDONLY)
    except OSError:
        return []
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return [int(pid) for pid in b"".join(chunks).split()]
    except (OSError, ValueError):
        return []
    finally:
        os.close(fd)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def _death(status: int | None, memory_limit: int | None, elapsed: float) -> Outcome:
    """The outcome of a request whose process died with wait status ``status``."""
    if status is not None and os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number == signal.SIGKILL:
            return Outcome(
                Status.MEMORY,
                None,
                "its process was killed by the operating system (SIGKILL), most "
                "likely for running out of memory",
                elapsed,
            )
        what = _SIGNAL_NAMES.get(number, f"signal {signal.Signals(number).name}")
        message = f"its process died of {what}"
    else:
        code = os.WEXITSTATUS(status) if status is not None else "unknown"
        message = (
            f"its process exited with status {code} before answering "
            "(os._exit, or exit called from C code)"
        )
    if memory_limit is not None:
        message += (
            f"; its memory limit was {memory_limit / 2**20:.0f} MiB, and a "
            "failed allocation in C code can end like this"
        )
    return Outcome(Status.CRASHED, None, message, elapsed)


# --------------------------------------------------------------------------------------
# The child: one request, then exit
# --------------------------------------------------------------------------------------


def _shared_mappings() -> list[tuple[int, int]]:
    """This process's shared writable file mappings: (address, length) each.

    Read once in the template: its children inherit exactly these (it creates
    none), and each unmaps them (:func:`_close_inherited`).
    """
    try:
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        fields = line.split()
        if len(fields) > 5 and fields[1][1] == "w" and fields[1][3] == "s":
            low, high = (int(x, 16) for x in fields[0].split("-"))
            found.append((low, high - low))
    return found


@functools.cache
def _libc_munmap() -> Callable[..., int] | None:
    # Looked up once, in the template (see _libc_prctl).
    try:
        munmap = ctypes.CDLL(None, use_errno=True).munmap
    except (OSError, AttributeError):
        return None
    munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return munmap


def _close_inherited(keep: set[int], mappings: list[tuple[int, int]]) -> None:
    """Close every descriptor but ``keep``; unmap the shared writable ``mappings``.

    The worker may be the process that writes the results store (``n_jobs=1``,
    threading): its descriptors and SQLite's shared-memory mapping would
    otherwise reach the learner, which could truncate or overwrite the store.
    """
    try:
        # The open descriptors, not every number up to the limit (tens of
        # thousands of close calls, milliseconds per child).
        numbers = [int(name) for name in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        numbers = list(range(resource.getrlimit(resource.RLIMIT_NOFILE)[0]))
    for fd in numbers:
        if fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)
    munmap = _libc_munmap()
    if munmap is not None:
        for address, length in mappings:
            munmap(address, length)


def _answer(name: str, outcome: Outcome, fresh: dict, types: tuple) -> bytes:
    """The child's answer as plain data (what the template's reader accepts)."""
    answer = (name, outcome.status.value, outcome.value, outcome.message,
              float(outcome.elapsed), list(fresh.items()))  # fmt: skip
    check_plain(answer, types)
    return dumps_plain(answer)


def _child_main(conn: Connection, server: Server, memory_limit: int | None) -> None:
    """Serve one request from the template; never returns."""
    try:
        # A session of its own: the template kills it whole, and the terminal's
        # Ctrl-C (sent to the foreground process group) does not reach it.
        os.setsid()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            name, args, shipped = conn.recv()
        except (EOFError, OSError):  # the template closed: a spare not needed
            os._exit(0)
        server.merge(shipped)
        _discard_output()
        if memory_limit is not None:
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
            cap = _address_space() + memory_limit
            if hard != resource.RLIM_INFINITY:
                cap = min(cap, hard)
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        outcome = _run(server, name, args)
        keeps = outcome.status is Status.OK and name in server.keeping
        fresh = server.take_fresh() if keeps else {}
        try:
            answer = _answer(name, outcome, fresh, server.plain_types)
        except Exception as exc:
            message = f"its result cannot be sent back: {error_message(exc)}"
            failed = Outcome(Status.FAILED, None, truncate(message), outcome.elapsed)
            answer = _answer(name, failed, {}, ())
        conn.send_bytes(answer)
    finally:
        os._exit(0)


@dataclass
class _Child:
    pid: int
    conn: Connection
    pidfd: int | None
    generation: int  # of the template's kept data when it was forked
    workdir: str | None  # its working directory, removed once it has ended

    def close(self) -> None:
        self.conn.close()
        if self.pidfd is not None:
            os.close(self.pidfd)

    def remove_workdir(self) -> None:
        if self.workdir is None:
            return
        # Most fits write nothing there: one call, not the Python of rmtree (the
        # template pays each object it writes in copy-on-write faults).
        try:
            os.rmdir(self.workdir)
        except OSError:
            shutil.rmtree(self.workdir, ignore_errors=True)


def _use_temporary_folder(path: str) -> None:
    """Make ``path`` this process's temporary folder, and its future children's.

    In a child, its working directory: what a learner puts in "the" temporary
    folder (Python's ``tempfile``, R's per-fit ``tempdir()``, a program it starts)
    goes with the fit, even if it is killed. In the template, a directory of its
    own: R started there puts its session directory in it, which the worker
    removes if the template is killed (:meth:`ForkServer._stop`).
    """
    os.environ["TMPDIR"] = path
    tempfile.tempdir = path


def _workdir_prefix(template: int) -> str:
    """The prefix of the working directories of a template's children.

    With the template's pid, so that the worker removes those a killed template
    could not (:meth:`ForkServer._stop`).
    """
    return f"skggm-bench-fit-{template}-"


# --------------------------------------------------------------------------------------
# The template: forks a child per request, keeps the drawn data
# --------------------------------------------------------------------------------------


class _Template:
    """The loop of the template process (one instance, in that process)."""

    def __init__(
        self, conn: Connection, server: Server, memory_limit: int | None
    ) -> None:
        self.pid = os.getpid()
        self.conn = conn
        self.server = server
        self.memory_limit = memory_limit
        self.generation = 0
        self.stamps: dict[Hashable, int] = {}  # kept key: generation it came in
        self.spare: _Child | None = None
        self.running: _Child | None = None
        # Children killed after their answer, reaped when their pidfd says so.
        self.ending: dict[int, _Child] = {}
        self.mappings = _shared_mappings()
        _libc_munmap()
        self.workdirs = 0  # working directories made so far
        self.tmp = tempfile.gettempdir()
        self.own: str | None = None  # its own temporary folder, once made

    def make_workdir(self) -> str | None:
        """A fresh directory for the next child (None: there is no temporary folder).

        Named by this template's pid and a count, made with ``os.mkdir``, which
        fails on any existing path (it never follows a link): the random name of
        ``tempfile.mkdtemp`` costs the template some 40 copy-on-write faults per
        child, and is used only when the name is taken (a directory left by a
        killed template of the same pid).
        """
        self.workdirs += 1
        prefix = _workdir_prefix(self.pid)
        path = os.path.join(self.tmp, f"{prefix}{self.workdirs}")
        try:
            os.mkdir(path, 0o700)
            return path
        except FileExistsError:
            pass
        except OSError:
            return None
        try:
            return tempfile.mkdtemp(prefix=prefix, dir=self.tmp)
        except OSError:
            return None

    def fork_child(self) -> _Child:
        ours, theirs = Pipe(duplex=True)
        # Each child works in a fresh directory of its own, removed when it has
        # ended: what a learner writes in its working directory (psics writes
        # ``_covselsigma.dat`` at every fit) reaches neither the user's directory,
        # nor the results store, nor the next fit. Without a writable temporary
        # folder, it works in the worker's directory.
        workdir = self.make_workdir()
        pid = os.fork()
        if pid == 0:
            try:
                _die_with_parent(self.pid, signal.SIGKILL)
                ours.close()
                self.conn.close()
                for child in (self.spare, self.running, *self.ending.values()):
                    if child is not None:
                        child.close()
                streams = {stream.fileno() for stream in (sys.stdout, sys.stderr)}
                _close_inherited({0, 1, 2, theirs.fileno(), *streams}, self.mappings)
                if workdir is not None:
                    os.chdir(workdir)
                    _use_temporary_folder(workdir)
            finally:
                _child_main(theirs, self.server, self.memory_limit)
        theirs.close()
        return _Child(pid, ours, _pidfd(pid), self.generation, workdir)

    def end(self, child: _Child, *, wait: bool = True) -> None:
        """Kill ``child``, its session and whatever it left; reap them.

        With ``wait=False`` (a child that has answered) the kill is sent now and
        the reaping waits for its pidfd, so that the worker does not wait for the
        child's exit.
        """
        _kill_group(child.pid)
        if not wait and child.pidfd is not None:
            self.ending[child.pid] = child
            return
        child.close()
        _reap(child.pid)
        child.remove_workdir()
        self.sweep()

    def reap_ended(self, ready: set[int]) -> None:
        for pid, child in list(self.ending.items()):
            if child.pidfd in ready:
                del self.ending[pid]
                child.close()
                _reap(pid)
                child.remove_workdir()
        self.sweep()

    def sweep(self) -> None:
        # Processes whose parent died were re-parented to this subreaper; only the
        # spare (and the children being ended) may live. Killing one may orphan
        # more, which come here in turn.
        keep = set(self.ending)
        if self.spare is not None:
            keep.add(self.spare.pid)
        for _ in range(100):
            strays = [pid for pid in _children() if pid not in keep]
            if not strays:
                return
            for pid in strays:
                _kill_group(pid)
                _reap(pid)

    def shutdown(self, *_: Any) -> None:
        """Kill every child and what they started, and exit (SIGTERM)."""
        self.finish(0)

    def finish(self, status: int) -> None:
        for child in (self.running, self.spare, *self.ending.values()):
            if child is not None:
                _kill_group(child.pid)
                _reap(child.pid)
                child.remove_workdir()
        self.spare = self.running = None
        self.ending = {}
        self.sweep()
        with contextlib.suppress(Exception):
            self.server.close()
        if self.own is not None:
            shutil.rmtree(self.own, ignore_errors=True)
        os._exit(status)

    def main(self) -> None:
        """Serve requests until idle or told to stop; never returns."""
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, self.shutdown)
        prctl = _libc_prctl()
        if prctl is not None:
            prctl(_PR_SET_NAME, ctypes.c_char_p(_TEMPLATE_NAME), 0, 0, 0)
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)
        # A crash is reported as a row; a traceback dump of a dying child on the
        # terminal would only alarm.
        faulthandler.disable()
        _fresh_standard_streams()
        # The children work in directories of their own: a relative entry of the
        # import path ("" for the directory python was started in) must keep
        # meaning the directory it meant.
        sys.path[:] = [os.path.abspath(entry) for entry in sys.path]
        self.own = os.path.join(self.tmp, f"{_workdir_prefix(self.pid)}template")
        with contextlib.suppress(OSError):
            os.mkdir(self.own, 0o700)
            _use_temporary_folder(self.own)
        with contextlib.suppress(Exception):
            self.server.warm_up()
        # The children's garbage collector must not walk (and so copy, page by
        # page) the objects they inherit. Only the young generations are
        # collected first (the warm-up's garbage): a full collection walks the
        # whole heap, some 80 ms of CPU per template here (plus copying every page
        # it shares with the worker), to free what the worker had not yet freed,
        # which then stays, untouched and shared with the worker, in the template.
        gc.collect(1)
        gc.freeze()
        _huge_pages()
        idle_since = time.monotonic()
        while True:
            pidfds = [child.pidfd for child in self.ending.values()]
            left = _IDLE_EXIT_SECONDS - (time.monotonic() - idle_since)
            ready = _readable([self.conn.fileno(), *pidfds], max(left, 0.0))
            if not ready:
                self.finish(_IDLE_EXIT_STATUS)
            if self.ending and any(fd in ready for fd in pidfds):
                self.reap_ended(ready)
            if self.conn.fileno() not in ready:
                continue
            try:
                requests, timeout = self.conn.recv()
            except (EOFError, OSError):
                self.finish(0)
            self.serve_each(requests, timeout)
            # Requests answered from the kept data used no child; the first one
            # needs its spare.
            if self.spare is None:
                self.spare = self.fork_child()
            idle_since = time.monotonic()

    def serve_each(
        self, requests: list[tuple[str, tuple]], timeout: float | None
    ) -> None:
        """Answer requests in turn, until one fails; each outcome sent when known.

        One at a time, so that if the template dies during a request (a learner
        can kill its parent) the worker knows which one it was.
        """
        for name, args in requests:
            value = self.server.cached(name, args)
            if value is not MISSING:
                outcome = Outcome(Status.OK, value, "", 0.0)
            else:
                outcome = self.serve(name, args, timeout)
                if self.running is not None:
                    self.end(self.running, wait=False)
                    self.running = None
            try:
                self.conn.send(outcome)
            except OSError:
                self.finish(0)
            if outcome.status is not Status.OK:
                break

    def serve(self, name: str, args: tuple, timeout: float | None) -> Outcome:
        """Run one request in a fresh child; its outcome.

        The next request's child is forked while this one runs: the template
        would only wait, and the fork (milliseconds, for a process of this size)
        then delays no answer.
        """
        child = self.spare if self.spare is not None else self.fork_child()
        self.spare = None
        if _exited(child):  # a spare that died waiting (killed from outside)
            self.end(child)
            child = self.fork_child()
        shipped = {
            key: self.server.kept[key]
            for key, generation in self.stamps.items()
            if generation > child.generation and key in self.server.kept
        }
        self.running = child
        start = time.perf_counter()
        try:
            child.conn.send((name, args, shipped))
        except OSError:
            pass  # it died: the wait below says how
        if self.spare is None:
            self.spare = self.fork_child()
        ready = _wait_ready(child.conn, child.pidfd, timeout)
        elapsed = time.perf_counter() - start
        if not ready:
            self.running = None
            self.end(child)
            return Outcome(
                Status.TIMEOUT,
                None,
                f"still running after the timeout of {timeout:g} s; its process "
                "was stopped",
                elapsed,
            )
        try:
            # Dead, with nothing sent: the pipe may still be open (a process the
            # child started holds its end), so do not wait on it.
            if not child.conn.poll(0):
                raise EOFError
            answer = child.conn.recv_bytes()
        except (EOFError, OSError):
            self.running = None
            _kill_group(child.pid)
            child.close()
            status = _reap(child.pid)
            child.remove_workdir()
            self.sweep()
            return _death(status, self.memory_limit, elapsed)
        try:
            outcome, fresh = self.read_answer(name, answer)
        except (NotPlainError, ValueError, TypeError) as exc:
            message = f"its process sent an answer the harness refuses: {exc}"
            return Outcome(Status.FAILED, None, truncate(message), elapsed)
        if fresh:
            self.generation += 1
            for key in fresh:
                self.stamps[key] = self.generation
            self.server.merge(fresh)
            kept = self.server.kept
            self.stamps = {k: g for k, g in self.stamps.items() if k in kept}
        return outcome

    def read_answer(self, name: str, answer: bytes) -> tuple[Outcome, dict]:
        """The outcome and kept entries of a child's answer to request ``name``.

        The answer may have been written by the learner the child ran: it is
        read as plain data only, must be an answer to this very request, and
        brings kept entries only for a request that may keep data, each in the
        form the server expects.
        """
        server = self.server
        decoded = loads_plain(answer, server.plain_types)
        if type(decoded) is not tuple or len(decoded) != 6:
            raise ValueError("it is not an answer")
        kind, status, value, message, elapsed, fresh = decoded
        if kind != name:
            raise ValueError(f"it answers a {_short(kind)} request, not {name!r}")
        if type(message) is not str or type(elapsed) is not float:
            raise ValueError("its message or its duration is malformed")
        outcome = Outcome(Status(status), value, message, elapsed)
        if type(fresh) is not list or not all(
            type(entry) is tuple and len(entry) == 2 for entry in fresh
        ):
            raise ValueError("its kept entries are malformed")
        if fresh and (outcome.status is not Status.OK or name not in server.keeping):
            raise ValueError(f"a {name!r} request may not change the kept data")
        for key, kept in fresh:
            if not server.accepts_kept(key, kept):
                raise ValueError(f"the kept entry {_short(key)} is malformed")
        return outcome, dict(fresh)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _exited(child: _Child) -> bool:
    if child.pidfd is not None:
        return bool(_readable([child.pidfd], 0))
    return False


# --------------------------------------------------------------------------------------
# The worker's side
# --------------------------------------------------------------------------------------

# Forks of this process's templates, one at a time, so that none inherits the
# other end of another template's pipe while it is being set up.
_FORK_LOCK = threading.Lock()


class ForkServer:
    """A template process that runs each request in a fresh forked child.

    Parameters
    ----------
    server : Server
        Run in the children (inherited through ``fork``, never pickled).
    memory_limit : int or None
        Bytes each request may allocate on top of what its child already uses.
    """

    def __init__(self, server: Server, memory_limit: int | None = None) -> None:
        self._server = server
        self._memory_limit = memory_limit
        self._pid: int | None = None
        self._pidfd: int | None = None
        self._conn: Connection | None = None

    def _start(self) -> None:
        watch_parent()  # a no-op where loky's initializer has already run it
        _become_subreaper()
        with _FORK_LOCK:
            parent_end, template_end = Pipe(duplex=True)
            parent = os.getpid()
            with warnings.catch_warnings():
                # Python 3.12+ warns that forking a multi-threaded process may
                # deadlock the child on a lock another thread held; the template
                # touches no such lock (fresh standard streams, no logging, no
                # thread pools of ours), and its own children fork from it alone.
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
            if pid == 0:
                try:
                    parent_end.close()
                    # SIGTERM, not SIGKILL: the template kills what it runs first.
                    _die_with_parent(parent, signal.SIGTERM)
                finally:
                    _Template(template_end, self._server, self._memory_limit).main()
            template_end.close()
            _TEMPLATES.add(pid)
        self._pid, self._conn, self._pidfd = pid, parent_end, _pidfd(pid)

    def _stop(self, *, kill: bool = True) -> int | None:
        """Reap the template (stopping it first, unless it is exiting on its own).

        A stopped template kills its children and what they started before it
        exits; one that does not exit within a second is killed. Returns its wait
        status, or None if there was none.
        """
        pid, conn, pidfd = self._pid, self._conn, self._pidfd
        self._pid = self._conn = self._pidfd = None
        if conn is not None:
            conn.close()
        if pid is None:
            return None
        if kill:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                with contextlib.suppress(ChildProcessError):
                    done, status = os.waitpid(pid, os.WNOHANG)
                    if done:
                        break
                time.sleep(0.001)
            else:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        status = _reap(pid)
        with _FORK_LOCK:
            _TEMPLATES.discard(pid)
        # What a template killed before it could clean up leaves behind.
        folder = tempfile.gettempdir()
        with contextlib.suppress(OSError):
            for name in os.listdir(folder):
                if name.startswith(_workdir_prefix(pid)):
                    shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
        if pidfd is not None:
            os.close(pidfd)
        return status

    def call(self, name: str, args: tuple, timeout: float | None = None) -> Outcome:
        """Run ``server(name, args)`` in a fresh child, within ``timeout`` seconds.

        Parameters
        ----------
        name : str
            The request's name.
        args : tuple
            Its arguments (pickled).
        timeout : float or None
            Deadline in seconds; None waits for ever.

        Returns
        -------
        Outcome
            What became of the request.
        """
        return self.call_each([(name, args)], timeout)[0]

    def call_each(
        self, requests: list[tuple[str, tuple]], timeout: float | None = None
    ) -> list[Outcome]:
        """Run requests in turn, each in a fresh child, until one fails.

        One message each way for all of them. ``timeout`` applies to each.

        Returns
        -------
        list of Outcome
            One per request run: all of them, or up to the first that failed.
        """
        outcomes = self._attempt(requests, timeout)
        if outcomes is None:  # the template had just left for idleness: a new one
            outcomes = self._attempt(requests, timeout)
        return outcomes or [_death(None, self._memory_limit, 0.0)]

    def _attempt(
        self, requests: list[tuple[str, tuple]], timeout: float | None
    ) -> list[Outcome] | None:
        if self._conn is not None and self._template_exited():
            self._stop(kill=False)  # idle exit, or its worker thread ended
        if self._conn is None:
            self._start()
        outcomes: list[Outcome] = []
        start = time.perf_counter()
        try:
            self._conn.send((requests, timeout))
            limit = None if timeout is None else timeout + _TEMPLATE_GRACE_SECONDS
            # One message per request, sent as each ends.
            while len(outcomes) < len(requests):
                start = time.perf_counter()
                if not _wait_ready(self._conn, self._pidfd, limit):
                    self._stop()
                    end_strays()
                    outcomes.append(
                        Outcome(
                            Status.TIMEOUT,
                            None,
                            f"still running after the timeout of {timeout:g} s; "
                            "its process was stopped",
                            time.perf_counter() - start,
                        )
                    )
                    break
                if not self._conn.poll(0):  # the template died, with nothing sent
                    raise EOFError
                outcomes.append(self._conn.recv())
                if outcomes[-1].status is not Status.OK:
                    break
            return outcomes
        except (BrokenPipeError, ConnectionResetError, EOFError, OSError):
            status = self._stop(kill=False)
            if _idle_exit(status) and not outcomes:
                return None
            # The template died during a request: what that request started,
            # now this process's (a subreaper), ends here.
            end_strays()
            elapsed = time.perf_counter() - start
            return [*outcomes, _template_death(status, elapsed)]
        except BaseException:  # Ctrl-C while waiting: no child outlives the harness
            self._stop()
            end_strays()
            raise

    def _template_exited(self) -> bool:
        if self._pidfd is not None:
            return bool(_readable([self._pidfd], 0))
        with contextlib.suppress(ChildProcessError):
            return os.waitpid(self._pid, os.WNOHANG)[0] != 0
        return True

    def close(self) -> None:
        """Stop the template, its children and what they started."""
        self._stop()


def _template_death(status: int | None, elapsed: float) -> Outcome:
    """The outcome of a request during which the template itself died.

    The request's process is the template's child: a learner can kill it (its
    parent), and so can the operating system's out-of-memory killer. Either way
    the request ended with it, and its row says so: ``crashed``.
    """
    if status is not None and os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        how = f"was killed by signal {signal.Signals(number).name}"
    else:
        code = os.WEXITSTATUS(status) if status is not None else "unknown"
        how = f"exited with status {code}"
    return Outcome(
        Status.CRASHED,
        None,
        f"the fork server process running it {how} while it ran (a process can "
        "kill its parent; the operating system does so when out of memory)",
        elapsed,
    )


def _idle_exit(status: int | None) -> bool:
    return (
        status is not None
        and os.WIFEXITED(status)
        and os.WEXITSTATUS(status) == _IDLE_EXIT_STATUS
    )


# Pids of the templates this process has forked (under _FORK_LOCK): its only
# children besides those it had before it became a subreaper.
_TEMPLATES: set[int] = set()
# This process's children when it became a subreaper, with their start times.
_BEFORE: set[tuple[int, str]] | None = None


def _start_time(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def _all_children() -> list[int]:
    """The children of every thread of this process (Linux; [] where unknown)."""
    found = []
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError, ValueError):
                with open(f"/proc/self/task/{task}/children") as children:
                    found += [int(pid) for pid in children.read().split()]
    return found


def _become_subreaper() -> None:
    """Have what a fit leaves, even if it kills the template, become this process's.

    A learner can kill its template (its parent's parent) after starting a process
    in a session of its own; without a subreaper above the template that process
    would go to init and outlive the run. Called before a template is forked (the
    kernel looks for a subreaper among the ancestors that had one at their fork).
    The children this process already had are remembered: they are not the
    learners', and :func:`end_strays` leaves them alone.
    """
    global _BEFORE
    with _FORK_LOCK:
        if _BEFORE is None:
            _BEFORE = {(pid, _start_time(pid)) for pid in _all_children()}
            _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def adopt_strays() -> None:
    """In the process that calls ``run()``: what a fit leaves comes here until the
    run's :func:`close_children`.

    With worker processes (loky), an interruption makes loky kill each worker's
    process tree from a listing of it; a process that a fit started after that
    listing loses its fit, its template and its worker within moments, and would
    go to init and outlive the run. With this process a subreaper for the run it
    comes here instead (the kernel marks every existing descendant to look for
    one), and :func:`close_children` ends it.
    """
    _become_subreaper()


def _foreign_session(pid: int) -> bool:
    """Whether ``pid`` is in another session than this process (False if gone)."""
    try:
        return os.getsid(pid) != os.getsid(0)
    except OSError:
        return False


def _process_name(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/comm", "rb") as comm:
            return comm.read().strip()
    except OSError:
        return b""


def _stop_orphaned_template(pid: int) -> None:
    """Stop a template that came to this process, and wait until it has exited.

    What its fits started comes here only once it has exited.
    """
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)  # it kills its children first
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG)[0]:
                return
        time.sleep(0.005)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    _reap(pid)


def end_strays() -> None:
    """Kill and reap this process's children that are not its templates.

    Once this process is a subreaper, such a child can only be what a fit left
    when its template died: orphans come here, and killing one may orphan more,
    which come here in turn. What a fit starts is always in a session other than
    this process's (each child starts a session of its own), so children of this
    session -- loky's workers and resource tracker, started during a run in the
    process that called ``run()`` -- are never taken for strays.

    One child of this session is ended too: a template of another process (by
    its name), which came here when loky killed its worker on an interruption.
    It may still be exiting (under load, for a while), and what its fits started
    comes here only once it has: it is stopped and waited for first, so that its
    orphans are found in the next round, not left to init after ``run()``.
    """
    if _BEFORE is None:
        return
    with _FORK_LOCK:
        for _ in range(100):
            children = [
                pid
                for pid in _all_children()
                if pid not in _TEMPLATES and (pid, _start_time(pid)) not in _BEFORE
            ]
            strays = [pid for pid in children if _foreign_session(pid)]
            templates = [
                pid
                for pid in children
                if pid not in strays and _process_name(pid) == _TEMPLATE_NAME
            ]
            if not strays and not templates:
                return
            for pid in templates:
                _stop_orphaned_template(pid)
            for pid in strays:
                _kill_group(pid)
                _reap(pid)


def _stop_being_subreaper() -> None:
    """In the process that called ``run()``, once it has no template left."""
    global _BEFORE
    with _FORK_LOCK:
        if _BEFORE is not None and not _TEMPLATES:
            _prctl(_PR_SET_CHILD_SUBREAPER, 0)
            _BEFORE = None


# Fork servers of this process, by owner (a worker thread and a study), so that a
# worker thread reuses its template across tasks and the run can close them all.
_CHILDREN: dict[tuple[int, str], ForkServer | InProcess] = {}
_CHILDREN_LOCK = threading.Lock()


def worker_for(
    token: str,
    make_server: Callable[[], Server],
    *,
    isolate: bool,
    memory_limit: int | None,
) -> ForkServer | InProcess:
    """The request server of the calling thread for the study ``token``.

    One per (thread, study), kept across tasks so that what it has drawn is reused;
    ``make_server`` (returning a :class:`Server`) is called only when a new one is
    needed.
    """
    key = (threading.get_ident(), token)
    with _CHILDREN_LOCK:
        worker = _CHILDREN.get(key)
        if worker is None:
            # A worker of another study in this thread is of no further use.
            for old in [k for k in _CHILDREN if k[0] == key[0]]:
                _CHILDREN.pop(old).close()
            server = make_server()
            worker = _CHILDREN[key] = (
                ForkServer(server, memory_limit) if isolate else InProcess(server)
            )
    return worker


def close_children(token: str | None = None) -> None:
    """Stop the fork servers of this process (of one study, or all of them).

    Then end whatever a fit left to this process; in a process that is not a
    harness worker (the one that called ``run()``), it stops being a subreaper
    once no template is left, so that other processes' orphans do not come to it.
    """
    with _CHILDREN_LOCK:
        keys = [k for k in _CHILDREN if token is None or k[1] == token]
        children = [_CHILDREN.pop(k) for k in keys]
    for child in children:
        child.close()
    end_strays()
    if multiprocessing.parent_process() is None:
        _stop_being_subreaper()
