"""Words of ASCII text split out without the regular expression engine.

Two word patterns run over every text a build reads: the summarizer's tokens
(``\\w+(?:['’./\\-]\\w+)*``, :data:`tocsearch.summarize._terms.TOKEN_PATTERN`) and the term
digest's words (``\\w[\\w.+#/-]*\\w|\\w``, :mod:`tocsearch.digest`). The engine spends a few
hundred instructions a character on them. Nearly every text is ASCII, where ``\\w`` is
``[A-Za-z0-9_]`` and both patterns come down to runs of a few characters with marks allowed
only inside: a byte translation blanks every other character, ``str.split`` cuts the runs in
C, and the marks left at a run's edge are dropped. The functions here give exactly what the
patterns find (property-tested against them) or None, when the text is not ASCII or, for
tokens, holds two marks in a row (whose runs the pattern cuts in ways a split does not):
the caller then runs the pattern.
"""

from __future__ import annotations

import string

__all__ = ["ascii_tokens", "ascii_words"]

_WORD_CHARACTERS = string.ascii_letters + string.digits + "_"
_TOKEN_MARKS = "'./-"  # the pattern's inner marks that are ASCII ("’" is not)
_WORD_MARKS = ".+#/-"
_BLANK = ord(" ")
_DOT = ord(".")


def _keeping(kept: str) -> bytes:
    """A byte translation table that keeps ``kept`` and word characters and blanks the rest."""
    return bytes(
        byte if chr(byte) in kept or chr(byte) in _WORD_CHARACTERS else _BLANK
        for byte in range(256)
    )


_TOKEN_TABLE = _keeping(_TOKEN_MARKS)
_WORD_TABLE = _keeping(_WORD_MARKS)
# Every token mark as a dot, so that two marks in a row are found by one search.
_MARKS_AS_DOTS = bytes(_DOT if chr(byte) in _TOKEN_MARKS else byte for byte in range(256))
# A lone mark at a run's edge (never two: those texts are left to the pattern) and its blank.
_EDGES = tuple((edge, "  ") for mark in _TOKEN_MARKS for edge in (mark + " ", " " + mark))


def ascii_tokens(text: str) -> list[str] | None:
    """``TOKEN_PATTERN.findall(text)`` for an ASCII ``text`` without two token marks
    (``'./-``) in a row; None for any other text.

    >>> ascii_tokens("Fixed auth.py - don't retry.")
    ['Fixed', 'auth.py', "don't", 'retry']
    >>> ascii_tokens("wait... what") is None
    True
    """
    if not text.isascii():
        return None
    runs = text.encode("ascii").translate(_TOKEN_TABLE)
    if b".." in runs.translate(_MARKS_AS_DOTS):
        return None
    # Blanked ends make every mark at a run's edge one next to a blank. A mark between two
    # word characters is inside a token, as the pattern has it; any other is in none.
    spaced = " " + runs.decode("ascii") + " "
    for edge, blank in _EDGES:
        if edge in spaced:
            spaced = spaced.replace(edge, blank)
    return spaced.split()


def ascii_words(text: str) -> set[str] | None:
    """The set of the digest's words (``\\w[\\w.+#/-]*\\w|\\w``) in an ASCII ``text``; None
    for any other text.

    A word of that pattern runs from a word character to the last word character before the
    next character outside ``[\\w.+#/-]``: each run of those characters stripped of the marks
    at its ends, whatever marks it holds inside.

    >>> sorted(ascii_words("c++ and a--b, v2.3.1!"))
    ['a--b', 'and', 'c', 'v2.3.1']
    """
    if not text.isascii():
        return None
    runs = set(text.encode("ascii").translate(_WORD_TABLE).decode("ascii").split())
    words = {run.strip(_WORD_MARKS) for run in runs}
    words.discard("")
    return words
