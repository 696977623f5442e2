"""Tests for the skggm-bench command line and the study configurations it runs.

End-to-end runs use tiny studies (p=10, fast learners) in a temporary working
directory; one test interrupts a real ``skggm-bench run`` process with SIGINT and
resumes it.
"""

import collections
import importlib.util
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import patience
import pytest

from skggm_bench import _command_run, cli
from skggm_bench._commands import silenced_warnings
from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.analysis._ranking import MIN_REPEATS
from skggm_bench.benchmark.config import (
    PRESETS,
    ConfigError,
    get_preset,
    load_config,
    parse_config,
)
from skggm_bench.benchmark.plan._sharding import shard_fits
from skggm_bench.benchmark.results.store import ResultStore

matplotlib.use("Agg")

TINY = """
description = "two generators, two fast learners"
n_features = 10
densities = [0.2, 0.4]
n_samples = [40, 80]
n_repeats = 3
metrics = ["tpr", "ppv", "f1", "shd"]
random_state = 0
generators = ["DiagonalDominance", "TriangulatedOrthogonalization"]

[learners.shrink]
class = "ShrinkagePartialCorrelation"

[learners.glasso]
class = "GraphicalLasso"
alpha = 0.2
"""
TINY_ROWS = 2 * 2 * 2 * 2 * 3  # generators x learners x densities x n x repeats


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_config(directory: Path, text: str, name: str = "tiny.toml") -> Path:
    path = directory / name
    path.write_text(text)
    return path


def store_rows(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]


# --------------------------------------------------------------------------------------
# End to end
# --------------------------------------------------------------------------------------


def test_run_leaderboard_report_end_to_end(workdir, capsys):
    config = write_config(workdir, TINY)
    assert cli.main(["run", "--config", str(config), "--n-jobs", "2"]) == 0
    store = workdir / "skggm-bench-results" / "tiny.sqlite"
    assert store_rows(store) == TINY_ROWS
    captured = capsys.readouterr()
    assert f"done: {TINY_ROWS} rows (" in captured.err
    assert f"{TINY_ROWS}/{TINY_ROWS} [" in captured.err  # the progress bar, ETA
    assert f"report --config {config}" in captured.out

    assert cli.main(["leaderboard", "--config", str(config)]) == 0
    board = capsys.readouterr().out
    assert board.index("Findings") < board.index("Leaderboard by F1")
    assert "mean rank (95% CI)" in board and "Critical differences" in board
    assert "shrink" in board and "glasso" in board
    assert "Rank shift DiagonalDominance -> TriangulatedOrthogonalization" in board
    assert "Kendall's tau" in board
    assert max(len(line) for line in board.splitlines()) <= 100

    out = workdir / "html"
    assert cli.main(["report", "--config", str(config), "--out", str(out)]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.index(">Findings</h2>") < page.index(">Leaderboard</h2>")
    assert "mean rank (95% CI)" in page
    assert "<td>shrink</td>" in page and "<td>glasso</td>" in page
    assert "data:image/png;base64," in page
    assert str(out / "report.html") in capsys.readouterr().out


def test_the_progress_bar_and_the_warnings_never_share_a_line(workdir, capsys):
    # One iteration: the graphical lasso warns that it did not converge, and the
    # run prints its "warnings:" line at the end, while the bar is still open.
    text = TINY.replace("alpha = 0.2", "alpha = 0.05\nmax_iter = 1")
    config = write_config(workdir, text)
    assert cli.main(["run", "--config", str(config), "--n-jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert f"{TINY_ROWS}/{TINY_ROWS} [" in err  # the bar was shown
    # A terminal shows what follows the last carriage return of each line.
    shown = [line.rsplit("\r", 1)[-1] for line in err.split("\n")]
    warned = [line for line in shown if "warnings:" in line]
    assert warned, err
    assert all(line.startswith("warnings: learner 'glasso'") for line in warned), err
    assert all(line.startswith("warnings: ") or "warnings:" not in line
               for line in err.split("\n")), err  # fmt: skip


class _Terminal(io.StringIO):
    def isatty(self):
        return True

    def screen(self):
        """The lines a terminal shows: a carriage return writes over its line."""
        shown = []
        for line in self.getvalue().split("\n"):
            cells = ""
            for part in line.split("\r"):
                cells = part + cells[len(part) :]
            shown.append(cells.rstrip())
        return shown


@pytest.mark.parametrize("stream", [_Terminal(), io.StringIO()])
def test_lines_written_while_the_bar_shows_are_lines_of_their_own(stream):
    progress = _command_run._Progress(enabled=True)
    progress.stream = stream
    with progress.lines_above():
        progress(0, 10)
        progress(4, 10)
        print("warnings: first", file=sys.stderr, end="")  # its newline comes next
        print(file=sys.stderr)
        print("warnings: second", file=sys.stderr)
        progress(10, 10)
    progress.close()
    shown = (
        stream.screen()
        if isinstance(stream, _Terminal)
        else [line.rsplit("\r", 1)[-1] for line in stream.getvalue().split("\n")]
    )
    assert "warnings: first" in shown and "warnings: second" in shown
    assert not any("warnings" in line and "|" in line for line in shown)
    assert any("10/10" in line for line in shown)
    assert shown.index("warnings: second") < max(
        i for i, line in enumerate(shown) if "10/10" in line
    )


def test_a_study_of_several_graphs_from_a_file(workdir, capsys):
    text = TINY.replace(
        'generators = ["DiagonalDominance", "TriangulatedOrthogonalization"]',
        'generators = ["DiagonalDominance"]',
    )
    text += (
        '\n[graph]\nerdos_renyi = "erdos_renyi"\n'
        '\n[graph.hub]\nfamily = "hub"\nn_hubs = 2\n'
    )
    config = write_config(workdir, text, name="graphs.toml")
    run = ["run", "--config", str(config), "--no-progress", "--n-jobs", "1"]
    assert cli.main(run) == 0
    store = workdir / "skggm-bench-results" / "graphs.sqlite"
    # erdos_renyi at both densities, hub once (its structure is fixed).
    assert store_rows(store) == 2 * (2 + 1) * 2 * 3
    capsys.readouterr()
    assert cli.main(["leaderboard", "--config", str(config), "--by"]) == 0
    board = capsys.readouterr().out
    assert "on hub graphs" in board and "on erdos_renyi graphs" in board
    assert "Rank shift between graphs erdos_renyi -> hub" in board
    assert cli.main(["leaderboard", "--store", str(store), "--by", "graph"]) == 0
    assert "Under DiagonalDominance, on hub graphs" in capsys.readouterr().out
    bad = write_config(
        workdir, text.replace("n_hubs = 2", "n_hubs = 20"), name="bad.toml"
    )
    assert cli.main(["run", "--config", str(bad)]) == 2
    assert "graph.hub: graph 'hub' with n_features=10: n_hubs=20" in (
        capsys.readouterr().err
    )


def test_second_run_resumes_and_computes_nothing(workdir, capsys):
    config = write_config(workdir, TINY)
    store = workdir / "results.sqlite"
    arguments = ["run", "--config", str(config), "--store", str(store), "--n-jobs", "1"]
    assert cli.main(arguments) == 0
    capsys.readouterr()
    assert cli.main([*arguments, "--no-progress"]) == 0
    assert "0 computed" in capsys.readouterr().err
    assert store_rows(store) == TINY_ROWS
    # leaderboard and report find the store with --store too
    assert cli.main(["leaderboard", "--store", str(store), "--metric", "shd"]) == 0
    assert "Leaderboard by SHD (lower is better)" in capsys.readouterr().out


def test_ctrl_c_exits_130_with_a_resume_message(workdir, capsys, monkeypatch):
    def interrupted_run(self, progress=None, against=None):
        progress(0, 48)
        progress(5, 48)
        raise KeyboardInterrupt

    monkeypatch.setattr(Benchmark, "run", interrupted_run)
    config = write_config(workdir, TINY)
    assert cli.main(["run", "--config", str(config), "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert "Interrupted: 5 of 48 fits are saved in" in err
    assert "Run the same command again to resume." in err


def test_ctrl_c_during_start_up_counts_the_stored_fits(workdir, capsys, monkeypatch):
    # Interrupted before the run counted anything: the store's rows, not "0 of 0".
    config = write_config(workdir, TINY)
    store = workdir / "results.sqlite"
    arguments = ["run", "--config", str(config), "--store", str(store), "--n-jobs", "1"]
    assert cli.main(arguments) == 0

    def interrupted_run(self, progress=None, against=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(Benchmark, "run", interrupted_run)
    capsys.readouterr()
    assert cli.main([*arguments, "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert f"Interrupted: {store} holds {TINY_ROWS} fits." in err, err


def test_sigint_then_resume_completes_the_study(workdir):
    # 400 single-fit tasks of a few ms each, run one at a time: SIGINT lands once
    # the first row is stored, long before the last one.
    config = write_config(
        workdir,
        """
n_features = 12
densities = [0.2]
n_samples = [60]
n_repeats = 400
metrics = ["f1"]
random_state = 0
generators = ["DiagonalDominance"]
[learners.glasso]
class = "GraphicalLasso"
alpha = 0.05
""",
        name="sigint.toml",
    )
    command = [sys.executable, "-m", "skggm_bench.cli", "run", "--config",
               str(config), "--n-jobs", "1", "--no-progress"]  # fmt: skip
    store = workdir / "skggm-bench-results" / "sigint.sqlite"
    # A shell that runs jobs in the background (CI scripts, nohup) starts them with
    # SIGINT ignored, and Python then never raises KeyboardInterrupt: restore the
    # default disposition so the child behaves as under a terminal's Ctrl-C.
    process = subprocess.Popen(
        command,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )

    def first_row_or_end():
        if process.poll() is not None:
            return True
        try:
            return store.exists() and store_rows(store) > 0
        except sqlite3.OperationalError:  # table not created yet
            return False

    # However long the start takes under load: Ctrl-C once a row is stored.
    patience.wait_for(first_row_or_end, "the interrupted run's first row")
    process.send_signal(signal.SIGINT)
    _, err = patience.finish(process)
    assert process.returncode == 130, err
    assert "Run the same command again to resume." in err
    interrupted = store_rows(store)
    assert 1 <= interrupted < 400
    finished = patience.run(command, capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr
    assert f"{400 - interrupted} computed" in finished.stderr
    assert store_rows(store) == 400


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda t: t.replace('"GraphicalLasso"', '"GraphicalLaso"'),
            "learners.glasso: unknown learner 'GraphicalLaso' (did you mean "
            "'GraphicalLasso'?)",
        ),
        (
            lambda t: t.replace("[0.2, 0.4]", "[0.2, -0.4]"),
            "densities: densities[1]=-0.4 is negative",
        ),
        (
            lambda t: t.replace("[40, 80]", "[]"),
            "n_samples: n_samples is empty: the grid needs at least one value",
        ),
        (lambda t: t.replace("[0.2, 0.4]", "[]"), "densities: densities is empty"),
        (  # names are matched case-insensitively for the suggestion
            lambda t: t.replace('"ShrinkagePartialCorrelation"', '"Oas"'),
            "learners.shrink: unknown learner 'Oas' (did you mean 'OAS'?)",
        ),
        (
            lambda t: t.replace('"DiagonalDominance",', '"diagonaldominance",'),
            "unknown generator 'diagonaldominance' (did you mean 'DiagonalDominance'?)",
        ),
        (
            lambda t: t.replace('"DiagonalDominance",', '"DiagonalDominanse",'),
            "generators.DiagonalDominanse: unknown generator 'DiagonalDominanse' "
            "(did you mean 'DiagonalDominance'?)",
        ),
        (
            lambda t: t.replace("n_repeats = 3", "n_repeat = 3"),
            "n_repeat: unknown key (did you mean 'n_repeats'?)",
        ),
        (
            lambda t: t.replace("alpha = 0.2", "alpha = -1.0"),
            "learners.glasso: learners['glasso']: The 'alpha' parameter",
        ),
        (
            lambda t: t.replace("alpha = 0.2", "alfa = 0.2"),
            "learners.glasso.alfa: GraphicalLasso has no parameter 'alfa'",
        ),
        (
            lambda t: t.replace('"shd"]', '"shd", "auc"]'),
            "metrics: unknown metric 'auc'",
        ),
        (
            lambda t: t.replace("n_repeats = 3", "n_repeats = 0"),
            "n_repeats: The 'n_repeats' parameter of Benchmark must be an int in the "
            "range [1, 1000000]",
        ),
        (
            lambda t: t.replace("n_features = 10", "n_features = 9.5"),
            "n_features: n_features[0] must be an integer, got 9.5",
        ),
        (lambda t: t.replace("[0.2, 0.4]", "[0.2, 0.4"), "not valid TOML"),
    ],
)
def test_bad_configs_fail_before_running_with_the_key_named(
    workdir, capsys, edit, message
):
    config = write_config(workdir, edit(TINY))
    assert cli.main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.startswith("skggm-bench run: error: ")
    assert str(config) in err  # which file
    assert not (workdir / "skggm-bench-results").exists()  # nothing ran


def test_config_errors_from_python_name_the_key():
    base = {"generators": ["DiagonalDominance"], "learners": ["LassoNetwork"]}
    cases = {
        "learners: the list is empty": {**base, "learners": []},
        "generators: missing": {"learners": ["LassoNetwork"]},
        "learners.x.cvv: LassoNetwork has no parameter 'cvv' (did you mean 'cv'?)": {
            **base,
            "learners": {"x": {"class": "LassoNetwork", "cvv": 3}},
        },
        "model: The 'model' parameter of Benchmark must be a str among": {
            **base,
            "model": "precision",
        },
        "run.backend: backend='spark' is not a joblib backend": {
            **base,
            "run": {"backend": "spark"},
        },
        "timeout: The 'timeout' parameter": {**base, "timeout": 0},
        "densities: densities[0] must be a number": {**base, "densities": ["dense"]},
        "n_samples: n_samples[1] must be >= 1": {**base, "n_samples": [10, 0]},
        "n_samples: n_samples lists 10 twice": {**base, "n_samples": [10, 10]},
        "graph: graph='erdos' is not a graph family": {**base, "graph": "erdos"},
        "generators.UniformChordal: generator 'UniformChordal' cannot sample on "
        "graph='erdos_renyi'": {
            **base,
            "generators": ["UniformChordal"],
            "densities": [0.3],
            "n_features": 20,
        },
        "learners.sklearn.nope.Estimator: cannot import 'sklearn.nope'": {
            **base,
            "learners": ["sklearn.nope.Estimator"],
        },
    }
    for message, data in cases.items():
        with pytest.raises(ConfigError) as info:
            parse_config(data)
        assert message in str(info.value)


def test_leaderboard_and_report_without_results_say_what_to_do(workdir, capsys):
    assert cli.main(["leaderboard"]) == 1
    err = capsys.readouterr().err
    assert "no results store at skggm-bench-results/quick.sqlite" in err
    assert "run 'skggm-bench run' first" in err
    assert cli.main(["report", "--store", "missing.sqlite"]) == 1
    assert "no results store at missing.sqlite" in capsys.readouterr().err
    assert not (workdir / "missing.sqlite").exists()  # not created by looking


def test_leaderboard_rejects_an_unknown_metric(workdir, capsys):
    config = write_config(workdir, TINY.replace("n_repeats = 3", "n_repeats = 1"))
    assert cli.main(["run", "--config", str(config), "--n-jobs", "1",
                     "--no-progress"]) == 0  # fmt: skip
    capsys.readouterr()
    assert cli.main(["leaderboard", "--config", str(config), "--metric", "mcc"]) == 2
    assert "metric 'mcc' is not in these results" in capsys.readouterr().err


def test_unknown_preset_and_bad_execution_options(workdir, capsys, monkeypatch):
    assert cli.main(["run", "--preset", "quik"]) == 2
    assert "unknown preset 'quik' (did you mean 'quick'?)" in capsys.readouterr().err
    config = str(write_config(workdir, TINY))
    assert cli.main(["run", "--config", config, "--backend", "loky",
                     "--scheduler", "tcp://localhost:8786"]) == 2  # fmt: skip
    assert "--scheduler needs --backend dask" in capsys.readouterr().err
    assert cli.main(["run", "--config", config, "--n-jobs", "0"]) == 2
    assert "--n-jobs 0: n_jobs == 0 has no meaning" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # as if not installed
    assert cli.main(["run", "--config", config, "--backend", "dask"]) == 2
    assert "pip install 'skggm-bench[dask]'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:  # argparse: a command is required
        cli.main([])
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        cli.main(["run", "--preset", "quick", "--config", config])  # exclusive


@pytest.mark.parametrize(
    ("arguments", "command", "message"),
    [
        ([], "", "the following arguments are required: COMMAND"),
        (["frobnicate"], "", "invalid choice: 'frobnicate'"),
        (["run", "--n-jobs", "abc"], " run", "argument --n-jobs: invalid int value"),
        (["run", "--preset", "quick", "--config", "x.toml"], " run",
         "not allowed with argument"),
        (["leaderboard", "--format", "nope"], " leaderboard",
         "argument --format: invalid choice: 'nope'"),
        (["export", "--store", "x.sqlite"], " export",
         "the following arguments are required: --out"),
        (["run", "--bogus"], "", "unrecognized arguments: --bogus"),
    ],
)  # fmt: skip
def test_argument_errors_are_one_line(capsys, arguments, command, message):
    """argparse's errors too: one line (no usage block), the help named, status 2."""
    with pytest.raises(SystemExit) as info:
        cli.main(arguments)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"skggm-bench{command}: error: ")
    assert message in err
    assert err.endswith(f"(see 'skggm-bench{command} --help')\n"), err


def test_cli_format_choices_mirror_their_owners():
    """The CLI lists the formats literally (it starts without the harness)."""
    from skggm_bench.benchmark.present._table_formats import TABLE_FORMATS
    from skggm_bench.benchmark.results.store import EXPORT_FORMATS

    commands = cli._build_parser()._subparsers._group_actions[0].choices
    choices = {
        name: next(a.choices for a in parser._actions if a.dest == "format")
        for name, parser in commands.items()
        if name in ("leaderboard", "export")
    }
    assert tuple(choices["leaderboard"]) == TABLE_FORMATS
    assert tuple(choices["export"]) == EXPORT_FORMATS


# --------------------------------------------------------------------------------------
# User errors and environment problems: one line naming the problem, no traceback
# --------------------------------------------------------------------------------------

MICRO = """
n_features = 8
densities = [0.2]
n_samples = [40]
n_repeats = 2
metrics = ["tpr", "ppv", "f1"]
random_state = 0
generators = ["DiagonalDominance", "TriangulatedOrthogonalization"]
[learners.shrink]
class = "ShrinkagePartialCorrelation"
[learners.glasso]
class = "GraphicalLasso"
alpha = 0.2
"""
MICRO_ROWS = 2 * 2 * 2  # generators x learners x repeats


@pytest.fixture(scope="module")
def micro(tmp_path_factory):
    """A complete stored study of 8 fits, and its configuration file."""
    folder = tmp_path_factory.mktemp("micro")
    config = write_config(folder, MICRO, name="micro.toml")
    store = folder / "micro.sqlite"
    assert cli.main(["run", "--config", str(config), "--store", str(store),
                     "--n-jobs", "1", "--no-progress"]) == 0  # fmt: skip
    return config, store


def one_line_error(err, command, status_text="error"):
    """The whole of stderr is one line naming the command and the problem."""
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith(f"skggm-bench {command}: {status_text}: "), err
    return err


def damaged_stores(folder, good):
    """The ways a store can be damaged or not be a store at all."""
    data = good.read_bytes()
    unrelated = folder / "unrelated.sqlite"
    with sqlite3.connect(unrelated) as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
    conn.close()
    files = {
        "truncated.sqlite": data[: len(data) // 3],
        "garbage.sqlite": b"not a database at all\n" * 100,
        "empty.sqlite": b"",
        "header-only.sqlite": data[:100],
    }
    for name, content in files.items():
        (folder / name).write_bytes(content)
    return [folder / name for name in files] + [unrelated]


def test_damaged_stores_are_one_line_errors_and_stay_untouched(micro, tmp_path, capsys):
    _, store = micro
    for path in damaged_stores(tmp_path, store):
        before = path.read_bytes()
        for command in ("leaderboard", "report"):
            status = cli.main([command, "--store", str(path), "--out", str(tmp_path)]
                              if command == "report"
                              else [command, "--store", str(path)])  # fmt: skip
            assert status == 1, path.name
            err = one_line_error(capsys.readouterr().err, command)
            assert str(path.name) in err
        # Reading never writes: the file is byte for byte what it was.
        assert path.read_bytes() == before, path.name
        assert sorted(p.name for p in tmp_path.glob(f"{path.name}*")) == [path.name]
    truncated = tmp_path / "truncated.sqlite"
    assert cli.main(["run", "--config", str(micro[0]), "--store", str(truncated),
                     "--no-progress"]) == 1  # fmt: skip
    err = one_line_error(capsys.readouterr().err.split("\n", 1)[1], "run")
    assert "cannot use" in err and "results store" in err


def test_places_that_cannot_be_created(micro, capsys):
    config, store = micro
    # /proc refuses new entries even to root.
    assert cli.main(["report", "--store", str(store), "--out", "/proc/nope/r"]) == 1
    err = one_line_error(capsys.readouterr().err, "report")
    assert "cannot write the report to /proc/nope/r" in err
    assert cli.main(["run", "--config", str(config), "--store",
                     "/proc/nope/study.sqlite", "--no-progress"]) == 1  # fmt: skip
    err = capsys.readouterr().err.split("\n", 1)[1]  # after the study line
    assert "cannot create the folder of the results store" in one_line_error(err, "run")
    assert cli.main(["sample", "--generator", "DiagonalDominance",
                     "--out", "/proc/nope/m.npy"]) == 1  # fmt: skip
    assert "cannot create its folder" in one_line_error(
        capsys.readouterr().err, "sample"
    )


PERMISSIONS = """
import contextlib, io, json, sys
from skggm_bench import cli
results = {}
for name, argv in json.loads(sys.argv[1]).items():
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(argv)
    results[name] = [status, err.getvalue(), out.getvalue()]
print(json.dumps(results))
"""


def test_read_only_folders_and_stores(micro, tmp_path):
    """Reading works in a read-only folder; writing is refused before any work.

    File permissions do not bind root, so as root the commands run without the
    capabilities that let root ignore them (``setpriv``), as in the store tests.
    """
    config, store = micro
    command = [sys.executable, "-c", PERMISSIONS]
    if os.geteuid() == 0:
        caps = "-dac_override,-dac_read_search"
        command = ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}", *command]
    folder = tmp_path / "read-only"
    folder.mkdir()
    complete, partial = folder / "complete.sqlite", folder / "partial.sqlite"
    complete.write_bytes(store.read_bytes())
    partial.write_bytes(store.read_bytes())
    with sqlite3.connect(partial) as conn:
        conn.execute("DELETE FROM results WHERE repeat = 1")
    conn.close()
    for path in (complete, partial):
        path.chmod(0o444)
    folder.chmod(0o555)
    writable = tmp_path / "elsewhere"
    cases = {
        "leaderboard": ["leaderboard", "--store", str(complete)],
        "report elsewhere": ["report", "--store", str(complete), "--out",
                             str(writable)],
        "report next to it": ["report", "--store", str(complete)],
        "report into it": ["report", "--store", str(complete), "--out",
                           str(folder / "report")],
        "run complete": ["run", "--config", str(config), "--store", str(complete),
                         "--no-progress"],
        "run partial": ["run", "--config", str(config), "--store", str(partial),
                        "--no-progress"],
        "sample": ["sample", "--generator", "DiagonalDominance", "--n-features",
                   "5", "--out", str(folder / "m.npy")],
    }  # fmt: skip
    try:
        done = patience.run(
            [*command, json.dumps(cases)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        results = json.loads(done.stdout)
        files = sorted(p.name for p in folder.iterdir())
    finally:
        folder.chmod(0o755)
    assert files == ["complete.sqlite", "partial.sqlite"]  # nothing written there
    assert results["leaderboard"][0] == 0 and "Findings" in results["leaderboard"][2]
    assert results["report elsewhere"][0] == 0
    assert (writable / "report.html").is_file()
    for name in ("report next to it", "report into it"):
        status, err, _ = results[name]
        assert status == 1
        assert "cannot write the report to" in one_line_error(err, "report")
    assert "choose another folder with --out" in results["report next to it"][1]
    status, err, _ = results["run complete"]
    assert status == 0 and "0 computed" in err  # nothing left: reading is enough
    status, err, _ = results["run partial"]
    assert status == 1
    err = one_line_error(err.split("\n", 1)[1], "run")
    assert "is not writable; 4 of the study's 8 fits are left to compute" in err
    status, err, _ = results["sample"]
    assert status == 1 and "is not writable" in one_line_error(err, "sample")
    assert store_rows(partial) == MICRO_ROWS - 4  # untouched


def test_leaderboard_into_a_closed_pipe_exits_quietly(micro):
    """As under ``skggm-bench leaderboard | head -3``, with the reader gone first.

    Closing the pipe before the command writes makes the write fail for certain
    (with ``head`` a short output may fit in the pipe before it closes).
    """
    _, store = micro
    command = [sys.executable, "-m", "skggm_bench.cli", "leaderboard", "--store",
               str(store)]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    process.stdout.close()
    err = process.stderr.read()
    patience.finish(process)
    assert process.returncode == 1
    assert err == ""  # no traceback, no "Exception ignored" at exit


def test_sample_refuses_what_the_machine_cannot_hold(workdir, capsys):
    assert cli.main(["sample", "--generator", "DiagonalDominance",
                     "--n", "100000000", "--out", "big.npy"]) == 2  # fmt: skip
    err = one_line_error(capsys.readouterr().err, "sample")
    # 1e8 matrices of 50 x 50 float64: 2e12 bytes.
    assert "100000000 matrices of 50 x 50 float64 take 1.8 TiB" in err
    assert not (workdir / "big.npy").exists()


def test_sample_from_a_generator_that_wraps_another(workdir, capsys):
    base = ["sample", "--generator", "SpectralControl", "--n-features", "12",
            "--density", "0.3", "--n", "5", "--out", "m.npy"]  # fmt: skip
    assert cli.main(base) == 2
    err = one_line_error(capsys.readouterr().err, "sample")
    assert "--base-generator NAME" in err
    wrapped = [*base, "--base-generator", "DiagonalDominance"]
    assert cli.main(wrapped) == 2
    assert "give exactly one of min_eigenvalue and condition_number" in (
        one_line_error(capsys.readouterr().err, "sample")
    )
    assert cli.main([*wrapped, "--param", "condition_number=10"]) == 0
    matrices = np.load(workdir / "m.npy")
    # SpectralControl's promise: condition number exactly 10, unit diagonal.
    np.testing.assert_allclose(np.linalg.cond(matrices), 10, rtol=1e-8)
    np.testing.assert_allclose(np.diagonal(matrices, axis1=1, axis2=2), 1)
    assert cli.main([*base[:2], "DiagonalDominance", *base[3:],
                     "--base-generator", "DiagonalDominance"]) == 2  # fmt: skip
    assert "is for generators that wrap another" in capsys.readouterr().err
    assert cli.main([*wrapped, "--param", "condition_number"]) == 2
    assert "expected KEY=VALUE" in capsys.readouterr().err


def test_metric_accepts_metric_names_only(micro, capsys):
    _, store = micro
    for command in ("leaderboard", "report"):
        with pytest.raises(SystemExit) as info:
            cli.main([command, "--store", str(store), "--metric", "seed"])
        assert info.value.code == 2
        assert "argument --metric: unknown metric 'seed'" in capsys.readouterr().err
    assert cli.main(["leaderboard", "--store", str(store), "--metric",
                     "f1_score"]) == 0  # fmt: skip
    assert "Leaderboard by F1" in capsys.readouterr().out


def test_version_help_and_backends(micro, capsys, monkeypatch):
    from skggm_bench import __version__

    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"skggm-bench {__version__}\n"
    with pytest.raises(SystemExit):
        cli.main(["leaderboard", "--help"])
    text = " ".join(capsys.readouterr().out.split())  # as wrapped at any width
    assert "95% bootstrap" in text and "%%" not in text
    # --backend lists what is installed, with an install hint for the rest.
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "ray" else find_spec(name, *a),
    )
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "loky, multiprocessing, threading" in text
    assert "not installed: ray (pip install ray)" in text
    config, _ = micro
    assert cli.main(["run", "--config", str(config), "--backend", "ray"]) == 2
    err = capsys.readouterr().err
    assert "--backend ray: backend='ray' needs the 'ray' package" in err
    assert "pip install ray" in err
    assert cli.main(["run", "--config", str(config), "--backend", "spark"]) == 2
    assert "is not a joblib backend" in capsys.readouterr().err


def test_an_unexpected_error_is_one_line_asking_for_a_report(
    micro, capsys, monkeypatch
):
    from skggm_bench.benchmark.analysis import _analysis

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(_analysis, "analyse", broken)
    assert cli.main(["leaderboard", "--store", str(micro[1])]) == 1
    err = one_line_error(capsys.readouterr().err, "leaderboard", "internal error")
    assert err.endswith("RuntimeError: boom (please report)\n")


def test_next_commands_are_given_as_they_can_be_typed(
    micro, tmp_path, capsys, monkeypatch
):
    config, store = micro
    script = tmp_path / ".venv" / "bin" / "skggm-bench"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    arguments = ["run", "--config", str(config), "--store", str(store),
                 "--no-progress"]  # fmt: skip
    # Called as .venv/bin/skggm-bench with .venv/bin not on the PATH (make run).
    monkeypatch.setattr(sys, "argv", [str(script)])
    monkeypatch.setenv("PATH", str(tmp_path))
    assert cli.main(arguments) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"next: {script} leaderboard --store {store}")
    assert "next: skggm-bench" not in out
    # Nothing but these suggestions on stdout: `make run`, which makes the report
    # at once, drops them (tests/test_make.py).
    assert out == (
        f"next: {script} leaderboard --store {store}\n"
        f"      {script} report --store {store}\n"
    )
    # On the PATH it is called by its name.
    monkeypatch.setenv("PATH", str(script.parent))
    assert cli.main(arguments) == 0
    assert capsys.readouterr().out.startswith("next: skggm-bench leaderboard")


# --------------------------------------------------------------------------------------
# sample
# --------------------------------------------------------------------------------------


def test_sample_writes_matrices_with_the_graph_zero_pattern(workdir, capsys):
    arguments = [
        "sample", "--generator", "TriangulatedOrthogonalization",
        "--graph", "erdos_renyi", "--n-features", "15", "--density", "0.2",
        "--n", "4", "--seed", "3", "--out", "m/draws.npy",
        "--graph-out", "m/graph.npy",
    ]  # fmt: skip
    assert cli.main(arguments) == 0
    matrices = np.load(workdir / "m" / "draws.npy")
    graph = np.load(workdir / "m" / "graph.npy")
    assert matrices.shape == (4, 15, 15) and graph.dtype == bool
    off_graph = ~graph & ~np.eye(15, dtype=bool)
    assert np.all(matrices[:, off_graph] == 0)
    assert np.all(np.linalg.eigvalsh(matrices) > 0)
    assert not np.allclose(matrices[0], matrices[1])  # independent draws
    assert "wrote 4 matrices of shape (15, 15)" in capsys.readouterr().out
    # the same seed gives the same matrices
    assert cli.main([*arguments[:-4], "--out", "again.npy"]) == 0
    np.testing.assert_array_equal(np.load(workdir / "again.npy"), matrices)


def test_sample_errors(workdir, capsys):
    base = ["sample", "--out", "x.npy", "--n-features", "8"]
    assert cli.main([*base, "--generator", "Nope"]) == 2
    err = capsys.readouterr().err
    assert "--generator: unknown generator 'Nope'" in err and "DiagonalDominance" in err
    assert (
        cli.main([*base, "--generator", "DiagonalDominance", "--density", "-0.1"]) == 2
    )
    assert "--density must be in [0, 1]" in capsys.readouterr().err
    assert cli.main([*base, "--generator", "DiagonalDominance", "--graph", "chain",
                     "--density", "0.3"]) == 2  # fmt: skip
    assert "structure is fixed" in capsys.readouterr().err
    assert not (workdir / "x.npy").exists()


# --------------------------------------------------------------------------------------
# Presets and configuration files
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_are_valid_and_build_their_estimators(name):
    config = get_preset(name)
    generators, learners = config.make_generators(), config.make_learners()
    assert "DiagonalDominance" in generators  # the reference of rank shifts
    # Enough repeats for its intervals and findings to conclude (issue 42: with 3,
    # every finding of the methods preset said "too few repeats to tell").
    assert config.grid["n_repeats"] >= MIN_REPEATS
    if name == "covariance":
        assert set(learners) == {
            "empirical",
            "shrunk",
            "ledoit_wolf",
            "oas",
            "glasso_cv",
            "shrink_pcor",
        }
        assert min(config.grid["n_samples"]) < config.grid["n_features"]  # n < p
    elif name == "robustness":
        assert set(config.data_models) >= {"gaussian", "nonparanormal", "mcar"}
        assert "npn_glasso" in learners
    elif name == "methods":  # huge's methods and graphs, and the Krämer learners
        assert set(learners) == {
            "mb_stars",
            "tiger",
            "clime",
            "clime_stars",
            "ct_stars",
            "glasso_stars",
            "glasso_cv",
            *("shrink", "lasso", "adalasso", "ridge", "pls"),
        }
        families = {name: spec for name, spec in config.grid["graph"].items()}
        assert set(families) == {"hub", "band", "cluster", "erdos_renyi"}
        assert len(config.grid["n_samples"]) == 3 and config.grid["n_features"] == 50
    elif name == "field":  # ours, scikit-learn's, and R's where R is installed
        ours = {"mb_stars", "tiger", "clime", "glasso_stars", "shrink", "glasso_cv"}
        r_learners = {
            "huge_mb_stars",
            "huge_mb_ric",
            "huge_glasso_ebic",
            "huge_tiger_ric",
            "ebicglasso",
            "bdgraph",
            "ggmncv",
        }
        assert ours <= set(learners) <= ours | r_learners
        left_out = r_learners - set(learners)
        assert bool(left_out) == bool(config.notes)
        assert all(name in " ".join(config.notes) for name in left_out)
    elif name.startswith("reference"):  # the generators a paper compares
        assert list(generators) == [
            "DiagonalDominance",
            "TriangulatedOrthogonalization",
            "UniformChordal",
        ]
        assert set(config.grid["graph"]) == {"band", "random_chordal", "hub"}
        assert config.grid["n_repeats"] == 5
        assert config.grid["sample_size_ratios"] == (0.5, 1, 2)
        sizes = config.make_benchmark()._validate().n_samples
        for p in np.atleast_1d(config.grid["n_features"]):
            assert sizes[p] == (p // 2, p, 2 * p)  # n/p of 1/2, 1 and 2, no other
        if name == "reference":
            assert list(config.grid["n_features"]) == [50, 200]
            field = get_preset("field")
            kramer = {"shrink", "lasso", "adalasso", "ridge", "pls"}
            assert set(learners) == set(field.make_learners()) | kramer
            assert config.notes == field.notes  # R learners left out alike
        else:
            assert config.n_tasks <= 3 * 3 * 3 * 5 * 4  # cheap: docs and tests
    else:  # the five Krämer et al. learners plus the graphical lasso
        kramer = {"shrink", "lasso", "adalasso", "ridge", "pls"}
        assert set(learners) == kramer | {"glasso"}
    assert config.grid["random_state"] == 0  # a preset is one fixed study
    assert parse_config(config.to_dict(), name=name) == config


def test_kramer2009_preset_is_the_published_design():
    config = get_preset("kramer2009")
    assert config.grid["n_features"] == 100
    assert config.grid["n_samples"] == (25, 50, 75, 100, 125, 150, 175, 200)
    np.testing.assert_allclose(config.grid["densities"], [0.05, 0.1, 0.15, 0.2, 0.25])
    assert config.grid["n_repeats"] == 20
    assert list(config.generators) == [
        "DiagonalDominance",
        "PartialOrthogonalization",
        "TriangulatedOrthogonalization",
    ]
    assert config.n_tasks == 3 * 6 * 5 * 8 * 20


def test_quick_is_the_default_preset(workdir, capsys, monkeypatch):
    seen = {}

    def record(self, progress=None, against=None):
        seen["grid"] = (self.n_features, self.densities, self.n_samples, self.n_repeats)
        seen["store"] = self.store
        raise KeyboardInterrupt  # stop before doing any work

    monkeypatch.setattr(Benchmark, "run", record)
    assert cli.main(["run", "--no-progress"]) == 130
    quick = get_preset("quick").grid
    expected = (quick["n_features"], quick["densities"], quick["n_samples"])
    assert seen["grid"] == (*expected, quick["n_repeats"])
    assert seen["store"].path == os.path.join("skggm-bench-results", "quick.sqlite")


def test_config_file_options(workdir):
    text = TINY + '\n[run]\nn_jobs = 2\nbackend = "threading"\nstore = "s.sqlite"\n'
    config = load_config(write_config(workdir, text))
    assert config.name == "tiny"
    assert config.run == {"n_jobs": 2, "backend": "threading", "store": "s.sqlite"}
    assert config.grid["densities"] == (0.2, 0.4)
    assert config.description == "two generators, two fast learners"
    assert config.n_tasks == TINY_ROWS
    # Fixed-structure families: no densities needed; the rows record the chain's
    # own density, 5 edges over 15 pairs.
    chain = load_config(
        write_config(
            workdir,
            'graph = "chain"\nn_features = 6\ngenerators = ["UniformChordal"]\n'
            'learners = ["ShrinkagePartialCorrelation"]\n',
            name="chain.toml",
        )
    )
    assert chain.grid["densities"] == (None,)
    frame = chain.make_benchmark(random_state=0).run().frame
    assert len(frame) == 1 and frame["density"].tolist() == [5 / 15]
    assert frame["graph"].tolist() == ["chain"]
    with pytest.raises(ConfigError, match="cannot read the configuration file"):
        load_config(workdir / "absent.toml")


def test_learner_warnings_are_silenced_during_a_run_and_restored(monkeypatch):
    monkeypatch.setenv("PYTHONWARNINGS", "default")
    with silenced_warnings():
        # Worker processes inherit this and start with every warning ignored.
        assert os.environ["PYTHONWARNINGS"] == "ignore"
        with warnings.catch_warnings(record=True) as seen:
            warnings.warn("did not converge", UserWarning, stacklevel=1)
        assert seen == []
    assert os.environ["PYTHONWARNINGS"] == "default"


def test_dask_backend_gives_the_same_rows_as_loky(workdir, capsys):
    # Skipped (with the reason shown by pytest) where dask.distributed is not
    # installed; it is part of the [test] extra.
    pytest.importorskip("dask.distributed", reason="needs the [dask] extra")
    config = write_config(workdir, TINY)
    frames = {}
    for backend in ("loky", "dask"):
        store = workdir / f"{backend}.sqlite"
        arguments = ["run", "--config", str(config), "--store", str(store),
                     "--backend", backend, "--n-jobs", "2",
                     "--no-progress"]  # fmt: skip
        assert cli.main(arguments) == 0, capsys.readouterr().err
        frame = ResultStore(store).frame().drop(columns=["fit_time", "versions"])
        keys = ["generator", "learner", "density", "n_samples", "repeat"]
        frames[backend] = frame.sort_values(keys).reset_index(drop=True)
    pd.testing.assert_frame_equal(frames["loky"], frames["dask"])


def test_reference_preset_splits_into_shards_that_cover_it_once():
    config = get_preset("reference")
    learners = config.make_learners()
    # 3 generators x 3 graphs x 2 p x 3 sample sizes (n/p) x 5 repeats, every learner
    assert config.n_tasks == 3 * 3 * 2 * 3 * 5 * len(learners)
    fits = config.make_benchmark()._validate().fits()
    assert len(fits) == config.n_tasks
    parts = [shard_fits(fits, i, 100) for i in range(1, 101)]
    assert all(parts)
    counted = collections.Counter(fit.key for part in parts for fit in part)
    assert counted == collections.Counter(fit.key for fit in fits)
    assert get_preset("reference-small").n_tasks == 540
