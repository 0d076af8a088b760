"""Text pieces the summarizer and the grips share: sentences, tokens, term weights, cuts.

Everything here is a pure function of its input, so summaries are deterministic.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterable, Iterator

from tocsearch.errors import InvalidArgument
from tocsearch.summarize._stopwords import COMMON_WORDS, NOT_KEYWORDS, STOPWORDS
from tocsearch.text import ELLIPSIS, collapse_spaces, collapsed_head

__all__ = [
    "ASCII_TOKEN_PATTERN",
    "COMMON_WORDS",
    "SENTENCE_BREAK",
    "TOKEN_PATTERN",
    "ascii_twin",
    "clean_sentence",
    "cut_at_clause",
    "display_form",
    "is_content",
    "is_keyword",
    "is_number",
    "is_pathlike",
    "sentence_initials",
    "sentence_spans",
    "shape_boost",
    "split_tool_call",
    "term_key",
    "tokens",
]

# A token is a run of word characters that may hold inner dots, slashes, dashes or
# apostrophes, so "auth.py", "src/jwt.ts", "v2.3.1", "don't" and "snake_case" stay whole.
TOKEN_PATTERN = re.compile(r"\w+(?:['’./\-]\w+)*")
if sys.version_info >= (3, 11):
    # The same tokens: the first way to match is always the one taken, so the possessive
    # forms (Python 3.11+) only spare the regex engine its backtracking records.
    TOKEN_PATTERN = re.compile(r"\w++(?:['’./\-]\w++)*+")


def ascii_twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
    r"""``pattern`` compiled for ASCII text, where it finds the same matches: ``\w``, ``\b``
    and ``\d`` mean the same there either way, but the twin tests them from a table instead
    of the Unicode database (where a character that is not a letter costs four lookups), so a
    chat turn's tokens are found about a quarter faster. Use the twin only for text whose
    ``isascii()`` is true.

    Raises:
        InvalidArgument: ``pattern`` uses ``\s`` or ``\S``, which differ in ASCII text (Unicode's
            white space holds the separators ``\x1c``-``\x1f``, ASCII's does not).
    """
    if "\\s" in pattern.pattern or "\\S" in pattern.pattern:
        raise InvalidArgument(f"{pattern.pattern!r} matches white space, which ASCII mode narrows")
    return re.compile(pattern.pattern, (pattern.flags & ~re.UNICODE) | re.ASCII)


ASCII_TOKEN_PATTERN = ascii_twin(TOKEN_PATTERN)
""":data:`TOKEN_PATTERN` for ASCII text (:func:`ascii_twin`); :func:`tokens` chooses."""
# A sentence ends at . ! ? … followed by white space and a capital, digit, quote or bracket,
# or at a line break. An ellipsis ("SELECT ... FOR UPDATE") or a lower-case continuation
# ("e.g. the pool") does not end it.
# Both branches start at a white-space character; the leading lookahead lets the regex engine
# skip every other position cheaply (the same matches as without it, in about half the time).
SENTENCE_BREAK = re.compile(r"(?=\s)(?:(?<=[.!?…])(?<!\.\.\.)\s+(?=[A-Z0-9\"'“‘(\[`])|\s*\n\s*)")
# The first word of each sentence, after an optional list marker: the words that
# ``(?:^|[.!?…]\s+|\n)[\s\-*•>#]*(\w+)`` finds. The text's start is matched on its own, so
# the rest of the search starts at a character from a small set, which the regex engine
# skips to quickly (about twice as fast, the same words).
_FIRST_INITIAL = re.compile(r"[\s\-*•>#]*(\w+)")
_LATER_INITIAL = re.compile(r"[.!?…\n](?:(?<=\n)|\s)[\s\-*•>#]*(\w+)")
_LIST_MARKER = re.compile(r"^(?:[-*•>#]+|\d{1,2}[.)])\s+")
_LOWER_UPPER = re.compile(r"[a-z][A-Z]")
# A bare number, version or size: "300", "0.8", "3.13", "2,900", "10-0", "1e6".
_NUMBER = re.compile(r"[\d.,:'’\-]*\d[\d.,:'’\-]*(?:e\d+)?")
# A file name with an extension ("tokens.py", "pg16-upgrade.md") or anything with a slash.
_PATHLIKE = re.compile(
    r".*/.*|.+\.(?:py|pyi|ts|tsx|js|jsx|mjs|md|rst|rs|go|java|kt|rb|php|sh|yml|yaml|json|toml"
    r"|cfg|ini|txt|sql|css|scss|html|lock|log|csv|env|conf|c|h|cc|cpp|hpp|swift|tf|proto)",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(r"[,;:]\s|\s[-–—]\s|\s\(")
_TOOL_CALL = re.compile(r"\[tool:\s*([^\]]*)\]\s*")

COMMON_WEIGHT = 0.3
"""Weight of an everyday word relative to a distinctive one."""


def tokens(text: str) -> list[str]:
    """The word tokens of a text, in order, with their original casing."""
    return (ASCII_TOKEN_PATTERN if text.isascii() else TOKEN_PATTERN).findall(text)


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


def is_number(key: str) -> bool:
    """Whether a token is a bare number, version or size such as "300", "0.8" or "2,900"."""
    return _NUMBER.fullmatch(key) is not None


def is_pathlike(token: str) -> bool:
    """Whether a token is a path or a file name ("src/auth.py", "pg16-upgrade.md")."""
    return _PATHLIKE.fullmatch(token) is not None


@functools.lru_cache(maxsize=100_000)
def is_keyword(key: str) -> bool:
    """Whether a content term may be a keyword or a title word: not a bare number and not a
    tool name, unit, month or day name or generic error word (see ``NOT_KEYWORDS``)."""
    return key not in NOT_KEYWORDS and not is_number(key)


def split_tool_call(text: str) -> tuple[str, str] | None:
    """``(tool name, input)`` for the text of a tool invocation such as ``"[tool: Bash] ls"``,
    or None for any other text."""
    if not text.startswith("[tool:"):
        return None
    match = _TOOL_CALL.match(text)
    if match is None:
        return None
    return match.group(1).strip(), text[match.end() :]


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
        return 1.8  # a name: of a product, a service or a person
    return 1.0


def sentence_initials(text: str) -> list[str]:
    """The first word of each sentence of ``text`` (after an optional list marker), in order."""
    first = _FIRST_INITIAL.match(text)
    if first is None:
        return _LATER_INITIAL.findall(text)
    return [first.group(1), *_LATER_INITIAL.findall(text, first.end())]


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """The ``(start, end)`` offsets of the non-blank sentences of a text, in order."""
    start = 0
    for match in SENTENCE_BREAK.finditer(text):
        if match.start() > start:
            yield start, match.start()
        start = match.end()
    if start < len(text) and text[start:].strip():
        yield start, len(text)


@functools.lru_cache(maxsize=4096)  # a bullet is cleaned when picked, cut, and quoted again
def clean_sentence(sentence: str) -> str:
    """A sentence with white space collapsed and a leading list marker or heading mark dropped."""
    collapsed = collapse_spaces(sentence)
    return _LIST_MARKER.sub("", collapsed, count=1)


def cut_at_clause(text: str, limit: int) -> str:
    """``text`` with white space collapsed, at most ``limit`` characters: whole when it fits,
    else cut at the last clause break (comma, semicolon, colon, dash, bracket) in the second
    half of the limit, else at the last space; never inside a word. A cut text ends with
    :data:`~tocsearch.text.ELLIPSIS`, as :func:`~tocsearch.text.clip` ends it: this is clip
    with a bullet's cut rule, which prefers a clause break to a word break."""
    collapsed = collapsed_head(text, limit)
    if len(collapsed) <= limit:
        return collapsed
    head = collapsed[: max(limit - 1, 1)]
    breaks = [match.start() for match in _CLAUSE_BREAK.finditer(head)]
    if breaks and breaks[-1] >= limit // 2:
        return head[: breaks[-1]].rstrip(" ,;:-") + ELLIPSIS
    space = head.rfind(" ")
    if collapsed[len(head) : len(head) + 1] in (" ", ""):
        space = len(head)  # the limit falls on a word end
    if space > 0:
        return head[:space].rstrip(" ,;:-") + ELLIPSIS
    return head + ELLIPSIS


def display_form(forms: Iterable[tuple[str, int]]) -> str:
    """The casing to show for a term, from ``(surface form, count)`` pairs: the most frequent,
    ties going to the form with more capitals (acronyms are lower-cased by accident more often
    than the reverse), then to the first in sort order."""
    ranked = sorted(forms, key=lambda item: item[0])  # full ties go to the first in order
    if len(ranked) == 1:
        return ranked[0][0]
    return max(ranked, key=lambda item: (item[1], sum(c.isupper() for c in item[0])))[0]
