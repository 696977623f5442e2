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
a :class:`~._server.Server`; what the names mean (drawing a data set, fitting a
learner) is defined in ``_worker.py``. This module is the worker's side (the fork
server, the strays, a server per worker thread); the template and its children
are ``_template.py``, the outcomes ``_outcomes.py``, the system calls
``_processes.py``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from multiprocessing.connection import Connection, Pipe
from typing import Any, cast

from ..._parent_watch import watch_parent
from ..results._schema import Status
from ._outcomes import Outcome, death
from ._processes import (
    PR_SET_CHILD_SUBREAPER,
    die_with_parent,
    kill_group,
    pidfd,
    prctl,
    readable,
    reap,
    wait_ready,
)
from ._server import InProcess, Server
from ._template import IDLE_EXIT_STATUS, TEMPLATE_NAME, Template, workdir_prefix

__all__ = [
    "ForkServer",
    "adopt_strays",
    "close_children",
    "end_strays",
    "worker_for",
]

# A template that has not answered this long after the request's own deadline is
# broken (it never should be): the worker kills it and reports a timeout.
_TEMPLATE_GRACE_SECONDS = 30.0


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
                    die_with_parent(parent, signal.SIGTERM)
                finally:
                    Template(template_end, self._server, self._memory_limit).main()
            template_end.close()
            _TEMPLATES.add(pid)
        self._pid, self._conn, self._pidfd = pid, parent_end, pidfd(pid)

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
        status: int | None
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
        status = reap(pid)
        with _FORK_LOCK:
            _TEMPLATES.discard(pid)
        # What a template killed before it could clean up leaves behind.
        folder = tempfile.gettempdir()
        with contextlib.suppress(OSError):
            for name in os.listdir(folder):
                if name.startswith(workdir_prefix(pid)):
                    shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
        if pidfd is not None:
            os.close(pidfd)
        return status

    def call(
        self, name: str, args: tuple[Any, ...], timeout: float | None = None
    ) -> Outcome:
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
        self, requests: list[tuple[str, tuple[Any, ...]]], timeout: float | None = None
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
        return outcomes or [death(None, self._memory_limit, 0.0)]

    def _attempt(
        self, requests: list[tuple[str, tuple[Any, ...]]], timeout: float | None
    ) -> list[Outcome] | None:
        if self._conn is not None and self._template_exited():
            self._stop(kill=False)  # idle exit, or its worker thread ended
        if self._conn is None:
            self._start()
        # _start has set it (mypy keeps the narrowing to None across the call).
        conn = cast(Connection, self._conn)
        outcomes: list[Outcome] = []
        start = time.perf_counter()
        try:
            conn.send((requests, timeout))
            limit = None if timeout is None else timeout + _TEMPLATE_GRACE_SECONDS
            # One message per request, sent as each ends.
            while len(outcomes) < len(requests):
                start = time.perf_counter()
                if not wait_ready(conn, self._pidfd, limit):
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
                if not conn.poll(0):  # the template died, with nothing sent
                    raise EOFError
                outcomes.append(conn.recv())
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
            return bool(readable([self._pidfd], 0))
        with contextlib.suppress(ChildProcessError):
            # Called with a template running, so with its pid set.
            return os.waitpid(cast(int, self._pid), os.WNOHANG)[0] != 0
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
        and os.WEXITSTATUS(status) == IDLE_EXIT_STATUS
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
            prctl(PR_SET_CHILD_SUBREAPER, 1)


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
    reap(pid)


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
                if pid not in strays and _process_name(pid) == TEMPLATE_NAME
            ]
            if not strays and not templates:
                return
            for pid in templates:
                _stop_orphaned_template(pid)
            for pid in strays:
                kill_group(pid)
                reap(pid)


def _stop_being_subreaper() -> None:
    """In the process that called ``run()``, once it has no template left."""
    global _BEFORE
    with _FORK_LOCK:
        if _BEFORE is not None and not _TEMPLATES:
            prctl(PR_SET_CHILD_SUBREAPER, 0)
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
