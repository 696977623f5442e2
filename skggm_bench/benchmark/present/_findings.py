"""The findings of an analysis: a few sentences, each with its interval and its caveats.

Every sentence is built from an :class:`~..analysis._analysis.Analysis` and says
no more than it shows: a winner or a rank shift is also judged on the complete
blocks (where every compared learner has a value), so that a learner is never
credited with another's failures; intervals over fewer than ``MIN_REPEATS`` repeats
are "too few repeats to tell"; failure rates get their own sentence. The command
line and the report show the same sentences.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...metrics import get_metric
from ..analysis._analysis import (
    COMPLETE_ONLY,
    FROM_FAILURES,
    REVERSED,
    SIGNIFICANT,
    TOO_FEW,
    Analysis,
    Comparison,
    shift_verdicts,
)
from ..analysis._comparisons import ALL_TIED
from ..analysis._ranking import MIN_REPEATS
from ._formatting import format_interval
from ._tables import failure_table
from ._wording import (
    EVERY_PAIR_F1,
    HEADERS,
    best_and_others,
    describe_group,
    metric_label,
    p_value_text,
    split_groups,
    tau_text,
    under,
)

__all__ = ["findings"]


# At most this many findings sentences per kind (rank shifts, critical differences).
_MAX_SENTENCES = 3


def _ordinal(position: Any) -> str:
    n = int(position)
    suffix = (
        "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    )
    return f"{n}{suffix}"


def _names(names: Sequence[str]) -> str:
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _key(values: Iterable[Any]) -> tuple[Any, ...]:
    """A group key in which NaN (a family's default density) matches NaN."""
    return tuple(None if pd.isna(v) else v for v in values)


class _BlockCounts:
    """``(n_blocks, n_gaps, n_complete)`` of ``blocks`` per group of ``columns``.

    Summed once per table (the findings look up hundreds of groups); a group
    absent from ``blocks`` counts ``(0, 0, 0)``.
    """

    def __init__(self, blocks: pd.DataFrame, columns: Sequence[str]) -> None:
        self.totals: dict[tuple[Any, ...], tuple[int, int, int]] = {}
        if blocks.empty:
            return
        counted = ["n_blocks", "n_gaps", "n_complete"]
        if columns:
            grouped = blocks.groupby(list(columns), dropna=False, sort=False)
            sums = grouped[counted].sum()
            keys = sums.index if len(columns) > 1 else ((k,) for k in sums.index)
        else:
            sums, keys = blocks[counted].sum().to_frame().T, [()]
        for key, row in zip(keys, sums.to_numpy(), strict=True):
            self.totals[_key(key)] = (int(row[0]), int(row[1]), int(row[2]))

    def __getitem__(self, key: Sequence[Any]) -> tuple[int, int, int]:
        return self.totals.get(_key(key), (0, 0, 0))


def _too_few(n: int) -> str:
    return f"too few repeats to tell (n = {n})"


def _without_value(n_blocks: int, n_gaps: int) -> str:
    return (
        f"{n_gaps} of {n_blocks} blocks hold a fit without a value (failed, timed "
        "out, missing or undefined), ranked last"
    )


def _records(
    table: pd.DataFrame | None, by: Sequence[str]
) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The rows of a per-(group, learner) table, by ``(*group key, learner)``."""
    if table is None:
        return {}
    return {
        (*_key(record[c] for c in by), record["learner"]): record
        for record in table.to_dict("records")
    }


def _winner_sentences(analysis: Analysis) -> list[str]:
    board = analysis.overall
    label = metric_label(analysis.metric)
    by = list(board.attrs["by"])
    overall_counts = _BlockCounts(analysis.overall_blocks, by)
    complete = (
        {_key(key): part for key, part in split_groups(analysis.complete_overall, by)}
        if analysis.complete_overall is not None
        else {}
    )
    sentences = []
    for key, part in split_groups(board, by):
        where = describe_group(by, key)
        first = part[part["position"] == 1]
        if first.empty:
            reasons = set(part["no_value_reason"]) - {"", "no successful fit"}
            sentences.append(
                f"{where.capitalize()} no learner has a value of {label} "
                f"({'; '.join(sorted(reasons))}): no learner can be ranked."
                if reasons
                else f"{where.capitalize()} no fit succeeded: no learner can be ranked."
            )
            continue
        n = int(first["n_repeats"].iloc[0])
        thin = n < MIN_REPEATS

        def numbers(row: Mapping[str, Any], thin: bool = thin) -> str:
            rank = format_interval(
                row["mean_rank"], row["rank_low"], row["rank_high"], thin=thin
            )
            value = format_interval(
                row["mean_metric"], row["metric_low"], row["metric_high"], thin=thin
            )
            return f"mean rank {rank}, mean {label} {value}"

        names = list(first["learner"])
        records = first.to_dict("records")
        if len(names) == 1:
            who = f"{names[0]} ranks first by {label} over the whole grid: "
            who += numbers(records[0])
        else:
            details = "; ".join(f"{r['learner']}: {numbers(r)}" for r in records)
            who = (
                f"{_names(names)} share the first place by {label} over the whole "
                f"grid ({details})"
            )
        tied = sorted(
            {name for text in first["tied_with"] for name in text.split(", ") if name}
            - set(names)
        )
        if tied:
            verb = "is" if len(tied) == 1 else "are"
            close = (
                f"; {_names(tied)} {verb} not told apart from {_names(names)}: "
                "their rank intervals overlap"
            )
        elif thin:
            lead = "it leads" if len(names) == 1 else "they lead"
            close = f"; {_too_few(n)} whether {lead}"
        elif len(names) == part["position"].notna().sum():
            # No other learner is ranked: "no other interval overlaps" says nothing.
            close = (
                "; it is the only learner ranked there"
                if len(names) == 1
                else "; every learner ranked there shares it"
            )
        else:
            close = "; no other learner's rank interval overlaps " + (
                f"that of {names[0]}" if len(names) == 1 else "theirs"
            )
        sentence = f"{where[0].upper()}{where[1:]}, {who}{close}."
        n_blocks, n_gaps, n_complete = overall_counts[key]
        if n_gaps:
            sentence += " " + _complete_winner(
                complete.get(_key(key)), names, (n_blocks, n_gaps, n_complete)
            )
        sentences.append(sentence)
    return sentences


def _complete_winner(
    part: pd.DataFrame | None, names: list[str], counts: tuple[int, int, int]
) -> str:
    """Who leads on the complete blocks of a group, against the leader on all."""
    n_blocks, n_gaps, n_complete = counts
    opening = _without_value(n_blocks, n_gaps)
    opening = f"{opening[0].upper()}{opening[1:]}"
    leaders = [] if part is None else list(part[part["position"] == 1]["learner"])
    if not leaders:
        return (
            f"{opening}, and no block has a value of every learner ranked here: "
            "this order rests on failures as much as on recovery."
        )
    on = f"on the {n_complete} blocks where every learner with a value has one"
    if set(leaders) == set(names):
        still = "still ranks" if len(names) == 1 else "still share the"
        return f"{opening}; {on}, {_names(names)} {still} first."
    assert part is not None  # leaders is empty without it, and names is not
    row = part[part["position"] == 1].iloc[0]
    rank = format_interval(row["mean_rank"], row["rank_low"], row["rank_high"])
    if set(leaders) < set(names):
        # Some of the first place's sharers lead alone there.
        dropped = [name for name in names if name not in leaders]
        lead = (
            "ranks first alone" if len(leaders) == 1 else "alone share the first place"
        )
        whose = _names([f"{name}'s" for name in dropped])
        return (
            f"{opening}; {on}, {_names(leaders)} {lead} (mean rank {rank}): "
            f"{whose} share of the first place comes from failed fits."
        )
    verb = "ranks" if len(leaders) == 1 else "share the"
    return (
        f"{opening}; {on}, {_names(leaders)} {verb} first instead (mean rank "
        f"{rank}): the lead above comes from failed fits."
    )


# The order of the rank shifts in the findings: significant changes of the
# learner first, then shifts made by failed fits, then the rest.
_TIER = {SIGNIFICANT: 0, COMPLETE_ONLY: 0, REVERSED: 0, FROM_FAILURES: 1}


def _shift_sentences(analysis: Analysis) -> list[str]:
    """The most telling changes of mean rank, over every comparison and group.

    Each shift is judged by :func:`~..analysis._analysis.shift_verdicts`: where
    some block of a group lacks a value of a compared learner, on the complete
    blocks. Significant changes of a learner come first, then the shifts that
    failed fits make, then the others; within each, the largest change (on the
    blocks that judge it) first. A learner that "moves" only because others
    failed is never headlined as a change of that learner.
    """
    label = metric_label(analysis.metric)
    candidates = []
    for comparison in analysis.comparisons:
        shift = comparison.shift
        verdicts = shift_verdicts(comparison)
        by = list(shift.attrs.get("by", ()))
        shift_counts = _BlockCounts(comparison.blocks, by)
        complete = _records(comparison.complete_shift, by)
        moved = (shift["comparison"] == "compared") & (shift["rank_gain"] != 0)
        for index, record in shift[moved].iterrows():
            key = [record[c] for c in by]
            counts = shift_counts[key]
            other = complete.get((*_key(key), record["learner"]))
            if other is not None and other["comparison"] != "compared":
                other = None
            size = (
                abs(record["rank_gain"])
                if not counts[1]
                else 0.0
                if other is None
                else abs(other["rank_gain"])
            )
            verdict = verdicts[index]
            candidates.append(
                (
                    (_TIER.get(verdict, 2), -size),
                    _shift_sentence(
                        label, comparison, by, record, other, counts, verdict
                    ),
                )
            )
    candidates.sort(key=lambda item: item[0])
    return [sentence for _, sentence in candidates[:_MAX_SENTENCES]]


def _crossed(shift: pd.DataFrame, by: list[str], record: Mapping[str, Any]) -> str:
    """Who passed a learner whose place moved against its mean rank, or ""."""
    gain = round(record["rank_gain"], 2)
    before, after = record["position_from"], record["position_to"]
    fell = after > before and gain >= 0
    rose = after < before and gain <= 0
    if not (fell or rose):
        return ""
    mask = np.ones(len(shift), dtype=bool)
    for column in by:
        value = record[column]
        cells = shift[column]
        mask &= (cells.isna() if pd.isna(value) else cells == value).to_numpy()
    others = shift[mask & (shift["learner"] != record["learner"]).to_numpy()]
    was = others["mean_rank_from"].to_numpy(float)
    now = others["mean_rank_to"].to_numpy(float)
    with np.errstate(invalid="ignore"):
        if fell:  # now ahead of it, and not ahead before
            passed = (now < record["mean_rank_to"]) & ~(was < record["mean_rank_from"])
        else:  # now behind it, and not behind before
            passed = (now > record["mean_rank_to"]) & ~(was > record["mean_rank_from"])
    names = list(others.loc[passed, "learner"])
    if not names:
        return ""
    verb = "is" if len(names) == 1 else "are"
    where = "ahead of" if fell else "behind"
    return f" ({_names(names)} {verb} now ranked {where} it)"


def _shift_sentence(
    label: str,
    comparison: Comparison,
    by: list[str],
    record: Mapping[str, Any],
    other: Mapping[str, Any] | None,
    counts: tuple[int, int, int],
    verdict: str,
) -> str:
    learner = record["learner"]
    gain = record["rank_gain"]
    low, high = record["rank_gain_low"], record["rank_gain_high"]
    before, after = record["position_from"], record["position_to"]
    source = under(comparison.axis, comparison.source)
    target = under(comparison.axis, comparison.target)
    n = int(record["n_repeats"])
    thin = n < MIN_REPEATS
    if after == before:
        move = f"keeps the {_ordinal(before)} place {source} and {target}"
    else:
        verb = "rises" if after < before else "falls"
        move = f"{verb} from {_ordinal(before)} {source} to {_ordinal(after)} {target}"
        move += _crossed(comparison.shift, by, record)
    change = _gain_text(gain, low, high, thin)
    where = describe_group(by, [record[c] for c in by])
    opening = f"By {label}{f' ({where})' if where else ''}, {learner} {move}; {change}"
    n_blocks, n_gaps, n_complete = counts
    if not n_gaps:
        text = {
            TOO_FEW: _too_few(n),
            SIGNIFICANT: "a significant change",
        }.get(verdict, "not significant: its interval includes 0")
        return f"{opening}, {text}."
    share = _without_value(n_blocks, n_gaps)
    own = [
        f"{int(failed)} {side}"
        for failed, side in (
            (record["n_failed_from"], source),
            (record["n_failed_to"], target),
        )
        if not pd.isna(failed) and failed
    ]
    origin = (
        f"failed fits, {learner}'s own among them ({', '.join(own)})"
        if own
        else "other learners' failed fits"
    )
    not_learner = f"not from a change of {learner}"
    if other is None:
        tail = (
            f"{share}, and no block has a value of every compared learner on both "
            f"sides: the shift comes from {origin}, {not_learner}"
        )
        return f"{opening}. {tail[0].upper()}{tail[1:]}."
    m = int(other["n_repeats"])
    there = _gain_text(
        other["rank_gain"],
        other["rank_gain_low"],
        other["rank_gain_high"],
        m < MIN_REPEATS,
    )
    plural = "repeat" if m == 1 else "repeats"
    on = (
        f"on the {n_complete} blocks where every compared learner has a value, in "
        f"the {m} {plural} with such blocks on both sides"
    )
    strong = {
        SIGNIFICANT: ", a significant change there too",
        COMPLETE_ONLY: ", a significant change there, which failed fits mask on "
        "all blocks",
        REVERSED: f", a significant change the other way: {origin} reverse it",
    }
    if verdict in strong:
        verdict_text = strong[verdict]
    elif round(other["rank_gain"], 2) == 0:  # no change where all have a value
        verdict_text = f": the shift comes from {origin}, {not_learner}"
    elif verdict == FROM_FAILURES:
        verdict_text = (
            f", not significant: the shift comes from {origin}, {not_learner}"
        )
    elif verdict == TOO_FEW:
        verdict_text = f", {_too_few(m)}"
    else:
        verdict_text = ", not significant"
    tail = f"{share}; {on}, {there}{verdict_text}"
    return f"{opening}. {tail[0].upper()}{tail[1:]}."


def _gain_text(gain: float, low: float, high: float, thin: bool) -> str:
    if round(gain, 2) == 0:
        return "its mean rank changes by " + format_interval(
            gain, low, high, signed=True, thin=thin
        )
    if gain > 0:
        return "its mean rank improves by " + format_interval(
            gain, low, high, thin=thin
        )
    return "its mean rank worsens by " + format_interval(-gain, -high, -low, thin=thin)


def _agreement_sentences(analysis: Analysis) -> list[str]:
    """Kendall's tau over the whole grid, and where it is lowest.

    Several comparisons from the same reference share one sentence.
    """
    sentences = []
    by_reference: dict[tuple[str, str], list[Comparison]] = {}
    for comparison in analysis.comparisons:
        key = (comparison.axis, comparison.source)
        by_reference.setdefault(key, []).append(comparison)
    scale = "(1: the same order, -1: reversed)"
    for (axis, source), comparisons in by_reference.items():
        if len(comparisons) == 1:
            sentences.append(_agreement_sentence(comparisons[0], scale))
            continue
        lead = {
            "generator": f"under {source} and under each other generator",
            "graph": f"on {source} graphs and on each other graph",
        }.get(axis, f"with {source} data and with each other data model")
        parts = []
        for comparison in comparisons:
            overall = _overall(comparison.agreement)
            tau = tau_text(overall)
            complete = _complete_tau(comparison)
            complete = f" ({complete})" if complete else ""
            parts.append(f"{comparison.target} {tau}{complete}")
        sentences.append(
            f"Kendall's tau between the learner orderings {lead}, over the whole "
            f"grid {scale}: {'; '.join(parts)}."
        )
    return sentences


def _complete_tau(comparison: Comparison) -> str:
    """``k of N blocks ...; on the M blocks ...: tau``, or nothing."""
    n_blocks, n_gaps, n_complete = (
        int(comparison.blocks[c].sum()) if len(comparison.blocks) else 0
        for c in ("n_blocks", "n_gaps", "n_complete")
    )
    if not n_gaps:
        return ""
    there = (
        _overall(comparison.complete_agreement)
        if comparison.complete_agreement is not None
        else None
    )
    tau = tau_text(there) if there is not None else "no data"
    return (
        f"{_without_value(n_blocks, n_gaps)}; on the {n_complete} blocks where "
        f"every compared learner has a value: {tau}"
    )


def _overall(agreement: pd.DataFrame) -> pd.Series:
    return agreement[agreement["scope"] == "overall"].iloc[0]


def _agreement_sentence(comparison: Comparison, scale: str) -> str:
    agreement = comparison.agreement
    by = list(agreement.attrs.get("by", ()))
    sides = (
        f"{under(comparison.axis, comparison.source)} and "
        f"{under(comparison.axis, comparison.target)}"
    )
    overall = _overall(agreement)
    if overall["comparison"] == ALL_TIED:
        return (
            f"The learner orderings {sides} cannot be compared by Kendall's tau: "
            "over the whole grid one side gives every learner the same mean rank."
        )
    if overall["comparison"] != "compared":
        return (
            f"The learner orderings {sides} cannot be compared: fewer than two "
            "learners have results on both sides."
        )
    sentence = (
        f"Kendall's tau between the learner orderings {sides} is {tau_text(overall)} "
        f"over the whole grid {scale}"
    )
    complete = _complete_tau(comparison)
    if complete:
        sentence += f"; {complete}"
    groups = agreement[
        (agreement["scope"] == "group") & (agreement["comparison"] == "compared")
    ]
    if len(groups) > 1:
        # The range of the groups' taus, named as such: the whole grid pools the
        # groups' blocks into one ordering, so its tau can lie outside that range.
        lowest = groups.loc[groups["tau"].idxmin()]
        highest = groups.loc[groups["tau"].idxmax()]
        low_place = describe_group(by, [lowest[c] for c in by])
        high_place = describe_group(by, [highest[c] for c in by])
        sentence += (
            f"; per group ({' x '.join(HEADERS.get(c, c) for c in by)}): "
            f"{tau_text(lowest)} at the lowest ({low_place}), "
            f"{tau_text(highest)} at the highest ({high_place})"
        )
        if not lowest["tau"] <= overall["tau"] <= highest["tau"]:
            sentence += (
                ", a range that excludes the whole grid's tau: the whole grid ranks "
                "the learners over all groups' blocks together"
            )
    n = overall["n_repeats"]
    if not pd.isna(n) and n < MIN_REPEATS:
        sentence += f"; {_too_few(int(n))} how closely they agree"
    return sentence + "."


def _critical_difference_sentences(analysis: Analysis) -> list[str]:
    """How many groups the Friedman test separates, and who the best beats."""
    cd = analysis.cd
    by = list(cd.attrs["by"])
    alpha = cd.attrs["alpha"]
    groups = [
        (key, part)
        for key, part in split_groups(cd, by)
        if part["p_value"].notna().any()
    ]
    if not groups:
        return []
    repeats = {
        _key(key): int(part["repeat"].nunique())
        for key, part in split_groups(analysis.frame, by)
    }
    different = [(key, part) for key, part in groups if part["p_value"].iloc[0] < alpha]
    what = " x ".join(HEADERS.get(c, c) for c in by)
    opening = (
        f"Friedman tests at level {alpha:g}: the learners' mean ranks differ in "
        f"{len(different)} of {len(groups)} groups ({what})"
    )
    cd_counts = _BlockCounts(analysis.cd_blocks, by)
    tested = [cd_counts[key] for key, _ in groups]
    n_blocks = sum(counts[0] for counts in tested)
    n_gaps = sum(counts[1] for counts in tested)
    if n_gaps:
        opening += (
            f"; {n_gaps} of their {n_blocks} blocks ({100 * n_gaps / n_blocks:.0f}%) "
            "hold a fit without a value (failed, timed out, missing or undefined), "
            "ranked last"
        )
    fewest = min(repeats.get(_key(key), 0) for key, _ in groups)
    if fewest < MIN_REPEATS:
        opening += (
            f"; {_too_few(fewest)}: the blocks of a repeat share its graph, so the "
            "test has fewer independent units than blocks"
        )
    sentences = [opening + "."]
    strongest = sorted(different, key=lambda item: -item[1]["statistic"].iloc[0])
    for key, part in strongest[:_MAX_SENTENCES]:
        best, worse, _ = best_and_others(part[part["mean_rank"].notna()])
        first = part.iloc[0]
        where = describe_group(by, key)
        where = f"{where[0].upper()}{where[1:]}"
        evidence = (
            f"critical difference {first['critical_difference']:.2f}, Friedman p "
            f"{p_value_text(first['p_value'])}"
        )
        n_blocks, n_gaps, _ = cd_counts[key]
        if n_gaps:
            evidence += f"; {_without_value(n_blocks, n_gaps)}"
        n = repeats.get(_key(key), 0)
        rank = f"mean rank {best[0][1]:.2f}"
        if len(best) == 1:
            leader, verb = f"{best[0][0]} ({rank})", "ranks"
        else:
            leader = f"{_names([name for name, _ in best])} (each {rank})"
            verb = "share the best mean rank and rank"
        if worse and n < MIN_REPEATS:
            names = _names([name for name, _ in worse])
            sentences.append(
                f"{where}, {leader} {verb} ahead of {names}, but {_too_few(n)} "
                f"({evidence})."
            )
        elif worse:
            names = _names([name for name, _ in worse])
            better = "is" if len(best) == 1 else "are"
            sentences.append(
                f"{where}, {leader} {better} significantly better than {names} "
                f"({evidence})."
            )
        else:
            sentences.append(
                f"{where}, no learner is significantly worse than the best, "
                f"{leader[:-1]}; {evidence})."
            )
    return sentences


def _failure_sentences(analysis: Analysis) -> list[str]:
    frame = analysis.frame
    failed = frame[frame["status"] != "ok"]
    if failed.empty:
        return [f"All {len(frame)} fits finished."]
    counts = failed["status"].value_counts()
    kinds = ", ".join(f"{n} {_STATUS_WORDS.get(s, s)}" for s, n in counts.items())
    share = 100 * len(failed) / len(frame)
    sentence = (
        f"{len(failed)} of {len(frame)} fits did not finish ({share:.1f}%): {kinds}"
    )
    table = failure_table(frame)
    if table.rows:
        # Every message as frequent as the first: one of them is not "the" most
        # frequent.
        top = [row for row in table.rows if row[2] == table.rows[0][2]]
        quoted = [
            f"\u201c{message}\u201d ({learners})"
            for _, message, _, learners, _ in top[:_MAX_SENTENCES]
        ]
        more = len(top) - len(quoted)
        if len(top) == 1:
            _, message, fits, learners, _ = top[0]
            sentence += (
                f". The most frequent message ({fits} fits; {learners}): "
                f"\u201c{message}\u201d"
            )
        else:
            sentence += (
                f". {len(top)} messages tie as the most frequent, with "
                f"{top[0][2]} fits each: " + "; ".join(quoted)
            )
            if more:
                sentence += f"; and {more} more (see the table of failures)"
    return [
        sentence + ".",
        *_failure_rate_sentences(analysis),
        *_no_position_sentences(analysis),
    ]


def _failure_rate_sentences(analysis: Analysis) -> list[str]:
    """The failure rate under each generator, and the learners that fail most."""
    rates = analysis.failures
    parts = []
    for generator, part in rates.groupby("generator", sort=True):
        failed, fits = int(part["n_failed"].sum()), int(part["n_fits"].sum())
        text = f"under {generator} {100 * failed / fits:.0f}% ({failed} of {fits} fits"
        worst = part[part["n_failed"] > 0].assign(
            share=lambda t: t["n_failed"] / t["n_fits"]
        )
        worst = worst.sort_values(["share", "learner"], ascending=[False, True])
        named = [
            f"{row['learner']} {100 * row['share']:.0f}% ({row['n_failed']} of "
            f"{row['n_fits']})"
            for row in worst.head(_MAX_SENTENCES).to_dict("records")
        ]
        more = len(worst) - len(named)
        if named:
            text += ": " + ", ".join(named) + (f" and {more} more" if more else "")
        parts.append(text + ")")
    return [
        "Failure rates by generator: "
        + "; ".join(parts)
        + ". Failed fits rank last, so they lift the other learners' ranks; the "
        "findings above say where a rank rests on them."
    ]


def _no_position_sentences(analysis: Analysis) -> list[str]:
    """Who has no position, and why: no successful fit, or no value in its fits."""
    board = analysis.board
    no_data = board[board["position"].isna()]
    by = list(board.attrs["by"])
    label = metric_label(analysis.metric)
    sentences = []
    failed = no_data["no_value_reason"] == "no successful fit"
    for rows, opening in (
        (no_data[failed], "Without any successful fit, and so without a position: "),
        (
            no_data[~failed],
            f"Without a value of {label} although their fits succeeded, and so "
            "without a position: ",
        ),
    ):
        if rows.empty:
            continue
        places = [
            f"{row['learner']} {describe_group(by, [row[c] for c in by])}"
            + ("" if row["no_value_reason"] == "no successful fit"
               else f" ({row['no_value_reason']})")
            for row in rows.to_dict("records")
        ]  # fmt: skip
        shown = places[:_MAX_SENTENCES]
        more = len(places) - len(shown)
        sentences.append(
            opening
            + "; ".join(shown)
            + (f"; and {more} more (see the leaderboard)" if more else "")
            + "."
        )
    return sentences


def _share(count: int, total: int) -> str:
    return f"{100 * count / total:.0f}% of its fits ({count} of {total})"


def _selection_sentences(analysis: Analysis) -> list[str]:
    """Learners that selected every pair, or none: their edge metrics mislead."""
    summary = analysis.selection
    # By a threshold-free metric or a loss the selection does not matter.
    if summary.empty or get_metric(analysis.metric).needs != "edges":
        return []
    parts = []
    for row in summary.to_dict("records"):
        said = []
        if row["n_every_pair"]:
            said.append(
                f"selected every pair in {_share(row['n_every_pair'], row['n_ok'])}"
            )
        if row["n_no_pair"]:
            said.append(f"selected no pair in {_share(row['n_no_pair'], row['n_ok'])}")
        parts.append(f"{row['learner']} {' and '.join(said)}")
    return [
        "Edge decisions that say little: "
        + "; ".join(parts)
        + ". Such a selection says nothing about how the learner ranks the pairs "
        f"({EVERY_PAIR_F1}): compare these learners by the threshold-free roc_auc "
        "or average_precision, or decide their edges with LocalFDRSelector "
        "(skggm_bench.learners)."
    ]


def _warning_sentences(analysis: Analysis) -> list[str]:
    """Learners whose finished fits raised warnings: ranked, but say so."""
    summary = analysis.warned
    if summary.empty:
        return []
    parts = [
        f"{row['learner']} in {_share(row['n_warned'], row['n_ok'])}: {row['classes']}"
        for row in summary.to_dict("records")
    ]
    return [
        "Finished fits that raised a warning, ranked by their values like any "
        "other (a ConvergenceWarning usually means an estimate short of the "
        "solver's optimum; a fit counts once for each class of warning it "
        "raised): " + "; ".join(parts) + "."
    ]


_STATUS_WORDS = {"timeout": "timed out", "memory": "ran out of memory"}


def findings(analysis: Analysis) -> list[str]:
    """A few sentences that say what the results show, each with its interval.

    Who wins under each generator (and data model), the largest rank shifts, the
    agreement of the learner orderings between generators, the critical
    differences, which finished fits raised warnings, and what failed and how
    often.

    Parameters
    ----------
    analysis : Analysis
        From :func:`analyse`.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis._analysis import analyse
    >>> frame = pd.DataFrame({
    ...     "generator": "DD", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [r for r in range(5) for _ in "ab"], "learner": ["a", "b"] * 5,
    ...     "f1": [0.2, 0.6, 0.3, 0.7, 0.1, 0.5, 0.2, 0.4, 0.3, 0.5], "status": "ok"})
    >>> for sentence in findings(analyse(frame, "f1", n_bootstrap=100)):
    ...     print(sentence)  # doctest: +NORMALIZE_WHITESPACE
    Under DD, b ranks first by F1 over the whole grid: mean rank 1.00 (1.00–1.00),
    mean F1 0.54 (0.46–0.62); no other learner's rank interval overlaps that of b.
    Friedman tests at level 0.05: the learners' mean ranks differ in 1 of 1 groups
    (generator x density).
    Under DD, density 0.1, b (mean rank 1.00) is significantly better than a
    (critical difference 0.88, Friedman p 0.025).
    All 10 fits finished.
    """
    return [
        *_winner_sentences(analysis),
        *_shift_sentences(analysis),
        *_agreement_sentences(analysis),
        *_critical_difference_sentences(analysis),
        *_selection_sentences(analysis),
        *_warning_sentences(analysis),
        *_failure_sentences(analysis),
    ]
