"""The ``message`` of a row: written by the workers, read by the leaderboard.

Every message is normalised (:func:`normalise_message`) before it enters a row, so
that a study's rows are the same whatever process computed them.

An ``ok`` row's message says what a reader of its values must know, in parts
separated by ``"; "``: first the remarks on the learner's selection
(``"selected every pair"``, ``"selected no pair"``), then, per reason, the metrics
that are undefined for it: ``"kl_divergence, stein_loss undefined: no loss:
covariance_ and precision_ disagree (max |covariance_ @ precision_ - I| = 0.07,
tolerance 0.01)"``, then every class of warning the fit raised with its count
(``"warnings: ConvergenceWarning 3, UserWarning 1"``) and last the first warning
(``"first warning: ConvergenceWarning: ..."``). Rows written before the classes
were recorded name only their first warning: they are read as raising its class
alone. Writing and reading live
together here so that they cannot drift apart; so does the run's summary of the
fits' warnings (:class:`WarningTally`).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping, Sequence

__all__ = [
    "SELECTION_REMARKS",
    "WarningTally",
    "normalise_message",
    "ok_message",
    "selection_remark",
    "short_reason",
    "undefined_reason",
    "warning_classes",
]

#: The remarks on a selection, as :func:`skggm_bench.metrics.selection_remark`
#: words them.
SELECTION_REMARKS = ("selected every pair", "selected no pair")
_SEPARATOR = "; "
_FIRST_WARNING = "first warning: "
_WARNINGS = "warnings: "
_UNDEFINED = re.compile(r"^(?P<names>[a-z0-9_, ]+) undefined: (?P<why>.*)$", re.S)


# What differs between two runs of one fit, and the placeholder it becomes:
# memory addresses (``<... object at 0x7f59...>``), the folders of temporary files
# (``/tmp/tmpk3j_x9/...``, joblib's ``/dev/shm/joblib_memmapping_folder_...``),
# process ids and the numbered names of worker processes and threads.
_TEMPORARY_ROOTS = sorted(
    {
        os.path.realpath(tempfile.gettempdir()),
        tempfile.gettempdir(),
        "/tmp",
        "/var/tmp",
        "/dev/shm",
        "/private/var/folders",
        "/var/folders",
    },
    key=len,
    reverse=True,
)
_VOLATILE = (
    (re.compile(r"\b0x[0-9a-fA-F]{4,}\b"), "0x..."),
    (
        re.compile(
            r"(?<![\w/.~-])(?:"
            + "|".join(re.escape(root.rstrip("/")) for root in _TEMPORARY_ROOTS)
            + r")(?:/[^\s'\"():,;]*|(?![\w.-]))"
        ),
        "<tmp>",
    ),
    # A number after a word naming a process or thread is its id: "pid 42",
    # "subprocess 6424 is still running" (Popen's ResourceWarning), "child 42".
    (
        re.compile(
            r"\b(pid|ppid|pgid|tid|process id|thread id|(?:sub)?process|child|"
            r"worker)([ =:#]*)\d+\b",
            re.IGNORECASE,
        ),
        r"\1\2<pid>",
    ),
    (
        re.compile(
            r"\b((?:Loky|ForkPool|SpawnPool|Pool|Dask)?(?:Process|Worker|Thread)"
            r"(?:PoolExecutor)?)-\d+(?:_\d+)?\b"
        ),
        r"\1-<n>",
    ),
)


def normalise_message(text: str) -> str:
    """``text`` with what differs between two runs of a fit replaced by placeholders.

    Memory addresses become ``0x...``, paths under the temporary folders
    ``<tmp>``, process ids ``<pid>`` and numbered process or thread names
    ``Process-<n>``: a message then depends on the fit alone, not on the process
    that ran it, so a study's rows are identical for any ``n_jobs`` and backend and
    two runs of one study merge.

    Examples
    --------
    >>> normalise_message("<mylib.Model object at 0x7f59a1b2c3d0> failed")
    '<mylib.Model object at 0x...> failed'
    >>> normalise_message("cannot open /tmp/tmpk3j_x9/cache.npy (pid 4242)")
    'cannot open <tmp> (pid <pid>)'
    >>> normalise_message("ResourceWarning: subprocess 6424 is still running")
    'ResourceWarning: subprocess <pid> is still running'
    >>> normalise_message("LokyProcess-3 died; Thread-12 stopped")
    'LokyProcess-<n> died; Thread-<n> stopped'
    """
    for pattern, placeholder in _VOLATILE:
        text = pattern.sub(placeholder, text)
    return text


def ok_message(
    notes: Mapping[str, str],
    remarks: Sequence[str],
    warning: str = "",
    classes: Mapping[str, int] | None = None,
) -> str:
    """The message of an ``ok`` row from its metrics' notes, its remarks, the
    classes of the warnings its fit raised with their counts, and its first
    warning (last: a long message is cut at its end, never in the classes).

    Examples
    --------
    >>> ok_message({"kl_divergence": "no loss: x", "stein_loss": "no loss: x"},
    ...            ["selected every pair"], "UserWarning: y",
    ...            {"UserWarning": 1, "ConvergenceWarning": 3})
    'selected every pair; kl_divergence, stein_loss undefined: no loss: x; \
warnings: ConvergenceWarning 3, UserWarning 1; first warning: UserWarning: y'
    """
    by_reason: dict[str, list[str]] = {}
    for name, why in notes.items():
        # A reason never contains the separator, so that the parts can be read back.
        by_reason.setdefault(why.replace(_SEPARATOR, ", "), []).append(name)
    parts = [*remarks] + [
        f"{', '.join(names)} undefined: {why}" for why, names in by_reason.items()
    ]
    if classes:
        # Most frequent first; equal counts by name, for a stable text.
        ordered = sorted(classes.items(), key=lambda item: (-item[1], item[0]))
        parts.append(_WARNINGS + ", ".join(f"{name} {n}" for name, n in ordered))
    if warning:
        parts.append(f"{_FIRST_WARNING}{warning.replace(_SEPARATOR, ', ')}")
    return _SEPARATOR.join(parts)


def _parts(message: object) -> list[str]:
    return message.split(_SEPARATOR) if isinstance(message, str) and message else []


def undefined_reason(message: object, metric: str) -> str | None:
    """Why ``metric`` is undefined in an ``ok`` row with this message, or None.

    Examples
    --------
    >>> undefined_reason("selected every pair; f1, kl_divergence undefined: why",
    ...                  "kl_divergence")
    'why'
    """
    for part in _parts(message):
        match = _UNDEFINED.match(part)
        if match and metric in match["names"].split(", "):
            return match["why"]
    return None


def warning_classes(message: object) -> list[str]:
    """Every class of warning an ``ok`` row's fit raised, as its message says.

    A message written before the classes were recorded names only its first
    warning: its class is then the only one known.

    Examples
    --------
    >>> warning_classes("warnings: ConvergenceWarning 3, UserWarning 1; "
    ...                 "first warning: UserWarning: y")
    ['ConvergenceWarning', 'UserWarning']
    >>> warning_classes("selected no pair; first warning: ConvergenceWarning: x")
    ['ConvergenceWarning']
    >>> warning_classes("selected no pair")
    []
    """
    parts = _parts(message)
    for part in parts:
        if part.startswith(_WARNINGS):
            counted = part[len(_WARNINGS) :].split(", ")
            return [text.rsplit(" ", 1)[0] for text in counted if text]
    for part in parts:
        if part.startswith(_FIRST_WARNING):
            return [part[len(_FIRST_WARNING) :].split(":", 1)[0].strip()]
    return []


def selection_remark(message: object) -> str | None:
    """``"selected every pair"`` or ``"selected no pair"`` if the message says so.

    Examples
    --------
    >>> selection_remark("selected no pair; roc_auc undefined: why")
    'selected no pair'
    """
    for part in _parts(message):
        if part in SELECTION_REMARKS:
            return part
    return None


def short_reason(reason: str) -> str:
    """A reason without its figures in parentheses, to count alike reasons together.

    Examples
    --------
    >>> short_reason("no loss: covariance_ and precision_ disagree (max ... = 0.07)")
    'no loss: covariance_ and precision_ disagree'
    """
    return reason.split(" (", 1)[0].strip()


class WarningTally:
    """The warnings of a run's fits, per learner and warning class, for its summary.

    The fits' warnings are counted in their rows (``n_warnings``, and per class
    in ``message``), never printed; the run prints these lines at its end.

    Examples
    --------
    >>> tally = WarningTally()
    >>> tally.add({"ConvergenceWarning": 3}, "glasso")
    >>> tally.add({}, "glasso")
    >>> tally.lines()
    ["warnings: learner 'glasso' raised ConvergenceWarning 3 times in 1 of 2 fits \
(counted in the n_warnings column; each row's message names their classes)"]
    """

    def __init__(self) -> None:
        self._fits: dict[str, int] = {}
        self._counts: dict[tuple[str, str], list[int]] = {}

    def add(self, counts: Mapping[str, int], learner: str) -> None:
        """Count one fit of ``learner`` with ``{warning class: count}``."""
        self._fits[learner] = self._fits.get(learner, 0) + 1
        for name, count in counts.items():
            total = self._counts.setdefault((learner, name), [0, 0])
            total[0] += int(count)
            total[1] += 1

    def lines(self) -> list[str]:
        """One line per learner and warning class, sorted."""
        return [
            f"warnings: learner {learner!r} raised {name} {count} "
            f"time{'s' if count != 1 else ''} in {n_fits} of {self._fits[learner]} "
            "fits (counted in the n_warnings column; each row's message names their "
            "classes)"
            for (learner, name), (count, n_fits) in sorted(self._counts.items())
        ]
