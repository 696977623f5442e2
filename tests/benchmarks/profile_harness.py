"""Where the CPU of the harness's overhead grid goes, process by process.

Run with ``.venv/bin/python tests/benchmarks/profile_harness.py`` (not part of the
test suite). The grid of ``bench_harness.py --overhead`` (240 fits of a learner
that does nothing, one worker) runs once; printed per fit: the CPU (user and
system) and minor page faults of the worker (this process, ``getrusage``), of the
fork server's template itself and of its children together (``/proc/<pid>/stat``
of the template just before it is stopped: its own times and those of the
children it reaped). Then the same for 300 ``ForkServer`` requests that do
nothing, per request.

``--stages``: instead, each child logs the CPU and faults of the harness's calls
inside it (the draw's stages, cloning, seeding, scoring, the answer) and the
averages per kind of request are printed. Children killed right after their
answer may not log (or log half a line, skipped): the averages are over those
that did.

``--no-huge-pages``: the template skips ``huge_pages`` (to measure what they save).
"""

from __future__ import annotations

import argparse
import ast
import collections
import os
import resource
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(__file__))

import bench_harness

from skggm_bench.benchmark.run import _template, _worker
from skggm_bench.benchmark.run._isolation import ForkServer
from skggm_bench.benchmark.run._server import Server

_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> dict:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    user, system, child_user, child_system = (int(x) / _TICK for x in fields[11:15])
    return {
        "faults": int(fields[7]),
        "child_faults": int(fields[8]),
        "user": user,
        "system": system,
        "child_user": child_user,
        "child_system": child_system,
    }


class _Watch:
    """The /proc figures of the templates started, just after start and before stop."""

    def __init__(self) -> None:
        self.before: dict = {}
        self.after: dict = {}
        start, stop = ForkServer._start, ForkServer._stop

        def _start(server: ForkServer) -> None:
            start(server)
            self.before = _stat(server._pid)

        def _stop(server: ForkServer, *, kill: bool = True) -> int | None:
            if server._pid is not None:
                self.after = _stat(server._pid)
            return stop(server, kill=kill)

        ForkServer._start, ForkServer._stop = _start, _stop

    def report(self, label: str, n: int) -> None:
        b, a = self.before, self.after
        own = (a["user"] - b["user"], a["system"] - b["system"])
        kids = (
            a["child_user"] - b["child_user"],
            a["child_system"] - b["child_system"],
        )
        for name, (user, system), faults in (
            ("template", own, a["faults"] - b["faults"]),
            ("its children", kids, a["child_faults"] - b["child_faults"]),
        ):
            print(
                f"{label} {name}: {1e3 * (user + system) / n:.2f} ms CPU "
                f"({1e3 * user / n:.2f} user, {1e3 * system / n:.2f} system), "
                f"{faults / n:.0f} minor faults"
            )


class _Nothing(Server):
    def nothing(self) -> None:
        return None


def per_process() -> None:
    watch = _Watch()
    learners = {"null": bench_harness.NullLearner()}
    bench_harness.grid(learners, 1, "loky", n_repeats=1).run()  # warm
    bench = bench_harness.grid(learners, 1, "loky", n_repeats=20)
    before = resource.getrusage(resource.RUSAGE_SELF)
    n = len(bench.run().frame)
    after = resource.getrusage(resource.RUSAGE_SELF)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    print(f"load average {os.getloadavg()[0]:.2f}; {n} fits; per fit:")
    print(
        f"worker: {1e3 * (user + system) / n:.2f} ms CPU ({1e3 * user / n:.2f} user, "
        f"{1e3 * system / n:.2f} system), "
        f"{(after.ru_minflt - before.ru_minflt) / n:.0f} minor faults"
    )
    watch.report("grid", n)
    server = ForkServer(_Nothing())
    server.call("nothing", ())
    for _ in range(300):
        server.call("nothing", ())
    server.close()
    print("per request:")
    watch.report("no-op", 300)


def stages() -> None:
    handle, log = tempfile.mkstemp(prefix="skggm-bench-stages-")
    os.close(handle)
    totals: dict = collections.defaultdict(lambda: [0.0, 0.0, 0])

    def now() -> tuple[float, float, int]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return 1e3 * usage.ru_utime, 1e3 * usage.ru_stime, usage.ru_minflt

    def wrap(owner, name, label=None):
        function, label = getattr(owner, name), label or name

        def wrapped(*args, **kwargs):
            start = now()
            try:
                return function(*args, **kwargs)
            finally:
                end = now()
                entry = totals[label]
                for i in range(3):
                    entry[i] += end[i] - start[i]

        setattr(owner, name, wrapped)

    for name in ("clone", "seed_estimator", "learner_seed", "constant_columns",
                 "GroundTruth", "score_learner", "draw_graph", "draw_model",
                 "draw_latent", "observe", "data_hash"):  # fmt: skip
        wrap(_worker, name)
    wrap(_template, "_answer", "answer")
    wrap(_worker._Server, "fit", "the whole fit request")
    wrap(_worker._Server, "prepare", "the whole draw request")
    child_main = _template._child_main

    def logged_child_main(conn, server, memory_limit):
        at_start = now()  # the child's usage since fork
        totals.clear()
        totals["fork to request"] = list(at_start)
        send = conn.send_bytes

        def send_bytes(data):
            send(data)
            with open(log, "a") as handle:
                handle.write(repr(dict(totals)) + "\n")

        conn.send_bytes = send_bytes
        child_main(conn, server, memory_limit)

    _template._child_main = logged_child_main
    learners = {"null": bench_harness.NullLearner()}
    bench_harness.grid(learners, 1, "loky", n_repeats=20).run()
    sums: dict = collections.defaultdict(lambda: [0.0, 0.0, 0, 0])
    with open(log) as handle:
        for line in handle:
            try:
                logged = ast.literal_eval(line)
            except (SyntaxError, ValueError):  # a child killed while it logged
                continue
            kind = "fit" if "the whole fit request" in logged else "draw"
            for name, values in logged.items():
                entry = sums[kind, name]
                for i in range(3):
                    entry[i] += values[i]
                entry[3] += 1
    os.remove(log)
    print(f"load average {os.getloadavg()[0]:.2f}; per child of each kind:")
    for (kind, name), (user, system, faults, count) in sorted(sums.items()):
        print(
            f"{kind:5s} {name:22s} ({count:3d} children): {user / count:.2f} ms user, "
            f"{system / count:.2f} ms system, {faults / count:.0f} minor faults"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stages", action="store_true")
    parser.add_argument("--no-huge-pages", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.no_huge_pages:
        _template.huge_pages = lambda: None
    stages() if args.stages else per_process()


if __name__ == "__main__":
    main()
