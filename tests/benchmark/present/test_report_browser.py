"""The HTML report in a real browser (Debian's headless Chromium) at 1400 px.

A small real study (two generators, two data models, three learners, p = 10) is
reported twice: its Gaussian half ranked by F1, with every figure; and the whole
study, both data models, ranked by a matrix loss (lower is better), tables only
(drawing the figures twice would double the test's time). A check script is
appended to each page, and Chromium loads it and prints the DOM after
the script has measured the page: the document must not be wider than the window,
every image must have loaded, and no table cell may show a Python artefact (the
quoted failure messages aside: a message may well say "NaN").
"""

import json
import re
import shutil
import sys

import numpy as np
import patience
import pytest
from sklearn.covariance import GraphicalLasso

from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.present.report import write_report
from skggm_bench.datasets import Gaussian, MultivariateT
from skggm_bench.generators import DiagonalDominance, TriangulatedOrthogonalization
from skggm_bench.learners import ShrinkagePartialCorrelation

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Debian's chromium is not installed: `make test` installs it with "
    "apt-get where it can (as root or with password-less sudo); elsewhere run "
    "`apt-get install chromium`",
)

WIDTH = 1400
# Flags that keep a headless Chromium quiet and self-contained in a sandbox-less
# container: no GPU, no network services, a fresh profile per run.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CHECK = """
<script>
window.addEventListener("load", function () {
  var root = document.documentElement;
  var artefact = /(^|\\W)(nan|NaN|None|True|False|<NA>)(\\W|$)/;
  var bad = [];
  // Quoted failure messages may name NaN; the cells formatted here may not.
  document.querySelectorAll("td:not(.quoted), th").forEach(function (cell) {
    if (artefact.test(cell.textContent)) { bad.push(cell.textContent); }
  });
  var images = Array.prototype.map.call(document.images, function (image) {
    return {name: image.title, complete: image.complete, width: image.naturalWidth};
  });
  var wide = [];
  document.querySelectorAll("body *").forEach(function (element) {
    if (element.getBoundingClientRect().right > root.clientWidth + 0.5) {
      wide.push(element.tagName + ": " + element.textContent.slice(0, 40));
    }
  });
  var result = {scrollWidth: root.scrollWidth, clientWidth: root.clientWidth,
                innerWidth: window.innerWidth, images: images, badCells: bad,
                wide: wide, cells: document.querySelectorAll("td").length};
  var out = document.createElement("pre");
  out.id = "layout-check";
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>
"""


@pytest.fixture(scope="module")
def study():
    """The rows of a small real study, with a few failed fits added."""
    result = Benchmark(
        generators={
            "DiagonalDominance": DiagonalDominance(),
            "TriangulatedOrthogonalization": TriangulatedOrthogonalization(),
        },
        learners={
            "shrink": ShrinkagePartialCorrelation(),
            "glasso_sparse": GraphicalLasso(alpha=0.3),
            "glasso_dense": GraphicalLasso(alpha=0.05),
        },
        data_models={"gaussian": Gaussian(), "heavy_tails": MultivariateT(df=3)},
        densities=(0.1, 0.3),
        n_features=10,
        n_samples=(30, 60),
        n_repeats=2,
        metrics=("tpr", "ppv", "f1", "frobenius_loss"),
        n_jobs=1,
        random_state=0,
    ).run()
    frame = result.frame
    # Failures as a run records them, so that the failure table and the "no
    # data" paths are on the page too.
    failed = (frame["learner"] == "glasso_dense") & (frame["density"] == 0.3)
    failed &= frame["generator"] == "TriangulatedOrthogonalization"
    frame.loc[failed, ["tpr", "ppv", "f1", "frobenius_loss"]] = np.nan
    frame.loc[failed, "status"] = "failed"
    frame.loc[failed, "message"] = [
        f"FloatingPointError: non-SPD result at iteration {i}; the system may be "
        "too ill-conditioned for this solver"
        for i in range(int(failed.sum()))
    ]
    return frame, result.study


def measure(page, profile):
    checked = page.with_name("checked.html")
    checked.write_text(
        page.read_text(encoding="utf-8").replace("</body>", f"{CHECK}</body>"),
        encoding="utf-8",
    )
    done = patience.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={WIDTH},1000",
            # Lets the load handler run before the DOM is printed.
            "--virtual-time-budget=5000",
            "--dump-dom",
            checked.as_uri(),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r'<pre id="layout-check">(.*?)</pre>', done.stdout, re.S)
    assert found, f"chromium printed no check result: {done.stderr[-2000:]}"
    return json.loads(found.group(1).replace("&lt;", "<").replace("&amp;", "&"))


@pytest.mark.parametrize("metric", ["f1", "frobenius_loss"])
def test_report_fits_1400_px_and_shows_only_display_text(
    study, metric, tmp_path, monkeypatch
):
    frame, configuration = study
    if metric == "f1":
        frame = frame[frame["data_model"] == "gaussian"]
    else:  # as if matplotlib were missing: the tables alone
        monkeypatch.setitem(sys.modules, "matplotlib", None)
    page = write_report(
        frame, tmp_path, metric=metric, metadata=configuration, n_bootstrap=200
    )
    result = measure(page, tmp_path / "profile")
    assert result["innerWidth"] == WIDTH
    # No horizontal scrolling: the document is not wider than the window.
    assert result["scrollWidth"] <= result["clientWidth"] <= WIDTH, result["wide"]
    assert result["wide"] == []
    # Every figure loaded: leaderboard, critical differences, rank shift, the
    # curves (one per density), difficulty.
    assert len(result["images"]) == (6 if metric == "f1" else 0)
    assert all(image["complete"] and image["width"] > 0 for image in result["images"])
    assert result["cells"] > 100
    assert result["badCells"] == []
