"""The topical search terms of a question: its content words, lightly stemmed.

Questions carry words that say nothing about the topic ("what did we discuss about ...");
left in, they dilute every term-overlap score and match everywhere. Stems let "tokens" find
"token" and "debugging" find "debugged", because node text is matched by substring.
"""

from __future__ import annotations

import re

from tocsearch.text import MIN_TERM_LENGTH

__all__ = ["STOPWORDS", "topic_terms"]

_STOPWORD_TEXT = """
    a about above after again against all also am an and any are around as at be because been
    before being below between both but by can could did do does doing done down during each
    else ever few for from further get got had has have having her here hers him his how i if in
    into is it its itself just know let like me more most much my myself no nor not now of off on
    once only or other our ours out over own please remember recall same say said she should show
    so some such tell than that the their theirs them then there these they thing things this
    those through to too under until up upon us very want was way we were what whatever when
    where which while who whom whose why will with would you your yours anything something
    discuss discussed discussing talk talked talking mention mentioned find happened happen
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""Words dropped from a question before searching, as case-folded forms."""

_WORD = re.compile(r"\w[\w.+#/-]*\w|\w")
# Longest suffix first, each with the shortest stem it may leave ("bugs" -> "bug", but "using"
# stays). A stem is a prefix of the word, so stripping only ever widens a substring match.
_SUFFIXES = (("ing", 4), ("ies", 4), ("es", 4), ("ed", 4), ("s", 3))


def _stem(word: str) -> str:
    if not word.isalpha():
        return word  # numbers, versions, "node.js": no English suffix to strip
    for suffix, shortest in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= shortest:
            stem = word[: -len(suffix)]
            if suffix == "s" and stem.endswith("s"):
                return word  # "class", "process": no plural to strip
            return stem
    return word


def topic_terms(topic: str) -> tuple[str, ...]:
    """The search terms of a topic: case-folded content words of at least three characters,
    stemmed, each kept once in first-seen order.

    >>> topic_terms("What did we discuss about JWT tokens?")
    ('jwt', 'token')
    """
    seen: dict[str, None] = {}
    for match in _WORD.finditer(topic.casefold()):
        word = match[0].strip(".-/")
        if len(word) < MIN_TERM_LENGTH or word in STOPWORDS:
            continue
        seen.setdefault(_stem(word), None)
    return tuple(seen)
