"""The topical search terms of a question: its content words, lightly stemmed.

Questions carry words that say nothing about the topic ("what did we discuss about ...");
left in, they dilute every term-overlap score and match everywhere. Stems let "tokens" find
"token" and "debugging" find "debugged", because a term matches at the start of a word and may
carry a few more letters (:mod:`tocsearch.navigate._weights`).
"""

from __future__ import annotations

import functools
import re

from tocsearch.text import MIN_TERM_LENGTH

__all__ = ["MAX_QUERY_TERMS", "STOPWORDS", "is_recap", "searched_terms", "topic_terms"]

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
    kind kinds many might likely recently describe
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""Words dropped from a question before searching, as case-folded forms."""

_WORD = re.compile(r"\w[\w.+#/-]*\w|\w")
# Longest suffix first, each with the shortest stem it may leave ("bugs" -> "bug", but "using"
# stays). A stem is a prefix of the word, so stripping only ever widens a substring match.
_ACRONYM_LENGTH = 2
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
    if word.endswith("e") and len(word) >= 6:
        # "decide" -> "decid" finds "decided", "decision"; "update" finds "updating".
        return word[:-1]
    return word


# A navigation asks for the terms of its topic more than once (the walk, the result's own
# check of them): the last few topics' are kept.
@functools.lru_cache(maxsize=32)
def topic_terms(topic: str) -> tuple[str, ...]:
    """The search terms of a topic: case-folded content words of at least three characters
    (two for an upper-case acronym such as "CI"), stemmed, each kept once in first-seen order.

    >>> topic_terms("What did we discuss about JWT tokens?")
    ('jwt', 'token')
    """
    seen: dict[str, None] = {}
    for match in _WORD.finditer(topic):
        original = match[0].strip(".-/")
        word = original.casefold()
        # Terms match at word starts, so a short acronym ("CI", "DB") is specific enough.
        acronym = len(original) == _ACRONYM_LENGTH and original.isupper() and original.isalpha()
        if (len(word) < MIN_TERM_LENGTH and not acronym) or word in STOPWORDS:
            continue
        seen.setdefault(_stem(word), None)
    return tuple(seen)


MAX_QUERY_TERMS = 32
"""At most this many terms of a question are searched (the first ones); the result says when
more were cut, and the work of a navigation stays linear in the terms kept."""

# Words that ask for a period itself rather than a topic in it ("what did I work on last
# week", "summarize yesterday", "recap of March"), as stems of topic_terms.
_RECAP_STEMS = frozenset(
    _stem(word)
    for word in [
        "work",
        "worked",
        "working",
        "summarize",
        "summarise",
        "summary",
        "summaries",
        "recap",
        "recaps",
        "overview",
        "review",
        "progress",
        "activity",
        "activities",
        "going",
        "done",
        "doing",
        "update",
        "updates",
        "highlights",
        "happen",
        "happening",
        "everything",
        "busy",
        "day",
        "days",
        "week",
        "weeks",
        "month",
        "months",
        "year",
        "years",
        "period",
        "list",
        "give",
        "lately",
    ]
    if len(word) >= MIN_TERM_LENGTH
)


def is_recap(terms: tuple[str, ...]) -> bool:
    """Whether every term only asks for a recap of a period.

    >>> is_recap(topic_terms("what did I work on")), is_recap(topic_terms("summarize"))
    (True, True)
    >>> is_recap(topic_terms("work on the JWT refresh"))
    False
    """
    return bool(terms) and all(term in _RECAP_STEMS for term in terms)


def searched_terms(topic: str) -> tuple[str, ...]:
    """The terms a navigation searches for ``topic``: the first :data:`MAX_QUERY_TERMS` of its
    :func:`topic_terms`, none when they only ask for a recap of a period.

    >>> searched_terms("JWT refresh tokens"), searched_terms("what did I work on")
    (('jwt', 'refresh', 'token'), ())
    """
    terms = topic_terms(topic)[:MAX_QUERY_TERMS]
    return () if is_recap(terms) else terms
