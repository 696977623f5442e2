"""Names are data: text shown on a terminal carries no control characters.

Learner, generator and data-model names come from users' configurations and from
stores anyone can edit. Printed raw, an escape sequence in a name clears the
screen, sets the window title or hides lines; :func:`printable` shows each
control character as its Python escape (``\\x1b``) instead.
"""

from __future__ import annotations

import io
from typing import Any, TextIO

__all__ = ["PrintableStream", "printable"]

# C0 and C1 controls, DEL, and the Unicode controls that reorder or hide text
# (bidirectional overrides and isolates, zero-width joiners are harmless).
_KEPT = {"\n", "\t"}
_CONTROLS = {
    code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    for code in (
        *range(0x00, 0x20),
        *range(0x7F, 0xA0),
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    )
    if chr(code) not in _KEPT
}


def printable(text: Any, keep: str = "") -> str:
    """``text`` with every control character but newline and tab escaped.

    Parameters
    ----------
    text : object
        What to show (``str(text)``).
    keep : str, default=""
        Further control characters to keep (``"\\r"`` for a progress bar).

    Returns
    -------
    str

    Examples
    --------
    >>> printable("lw\\x1b[2J")
    'lw\\\\x1b[2J'
    >>> printable("a\\tb\\nc")
    'a\\tb\\nc'
    """
    table = (
        _CONTROLS
        if not keep
        else {
            code: escape for code, escape in _CONTROLS.items() if chr(code) not in keep
        }
    )
    return str(text).translate(table)


class PrintableStream(io.TextIOBase):
    """A text stream that writes :func:`printable` text to another one.

    The command line wraps its standard output and error in it: whatever a name
    holds, the terminal gets no control character (``keep`` ones aside).
    """

    def __init__(self, stream: TextIO, keep: str = "") -> None:
        self._stream = stream
        self._keep = keep

    def write(self, text: str) -> int:
        self._stream.write(printable(text, self._keep))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def fileno(self) -> int:
        return self._stream.fileno()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream, "encoding", "utf-8")
