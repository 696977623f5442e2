"""Presentation: the findings sentences, formatted tables (text, Markdown, LaTeX,
CSV), figures and the HTML report of an analysis; nothing here computes a statistic.

The display versions of the leaderboard's tables are public here.
"""

from ._formatting import (
    KeyedFrame,
    format_interval,
    format_leaderboard,
    format_rank_shift,
)

__all__ = ["KeyedFrame", "format_interval", "format_leaderboard", "format_rank_shift"]
