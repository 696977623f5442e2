"""An R learner's errors: an allocation failure is a memory error, any message
reads (R's invalid UTF-8 included). Skipped, with the reason, without R."""

import numpy as np
import pytest

from skggm_bench.benchmark import Benchmark
from skggm_bench.generators import DiagonalDominance
from skggm_bench.learners import RError, RLearner, r_unavailable

NO_R = r_unavailable()
pytestmark = pytest.mark.skipif(NO_R is not None, reason=f"R learners: {NO_R}")

# 10**12 doubles: more than any machine, refused by R's allocator at once.
R_ALLOCATE = "function(x) { v <- numeric(1e12); diag(ncol(x)) }"
# An error message that is not valid UTF-8 (the byte 0xff).
R_BAD_BYTES = "function(x) stop(rawToChar(as.raw(c(0x66, 0xff, 0x6f))))"
R_BAD_WARNING = (
    "function(x) { warning(rawToChar(as.raw(c(0x77, 0xfe)))); diag(ncol(x)) }"
)
X = np.random.default_rng(0).standard_normal((30, 4))


def test_an_r_allocation_failure_is_a_memory_error():
    with pytest.raises(MemoryError, match="cannot allocate vector of size") as error:
        RLearner(R_ALLOCATE).fit(X)
    assert isinstance(error.value, RError)


def test_an_r_message_in_invalid_utf8_reads_with_its_bytes_shown():
    with pytest.raises(RError, match=r"^f<ff>o$"):
        RLearner(R_BAD_BYTES).fit(X)
    with pytest.warns(RuntimeWarning, match="w<fe>"):  # its warning reads too
        RLearner(R_BAD_WARNING).fit(X)


def test_in_the_harness_an_r_allocation_failure_is_memory():
    frame = (
        Benchmark(
            {"dd": DiagonalDominance()},
            {"alloc": RLearner(R_ALLOCATE), "bytes": RLearner(R_BAD_BYTES)},
            densities=(0.3,),
            n_features=5,
            n_samples=(30,),
            n_repeats=1,
            metrics=("f1",),
            random_state=0,
            memory_limit=2**30,
        )
        .run()
        .frame.set_index("learner")
    )
    assert frame.loc["alloc", "status"] == "memory", frame.loc["alloc", "message"]
    assert frame.loc["bytes", "status"] == "failed"
    assert frame.loc["bytes", "message"] == "RError: f<ff>o"
