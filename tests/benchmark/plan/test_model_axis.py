"""The model axis: joint, time-varying and latent models in the harness.

Each related model's rows are checked against an independent path: the data set
that ``make_joint_ggm`` (``make_time_varying_ggm``, ``make_latent_ggm``) draws
with the row's seed, a learner fitted on it here, and the library's
``group_scores`` / ``latent_scores``. Studies without the axis must keep the rows
and the fingerprint they had before it existed.
"""

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.covariance import GraphicalLasso, LedoitWolf

from skggm_bench.benchmark import Benchmark, StudyError
from skggm_bench.benchmark.analysis.leaderboard import leaderboard
from skggm_bench.benchmark.config import ConfigError, load_config
from skggm_bench.benchmark.results.store import StudyMismatchError
from skggm_bench.benchmark.run._worker import data_hash
from skggm_bench.datasets import (
    Nonparanormal,
    make_joint_ggm,
    make_latent_ggm,
    make_time_varying_ggm,
)
from skggm_bench.generators import DiagonalDominance, TriangulatedOrthogonalization
from skggm_bench.learners import (
    GroupGraphicalLasso,
    PerClass,
    ThresholdedCorrelation,
)
from skggm_bench.metrics import get_metric, group_scores, latent_scores

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

VOLATILE = ["fit_time", "versions"]
DATA = Path(__file__).parents[1] / "data"
P, N, DENSITY = 8, 40, 0.3
JOINT = {"kind": "joint", "n_classes": 3, "shared_fraction": 0.6, "similarity": 0.5}
TIME = {"kind": "time_varying", "n_times": 4, "change_rate": 0.3, "smoothness": 0.5}
LATENT = {"kind": "latent", "n_latent": 1, "n_attached": 3}


class LowRankSplit(BaseEstimator):
    """A toy latent-variable learner: the inverse sample covariance ``P`` split as
    ``S - L``, with ``L`` the rank-``n_latent`` part of ``P``'s smallest
    eigenvalues' complement (largest eigenvalues of the covariance)."""

    def __init__(self, n_latent=1):
        self.n_latent = n_latent

    def fit(self, X, y=None):
        covariance = np.cov(X, rowvar=False)
        vectors = np.linalg.eigh(covariance)[1]
        top = vectors[:, -self.n_latent :]
        self.latent_ = 0.5 * top @ top.T
        self.precision_ = np.linalg.inv(covariance) + self.latent_
        return self


def joint_study(**changes):
    params = {
        "models": {"joint": JOINT},
        "n_features": P,
        "densities": DENSITY,
        "n_samples": N,
        "n_repeats": 2,
        "metrics": (
            "tpr",
            "ppv",
            "f1",
            "shd",
            "precision_frobenius_loss",
            "change_tpr",
            "change_ppv",
            "n_true_changes",
        ),
        "random_state": 0,
        "n_jobs": 1,
    } | changes
    return Benchmark(
        {"to": TriangulatedOrthogonalization()},
        {
            "per_class": PerClass(GraphicalLasso(alpha=0.1)),
            "group": GroupGraphicalLasso(alpha=0.1, beta=0.05),
            "glasso": GraphicalLasso(alpha=0.1),
        },
        **params,
    )


@pytest.fixture(scope="module")
def joint_rows():
    return joint_study().run().frame


def test_old_studies_keep_their_rows_and_fingerprint():
    """A study without the model axis gives the study fingerprint computed by the
    code before the axis existed (commit 9a641c0), so its stores resume, and the rows
    of b7afb3a (tests/benchmark/data/rows_before_the_model_axis.csv, the same on this
    machine as the rows 9a641c0 pinned by hash on another).

    The rows are compared value by value, not by a hash of their text: a hash of
    floating-point values pins the last bit of one machine's BLAS (the hash pinned
    at 9a641c0 failed on a machine with another numpy and OpenBLAS while every row
    was the same to 1e-12). ``data_hash`` is the digest of the data's bits, so it
    is left out for the same reason; fit times and versions differ by nature."""
    expected = pd.read_csv(
        DATA / "rows_before_the_model_axis.csv", dtype={"seed": "uint64"}
    )

    def run(**models):
        result = Benchmark(
            {"dd": DiagonalDominance(), "to": TriangulatedOrthogonalization()},
            {"thr": ThresholdedCorrelation(), "lw": LedoitWolf()},
            n_features=6,
            densities=0.3,
            n_samples=(20, 40),
            n_repeats=2,
            metrics=("tpr", "f1", "shd", "precision_frobenius_loss"),
            random_state=0,
            **models,
        ).run()
        rows = result.frame.drop(columns=VOLATILE).reset_index(drop=True)
        assert list(rows.columns) == list(expected.columns)
        numbers = rows.select_dtypes("number").columns.drop(["seed"])
        for column in rows.columns.drop([*numbers, "data_hash"]):
            assert (
                rows[column].astype(str).tolist()
                == expected[column].astype(str).tolist()
            ), column
        np.testing.assert_allclose(
            rows[numbers].to_numpy(float), expected[numbers].to_numpy(float),
            rtol=1e-8, atol=1e-12,
        )  # fmt: skip
        study = json.dumps(result.study, sort_keys=True)
        return hashlib.sha256(study.encode()).hexdigest()

    before = "72dadad917d1c4fa0d2130f7019a3a8104bb8914d2596a7149ddc59b4440d719"
    assert run() == before
    assert run(models={"single": "single"}) == before
    assert run(models=["single"]) == before


def test_joint_rows_are_the_library_scores_of_make_joint_ggm(joint_rows):
    ok = joint_rows[joint_rows.learner != "glasso"]
    assert set(ok.generator) == {"joint/to"}
    assert (ok.status == "ok").all(), ok.message.tolist()
    study = joint_study()
    for row in ok.itertuples():
        data = make_joint_ggm(
            N,
            P,
            n_classes=3,
            shared_fraction=0.6,
            similarity=0.5,
            density=DENSITY,
            generator=TriangulatedOrthogonalization(),
            random_state=row.seed,
        )
        rebuilt = study.dataset("to", density=DENSITY, repeat=row.repeat, n_samples=N)
        np.testing.assert_array_equal(rebuilt.X, data.X)
        np.testing.assert_array_equal(rebuilt.y, data.y)
        np.testing.assert_array_equal(rebuilt.adjacency, data.adjacency)
        assert row.data_hash == data_hash(data.X, data.precision)
        assert row.n_edges == data.adjacency.sum() // 2
        learner = dict(study.learners)[row.learner]
        fitted = type(learner)(**learner.get_params(deep=False)).fit(data.X, data.y)
        expected = group_scores(fitted, data.adjacency, data.precision)
        for name in (
            "tpr",
            "ppv",
            "f1",
            "shd",
            "precision_frobenius_loss",
            "change_tpr",
            "change_ppv",
            "n_true_changes",
        ):
            assert getattr(row, name) == pytest.approx(expected[name], rel=1e-9), name
    # Both learners were given the same data set in each repeat (paired).
    assert (ok.groupby("repeat").data_hash.nunique() == 1).all()


def test_a_single_graph_learner_on_a_joint_model_fails_with_a_hint(joint_rows):
    failed = joint_rows[joint_rows.learner == "glasso"]
    assert (failed.status == "failed").all()
    message = failed.message.iloc[0]
    assert "estimated one graph" in message
    assert "PerClass(GraphicalLasso(...))" in message


def test_joint_rows_do_not_depend_on_n_jobs(joint_rows):
    parallel = joint_study(n_jobs=2).run().frame  # loky: the spec is pickled
    pd.testing.assert_frame_equal(
        parallel.drop(columns=VOLATILE), joint_rows.drop(columns=VOLATILE)
    )


def related_study(**changes):
    params = {
        "models": {"single": "single", "time": TIME, "hidden": LATENT},
        "n_features": P,
        "densities": DENSITY,
        "n_samples": (N, 2 * N),
        "n_repeats": 2,
        "metrics": (
            "f1",
            "change_tpr",
            "change_ppv",
            "rank",
            "rank_error",
            "sparse_relative_error",
        ),
        "random_state": 1,
    } | changes
    return Benchmark(
        {"to": TriangulatedOrthogonalization()},
        {"per_time": PerClass(GraphicalLasso(alpha=0.1)), "split": LowRankSplit()},
        **params,
    )


@pytest.fixture(scope="module")
def related_rows():
    return related_study(n_jobs=1).run().frame


def test_time_varying_and_latent_rows(related_rows):
    frame = related_rows.set_index(["generator", "learner", "n_samples", "repeat"])
    assert set(related_rows.generator) == {"to", "time/to", "hidden/to"}
    for (generator, learner, n, _), row in frame.iterrows():
        if generator == "time/to" and learner == "per_time":
            data = make_time_varying_ggm(
                n,
                P,
                n_times=4,
                change_rate=0.3,
                smoothness=0.5,
                density=DENSITY,
                generator=TriangulatedOrthogonalization(),
                random_state=row.seed,
            )
            fitted = PerClass(GraphicalLasso(alpha=0.1)).fit(data.X, data.y)
            expected = group_scores(fitted, data.adjacency, changes="consecutive")
            assert row.status == "ok", row.message
            for name in ("f1", "change_tpr", "change_ppv"):
                assert row[name] == pytest.approx(expected[name], rel=1e-9)
        elif generator == "hidden/to" and learner == "split":
            data = make_latent_ggm(
                n,
                P,
                n_latent=1,
                n_attached=3,
                density=DENSITY,
                generator=TriangulatedOrthogonalization(),
                random_state=row.seed,
            )
            expected = latent_scores(
                LowRankSplit().fit(data.X), data.sparse, data.low_rank
            )
            assert row.status == "ok", row.message
            assert row["rank"] == 1 and row.rank_error == 0
            for name in ("f1", "sparse_relative_error"):
                assert row[name] == pytest.approx(expected[name], rel=1e-9)
            assert np.isnan(row.change_tpr)
            assert "no hidden" not in row.message
        elif learner == "split" and generator == "time/to":
            assert row.status == "failed"
            assert "PerClass(LowRankSplit(...))" in row.message
        elif learner == "split":  # one graph: the related metrics are NaN, why
            assert row.status == "ok", row.message
            assert np.isnan(row.change_tpr) and np.isnan(row["rank"])
            assert "this data set has one graph" in row.message
        else:  # PerClass needs y: the single and latent models have none
            assert row.status == "failed"
            assert "missing 1 required positional argument: 'y'" in row.message
    # The time-varying truth changes: some true changes were there to find.
    assert frame.xs("time/to").change_tpr.notna().any()


def test_related_rows_do_not_depend_on_n_jobs(related_rows):
    parallel = related_study(n_jobs=2, backend="threading").run().frame
    pd.testing.assert_frame_equal(
        parallel.drop(columns=VOLATILE), related_rows.drop(columns=VOLATILE)
    )


def test_leaderboard_of_a_related_metric(joint_rows):
    assert get_metric("change_ppv").greater_is_better
    rows = joint_rows[joint_rows.learner != "glasso"]
    ranked = leaderboard(rows, metric="f1", by=("generator",))
    assert set(ranked.learner) == {"per_class", "group"}
    ranked = leaderboard(rows, metric="change_ppv", by=("generator",))
    assert set(ranked.learner) == {"per_class", "group"}
    ranked = leaderboard(rows, metric="shd", by=("generator",))
    means = rows.groupby("learner").shd.mean()
    assert ranked.learner.iloc[0] == means.idxmin()


def test_command_line_leaderboard_and_report_of_related_rows(tmp_path, capsys):
    from skggm_bench import cli

    path = tmp_path / "joint.sqlite"
    joint_study(store=path).run()
    assert (
        cli.main(["leaderboard", "--store", str(path), "--metric", "change_ppv"]) == 0
    )
    printed = capsys.readouterr().out
    assert "Leaderboard by PPV of the changes between groups (higher is better)" in (
        printed
    )
    assert "Under joint/to" in printed
    out = tmp_path / "report"
    assert (
        cli.main(
            [
                "report",
                "--store",
                str(path),
                "--out",
                str(out),
                "--metric",
                "change_tpr",
            ]
        )
        == 0
    )
    assert "TPR of the changes between groups" in (out / "report.html").read_text()


def test_store_resumes_and_refuses_another_model_axis(tmp_path):
    path = tmp_path / "joint.sqlite"
    first = joint_study(store=path).run()
    assert first.n_computed == len(first.frame)
    again = joint_study(store=path).run()
    assert again.n_computed == 0
    pd.testing.assert_frame_equal(again.frame, first.frame)
    other = dict(JOINT, n_classes=2)
    with pytest.raises(StudyMismatchError):
        joint_study(store=path, models={"joint": other}).run()


def test_toml_study_with_a_models_table(tmp_path):
    path = tmp_path / "related.toml"
    path.write_text(
        """
n_features = 6
densities = [0.3]
n_samples = 30
metrics = ["f1", "change_tpr"]
random_state = 0

[models]
single = "single"
joint = { kind = "joint", n_classes = 2, shared_fraction = 0.5 }

[generators]
TriangulatedOrthogonalization = {}

[learners.per_class]
class = "PerClass"
estimator = { class = "GraphicalLasso", alpha = 0.1 }
"""
    )
    config = load_config(path)
    assert config.n_tasks == 2
    frame = config.make_benchmark().run().frame
    assert frame.generator.tolist() == [
        "TriangulatedOrthogonalization",
        "joint/TriangulatedOrthogonalization",
    ]
    # PerClass needs y: on the single model it fails, on the joint one it runs.
    assert frame.status.tolist() == ["failed", "ok"]
    path.write_text(path.read_text().replace("n_classes = 2", "n_classes = 0"))
    with pytest.raises(ConfigError, match=r"models\.joint: .*n_classes"):
        load_config(path)


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"models": {"m": "mixture"}}, "kind='mixture'"),
        ({"models": {"m": {"kind": "joint", "n_clases": 2}}}, "n_clases"),
        ({"models": {"a": "single", "b": "single"}}, "may appear once"),
        ({"models": {"j": {"kind": "joint", "generator": None}}}, "generator"),
        ({"data_models": {"npn": Nonparanormal()}}, "data models"),
        ({"model": "covariance"}, "concentration"),
        # Found by the dry probe on the study's graphs, naming model and generator.
        (
            {"models": {"h": {"kind": "latent", "n_latent": 2, "n_attached": 9}}},
            r"model 'h' cannot be drawn around generator 'to'.*n_attached=9",
        ),
    ],
)
def test_validate_refuses_bad_models(changes, match):
    study = joint_study(**({"models": {"joint": JOINT}} | changes))
    with pytest.raises(StudyError, match=match) as error:
        study.validate()
    assert error.value.parameter == "models"


def test_dataset_needs_the_model_when_there_are_several(related_rows):
    study = related_study()
    with pytest.raises(ValueError, match="say which one"):
        study.dataset("to", density=DENSITY, repeat=0, n_samples=N)
    data = study.dataset("to", density=DENSITY, repeat=0, n_samples=N, model="hidden")
    row = related_rows[
        (related_rows.generator == "hidden/to") & (related_rows.repeat == 0)
    ].iloc[0]
    assert data.seed == row.seed and data.y is None
    assert data.X.shape == (N, P)
