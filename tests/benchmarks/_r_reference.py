"""Timing R reference packages from the benchmark scripts, in the same run.

R is optional: when ``Rscript`` or a package is missing the scripts print why and
skip the comparison. Packages not in Debian's R (gmat and its dependency gRbase,
and Bioconductor's graph) are looked up in the library named by ``R_LIBS``;
docs/performance.md says how to build them from their GitHub mirrors.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

__all__ = [
    "r_available",
    "r_blas",
    "r_library_path",
    "r_timings",
    "reference_blas_path",
    "write_adjacency",
]


def r_available(*packages: str) -> str | None:
    """None if ``Rscript`` can load every package, else the reason why not."""
    if shutil.which("Rscript") is None:
        return "Rscript not found"
    loads = "; ".join(f"suppressMessages(library({name}))" for name in packages)
    result = subprocess.run(
        ["Rscript", "-e", loads], capture_output=True, text=True, env=_r_environment()
    )
    if result.returncode:
        return result.stderr.strip().splitlines()[-1]
    return None


def write_adjacency(adjacency: np.ndarray, directory: Path, name: str) -> Path:
    """The graph as a 0/1 CSV file that R reads with ``read.csv(header = FALSE)``."""
    path = directory / f"{name}.csv"
    np.savetxt(path, adjacency.astype(int), fmt="%d", delimiter=",")
    return path


def r_timings(code: str) -> dict[str, list[float]]:
    """Run R ``code`` and collect its ``cat("TIME", label, seconds)`` lines.

    R runs with one BLAS thread (``OPENBLAS_NUM_THREADS=1``; Debian's reference
    BLAS is single-threaded anyway).
    """
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as script:
        script.write(code)
    try:
        result = subprocess.run(
            ["Rscript", script.name],
            capture_output=True,
            text=True,
            env=_r_environment(),
        )
    finally:
        os.unlink(script.name)
    if result.returncode:
        raise RuntimeError(f"R failed:\n{result.stderr}")
    timings: dict[str, list[float]] = {}
    for line in result.stdout.splitlines():
        if line.startswith("TIME "):
            _, label, seconds = line.split()
            timings.setdefault(label, []).append(float(seconds))
    return timings


def reference_blas_path() -> str | None:
    """``R_LD_LIBRARY_PATH`` that loads Debian's reference BLAS and LAPACK first.

    Debian's R finds ``libblas.so.3`` and ``liblapack.so.3`` through the
    alternatives system (OpenBLAS when installed); its ``/etc/R/ldpaths`` puts
    ``R_LD_LIBRARY_PATH`` first on the library path, so the reference libraries'
    own directories can be put ahead for one process without touching the
    system's alternatives.
    """
    blas = glob.glob("/usr/lib/*/blas/libblas.so.3")
    lapack = glob.glob("/usr/lib/*/lapack/liblapack.so.3")
    if not blas or not lapack:
        return None
    r_home = subprocess.run(
        ["R", "RHOME"], capture_output=True, text=True, check=True
    ).stdout.strip()
    multiarch = os.path.dirname(os.path.dirname(blas[0]))
    return ":".join(
        [
            os.path.dirname(blas[0]),
            os.path.dirname(lapack[0]),
            f"{r_home}/lib",
            multiarch,
        ]
    )


@contextlib.contextmanager
def r_library_path(path: str | None):
    """Run R with ``R_LD_LIBRARY_PATH=path`` (None: R's default libraries)."""
    saved = os.environ.get("R_LD_LIBRARY_PATH")
    if path is not None:
        os.environ["R_LD_LIBRARY_PATH"] = path
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("R_LD_LIBRARY_PATH", None)
        else:
            os.environ["R_LD_LIBRARY_PATH"] = saved


def r_blas() -> str:
    """The BLAS and LAPACK that ``Rscript`` loads in this environment."""
    result = subprocess.run(
        [
            "Rscript",
            "-e",
            'cat(extSoftVersion()[["BLAS"]], "|", La_library())',
        ],
        capture_output=True,
        text=True,
        env=_r_environment(),
    )
    return result.stdout.strip() or result.stderr.strip()


def _r_environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment.update(
        OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1"
    )
    return environment
