"""The ecosystem's learners of related models, unchanged, scored by skggm-bench.

gglasso's multiple graphical lasso (GGL, FGL) through the wrapper documented in
docs/related_models.md, regain's TimeGraphicalLasso, LatentGraphicalLasso and
LatentTimeGraphicalLasso as they are, and the per-class baseline of
scikit-learn's GraphicalLasso. Each is fitted on data of the matching generator
and scored by the metrics of related models. The floors asserted (F1 above that
of the empty or the complete graph, a found change, the rank of the latent part)
are met by every learner at these penalties and sample sizes with a wide margin,
and fail for a learner that is not read correctly (a transposed stack, the wrong
attribute, a precision_ of the wrong shape).
"""

import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.covariance import GraphicalLasso

from skggm_bench.benchmark import Benchmark
from skggm_bench.datasets import make_joint_ggm, make_latent_ggm, make_time_varying_ggm
from skggm_bench.generators import TriangulatedOrthogonalization
from skggm_bench.learners import PerClass
from skggm_bench.metrics import group_scores, latent_scores

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

ROOT = Path(__file__).resolve().parents[2]
P = 12


def _complete_graph_f1(adjacency: np.ndarray) -> float:
    # F1 of a learner that selects every pair: the floor a learner must beat.
    rows, cols = np.triu_indices(P, 1)
    density = adjacency[:, rows, cols].mean()
    return 2 * density / (1 + density)


@pytest.fixture(scope="module")
def joint():
    return make_joint_ggm(
        150, P, n_classes=3, density=0.2, shared_fraction=0.7, similarity=0.8,
        random_state=0,
    )  # fmt: skip


@pytest.fixture(scope="module")
def timed():
    return make_time_varying_ggm(
        400, P, n_times=4, density=0.2, change_rate=0.2, smoothness=0.5,
        random_state=1,
    )  # fmt: skip


def _wrapper():
    text = (ROOT / "docs" / "related_models.md").read_text(encoding="utf-8")
    block = next(
        b.split("```")[0]
        for b in text.split("```python\n")[1:]
        if "class MultipleGGLasso" in b
    )
    namespace: dict = {}
    exec(compile(block, "docs/related_models.md", "exec"), namespace)
    return namespace["MultipleGGLasso"]


@pytest.mark.parametrize("reg", ["GGL", "FGL"])
def test_gglasso_multiple_graphical_lasso_through_the_documented_wrapper(reg, joint):
    pytest.importorskip("gglasso", reason="gglasso missing")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = _wrapper()(reg=reg, lambda1=0.08, lambda2=0.05).fit(joint.X, joint.y)
    assert model.precision_.shape == (3, P, P)
    scores = group_scores(model, joint.adjacency, joint.precision)
    assert scores["f1"] > _complete_graph_f1(joint.adjacency) + 0.1
    assert np.isfinite(scores["kl_divergence"])


def test_the_documented_gglasso_wrapper_in_a_study_has_a_kl_and_prints_nothing(
    capfd,
):
    # Issue 37: the wrapper set no covariance_ (KL always NaN), and gglasso's
    # "ADMM terminated after ... iterations" reached the terminal of `run`.
    pytest.importorskip("gglasso", reason="gglasso missing")
    frame = (
        Benchmark(
            {"dd": TriangulatedOrthogonalization()},
            {"fgl": _wrapper()(reg="FGL")},
            n_features=6,
            densities=0.3,
            n_samples=40,
            n_repeats=2,
            random_state=0,
            models={"joint": {"kind": "joint", "n_classes": 2}},
            metrics=("f1", "kl_divergence"),
        )
        .run()
        .frame
    )
    assert (frame.status == "ok").all(), frame.message.tolist()
    assert np.isfinite(frame.kl_divergence).all(), frame.message.tolist()
    out, err = capfd.readouterr()
    assert "ADMM" not in out + err


def test_regain_time_graphical_lasso(timed):
    covariance = pytest.importorskip("regain.covariance", reason="regain missing")
    model = covariance.TimeGraphicalLasso(alpha=40.0, beta=40.0, max_iter=300)
    model.fit(timed.X, timed.y)
    assert model.precision_.shape == (4, P, P)
    scores = group_scores(
        model, timed.adjacency, timed.precision, changes="consecutive"
    )
    assert scores["f1"] > _complete_graph_f1(timed.adjacency) + 0.1
    assert scores["n_true_changes"] > 0 and scores["change_tpr"] > 0.3
    assert np.isfinite(scores["kl_divergence"])


def test_regain_latent_graphical_lasso():
    covariance = pytest.importorskip("regain.covariance", reason="regain missing")
    data = make_latent_ggm(
        2000, P, n_latent=2, n_attached=6, density=0.2, random_state=2
    )
    model = covariance.LatentGraphicalLasso(alpha=0.02, tau=0.05).fit(data.X)
    scores = latent_scores(model, data.sparse, data.low_rank)
    assert scores["rank"] >= 1
    assert scores["sparse_relative_error"] < 1.0
    assert scores["f1"] > _complete_graph_f1(data.adjacency[None]) + 0.1


def test_regain_latent_time_graphical_lasso(timed):
    covariance = pytest.importorskip("regain.covariance", reason="regain missing")
    model = covariance.LatentTimeGraphicalLasso(
        alpha=20.0, tau=20.0, beta=20.0, eta=20.0, max_iter=300
    ).fit(timed.X, timed.y)
    assert model.precision_.shape == model.latent_.shape == (4, P, P)
    scores = group_scores(
        model, timed.adjacency, timed.precision, changes="consecutive"
    )
    assert scores["f1"] > _complete_graph_f1(timed.adjacency) + 0.1


def test_per_class_graphical_lasso_baseline(joint):
    model = PerClass(GraphicalLasso(alpha=0.1)).fit(joint.X, joint.y)
    scores = group_scores(model, joint.adjacency, joint.precision)
    assert scores["f1"] > _complete_graph_f1(joint.adjacency) + 0.1
    assert scores["change_tpr"] > 0


def test_group_graphical_lasso_solves_gglasso_s_problem(joint):
    """skggm-bench's GGL and gglasso's solve the same problem: the same solution.

    Both ADMM solvers run to tight tolerances; the estimates then agree to 1e-5
    (a different penalty scaling, e.g. weighting by class sizes, would move
    them by far more) and have the same support.
    """
    pytest.importorskip("gglasso", reason="gglasso missing")
    from skggm_bench.learners import GroupGraphicalLasso

    # Unequal class sizes (150, 50, 50): a solver weighting by them would differ.
    keep = (joint.y == 0) | (np.arange(joint.y.size) % 3 == 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = _wrapper()(reg="GGL", lambda1=0.06, lambda2=0.04)
        reference.fit(joint.X[keep], joint.y[keep])
    ours = GroupGraphicalLasso(alpha=0.06, beta=0.04, tol=1e-9, max_iter=5000)
    ours.fit(joint.X[keep], joint.y[keep])
    np.testing.assert_allclose(ours.precision_, reference.precision_, atol=1e-5)
    np.testing.assert_array_equal(ours.precision_ != 0, reference.precision_ != 0)


def test_regain_learners_in_the_harness_model_axis():
    """regain's learners, unchanged, in a study with a model axis: the time-varying
    one fitted with fit(X, y) on a time-varying model, the latent one with fit(X)
    on a latent model, each scored as make_*_ggm + the library scores score it."""
    covariance = pytest.importorskip("regain.covariance", reason="regain missing")

    time_model = {"kind": "time_varying", "n_times": 4, "change_rate": 0.2}
    learners = {
        "tgl": covariance.TimeGraphicalLasso(alpha=2.0, beta=1.0, max_iter=200),
        "lgl": covariance.LatentGraphicalLasso(alpha=2.0, tau=1.0, max_iter=200),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = Benchmark(
            {"to": TriangulatedOrthogonalization()}, learners,
            models={"time": time_model, "hidden": {"kind": "latent", "n_latent": 2}},
            n_features=10, densities=0.3, n_samples=40, n_repeats=1,
            metrics=("f1", "change_tpr", "rank", "sparse_relative_error"),
            random_state=0,
        ).run().frame.set_index(["generator", "learner"])  # fmt: skip
    tgl, lgl = frame.loc[("time/to", "tgl")], frame.loc[("hidden/to", "lgl")]
    assert tgl.status == "ok" and lgl.status == "ok", (tgl.message, lgl.message)
    data = make_time_varying_ggm(
        40, 10, n_times=4, change_rate=0.2, density=0.3,
        generator=TriangulatedOrthogonalization(), random_state=int(tgl.seed),
    )  # fmt: skip
    fitted = clone(learners["tgl"]).fit(data.X, data.y)
    expected = group_scores(fitted, data.adjacency, changes="consecutive")
    assert tgl.f1 == pytest.approx(expected["f1"], rel=1e-9)
    hidden = make_latent_ggm(
        40,
        10,
        n_latent=2,
        density=0.3,
        generator=TriangulatedOrthogonalization(),
        random_state=int(lgl.seed),
    )
    expected = latent_scores(clone(learners["lgl"]).fit(hidden.X),
                             hidden.sparse, hidden.low_rank)  # fmt: skip
    assert lgl["rank"] == expected["rank"]
    assert lgl.sparse_relative_error == pytest.approx(
        expected["sparse_relative_error"], rel=1e-9
    )
    # The other model's rows fail: the time-varying learner needs y, the latent
    # one estimates one graph for four time points.
    assert frame.loc[("hidden/to", "tgl")].status == "failed"
    assert "estimated one graph" in frame.loc[("time/to", "lgl")].message
