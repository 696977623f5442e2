"""The command line of results that travel: run --shard, merge, export and
leaderboard --format."""

from pathlib import Path

import pandas as pd
import patience
import pytest

from skggm_bench import cli
from skggm_bench.benchmark.results.store import ResultStore, read_export

STUDY = """
n_features = 8
densities = [0.2, 0.4]
n_samples = [40]
n_repeats = 2
metrics = ["f1", "tpr"]
random_state = 0
generators = ["DiagonalDominance", "TriangulatedOrthogonalization"]

[learners.glasso]
class = "GraphicalLasso"
alpha = 0.1
"""
OTHER_LEARNER = STUDY.replace(
    '[learners.glasso]\nclass = "GraphicalLasso"\nalpha = 0.1',
    '[learners.lw]\nclass = "LedoitWolf"',
)
ROWS = 2 * 2 * 2  # generators x densities x repeats, per learner


def _main(*args):
    return cli.main([*map(str, args), *([] if args[0] != "run" else ["--n-jobs", "1"])])


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """A study run whole, in two shards, and another learner on the same data."""
    folder = tmp_path_factory.mktemp("travel")
    (folder / "a.toml").write_text(STUDY)
    (folder / "b.toml").write_text(OTHER_LEARNER)
    assert (
        _main(
            "run",
            "--config",
            folder / "a.toml",
            "--store",
            folder / "whole.sqlite",
            "--no-progress",
        )
        == 0
    )
    for i in (1, 2):
        assert (
            _main(
                "run",
                "--config",
                folder / "a.toml",
                "--shard",
                f"{i}/2",
                "--store",
                folder / f"part{i}.sqlite",
                "--no-progress",
            )
            == 0
        )
    assert (
        _main(
            "run",
            "--config",
            folder / "b.toml",
            "--store",
            folder / "b.sqlite",
            "--no-progress",
        )
        == 0
    )
    return folder


def _frame(path):
    with ResultStore(path, read_only=True) as store:
        return store.frame()


def _sorted(frame):
    keys = ["generator", "learner", "density", "repeat"]
    return frame.drop(columns="fit_time").sort_values(keys).reset_index(drop=True)


def test_shards_merge_into_the_whole_study(studies, capsys):
    parts = [_frame(studies / f"part{i}.sqlite") for i in (1, 2)]
    assert sorted(len(p) for p in parts) == [ROWS // 2, ROWS // 2]
    capsys.readouterr()
    out = studies / "merged.sqlite"
    assert (
        _main("merge", studies / "part1.sqlite", studies / "part2.sqlite", "--out", out)
        == 0
    )
    assert f"merged 2 stores into {out}: {ROWS} rows" in capsys.readouterr().out
    pd.testing.assert_frame_equal(
        _sorted(_frame(out)), _sorted(_frame(studies / "whole.sqlite"))
    )


def test_default_shard_stores_and_the_merge_they_suggest(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("s.toml").write_text(STUDY)
    for i in (1, 2):
        assert (
            _main("run", "--config", "s.toml", "--shard", f"{i}/2", "--no-progress")
            == 0
        )
    out = capsys.readouterr().out
    assert "merge 'skggm-bench-results/s.shard-*-of-2.sqlite' --out" in out
    stores = sorted(Path("skggm-bench-results").glob("s.shard-*-of-2.sqlite"))
    assert [p.name for p in stores] == [
        "s.shard-1-of-2.sqlite",
        "s.shard-2-of-2.sqlite",
    ]
    assert _main("merge", *stores, "--out", "all.sqlite") == 0
    assert len(_frame("all.sqlite")) == ROWS


def test_two_learner_sets_on_the_same_data_share_one_leaderboard(studies, capsys):
    out = studies / "both.sqlite"
    assert (
        _main("merge", studies / "whole.sqlite", studies / "b.sqlite", "--out", out)
        == 0
    )
    assert "learners glasso, lw" in capsys.readouterr().out
    assert _main("leaderboard", "--store", out, "--format", "csv", "--by") == 0
    board = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert sorted(board["learner"]) == ["glasso", "glasso", "lw", "lw"]


@pytest.mark.parametrize(
    ("problem", "message"),
    [
        ("seed", "different data sides (their data sets are not the same): entropy"),
        ("exists", "exists already"),
        ("missing", "no results store at"),
    ],
)
def test_merge_refusals_are_one_line(studies, tmp_path, capsys, problem, message):
    other = studies / "b.sqlite"
    out = tmp_path / "out.sqlite"
    if problem == "seed":
        (tmp_path / "c.toml").write_text(
            OTHER_LEARNER.replace("random_state = 0", "random_state = 1")
        )
        assert (
            _main(
                "run",
                "--config",
                tmp_path / "c.toml",
                "--store",
                tmp_path / "c.sqlite",
                "--no-progress",
            )
            == 0
        )
        other = tmp_path / "c.sqlite"
    elif problem == "exists":
        out = studies / "whole.sqlite"
    else:
        other = tmp_path / "nowhere.sqlite"
    capsys.readouterr()
    status = _main("merge", studies / "whole.sqlite", other, "--out", out)
    err = capsys.readouterr().err
    assert status in (1, 2)
    assert err.startswith("skggm-bench merge: error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("format", ["csv", "jsonl", "parquet"])
def test_export_reads_back_as_the_store_frame(studies, tmp_path, capsys, format):
    if format == "parquet":
        pytest.importorskip("pyarrow")
    out = tmp_path / f"rows.{format}"
    assert _main("export", "--store", studies / "whole.sqlite", "--out", out) == 0
    assert f"to {out}" in capsys.readouterr().out
    pd.testing.assert_frame_equal(
        read_export(out), _frame(studies / "whole.sqlite"), check_exact=True
    )


def test_export_errors(studies, tmp_path, capsys):
    assert (
        _main(
            "export", "--store", studies / "whole.sqlite", "--out", tmp_path / "x.txt"
        )
        == 2
    )
    assert "give --format csv, parquet or jsonl" in capsys.readouterr().err


@pytest.mark.parametrize("format", ["markdown", "latex", "csv"])
def test_leaderboard_formats(studies, capsys, format):
    assert (
        _main("leaderboard", "--store", studies / "whole.sqlite", "--format", format)
        == 0
    )
    out = capsys.readouterr().out
    assert "Findings" not in out
    if format == "markdown":
        assert "| generator | density | learner | position |" in out
        assert "| --- |" in out
    elif format == "latex":
        assert out.count("\\begin{table}") >= 3 and "\\toprule" in out
        assert "95\\% CI" in out and "--" in out  # intervals, escaped
    else:
        board = pd.read_csv(pd.io.common.StringIO(out))
        assert list(board.columns[:4]) == [
            "generator",
            "density",
            "learner",
            "position",
        ]
        assert len(board) == 4  # 2 generators x 2 densities, one learner


def test_report_links_csv_and_latex_tables(studies, tmp_path, capsys):
    out = tmp_path / "report"
    assert _main("report", "--store", studies / "whole.sqlite", "--out", out) == 0
    html = (out / "report.html").read_text()
    for suffix in ("csv", "tex"):
        path = out / "tables" / f"leaderboard.{suffix}"
        assert path.is_file() and f'href="tables/leaderboard.{suffix}"' in html
    board = pd.read_csv(out / "tables" / "leaderboard.csv")
    assert "learner" in board.columns
    assert "\\begin{tabular}" in (out / "tables" / "leaderboard.tex").read_text()


def test_shard_option_is_checked(capsys):
    with pytest.raises(SystemExit):
        cli.main(["run", "--shard", "0/2"])
    assert "expected I/K with 1 <= I <= K" in capsys.readouterr().err


def test_the_slurm_array_script_covers_the_study(studies, tmp_path):
    """examples/slurm/study_array.sh, run as SLURM would run an array of 2."""
    import os
    import sys

    script = Path(__file__).parent.parent / "examples" / "slurm" / "study_array.sh"
    (tmp_path / "study.toml").write_text(STUDY)
    bin_dir = str(Path(sys.executable).parent)
    for task in (1, 2):
        env = {
            **os.environ,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "SLURM_ARRAY_TASK_ID": str(task),
            "SLURM_ARRAY_TASK_COUNT": "2",
            "SLURM_CPUS_PER_TASK": "1",
        }
        done = patience.run(
            ["bash", str(script)], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr[-2000:]
    parts = sorted((tmp_path / "results").glob("study.shard-*-of-2.sqlite"))
    assert len(parts) == 2
    assert _main("merge", *parts, "--out", tmp_path / "study.sqlite") == 0
    pd.testing.assert_frame_equal(
        _sorted(_frame(tmp_path / "study.sqlite")),
        _sorted(_frame(studies / "whole.sqlite")),
    )
