"""Parent summaries (day, week, month, year) from their children's summaries.

* **keywords**: the children's keywords merged by rank (a child's first keyword counts 1,
  later ones less), so the threads that run through several children come first; never a
  bare number, a tool name, a unit, a month or an error word, and a phrase ("refresh token")
  stands in for its words.
* **title**: the two or three heaviest threads, taken from the phrases of the children's
  titles.
* **bullets**: the children's most informative statements, spread over the children, with
  identical statements merged and their grips pooled. A tool invocation is never a parent
  bullet, nor is a reply of a word or two.
* **text**: every child's title in time order, each followed by the child's most distinctive
  keyword (the one fewest of its siblings share) when the title and the parent's keywords do
  not already name one of its top keywords. The navigator searches a parent's text to decide
  where to drill, so what any child is about must be findable one level up.

Runtime: linear in the children's bullets and keywords.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math
import re
from collections.abc import Sequence

import attrs

from tocsearch.errors import InvalidArgument
from tocsearch.summarize import _phrasing, _terms
from tocsearch.summarize._summarizer import Summary, SummaryBullet
from tocsearch.text import clip

__all__ = ["SUMMARY_CHARS", "summarize_children"]

SUMMARY_CHARS = 600
"""Longest parent summary text."""

_COVERED = 0.3  # weight left to a term that an earlier bullet already covers
_SAME_TOPIC = 0.6  # Jaccard overlap of terms above which two bullets say the same thing
_MIN_WORDS = 4
# Child keywords, bullets and titles are analysed once and remembered: a parent is rebuilt
# whenever one child changes (the year on every ingest), while its other children do not.
_CACHED = 50_000
_TITLE_SPLIT = re.compile(r",\s+|;\s+|\s+(?:and|&)\s+")
# Matched against lower-cased text (faster than a case-insensitive pattern, same matches).
_STATEMENT_CUES = re.compile(
    r"\b(?=[abcdfgiprst])(?:decid\w*|decision|agreed|because|caus\w*|root|fix\w*|found|"
    r"resolved|chose|going with|recorded|instead|proposal|plan)\b"
)
_ASCII_STATEMENT_CUES = _terms.ascii_twin(_STATEMENT_CUES)


@attrs.define(eq=False)
class _Candidate:
    child: int
    index: int
    text: str
    grip_ids: dict[str, None]
    keys: tuple[str, ...]
    size: int
    support: int = 1
    factor: float = 1.0  # more for a decision, finding or cause; less for a question


@attrs.frozen
class _Merged:
    weights: dict[str, float]  # keyword key -> summed rank weight
    forms: dict[str, dict[str, int]]  # keyword key -> surface form -> count
    spread: dict[str, int]  # keyword key -> how many children list it
    words: dict[str, float]  # single word -> weight of the keywords it is part of


def summarize_children(
    summaries: Sequence[Summary],
    *,
    max_bullets: int,
    max_keywords: int,
    extra_stopwords: frozenset[str],
) -> Summary:
    """A parent summary from its children's summaries (in time order); see the module
    docstring. Deterministic, and a function of the children only."""
    if not summaries:
        raise InvalidArgument("summarize_children needs at least one child summary")
    merged = _merge_keywords(summaries, extra_stopwords)
    keywords = _top_keywords(merged, max_keywords)
    bullets = _bullets(summaries, merged, max_bullets, extra_stopwords)
    if len(summaries) == 1:
        only = summaries[0]
        text = only.text or " ".join(bullet.text for bullet in only.bullets) or only.title
        return Summary(only.title, bullets, keywords, clip(text, SUMMARY_CHARS))
    title = _title(summaries, merged, extra_stopwords)
    text = _coverage_text(summaries, keywords, merged)
    return Summary(title=title, bullets=bullets, keywords=keywords, text=text)


@functools.lru_cache(maxsize=_CACHED)
def _keyword_key(keyword: str, extra: frozenset[str]) -> str:
    """The key of a child keyword, or "" when it cannot be a parent keyword. A plural folds
    into its singular ("access tokens" and "access token" are one thread)."""
    key = _terms.term_key(keyword)
    words = key.split()
    if words and len(words[-1]) > 3 and words[-1].endswith("s") and words[-1][-2] not in "su":
        words[-1] = words[-1][:-1]
        key = " ".join(words)
    if not words or any(word in extra or not _terms.is_keyword(word) for word in words):
        return ""
    if len(words) == 1 and not _terms.is_content(key, keyword):
        return ""
    return key


def _merge_keywords(summaries: Sequence[Summary], extra: frozenset[str]) -> _Merged:
    weights: dict[str, float] = {}
    forms: dict[str, dict[str, int]] = {}
    spread: dict[str, int] = {}
    for summary in summaries:
        listed: set[str] = set()
        for rank, keyword in enumerate(dict.fromkeys(summary.keywords)):
            key = _keyword_key(keyword, extra)
            if not key or key in listed:
                continue
            listed.add(key)
            weights[key] = weights.get(key, 0.0) + 1.0 / (1.0 + 0.4 * rank)
            seen = forms.setdefault(key, {})
            seen[keyword] = seen.get(keyword, 0) + 1
            spread[key] = spread.get(key, 0) + 1
    # A thread that runs through several children is a thread of the parent.
    for key, count in spread.items():
        weights[key] *= 1.0 + 0.25 * (count - 1)
    words: dict[str, float] = {}
    for key, weight in weights.items():
        for word in key.split():
            words[word] = words.get(word, 0.0) + weight
    return _Merged(weights, forms, spread, words)


def _top_keywords(merged: _Merged, limit: int) -> tuple[str, ...]:
    weights = merged.weights
    # A phrase that recurs outranks its words on their own; ties go to the longer phrase.
    ordered = sorted(weights, key=lambda key: (-weights[key], -len(key.split()), key))
    kept: list[str] = []
    used: set[str] = set()
    for key in ordered:
        if len(kept) >= limit:
            break
        words = key.split()
        if len(words) == 1 and key in used:
            continue  # already named by a phrase
        if len(words) > 1 and used.issuperset(words):
            continue
        kept.append(key)
        used.update(words)
    return tuple(_terms.display_form(merged.forms[key].items()) for key in kept)


def _bullets(
    summaries: Sequence[Summary], merged: _Merged, limit: int, extra: frozenset[str]
) -> tuple[SummaryBullet, ...]:
    candidates = _candidates(summaries, extra)
    wanted = min(limit, max(3, len(summaries)), len(candidates))
    words = merged.words
    picks_per_child: dict[int, int] = {}
    covered: dict[str, None] = {}
    chosen: list[_Candidate] = []

    def value(candidate: _Candidate) -> tuple[float, int, int]:
        if covered:
            gained = sum(
                words.get(key, 0.1) * (_COVERED if key in covered else 1.0)
                for key in candidate.keys
            )
        else:  # the same sum, without the per-key test (most candidates are valued only so)
            gained = sum(map(words.get, candidate.keys, itertools.repeat(0.1)))
        score = gained / math.sqrt(max(candidate.size, 8)) * candidate.factor
        score *= (1.0 + 0.5 * (candidate.support - 1)) * 0.5 ** picks_per_child.get(
            candidate.child, 0
        )
        return score, -candidate.child, -candidate.index

    # Coverage only lowers a value, so the best picks come from the best at the start.
    # Each candidate is valued once here; the pool's heap starts from those same values.
    pool = sorted(
        [(value(candidate), candidate) for candidate in candidates],
        key=lambda valued: valued[0],
        reverse=True,
    )[: max(40, 4 * wanted)]
    # Lazy greedy: a value only falls as picks are made, so a candidate whose refreshed value
    # still tops the heap of older values is the true best (the same pick as a full scan).
    # value() ends in (-child, -index); the heap holds the negated value, smallest first.
    heap = [(-v[0], -v[1], -v[2], candidate) for v, candidate in pool]
    heapq.heapify(heap)
    fresh: set[int] = set()  # ids of candidates whose heap value reflects the current picks
    while heap and len(chosen) < wanted:
        best = heapq.heappop(heap)[3]
        if id(best) not in fresh:
            fresh.add(id(best))
            score, child, index = value(best)
            heapq.heappush(heap, (-score, -child, -index, best))
            continue
        if any(_phrasing.jaccard(best.keys, other.keys) > _SAME_TOPIC for other in chosen):
            continue
        chosen.append(best)
        covered.update(dict.fromkeys(best.keys))
        picks_per_child[best.child] = picks_per_child.get(best.child, 0) + 1
        fresh.clear()
    chosen.sort(key=lambda candidate: (candidate.child, candidate.index))
    return tuple(
        SummaryBullet(candidate.text, grip_ids=tuple(candidate.grip_ids)) for candidate in chosen
    )


def _candidates(summaries: Sequence[Summary], extra: frozenset[str]) -> list[_Candidate]:
    """Every child statement once (never a tool invocation; a reply of a word or two only when
    there is nothing else); the same statement in several children merges into one candidate
    that pools their grips and counts its support."""
    merged: dict[str, _Candidate] = {}
    for child, summary in enumerate(summaries):
        for index, bullet in enumerate(summary.bullets):
            if bullet.text.startswith("[tool:") or not bullet.grip_ids:
                continue
            folded = " ".join(bullet.text.casefold().split())
            known = merged.get(folded)
            if known is not None:
                known.grip_ids.update(dict.fromkeys(bullet.grip_ids))
                known.support += 1
                continue
            keys, size, factor = _bullet_parts(bullet.text, extra)
            merged[folded] = _Candidate(
                child, index, bullet.text, dict.fromkeys(bullet.grip_ids), keys, size, 1, factor
            )
    candidates = list(merged.values())
    substantial = [candidate for candidate in candidates if candidate.size >= _MIN_WORDS]
    return substantial or candidates


@functools.lru_cache(maxsize=_CACHED)
def _bullet_parts(text: str, extra: frozenset[str]) -> tuple[tuple[str, ...], int, float]:
    """A child bullet's content keys, its length in tokens, and its statement factor (more
    for a decision, finding or cause; less for a question)."""
    found = _terms.tokens(text)
    lowered = text.lower()
    cues = _ASCII_STATEMENT_CUES if lowered.isascii() else _STATEMENT_CUES
    factor = 1.25 if cues.search(lowered) else 1.0
    if text.rstrip().endswith("?"):
        factor *= 0.7
    return _phrasing.content_keys(found, extra), len(found), factor


@functools.lru_cache(maxsize=_CACHED)
def _title_phrases(title: str, extra: frozenset[str]) -> tuple[tuple[tuple[str, ...], str], ...]:
    """The threads a child title names: ``(content keys, display text)`` per part of the title
    ("A, B and C"), leaving out parts with a file name or without a possible keyword."""
    parts: list[tuple[tuple[str, ...], str]] = []
    for part in _TITLE_SPLIT.split(title):
        found = _terms.tokens(part)
        if not found or any(_terms.is_pathlike(token) for token in found):
            continue
        phrase = _phrasing.content_keys(found, extra)
        if not phrase or not any(_terms.is_keyword(key) for key in phrase):
            continue
        parts.append((phrase, " ".join(part.split())))
    return tuple(parts)


def _title(summaries: Sequence[Summary], merged: _Merged, extra: frozenset[str]) -> str:
    """The two or three heaviest threads among the phrases of the children's titles."""
    words = merged.words
    scores: dict[tuple[str, ...], float] = {}
    named: dict[tuple[str, ...], str] = {}
    for summary in summaries:
        for phrase, name in _title_phrases(summary.title, extra):
            total = sum(words.get(key, 0.1) for key in phrase)
            scores[phrase] = scores.get(phrase, 0.0) + total / (1.0 + 0.35 * (len(phrase) - 1))
            named.setdefault(phrase, name)
    ordered = sorted(scores, key=lambda phrase: (-scores[phrase], named[phrase]))
    return _phrasing.join_title(ordered, named, min_phrases=2) or summaries[0].title


def _coverage_text(summaries: Sequence[Summary], keywords: Sequence[str], merged: _Merged) -> str:
    """Each child's title, then, while ``SUMMARY_CHARS`` allows, the child keywords that neither
    the text so far nor the parent's keywords name: first each child's most distinctive top
    keyword (the one fewest siblings share), then the rest in rank order, one per child in
    turn. When even the titles do not fit, the first phrase of each title is used."""
    named = " ".join(keywords).casefold()
    titles = [summary.title.rstrip(" .") for summary in summaries]
    if len("; ".join(titles)) + 1 > SUMMARY_CHARS:
        titles = [_TITLE_SPLIT.split(title, maxsplit=1)[0] for title in titles]
    queues: list[list[str]] = []
    for summary in summaries:
        top = _by_distinctiveness([k for k in summary.keywords[:3] if k.strip()], merged)
        queues.append(list(dict.fromkeys([*top[:1], *summary.keywords])))
    added: list[list[str]] = [[] for _ in summaries]
    length = len("; ".join(titles)) + 1
    seen = named + " " + " ".join(titles).casefold()
    progress = True
    while progress:
        progress = False
        for child, queue in enumerate(queues):
            while queue:
                keyword = queue.pop(0)
                folded = keyword.casefold()
                if folded in seen:
                    continue
                cost = len(keyword) + (3 if not added[child] else 2)  # " (" ... ")" or ", "
                if length + cost <= SUMMARY_CHARS:
                    added[child].append(keyword)
                    seen += " " + folded
                    length += cost
                    progress = True
                break
    pieces = [
        f"{title} ({', '.join(extra)})" if extra else title
        for title, extra in zip(titles, added, strict=True)
    ]
    return clip("; ".join(dict.fromkeys(pieces)) + ".", SUMMARY_CHARS)


def _by_distinctiveness(top: Sequence[str], merged: _Merged) -> list[str]:
    """``top`` with the keywords fewest siblings share first (stable on ties)."""
    spread = merged.spread
    return sorted(top, key=lambda keyword: spread.get(_terms.term_key(keyword), 0))
