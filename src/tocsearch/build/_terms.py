"""Text pieces the summarizer and the grips share: sentences, tokens, term weights, cuts.

Everything here is a pure function of its input, so summaries are deterministic.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from tocsearch.build.stopwords import COMMON_WORDS, STOPWORDS

__all__ = [
    "SENTENCE_BREAK",
    "SENTENCE_INITIAL",
    "TOKEN_PATTERN",
    "clean_sentence",
    "cut_at_word",
    "display_form",
    "is_content",
    "sentence_spans",
    "shape_boost",
    "term_key",
    "tokens",
]

# A token is a run of word characters that may hold inner dots, slashes, dashes or
# apostrophes, so "auth.py", "src/jwt.ts", "v2.3.1", "don't" and "snake_case" stay whole.
TOKEN_PATTERN = re.compile(r"\w+(?:['’./\-]\w+)*")
# A sentence ends at . ! ? … followed by white space, or at a line break.
SENTENCE_BREAK = re.compile(r"(?<=[.!?…])\s+|\s*\n\s*")
# The first word of each sentence, after an optional list marker.
SENTENCE_INITIAL = re.compile(r"(?:^|[.!?…]\s+|\n)[\s\-*•>#]*(\w+)")
_LIST_MARKER = re.compile(r"^(?:[-*•>#]+|\d{1,2}[.)])\s+")
_SPACES = re.compile(r"\s+")
_LOWER_UPPER = re.compile(r"[a-z][A-Z]")

COMMON_WEIGHT = 0.3
"""Weight of an everyday word relative to a distinctive one."""


def tokens(text: str) -> list[str]:
    """The word tokens of a text, in order, with their original casing."""
    return TOKEN_PATTERN.findall(text)


def term_key(token: str) -> str:
    """The case-folded form under which a token is counted (typographic apostrophes unified)."""
    return token.casefold().replace("’", "'")


def is_content(key: str, token: str) -> bool:
    """Whether a token can be a keyword or title word: not a stopword, and either three or more
    characters or a short acronym such as "CI"."""
    if key in STOPWORDS:
        return False
    if len(key) >= 3:
        return True
    return len(token) == 2 and token.isupper()


@functools.lru_cache(maxsize=100_000)
def shape_boost(token: str, sentence_initial: bool) -> float:
    """How much a token's shape says it is specific: file names, paths, identifiers, short
    acronyms, numbers such as status codes, and capitalised names in mid-sentence weigh more;
    everyday words weigh less."""
    key = term_key(token)
    if key in COMMON_WORDS:
        return COMMON_WEIGHT
    if "/" in token or "_" in token or _LOWER_UPPER.search(token):
        return 1.5
    has_digit = any(char.isdigit() for char in token)
    if has_digit:
        return 1.4
    if "." in token:
        return 1.4
    if 2 <= len(token) <= 5 and token.isupper():
        return 1.8
    if token[0].isupper() and not sentence_initial:
        return 1.5
    return 1.0


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """The ``(start, end)`` offsets of the non-blank sentences of a text, in order."""
    start = 0
    for match in SENTENCE_BREAK.finditer(text):
        if match.start() > start:
            yield start, match.start()
        start = match.end()
    if start < len(text) and text[start:].strip():
        yield start, len(text)


def clean_sentence(sentence: str) -> str:
    """A sentence with white space collapsed and a leading list marker or heading mark dropped."""
    collapsed = _SPACES.sub(" ", sentence).strip()
    return _LIST_MARKER.sub("", collapsed, count=1)


def cut_at_word(text: str, limit: int) -> str:
    """``text`` with white space collapsed, cut to at most ``limit`` characters at a word
    boundary; a cut text ends with "…" (counted in the limit)."""
    collapsed = _SPACES.sub(" ", text).strip()
    if len(collapsed) <= limit:
        return collapsed
    if limit <= 1:
        return collapsed[:limit]
    head = collapsed[: limit - 1]
    space = head.rfind(" ")
    # Cut at the last space unless that would throw most of the excerpt away.
    if space >= limit // 2:
        head = head[:space]
    return head.rstrip(" ,;:-") + "…"


def display_form(forms: Iterable[tuple[str, int]]) -> str:
    """The casing to show for a term, from ``(surface form, count)`` pairs: the most frequent,
    ties going to the form with more capitals (acronyms are lower-cased by accident more often
    than the reverse), then to the first in sort order."""
    ranked = sorted(forms, key=lambda item: item[0])  # full ties go to the first in order
    return max(ranked, key=lambda item: (item[1], sum(c.isupper() for c in item[0])))[0]
