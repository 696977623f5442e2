"""Data conditions as a grid axis: paired draws, rows, rankings, configuration.

The known results of the data-model literature, through the harness: on
nonparanormal data the graphical lasso recovers the graph much better after a
nonparanormal transform, about as well as on Gaussian data; on multivariate t data
the Gaussian method loses F1.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.covariance import GraphicalLasso
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline

from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.analysis.leaderboard import leaderboard, rank_shift
from skggm_bench.benchmark.config import get_preset, parse_config
from skggm_bench.datasets import (
    Gaussian,
    MissingCompletelyAtRandom,
    MultivariateT,
    Nonparanormal,
)
from skggm_bench.generators import DiagonalDominance
from skggm_bench.learners import NonparanormalTransformer, ShrinkagePartialCorrelation

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

DATA_MODELS = {
    "gaussian": Gaussian(),
    "npn": Nonparanormal(["power", "exponential"]),
    "t3": MultivariateT(df=3),
}


def bench(learners, data_models=DATA_MODELS, **changes):
    params = {
        "densities": (0.1,),
        "n_features": 30,
        "n_samples": (200,),
        "n_repeats": 10,
        "metrics": ("f1",),
        "random_state": 0,
        "data_models": data_models,
    } | changes
    return Benchmark({"dd": DiagonalDominance()}, learners, **params)


def test_every_data_model_observes_the_same_latent_draw():
    study = bench({"glasso": GraphicalLasso(alpha=0.2)})
    data = {
        name: study.dataset("dd", density=0.1, repeat=3, n_samples=200, data_model=name)
        for name in DATA_MODELS
    }
    gaussian = data["gaussian"].X
    # A strictly monotone transform of each column keeps its ranks: the same rows.
    np.testing.assert_array_equal(
        np.argsort(data["npn"].X, axis=0), np.argsort(gaussian, axis=0)
    )
    # A t row is its Gaussian row divided by one positive number.
    ratio = data["t3"].X / gaussian
    np.testing.assert_allclose(ratio, ratio[:, :1] * np.ones((1, 30)), rtol=1e-10)
    assert (ratio > 0).all()
    # The truth is the latent one, the same for every data model.
    for other in ("npn", "t3"):
        np.testing.assert_array_equal(data[other].adjacency, data["gaussian"].adjacency)
        assert data[other].seed == data["gaussian"].seed


@pytest.fixture(scope="module")
def known_results():
    learners = {
        "glasso": GraphicalLasso(alpha=0.2),
        "npn_glasso": make_pipeline(
            NonparanormalTransformer(), GraphicalLasso(alpha=0.2)
        ),
    }
    return bench(learners).run().frame


def test_rows_carry_the_data_model_and_rank_across_it(known_results):
    frame = known_results
    assert list(dict.fromkeys(frame.data_model)) == ["gaussian", "npn", "t3"]
    assert len(frame) == 3 * 2 * 10 and (frame.status == "ok").all()
    board = leaderboard(frame, "f1", by=("data_model",))
    assert set(board.data_model) == set(DATA_MODELS)
    shift = rank_shift(frame, "f1", "gaussian", "npn", axis="data_model", by=())
    moved = dict(zip(shift.learner, shift.position_to, strict=True))
    assert moved == {"npn_glasso": 1, "glasso": 2}


def test_nonparanormal_transform_restores_recovery(known_results):
    f1 = known_results.pivot_table(
        index="repeat", columns=["data_model", "learner"], values="f1"
    )
    # Same repeat = same latent draw: paired differences, over 10 repeats.
    gain = f1["npn", "npn_glasso"] - f1["npn", "glasso"]
    # Measured: +0.50 on average, every repeat positive; the Wilcoxon signed-rank
    # test of 10 positive differences has p = 2/1024 (exact, two-sided).
    assert (gain > 0).all() and gain.mean() > 0.3
    assert stats.wilcoxon(gain).pvalue < 0.01
    # About as well as on Gaussian data: within 0.05 on average. (Measured: exactly
    # as well, since the transform works on ranks, and a monotone transform of the
    # same latent draw has the same ranks.)
    assert abs((f1["npn", "npn_glasso"] - f1["gaussian", "npn_glasso"]).mean()) < 0.05
    # Heavy tails cost the Gaussian method F1 (measured: -0.38 on average, on every
    # repeat).
    loss = f1["gaussian", "glasso"] - f1["t3", "glasso"]
    assert (loss > 0).sum() >= 9 and loss.mean() > 0.2


def test_a_learner_that_cannot_handle_nan_fails_its_rows_only():
    data_models = {"mcar": MissingCompletelyAtRandom(rate=0.1), "gaussian": Gaussian()}
    learners = {
        "shrink": ShrinkagePartialCorrelation(),
        "imputed": make_pipeline(SimpleImputer(), ShrinkagePartialCorrelation()),
    }
    frame = bench(learners, data_models, n_repeats=2).run().frame
    failed = frame[(frame.learner == "shrink") & (frame.data_model == "mcar")]
    assert (failed.status == "failed").all()
    assert failed.message.str.contains("Input X contains NaN").all()
    others = frame.drop(failed.index)
    assert (others.status == "ok").all()


def test_tables_do_not_depend_on_n_jobs_with_data_models():
    learners = {"glasso": GraphicalLasso(alpha=0.2)}
    frames = [
        bench(learners, n_repeats=2, n_jobs=n_jobs, backend="threading").run().frame
        for n_jobs in (1, 2)
    ]
    pd.testing.assert_frame_equal(
        frames[0].drop(columns="fit_time"), frames[1].drop(columns="fit_time")
    )


def test_toml_studies_take_data_models_and_pipelines():
    data = {
        "generators": ["DiagonalDominance"],
        "n_features": 10,
        "densities": [0.2],
        "n_samples": [60],
        "random_state": 0,
        "data_models": {
            "npn": {"class": "Nonparanormal", "transform": "exponential"},
            "missing_t": {
                "class": "MissingCompletelyAtRandom",
                "rate": 0.05,
                "data_model": {"class": "MultivariateT", "df": 4},
            },
        },
        "learners": {
            "npn_glasso": {
                "class": "Pipeline",
                "steps": [
                    {"class": "sklearn.impute.SimpleImputer"},
                    {"class": "NonparanormalTransformer"},
                    {"class": "GraphicalLasso", "alpha": 0.2},
                ],
            }
        },
    }
    config = parse_config(data)
    study = config.make_benchmark()
    assert isinstance(study.data_models["missing_t"].data_model, MultivariateT)
    assert [name for name, _ in study.learners["npn_glasso"].steps] == [
        "simpleimputer",
        "nonparanormaltransformer",
        "graphicallasso",
    ]
    frame = study.run().frame
    assert set(frame.data_model) == {"npn", "missing_t"}
    assert (frame.status == "ok").all()
    assert parse_config(config.to_dict()) == config
    with pytest.raises(ValueError, match=r"data_models\.npn: unknown data model"):
        parse_config(data | {"data_models": {"npn": {"class": "Nonparanormall"}}})
    with pytest.raises(ValueError, match=r"steps\[1\]\.class: unknown learner"):
        bad = {"class": "Pipeline", "steps": [{"class": "GraphicalLasso"},
                                              {"class": "Glasso"}]}  # fmt: skip
        parse_config(data | {"learners": {"p": bad}})


def test_the_robustness_preset_is_a_valid_study():
    config = get_preset("robustness")
    study = config.make_benchmark()
    assert set(study.data_models) == {
        "gaussian",
        "nonparanormal",
        "t3",
        "contaminated",
        "ordinal",
        "mcar",
    }
    assert config.n_tasks == 6 * 5 * 2 * 6
