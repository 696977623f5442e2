"""The Makefile's targets, run by make with stand-ins for the virtual environment.

A stand-in ``.venv`` (its stamp newer than pyproject.toml, so nothing is installed)
holds a ``python`` and a ``skggm-bench`` that write down how they were called;
``PATH`` decides whether R is there. What is checked is what make runs, in what
order, and what it prints -- not the commands themselves (tests/test_cli.py).
"""

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]

# By its full path: the tests give make a PATH of their own.
MAKE = shutil.which("make")

pytestmark = pytest.mark.skipif(MAKE is None, reason="needs make")


def _script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)


@pytest.fixture
def venv(tmp_path):
    """A stand-in virtual environment whose commands log their arguments."""
    venv = tmp_path / "venv"
    log = tmp_path / "calls.log"
    _script(
        venv / "bin" / "python",
        f"""\
        echo "python $*" >> {log}
        # rpy2 is not installed in this environment
        case "$*" in *"import rpy2"*) exit 1 ;; esac
        """,
    )
    # The real command's stdout after a run is its next commands, nothing else
    # (tests/test_cli.py::test_next_commands_are_given_as_they_can_be_typed).
    _script(
        venv / "bin" / "skggm-bench",
        f"""\
        echo "skggm-bench $*" >> {log}
        case "$1" in
        run) echo "done: 360 rows" >&2
             echo "next: $0 leaderboard"
             echo "      $0 report" ;;
        report) echo "report written to quick-report/report.html" ;;
        esac
        """,
    )
    (venv / ".installed").touch()  # newer than pyproject.toml: no install
    return venv, log


def make(target, venv, path):
    done = subprocess.run(
        [MAKE, "-s", target, f"VENV={venv}"],
        cwd=ROOT,
        env={"PATH": path, "HOME": str(venv.parent)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("r_present", [True, False])
def test_make_installs_the_r_extra_where_r_is(venv, tmp_path, r_present):
    venv, log = venv
    tools = tmp_path / "tools"
    tools.mkdir()
    if r_present:
        _script(tools / "Rscript", "exit 0\n")
    make("r-extra", venv, str(tools))
    calls = log.read_text() if log.exists() else ""
    assert ("-m pip install -q -e .[r]" in calls) == r_present


def test_make_test_depends_on_the_r_extra():
    dry = subprocess.run(
        [MAKE, "-n", "-p", "test"], cwd=ROOT, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    (rule,) = [line for line in dry.stdout.splitlines() if line.startswith("test:")]
    assert "r-extra" in rule.split()


def test_make_run_says_the_next_commands_after_the_report_it_makes(venv, tmp_path):
    venv, log = venv
    out = make("run", venv, str(tmp_path))
    lines = out.splitlines()
    assert log.read_text().splitlines() == ["skggm-bench run", "skggm-bench report"]
    # No suggestion to make the report that make then makes itself...
    assert lines[0] == "report written to quick-report/report.html"
    assert not any(line.startswith("next:") for line in lines)
    # ...and, once it is made, the commands that show the results again.
    assert lines[1:] == [
        f"again: {venv}/bin/skggm-bench leaderboard",
        f"       {venv}/bin/skggm-bench report",
    ]


def test_make_lint_runs_ruff_then_mypy(venv, tmp_path):
    venv, log = venv
    for tool in ("ruff", "mypy"):
        _script(venv / "bin" / tool, f'echo "{tool} $*" >> {log}\n')
    make("lint", venv, str(tmp_path))
    assert log.read_text().splitlines() == [
        "ruff check skggm_bench tests examples",
        "ruff format --check skggm_bench tests examples",
        # No arguments: the modules and options are pyproject.toml's [tool.mypy].
        "mypy ",
    ]


def test_pre_commit_runs_the_lint_target_commands():
    # The hooks run the venv's tools, as `make lint` does, with the same arguments.
    config = (ROOT / ".pre-commit-config.yaml").read_text()
    entries = [
        line.split("entry:", 1)[1].strip()
        for line in config.splitlines()
        if line.strip().startswith("entry:")
    ]
    assert entries == [
        ".venv/bin/ruff check",
        ".venv/bin/ruff format --check",
        ".venv/bin/mypy",
    ]


def test_make_test_lints_then_runs_the_suite_with_its_coverage_floor(venv, tmp_path):
    # The README's test command does everything CI checks: ruff, mypy, then the
    # suite under coverage, whose floor is pyproject.toml's fail_under.
    venv, log = venv
    for tool in ("ruff", "mypy"):
        _script(venv / "bin" / tool, f'echo "{tool} $*" >> {log}\n')
    make("test", venv, str(tmp_path))
    calls = log.read_text().splitlines()
    assert calls[-1] == (
        "python -m pytest -q --numprocesses=auto --maxprocesses=4 --dist=worksteal"
        " --cov --cov-report=term"
    )
    assert calls.index("mypy ") < len(calls) - 1
    floor = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["coverage"]
    assert 80 <= floor["report"]["fail_under"] < 100
    assert floor["run"]["branch"] is True
