"""The static results site: every published study, versioned, with its downloads.

:func:`publish` turns results stores into a folder of plain files that opens from
``file://`` offline and from any static host::

    SITE/
      index.html                   every study, newest first
      site.json                    the studies and their versions (what is shown)
      manifest.json                SHA-256 of every other file of the site
      assets/plotly.min.js         plotly's JavaScript, once for the whole site
      assets/site.js, site.css     the chart controls, sortable tables, the style
      learners/<name>.html         a learner across every study it is in
      studies/<study>/index.html   the versions of a study and what changed
      studies/<study>/v<N>/        one published version, never changed again:
        index.html                 charts, findings, tables, downloads
        rows.parquet, rows.csv     every row (rows.csv.dtypes.json: its dtypes)
        redraw.csv                 per data set, the make_ggm call that redraws it
        study.toml, study.json     the study file, and the study the store records
        report/                    the full HTML report of ``skggm-bench report``
        manifest.json              SHA-256 of every file of the version

A study is named after its store (``quick.sqlite`` -> ``quick``; shards
``quick.shard-2-of-8.sqlite`` join it); stores of one study are merged, which
requires the same data side. Publishing a study again adds a version when its
rows changed. A version is written beside the site and renamed into place, so it
appears whole or not at all; the site's pages and manifest are replaced last.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from ... import __version__
from ...metrics import get_metric
from ..analysis._analysis import Analysis, analyse
from ..analysis.leaderboard import DEFAULT_TIE_TOLERANCE
from ..present._findings import findings
from ..present._tables import (
    failure_rate_table,
    grid_table,
    leaderboard_table,
    versions_table,
)
from ..present.report import write_analysis_report
from ..results._provenance import first_difference, split_study, versions_seen
from ..results.store import (
    MergeError,
    ResultStore,
    StoreError,
    export_frame,
    merge_stores,
    read_export,
)
from . import _content
from ._manifest import manifest_problem, sha256_file, write_manifest

__all__ = ["SITE_FILE", "PublishError", "check_site", "publish", "study_name"]

#: The file that marks a folder as a site, and lists its studies and versions.
SITE_FILE = "site.json"
_FORMAT = 1
_SHARD = re.compile(r"\.shard-\d+-of-\d+$")
_ASSETS = ("site.js", "site.css")
# The static picture of a study page, as sharp as the report's figures.
_PICTURE_DPI = 110


class PublishError(ValueError):
    """A store or a site that cannot be published (the message says why)."""


def _slug(name: str) -> str:
    """A file name for any text: its safe characters and a short hash (unique)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:40].strip(".") or "x"
    return f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def study_name(path: str | os.PathLike[str]) -> str:
    """The study a store is published as: its file name, shard suffix dropped.

    Examples
    --------
    >>> from skggm_bench.benchmark.publish import study_name
    >>> study_name("results/quick.shard-2-of-8.sqlite")
    'quick'
    """
    return _SHARD.sub("", Path(path).stem)


def _environment() -> Any:
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("skggm_bench.benchmark.publish", "templates"),
        # Names, messages and parameters are data: escaped, never markup.
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    environment.filters["json_script"] = _json_script
    return environment


def _json_script(value: Any) -> Any:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` survive."""
    from markupsafe import Markup

    text = json.dumps(value, separators=(",", ":"), allow_nan=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    return Markup(text)


def _plotly_js() -> str:
    try:
        from plotly.offline import get_plotlyjs
    except ImportError:
        raise PublishError(
            "publishing needs plotly: pip install 'skggm-bench[publish]'"
        ) from None
    result: str = get_plotlyjs()
    return result


# -- checks --------------------------------------------------------------------


def check_site(out: str | os.PathLike[str]) -> None:
    """Refuse ``out`` as a site folder unless it is new, empty or a whole site.

    What :func:`publish` checks first, for a caller that has work to do before it
    publishes (``skggm-bench run --against STORE --publish SITE``).

    Raises
    ------
    PublishError
        If ``out`` is a file, holds files that are not a site, or is a site
        whose files do not match its manifest.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from skggm_bench.benchmark.publish import PublishError, check_site
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     check_site(pathlib.Path(tmp) / "new-site")  # a new folder: fine
    ...     (pathlib.Path(tmp) / "notes.txt").write_text("mine")
    ...     try:
    ...         check_site(tmp)
    ...     except PublishError as exc:
    ...         print("refused")
    4
    refused
    """
    _check_site(Path(out))


def _check_site(out: Path) -> dict[str, Any] | None:
    """The site at ``out`` (None for a new one), refused if it is not a whole site."""
    if out.exists() and not out.is_dir():
        raise PublishError(f"--out {out} is a file, not a site folder")
    if not out.exists() or not any(out.iterdir()):
        return None
    marker = out / SITE_FILE
    if not marker.is_file():
        raise PublishError(
            f"--out {out} holds files that are not a skggm-bench site (no "
            f"{SITE_FILE}); give a new or empty folder"
        )
    problem = manifest_problem(out)
    if problem is not None:
        raise PublishError(
            f"the site at {out} does not match its manifest: {problem}; it was "
            "changed since it was published"
        )
    try:
        site = json.loads(marker.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise PublishError(f"{marker} is not valid JSON: {exc}") from None
    if site.get("format") != _FORMAT:
        raise PublishError(
            f"{marker} is a site of format {site.get('format')!r}; this "
            f"skggm-bench writes format {_FORMAT}"
        )
    result: dict[str, Any] | None = site
    return result


def _read_groups(stores: Sequence[Path], name: str | None) -> dict[str, list[Path]]:
    """The stores by study (all of them study ``name`` when given), each checked
    readable; the parts of one study must share their data side."""
    groups: dict[str, list[Path]] = {}
    studies: dict[Path, dict[str, Any]] = {}
    for path in stores:
        if not path.is_file():
            raise PublishError(f"no results store at {path}")
        try:
            with contextlib.closing(ResultStore(path, read_only=True)) as store:
                study = store.study()
                n_rows = len(store)
        except StoreError as exc:
            raise PublishError(str(exc)) from None
        if study is None or n_rows == 0:
            raise PublishError(f"{path} holds no study rows: there is nothing to show")
        studies[path] = study
        groups.setdefault(name or study_name(path), []).append(path)
    for name, paths in groups.items():
        first, *others = paths
        for other in others:
            difference = first_difference(
                split_study(studies[first])[0], split_study(studies[other])[0]
            )
            if difference is not None:
                raise PublishError(
                    f"{first} and {other} are parts of study {name!r} but their data "
                    f"sides differ ({difference}); publish them as two studies "
                    "(stores of other names)"
                )
    return groups


# -- one version -----------------------------------------------------------------


def _question(frame: pd.DataFrame, metric: str) -> str:
    learners = frame["learner"].nunique()
    generators = sorted(frame["generator"].unique())
    return (
        f"Which of {learners} learners recovers the graph best by "
        f"{get_metric(metric).label}, on data drawn by {', '.join(generators)}, "
        "and does the ranking depend on the generator?"
    )


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _grid_line(chart: Mapping[str, Any], n_repeats: int) -> str:
    parts = [
        f"{c['label']}: {', '.join(c['levels'])}"
        for c in chart["controls"]
        if c["column"] in ("n_features", "density", "n_samples")
    ]
    counts = {c["column"]: len(c["levels"]) for c in chart["controls"]}
    counted = [
        _count(n_repeats, "repeat"),
        _count(counts["generator"], "generator"),
        _count(counts["graph"], "graph family", "graph families"),
        _count(counts["data_model"], "data model"),
    ]
    parts.append(f"{', '.join(counted)}, model {chart['model']}")
    return "; ".join(parts)


def _learner_package(
    params: Mapping[str, Any], versions: Mapping[str, list[Any]]
) -> str:
    """``scikit-learn 1.6.1``: the package of a learner's class and its version."""
    root = str(params.get("class", "")).split(".")[0]
    package = {"sklearn": "scikit-learn", "skggm_bench": "skggm-bench"}.get(root, root)
    found = versions.get(package) or versions.get(root)
    return f"{package} {', '.join(found)}" if found else package


def _write_version(
    folder: Path,
    store: Path,
    name: str,
    number: int,
    previous: Mapping[str, Any] | None,
    previous_folder: Path | None,
    *,
    metric: str,
    n_bootstrap: int,
    tie_tolerance: float,
    environment: Any,
    checksums: Mapping[str, str],
    report_figures: bool,
) -> dict[str, Any] | None:
    """Write version ``number`` of a study into ``folder``; None when its rows are
    those of the previous version."""
    folder.mkdir(parents=True)
    with contextlib.closing(ResultStore(store, read_only=True)) as opened:
        frame = opened.frame()
        meta = opened.metadata()
    export_frame(frame, folder / "rows.csv")
    rows_checksum = sha256_file(folder / "rows.csv")
    if previous is not None and previous["rows_sha256"] == rows_checksum:
        return None
    export_frame(frame, folder / "rows.parquet")
    study = meta["study"]
    analysis = analyse(
        frame, metric, n_bootstrap=n_bootstrap, tie_tolerance=tie_tolerance
    )
    metrics = _content.chart_metrics(frame, study, analysis.metric)
    chart = _content.chart_data(
        frame, study, metrics, n_bootstrap=n_bootstrap, tie_tolerance=tie_tolerance
    )
    learners = _content.learner_summaries(frame, analysis.overall, study)
    change = None
    if previous is not None and previous_folder is not None:
        before = read_export(previous_folder / "rows.parquet")
        old = json.loads((previous_folder / "summary.json").read_text("utf-8"))
        change = _content.changes(before, frame, old["learners"], learners)
    # The report of the analysis above: one analysis per study and version.
    # The page's charts draw every scenario's leaderboard, rank shift and curve;
    # the report's pictures of them (one per group and density: most of the CPU of
    # a large study's publication) only on request.
    report = write_analysis_report(
        analysis,
        folder / "report",
        title=f"skggm-bench report: {name}, version {number}",
        metadata=meta,
        figures_elsewhere=None if report_figures else "../index.html#charts",
    )
    shifts = sorted((report.parent / "figures").glob("rank_shift_*.png"))
    picture = _static_leaderboard(analysis, folder / "leaderboard.png")
    _content.redraw_calls(frame, study).to_csv(folder / "redraw.csv", index=False)
    (folder / "study.toml").write_text(
        _content.study_toml(study, name), encoding="utf-8"
    )
    (folder / "study.json").write_text(
        json.dumps(meta, indent=1, sort_keys=True), encoding="utf-8"
    )
    run_versions = versions_seen(frame["versions"])
    entry = {
        "version": number,
        "published": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "created": meta.get("created", ""),
        "question": _question(frame, analysis.metric),
        "grid": _grid_line(chart, int(study.get("n_repeats", 0) or 0)),
        "metric": get_metric(analysis.metric).label,
        "n_fits": len(frame),
        "n_failed": int((frame["status"] != "ok").sum()),
        "learners": [
            {
                "name": learner,
                "package": _learner_package(
                    (study.get("learners") or {}).get(learner) or {},
                    summary["versions"],
                ),
            }
            for learner, summary in learners.items()
        ],
        "run_by": ", ".join(run_versions.get("skggm-bench", [])) or "unknown",
        "published_by": __version__,
        "rows_sha256": rows_checksum,
        "stores": dict(checksums),
        "path": f"studies/{name}/v{number}/index.html",
        "changes": change,
    }
    (folder / "summary.json").write_text(
        json.dumps({"entry": entry, "learners": learners}, indent=1, default=float),
        encoding="utf-8",
    )
    command = (
        f"pip install {' '.join(_pins(run_versions))}\n"
        "skggm-bench run --config study.toml --store "
        f"{name}.sqlite\nskggm-bench publish {name}.sqlite --out SITE/"
    )
    tables = [
        ("Leaderboard over the whole grid", leaderboard_table(analysis.overall)),
        ("Failure rates", failure_rate_table(frame)),
        ("Grid", grid_table(frame)),
        ("Package versions", versions_table(frame)),
    ]
    page = environment.get_template("study.html").render(
        root="../../../",
        name=name,
        entry=entry,
        chart=chart,
        findings=findings(analysis),
        tables=tables,
        change=change,
        previous=previous,
        leaderboard_png=picture,
        shift_png=f"report/figures/{shifts[0].name}" if shifts else None,
        several_generators=frame["generator"].nunique() > 1,
        learner_pages={learner: _slug(learner) for learner in learners},
        command=command,
    )
    (folder / "index.html").write_text(page, encoding="utf-8")
    write_manifest(folder, study=name, version=number)
    return entry


def _static_leaderboard(analysis: Analysis, path: Path) -> str | None:
    """The page's picture without JavaScript: the leaderboard over the whole grid,
    a panel per generator (and graph family and data model where there are
    several); its file name, or None without matplotlib."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return None
    from ..present.plotting import plot_leaderboard

    figure = plot_leaderboard(analysis.overall)
    figure.savefig(path, dpi=_PICTURE_DPI)
    return path.name


def _pins(versions: Mapping[str, list[str]]) -> list[str]:
    return [
        f"{package}=={found[-1]}"
        for package, found in versions.items()
        if package != "python" and found
    ]


# -- the site pages ----------------------------------------------------------------


def _site_pages(root: Path, site: dict[str, Any], environment: Any) -> list[str]:
    """Write index.html, every study's history page and every learner's page under
    ``root``; return their relative paths."""
    written = []
    studies = sorted(
        site["studies"].items(),
        key=lambda item: item[1]["versions"][-1]["published"],
        reverse=True,
    )

    def write(relative: str, template: str, **context: Any) -> None:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        page = environment.get_template(template).render(**context)
        path.write_text(page, encoding="utf-8")
        written.append(relative)

    write("index.html", "index.html", root="", studies=studies, version=__version__)
    learners: dict[str, list[Any]] = {}
    for name, study in studies:
        write(
            f"studies/{name}/index.html",
            "history.html",
            root="../../",
            name=name,
            study=study,
        )
        latest = study["versions"][-1]
        for learner, summary in study["latest_learners"].items():
            learners.setdefault(learner, []).append((name, latest, summary))
    for learner, places in sorted(learners.items()):
        write(
            f"learners/{_slug(learner)}.html",
            "learner.html",
            root="../",
            learner=learner,
            places=places,
        )
    return written


def publish(
    stores: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    metric: str = "f1",
    n_bootstrap: int = 1000,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
    study: str | None = None,
    report_figures: bool = False,
) -> list[dict[str, Any]]:
    """Publish results stores as versions of studies in a static site.

    Parameters
    ----------
    stores : sequence of str or os.PathLike
        Results stores. A study is named after its store's file name (shard
        suffixes dropped); the stores of one study are merged.
    out : str or os.PathLike
        The site folder: new, empty, or a site written by this function.
    metric : str, default="f1"
        The metric the findings, tables and static figures rank by (the charts
        offer every metric of the study).
    n_bootstrap : int, default=1000
        Bootstrap replicates of every interval.
    tie_tolerance : float, default=1e-4
        Relative difference within which two values share their rank.
    study : str or None, default=None
        Publish every store as this one study (e.g. a study extended with new
        learners, published as a new version of the study it extends); by
        default each store's study is :func:`study_name` of its path.
    report_figures : bool, default=False
        Also draw the figures of each version's full report as pictures (one per
        group, comparison and density: on a large grid most of the publication's
        CPU time). By default the report links to the page's interactive charts,
        which show the same leaderboards, rank shifts and curves scenario by
        scenario, and the page's static picture is the leaderboard over the whole
        grid.

    Returns
    -------
    list of dict
        Per study: ``study``, ``version`` (the new version, or the latest when
        the rows did not change) and ``added`` (whether a version was added).

    Raises
    ------
    PublishError
        For a damaged store or one of another schema version, stores of one
        study with different data sides, an ``out`` that is a file or holds
        another folder, or a site whose files do not match its manifest. The
        site is then left as it was.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from skggm_bench.benchmark import Benchmark
    >>> from skggm_bench.benchmark.publish import publish
    >>> from skggm_bench.generators import DiagonalDominance
    >>> from sklearn.covariance import GraphicalLasso
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     store = str(pathlib.Path(tmp) / "tiny.sqlite")
    ...     _ = Benchmark(generators={"DD": DiagonalDominance()},
    ...                   learners={"a": GraphicalLasso(alpha=0.1),
    ...                             "b": GraphicalLasso(alpha=0.5)},
    ...                   densities=(0.2,), n_features=6, n_samples=(30,),
    ...                   n_repeats=2, n_jobs=1, random_state=0, store=store).run()
    ...     published = publish([store], pathlib.Path(tmp) / "site", n_bootstrap=50)
    >>> published
    [{'study': 'tiny', 'version': 1, 'added': True}]
    """
    out = Path(out)
    paths = [Path(p) for p in stores]
    if not paths:
        raise PublishError("give at least one results store to publish")
    site = _check_site(out)
    if study is not None and (
        not isinstance(study, str)
        or study in ("", ".", "..")
        or re.search(r"[/\\]", study)
    ):
        raise PublishError(f"study must be a name (no folder), got {study!r}")
    if not isinstance(report_figures, bool):
        raise PublishError(
            f"report_figures must be True or False, got {report_figures!r}"
        )
    groups = _read_groups(paths, study)
    plotly_js = _plotly_js()
    environment = _environment()
    site = site or {"format": _FORMAT, "generator": "skggm-bench", "studies": {}}
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.staging-", dir=out.parent))
    published, moves = [], []
    try:
        for name, members in groups.items():
            checksums = {p.name: sha256_file(p) for p in members}
            store = members[0]
            if len(members) > 1:
                store = staging / f"{name}.merged.sqlite"
                try:
                    merge_stores(members, store)
                except (MergeError, StoreError) as exc:
                    raise PublishError(str(exc)) from None
            history = site["studies"].get(name, {"versions": []})
            previous = history["versions"][-1] if history["versions"] else None
            number = len(history["versions"]) + 1
            relative = f"studies/{name}/v{number}"
            entry = _write_version(
                staging / relative,
                store,
                name,
                number,
                previous,
                out / f"studies/{name}/v{number - 1}" if previous else None,
                metric=metric,
                n_bootstrap=n_bootstrap,
                tie_tolerance=tie_tolerance,
                environment=environment,
                checksums=checksums,
                report_figures=report_figures,
            )
            if entry is None:
                shutil.rmtree(staging / relative)
                published.append({"study": name, "version": number - 1, "added": False})
                continue
            summary = json.loads((staging / relative / "summary.json").read_text())
            history["versions"].append(entry)
            history["latest_learners"] = summary["learners"]
            site["studies"][name] = history
            moves.append(relative)
            published.append({"study": name, "version": number, "added": True})
        if not moves:
            return published
        pages = _site_pages(staging, site, environment)
        assets = staging / "assets"
        assets.mkdir(exist_ok=True)
        (assets / "plotly.min.js").write_text(plotly_js, encoding="utf-8")
        for asset in _ASSETS:
            (assets / asset).write_text(_asset_text(asset), encoding="utf-8")
        (staging / SITE_FILE).write_text(
            json.dumps(site, indent=1, sort_keys=True), encoding="utf-8"
        )
        _commit(staging, out, moves, [*pages, SITE_FILE, *_asset_paths()])
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return published


def _asset_paths() -> list[str]:
    return ["assets/plotly.min.js", *(f"assets/{a}" for a in _ASSETS)]


def _asset_text(name: str) -> str:
    from importlib.resources import files

    return (files("skggm_bench.benchmark.publish") / "assets" / name).read_text(
        encoding="utf-8"
    )


def _commit(staging: Path, out: Path, versions: list[str], files: list[str]) -> None:
    """Move the new versions into the site (each a rename: whole or absent), then
    replace its pages, and write its manifest last."""
    out.mkdir(parents=True, exist_ok=True)
    for relative in versions:
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(staging / relative, target)
    for relative in files:
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}")
        shutil.copyfile(staging / relative, temporary)
        os.replace(temporary, target)
    current = {Path(f) for f in files if f.startswith("learners/")}
    for page in (out / "learners").glob("*.html"):
        if Path("learners") / page.name not in current:
            page.unlink()
    write_manifest(out, generator="skggm-bench publish", version=__version__)
