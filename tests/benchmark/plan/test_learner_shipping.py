"""Learners the worker processes cannot load never take a run down (issue 21).

A learner travels to fresh worker processes (loky) as pickled bytes loaded by its
own fits. ``validate()`` refuses one that cannot be pickled, or that a fresh
process cannot load (its module imports only after set-up done in this session,
as skggm's needs shims for removed scikit-learn modules); if one slips through
all the same, its rows fail with the cause and the others complete.
"""

import json
import sys
from collections import defaultdict

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.covariance import LedoitWolf

from skggm_bench.benchmark import Benchmark, StudyError
from skggm_bench.benchmark.plan import _shipping
from skggm_bench.benchmark.results._provenance import describe, learner_versions
from skggm_bench.generators import DiagonalDominance

_SHIM = "_skggm_bench_test_shim"
_MODULE = """\
import sys

if "{shim}" not in sys.modules:
    raise ImportError("needs the shim module {shim}, set up by the user's session")

from sklearn.covariance import EmpiricalCovariance


class ShimmedCovariance(EmpiricalCovariance):
    pass
"""


@pytest.fixture
def shimmed(tmp_path, monkeypatch):
    """A learner whose module imports only after a shim (like skggm's)."""
    (tmp_path / "shimmed_learner.py").write_text(_MODULE.format(shim=_SHIM))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, _SHIM, type(sys)(_SHIM))
    import shimmed_learner

    yield shimmed_learner.ShimmedCovariance()
    sys.modules.pop("shimmed_learner", None)


def _bench(learners, **options) -> Benchmark:
    return Benchmark(
        {"dd": DiagonalDominance()},
        learners,
        n_features=8,
        densities=0.3,
        n_samples=40,
        n_repeats=2,
        metrics=("f1",),
        random_state=0,
        **options,
    )


def test_validate_names_a_learner_fresh_workers_cannot_load(shimmed):
    bench = _bench({"lw": LedoitWolf(), "shimmed": shimmed}, n_jobs=2)
    with pytest.raises(StudyError, match="shim") as error:
        bench.validate()
    assert error.value.entry == "shimmed"
    assert "learners['shimmed'] cannot be loaded by the worker processes" in str(
        error.value
    )
    # In this process's memory (n_jobs=1, threads) it runs.
    assert (_bench({"shimmed": shimmed}).run().frame.status == "ok").all()


def test_if_it_slips_through_its_rows_fail_and_the_others_complete(
    shimmed, monkeypatch
):
    monkeypatch.setattr(
        _shipping, "load_problems", lambda shipped: defaultdict(lambda: None)
    )
    frame = _bench({"lw": LedoitWolf(), "shimmed": shimmed}, n_jobs=2).run().frame
    assert (frame[frame.learner == "lw"].status == "ok").all()
    failed = frame[frame.learner == "shimmed"]
    assert (failed.status == "failed").all() and len(failed) == 2
    # The cause: the missing shim, or (in a loky worker started before this
    # test put the module on sys.path) the module itself.
    assert failed.message.str.contains(
        "RuntimeError: the learner cannot be loaded in the worker process: "
        r"(?:ImportError: needs the shim|ModuleNotFoundError: No module named "
        "'shimmed_learner')"
    ).all()


class Unpicklable:
    """Copied by clone (as itself), refused by pickle."""

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        raise TypeError("this object refuses to be pickled")


class Locked(BaseEstimator):
    """Holds a parameter that cannot be pickled."""

    def __init__(self, lock=None):
        self.lock = lock

    def fit(self, X, y=None):
        self.precision_ = np.linalg.inv(np.cov(X, rowvar=False))
        return self


def test_an_unpicklable_learner_is_refused_only_where_it_must_travel():
    learners = {"locked": Locked(lock=Unpicklable()), "lw": LedoitWolf()}
    with pytest.raises(StudyError, match="cannot be pickled") as error:
        _bench(learners, n_jobs=2).validate()
    assert error.value.entry == "locked"
    _bench(learners, n_jobs=1).validate()


class Penalty:
    def __init__(self, alpha):
        self.alpha = alpha
        self._cache = object()  # private state: not part of its behaviour


class Penalised(BaseEstimator):
    def __init__(self, penalty=None, inner=None):
        self.penalty = penalty
        self.inner = inner


def test_parameter_objects_are_described_by_class_and_public_state():
    one = describe(Penalty(0.5))
    assert one == describe(Penalty(0.5)) != describe(Penalty(0.25))
    assert one["object"].endswith("test_learner_shipping.Penalty")
    assert one["state"] == {"alpha": 0.5}


def test_versions_record_the_packages_of_nested_objects():
    # The estimator's own class is a test's; the inner estimator is scikit-learn's.
    versions = json.loads(
        learner_versions(Penalised(penalty=Penalty(1.0), inner=LedoitWolf()))
    )
    assert "scikit-learn" in versions
