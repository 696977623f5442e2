"""Every findings sentence is true of the rows (issue 37).

A study like the audit's -- 8 learners, one of which fails often and one of which
raises two warning classes, 2 generators, 2 densities, 5 repeats, small p and n so
that it runs in seconds -- is run, and each sentence of its findings is checked
against figures recomputed here from the rows with pandas and scipy alone (not
with the package's ranking code): positions, mean ranks and metrics, the blocks
without a value, the rank shifts on all blocks and on the complete blocks of the
paired repeats, Kendall's tau, the Friedman tests and critical differences, the
selections, the warnings and the failures. A sentence no check recognises fails
the test, so a new kind of sentence needs its check.
"""

import contextlib
import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from sklearn.base import BaseEstimator
from sklearn.covariance import GraphicalLasso, LedoitWolf
from sklearn.exceptions import ConvergenceWarning

from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.analysis._analysis import analyse, shift_verdicts
from skggm_bench.benchmark.present._findings import findings
from skggm_bench.generators import DiagonalDominance, TriangulatedOrthogonalization
from skggm_bench.learners import ShrinkagePartialCorrelation, ThresholdedCorrelation

P = 8
BLOCK = ["generator", "density", "n_samples", "repeat"]
NUMBER = r"-?\d+\.\d+"
INTERVAL = rf"{NUMBER} \((?:{NUMBER})(?:–| to )(?:{NUMBER})\)†?"


class Flaky(BaseEstimator):
    """Fails on about a third of the data sets (those whose first entry is large)."""

    def fit(self, X, y=None):
        if X[0, 0] > 0.4:
            raise FloatingPointError("non-positive pivot")
        model = GraphicalLasso(alpha=0.1).fit(X)
        self.precision_, self.covariance_ = model.precision_, model.covariance_
        return self


class Warner(BaseEstimator):
    """Raises a UserWarning first, then a ConvergenceWarning, in every fit."""

    def fit(self, X, y=None):
        warnings.warn("first of all", UserWarning, stacklevel=2)
        warnings.warn("no convergence", ConvergenceWarning, stacklevel=2)
        model = GraphicalLasso(alpha=0.3).fit(X)
        self.precision_, self.covariance_ = model.precision_, model.covariance_
        return self


@pytest.fixture(scope="module")
def study():
    learners = {
        "flaky": Flaky(),
        "warner": Warner(),
        "lw": LedoitWolf(),
        "gl_low": GraphicalLasso(alpha=0.05),
        "gl_mid": GraphicalLasso(alpha=0.15),
        "gl_high": GraphicalLasso(alpha=0.5),
        "thresh": ThresholdedCorrelation(),
        "shrink": ShrinkagePartialCorrelation(),
    }
    printed = io.StringIO()
    with contextlib.redirect_stderr(printed):
        frame = (
            Benchmark(
                {"DD": DiagonalDominance(), "TO": TriangulatedOrthogonalization()},
                learners,
                n_features=P,
                densities=(0.2, 0.4),
                n_samples=(40, 80),
                n_repeats=5,
                random_state=0,
            )
            .run()
            .frame
        )
    # The run's own tally of the workers' warning counts (not the messages):
    # {(learner, class): fits that raised it}.
    tally = {
        (learner, name): int(fits)
        for learner, name, fits in re.findall(
            r"learner '(\w+)' raised (\w+) \d+ times? in (\d+) of", printed.getvalue()
        )
    }
    analysis = analyse(frame, "f1", n_bootstrap=1000)
    return frame, analysis, tally, findings(analysis)


# --------------------------------------------------------------------------------------
# Independent figures
# --------------------------------------------------------------------------------------


def wide_values(rows):
    """(block x learner) F1, NaN unless ok; blocks where nobody has a value dropped."""
    values = rows.assign(value=rows.f1.where(rows.status == "ok"))
    wide = values.pivot(index=BLOCK, columns="learner", values="value")
    return wide[wide.notna().any(axis=1)]


def ranks(wide):
    """Ranks within each block: 1 the best F1, no value last, ties averaged."""
    key = np.where(np.isnan(wide.to_numpy(float)), np.inf, -wide.to_numpy(float))
    return pd.DataFrame(
        scipy.stats.rankdata(key, axis=1), index=wide.index, columns=wide.columns
    )


def with_value(wide):
    """The learners with a value in some block of ``wide``."""
    return list(wide.columns[wide.notna().any(axis=0)])


def positions(mean_rank):
    """1 = the lowest mean rank; equal mean ranks share a position."""
    return mean_rank.round(9).rank(method="min").astype(int)


def gaps(wide):
    """(blocks, blocks where a learner with a value somewhere lacks one)."""
    present = wide[with_value(wide)]
    return len(present), int(present.isna().any(axis=1).sum())


def complete_paired(frame, density):
    """The blocks of a comparison's group where every compared learner (a value on
    both sides) has one, in the repeats that have such blocks on both sides, and
    those learners."""
    group = frame[frame.density == density]
    sides = {g: wide_values(group[group.generator == g]) for g in ("DD", "TO")}
    compared = sorted(set(with_value(sides["DD"])) & set(with_value(sides["TO"])))
    complete = {g: w[compared].dropna() for g, w in sides.items()}
    repeats = [set(w.index.get_level_values("repeat")) for w in complete.values()]
    paired = sorted(repeats[0] & repeats[1])
    return {
        g: w[w.index.get_level_values("repeat").isin(paired)]
        for g, w in complete.items()
    }, paired


def figure(value):
    return f"{value:.2f}".replace("-0.00", "0.00")


def ordinal(n):
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th') }"


# --------------------------------------------------------------------------------------
# One check per kind of sentence
# --------------------------------------------------------------------------------------


def check_winner(sentence, frame):
    generator = re.match(r"Under (\w+), ", sentence)[1]
    numbers = re.findall(
        rf"(\w+)(?: ranks first by F1 over the whole grid)?: mean rank ({NUMBER}) "
        rf"\(.*?\), mean F1 ({NUMBER}) ",
        sentence,
    )
    rows = frame[frame.generator == generator]
    wide = wide_values(rows)
    mean_rank = ranks(wide).mean()[with_value(wide)]
    first = sorted(mean_rank.index[np.isclose(mean_rank, mean_rank.min())])
    assert sorted(name for name, _, _ in numbers) == first
    if len(first) > 1:
        sharing = re.match(r"Under \w+, (.*?) share the first place", sentence)[1]
        assert sorted(re.split(r", | and ", sharing)) == first
    for leader, rank, f1 in numbers:
        assert figure(mean_rank[leader]) == rank
        ok = rows[(rows.learner == leader) & (rows.status == "ok")]
        assert figure(ok.f1.mean()) == f1
    n_blocks, n_gaps = gaps(wide)
    if not n_gaps:
        assert "blocks hold a fit without a value" not in sentence
        return
    assert f"{n_gaps} of {n_blocks} blocks hold a fit without a value" in sentence
    complete = wide[with_value(wide)].dropna()
    on = re.search(r"on the (\d+) blocks where every learner with a value", sentence)
    assert int(on[1]) == len(complete)
    there = ranks(complete).mean()
    leaders = sorted(there.index[np.isclose(there, there.min())])
    tail = sentence[on.end() :]
    if leaders == first:
        assert "still" in tail
    elif set(leaders) < set(first):
        assert f"{' and '.join(leaders)} ranks first alone" in tail or (
            "alone share the first place" in tail
        )
        assert "share of the first place comes from failed fits" in tail
    else:
        assert f"{' and '.join(leaders)} " in tail and "first instead" in tail


SHIFT = re.compile(
    rf"By F1 \(density ({NUMBER})\), (\w+) (?:(rises|falls) from (\d+)\w\w under DD "
    rf"to (\d+)\w\w under TO|keeps the (\d+)\w\w place under DD and under TO)"
    rf"(?: \(.*?\))?; its mean rank (improves|worsens|changes) by "
    rf"\+?({NUMBER}) \((.*?)\)"
)


def signed(verb, value):
    return -float(value) if verb == "worsens" else float(value)


def check_shift(sentence, frame):
    match = SHIFT.match(sentence)
    density, learner = float(match[1]), match[2]
    group = frame[frame.density == density]
    mean = {}
    for side in ("DD", "TO"):
        wide = wide_values(group[group.generator == side])
        mean[side] = ranks(wide).mean()[with_value(wide)]
    places = {side: positions(mean[side])[learner] for side in mean}
    if match[3]:
        assert (int(match[4]), int(match[5])) == (places["DD"], places["TO"])
    else:
        assert int(match[6]) == places["DD"] == places["TO"]
    gain = mean["DD"][learner] - mean["TO"][learner]
    assert signed(match[7], match[8]) == pytest.approx(round(gain, 2), abs=1e-9)
    n_blocks, n_gaps = gaps(wide_values(group))
    tail = sentence[match.end() :]
    if not n_gaps:
        assert "blocks hold a fit without a value" not in tail
        return gain, None, tail
    assert f"{n_gaps} of {n_blocks} blocks hold a fit without a value" in tail
    complete, paired = complete_paired(frame, density)
    blocks = sum(len(w) for w in complete.values())
    on = re.search(
        rf"on the (\d+) blocks where every compared learner has a value, in the "
        rf"(\d+) repeats? with such blocks on both sides, its mean rank "
        rf"(improves|worsens|changes) by \+?({NUMBER})",
        tail,
    )
    assert (int(on[1]), int(on[2])) == (blocks, len(paired))
    there = (
        ranks(complete["DD"]).mean()[learner] - ranks(complete["TO"]).mean()[learner]
    )
    assert signed(on[3], on[4]) == pytest.approx(round(there, 2), abs=1e-9)
    return gain, there, tail


def interval_of(text):
    low, high = re.split(r"–| to ", text.rstrip("†"))
    return float(low), float(high)


def check_shift_verdicts(shift_sentences, frame, analysis):
    """Each verdict fits its numbers; significant changes lead, largest first."""
    keys = []
    for sentence in shift_sentences:
        gain, there, tail = check_shift(sentence, frame)
        intervals = [interval_of(m) for m in re.findall(r"by \S+ \((.*?)\)", sentence)]
        if "a significant change" in sentence:
            assert all(low > 0 or high < 0 for low, high in intervals[-1:])
            tier = 0
        elif "not significant: the shift comes from" in tail:
            tier = 1
        else:
            assert "significant change" not in sentence
            if "not significant" in sentence:
                low, high = intervals[-1]
                assert low <= 0 <= high
            tier = 2
        keys.append((tier, -abs(there if there is not None else gain)))
    assert keys == sorted(keys), shift_sentences
    # Nothing left out outranks the last sentence shown: the verdicts of the
    # analysis, the sizes recomputed here.
    [comparison] = analysis.comparisons
    verdicts = shift_verdicts(comparison)
    strong = {"significant", "significant on the complete blocks only", "reversed"}
    n_strong = sum(v in strong for v in verdicts)
    assert sum(tier == 0 for tier, _ in keys) == min(n_strong, len(keys))


def check_agreement(sentence, frame):
    match = re.match(
        rf"Kendall's tau between the learner orderings under DD and under TO is "
        rf"({NUMBER}) ",
        sentence,
    )

    def tau(rows_dd, rows_to):
        dd, to = (ranks(w).mean()[with_value(w)] for w in (rows_dd, rows_to))
        both = sorted(set(dd.index) & set(to.index))
        return scipy.stats.kendalltau(dd[both], to[both]).statistic

    def side(rows, generator):
        return wide_values(rows[rows.generator == generator])

    whole = tau(side(frame, "DD"), side(frame, "TO"))
    assert match[1] == figure(whole)
    per_group = {
        d: tau(
            side(frame[frame.density == d], "DD"), side(frame[frame.density == d], "TO")
        )
        for d in (0.2, 0.4)
    }
    low, high = min(per_group, key=per_group.get), max(per_group, key=per_group.get)
    assert (
        f"{figure(per_group[low])} " in sentence.split("at the lowest")[0][-30:]
        and f"at the lowest (density {low:g})" in sentence
        and f"at the highest (density {high:g})" in sentence
    )
    outside = not per_group[low] <= whole <= per_group[high]
    assert ("a range that excludes the whole grid's tau" in sentence) is outside
    n_blocks, n_gaps = gaps(wide_values(frame))
    if n_gaps:
        assert f"{n_gaps} of {n_blocks} blocks hold a fit without a value" in sentence
        on = re.search(r"on the (\d+) blocks where every compared learner", sentence)
        parts = [complete_paired(frame, d) for d in (0.2, 0.4)]
        assert int(on[1]) == sum(len(w) for c, _ in parts for w in c.values())


def friedman(frame):
    """Per (generator, density): chi-square, p, mean ranks, blocks, gaps, CD."""
    tests = {}
    for (generator, density), rows in frame.groupby(["generator", "density"]):
        wide = wide_values(rows)
        wide = wide[with_value(wide)]
        r = ranks(wide)
        n, k = r.shape
        statistic, p = scipy.stats.friedmanchisquare(*r.to_numpy().T)
        q = scipy.stats.studentized_range.ppf(0.95, k, np.inf) / np.sqrt(2)
        tests[generator, density] = {
            "statistic": statistic, "p": p, "mean": r.mean(), "blocks": n,
            "gaps": int(wide.isna().any(axis=1).sum()),
            "cd": q * np.sqrt(k * (k + 1) / (6 * n)),
        }  # fmt: skip
    return tests


def check_friedman_opening(sentence, frame):
    tests = friedman(frame)
    different = sum(t["p"] < 0.05 for t in tests.values())
    assert sentence.startswith(
        f"Friedman tests at level 0.05: the learners' mean ranks differ in "
        f"{different} of {len(tests)} groups (generator x density)"
    )
    blocks = sum(t["blocks"] for t in tests.values())
    n_gaps = sum(t["gaps"] for t in tests.values())
    if n_gaps:
        assert (
            f"; {n_gaps} of their {blocks} blocks ({100 * n_gaps / blocks:.0f}%) hold "
            "a fit without a value" in sentence
        )


def check_critical_difference(sentence, frame, rank_in_order):
    match = re.match(
        rf"Under (\w+), density ({NUMBER}), (\w+) \(mean rank ({NUMBER})\) is "
        rf"significantly better than (.*?) \(critical difference ({NUMBER}), "
        rf"Friedman p (?:< )?(\S+?)[;)]",
        sentence,
    )
    generator, density = match[1], float(match[2])
    test = friedman(frame)[generator, density]
    mean = test["mean"].sort_values()
    assert test["p"] < 0.05
    assert (match[3], match[4]) == (mean.index[0], figure(mean.iloc[0]))
    assert match[6] == figure(test["cd"])
    worse = [name for name, m in mean.items() if m - mean.iloc[0] >= test["cd"]]
    named = re.split(r", | and ", match[5])
    assert named == worse
    assert not np.isclose(mean.iloc[1], mean.iloc[0])  # one best, named alone
    rank_in_order.append(test["statistic"])


def check_selection(sentence, frame):
    ok = frame[frame.status == "ok"]
    pairs = P * (P - 1) // 2
    for learner, part in ok.groupby("learner"):
        every = int((part.n_selected_edges == pairs).sum())
        none = int((part.n_selected_edges == 0).sum())
        for count, word in ((every, "every"), (none, "no")):
            said = (
                f"selected {word} pair in {100 * count / len(part):.0f}% of its fits "
            )
            said += f"({count} of {len(part)})"
            assert (said in sentence) is bool(count), (learner, said)


def check_warnings(sentence, frame, tally):
    ok = frame[frame.status == "ok"]
    for learner, part in ok.groupby("learner"):
        warned = int((part.n_warnings > 0).sum())
        if not warned:
            assert f" {learner} in " not in sentence
            continue
        classes = sorted(
            ((name, n) for (who, name), n in tally.items() if who == learner),
            key=lambda item: (-item[1], item[0]),
        )
        text = ", ".join(f"{name} {n}" for name, n in classes)
        share = f"{100 * warned / len(part):.0f}% of its fits ({warned} of {len(part)})"
        assert f"{learner} in {share}: {text}" in sentence


def check_failures(sentence, frame):
    failed = frame[frame.status != "ok"]
    share = 100 * len(failed) / len(frame)
    assert sentence.startswith(
        f"{len(failed)} of {len(frame)} fits did not finish ({share:.1f}%): "
        f"{len(failed)} failed."
    )
    counts = failed.message.value_counts()
    assert (counts == counts.iloc[0]).sum() == 1  # one most frequent message
    assert (
        f"The most frequent message ({counts.iloc[0]} fits; " in sentence
        and f"\u201c{counts.index[0]}\u201d" in sentence
    )


def check_failure_rates(sentence, frame):
    for generator, rows in frame.groupby("generator"):
        failed = rows[rows.status != "ok"]
        text = (
            f"under {generator} {100 * len(failed) / len(rows):.0f}% ({len(failed)} of "
            f"{len(rows)} fits"
        )
        assert text in sentence
        for learner, bad in failed.groupby("learner"):
            fits = int((rows.learner == learner).sum())
            assert f"{learner} {100 * len(bad) / fits:.0f}% ({len(bad)} of {fits})" in (
                sentence
            )


def test_every_finding_of_an_audit_like_study_is_true_of_its_rows(study):
    frame, analysis, tally, sentences = study
    # The study is what the audit's was: a learner that fails often, one that
    # raises two warning classes, the rest finished.
    assert frame.learner.nunique() == 8 and len(frame) == 320
    assert 0.2 < (frame[frame.learner == "flaky"].status != "ok").mean() < 0.6
    assert (frame[frame.learner != "flaky"].status == "ok").all()
    shifts, statistics, unchecked = [], [], []
    for sentence in sentences:
        if re.search(r"(ranks first|share the first place) by F1 over the", sentence):
            check_winner(sentence, frame)
        elif sentence.startswith("By F1"):
            shifts.append(sentence)
        elif sentence.startswith("Kendall's tau"):
            check_agreement(sentence, frame)
        elif sentence.startswith("Friedman tests"):
            check_friedman_opening(sentence, frame)
        elif sentence.startswith("Under") and "significantly better" in sentence:
            check_critical_difference(sentence, frame, statistics)
        elif sentence.startswith("Edge decisions"):
            check_selection(sentence, frame)
        elif sentence.startswith("Finished fits that raised a warning"):
            check_warnings(sentence, frame, tally)
        elif "fits did not finish" in sentence:
            check_failures(sentence, frame)
        elif sentence.startswith("Failure rates by generator"):
            check_failure_rates(sentence, frame)
        else:
            unchecked.append(sentence)
    assert not unchecked
    assert shifts
    check_shift_verdicts(shifts, frame, analysis)
    # The critical-difference sentences: the strongest Friedman statistics first.
    assert statistics == sorted(statistics, reverse=True)
    strongest = sorted(
        (t["statistic"] for t in friedman(frame).values() if t["p"] < 0.05),
        reverse=True,
    )
    assert statistics == pytest.approx(strongest[: len(statistics)])
    # The warner raised both classes in every fit; its first warning alone would
    # have hidden the ConvergenceWarning.
    assert tally["warner", "ConvergenceWarning"] == tally["warner", "UserWarning"] == 40


# --------------------------------------------------------------------------------------
# Issue 42: the sentences that confused a newcomer, on the quick preset's own rows
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quick():
    """The whole quick preset (about a minute on 2 cores): only the whole grid
    shows every case at once -- a tau over the whole grid below every group's, a
    place lost while the mean rank improves, two learners at the best mean rank,
    a learner that selected no pair in some groups only."""
    from skggm_bench.benchmark.config import get_preset

    with contextlib.redirect_stderr(io.StringIO()):
        frame = get_preset("quick").make_benchmark(n_jobs=2).run().frame
    return frame, analyse(frame, "f1", n_bootstrap=1000)


@pytest.mark.slow
def test_the_quick_presets_sentences_say_what_they_mean(quick):
    from skggm_bench.benchmark.present._tables import (
        critical_difference_table,
        rank_shift_table,
    )
    from skggm_bench.benchmark.present._text import text_report

    frame, analysis = quick
    sentences = findings(analysis)
    text = text_report(analysis)
    [comparison] = analysis.comparisons
    # Kendall's tau: the groups' range is named as such, with the whole grid's
    # tau outside it said to be.
    agreement = comparison.agreement
    groups = agreement[agreement.scope == "group"].set_index("density").tau
    whole = agreement[agreement.scope == "overall"].tau.iloc[0]
    [tau] = [s for s in sentences if s.startswith("Kendall's tau")]
    assert not groups.min() <= whole <= groups.max()  # the case the issue met
    assert "; lowest (" not in tau
    assert f"{figure(groups.min())} (" in tau.split("at the lowest")[0][-40:]
    assert f"at the lowest (density {groups.idxmin():g})" in tau
    assert f"at the highest (density {groups.idxmax():g})" in tau
    assert "a range that excludes the whole grid's tau" in tau
    # The edges marks count each group's own fits, recomputed from the rows.
    pairs = 30 * 29 // 2
    ok = frame[frame.status == "ok"]
    differences = critical_difference_table(analysis.cd, analysis.cd_selection)
    for row in differences.rows:
        generator, density = row[0], float(row[1])
        group = ok[(ok.generator == generator) & (ok.density == density)]
        for name, mark in re.findall(r"(\w+) \[(.*?)\]", " ".join(row[2:])):
            fits = group[group.learner == name]
            none = int((fits.n_selected_edges == 0).sum())
            assert mark == f"no pair {none}/{len(fits)}"
        for name, fits in group.groupby("learner"):
            if not (
                (fits.n_selected_edges == 0) | (fits.n_selected_edges == pairs)
            ).any():
                assert f"{name} [" not in " ".join(row[2:])
    shift = rank_shift_table(
        comparison.shift, comparison.selection, shift_verdicts(comparison)
    )
    edges = shift.columns.index("edges")
    for row in shift.rows:
        fits = ok[(ok.density == float(row[0])) & (ok.learner == row[1])]
        none = int((fits.n_selected_edges == 0).sum())
        assert row[edges] == (f"no pair {none}/{len(fits)}" if none else "")
    assert "[no pair" in text and "no pair" in " ".join(map(" ".join, shift.rows))
    # A place lost while the mean rank improves is explained under the table.
    moved = comparison.shift
    crossed = moved[
        ((moved.places_gained < 0) & (moved.rank_gain.round(2) >= 0))
        | ((moved.places_gained > 0) & (moved.rank_gain.round(2) <= 0))
    ]
    assert len(crossed)  # shrink, 5th -> 6th at density 0.25, +0.07
    assert any(
        note.startswith("A position counts the learners") for note in shift.notes
    )
    for learner in crossed.learner:
        for sentence in sentences:
            if sentence.startswith("By F1") and f", {learner} " in sentence:
                assert "now ranked" in sentence.split(";")[0]
    # Learners at the same best mean rank are named together, in the finding as
    # in the table.
    tied = 0
    for sentence in sentences:
        match = re.match(
            rf"Under (\w+), density ({NUMBER}), (.*?) \((?:each )?mean rank", sentence
        )
        if not match:
            continue
        part = analysis.cd[
            (analysis.cd.generator == match[1])
            & (analysis.cd.density == float(match[2]))
        ]
        best = part[np.isclose(part.mean_rank, part.mean_rank.min())].learner
        assert sorted(re.split(r", | and ", match[3])) == sorted(best)
        tied += len(best) > 1
    assert tied  # adalasso and lasso at 1.73, under TO at density 0.25
    # No raw density in prose.
    assert not re.search(r"density \d\.\d{4,}", text)


def test_block_counts_sum_each_group_and_match_nan_to_nan():
    from skggm_bench.benchmark.present._findings import _BlockCounts

    blocks = pd.DataFrame(
        {
            "generator": ["DD", "DD", "DD", "TO"],
            "density": [0.1, 0.1, np.nan, 0.1],
            "n_blocks": [4, 6, 5, 7],
            "n_gaps": [1, 0, 2, 3],
            "n_complete": [3, 6, 3, 4],
        }
    )
    counts = _BlockCounts(blocks, ["generator", "density"])
    assert counts[["DD", 0.1]] == (10, 1, 9)
    assert counts[["DD", float("nan")]] == (5, 2, 3)  # a default density
    assert counts[["TO", 0.1]] == (7, 3, 4)
    assert counts[["TO", float("nan")]] == (0, 0, 0)  # absent: nothing
    assert _BlockCounts(blocks, [])[[]] == (22, 6, 16)
    assert _BlockCounts(blocks.iloc[:0], ["generator"])[["DD"]] == (0, 0, 0)
