"""A harness worker process dies with its parent, from its very start.

A worker started by ``multiprocessing`` or loky reads its tasks from a queue its
parent writes; while it imports, unpickles a task or runs a fit it reads nothing,
so it would not notice that the process that called ``run()`` was killed. A
thread of its own waits for the parent's exit and ends the worker (whose fork
servers then end what they run).

This module sits at the package's top, outside ``benchmark/``, and imports only
the standard library, because it must load in milliseconds: a loky or
multiprocessing worker runs :func:`watch_parent` as its pool's initializer,
*before* it unpickles its first task, which imports the harness (seconds; a
minute on a loaded machine). A worker that watched its parent only from its
first fit on outlived a run killed during its start-up by as long as those
imports took, and one fitting in its own process (``isolate=False``) by its
whole fit.
"""

from __future__ import annotations

import multiprocessing
import os
import select
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["watch_parent"]

_WATCHING = False
_LOCK = threading.Lock()


def watch_parent(then: Callable[..., Any] | None = None, *args: Any) -> None:
    """In a worker process started by ``multiprocessing`` (loky), die with its parent.

    Exits at once if the parent has already gone. A no-op in a process that has no
    ``multiprocessing`` parent, and after the first call.

    Parameters
    ----------
    then : callable or None
        Called with ``args`` afterwards (a worker initializer of the user's, which
        this one replaces).
    *args
        Arguments of ``then``.

    Examples
    --------
    >>> from skggm_bench._parent_watch import watch_parent
    >>> watch_parent()  # in the main process: nothing to watch
    """
    global _WATCHING
    parent = multiprocessing.parent_process()
    with _LOCK:
        start = not _WATCHING and parent is not None and parent.pid is not None
        _WATCHING = _WATCHING or start
    if start:
        try:
            pidfd: int | None = os.pidfd_open(parent.pid)
        except (AttributeError, OSError):
            pidfd = None  # before Linux 5.3, or elsewhere: poll the parent's pid
        if os.getppid() != parent.pid:  # it died before the descriptor was opened
            os._exit(1)

        def watch() -> None:
            if pidfd is not None:
                select.select([pidfd], [], [])
            else:
                while os.getppid() == parent.pid:
                    time.sleep(0.2)
            os._exit(1)

        threading.Thread(
            target=watch, name="skggm-bench-parent-watch", daemon=True
        ).start()
    if then is not None:
        then(*args)
