"""RLearner and its presets: R functions as learners, in and out of the harness.

The refusal tests run everywhere (without R they check the message naming R or
rpy2); everything that runs R is skipped, with the reason, where R, rpy2 or the
R package is missing.
"""

import doctest
import importlib
import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

from skggm_bench.benchmark import Benchmark, StudyError
from skggm_bench.generators import DiagonalDominance
from skggm_bench.learners import (
    EXPECTED_FAILED_CHECKS,
    RJGL,
    RBDgraph,
    REBICGlasso,
    RError,
    RGGMncv,
    RGlasso,
    RHuge,
    RLearner,
    r_seed,
    r_unavailable,
)
from skggm_bench.learners._r import install_command
from skggm_bench.metrics import edge_scores_from_estimator, edges_from_estimator

NO_R = r_unavailable()
needs_r = pytest.mark.skipif(NO_R is not None, reason=f"R learners: {NO_R}")


def needs(*packages):
    reason = r_unavailable(packages)
    return pytest.mark.skipif(reason is not None, reason=f"R learners: {reason}")


def data(n=200, p=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    X[:, 1] += X[:, 0]
    X[:, 2] += X[:, 1]
    return X


# -- everywhere -------------------------------------------------------------------


def test_r_seed_is_a_function_of_random_state():
    assert r_seed(0) == r_seed(0) == r_seed(np.random.RandomState(0))
    assert r_seed(0) != r_seed(1)
    assert 0 <= r_seed(12345) < 2**31 - 1


def test_install_command_names_debian_or_cran():
    assert install_command("huge") == "apt-get install r-cran-huge"
    assert install_command("JGL") == "Rscript -e 'install.packages(\"JGL\")'"


def test_parameters_follow_scikit_learn():
    learner = RLearner("function(x, a) solve(cov(x) + a * diag(ncol(x)))", {"a": 1})
    assert clone(learner).get_params()["args"] == {"a": 1}
    huge = RHuge("glasso", "ebic", n_lambdas=5)
    assert huge.get_params()["method"] == "glasso"
    assert pickle.loads(pickle.dumps(huge)).get_params() == huge.get_params()
    assert huge.__skggm_bench_process_setup__() == (
        "skggm_bench.learners._r:start_r",
        ("huge",),
    )


def test_validate_refuses_a_missing_r_package_with_the_install_command():
    bench = Benchmark(
        {"dd": DiagonalDominance()},
        {"r": RLearner(packages=("no.such.package",))},
        n_features=5,
        n_samples=20,
        n_repeats=1,
    )
    with pytest.raises(StudyError) as caught:
        bench.validate()
    message = str(caught.value)
    assert message.startswith("learners['r'] cannot run here: ")
    if NO_R is None:
        assert "no.such.package is not installed" in message
        assert 'install.packages("no.such.package")' in message
    else:  # R or rpy2 itself is what is missing
        assert "install" in message and ("rpy2" in message or "R is" in message)


def test_cli_refuses_a_missing_r_package_in_one_line(tmp_path):
    config = tmp_path / "study.toml"
    config.write_text(
        "n_features = 5\nn_samples = 20\nn_repeats = 1\n"
        "[generators]\nDiagonalDominance = {}\n"
        '[learners.r]\nclass = "RLearner"\nfunction = "function(x) solve(cov(x))"\n'
        'packages = ["no.such.package"]\n'
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "skggm_bench.cli",
            "run",
            "--config",
            str(config),
            "--store",
            str(tmp_path / "s.sqlite"),
        ],
        capture_output=True,
        text=True,
        env=os.environ | {"PYTHONPATH": str(Path(__file__).parents[2])},
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "no.such.package" in lines[0] or "rpy2" in lines[0] or "R is" in lines[0]
    assert "install" in lines[0]


def test_optional_learners_that_cannot_run_are_left_out_with_one_line():
    from skggm_bench.benchmark.config import parse_config

    config = parse_config(
        {
            "n_features": 5,
            "n_samples": 20,
            "n_repeats": 1,
            "generators": ["DiagonalDominance"],
            "learners": {
                "shrink": {"class": "ShrinkagePartialCorrelation"},
                "missing": {
                    "class": "RLearner",
                    "packages": ["no.such.package"],
                    "optional": True,
                },
            },
        }
    )
    assert list(config.learners) == ["shrink"]
    (note,) = config.notes
    assert note.startswith("left out, as they cannot run here: missing (")
    assert "install" in note and "\n" not in note


# -- with R -----------------------------------------------------------------------


@needs_r
def test_matrix_list_path_and_index_are_read_back():
    X = data()
    precision = RLearner().fit(X).precision_
    np.testing.assert_allclose(precision, np.linalg.inv(np.cov(X, rowvar=False)))
    covariance = RLearner("stats::cov", returns="covariance").fit(X).covariance_
    np.testing.assert_allclose(covariance, np.cov(X, rowvar=False))
    thresholded = RLearner(
        "function(x, t) list(adjacency = abs(cor(x)) > t, edge_scores = abs(cor(x)))",
        args={"t": 0.3},
    ).fit(X)
    correlation = np.abs(np.corrcoef(X, rowvar=False))
    expected = correlation > 0.3
    np.fill_diagonal(expected, False)
    np.testing.assert_array_equal(thresholded.adjacency_, expected)
    assert thresholded.adjacency_.dtype == bool
    np.testing.assert_allclose(thresholded.edge_scores_, correlation)
    path = RLearner(
        "function(x, ts) list(path = lapply(ts, function(t) abs(cor(x)) > t), "
        "index = 2L)",
        args={"ts": [0.9, 0.3, 0.01]},
    ).fit(X)
    assert len(path.path_) == 3 and path.index_ == 1
    np.testing.assert_array_equal(path.adjacency_, expected)
    assert path.path_[0].sum() < path.path_[1].sum() < path.path_[2].sum()


@needs_r
def test_arguments_of_every_kind_reach_r():
    learner = RLearner(
        "function(x, a, b, c, d, e, f) { stopifnot(is.integer(a), is.double(b),"
        " is.logical(c), is.character(d), is.null(e), is.list(f), f$k == 2,"
        " length(b) == 3); diag(ncol(x)) }",
        args={
            "a": 1,
            "b": [0.1, 0.2, 0.3],
            "c": True,
            "d": "x",
            "e": None,
            "f": {"k": 2},
        },
    )
    learner.fit(data())
    with pytest.raises(TypeError, match="cannot pass"):
        RLearner(args={"a": object()}).fit(data())


@needs_r
def test_r_errors_and_warnings_carry_r_messages():
    X = data()
    with pytest.raises(RError, match=r"^no luck with 6 variables$"):
        RLearner("function(x) stop('no luck with ', ncol(x), ' variables')").fit(X)
    with pytest.raises(RError, match="does not parse"):
        RLearner("function(x) {").fit(X)
    with pytest.warns(RuntimeWarning, match="R: careful"):
        fitted = RLearner("function(x) { warning('careful'); diag(ncol(x)) }").fit(X)
    assert fitted.r_warnings_ == ["careful"]
    with pytest.raises(ValueError, match="returned none of"):
        RLearner("function(x) list(foo = 1)").fit(X)
    with pytest.raises(ValueError, match="has shape"):
        RLearner("function(x) diag(2)").fit(X)
    with pytest.raises(ValueError, match="not on its path"):
        RLearner("function(x) list(path = list(diag(ncol(x))), index = 3)").fit(X)


@needs_r
@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("list(adjacency = matrix(NA, ncol(x), ncol(x)))", "adjacency[1, 2] is NA;"),
        ("{ a <- diag(ncol(x)); a[2, 3] <- a[3, 2] <- NA; list(adjacency = a) }",
         "adjacency[2, 3] is NA;"),
        ("list(adjacency = matrix(NaN, ncol(x), ncol(x)))", "adjacency[1, 2] is NaN;"),
        ("list(adjacency = abs(cor(x)))", "adjacency[1, 2] is 0."),
        ("list(path = list(diag(ncol(x)), matrix(NA, ncol(x), ncol(x))), index = 1)",
         "path[[2]][1, 2] is NA;"),
        ("list(adjacency = list(diag(ncol(x)), 2 * (abs(cor(x)) > 0)))",
         "adjacency[[2]][1, 2] is 2.0;"),
    ],
)  # fmt: skip
def test_an_na_or_a_weight_in_an_edge_decision_names_the_entry(code, message):
    # Issue 37: R's NA (and any non-zero weight) became an edge.
    with pytest.raises(ValueError, match=re.escape(f"the R function's {message}")):
        RLearner(f"function(x) {code}").fit(data())


@needs_r
def test_a_string_is_not_reported_as_a_matrix_of_shape_1_1():
    with pytest.raises(TypeError, match=r'precision is a string \("abc"\), not a num'):
        RLearner("function(x) 'abc'").fit(data())
    with pytest.raises(TypeError, match="covariance is of R class factor, not a"):
        RLearner("function(x) list(covariance = factor(1:3))").fit(data())


@needs_r
def test_a_study_fails_the_rows_of_an_na_edge_and_names_it():
    # The issue's learner: one NA pair made its rows ok, and ranked it first by F1.
    one_na = "function(x) { a <- abs(cor(x)) > 0.3; a[1, 2] <- a[2, 1] <- NA; a }"
    frame = (
        Benchmark(
            {"dd": DiagonalDominance()},
            {"na": RLearner(one_na, returns="adjacency")},
            n_features=5,
            densities=0.3,
            n_samples=40,
            n_repeats=2,
            random_state=0,
        )
        .run()
        .frame
    )
    assert (frame.status == "failed").all()
    assert frame.message.str.contains(
        "the R function's adjacency[1, 2] is NA;", regex=False
    ).all()


@needs("corpcor")
def test_corpcor_partial_correlations_are_read_for_edges_and_scores():
    # Issue 37: returns="partial_correlation" failed every row ("exposes none of").
    learner = RLearner(
        "corpcor::pcor.shrink", returns="partial_correlation", packages=("corpcor",)
    )
    X = data()
    fitted = learner.fit(X)
    partial = fitted.partial_correlation_
    np.testing.assert_array_equal(
        edges_from_estimator(fitted), (np.abs(partial) > 1e-8) & ~np.eye(6, dtype=bool)
    )
    frame = (
        Benchmark(
            {"dd": DiagonalDominance()},
            {"pcor": learner},
            n_features=5,
            densities=0.3,
            n_samples=40,
            n_repeats=2,
            random_state=0,
            metrics=("f1", "roc_auc"),
        )
        .run()
        .frame
    )
    assert (frame.status == "ok").all(), frame.message.tolist()
    assert frame.roc_auc.notna().all()


@needs_r
def test_r_is_seeded_from_random_state():
    draw = "function(x) { m <- matrix(runif(ncol(x)^2), ncol(x)); (m + t(m)) / 2 }"
    X = data()
    first = RLearner(draw, returns="edge_scores", random_state=3).fit(X).edge_scores_
    again = RLearner(draw, returns="edge_scores", random_state=3).fit(X).edge_scores_
    other = RLearner(draw, returns="edge_scores", random_state=4).fit(X).edge_scores_
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


@needs_r
def test_works_in_pipelines_and_searches():
    X = data()
    pipe = make_pipeline(StandardScaler(), RLearner()).fit(X)
    n = X.shape[0]  # scaled with the n denominator, R's cov divides by n - 1
    np.testing.assert_allclose(
        pipe[-1].precision_,
        np.linalg.inv(np.corrcoef(X, rowvar=False)) * (n - 1) / n,
        rtol=1e-8,
    )
    search = GridSearchCV(
        RLearner("function(x, a) solve(cov(x) + a * diag(ncol(x)))", {"a": 0}),
        {"args": [{"a": 0.0}, {"a": 10.0}]},
        scoring=lambda est, X_: -np.abs(est.precision_).sum(),
        cv=2,
    ).fit(X)
    assert search.best_params_ == {"args": {"a": 10.0}}


@needs_r
def test_blas_threads_limit_the_fit_and_are_restored():
    from threadpoolctl import threadpool_info

    def threads():
        return {p["filepath"]: p["num_threads"] for p in threadpool_info()}

    X = data()
    RLearner().fit(X)  # R loaded (with its OpenMP runtime, here)
    before = threads()
    fitted = RLearner(blas_threads=1).fit(X)
    np.testing.assert_allclose(fitted.precision_, np.linalg.inv(np.cov(X.T)))
    assert threads() == before


@needs_r
def test_starting_r_leaves_the_environment_of_later_processes_alone():
    # rpy2 prepends R's library folders to LD_LIBRARY_PATH; Python children
    # started afterwards then loaded the distribution's libpython instead of
    # this interpreter's (another patch release: a broken standard library).
    # rpy2 also copied R's start-up variables (EDITOR, KMP_*, COLUMNS=80 without
    # a terminal, which narrowed every later table of the command line).
    def not_rs_own():
        return {k: v for k, v in os.environ.items() if not k.startswith(("R_", "_R_"))}

    before = not_rs_own()
    RLearner().fit(data())
    assert not_rs_own() == before
    r_home = os.environ["R_HOME"]  # set by rpy2 for R itself
    assert r_home not in (os.environ.get("LD_LIBRARY_PATH") or "")
    child = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.version)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert child.stdout.strip() == sys.version


@needs_r
def test_blas_threads_reach_rs_own_blas():
    # R linked against a threaded BLAS (OpenBLAS here) shows up in threadpoolctl
    # as a library of its own, beside numpy's: the limit must reach it.
    from threadpoolctl import threadpool_info

    from skggm_bench.learners._r import _blas_limits

    RLearner().fit(data())
    r_blas = {
        p["filepath"]
        for p in threadpool_info()
        if p["user_api"] == "blas" and "site-packages" not in p["filepath"]
    }
    if not r_blas:
        pytest.skip("R's BLAS here is the reference BLAS: it has no threads")
    with _blas_limits(1):
        limited = {
            p["filepath"]: p["num_threads"]
            for p in threadpool_info()
            if p["filepath"] in r_blas
        }
    assert limited and set(limited.values()) == {1}, limited


@needs_r
def test_check_estimator():
    check_estimator(RLearner())


@needs("huge", "glasso", "qgraph", "BDgraph", "GGMncv")
@pytest.mark.parametrize(
    "estimator",
    [
        RHuge("mb", "ric", rep_num=3),
        RHuge("glasso", "ebic"),
        RGlasso(),
        REBICGlasso(n_lambdas=10),
        RBDgraph(iter=200),
        RGGMncv(),
    ],
    ids=repr,
)
def test_check_estimator_presets(estimator):
    check_estimator(
        estimator,
        expected_failed_checks=EXPECTED_FAILED_CHECKS[type(estimator).__name__],
    )


@needs("huge")
@pytest.mark.parametrize(
    ("method", "criterion"),
    [
        ("mb", "stars"),
        ("mb", "ric"),
        ("glasso", "ebic"),
        ("glasso", "stars"),
        ("ct", "stars"),
        ("tiger", "ric"),
    ],
)
def test_huge_presets_select_a_graph_on_the_path(method, criterion):
    X = data(100, 8)
    model = RHuge(method, criterion, n_lambdas=6, rep_num=8, random_state=0).fit(X)
    assert len(model.path_) == 6
    assert model.adjacency_.shape == (8, 8)
    assert np.array_equal(model.adjacency_, model.adjacency_.T)
    if method != "ct":  # StARS on huge's correlation thresholds stays empty here
        assert model.adjacency_[0, 1] and model.adjacency_[1, 2]  # the strong chain
    if criterion != "ric":
        assert np.array_equal(model.adjacency_, model.path_[model.index_])
    if method == "glasso":
        assert np.array_equal(
            model.adjacency_, np.abs(model.precision_) * ~np.eye(8, dtype=bool) > 0
        )
    again = RHuge(method, criterion, n_lambdas=6, rep_num=8, random_state=0).fit(X)
    np.testing.assert_array_equal(model.adjacency_, again.adjacency_)


@needs("huge")
def test_huge_ebic_needs_glasso_and_huge_errors_come_back():
    with pytest.raises(ValueError, match="EBIC needs method='glasso'"):
        RHuge("mb", "ebic").fit(data())
    # huge 1.3.5's StARS fails on its own TIGER path: R's message comes back.
    with pytest.raises(RError, match="object 'tmp' not found"):
        RHuge("tiger", "stars", n_lambdas=3, rep_num=2, random_state=0).fit(data())


@needs("glasso")
def test_glasso_preset_solves_the_graphical_lasso():
    X = data()
    model = RGlasso(rho=0.1, thr=1e-8).fit(X)
    S = np.cov(X, rowvar=False)
    # Optimality of glasso's problem (diagonal penalised): W - S = rho * sign(K)
    # on the support, |W - S| <= rho off it.
    gap = model.covariance_ - S
    support = model.precision_ != 0
    np.testing.assert_allclose(
        gap[support], 0.1 * np.sign(model.precision_[support]), atol=1e-5
    )
    assert np.all(np.abs(gap[~support]) <= 0.1 + 1e-5)
    np.testing.assert_allclose(
        model.covariance_ @ model.precision_, np.eye(6), atol=1e-4
    )


@needs("qgraph")
def test_ebicglasso_preset_gives_a_sparse_partial_correlation_network():
    X = data(300, 8)
    model = REBICGlasso().fit(X)
    assert model.adjacency_[0, 1] and model.adjacency_[1, 2]
    assert model.adjacency_.sum() < 8 * 7  # sparse
    np.testing.assert_array_equal(model.adjacency_, model.partial_correlation_ != 0)


@needs("BDgraph")
def test_bdgraph_posterior_probabilities_are_the_edge_scores():
    X = data(200, 6)
    model = RBDgraph(iter=2000, random_state=0).fit(X)
    scores = model.edge_scores_
    assert scores.min() >= 0 and scores.max() <= 1
    np.testing.assert_array_equal(scores, scores.T)
    np.testing.assert_array_equal(model.adjacency_, scores > 0.5)
    assert scores[0, 1] > 0.9 and scores[1, 2] > 0.9
    # The harness ranks edges by the posterior probabilities (ROC, PR).
    np.testing.assert_array_equal(edge_scores_from_estimator(model), scores)
    again = RBDgraph(iter=2000, random_state=0).fit(X)
    np.testing.assert_array_equal(scores, again.edge_scores_)


@needs("GGMncv")
def test_ggmncv_preset():
    model = RGGMncv().fit(data(300, 6))
    assert model.adjacency_[0, 1] and model.adjacency_[1, 2]


@needs("JGL")
def test_jgl_preset_gives_one_precision_per_class():
    X = data(200, 5)
    y = np.repeat([0, 1], 100)
    model = RJGL(lambda1=0.05, lambda2=0.05).fit(X, y)
    assert model.precision_.shape == (2, 5, 5)
    with pytest.raises(ValueError, match="needs y"):
        RJGL().fit(X)


# -- in the harness ---------------------------------------------------------------

# A segmentation fault, as compiled code raises it: the embedded R installs no
# signal handler (rpy2 starts it with R_SignalHandlers = 0), so SIGSEGV kills.
R_CRASH = "function(x) { tools::pskill(Sys.getpid(), 11L); diag(ncol(x)) }"


@needs("huge")
def test_harness_isolates_r_and_leaves_nothing_behind(tmp_path, monkeypatch):
    """An R error is ``failed`` with R's message, a segfault ``crashed``, a hang
    ``timeout``; R's session directories (in TMPDIR) are gone after the run."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))

    def run(learners, timeout):
        bench = Benchmark(
            {"dd": DiagonalDominance()},
            learners,
            n_features=8,
            n_samples=40,
            n_repeats=1,
            densities=0.2,
            random_state=0,
            timeout=timeout,
        )
        return bench.run().frame

    # The learners that end on their own run without a deadline, which load
    # could make huge's fit exceed; the one that hangs alone with a short one.
    ending = {
        "huge": RHuge("mb", "ric", rep_num=5),
        "error": RLearner("function(x) stop('no luck here')"),
        "crash": RLearner(R_CRASH),
    }
    hanging = {"hang": RLearner("function(x) repeat {}")}
    frame = pd.concat([run(ending, None), run(hanging, 1.0)]).set_index("learner")
    assert frame.loc["huge", "status"] == "ok"
    assert frame.loc["error", "status"] == "failed"
    assert frame.loc["error", "message"] == "RError: no luck here"
    assert frame.loc["crash", "status"] == "crashed"
    assert "SIGSEGV" in frame.loc["crash", "message"]
    assert frame.loc["hang", "status"] == "timeout"
    versions = json.loads(frame.loc["huge", "versions"])
    assert versions["R:huge"] == "1.3.5" or versions["R:huge"]
    assert versions["R"].count(".") == 2 and versions["R:BLAS"]
    assert "rpy2" in versions
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith("Rtmp")]
    assert leftovers == []


@needs("huge")
def test_studies_with_r_learners_do_not_depend_on_n_jobs_and_resume(tmp_path):
    def bench(n_jobs, store, backend=None):
        return Benchmark(
            {"dd": DiagonalDominance()},
            {
                "huge": RHuge("mb", "stars", n_lambdas=5, rep_num=5),
                "random": RLearner(
                    "function(x) { m <- matrix(runif(ncol(x)^2), ncol(x)); "
                    "list(edge_scores = (m + t(m)) / 2, adjacency = (m + t(m)) > 1) }"
                ),
            },
            n_features=8,
            n_samples=[30, 60],
            n_repeats=2,
            densities=0.2,
            random_state=1,
            n_jobs=n_jobs,
            backend=backend,
            store=store,
        )

    metrics = ["f1", "roc_auc", "seed"]
    one = bench(1, None).run().frame
    two = bench(2, None).run().frame
    threads = bench(2, None, "threading").run().frame
    assert (one.status == "ok").all()
    keys = ["learner", "n_samples", "repeat"]
    one = one.sort_values(keys)
    for other in (two, threads):
        np.testing.assert_array_equal(
            one[metrics].to_numpy(), other.sort_values(keys)[metrics].to_numpy()
        )
    store = tmp_path / "study.sqlite"
    first = bench(1, store).run()
    resumed = bench(1, store).run()
    assert resumed.n_computed == 0
    np.testing.assert_array_equal(
        first.frame.sort_values(keys)[metrics].to_numpy(),
        resumed.frame.sort_values(keys)[metrics].to_numpy(),
    )


@needs("huge", "glasso", "qgraph", "BDgraph")
@pytest.mark.parametrize(
    "name", ["skggm_bench.learners._r", "skggm_bench.learners._r_presets"]
)
def test_docstring_examples_hold_where_r_is_installed(name):
    """The examples are marked to skip (the doctest run has no R everywhere);
    here they run, and must print what they show."""
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(importlib.import_module(name)):
        for example in test.examples:
            example.options.pop(doctest.SKIP, None)
        runner.run(test, out=lambda text: None)
    failed, attempted = runner.summarize(verbose=False)
    assert failed == 0 and attempted >= 4


@needs("huge")
def test_an_r_function_runs_from_a_toml_study_and_the_command_line(tmp_path):
    config = tmp_path / "study.toml"
    config.write_text(
        "n_features = 6\nn_samples = 40\nn_repeats = 1\nrandom_state = 0\n"
        "[generators]\nDiagonalDominance = {}\n"
        '[learners.r_ct]\nclass = "RLearner"\n'
        'function = "function(x, t) list(adjacency = abs(cor(x)) > t)"\n'
        "args = { t = 0.3 }\n"
        '[learners.huge_mb]\nclass = "RHuge"\ncriterion = "ric"\nrep_num = 4\n'
    )
    store = tmp_path / "s.sqlite"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "skggm_bench.cli",
            "run",
            "--config",
            str(config),
            "--store",
            str(store),
            "--n-jobs",
            "1",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        env=os.environ | {"PYTHONPATH": str(Path(__file__).parents[2])},
    )
    assert done.returncode == 0, done.stderr
    from skggm_bench.benchmark.results.store import ResultStore

    frame = ResultStore(store).frame()
    assert sorted(frame.learner) == ["huge_mb", "r_ct"]
    assert (frame.status == "ok").all()
    assert json.loads(frame.versions.iloc[0])["R"]
