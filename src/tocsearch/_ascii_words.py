r"""The term digest's words of ASCII text split out without the regular expression engine.

Every text a build reads passes through the digest's word pattern (``\w[\w.+#/-]*\w|\w``,
:mod:`tocsearch.digest`), on which the engine spends a few hundred instructions a character.
Nearly every text is ASCII, where ``\w`` is ``[A-Za-z0-9_]`` and a word is a run of word
characters and the marks ``.+#/-`` with the marks at its ends dropped: a byte translation
blanks every other character, ``str.split`` cuts the runs in C, and ``str.strip`` drops the
marks. :func:`ascii_words` gives exactly the set the pattern finds (property-tested against
it), or None for text that is not ASCII, which the caller leaves to the pattern.

The summarizer's tokens are not split this way: such a split takes fewer instructions than
their pattern but no less time on short texts (a chat turn), where one call of the engine
costs less than the translations and copies.
"""

from __future__ import annotations

import string

__all__ = ["ascii_words"]

_WORD_CHARACTERS = string.ascii_letters + string.digits + "_"
_WORD_MARKS = ".+#/-"
_BLANK = ord(" ")
# Keeps word characters and marks, blanks every other byte.
_WORD_TABLE = bytes(
    byte if chr(byte) in _WORD_MARKS or chr(byte) in _WORD_CHARACTERS else _BLANK
    for byte in range(256)
)


def ascii_words(text: str) -> set[str] | None:
    r"""The set of the digest's words (``\w[\w.+#/-]*\w|\w``) in an ASCII ``text``; None
    for any other text.

    A word of that pattern runs from a word character to the last word character before the
    next character outside ``[\w.+#/-]``: each run of those characters stripped of the marks
    at its ends, whatever marks it holds inside.

    >>> sorted(ascii_words("c++ and a--b, v2.3.1!"))
    ['a--b', 'and', 'c', 'v2.3.1']
    >>> ascii_words("café") is None
    True
    """
    if not text.isascii():
        return None
    runs = set(text.encode("ascii").translate(_WORD_TABLE).decode("ascii").split())
    words = {run.strip(_WORD_MARKS) for run in runs}
    words.discard("")
    return words
