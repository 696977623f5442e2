"""The waiting helpers of the tests fail with the machine's load named (issue 42)."""

import subprocess
import sys

import pytest
from patience import assert_within, finish, run, wait_for


def test_wait_for_returns_the_condition_once_true():
    calls = iter([0, None, 7])
    assert wait_for(lambda: next(calls), "a value") == 7


def test_a_wait_past_its_bound_names_what_and_the_load():
    with pytest.raises(
        AssertionError, match=r"the first row: not within 0 s \(load average "
    ):
        wait_for(lambda: False, "the first row", bound=0.05)


def test_a_process_past_its_bound_is_killed_and_names_the_load():
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    process = subprocess.Popen(sleeper)
    with pytest.raises(
        AssertionError, match=r"still running after 0 s \(load average "
    ):
        finish(process, bound=0.2)
    assert process.returncode is not None  # killed, not left behind
    with pytest.raises(AssertionError, match="load average"):
        run(sleeper, bound=0.2)
    assert run([sys.executable, "-c", "print(3)"], capture_output=True).stdout == b"3\n"


def test_a_duration_past_its_bound_names_the_load():
    assert_within(1.0, 2, "the fit")
    with pytest.raises(
        AssertionError, match=r"the fit took 3.0 s, not under 2 s \(load"
    ):
        assert_within(3.0, 2, "the fit")
