"""Sphinx configuration for skggm-bench (numpydoc + sphinx-gallery + MyST pages)."""

import os
import sys
from importlib.metadata import version as _version

# Lets sphinx-gallery import this file as "conf" for the reset_argv hook by name.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

project = "skggm-bench"
author = "skggm-bench developers"
copyright = "2026, skggm-bench developers"  # noqa: A001
release = _version("skggm-bench")
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py"]
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "scipy": ("https://docs.scipy.org/doc/scipy", None),
    "sklearn": ("https://scikit-learn.org/stable", None),
    "networkx": ("https://networkx.org/documentation/stable", None),
}
# The build must not depend on the network (CI has none): intersphinx inventories are
# only fetched when SKGGM_DOCS_INTERSPHINX=1.
if os.environ.get("SKGGM_DOCS_INTERSPHINX") != "1":
    intersphinx_mapping = {}

def _fast_argv(gallery_conf, script_vars):
    """Fewer draws for the slowest executed example when SKGGM_DOCS_FAST=1."""
    fast = os.environ.get("SKGGM_DOCS_FAST") == "1"
    return ["--n-draws", "2000"] if fast and "marginal" in script_vars["src_file"] else []


# Examples are executed when the docs are built. SKGGM_DOCS_FAST=1 (used by CI and
# `make docs`) runs only the quick ones; the Krämer validation is rendered, not run.
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": (
        r"plot_(three_variables|marginal_densities|generator_comparison"
        r"|joint_estimation)"
    ),
    "download_all_examples": False,
    "remove_config_comments": True,
    "reset_argv": "conf._fast_argv",
}

html_theme = "pydata_sphinx_theme"
html_title = "skggm-bench"
html_theme_options = {"navigation_with_keys": False}


def _skip_metadata_routing(app, what, name, obj, skip, options):
    """Hide scikit-learn's generated ``set_*_request`` methods (metadata routing)."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return skip


def _publish_results_site(app, exception):
    """The results site of the reference study in small, into the build's results/.

    docs/publishing.md links to it: what ``skggm-bench publish`` writes, browsable
    with the documentation (the ``reference-small`` preset: 540 fits, about a
    minute and a half on 2 cores).
    """
    if exception is not None or app.builder.name != "html":
        return
    import shutil
    import tempfile
    from pathlib import Path

    from skggm_bench.benchmark.config import get_preset
    from skggm_bench.benchmark.publish import publish

    site = Path(app.outdir) / "results"
    with tempfile.TemporaryDirectory() as tmp:
        # Named after the preset: a site's study is named after its store file.
        store = Path(tmp) / "reference-small.sqlite"
        get_preset("reference-small").make_benchmark(store=str(store), n_jobs=2).run()
        # A fresh site each build: the docs show one version of the study.
        shutil.rmtree(site, ignore_errors=True)
        publish([store], site)


def setup(app):  # noqa: D103
    app.connect("autodoc-skip-member", _skip_metadata_routing)
    app.connect("build-finished", _publish_results_site)
