"""The ``message`` of an ``ok`` row: written by the workers, read by the leaderboard.

An ``ok`` row's message says what a reader of its values must know, in parts
separated by ``"; "``: first the remarks on the learner's selection
(``"selected every pair"``, ``"selected no pair"``), then, per reason, the metrics
that are undefined for it: ``"kl_divergence, stein_loss undefined: no loss:
covariance_ and precision_ disagree (max |covariance_ @ precision_ - I| = 0.07,
tolerance 0.01)"``. Writing and reading live together here so that they cannot
drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = [
    "SELECTION_REMARKS",
    "ok_message",
    "selection_remark",
    "short_reason",
    "undefined_reason",
]

#: The remarks on a selection, as :func:`skggm_bench.metrics.selection_remark`
#: words them.
SELECTION_REMARKS = ("selected every pair", "selected no pair")
_SEPARATOR = "; "
_UNDEFINED = re.compile(r"^(?P<names>[a-z0-9_, ]+) undefined: (?P<why>.*)$", re.S)


def ok_message(notes: Mapping[str, str], remarks: Sequence[str]) -> str:
    """The message of an ``ok`` row from its metrics' notes and its remarks.

    Examples
    --------
    >>> ok_message({"kl_divergence": "no loss: x", "stein_loss": "no loss: x"},
    ...            ["selected every pair"])
    'selected every pair; kl_divergence, stein_loss undefined: no loss: x'
    """
    by_reason: dict[str, list[str]] = {}
    for name, why in notes.items():
        # A reason never contains the separator, so that the parts can be read back.
        by_reason.setdefault(why.replace(_SEPARATOR, ", "), []).append(name)
    parts = [*remarks] + [
        f"{', '.join(names)} undefined: {why}" for why, names in by_reason.items()
    ]
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
