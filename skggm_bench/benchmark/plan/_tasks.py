"""How the plan ships the learners to the workers, and what it asks them to set up.

The cells, fits and spec it hands to the workers are ``run/_fits.py``'s; what a
worker does with them, ``run/_worker.py``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["process_setups", "ship_learner"]


def ship_learner(learner: Any) -> bytes:
    """``learner`` as the bytes a worker loads (``run/_worker.py``'s ``load_learner``).

    Pickled with cloudpickle, as joblib's loky backend ships any task: classes
    and functions defined in the user's script or notebook (``__main__``) travel
    by value, those of installed packages by reference (imported by the worker).
    """
    try:  # joblib >= 1.5 depends on cloudpickle; older versions vendored it
        import cloudpickle
    except ImportError:  # pragma: no cover
        from joblib.externals import cloudpickle

    result: bytes = cloudpickle.dumps(learner)
    return result


# The hook a learner defines to have something set up once per worker process.
_SETUP_HOOK = "__skggm_bench_process_setup__"


def process_setups(
    learners: Mapping[str, Any],
) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """What the learners (and the estimators nested in them) set up per worker.

    A learner that needs a process-wide resource started once, not per fit (an
    embedded interpreter with its libraries loaded, e.g. R for
    :class:`~skggm_bench.learners.RLearner`), defines a method
    ``__skggm_bench_process_setup__()`` returning ``("module:function", args)``
    with plain ``args``. Each worker's template calls ``function(*args)`` once,
    before it forks any fit's child, so that every fit inherits the resource;
    what the call returns, if callable, is called when the template ends. A
    set-up that fails is left to the fits, which then fail with the reason.
    """
    found: dict[tuple[str, tuple[Any, ...]], None] = {}
    for learner in learners.values():
        params = learner.get_params(deep=True) if hasattr(learner, "get_params") else {}
        for value in (learner, *params.values()):
            hook = getattr(value, _SETUP_HOOK, None)
            if callable(hook) and not isinstance(value, type):
                target, args = hook()
                found[(str(target), tuple(args))] = None
    return tuple(found)
