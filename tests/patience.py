"""Waiting in tests for an event, never for a fixed time that load can exceed.

On a shared 2-core machine under a load of 12 to 41, importing ``skggm_bench``
took 58 s instead of 4 (issue 42), so any wait sized on an idle machine is hit
there. A test waits for what it needs (a row stored, a process ended) up to a
bound far above any wait seen under load; hitting it fails with the machine's
load average, which tells a machine too busy from an event that never came.
"""

import os
import subprocess
import time
from collections.abc import Callable
from typing import Any

#: The bound on one wait, in seconds: ten times the 58 s import seen under load.
PATIENCE = 600.0


def load() -> str:
    """The machine's load, for a failure message.

    >>> load().startswith("load average ")
    True
    """
    one, five, fifteen = os.getloadavg()
    return (
        f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} (1 / 5 / 15 min) "
        f"on {os.cpu_count()} cores"
    )


def wait_for(condition: Callable[[], Any], what: str, bound: float = PATIENCE) -> Any:
    """Poll ``condition()`` until it is true and return its value.

    Fails after ``bound`` seconds, saying what was awaited and the load.
    """
    deadline = time.monotonic() + bound
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {bound:.0f} s ({load()})")
        time.sleep(0.02)


def finish(process: subprocess.Popen, bound: float = PATIENCE) -> tuple[Any, Any]:
    """``process.communicate()``; past ``bound``, killed, failing with the load."""
    try:
        return process.communicate(timeout=bound)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise AssertionError(
            f"{process.args!r} still running after {bound:.0f} s ({load()})"
        ) from None


def run(command: Any, bound: float = PATIENCE, **options: Any) -> Any:
    """``subprocess.run(command, **options)``, failing with the load past ``bound``."""
    try:
        return subprocess.run(command, timeout=bound, **options)
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"{command!r} still running after {bound:.0f} s ({load()})"
        ) from None


def assert_within(seconds: float, bound: float, what: str) -> None:
    """A measured duration is below ``bound``; if not, the failure names the load."""
    assert seconds < bound, (
        f"{what} took {seconds:.1f} s, not under {bound} s ({load()})"
    )
