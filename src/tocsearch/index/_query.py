"""FTS5 match expressions built from free text, so that no input is an FTS5 syntax error.

Every token of the text becomes a double-quoted FTS5 string (a double quote inside is doubled),
so colons, parentheses, ``AND``/``NOT``/``NEAR``, ``*`` and ``^`` are searched for as text,
never read as query syntax. Tokens are split at white space and at NUL, which separates words
in an indexed text too (SQLite would read a query string only up to it), and an unpaired
surrogate, which SQLite cannot be given, becomes U+FFFD as in every stored text.
"""

from __future__ import annotations

import functools

from tocsearch.navigate._terms import STOPWORDS
from tocsearch.text import encodable

__all__ = ["fts_phrases", "match_all", "match_any", "match_expressions"]

_EDGE_PUNCTUATION = "\"'.,;:!?()[]{}<>`"


def _quoted(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def _tokens(text: str) -> list[str]:
    """The distinct tokens of ``text``, in order: split at white space and NUL."""
    return list(dict.fromkeys(encodable(text).replace("\x00", " ").split()))


def fts_phrases(text: str) -> tuple[str, ...]:
    """Each whitespace-separated token of ``text`` as a quoted FTS5 string, each once.

    >>> print(" ".join(fts_phrases('deploy: a"b AND NOT(x)')))
    "deploy:" "a""b" "AND" "NOT(x)"
    >>> fts_phrases("   ")
    ()
    """
    return tuple(_quoted(token) for token in _tokens(text))


def _content_tokens(text: str) -> list[str]:
    """The tokens of ``text`` that are not question filler (the navigator's stopwords)."""
    kept = []
    for token in _tokens(text):
        word = token.strip(_EDGE_PUNCTUATION).casefold()
        if word and word not in STOPWORDS:
            kept.append(token)
    return kept


def match_all(text: str) -> str | None:
    """An FTS5 expression that matches rows holding every content token of ``text`` (implicit
    AND of quoted strings), or None when ``text`` has no token.

    Filler words ("what", "did", "about") are left out when any other token remains, so a
    question matches the rows that hold its topic.

    >>> print(match_all('what did we decide about JWT (refresh)?'))
    "decide" "JWT" "(refresh)?"
    >>> match_all("what about") == '"what" "about"'
    True
    """
    return match_expressions(text)[0]


def match_any(text: str) -> str | None:
    """An FTS5 expression that matches rows holding any content token of ``text`` (quoted
    strings joined by OR), or None when ``text`` has no token.

    >>> match_any("JWT refresh")
    '"JWT" OR "refresh"'
    """
    return match_expressions(text)[1]


# A question is matched against events and segments, each by every token, then by any: the
# expressions of the last few texts are kept rather than made four times.
@functools.lru_cache(maxsize=32)
def match_expressions(text: str) -> tuple[str | None, str | None]:
    """``(match_all(text), match_any(text))``, made once for the last few texts.

    >>> match_expressions("JWT refresh")
    ('"JWT" "refresh"', '"JWT" OR "refresh"')
    """
    tokens = _content_tokens(text) or _tokens(text)
    if not tokens:
        return None, None
    quoted = [_quoted(token) for token in tokens]
    return " ".join(quoted), " OR ".join(quoted)
