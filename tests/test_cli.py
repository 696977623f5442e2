"""Tests for the skggm-bench command line and the study configurations it runs.

End-to-end runs use tiny studies (p=10, fast learners) in a temporary working
directory; one test interrupts a real ``skggm-bench run`` process with SIGINT and
resumes it.
"""

import os
import signal
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

from skggm_bench import cli
from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.config import (
    PRESETS,
    ConfigError,
    get_preset,
    load_config,
    parse_config,
)
from skggm_bench.benchmark.store import ResultStore

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
    assert "skggm-bench report --config" in captured.out

    assert cli.main(["leaderboard", "--config", str(config)]) == 0
    board = capsys.readouterr().out
    assert "Leaderboard by f1" in board and "mean rank (95% CI)" in board
    assert "shrink" in board and "glasso" in board
    assert "Rank shift DiagonalDominance -> TriangulatedOrthogonalization" in board

    out = workdir / "html"
    assert cli.main(["report", "--config", str(config), "--out", str(out)]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "Leaderboard (f1)" in page and "mean rank (95% CI)" in page
    assert "<td>shrink</td>" in page and "<td>glasso</td>" in page
    assert "data:image/png;base64," in page
    assert str(out / "report.html") in capsys.readouterr().out


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
    assert "Leaderboard by shd" in capsys.readouterr().out


def test_ctrl_c_exits_130_with_a_resume_message(workdir, capsys, monkeypatch):
    def interrupted_run(self, progress=None):
        progress(0, 48)
        progress(5, 48)
        raise KeyboardInterrupt

    monkeypatch.setattr(Benchmark, "run", interrupted_run)
    config = write_config(workdir, TINY)
    assert cli.main(["run", "--config", str(config), "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert "Interrupted: 5 of 48 fits are saved in" in err
    assert "Run the same command again to resume." in err


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
    deadline = time.monotonic() + 60
    stored = 0
    while stored == 0 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
        if store.exists():
            try:
                stored = store_rows(store)
            except sqlite3.OperationalError:  # table not created yet
                stored = 0
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Run the same command again to resume." in err
    interrupted = store_rows(store)
    assert 1 <= interrupted < 400
    finished = subprocess.run(command, capture_output=True, text=True, timeout=120)
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
            "range [1, inf)",
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
    assert "--n-jobs 0 has no meaning" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # as if not installed
    assert cli.main(["run", "--config", config, "--backend", "dask"]) == 2
    assert "pip install 'skggm-bench[dask]'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:  # argparse: a command is required
        cli.main([])
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        cli.main(["run", "--preset", "quick", "--config", config])  # exclusive


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

    def record(self, progress=None):
        seen["grid"] = (self.n_features, self.densities, self.n_samples, self.n_repeats)
        seen["store"] = self.store
        raise KeyboardInterrupt  # stop before doing any work

    monkeypatch.setattr(Benchmark, "run", record)
    assert cli.main(["run", "--no-progress"]) == 130
    quick = get_preset("quick").grid
    expected = (quick["n_features"], quick["densities"], quick["n_samples"])
    assert seen["grid"] == (*expected, quick["n_repeats"])
    assert seen["store"] == os.path.join("skggm-bench-results", "quick.sqlite")


def test_config_file_options(workdir):
    text = TINY + '\n[run]\nn_jobs = 2\nbackend = "threading"\nstore = "s.sqlite"\n'
    config = load_config(write_config(workdir, text))
    assert config.name == "tiny"
    assert config.run == {"n_jobs": 2, "backend": "threading", "store": "s.sqlite"}
    assert config.grid["densities"] == (0.2, 0.4)
    assert config.description == "two generators, two fast learners"
    assert config.n_tasks == TINY_ROWS
    # Fixed-structure families: omit densities, the family default is used.
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
    assert len(frame) == 1 and frame["density"].isna().all()
    with pytest.raises(ConfigError, match="cannot read the configuration file"):
        load_config(workdir / "absent.toml")


def test_learner_warnings_are_silenced_during_a_run_and_restored(monkeypatch):
    monkeypatch.setenv("PYTHONWARNINGS", "default")
    with cli._silenced_warnings():
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
