"""How one fit is run safely: in a child process that can be stopped and replaced.

Why a process, and why this one
    A learner is arbitrary code. It can raise anything (``SystemExit`` and
    ``KeyboardInterrupt`` included), loop for ever inside a compiled solver, block
    on an attribute, allocate until the operating system kills it, crash the
    interpreter (a segmentation fault, ``os._exit``), or write into its input. Only
    a separate process can be stopped at a deadline whatever it is doing, and only a
    separate process dies alone. Each harness worker (a loky process, a thread, the
    main process with ``n_jobs=1``, a dask worker thread) therefore runs its fits in
    a *child process* of its own, created with ``os.fork`` so that it starts at once
    with every module already imported, and keeps it for the following fits: the
    cost of isolation is one message each way (well under a millisecond), not one
    process per fit (about 10 ms here).

What the child guarantees
    * A deadline: the parent waits at most ``timeout`` seconds for the answer, then
      kills the child (``SIGKILL``: no code can ignore it) and starts a new one for
      the next request. Nothing of the stopped fit keeps running.
    * A memory limit: before each request the child caps its address space at what
      it uses plus ``memory_limit`` bytes (``RLIMIT_AS``), so a runaway allocation
      raises ``MemoryError`` in that fit instead of exhausting the machine.
    * Death is an outcome: when the child dies, the parent reports how (signal,
      exit status) and starts a new child.
    * No orphans: the child ignores Ctrl-C (the harness handles it), dies with its
      parent (``PR_SET_PDEATHSIG`` on Linux), exits when idle, and is closed at the
      end of a run; a child whose request left Python threads running is replaced.

The child is generic: it runs ``serve(name, args)`` for each request; what that
means (drawing a data set, fitting a learner) is defined in ``_tasks.py``.
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import os
import resource
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, Pipe
from typing import Any

from ._schema import Status

__all__ = [
    "ChildProcess",
    "InProcess",
    "Outcome",
    "close_children",
    "error_message",
    "truncate",
    "worker_for",
]

# A child with no request for this long exits: workers of a finished run (loky
# keeps its processes for reuse) do not keep idle children. It exits with its own
# status, so that the parent tells this apart from a crash and starts a new one.
_IDLE_EXIT_SECONDS = 30.0
_IDLE_EXIT_STATUS = 111
# Failure messages keep the head of long texts: a row is not a log.
_MAX_MESSAGE = 2000
_PR_SET_PDEATHSIG = 1

_SIGNAL_NAMES = {
    signal.SIGSEGV: "a segmentation fault (SIGSEGV)",
    signal.SIGABRT: "an abort (SIGABRT)",
    signal.SIGBUS: "a bus error (SIGBUS)",
    signal.SIGFPE: "a floating-point exception (SIGFPE)",
    signal.SIGILL: "an illegal instruction (SIGILL)",
    signal.SIGTERM: "a termination request (SIGTERM)",
}


@dataclass(frozen=True)
class Outcome:
    """What became of one request.

    Attributes
    ----------
    status : Status
        ``OK``, or how it failed: ``FAILED`` (it raised), ``TIMEOUT``,
        ``CRASHED`` (its process died), ``MEMORY``.
    value : object
        What ``serve`` returned (``None`` unless ``OK``).
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


def _run(serve: Callable[[str, tuple], Any], name: str, args: tuple) -> Outcome:
    start = time.perf_counter()
    try:
        value = serve(name, args)
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

    def __init__(self, serve: Callable[[str, tuple], Any]) -> None:
        self._serve = serve

    def call(self, name: str, args: tuple, timeout: float | None = None) -> Outcome:
        """Run ``serve(name, args)`` here; see :meth:`ChildProcess.call`."""
        outcome = _run(self._serve, name, args)
        if outcome.message.startswith("KeyboardInterrupt"):
            raise KeyboardInterrupt
        return outcome

    def close(self) -> None:
        """Nothing to release."""


def _die_with_parent(parent: int) -> None:
    """Ask Linux to kill this process when its parent dies; exit if it already has."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(0)


def _fresh_standard_streams() -> None:
    # Another thread of the parent may have held the lock of sys.stdout at the fork;
    # in the child that lock would never be released. New stream objects on the
    # same descriptors keep a learner's prints working.
    for name, fd in (("stdout", 1), ("stderr", 2)):
        with contextlib.suppress(OSError, ValueError):
            setattr(sys, name, open(os.dup(fd), "w", buffering=1))


def _address_space() -> int:
    """Bytes of virtual memory this process has mapped (Linux), or 0 if unknown."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


@contextlib.contextmanager
def _memory_limit(limit: int | None) -> Iterator[None]:
    if limit is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = _address_space() + limit
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _child_main(
    conn: Connection, serve: Callable[[str, tuple], Any], memory_limit: int | None
) -> None:
    """The loop of the child process; never returns."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        # A crash is reported as a row; a traceback dump of the dying child on the
        # terminal would only alarm.
        faulthandler.disable()
        _fresh_standard_streams()
        while True:
            if not conn.poll(_IDLE_EXIT_SECONDS):
                os._exit(_IDLE_EXIT_STATUS)
            try:
                name, args = conn.recv()
            except (EOFError, OSError):
                break
            with _memory_limit(memory_limit):
                outcome = _run(serve, name, args)
            try:
                conn.send(outcome)
            except Exception as exc:
                conn.send(
                    Outcome(
                        Status.FAILED,
                        None,
                        f"its result cannot be sent back: {error_message(exc)}",
                        outcome.elapsed,
                    )
                )
            if threading.active_count() > 1:
                break  # the request left threads running: start afresh
    finally:
        os._exit(0)


def _idle_exit(status: int | None) -> bool:
    return (
        status is not None
        and os.WIFEXITED(status)
        and os.WEXITSTATUS(status) == _IDLE_EXIT_STATUS
    )


class ChildProcess:
    """A forked child that serves requests, stopped at deadlines and replaced.

    Parameters
    ----------
    serve : callable
        ``serve(name, args) -> value``, run in the child. It is inherited through
        ``fork`` (never pickled), together with whatever it refers to.
    memory_limit : int or None
        Bytes each request may allocate on top of what the child already uses.
    """

    def __init__(
        self, serve: Callable[[str, tuple], Any], memory_limit: int | None = None
    ) -> None:
        self._serve = serve
        self._memory_limit = memory_limit
        self._pid: int | None = None
        self._conn: Connection | None = None

    def _start(self) -> None:
        parent_end, child_end = Pipe(duplex=True)
        parent = os.getpid()
        with warnings.catch_warnings():
            # Python 3.12+ warns that forking a multi-threaded process may deadlock
            # the child on a lock another thread held; the child touches no such
            # lock (fresh standard streams, no logging, no thread pools of ours).
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child
            parent_end.close()
            _die_with_parent(parent)
            _child_main(child_end, self._serve, self._memory_limit)
        child_end.close()
        self._pid, self._conn = pid, parent_end

    def _stop(self, *, kill: bool = True) -> int | None:
        """Reap the child (killing it first, unless it is exiting on its own).

        Returns its wait status, or None if there was none.
        """
        pid, conn = self._pid, self._conn
        self._pid = self._conn = None
        if conn is not None:
            conn.close()
        if pid is None:
            return None
        if kill:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            return os.waitpid(pid, 0)[1]
        return None

    def _death(self, status: int | None, elapsed: float) -> Outcome:
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
        if self._memory_limit is not None:
            message += (
                f"; its memory limit was {self._memory_limit / 2**20:.0f} MiB, and a "
                "failed allocation in C code can end like this"
            )
        return Outcome(Status.CRASHED, None, message, elapsed)

    def call(self, name: str, args: tuple, timeout: float | None = None) -> Outcome:
        """Run ``serve(name, args)`` in the child, within ``timeout`` seconds.

        Parameters
        ----------
        name : str
            Passed to ``serve``.
        args : tuple
            Passed to ``serve`` (pickled).
        timeout : float or None
            Deadline in seconds; None waits for ever.

        Returns
        -------
        Outcome
            What became of the request. After a timeout or a death the child is
            gone; the next call starts a new one.
        """
        outcome = self._attempt(name, args, timeout)
        if outcome is None:  # the child had just left for idleness: ask a new one
            outcome = self._attempt(name, args, timeout)
        return outcome or self._death(None, 0.0)

    def _attempt(self, name: str, args: tuple, timeout: float | None) -> Outcome | None:
        if self._conn is None:
            self._start()
        start = time.perf_counter()
        try:
            self._conn.send((name, args))
            if not self._conn.poll(timeout):
                self._stop()
                return Outcome(
                    Status.TIMEOUT,
                    None,
                    f"still running after the timeout of {timeout:g} s; its process "
                    "was stopped",
                    time.perf_counter() - start,
                )
            return self._conn.recv()
        except (BrokenPipeError, ConnectionResetError, EOFError, OSError):
            status = self._stop(kill=False)
            if _idle_exit(status):
                return None
            return self._death(status, time.perf_counter() - start)
        except BaseException:  # Ctrl-C while waiting: no child outlives the harness
            self._stop()
            raise

    def close(self) -> None:
        """Stop the child (if any)."""
        self._stop()


# Request servers of this process, by owner (a worker thread and a study), so that
# a worker thread reuses its child across tasks and the run can close them all.
_CHILDREN: dict[tuple[int, str], ChildProcess | InProcess] = {}
_CHILDREN_LOCK = threading.Lock()


def worker_for(
    token: str,
    make_serve: Callable[[], Callable[[str, tuple], Any]],
    *,
    isolate: bool,
    memory_limit: int | None,
) -> ChildProcess | InProcess:
    """The request server of the calling thread for the study ``token``.

    One per (thread, study), kept across tasks so that what it has drawn is reused;
    ``make_serve`` is called only when a new one is needed.
    """
    key = (threading.get_ident(), token)
    with _CHILDREN_LOCK:
        worker = _CHILDREN.get(key)
        if worker is None:
            # A worker of another study in this thread is of no further use.
            for old in [k for k in _CHILDREN if k[0] == key[0]]:
                _CHILDREN.pop(old).close()
            serve = make_serve()
            worker = _CHILDREN[key] = (
                ChildProcess(serve, memory_limit) if isolate else InProcess(serve)
            )
    return worker


def close_children(token: str | None = None) -> None:
    """Stop the children of this process (of one study, or all of them)."""
    with _CHILDREN_LOCK:
        keys = [k for k in _CHILDREN if token is None or k[1] == token]
        children = [_CHILDREN.pop(k) for k in keys]
    for child in children:
        child.close()
