"""Process plumbing of the fork server (Linux; elsewhere the calls that are
missing are skipped): ``prctl``, pidfds, waiting, reaping and killing, the
standard streams, huge pages, and what a child closes of what it inherits.

Several of these run in the template or in every child, where each object
written costs a copy-on-write fault: they are written to allocate little.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import math
import os
import resource
import select
import signal
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection

__all__ = [
    "PR_SET_CHILD_SUBREAPER",
    "PR_SET_NAME",
    "PR_SET_PDEATHSIG",
    "address_space",
    "children",
    "close_inherited",
    "die_with_parent",
    "discard_output",
    "fresh_standard_streams",
    "huge_pages",
    "kill_group",
    "libc_munmap",
    "libc_prctl",
    "pidfd",
    "prctl",
    "readable",
    "reap",
    "shared_mappings",
    "wait_ready",
]

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NAME = 15


@functools.cache
def libc_prctl() -> Callable[..., int] | None:
    # Looked up once, in the template: every child calls it, and a lookup (a new
    # ctypes library object and function type) costs a child copy-on-write faults.
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError, TypeError):
        return None


def prctl(option: int, value: int) -> None:
    libc = libc_prctl()
    if libc is not None:
        libc(option, value, 0, 0, 0)


def die_with_parent(parent: int, signum: int) -> None:
    """Have ``signum`` sent to this process when its parent dies; exit if it has."""
    prctl(PR_SET_PDEATHSIG, signum)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(0)


def fresh_standard_streams() -> None:
    # Another thread of the worker may have held the lock of sys.stdout at the
    # fork; in the template that lock would never be released. New stream objects
    # on the same descriptors keep a learner's prints working.
    for name, fd in (("stdout", 1), ("stderr", 2)):
        with contextlib.suppress(OSError, ValueError):
            setattr(sys, name, open(os.dup(fd), "w", buffering=1))


def discard_output() -> None:
    """Send this process's standard output and error, Python's and C's, nowhere."""
    with contextlib.suppress(OSError, ValueError):
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    null = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(null, fd)
    os.close(null)
    # The template's stream objects write to descriptors of their own (see
    # fresh_standard_streams): new ones, on the silenced descriptors.
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)


def address_space() -> int:
    """Bytes of virtual memory this process has mapped (Linux), or 0 if unknown."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


_MADV_HUGEPAGE = 14
_MADV_COLLAPSE = 25  # Linux 6.1+
_HUGE_PAGE = 2 * 2**20


def huge_pages() -> None:
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


def pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when ``pid`` exits (None if unsupported)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def readable(fds: list[int], timeout: float | None) -> set[int]:
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


def wait_ready(conn: Connection, pidfd: int | None, timeout: float | None) -> bool:
    """Wait until ``conn`` has data or the process behind ``pidfd`` has exited."""
    if pidfd is not None:
        return bool(readable([conn.fileno(), pidfd], timeout))
    # Without pidfds (Linux before 5.3): a death is seen when the pipe closes, so a
    # descendant that holds the pipe can hide it until the deadline.
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        step = 0.05 if deadline is None else min(0.05, deadline - time.monotonic())
        if step <= 0:
            return False
        if conn.poll(step):
            return True


def reap(pid: int) -> int | None:
    with contextlib.suppress(ChildProcessError):
        return os.waitpid(pid, 0)[1]
    return None


def children() -> list[int]:
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


def kill_group(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def shared_mappings() -> list[tuple[int, int]]:
    """This process's shared writable file mappings: (address, length) each.

    Read once in the template: its children inherit exactly these (it creates
    none), and each unmaps them (:func:`close_inherited`).
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
def libc_munmap() -> Callable[..., int] | None:
    # Looked up once, in the template (see libc_prctl).
    try:
        munmap = ctypes.CDLL(None, use_errno=True).munmap
    except (OSError, AttributeError):
        return None
    munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return munmap


def close_inherited(keep: set[int], mappings: list[tuple[int, int]]) -> None:
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
    munmap = libc_munmap()
    if munmap is not None:
        for address, length in mappings:
            munmap(address, length)
