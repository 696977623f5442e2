"""The ecosystem's estimators, unchanged, through the harness (issue 21).

scikit-learn's covariance module, skglm, regain and gglasso are installed by the
``compat`` extra (``pip install -e ".[compat]"``); skggm where it builds. A package
that is not installed skips its tests with the reason. Grids are tiny (p = 12,
two repeats): what is checked -- statuses, messages, NaN losses, versions, equal
tables across ``n_jobs`` -- does not need more.
"""

import importlib.metadata
import json
import math
import os
import re
import sys
import textwrap
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import patience
import pytest
from sklearn import covariance as skc
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skggm_bench.benchmark import Benchmark, StudyError
from skggm_bench.benchmark.analysis._analysis import analyse
from skggm_bench.benchmark.config import load_config
from skggm_bench.benchmark.plan import _shipping
from skggm_bench.benchmark.present._findings import findings
from skggm_bench.benchmark.present.report import write_report
from skggm_bench.generators import DiagonalDominance, PartialOrthogonalization
from skggm_bench.metrics import DISAGREEMENT_TOL

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

ROOT = Path(__file__).resolve().parents[2]
P = 12
PAIRS = P * (P - 1) // 2
METRICS = ("f1", "roc_auc", "n_selected_edges", "kl_divergence", "frobenius_loss")
# Dense estimates: every partial correlation is non-zero, every pair selected.
DENSE = ("empirical", "shrunk", "ledoit_wolf", "oas", "min_cov_det")

skglm_covariance = pytest.importorskip("skglm.covariance", reason="skglm missing")
regain_covariance = pytest.importorskip("regain.covariance", reason="regain missing")


def _learners() -> dict:
    return {
        "empirical": skc.EmpiricalCovariance(),
        "shrunk": skc.ShrunkCovariance(),
        "ledoit_wolf": skc.LedoitWolf(),
        "oas": skc.OAS(),
        "min_cov_det": skc.MinCovDet(),
        "glasso": skc.GraphicalLasso(),
        "glasso_cv": skc.GraphicalLassoCV(),
        "skglm": skglm_covariance.GraphicalLasso(),
        "skglm_adaptive": skglm_covariance.AdaptiveGraphicalLasso(),
        "regain": regain_covariance.GraphicalLasso(),
    }


def _study(**options) -> Benchmark:
    arguments = {
        "n_features": P,
        "densities": 0.3,
        "n_samples": 100,
        "n_repeats": 2,
        "metrics": METRICS,
        "random_state": 0,
    } | options
    return Benchmark(
        {"dd": DiagonalDominance(), "po": PartialOrthogonalization()},
        arguments.pop("learners", _learners()),
        **arguments,
    )


@pytest.fixture(scope="module")
def runs():
    """The study with n_jobs=1 and with n_jobs=2 (loky)."""
    return {n_jobs: _study(n_jobs=n_jobs).run().frame for n_jobs in (1, 2)}


def test_every_estimator_runs_unchanged_and_alike_whatever_n_jobs(runs):
    one, two = runs[1], runs[2]
    assert set(one["learner"]) == set(_learners())
    failed = one[one.status != "ok"]
    # sklearn's GraphicalLasso may stop on an ill-conditioned system (its own
    # FloatingPointError): a failed row with its message, never a refusal.
    assert set(failed["learner"]) <= {"glasso", "glasso_cv"}
    assert failed["message"].str.contains("FloatingPointError").all()
    assert (one.groupby("learner").status.apply(lambda s: (s == "ok").any())).all()
    columns = ["learner", "generator", "repeat", "status", *METRICS]
    pd.testing.assert_frame_equal(
        one[columns].reset_index(drop=True), two[columns].reset_index(drop=True)
    )


def test_validation_applies_only_the_constraints_of_the_fit_that_runs():
    # regain's fit takes mode="admm"; the scikit-learn parent's constraints do not.
    _study(learners={"regain": regain_covariance.GraphicalLasso()}).validate()
    with pytest.raises(StudyError, match="mode"):
        _study(learners={"glasso": skc.GraphicalLasso(mode="admm")}).validate()


def test_dense_estimators_say_they_selected_every_pair(runs):
    frame = runs[1]
    dense = frame[frame.learner.isin(DENSE)]
    assert (dense.status == "ok").all()
    assert (dense.n_selected_edges == PAIRS).all()
    assert dense.message.str.startswith("selected every pair").all()
    # Their precision is the density d of the true graph, so F1 = 2d / (1 + d).
    density = dense.n_edges / PAIRS
    np.testing.assert_allclose(dense.f1, 2 * density / (1 + density))
    sparse = frame[frame.learner == "glasso"]
    assert not sparse.message.str.contains("selected every pair").any()


def test_regain_losses_are_nan_with_the_disagreement(runs):
    frame = runs[1]
    regain = frame[frame.learner == "regain"]
    assert (regain.status == "ok").all()
    assert regain[["kl_divergence", "frobenius_loss"]].isna().all().all()
    assert regain.message.str.contains(
        "kl_divergence, frobenius_loss undefined: no loss: covariance_ and "
        "precision_ disagree"
    ).all()
    # The edge metrics stay.
    assert regain[["f1", "roc_auc"]].notna().all().all()
    # Consistent learners keep their losses.
    exact = frame[frame.learner.isin(DENSE)]
    assert exact.kl_divergence.notna().all()
    assert DISAGREEMENT_TOL == 0.02


def test_versions_name_every_package_of_the_learner(runs):
    frame = runs[1]
    for learner, package in [
        ("regain", "regain"),
        ("skglm_adaptive", "skglm"),
        ("oas", "scikit-learn"),
    ]:
        versions = json.loads(frame[frame.learner == learner].versions.iloc[0])
        assert versions[package] == importlib.metadata.version(package)


def test_findings_and_report_name_the_dense_learners_and_the_missing_losses(
    runs, tmp_path
):
    frame = runs[1]
    text = " ".join(findings(analyse(frame, "f1", n_bootstrap=50)))
    assert "ledoit_wolf selected every pair in 100% of its fits (4 of 4)" in text
    assert "roc_auc" in text and "average_precision" in text
    assert "LocalFDRSelector" in text
    sentences = findings(analyse(frame, "kl_divergence", n_bootstrap=50))
    no_value = [s for s in sentences if s.startswith("Without a value of")]
    assert len(no_value) == 1 and "regain" in no_value[0]
    assert "no loss: covariance_ and precision_ disagree" in no_value[0]
    no_fit = [s for s in sentences if s.startswith("Without any successful fit")]
    assert not any("regain" in s for s in no_fit)
    page = write_report(frame, tmp_path, metric="kl_divergence", n_bootstrap=50)
    html = page.read_text()
    assert "selected every pair" in html
    assert "no loss: covariance_ and precision_ disagree" in html


def test_a_standardising_pipeline_is_scored_on_the_data_scale():
    learners = {
        "scaled": make_pipeline(StandardScaler(), skc.GraphicalLasso(alpha=0.2)),
        "plain": skc.GraphicalLasso(alpha=0.2),
    }
    frame = (
        Benchmark(
            {"po": PartialOrthogonalization()},
            learners,
            n_features=P,
            densities=0.3,
            n_samples=200,
            metrics=METRICS,
            random_state=1,
        )
        .run()
        .frame
    )
    assert (frame.status == "ok").all()
    scaled = frame[frame.learner == "scaled"].iloc[0]
    plain = frame[frame.learner == "plain"].iloc[0]
    # The scaler's D maps the estimate back (Sigma = D Sigma_z D; checked against
    # losses by hand in tests/metrics/test_metrics.py): both are scored.
    assert "undefined" not in scaled.message and "undefined" not in plain.message
    assert 0 < scaled.kl_divergence < math.inf and 0 < plain.kl_divergence < math.inf
    assert not math.isnan(scaled.f1)


def test_a_penalty_object_is_fingerprinted_and_the_study_resumes(tmp_path):
    store = tmp_path / "adaptive.sqlite"
    learners = {"adaptive": skglm_covariance.AdaptiveGraphicalLasso()}
    first = _study(learners=learners, store=store, n_repeats=1).run()
    assert first.n_computed == 2 and (first.frame.status == "ok").all()
    penalty = first.study["learners"]["adaptive"]["params"]["penalty"]
    assert penalty["object"].startswith("skglm.penalties")
    again = _study(
        learners={"adaptive": skglm_covariance.AdaptiveGraphicalLasso()},
        store=store,
        n_repeats=1,
    ).run()
    assert again.n_computed == 0
    pd.testing.assert_frame_equal(first.frame, again.frame)


def test_a_toml_study_names_the_estimators_by_class_path(tmp_path):
    study = tmp_path / "third_party.toml"
    study.write_text(
        textwrap.dedent(
            """
            n_features = 10
            densities = [0.3]
            n_samples = [60]
            random_state = 0
            metrics = ["f1", "n_selected_edges"]
            tie_tolerance = 1e-3
            [generators]
            DiagonalDominance = {}
            [learners.oas]
            class = "sklearn.covariance.OAS"
            [learners.skglm]
            class = "skglm.covariance.AdaptiveGraphicalLasso"
            [learners.regain]
            class = "regain.covariance.GraphicalLasso"
            """
        )
    )
    benchmark = load_config(study).make_benchmark()
    result = benchmark.run()
    assert (result.frame.status == "ok").all()
    assert result.tie_tolerance == 1e-3


# --------------------------------------------------------------------------------------
# gglasso: a short wrapper, defined in the user's script (run as __main__)
# --------------------------------------------------------------------------------------


def _docs_block(marker: str) -> str:
    text = (ROOT / "docs" / "bring_your_own_learner.md").read_text(encoding="utf-8")
    blocks = text.split("```python\n")[1:]
    return next(block.split("```")[0] for block in blocks if marker in block)


def test_the_documented_gglasso_wrapper_runs_from_a_script_with_two_workers(
    tmp_path,
):
    pytest.importorskip("gglasso", reason="gglasso missing")
    script = tmp_path / "study.py"
    script.write_text(
        _docs_block("class GGLasso")
        + textwrap.dedent(
            """
            from skggm_bench.benchmark import Benchmark
            from skggm_bench.generators import DiagonalDominance

            if __name__ == "__main__":
                frame = Benchmark(
                    {"dd": DiagonalDominance()}, {"gglasso": GGLasso(lambda1=0.05)},
                    n_features=10, densities=0.3, n_samples=100, n_repeats=2,
                    metrics=("f1", "kl_divergence"), n_jobs=2, random_state=0,
                ).run().frame
                print(frame.status.tolist(), frame.kl_divergence.notna().tolist())
                print(frame.versions.iloc[0])
            """
        )
    )
    done = patience.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=os.environ | {"PYTHONWARNINGS": "ignore"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    # gglasso prints its solver's progress; the script's own lines come last.
    lines = done.stdout.strip().splitlines()[-2:]
    assert lines[0] == "['ok', 'ok'] [True, True]"
    assert json.loads(lines[1])["gglasso"] == importlib.metadata.version("gglasso")


# --------------------------------------------------------------------------------------
# skggm: runs where it builds and imports; otherwise its rows fail with the reason
# --------------------------------------------------------------------------------------


# Where .ci/run keeps the output of a skggm build that failed.
SKGGM_BUILD_LOG = Path(sys.prefix) / "skggm-build.log"


def _skggm_absent(exc: Exception, build_log: Path, installed: str | None) -> str:
    """Why skggm cannot be used here, recommending only what was not tried.

    Installed but not importable: the import error. A build that failed (.ci/run
    kept its output): the error it ended on, with no advice to build it again.
    Never tried: how it builds.
    """
    if installed is not None:
        return (
            f"skggm {installed} is installed but cannot be imported here: "
            f"{type(exc).__name__}: {exc}"
        )
    if build_log.is_file():
        lines = build_log.read_text(errors="replace").splitlines()
        # The compiler's or linker's message comes before pip's summary of it.
        errors = [x.strip() for x in lines if re.search("cannot find|error:", x, re.I)]
        cause = errors[0] if errors else next((x for x in reversed(lines) if x), "")
        return f"skggm did not build here: {cause} (the build's output: {build_log})"
    return (
        "skggm is not installed. It builds with a C++ compiler and LAPACK's "
        "development files (Debian: g++ liblapack-dev) and without build isolation "
        "(its setup imports Cython): 'pip install Cython wheel', then 'pip install "
        "--no-build-isolation skggm'"
    )


def test_skggm_skip_reason_never_recommends_the_build_that_just_failed(tmp_path):
    log = tmp_path / "skggm-build.log"
    error = ModuleNotFoundError("No module named 'inverse_covariance'")
    never_tried = _skggm_absent(error, log, installed=None)
    assert "liblapack-dev" in never_tried and "--no-build-isolation" in never_tried
    log.write_text(
        "  building 'inverse_covariance.pyquic.pyquic' extension\n"
        "  /usr/bin/ld: cannot find -llapack: No such file or directory\n"
        "  error: command '/usr/bin/g++' failed with exit code 1\n"
        "ERROR: Failed building wheel for skggm\n"
    )
    failed = _skggm_absent(error, log, installed=None)
    assert "cannot find -llapack" in failed and str(log) in failed
    assert "pip install" not in failed
    broken = _skggm_absent(ImportError("sklearn.utils.fixes"), log, installed="0.2.8")
    assert broken.startswith("skggm 0.2.8 is installed but cannot be imported")
    assert "pip install" not in broken


@pytest.fixture
def quic(monkeypatch):
    """skggm's QuicGraphicalLasso, imported as its users do: behind shims.

    skggm 0.2.8 builds with ``pip install Cython wheel`` then ``pip install
    --no-build-isolation skggm``; it imports modules scikit-learn has removed
    (``sklearn.utils.testing``, ``sklearn.externals.joblib``).
    """
    import joblib

    testing = type(sys)("sklearn.utils.testing")
    testing.assert_array_almost_equal = np.testing.assert_array_almost_equal
    monkeypatch.setitem(sys.modules, "sklearn.utils.testing", testing)
    monkeypatch.setitem(sys.modules, "sklearn.externals.joblib", joblib)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from inverse_covariance import QuicGraphicalLasso
    except Exception as exc:  # not installed, or it needs more shims here
        try:
            installed = importlib.metadata.version("skggm")
        except importlib.metadata.PackageNotFoundError:
            installed = None
        pytest.skip(_skggm_absent(exc, SKGGM_BUILD_LOG, installed))
    return QuicGraphicalLasso()


def test_skggm_quic_runs_or_fails_its_own_rows_with_the_reason(quic, monkeypatch):
    learners = {"quic": quic, "oas": skc.OAS()}
    frame = _study(learners=learners, n_repeats=1).run().frame
    assert (frame[frame.learner == "oas"].status == "ok").all()
    rows = frame[frame.learner == "quic"]
    # With scikit-learn 1.9 its fit calls as_float_array(force_all_finite=...),
    # which no longer exists: failed rows saying so. Where it fits, ok rows.
    assert ((rows.status == "ok") | rows.message.str.contains("Error")).all()
    # Fresh worker processes import it without the session's shims: refused...
    with pytest.raises(StudyError) as error:
        _study(learners=learners, n_jobs=2, n_repeats=1).validate()
    assert error.value.entry == "quic"
    # ...and if it slips through, only its own rows fail, with the cause.
    monkeypatch.setattr(
        _shipping, "load_problems", lambda shipped: defaultdict(lambda: None)
    )
    frame = _study(learners=learners, n_jobs=2, n_repeats=1).run().frame
    assert (frame[frame.learner == "oas"].status == "ok").all()
    rows = frame[frame.learner == "quic"]
    assert (rows.status == "failed").all()
    assert rows.message.str.contains("cannot be loaded in the worker process").all()
