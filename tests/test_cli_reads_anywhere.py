"""A store reads anywhere: ``leaderboard``, ``report``, ``export`` and ``merge`` of a
study whose learner comes from the user's own module, in a fresh interpreter where
that module does not exist (issue 28)."""

import os
import subprocess
import sys
from pathlib import Path

import patience
import pytest

ROOT = Path(__file__).resolve().parent.parent

# The user's module, next to the study file: a learner of its own, which warns
# and names itself (with its memory address) in a warning.
USER_MODULE = """
import warnings

import numpy as np
from sklearn.base import BaseEstimator


class AuditedShrinkage(BaseEstimator):
    def __init__(self, shrinkage=0.2):
        self.shrinkage = shrinkage

    def fit(self, X, y=None):
        S = np.cov(X, rowvar=False, bias=True)
        target = np.diag(np.diag(S))
        self.covariance_ = (1 - self.shrinkage) * S + self.shrinkage * target
        self.precision_ = np.linalg.inv(self.covariance_)
        warnings.warn(f"{self!r} at {hex(id(self))} shrank", UserWarning)
        return self
"""

STUDY = """
n_features = 6
densities = [0.3]
n_samples = [40]
n_repeats = 2
metrics = ["f1", "kl_divergence"]
random_state = 0
generators = ["DiagonalDominance"]
tie_tolerance = 1e-4

[learners.mine]
class = "audit_wrappers_issue28.AuditedShrinkage"
shrinkage = 0.3

[learners.lw]
class = "LedoitWolf"

[run]
store = "results/study.sqlite"
"""


def _cli(cwd, *args, user_module=None):
    path = [str(ROOT)] + ([str(user_module)] if user_module is not None else [])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(path),
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }
    return patience.run(
        [sys.executable, "-m", "skggm_bench.cli", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """The study run twice (n_jobs 1 and 2) with the user's module, which is then
    deleted."""
    folder = tmp_path_factory.mktemp("anywhere")
    user = folder / "user"
    user.mkdir()
    (user / "audit_wrappers_issue28.py").write_text(USER_MODULE)
    (folder / "study.toml").write_text(STUDY)
    first = _cli(
        folder,
        "run",
        "--config",
        "study.toml",
        "--n-jobs",
        "1",
        "--no-progress",
        user_module=user,
    )
    assert first.returncode == 0, first.stderr[-3000:]
    second = _cli(
        folder,
        "run",
        "--config",
        "study.toml",
        "--n-jobs",
        "2",
        "--store",
        "results/again.sqlite",
        "--no-progress",
        user_module=user,
    )
    assert second.returncode == 0, second.stderr[-3000:]
    for file in user.iterdir():
        file.unlink()
    user.rmdir()
    return folder, first, second


def test_run_counts_the_fits_warnings_and_prints_one_line_per_class(study):
    _, first, second = study
    line = (
        "warnings: learner 'mine' raised UserWarning 2 times in 2 of 2 fits "
        "(counted in the n_warnings column; each row's message names their classes)"
    )
    for run in (first, second):
        assert run.stderr.count("warnings: ") == 1, run.stderr
        assert line in run.stderr
        assert "shrank" not in run.stderr  # the warnings themselves: not printed


def test_the_users_module_is_absent_when_reading(study):
    folder, _, _ = study
    probe = _cli(folder, "--help")
    assert probe.returncode == 0
    absent = subprocess.run(
        [sys.executable, "-c", "import audit_wrappers_issue28"],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    assert absent.returncode != 0 and "ModuleNotFoundError" in absent.stderr


def test_leaderboard_report_and_export_read_the_store_without_the_module(study):
    folder, _, _ = study
    board = _cli(
        folder, "leaderboard", "--config", "study.toml", "--metric", "kl_divergence"
    )
    assert board.returncode == 0, board.stderr
    assert "mine" in board.stdout and "lw" in board.stdout
    report = _cli(folder, "report", "--config", "study.toml", "--out", "report")
    assert report.returncode == 0, report.stderr
    assert (folder / "report" / "report.html").is_file()
    export = _cli(folder, "export", "--config", "study.toml", "--out", "rows.csv")
    assert export.returncode == 0, export.stderr
    assert "mine" in (folder / "rows.csv").read_text()


def test_two_runs_of_one_study_merge_without_the_module(study):
    folder, _, _ = study
    merged = _cli(
        folder,
        "merge",
        "results/study.sqlite",
        "results/again.sqlite",
        "--out",
        "merged.sqlite",
    )
    assert merged.returncode == 0, merged.stderr
    assert "mine" in merged.stdout


def test_a_broken_study_file_is_still_refused_when_reading(study):
    folder, _, _ = study
    (folder / "typo.toml").write_text(STUDY.replace("tie_tolerance", "tie_tolerence"))
    board = _cli(folder, "leaderboard", "--config", "typo.toml")
    assert board.returncode == 2
    assert "tie_tolerence: unknown key (did you mean 'tie_tolerance'?)" in board.stderr
    assert "Traceback" not in board.stderr
