"""Every size, count and parameter of a study is bounded, and the bound is enforced
before anything is allocated or drawn, with the limit named in the error
(docs/harness.md lists them)."""

import time

import pytest
from sklearn.covariance import LedoitWolf

from skggm_bench.benchmark import Benchmark, StudyError
from skggm_bench.benchmark.plan._checks import (
    MAX_DATA_VALUES,
    MAX_N_FEATURES,
    MAX_N_SAMPLES,
)
from skggm_bench.datasets import (
    MissingCompletelyAtRandom,
    make_joint_ggm,
    make_latent_ggm,
    make_time_varying_ggm,
)
from skggm_bench.generators import (
    DiagonalDominance,
    JointGenerator,
    LatentGenerator,
    TimeVaryingGenerator,
)
from skggm_bench.generators._related import MAX_GROUPS


def bench(**changes):
    params = {"densities": (0.3,), "n_features": 6, "n_samples": (20,)} | changes
    return Benchmark({"dd": DiagonalDominance()}, {"lw": LedoitWolf()}, **params)


def refused_at_once(call, match):
    start = time.perf_counter()
    with pytest.raises((StudyError, ValueError), match=match):
        call()
    # Refused before any allocation or draw: no minutes of work, no 60 GiB array.
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize(
    ("models", "limit"),
    [
        ({"kind": "joint", "n_classes": 10**9}, "n_classes"),
        ({"kind": "time_varying", "n_times": 10**6}, "n_times"),
        ({"kind": "time_varying", "window": 10**9}, "window"),
        ({"kind": "latent", "n_latent": 10**7}, "n_latent"),
    ],
)
def test_related_models_are_bounded_in_a_study(models, limit):
    refused_at_once(
        lambda: bench(models={"m": models}).validate(),
        rf"models\['m'\]: The '{limit}' parameter .* range \[1, {MAX_GROUPS}\]",
    )


@pytest.mark.parametrize(
    ("call", "limit"),
    [
        (lambda: make_joint_ggm(5, 6, n_classes=10**9), "n_classes"),
        (lambda: make_time_varying_ggm(5, 6, n_times=10**6), "n_times"),
        (lambda: make_time_varying_ggm(5, 6, window=10**9), "window"),
        (lambda: make_latent_ggm(5, 6, n_latent=10**7), "n_latent"),
        (lambda: JointGenerator(n_classes=10**9).fit([[0, 1], [1, 0]]), "n_classes"),
        (lambda: TimeVaryingGenerator(n_times=10**6).fit([[0, 1], [1, 0]]), "n_times"),
        (lambda: LatentGenerator(n_latent=10**7).fit([[0, 1], [1, 0]]), "n_latent"),
    ],
)
def test_related_models_are_bounded_everywhere(call, limit):
    refused_at_once(call, rf"'{limit}' parameter .* range \[1, {MAX_GROUPS}\]")


def test_a_group_count_at_the_limit_is_accepted():
    JointGenerator(n_classes=MAX_GROUPS)._validate_params()
    TimeVaryingGenerator(n_times=MAX_GROUPS, window=MAX_GROUPS)._validate_params()


@pytest.mark.parametrize(
    ("changes", "parameter", "match"),
    [
        ({"n_samples": 10**12}, "n_samples", f"limit of {MAX_N_SAMPLES:,}"),
        ({"n_features": 10**6}, "n_features", f"limit of {MAX_N_FEATURES:,}"),
        (
            {"n_samples": 10**6, "n_features": 2000},
            "n_samples",
            f"2,000,000,000 values .* limit of {MAX_DATA_VALUES:,}",
        ),
        (
            {"n_samples": 10**5, "n_features": 100,
             "models": {"j": {"kind": "joint", "n_classes": 200}}},
            "n_samples",
            "x 200 classes or time points",
        ),
    ],
)  # fmt: skip
def test_absurd_sizes_are_refused(changes, parameter, match):
    with pytest.raises(StudyError, match=match) as error:
        bench(**changes).validate()
    assert error.value.parameter == parameter


def test_data_model_parameters_are_checked_by_validate():
    # Not left to every fit's draw, where each row failed "data generation failed".
    with pytest.raises(StudyError, match=r"data_models\['m'\]: The 'rate'") as error:
        bench(data_models={"m": MissingCompletelyAtRandom(rate=2)}).validate()
    assert (error.value.parameter, error.value.entry) == ("data_models", "m")
