"""Refusals that name the cause: a class path that imports but is not an
estimator, a near-miss name, a class where an instance is needed (issue 28)."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.covariance import LedoitWolf

from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.config import ConfigError, parse_config
from skggm_bench.generators import DiagonalDominance

pytest.importorskip("gglasso")
pytest.importorskip("regain")


def _study(learner: dict) -> dict:
    return {
        "n_features": 6,
        "densities": [0.3],
        "n_samples": [40],
        "generators": ["DiagonalDominance"],
        "learners": {"x": learner},
    }


@pytest.mark.parametrize(
    ("learner", "message"),
    [
        # Imports, but is a solver class without the estimator API.
        (
            {"class": "gglasso.problem.glasso_problem"},
            "learners.x: 'gglasso.problem.glasso_problem' imports but is not a "
            "scikit-learn estimator: it lacks get_params and fit (derive it from "
            "sklearn.base.BaseEstimator",
        ),
        (
            {"class": f"{__name__}.FitOnly"},
            "it lacks get_params (derive it from sklearn.base.BaseEstimator",
        ),
        (
            {"class": f"{__name__}.ParamsOnly"},
            "imports but is not a scikit-learn estimator: it lacks fit",
        ),
        # A function, not a class.
        (
            {"class": "sklearn.covariance.empirical_covariance"},
            "'sklearn.covariance.empirical_covariance' is a function, not an "
            "estimator class",
        ),
        # Near misses: the module's own attributes, then the built-in learners.
        (
            {"class": "regain.covariance.GraphicalLaso"},
            "module 'regain.covariance' has no 'GraphicalLaso' (did you mean "
            "'GraphicalLasso'?)",
        ),
        (
            {"class": "LedoitWolff"},
            "unknown learner 'LedoitWolff' (did you mean 'LedoitWolf'?)",
        ),
        # A constructor that needs a value.
        (
            {"class": f"{__name__}.NeedsAlpha"},
            "'alpha' has no default: give it as keys of learners.x",
        ),
    ],
)
def test_a_toml_class_path_is_refused_with_its_cause(learner, message):
    with pytest.raises(ConfigError) as caught:
        parse_config(_study(learner))
    assert message in str(caught.value)
    assert "available:" not in str(caught.value) or "unknown learner" in message


class FitOnly:
    def fit(self, X, y=None):
        return self


class ParamsOnly(BaseEstimator):
    pass


class NeedsAlpha(BaseEstimator):
    def __init__(self, alpha):
        self.alpha = alpha

    def fit(self, X, y=None):
        self.covariance_ = np.cov(X, rowvar=False) + self.alpha * np.eye(X.shape[1])
        return self


class BrokenDefaults(BaseEstimator):
    def __init__(self, mode="auto"):
        if mode == "auto":
            raise RuntimeError("mode='auto' needs a GPU")
        self.mode = mode


def _benchmark(learners):
    return Benchmark(
        {"dd": DiagonalDominance()},
        learners,
        n_features=6,
        densities=0.3,
        n_samples=40,
        random_state=0,
    )


def test_a_class_is_built_with_its_defaults():
    frame = _benchmark({"lw": LedoitWolf}).run().frame
    assert (frame.status == "ok").all()
    reference = _benchmark({"lw": LedoitWolf()}).run().frame
    assert frame.drop(columns="fit_time").equals(reference.drop(columns="fit_time"))


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        (
            NeedsAlpha,
            "learners['x'] is the class NeedsAlpha, which cannot be built with its "
            "defaults: 'alpha' has no default; pass an instance, e.g. "
            "NeedsAlpha(alpha=...)",
        ),
        (
            BrokenDefaults,
            "learners['x'] is the class BrokenDefaults, and BrokenDefaults() failed "
            "(RuntimeError: mode='auto' needs a GPU)",
        ),
    ],
)
def test_a_class_that_cannot_be_built_says_why(cls, message):
    with pytest.raises(ValueError) as caught:
        _benchmark({"x": cls}).validate()
    assert message in str(caught.value)
