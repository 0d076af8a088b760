"""FTS5 match expressions built from free text, so that no input is an FTS5 syntax error.

Every token of the text becomes a double-quoted FTS5 string (a double quote inside is doubled),
so colons, parentheses, ``AND``/``NOT``/``NEAR``, ``*`` and ``^`` are searched for as text,
never read as query syntax.
"""

from __future__ import annotations

from tocsearch.navigate._terms import STOPWORDS

__all__ = ["fts_phrases", "match_all", "match_any"]

_EDGE_PUNCTUATION = "\"'.,;:!?()[]{}<>`"


def _quoted(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def fts_phrases(text: str) -> tuple[str, ...]:
    """Each whitespace-separated token of ``text`` as a quoted FTS5 string, each once.

    >>> print(" ".join(fts_phrases('deploy: a"b AND NOT(x)')))
    "deploy:" "a""b" "AND" "NOT(x)"
    >>> fts_phrases("   ")
    ()
    """
    return tuple(_quoted(token) for token in dict.fromkeys(text.split()))


def _content_tokens(text: str) -> list[str]:
    """The tokens of ``text`` that are not question filler (the navigator's stopwords)."""
    kept = []
    for token in dict.fromkeys(text.split()):
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
    tokens = _content_tokens(text) or list(dict.fromkeys(text.split()))
    if not tokens:
        return None
    return " ".join(_quoted(token) for token in tokens)


def match_any(text: str) -> str | None:
    """An FTS5 expression that matches rows holding any content token of ``text`` (quoted
    strings joined by OR), or None when ``text`` has no token.

    >>> match_any("JWT refresh")
    '"JWT" OR "refresh"'
    """
    tokens = _content_tokens(text) or list(dict.fromkeys(text.split()))
    if not tokens:
        return None
    return " OR ".join(_quoted(token) for token in tokens)
