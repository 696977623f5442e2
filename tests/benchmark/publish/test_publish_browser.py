"""The published site in a real browser (Debian's headless Chromium), from file://.

A tiny study (two generators, two densities, two sample sizes) is published; then
every page of the site is loaded with Chromium's console sent to stderr: no page
may log anything (an uncaught error, a failed load). On a study page a probe
changes the chart controls and reads back what plotly draws: another generator or
metric must draw other numbers. Every link and image of every page must resolve
to a file of the site, every file must match the manifests, and with JavaScript
off a study page still shows its static pictures and its tables.
"""

import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from sklearn.covariance import GraphicalLasso

from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.publish import publish
from skggm_bench.benchmark.publish._manifest import manifest_problem
from skggm_bench.generators import DiagonalDominance, TriangulatedOrthogonalization

pytest.importorskip("plotly")
pytest.importorskip("pyarrow")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Debian's chromium is not installed: `make test` installs it with "
    "apt-get where it can; elsewhere run `apt-get install chromium`",
)
# A headless Chromium in a sandbox-less container, with a fresh profile, and its
# console (every level) on stderr as "CONSOLE" lines.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
    "--window-size=1300,1000",
    "--virtual-time-budget=5000",
]
PROBE = """
<script>
window.addEventListener("load", function () {
  function shown(id) {
    var chart = document.getElementById(id);
    return JSON.stringify((chart.data || []).map(function (t) {
      return [t.x, t.y];
    }));
  }
  function choose(id, value) {
    var element = document.getElementById(id);
    element.value = value;
    element.dispatchEvent(new Event("change"));
  }
  var result = {board: shown("leaderboard-chart"), shift: shown("shift-chart"),
                curves: shown("curves-chart")};
  choose("control-generator", "1");
  result.boardOtherGenerator = shown("leaderboard-chart");
  result.curvesOtherGenerator = shown("curves-chart");
  choose("control-metric", "1");
  result.boardOtherMetric = shown("leaderboard-chart");
  choose("control-n_samples", "1");
  result.shiftOtherSize = shown("shift-chart");
  var out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    store = root / "tiny.sqlite"
    Benchmark(
        generators={
            "DiagonalDominance": DiagonalDominance(),
            "TriangulatedOrthogonalization": TriangulatedOrthogonalization(),
        },
        learners={
            "<i>sparse</i>": GraphicalLasso(alpha=0.4),
            "mid": GraphicalLasso(alpha=0.15),
            "dense": GraphicalLasso(alpha=0.02),
        },
        densities=(0.2, 0.4),
        n_features=6,
        n_samples=(15, 60),
        n_repeats=3,
        metrics=("f1", "tpr"),
        n_jobs=1,
        random_state=0,
        store=str(store),
    ).run()
    site = root / "site"
    publish([store], site, n_bootstrap=50)
    return site


def load(page, profile):
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return done.stdout, console


def test_every_page_loads_without_a_console_message(site, tmp_path):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 5  # index, history, version, report, learners
    for page in pages:
        _, console = load(page, tmp_path / "profile")
        assert console == [], f"{page.relative_to(site)}: {console}"


def test_chart_controls_change_what_the_charts_show(site, tmp_path):
    probed = tmp_path / "site"
    shutil.copytree(site, probed)
    page = probed / "studies" / "tiny" / "v1" / "index.html"
    page.write_text(page.read_text().replace("</body>", f"{PROBE}</body>"))
    dom, console = load(page, tmp_path / "profile")
    assert console == []
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, "the probe did not run"
    import json

    result = json.loads(found.group(1).replace("&lt;", "<").replace("&amp;", "&"))
    board = json.loads(result["board"])
    # One trace: mean ranks of the three learners, names shown as text.
    assert len(board) == 1 and len(board[0][0]) == 3
    assert "&lt;i&gt;sparse&lt;/i&gt;" in board[0][1]
    assert result["boardOtherGenerator"] != result["board"]
    assert result["boardOtherMetric"] != result["boardOtherGenerator"]
    assert result["shiftOtherSize"] != result["shift"]
    # The curves: a line per learner over the two sample sizes, whose values change
    # with the generator.
    curves = json.loads(result["curves"])
    assert len(curves) == 3 and all(x == [15, 60] for x, _ in curves)
    assert result["curvesOtherGenerator"] != result["curves"]


def test_without_javascript_pages_show_pictures_and_tables(site, tmp_path):
    # Chromium prints no DOM with scripts disabled: the page without its scripts
    # is what a browser without JavaScript shows.
    bare = tmp_path / "site"
    shutil.copytree(site, bare)
    page = bare / "studies" / "tiny" / "v1" / "index.html"
    page.write_text(re.sub(r"<script.*?</script>", "", page.read_text(), flags=re.S))
    dom, console = load(page, tmp_path / "profile")
    assert console == []
    chart = re.search(r'id="leaderboard-chart"[^>]*>(.*?)</div>', dom, re.S)
    assert chart and '<img src="leaderboard.png"' in chart.group(1)
    assert dom.count("<table") >= 4
    # The charts without a picture point to their numbers in the full report.
    shift = re.search(r'id="shift-chart"[^>]*>(.*?)</div>', dom, re.S)
    assert shift and 'href="report/report.html#rank-shift"' in shift.group(1)
    assert 'id="curves-chart"' in dom


def test_every_link_resolves_and_every_file_matches_the_manifests(site):
    links = 0
    for page in site.rglob("*.html"):
        text = page.read_text()
        for target in re.findall(r'(?:href|src)="([^"#]+)', text):
            if target.startswith("data:"):
                continue
            assert not urlsplit(target).scheme, f"{page}: external link {target}"
            resolved = (page.parent / unquote(target)).resolve()
            assert resolved.is_file(), f"{page.relative_to(site)}: {target}"
            assert site.resolve() in resolved.parents
            links += 1
    assert links > 20
    assert manifest_problem(site) is None
    for version in Path(site, "studies").glob("*/v*"):
        assert manifest_problem(version) is None


SETTLE_PROBE = """
<script>
window.addEventListener("load", function () {
  function points(id) {
    var chart = document.getElementById(id);
    return (chart.data || []).reduce(function (n, t) { return n + t.x.length; }, 0);
  }
  var shown = [points("leaderboard-chart")];
  ["control-graph", "control-density", "control-graph"].forEach(function (id) {
    var element = document.getElementById(id);
    for (var level = 0; level < element.options.length; level++) {
      element.value = String(level);
      element.dispatchEvent(new Event("change"));
      shown.push(points("leaderboard-chart"));
      shown.push(element.value === String(level) ? 1 : 0);  // the choice is kept
    }
  });
  var out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify(shown);
  document.body.appendChild(out);
});
</script>
"""


def test_every_choice_of_a_control_shows_results(tmp_path):
    """A fixed-structure graph has its own density: the graph and density controls
    cannot be crossed freely. Whatever is chosen, the charts show results (the other
    controls move to a combination that has them), never an empty chart."""
    from skggm_bench.benchmark.config import parse_config

    store = tmp_path / "graphs.sqlite"
    parse_config(
        {
            "graph": {"hub": {"family": "hub", "n_hubs": 2}, "er": "erdos_renyi"},
            "n_features": 8,
            "densities": [0.5],
            "n_samples": [20],
            "n_repeats": 2,
            "metrics": ["f1"],
            "random_state": 0,
            "generators": ["DiagonalDominance"],
            "learners": {"lw": {"class": "LedoitWolf"}, "oas": {"class": "OAS"}},
        },
        name="graphs",
    ).make_benchmark(store=str(store), n_jobs=1).run()
    site = tmp_path / "site"
    publish([store], site, n_bootstrap=50)
    page = site / "studies" / "graphs" / "v1" / "index.html"
    page.write_text(page.read_text().replace("</body>", f"{SETTLE_PROBE}</body>"))
    dom, console = load(page, tmp_path / "profile")
    assert console == []
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, "the probe did not run"
    import json

    shown = json.loads(found.group(1))
    assert len(shown) == 1 + 2 * (2 + 2 + 2)  # two graphs, two densities
    assert all(n > 0 for n in shown), shown
