"""The template process of a fork server, and the child it forks per request.

The template has every module imported, runs no learner or generator code, and
has a single thread; it forks a fresh child for every request (and the spare for
the next one while a request runs), keeps what the draws sent back, and reads
every answer with the restricted reader (``_plain_data.py``). A child serves one
request in its own session and working directory, then exits. Why, and what
each request is guaranteed: ``_isolation.py``.
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import gc
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Hashable
from dataclasses import dataclass
from multiprocessing.connection import Connection, Pipe
from typing import Any, cast

from ..results._schema import Status
from ._outcomes import MISSING, Outcome, death, error_message, run_request, truncate
from ._plain_data import NotPlainError, check_plain, dumps_plain, loads_plain
from ._processes import (
    PR_SET_CHILD_SUBREAPER,
    PR_SET_NAME,
    address_space,
    children,
    close_inherited,
    die_with_parent,
    discard_output,
    fresh_standard_streams,
    huge_pages,
    kill_group,
    libc_munmap,
    libc_prctl,
    pidfd,
    prctl,
    readable,
    reap,
    shared_mappings,
    wait_ready,
)
from ._server import Server

__all__ = ["IDLE_EXIT_STATUS", "TEMPLATE_NAME", "Template", "workdir_prefix"]

# A template with no request for this long exits: workers of a finished run (loky
# keeps its processes for reuse) do not keep templates and children. It exits with
# its own status, so that the worker tells this apart from a death and forks anew.
_IDLE_EXIT_SECONDS = 1.5
IDLE_EXIT_STATUS = 111
# A template's process name (its ``comm``, at most 15 bytes): how the process that
# called ``run()`` tells a template that came to it, its worker killed, from its
# own loky workers (:func:`end_strays`).
TEMPLATE_NAME = b"skggm-template"


# --------------------------------------------------------------------------------------
# The child: one request, then exit
# --------------------------------------------------------------------------------------


def _answer(
    name: str, outcome: Outcome, fresh: dict[Hashable, Any], types: tuple[type, ...]
) -> bytes:
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
        discard_output()
        if memory_limit is not None:
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
            cap = address_space() + memory_limit
            if hard != resource.RLIM_INFINITY:
                cap = min(cap, hard)
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        outcome = run_request(server, name, args)
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


def workdir_prefix(template: int) -> str:
    """The prefix of the working directories of a template's children.

    With the template's pid, so that the worker removes those a killed template
    could not (:meth:`ForkServer._stop`).
    """
    return f"skggm-bench-fit-{template}-"


# --------------------------------------------------------------------------------------
# The template: forks a child per request, keeps the drawn data
# --------------------------------------------------------------------------------------


class Template:
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
        self.mappings = shared_mappings()
        libc_munmap()
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
        prefix = workdir_prefix(self.pid)
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
                die_with_parent(self.pid, signal.SIGKILL)
                ours.close()
                self.conn.close()
                for child in (self.spare, self.running, *self.ending.values()):
                    if child is not None:
                        child.close()
                streams = {stream.fileno() for stream in (sys.stdout, sys.stderr)}
                close_inherited({0, 1, 2, theirs.fileno(), *streams}, self.mappings)
                if workdir is not None:
                    os.chdir(workdir)
                    _use_temporary_folder(workdir)
            finally:
                _child_main(theirs, self.server, self.memory_limit)
        theirs.close()
        return _Child(pid, ours, pidfd(pid), self.generation, workdir)

    def end(self, child: _Child, *, wait: bool = True) -> None:
        """Kill ``child``, its session and whatever it left; reap them.

        With ``wait=False`` (a child that has answered) the kill is sent now and
        the reaping waits for its pidfd, so that the worker does not wait for the
        child's exit.
        """
        kill_group(child.pid)
        if not wait and child.pidfd is not None:
            self.ending[child.pid] = child
            return
        child.close()
        reap(child.pid)
        child.remove_workdir()
        self.sweep()

    def reap_ended(self, ready: set[int]) -> None:
        for pid, child in list(self.ending.items()):
            if child.pidfd in ready:
                del self.ending[pid]
                child.close()
                reap(pid)
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
            strays = [pid for pid in children() if pid not in keep]
            if not strays:
                return
            for pid in strays:
                kill_group(pid)
                reap(pid)

    def shutdown(self, *_: Any) -> None:
        """Kill every child and what they started, and exit (SIGTERM)."""
        self.finish(0)

    def finish(self, status: int) -> None:
        for child in (self.running, self.spare, *self.ending.values()):
            if child is not None:
                kill_group(child.pid)
                reap(child.pid)
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
        libc = libc_prctl()
        if libc is not None:
            libc(PR_SET_NAME, ctypes.c_char_p(TEMPLATE_NAME), 0, 0, 0)
        prctl(PR_SET_CHILD_SUBREAPER, 1)
        # A crash is reported as a row; a traceback dump of a dying child on the
        # terminal would only alarm.
        faulthandler.disable()
        fresh_standard_streams()
        # The children work in directories of their own: a relative entry of the
        # import path ("" for the directory python was started in) must keep
        # meaning the directory it meant.
        sys.path[:] = [os.path.abspath(entry) for entry in sys.path]
        self.own = os.path.join(self.tmp, f"{workdir_prefix(self.pid)}template")
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
        huge_pages()
        idle_since = time.monotonic()
        while True:
            # Only a child with a pidfd waits in `ending` (see `end`).
            pidfds = [cast(int, child.pidfd) for child in self.ending.values()]
            left = _IDLE_EXIT_SECONDS - (time.monotonic() - idle_since)
            ready = readable([self.conn.fileno(), *pidfds], max(left, 0.0))
            if not ready:
                self.finish(IDLE_EXIT_STATUS)
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
        self, requests: list[tuple[str, tuple[Any, ...]]], timeout: float | None
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

    def serve(self, name: str, args: tuple[Any, ...], timeout: float | None) -> Outcome:
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
        ready = wait_ready(child.conn, child.pidfd, timeout)
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
            kill_group(child.pid)
            child.close()
            status = reap(child.pid)
            child.remove_workdir()
            self.sweep()
            return death(status, self.memory_limit, elapsed)
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

    def read_answer(
        self, name: str, answer: bytes
    ) -> tuple[Outcome, dict[Hashable, Any]]:
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
        return bool(readable([child.pidfd], 0))
    return False
