"""``skggm-bench sample``: matrices drawn from a generator, saved as ``.npy``, after
checking that they fit in memory and on disk."""

from __future__ import annotations

import argparse
import ast
import contextlib
import os
import shutil
from pathlib import Path
from typing import Any

from ._commands import (
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    check_writable,
)

__all__ = ["sample_matrices"]

# Refuse a sample whose matrices would take more than this share of the memory
# available: drawing needs working space besides the result.
_MEMORY_SHARE = 0.5


# --------------------------------------------------------------------------------------
# sample
# --------------------------------------------------------------------------------------


def _size(n_bytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n_bytes < 1024 or unit == "TiB":
            return (
                f"{n_bytes:.0f} {unit}" if unit == "bytes" else f"{n_bytes:.1f} {unit}"
            )
        n_bytes /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def _available_memory() -> int | None:
    """Bytes of memory available to a new allocation (None if unknown)."""
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    with contextlib.suppress(AttributeError, OSError, ValueError):
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return None


def _check_memory(n: int, p: int) -> str:
    """Refuse, before drawing, an array the machine cannot hold; describe it."""
    needed = 8.0 * n * p * p
    what = f"{n} matrices of {p} x {p} float64 take {_size(needed)}"
    available = _available_memory()
    if available is not None and needed > _MEMORY_SHARE * available:
        raise CommandError(
            f"--n {n}: {what}, more than this machine can hold ({_size(available)} "
            "of memory available); ask for fewer matrices, or draw them in several "
            "files with different --seed values",
            EXIT_USAGE,
        )
    return what


def _check_disk(n: int, p: int, out: Path, what: str) -> None:
    """Refuse, before drawing, an array the disk of ``out`` cannot store."""
    free = shutil.disk_usage(out.parent).free
    if 8.0 * n * p * p > free:
        raise CommandError(
            f"--n {n}: {what}, more than the {_size(free)} free on the disk of {out}"
        )


def _parameters(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; values are Python literals (numbers, ...) or text."""
    parameters = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise CommandError(
                f"--param {item!r}: expected KEY=VALUE, e.g. condition_number=10",
                EXIT_USAGE,
            )
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text
        parameters[key.strip()] = value
    return parameters


def _wraps_a_generator(cls: type) -> bool:
    """Whether ``cls`` is a meta-generator: it needs another generator to wrap."""
    import inspect

    parameter = inspect.signature(cls).parameters.get("generator")
    return parameter is not None and parameter.default is inspect.Parameter.empty


def _build_generator(args: argparse.Namespace) -> Any:
    from .benchmark.config import ConfigError, generator_class

    try:
        cls = generator_class(args.generator, key="--generator")
        base = (
            generator_class(args.base_generator, key="--base-generator")
            if args.base_generator
            else None
        )
    except ConfigError as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None
    parameters = _parameters(args.param)
    if "random_state" in parameters:
        raise CommandError(
            "--param random_state: the seed of the graph and the matrices is set "
            "with --seed S",
            EXIT_USAGE,
        )
    if _wraps_a_generator(cls):
        if base is None:
            raise CommandError(
                f"--generator {args.generator} transforms the draws of another "
                "generator: name it with --base-generator NAME (e.g. "
                "--base-generator DiagonalDominance), and its settings with --param "
                "(e.g. --param condition_number=10)",
                EXIT_USAGE,
            )
        parameters["generator"] = base()
    elif base is not None:
        raise CommandError(
            f"--base-generator is for generators that wrap another; "
            f"{args.generator} does not",
            EXIT_USAGE,
        )
    try:
        generator = cls(**parameters)
        # The generator's own constraints, as make_ggm checks them, but before
        # the output is checked and anything is drawn.
        generator._validate_params()
    except (TypeError, ValueError) as exc:
        raise CommandError(f"--generator {args.generator}: {exc}", EXIT_USAGE) from None
    return generator


def _save(path: Path, array: Any) -> None:
    """``numpy.save`` to exactly ``path`` (given a name, numpy would add .npy)."""
    import numpy as np

    with path.open("wb") as handle:
        np.save(handle, array)


def sample_matrices(args: argparse.Namespace) -> int:
    """``skggm-bench sample``: random matrices on one random graph, to .npy files."""
    import numpy as np

    from .datasets import make_ggm

    if args.n < 1:
        raise CommandError(f"--n must be >= 1, got {args.n}", EXIT_USAGE)
    if args.n_features < 1:
        raise CommandError(
            f"--n-features must be >= 1, got {args.n_features}", EXIT_USAGE
        )
    if args.density is not None and not 0 <= args.density <= 1:
        raise CommandError(
            f"--density must be in [0, 1], got {args.density}", EXIT_USAGE
        )
    generator = _build_generator(args)
    what = _check_memory(args.n, args.n_features)
    check_writable(args.out, "--out")
    if args.graph_out is not None:
        check_writable(args.graph_out, "--graph-out")
    _check_disk(args.n, args.n_features, args.out, what)
    try:
        # make_ggm draws the graph (and one matrix) and returns the fitted
        # generator; its further draws share that graph.
        data = make_ggm(
            n_samples=1,
            n_features=args.n_features,
            graph=args.graph,
            density=args.density,
            generator=generator,
            random_state=args.seed,
        )
    except (ValueError, TypeError) as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None
    matrices = data.generator.sample(args.n)
    _save(args.out, matrices)
    if args.graph_out is not None:
        _save(args.graph_out, data.adjacency)
    edges = int(np.triu(data.adjacency, 1).sum())
    print(
        f"wrote {args.n} matrices of shape {matrices.shape[1:]} from "
        f"{type(generator).__name__} on a graph of the {args.graph} family with "
        f"{edges} edges (density {data.edge_density:.3g}) to {args.out}"
    )
    return EXIT_OK
