"""Pieces the segment and parent summaries share: term keys per token, titles from phrases.

Everything here is a pure function of its input (the key cache only memoises one), so
summaries stay deterministic.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Mapping, Sequence

from tocsearch.summarize import _terms

__all__ = [
    "best_first",
    "capitalise",
    "content_key",
    "content_keys",
    "jaccard",
    "join_title",
    "join_words",
    "key_cache",
]

TITLE_WORDS = (5, 10)
"""A title has this many words, fewer only when the text offers fewer."""

_KEY_CACHES: dict[frozenset[str], dict[str, str]] = {}
_KEY_CACHE_LIMIT = 500_000


def key_cache(extra: frozenset[str]) -> dict[str, str]:
    """A shared map from surface form to term key ("" for a non-content token), per set of
    extra stopwords; it is cleared when it grows past a limit so memory stays bounded."""
    cache = _KEY_CACHES.setdefault(extra, {})
    if len(cache) > _KEY_CACHE_LIMIT:
        cache.clear()
    return cache


def content_key(token: str, extra: frozenset[str]) -> str:
    """The term key of a content token, or "" for a stopword, a too-short token or an extra
    stopword."""
    key = _terms.term_key(token)
    if key in extra or not _terms.is_content(key, token):
        return ""
    return key


def content_keys(found: Sequence[str], extra: frozenset[str]) -> tuple[str, ...]:
    """The distinct content-term keys of some tokens, in order of first appearance."""
    key_of = key_cache(extra)
    for token in set(found).difference(key_of):
        key_of[token] = content_key(token, extra)
    return tuple(dict.fromkeys(filter(None, map(key_of.__getitem__, found))))


def best_first(scores: Mapping[tuple[str, ...], float]) -> Iterator[tuple[str, ...]]:
    """The phrases of ``scores`` from the highest score down, ties in phrase order: the order
    of ``sorted(scores, key=lambda p: (-scores[p], p))``, made lazily.

    A title or keyword list reads only the first few of the thousands of phrases a long
    segment offers, so a heap (linear to build, logarithmic per phrase read) replaces the
    full sort.

    >>> list(best_first({("b",): 1.0, ("a",): 1.0, ("c",): 2.0}))
    [('c',), ('a',), ('b',)]
    """
    heap = [(-score, phrase) for phrase, score in scores.items()]
    heapq.heapify(heap)
    pop = heapq.heappop
    while heap:
        yield pop(heap)[1]


def join_title(
    ordered: Iterable[tuple[str, ...]],
    named: Mapping[tuple[str, ...], str],
    *,
    min_phrases: int = 1,
) -> str:
    """Phrases that share no term, best first, until the title has five words and at least
    ``min_phrases`` phrases (at most ten words and three phrases), joined as "A, B and C"."""
    low, high = TITLE_WORDS
    picked: list[str] = []
    used: set[str] = set()
    words = 0
    for phrase in ordered:
        if used.intersection(phrase):
            continue
        size = len(named[phrase].split()) + (1 if len(picked) == 1 else 0)  # the joining "and"
        if words + size > high:
            continue
        picked.append(named[phrase])
        used.update(phrase)
        words += size
        if (words >= low and len(picked) >= min_phrases) or len(picked) == 3:
            break
    if not picked:
        return ""
    return capitalise(join_words(picked))


def join_words(parts: Sequence[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def capitalise(text: str) -> str:
    """``text`` with its first letter upper-cased when its first word is all lower case (so
    "iOS", "pg_upgrade" and "JWT" keep their casing)."""
    first = text.split(" ", 1)[0]
    if first.isalpha() and first.islower():
        return text[0].upper() + text[1:]
    return text


def jaccard(left: Sequence[str], right: Sequence[str]) -> float:
    """The Jaccard overlap of two sets of terms (0 when either is empty)."""
    if not left or not right:
        return 0.0
    a, b = set(left), set(right)
    return len(a & b) / len(a | b)
