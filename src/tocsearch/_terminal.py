"""Text made safe to print on a terminal: the characters that would steer it shown instead.

Event text is whatever a transcript held, and a transcript can hold terminal escape sequences
(``ESC [ 2 J`` clears the screen, OSC 8 writes hyperlinks, OSC 52 the clipboard), carriage
returns and backspaces that overwrite what was printed, and bidirectional overrides that
reorder it. Printed as they are, they let a stored text rewrite the user's screen. Here every
such character is written the way Python's ``repr`` writes it (``\\x1b``, ``\\r``, ``\\x08``,
``\\u202e``), visible and inert; newlines and tabs, which only lay text out, are kept, and a
Windows line end (``\\r\\n``) is a newline.

>>> print(visible("red \\x1b[31malert\\x1b[0m"))
red \\x1b[31malert\\x1b[0m
>>> visible("line one\\r\\nline two\\tend") == "line one\\nline two\\tend"
True
>>> print(visible("file\\u202egnp.exe"))
file\\u202egnp.exe

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
# Those and the C0 controls but tab and newline.
_UNSAFE = re.compile(f"\r\n|[\x00-\x08\x0b-\x1f{_PAST_C0}]")
_JSON_UNSAFE = re.compile(f"[{_PAST_C0}]")
_NAMED = {"\r\n": "\n", "\r": "\\r"}


def _shown(match: re.Match[str]) -> str:
    char = match[0]
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every character that steers a terminal written as its Python escape.

    Runtime complexity: one regex scan; text with nothing to show is returned as it is.
    """
    return _UNSAFE.sub(_shown, text) if _UNSAFE.search(text) else text


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
