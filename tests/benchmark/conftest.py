"""Fixtures of the harness tests: the forked children of the test process (the
isolation and process-state tests of run/, and the benchmark's own)."""

import os
from pathlib import Path

import pytest


def _forked_children():
    """PIDs of the live forked children of this process (Linux).

    A forked child runs the command line of its parent; the worker processes that
    joblib keeps for reuse run another one and are not counted.
    """
    me = Path("/proc/self/cmdline").read_bytes()
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and cmdline == me:
            children.append(int(stat.parent.name))
    return children


@pytest.fixture
def forked_children():
    """A function listing the live forked children of the test process."""
    return _forked_children
