"""The wheel and the sdist build as published, without a deprecation warning of ours.

setuptools warns at every build and install about metadata it will stop reading (a
``project.license`` table and license classifiers stop building on 2027-02-18); the
warning scrolls by unread in ``pip install`` output, so this test reads it. The
build runs without isolation (the test extra installs ``build`` and a setuptools
recent enough), on a copy of the package: no ``build/`` or ``*.egg-info`` is left
in the checkout. It takes 25-50 seconds, most of it compiling the two Cython
kernels.
"""

import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The build's output (stdout and stderr together) and its folder of artifacts."""
    pytest.importorskip("build", reason="the test extra installs build")
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source)
    shutil.copytree(
        ROOT / "skggm_bench",
        source / "skggm_bench",
        # Not the C file or the module an in-place build of the kernel leaves.
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c"),
    )
    dist = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist),
         str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    return output, dist


def test_the_build_warns_of_nothing_deprecated(built):
    output, _ = built
    lines = output.splitlines()
    deprecated = [line for line in lines if re.search("deprecat", line, re.I)]
    assert deprecated == [], "\n".join(deprecated)


def test_the_license_is_an_spdx_expression_shipped_with_its_text(built):
    _, dist = built
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: BSD-3-Clause" in text
    assert "Classifier: License ::" not in text
    with tarfile.open(sdist) as archive:
        assert any(n.endswith("/LICENSE") for n in archive.getnames())
    assert "skggm-bench developers" in (ROOT / "LICENSE").read_text()


def test_the_wheel_ships_every_preset_and_template(built):
    """The built-in studies are data files: a wheel without them has no presets."""
    _, dist = built
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    presets = ROOT / "skggm_bench" / "benchmark" / "presets"
    for path in presets.glob("*.toml"):
        assert f"skggm_bench/benchmark/presets/{path.name}" in names
    assert any(n.startswith("skggm_bench/benchmark/present/templates/") for n in names)


def test_the_wheel_ships_every_compiled_module_and_the_sdist_its_source(built):
    """Each Cython kernel listed in setup.py is built into the wheel; the sdist
    carries its .pyx (not the generated C) so that pip can build it again."""
    _, dist = built
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    modules = [
        "skggm_bench/learners/_glasso_descent",
        "skggm_bench/learners/_lasso_descent",
        "skggm_bench/learners/_active_set_kernel",
        "skggm_bench/learners/_clime_simplex",
        "skggm_bench/learners/_lasso_paths",
        "skggm_bench/generators/_completion_sweep",
    ]
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    with tarfile.open(sdist) as archive:
        sources = archive.getnames()
    for module in modules:
        assert any(n.startswith(module + ".") and n.endswith(".so") for n in names), (
            module
        )
        assert any(n.endswith(module + ".pyx") for n in sources), module
        assert not any(n.endswith(module + ".c") for n in sources), module
