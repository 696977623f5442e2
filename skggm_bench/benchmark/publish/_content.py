"""What a published version shows, computed from its rows: the data of the
interactive charts, the learners' summaries, the changes from the version before,
the study file and the call that redraws each data set.

Everything here is aggregates (a few numbers per scenario and learner), so a study
page stays small whatever the number of rows; the rows themselves are downloads.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...datasets import GRAPH_FAMILIES
from ...datasets._families import follows_density
from ...metrics import get_metric
from ..analysis.leaderboard import leaderboard
from ..present._wording import group_text
from ..results._provenance import versions_seen
from ..results._schema import GRID_COLUMNS, KEY_COLUMNS, rankable_metric

#: The controls of the charts, in the order they are shown: a grid column and
#: its label. The model class is a property of the whole study (one value).
CONTROLS: tuple[tuple[str, str], ...] = (
    ("generator", "generator"),
    ("graph", "graph family"),
    ("data_model", "data model"),
    ("n_features", "variables (p)"),
    ("density", "density"),
    ("n_samples", "sample size (n)"),
)
# The interactive data of a page is kept under this many bytes: metrics past the
# main one are left out (and the page says so) rather than the page growing with
# the grid.
_CHART_BUDGET = 1_200_000
_DIGITS = 4


def level_label(column: str, value: Any) -> str:
    """A grid value as the charts and tables show it (a missing density: default)."""
    if column == "density":  # 3 significant digits, as in the findings and tables
        return (
            "default" if value is None or pd.isna(value) else group_text(column, value)
        )
    if isinstance(value, float | np.floating):
        return f"{float(value):g}"
    return str(value)


def _rounded(values: pd.Series) -> list[float | None]:
    return [
        None if pd.isna(v) else float(f"{float(v):.{_DIGITS}g}")
        for v in values.to_numpy()
    ]


def chart_metrics(
    frame: pd.DataFrame, study: Mapping[str, Any], main: str
) -> list[Any]:
    """The rankable metrics of the study, the main one first."""
    names = [main]
    for name in study.get("metrics") or []:
        try:
            name = rankable_metric(get_metric(name).name, frame)
        except ValueError:
            continue
        if name not in names and name in frame and frame[name].notna().any():
            names.append(name)
    return names


def chart_data(
    frame: pd.DataFrame,
    study: Mapping[str, Any],
    metrics: Sequence[str],
    *,
    n_bootstrap: int,
    tie_tolerance: float,
) -> dict[str, Any]:
    """The leaderboard of every scenario (one point of the grid) for each metric.

    Columnar and dictionary-coded: ``levels[column]`` lists a control's values and
    ``rows[column]`` holds indices into it, so the data grow with the number of
    scenarios and learners, never with the number of repeats.
    """
    by = [c for c in GRID_COLUMNS if c != "generator"]
    levels = {
        column: sorted(frame[column].unique().tolist(), key=_sort_key)
        for column, _ in CONTROLS
    }
    learners = sorted(frame["learner"].unique().tolist())
    data: dict[str, Any] = {
        "controls": [
            {
                "column": column,
                "label": label,
                "levels": [level_label(column, v) for v in levels[column]],
            }
            for column, label in CONTROLS
        ],
        "model": str(study.get("model", "concentration")),
        "learners": learners,
        "metrics": [],
        "left_out": [],
    }
    columns: dict[str, list[Any]] = {
        key: []
        for key in (
            "metric",
            *(c for c, _ in CONTROLS),
            "learner",
            "rank",
            "rank_low",
            "rank_high",
            "value",
            "value_low",
            "value_high",
            "n_ok",
            "n_failed",
            "tied_with",
        )
    }
    size = 0
    for metric in metrics:
        board = leaderboard(
            frame,
            metric,
            by=by,
            n_bootstrap=n_bootstrap,
            tie_tolerance=tie_tolerance,
        )
        part = _encode(board, levels, learners, len(data["metrics"]))
        part_size = len(json.dumps(part))
        if data["metrics"] and size + part_size > _CHART_BUDGET:
            data["left_out"].append(get_metric(metric).label)
            continue
        size += part_size
        entry = get_metric(metric)
        data["metrics"].append(
            {
                "name": entry.name,
                "label": entry.label,
                "greater_is_better": bool(entry.greater_is_better),
            }
        )
        for key, values in part.items():
            columns[key].extend(values)
    data["rows"] = columns
    return data


def _sort_key(value: Any) -> tuple[Any, ...]:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return (0, 0.0, "")
    if isinstance(value, int | float | np.integer | np.floating):
        return (1, float(value), "")
    return (2, 0.0, str(value))


def _encode(
    board: pd.DataFrame,
    levels: Mapping[str, list[Any]],
    learners: list[Any],
    metric: int,
) -> dict[str, list[Any]]:
    part: dict[str, list[Any]] = {"metric": [metric] * len(board)}
    for column, _ in CONTROLS:
        index = {_sort_key(v): i for i, v in enumerate(levels[column])}
        part[column] = [index[_sort_key(v)] for v in board[column].tolist()]
    where = {name: i for i, name in enumerate(learners)}
    part["learner"] = [where[name] for name in board["learner"]]
    for key, column in (
        ("rank", "mean_rank"),
        ("rank_low", "rank_low"),
        ("rank_high", "rank_high"),
        ("value", "mean_metric"),
        ("value_low", "metric_low"),
        ("value_high", "metric_high"),
    ):
        part[key] = _rounded(board[column])
    part["n_ok"] = board["n_ok"].astype(int).tolist()
    part["n_failed"] = board["n_failed"].astype(int).tolist()
    part["tied_with"] = [
        "" if not isinstance(t, str) else t for t in board["tied_with"].tolist()
    ]
    return part


def learner_summaries(
    frame: pd.DataFrame, overall: pd.DataFrame, study: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """Per learner: its ranks per generator, failure and warning rates, fit times,
    parameters and package versions."""
    described = study.get("learners") or {}
    result = {}
    for name, rows in frame.groupby("learner", sort=True):
        ranks = overall[overall["learner"] == name]
        finished = rows[rows["status"] == "ok"]
        warned = finished["n_warnings"].dropna() if "n_warnings" in finished else []
        times = rows["fit_time"].dropna()
        result[str(name)] = {
            "ranks": [
                {
                    "generator": str(r["generator"]),
                    "position": None if pd.isna(r["position"]) else int(r["position"]),
                    "mean_rank": None if pd.isna(r["mean_rank"]) else r["mean_rank"],
                    "low": None if pd.isna(r["rank_low"]) else r["rank_low"],
                    "high": None if pd.isna(r["rank_high"]) else r["rank_high"],
                    "n_learners": int(
                        overall[overall["generator"] == r["generator"]]["learner"].size
                    ),
                }
                for _, r in ranks.iterrows()
            ],
            "n_fits": len(rows),
            "n_failed": int((rows["status"] != "ok").sum()),
            "n_warned": int((np.asarray(warned) > 0).sum()),
            "n_finished": len(finished),
            "median_fit_time": float(times.median()) if len(times) else None,
            "total_fit_time": float(times.sum()),
            "params": described.get(name, {}),
            "versions": versions_seen(rows["versions"]),
        }
    return result


def _cause(before: Any, after: Any) -> str:
    """Which recorded package versions differ between two rows' versions."""
    try:
        old, new = json.loads(before or "{}"), json.loads(after or "{}")
    except (TypeError, ValueError):
        return "unknown (unreadable versions)"
    changed = sorted(p for p in set(old) | set(new) if old.get(p) != new.get(p))
    if not changed:
        return "no recorded package version changed"
    return ", ".join(f"{p} {old.get(p, '-')} -> {new.get(p, '-')}" for p in changed)


def changes(
    previous: pd.DataFrame,
    current: pd.DataFrame,
    previous_learners: Mapping[str, Any],
    current_learners: Mapping[str, Any],
    *,
    limit: int = 20,
) -> dict[str, Any]:
    """What changed from one version of a study to the next.

    Learners added and removed; rows (same key) whose metric values or status
    changed, counted by likely cause (the packages whose recorded version
    changed, the data set itself when its hash changed); positions that moved.
    """
    added = sorted(set(current["learner"]) - set(previous["learner"]))
    removed = sorted(set(previous["learner"]) - set(current["learner"]))
    key = list(KEY_COLUMNS)
    values = [
        c
        for c in current.columns
        if c in previous.columns
        and c not in (*key, "fit_time", "versions", "message", "seed")
        and c not in ("n_warnings",)
        and pd.api.types.is_float_dtype(current[c])
    ]
    joined = previous.merge(current, on=key, suffixes=("_old", "_new"))
    differs = joined["status_old"] != joined["status_new"]
    for column in values:
        old = joined[f"{column}_old"].to_numpy(dtype=float)
        new = joined[f"{column}_new"].to_numpy(dtype=float)
        same = np.isclose(old, new, rtol=1e-9, atol=0.0, equal_nan=True)
        differs |= ~same
    changed = joined[differs]
    causes: dict[str, int] = {}
    examples: list[dict[str, Any]] = []
    for _, row in changed.iterrows():
        if row.get("data_hash_old") != row.get("data_hash_new"):
            cause = "the data set changed (another data hash)"
        else:
            cause = _cause(row["versions_old"], row["versions_new"])
        causes[cause] = causes.get(cause, 0) + 1
        if len(examples) < limit:
            examples.append(
                {
                    "key": ", ".join(
                        f"{c}={level_label(c, row[c])}" for c in KEY_COLUMNS
                    ),
                    "status": f"{row['status_old']} -> {row['status_new']}",
                    "cause": cause,
                }
            )
    moved = []
    for name in sorted(set(previous_learners) & set(current_learners)):
        before = {r["generator"]: r for r in previous_learners[name]["ranks"]}
        for rank in current_learners[name]["ranks"]:
            old = before.get(rank["generator"])
            if old is not None and old["position"] != rank["position"]:
                moved.append(
                    {
                        "learner": name,
                        "generator": rank["generator"],
                        "before": old["position"],
                        "after": rank["position"],
                    }
                )
    return {
        "learners_added": added,
        "learners_removed": removed,
        "rows_compared": len(joined),
        "rows_changed": len(changed),
        "rows_added": len(current) - len(joined),
        "rows_removed": len(previous) - len(joined),
        "causes": sorted(causes.items(), key=lambda item: -item[1]),
        "examples": examples,
        "moved": moved,
    }


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        # A JSON string is a valid TOML basic string (same escapes).
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value if v is not None) + "]"
    if isinstance(value, Mapping):
        items = _flat_estimator(value)
        return (
            "{ "
            + ", ".join(
                f"{json.dumps(str(k))} = {_toml_value(v)}"
                for k, v in items.items()
                if v is not None
            )
            + " }"
        )
    return json.dumps(str(value))


def _flat_estimator(value: Mapping[str, Any]) -> dict[str, Any]:
    """``{"class": c, "params": p}`` (a described estimator) as ``{class, **p}``."""
    if set(value) == {"class", "params"} and isinstance(value["params"], Mapping):
        return {"class": value["class"], **value["params"]}
    return dict(value)


def _toml_table(header: str, values: Mapping[str, Any]) -> list[str]:
    lines = [f"[{header}]"]
    skipped = []
    for key, value in values.items():
        if value is None:
            skipped.append(key)
        else:
            lines.append(f"{json.dumps(str(key))} = {_toml_value(value)}")
    if skipped:
        lines.append(f"# recorded as None (left at their default): {skipped}")
    return [*lines, ""]


def study_toml(study: Mapping[str, Any], name: str) -> str:
    """The study file that ``skggm-bench run --config`` reads, rebuilt from the
    study a store records (estimators by their full class path)."""
    lines = [
        f"# The study {name!r}, rebuilt by skggm-bench publish from the study its",
        "# store records. Run it again with: skggm-bench run --config THIS_FILE",
        "",
    ]
    for key in (
        "n_features",
        "densities",
        "n_samples",
        "sample_size_ratios",
        "n_repeats",
        "model",
    ):
        if study.get(key) is not None:
            lines.append(f"{key} = {_toml_value(study[key])}")
    metrics = study.get("metrics")
    if metrics:
        lines.append(f"metrics = {_toml_value(metrics)}")
    if study.get("entropy") is not None:
        lines.append(f"random_state = {_toml_value(study['entropy'])}")
    for key in ("timeout", "memory_limit"):
        if study.get(key) is not None:
            lines.append(f"{key} = {_toml_value(study[key])}")
    lines.append("")
    for graph, spec in (study.get("graph") or {}).items():
        lines += _toml_table(f"graph.{json.dumps(str(graph))}", spec or {})
    for section in ("generators", "learners", "data_models"):
        for entry, spec in (study.get(section) or {}).items():
            header = f"{section}.{json.dumps(str(entry))}"
            if spec is None:  # the data as drawn: Gaussian
                lines += _toml_table(header, {"class": "Gaussian"})
                continue
            table = _flat_estimator(spec)
            if section != "learners":
                # Generators and data models are looked up by class name only.
                table["class"] = str(table.get("class", "")).rsplit(".", 1)[-1]
            lines += _toml_table(header, table)
    return "\n".join(lines)


def _python_value(value: Any) -> str:
    if isinstance(value, Mapping) and set(value) == {"class", "params"}:
        params = ", ".join(
            f"{k}={_python_value(v)}" for k, v in (value["params"] or {}).items()
        )
        return f"{value['class']}({params})"
    return repr(value)


def redraw_calls(frame: pd.DataFrame, study: Mapping[str, Any]) -> pd.DataFrame:
    """One row per data set of the study: its grid key and the ``make_ggm`` call
    (``random_state`` its seed) that draws it again."""
    key = [c for c in KEY_COLUMNS if c != "learner"]
    sets = frame.drop_duplicates(key)[[*key, "seed", "data_hash"]].reset_index(
        drop=True
    )
    generators = study.get("generators") or {}
    graphs = study.get("graph") or {}
    models = study.get("data_models") or {}
    calls = []
    for row in sets.itertuples(index=False):
        graph = dict(graphs.get(row.graph) or {"family": row.graph})
        family = graph.pop("family", row.graph)
        extra = "".join(f", {k}={v!r}" for k, v in graph.items())
        # A fixed-structure graph (hub, chain, band with a bandwidth) records its
        # realised density in its rows, but is drawn with density=None.
        fixed = family in GRAPH_FAMILIES and not follows_density(family, graph)
        density = "None" if fixed or pd.isna(row.density) else repr(float(row.density))
        model = models.get(row.data_model)
        calls.append(
            "skggm_bench.datasets.make_ggm("
            f"n_samples={int(row.n_samples)}, n_features={int(row.n_features)}, "
            f"graph={family!r}, density={density}, "
            f"generator={_python_value(generators.get(row.generator))}, "
            f"model={study.get('model', 'concentration')!r}, "
            f"data_model={'None' if model is None else _python_value(model)}, "
            f"random_state={int(row.seed)}{extra})"
        )
    sets["call"] = calls
    return sets
