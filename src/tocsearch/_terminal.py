"""Text made safe to print on a terminal: the characters that would steer it shown instead.

Event text is whatever a transcript held, and a transcript can hold terminal escape sequences
(``ESC [ 2 J`` clears the screen, OSC 8 writes hyperlinks, OSC 52 the clipboard), carriage
returns and backspaces that overwrite what was printed, and bidirectional overrides that
reorder it. Printed as they are, they let a stored text rewrite the user's screen. Here every
such character is written the way Python's ``repr`` writes it (``\\x1b``, ``\\r``, ``\\x08``,
``\\u202e``), visible and inert; newlines and tabs, which only lay text out, are kept, and a
Windows line end (``\\r\\n``) is a newline.

A backslash of the text itself would then read like the start of an escape. So when a text has
a character shown as an escape, or a backslash followed by ``x``, ``u``, ``r`` or another
backslash (which a reader would take for one), every backslash of it is doubled, as ``repr``
doubles it; any other text (a Windows path, a regular expression) is printed as it is. So a
printed text reads back as exactly one text (up to its Windows line ends): one that holds
``\\x``, ``\\u``, ``\\r`` or ``\\\\`` is written with escapes, each ``\\\\`` standing for
one backslash; any other is the text as it is.

>>> print(visible("red \\x1b[31malert\\x1b[0m"))
red \\x1b[31malert\\x1b[0m
>>> visible("line one\\r\\nline two\\tend") == "line one\\nline two\\tend"
True
>>> print(visible("file\\u202egnp.exe"))
file\\u202egnp.exe
>>> print(visible("C:\\\\Users\\\\Ann"))
C:\\Users\\Ann
>>> print(visible("the text \\\\x1b, then ESC \\x1b"))
the text \\\\x1b, then ESC \\x1b

JSON is exact already (``json.dumps`` escapes C0 controls); :func:`terminal_json` also writes
the C1 controls, bidirectional controls and unpaired surrogates it would leave raw as
``\\uXXXX`` escapes, which a JSON reader turns back into the very same characters.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["terminal_json", "visible"]

# What json.dumps leaves raw: DEL and the C1 controls; the bidirectional controls (marks,
# embeddings, overrides, isolates); unpaired surrogates, which a UTF-8 terminal cannot be sent.
_PAST_C0 = "\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
# Those and the C0 controls but tab and newline: the characters shown as escapes (a carriage
# return only on its own; before a newline it ends a Windows line).
_SHOWN_AS_ESCAPES = re.compile(f"\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f{_PAST_C0}]")
# A backslash that reads as the start of an escape (or of a doubled backslash).
_ESCAPE_LIKE = re.compile(r"\\[\\xur]")
# What visible() rewrites in a text it writes with escapes: the backslash included.
_ESCAPED = re.compile(f"\r\n|[\\\\\x00-\x08\x0b-\x1f{_PAST_C0}]")
_JSON_UNSAFE = re.compile(f"[{_PAST_C0}]")
_NAMED = {"\r\n": "\n", "\r": "\\r", "\\": "\\\\"}


def _shown(match: re.Match[str]) -> str:
    char = match[0]
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every character that steers a terminal written as its Python escape, and
    its backslashes doubled when it then holds an escape or what would read as one; a Windows
    line end is a newline.

    Runtime complexity: at most three regex scans; text with nothing to show is returned as
    it is.
    """
    if _SHOWN_AS_ESCAPES.search(text) is None and _ESCAPE_LIKE.search(text) is None:
        return text.replace("\r\n", "\n") if "\r" in text else text
    return _ESCAPED.sub(_shown, text)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match[0]):04x}"


def terminal_json(data: Any, *, indent: int | None = None) -> str:
    """``data`` as JSON text (``ensure_ascii=False``) with no character that steers a terminal:
    those ``json.dumps`` leaves raw are escaped, so the document reads back the same.

    >>> text = terminal_json({"text": "a\\x1b[2J\\u202eb\\x9b"})
    >>> text
    '{"text": "a\\\\u001b[2J\\\\u202eb\\\\u009b"}'
    >>> json.loads(text) == {"text": "a\\x1b[2J\\u202eb\\x9b"}
    True
    """
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    # Only inside strings can these characters appear, where a \\u escape means the same.
    return _JSON_UNSAFE.sub(_json_escape, text) if _JSON_UNSAFE.search(text) else text
