"""Query terms, text normalisation, clipping and token estimates."""

from __future__ import annotations

import math
import re
from typing import Protocol

__all__ = [
    "ELLIPSIS",
    "MIN_TERM_LENGTH",
    "REPLACEMENT_CHARACTER",
    "TokenEstimator",
    "ascii_digits",
    "clip",
    "collapse_spaces",
    "collapsed_head",
    "encodable",
    "estimate_tokens",
    "normalize",
    "query_terms",
    "tokens_for_characters",
]

MIN_TERM_LENGTH = 3
"""Terms shorter than this many characters are dropped from queries."""


REPLACEMENT_CHARACTER = "\ufffd"
"""What stands in for a character that UTF-8 cannot encode (see :func:`encodable`)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` as UTF-8 can store it: the one rule for unencodable text.

    A Python string may hold surrogate code points (``json.loads`` of ``"\\ud83d"``, half an
    emoji cut off by a writer that counts UTF-16 units). No UTF-8 file can hold one, so each
    unpaired surrogate becomes U+FFFD, as UTF-8 encoders of JavaScript and the web do; a pair
    that spells one character becomes that character. Every other string is returned as is.
    Runtime complexity: O(1) for ASCII text, O(n) otherwise.

    >>> encodable("half an emoji \\ud83d") == "half an emoji \\ufffd"
    True
    >>> encodable("\\ud83d\\ude00") == "\\U0001f600"
    True
    """
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def normalize(text: str) -> str:
    """Text folded for case-insensitive, Unicode-aware comparison (``str.casefold``)."""
    return text.casefold()


ELLIPSIS = "…"
"""What ends a clipped text: one character, so a clipped text is at most its limit long."""


def ascii_digits(text: str) -> bool:
    """Whether ``text`` is one or more of the digits 0-9, so ``int(text)`` reads it.

    ``str.isdigit`` is no such check: it also accepts superscripts and other digit signs
    that ``int`` refuses.

    >>> ascii_digits("2026"), ascii_digits("\u00b9"), ascii_digits("")
    (True, False, False)
    """
    return text.isascii() and text.isdigit()


def collapse_spaces(text: str) -> str:
    r"""``text`` with each run of white space made one space, and stripped: what
    ``re.sub(r"\s+", " ", text).strip()`` gives (``\s`` and ``str.split`` agree on white
    space), without building the replacement one match at a time."""
    return " ".join(text.split())


def collapsed_head(text: str, limit: int) -> str:
    """:func:`collapse_spaces` of ``text``, exact in its first ``limit + 1`` characters (all
    a cut at ``limit`` reads): a long text is collapsed only as far as needed.

    A collapsed window of the text is a prefix of the collapsed whole, so when the window
    alone passes ``limit`` characters the rest cannot change the cut.
    """
    window = 4 * limit + 64
    if len(text) > window:
        head = collapse_spaces(text[:window])
        if len(head) > limit:
            return head
    return collapse_spaces(text)


def clip(text: str, limit: int) -> str:
    """``text`` on one line (white space collapsed), whole when it fits in ``limit``
    characters, else cut at the last word boundary unless that throws away more than half,
    and ended with :data:`ELLIPSIS` (counted in the limit).

    The one way tocsearch shortens text for show: excerpts, summaries, navigation steps,
    terminal tables and error messages.

    >>> clip("Rotated the   Postgres credentials", 20)
    'Rotated the…'
    >>> clip("Rotated the Postgres credentials", 40)
    'Rotated the Postgres credentials'
    """
    collapsed = collapsed_head(text, limit)
    if len(collapsed) <= limit:
        return collapsed
    if limit <= 1:
        return collapsed[:limit]
    head = collapsed[: limit - 1]
    space = head.rfind(" ")
    if space >= limit // 2:
        head = head[:space]
    return head.rstrip(" ,;:-") + ELLIPSIS


def query_terms(query: str) -> tuple[str, ...]:
    """The search terms of a query: whitespace-separated, case-folded, at least three
    characters long, each kept once in the order first seen.

    >>> query_terms("The JWT jwt to  Refresh")
    ('the', 'jwt', 'refresh')
    """
    seen: dict[str, None] = {}
    for raw in query.split():
        term = raw.casefold()
        if len(term) >= MIN_TERM_LENGTH:
            seen.setdefault(term, None)
    return tuple(seen)


class TokenEstimator(Protocol):
    """Estimates how many model tokens a text costs. Plug in a real tokenizer if you have one."""

    def __call__(self, text: str) -> int: ...


def estimate_tokens(text: str) -> int:
    """A conservative token estimate that needs no tokenizer: one token per three characters.

    English averages about four characters a token with common tokenizers, so this errs on the
    side of spending less than a budget allows, never more.

    >>> estimate_tokens("JWT refresh tokens")
    6
    """
    return tokens_for_characters(len(text))


def tokens_for_characters(count: int) -> int:
    """:func:`estimate_tokens` of any text of ``count`` characters.

    >>> tokens_for_characters(len("JWT refresh tokens"))
    6
    """
    return math.ceil(count / 3)
