"""What became of a request: its outcome, and the words of a failure.

An :class:`Outcome` is what a fork server (``_isolation.py``) or an in-process
server (``_server.py``) answers for each request: ``ok`` with the value, or how it
failed, with a message cut to the length a result row keeps.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..results._schema import Status

__all__ = [
    "MISSING",
    "Outcome",
    "death",
    "error_message",
    "run_request",
    "truncate",
]

# Failure messages keep the head of long texts: a row is not a log.
_MAX_MESSAGE = 2000

_SIGNAL_NAMES: dict[int, str] = {
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


def run_request(
    server: Callable[[str, tuple[Any, ...]], Any], name: str, args: tuple[Any, ...]
) -> Outcome:
    """``server(name, args)``, and what became of it."""
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


def death(status: int | None, memory_limit: int | None, elapsed: float) -> Outcome:
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
