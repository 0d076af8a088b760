"""The default summarizer: extractive, deterministic, offline.

Segments: every sentence of every event is tokenised once; each content term (not a stopword)
gets a weight from how often it occurs in the segment and how specific its shape is (file
names, acronyms, numbers, names in mid-sentence weigh more; everyday words less). Keywords are
the heaviest terms; bullets are the highest-scoring sentences, picked greedily so that each new
bullet covers terms the earlier ones did not; the title joins the best non-overlapping key
phrases of the top sentences into five to ten words.

Parents: the children's keywords are merged by rank weight; bullets are the children's bullets
that carry most of that weight, spread over the children, with identical bullets merged (their
grips pooled); the title joins the heaviest phrases of the children's titles.

Runtime: linear in the text of a segment; parents are linear in their children's bullets.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import attrs

from tocsearch.build import _terms
from tocsearch.build.summarizer import Summary, SummaryBullet
from tocsearch.errors import InvalidArgument
from tocsearch.models import Event, EventRole

__all__ = ["ExtractiveSummarizer"]

_ROLE_WEIGHT = {
    EventRole.USER: 1.0,
    EventRole.ASSISTANT: 1.0,
    EventRole.TOOL: 0.5,
    EventRole.SYSTEM: 0.5,
}
_TF_POWER = 0.7  # a term met n times weighs n**0.7 times one met once
_COVERED = 0.3  # weight left to a term that an earlier bullet already covers
_SAME_TOPIC = 0.6  # Jaccard overlap of terms above which two bullets say the same thing
_TITLE_WORDS = (5, 10)
_TITLE_SOURCES = 6  # how many top sentences are scanned for title phrases
_PICK_POOL = 25  # how many top sentences compete for bullets
_DENSE = 10  # how many of the densest events offer their sentences as bullets
_PER_EVENT = 10_000  # sentence order numbers: event position * this + sentence position
_PHRASE_MAX = 3
_PHRASE_BREAK = re.compile(r"[^\w\s'’./\-]+|\s[-–—]\s")
_TITLE_SPLIT = re.compile(r",\s+|;\s+|\s+(?:and|&)\s+")
_SUMMARY_CHARS = 300


def _positive(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InvalidArgument(f"ExtractiveSummarizer.{attribute.name} must be >= 1, got {value!r}")


def _folded(values: Iterable[str]) -> frozenset[str]:
    if isinstance(values, str):
        raise InvalidArgument(f"extra_stopwords must be a collection of words, got {values!r}")
    return frozenset(_terms.term_key(value) for value in values)


@attrs.define(eq=False)
class _Sentence:
    order: int
    event_id: str
    text: str
    size: int
    keys: tuple[str, ...]
    role_weight: float
    score: float = 0.0


@attrs.define(eq=False)
class _Candidate:
    child: int
    index: int
    text: str
    grip_ids: dict[str, None]
    keys: tuple[str, ...]
    size: int
    support: int = 1


@attrs.frozen
class ExtractiveSummarizer:
    """Titles, bullets and keywords picked from the text itself; see the module docstring.

    Args:
        max_bullets: bullets per segment (3 to this many, fewer only for very little text).
        max_parent_bullets: bullets per day, week, month or year (3 to this many).
        max_keywords: keywords per node (3 to this many).
        bullet_chars: longest bullet text; longer sentences are cut at a word boundary.
        extra_stopwords: more words never to use as keywords or title words.
    """

    max_bullets: int = attrs.field(default=5, validator=_positive)
    max_parent_bullets: int = attrs.field(default=7, validator=_positive)
    max_keywords: int = attrs.field(default=7, validator=_positive)
    bullet_chars: int = attrs.field(default=200, validator=_positive)
    extra_stopwords: frozenset[str] = attrs.field(default=frozenset(), converter=_folded)

    # -- segments --------------------------------------------------------------------------
    def summarize_events(self, events: Sequence[Event]) -> Summary:
        """A segment summary; each bullet is a sentence of one event and names that event."""
        if not events:
            raise InvalidArgument("summarize_events needs at least one event")
        documents, weights, forms = self._analyse(events)
        if not weights:
            return self._plain_summary(events, _sentences(documents, {}))
        total = sum(document.size for document in documents)
        wanted = min(self.max_bullets, 3 if total < 120 else 4 if total < 400 else 5)
        # Only the sentences of the densest events compete: splitting and scoring every
        # sentence of a long segment costs more than it changes the outcome.
        for document in documents:
            document.score = self._score(document, weights, {})
        dense = sorted(documents, key=lambda d: (-d.score, d.order))[: max(_DENSE, 2 * wanted)]
        sentences = _sentences(
            sorted(dense, key=lambda d: d.order), _key_cache(self.extra_stopwords)
        )
        for sentence in sentences:
            sentence.score = self._score(sentence, weights, {})
        ranked = sorted(sentences, key=lambda s: (-s.score, s.order))
        chosen = self._pick(ranked, weights, wanted)
        bullets = tuple(
            SummaryBullet(
                _terms.cut_at_word(_terms.clean_sentence(s.text), self.bullet_chars),
                event_ids=(s.event_id,),
            )
            for s in sorted(chosen, key=lambda s: s.order)
        )
        keywords = self._top_terms(weights, forms)
        title = self._title(ranked[:_TITLE_SOURCES], weights, forms)
        text = _terms.cut_at_word(
            " ".join(_terms.clean_sentence(s.text) for s in chosen[:2]), _SUMMARY_CHARS
        )
        return Summary(title=title, bullets=bullets, keywords=keywords, text=text)

    def _analyse(
        self, events: Sequence[Event]
    ) -> tuple[list[_Sentence], dict[str, float], dict[str, dict[str, int]]]:
        """Every event with its content terms, the term weights, and surface forms per term.

        Counting runs over surface forms with C-level counters; forms fold into terms once at
        the end, since a segment has far fewer distinct forms than tokens. A form seen in
        mid-sentence counts twice as much as one seen first in a sentence, where capitals say
        nothing.
        """
        key_of = _key_cache(self.extra_stopwords)
        extra = self.extra_stopwords
        by_weight: dict[float, Counter[str]] = {}
        initial: Counter[str] = Counter()
        documents: list[_Sentence] = []
        findall = _terms.TOKEN_PATTERN.findall
        initials = _terms.SENTENCE_INITIAL.findall
        for event in events:
            text = event.text
            if not text:
                continue
            found = findall(text)
            if not found:
                continue
            role_weight = _ROLE_WEIGHT.get(event.role, 1.0)
            counter = by_weight.get(role_weight)
            if counter is None:
                counter = by_weight[role_weight] = Counter()
            counter.update(found)
            initial.update(initials(text))
            for token in set(found).difference(key_of):
                key_of[token] = _content_key(token, extra)
            keys = tuple(dict.fromkeys(filter(None, map(key_of.__getitem__, found))))
            documents.append(
                _Sentence(
                    len(documents) * _PER_EVENT, event.event_id, text, len(found), keys, role_weight
                )
            )
        counts: dict[str, float] = {}
        forms: dict[str, dict[str, int]] = {}
        boosts: dict[str, float] = {}
        for role_weight, counter in sorted(by_weight.items()):
            for form, count in counter.items():
                key = key_of[form]
                if not key:
                    continue
                counts[key] = counts.get(key, 0.0) + count * role_weight
                seen = forms.setdefault(key, {})
                first = min(initial.get(form, 0), count)
                tally = 2 * count - first
                seen[form] = seen.get(form, 0) + tally
                boost = _terms.shape_boost(form, sentence_initial=first >= count)
                boosts[key] = boosts.get(key, 0.0) + boost * tally
        weights = {
            # The shape boost of a term is the mean over its occurrences.
            key: boosts[key] / sum(forms[key].values()) * count**_TF_POWER
            for key, count in counts.items()
        }
        return documents, weights, forms

    @staticmethod
    def _score(sentence: _Sentence, weights: dict[str, float], covered: dict[str, None]) -> float:
        gained = sum(map(weights.__getitem__, sentence.keys))
        if covered:
            repeated = sum(weights[key] for key in sentence.keys if key in covered)
            gained -= (1.0 - _COVERED) * repeated
        factor = sentence.role_weight / math.sqrt(max(sentence.size, 8))
        if sentence.size < 4:
            factor *= 0.5
        elif sentence.size > 60:
            factor *= 0.75
        return gained * factor

    def _pick(
        self, ranked: list[_Sentence], weights: dict[str, float], wanted: int
    ) -> list[_Sentence]:
        """Greedy selection: the best sentence, then the best at covering new terms, skipping
        sentences that repeat a chosen one. Returned in the order picked.

        Lazy evaluation: covering terms only lowers a score, so a sentence whose refreshed
        score still beats every other stale score is the true best (a max-heap of bounds).
        """
        heap = [(-s.score, s.order, s) for s in ranked[: max(_PICK_POOL, wanted * 4)] if s.keys]
        heapq.heapify(heap)
        chosen: list[_Sentence] = []
        covered: dict[str, None] = {}
        seen_texts: set[str] = set()
        fresh: set[int] = set()  # orders whose heap score reflects the current coverage
        while heap and len(chosen) < wanted:
            _, order, best = heapq.heappop(heap)
            if order not in fresh:
                fresh.add(order)
                heapq.heappush(heap, (-self._score(best, weights, covered), order, best))
                continue
            folded = _terms.clean_sentence(best.text).casefold()
            if folded in seen_texts or any(
                _jaccard(best.keys, other.keys) > _SAME_TOPIC for other in chosen
            ):
                continue
            seen_texts.add(folded)
            chosen.append(best)
            covered.update(dict.fromkeys(best.keys))
            fresh.clear()
        return chosen

    def _top_terms(
        self, weights: dict[str, float], forms: dict[str, dict[str, int]]
    ) -> tuple[str, ...]:
        ranked = sorted(weights, key=lambda key: (-weights[key], key))
        if not ranked:
            return ()
        floor = weights[ranked[0]] * 0.25
        kept = [key for index, key in enumerate(ranked) if index < 3 or weights[key] >= floor]
        return tuple(_terms.display_form(forms[key].items()) for key in kept[: self.max_keywords])

    def _title(
        self,
        sources: Sequence[_Sentence],
        weights: dict[str, float],
        forms: dict[str, dict[str, int]],
    ) -> str:
        """Five to ten words: the heaviest key phrases of the top sentences that share no term."""
        key_of = _key_cache(self.extra_stopwords)
        counts: dict[tuple[str, ...], int] = {}
        for sentence in sources:
            for phrase in _phrases(sentence.text, key_of):
                counts[phrase] = counts.get(phrase, 0) + 1
        # A phrase weighs what its words weigh, more when it recurs.
        scores = {
            phrase: sum(weights[key] for key in phrase) * (1.0 + math.log(count))
            for phrase, count in counts.items()
        }
        ordered = sorted(scores, key=lambda phrase: (-scores[phrase], phrase))
        named = _LazyNames(
            lambda phrase: " ".join(_terms.display_form(forms[key].items()) for key in phrase)
        )
        return _join_title(ordered, named) or _terms.display_form(
            forms[max(weights, key=lambda k: (weights[k], k))].items()
        )

    def _plain_summary(self, events: Sequence[Event], sentences: list[_Sentence]) -> Summary:
        """A summary for events whose text has no content word (greetings, empty markers)."""
        if sentences:
            longest = sorted(sentences, key=lambda s: (-len(s.text), s.order))[:3]
            bullets = tuple(
                SummaryBullet(
                    _terms.cut_at_word(_terms.clean_sentence(s.text), self.bullet_chars),
                    event_ids=(s.event_id,),
                )
                for s in sorted(longest, key=lambda s: s.order)
            )
            words = _terms.clean_sentence(longest[0].text).split()[: _TITLE_WORDS[1]]
            return Summary(title=" ".join(words), bullets=bullets, text=bullets[0].text)
        kinds = list(dict.fromkeys(event.event_type.value.replace("_", " ") for event in events))
        sessions = list(dict.fromkeys(event.session_id for event in events))
        title = _capitalise(_join_words(kinds)) + f" in session {', '.join(sessions[:3])}"
        bullet = SummaryBullet(
            f"{_capitalise(_join_words(kinds))} without text in session {sessions[0]}",
            event_ids=(events[0].event_id,),
        )
        return Summary(title=title, bullets=(bullet,), text=bullet.text)

    # -- parents ---------------------------------------------------------------------------
    def summarize_children(self, summaries: Sequence[Summary]) -> Summary:
        """A parent summary: merged keywords, the children's most representative bullets (with
        their grips), and a title from the heaviest phrases of the children's titles."""
        if not summaries:
            raise InvalidArgument("summarize_children needs at least one child summary")
        if len(summaries) == 1:
            only = summaries[0]
            text = only.text or " ".join(bullet.text for bullet in only.bullets)
            return Summary(
                only.title, only.bullets, only.keywords[: self.max_keywords], _cut_summary(text)
            )
        weights, forms = _merged_keywords(summaries)
        keywords = self._top_terms(weights, forms)
        bullets = self._parent_bullets(summaries, weights)
        title = self._parent_title(summaries, weights, forms)
        text = self._parent_text(summaries, weights)
        return Summary(title=title, bullets=bullets, keywords=keywords, text=text)

    def _parent_bullets(
        self, summaries: Sequence[Summary], weights: dict[str, float]
    ) -> tuple[SummaryBullet, ...]:
        candidates = self._parent_candidates(summaries)
        wanted = min(self.max_parent_bullets, max(3, len(summaries)), len(candidates))
        picks_per_child: dict[int, int] = {}
        covered: dict[str, None] = {}
        chosen: list[_Candidate] = []

        def value(candidate: _Candidate) -> tuple[float, int, int]:
            gained = sum(
                weights.get(key, 0.1) * (_COVERED if key in covered else 1.0)
                for key in candidate.keys
            )
            score = gained / math.sqrt(max(candidate.size, 8))
            score *= (1.0 + 0.5 * (candidate.support - 1)) * 0.5 ** picks_per_child.get(
                candidate.child, 0
            )
            return score, -candidate.child, -candidate.index

        pool = list(candidates)
        while pool and len(chosen) < wanted:
            best = max(pool, key=value)
            pool.remove(best)
            if any(_jaccard(best.keys, other.keys) > _SAME_TOPIC for other in chosen):
                continue
            chosen.append(best)
            covered.update(dict.fromkeys(best.keys))
            picks_per_child[best.child] = picks_per_child.get(best.child, 0) + 1
        chosen.sort(key=lambda candidate: (candidate.child, candidate.index))
        return tuple(
            SummaryBullet(candidate.text, grip_ids=tuple(candidate.grip_ids))
            for candidate in chosen
        )

    def _parent_candidates(self, summaries: Sequence[Summary]) -> list[_Candidate]:
        """Every child bullet once; the same statement in several children merges into one
        candidate that pools their grips and counts its support."""
        merged: dict[str, _Candidate] = {}
        for child, summary in enumerate(summaries):
            for index, bullet in enumerate(summary.bullets):
                folded = " ".join(bullet.text.casefold().split())
                known = merged.get(folded)
                if known is not None:
                    known.grip_ids.update(dict.fromkeys(bullet.grip_ids))
                    known.support += 1
                    continue
                found = _terms.tokens(bullet.text)
                keys = _content_keys(found, self.extra_stopwords)
                merged[folded] = _Candidate(
                    child, index, bullet.text, dict.fromkeys(bullet.grip_ids), keys, len(found)
                )
        return list(merged.values())

    def _parent_title(
        self,
        summaries: Sequence[Summary],
        weights: dict[str, float],
        forms: dict[str, dict[str, int]],
    ) -> str:
        scores: dict[tuple[str, ...], float] = {}
        named: dict[tuple[str, ...], str] = {}
        for summary in summaries:
            for part in _TITLE_SPLIT.split(summary.title):
                found = _terms.tokens(part)
                phrase = _content_keys(found, self.extra_stopwords)
                if not phrase:
                    continue
                total = sum(weights.get(key, 0.1) for key in phrase)
                scores[phrase] = scores.get(phrase, 0.0) + total / (1.0 + 0.35 * (len(phrase) - 1))
                named.setdefault(phrase, " ".join(found))
        ordered = sorted(scores, key=lambda phrase: (-scores[phrase], named[phrase]))
        return _join_title(ordered, named) or summaries[0].title

    def _parent_text(self, summaries: Sequence[Summary], weights: dict[str, float]) -> str:
        """The titles of the heaviest children, in time order."""
        ranked = sorted(
            range(len(summaries)),
            key=lambda child: (
                -sum(weights.get(_terms.term_key(word), 0.0) for word in summaries[child].keywords),
                child,
            ),
        )
        keep = sorted(ranked[:5])
        titles = list(dict.fromkeys(summaries[child].title for child in keep))
        return _cut_summary("; ".join(titles))


def _sentences(documents: Sequence[_Sentence], key_of: dict[str, str]) -> list[_Sentence]:
    """The sentences of whole-event documents, with the documents' event ids and role weights,
    numbered so that sorting by ``order`` gives time order."""
    found_sentences: list[_Sentence] = []
    findall = _terms.TOKEN_PATTERN.findall
    for document in documents:
        for position, raw in enumerate(_terms.SENTENCE_BREAK.split(document.text)):
            found = findall(raw)
            if not found:
                continue
            keys = tuple(dict.fromkeys(filter(None, map(key_of.get, found))))
            found_sentences.append(
                _Sentence(
                    document.order + position,
                    document.event_id,
                    raw,
                    len(found),
                    keys,
                    document.role_weight,
                )
            )
    return found_sentences


def _phrases(text: str, key_of: dict[str, str]) -> list[tuple[str, ...]]:
    """Runs of one to three adjacent content words of a sentence, as term keys. Punctuation
    other than the inner marks of a token, and a dash between spaces, break a run."""
    found: list[tuple[str, ...]] = []
    findall = _terms.TOKEN_PATTERN.findall
    for chunk in _PHRASE_BREAK.split(text):
        run: list[str] = []
        for token in [*findall(chunk), ""]:
            key = key_of.get(token, "")
            if key and key not in run:
                run.append(key)
                continue
            for size in range(1, min(_PHRASE_MAX, len(run)) + 1):
                for start in range(len(run) - size + 1):
                    found.append(tuple(run[start : start + size]))
            run = [key] if key else []
    return found


class _LazyNames:
    """Phrase display names, computed only for the phrases a title looks at."""

    def __init__(self, make: Callable[[tuple[str, ...]], str]) -> None:
        self._make = make
        self._made: dict[tuple[str, ...], str] = {}

    def __getitem__(self, phrase: tuple[str, ...]) -> str:
        name = self._made.get(phrase)
        if name is None:
            name = self._made[phrase] = self._make(phrase)
        return name


_KEY_CACHES: dict[frozenset[str], dict[str, str]] = {}
_KEY_CACHE_LIMIT = 500_000


def _key_cache(extra: frozenset[str]) -> dict[str, str]:
    """A shared map from surface form to term key ("" for a non-content token), per set of
    extra stopwords; it is cleared when it grows past a limit so memory stays bounded."""
    cache = _KEY_CACHES.setdefault(extra, {})
    if len(cache) > _KEY_CACHE_LIMIT:
        cache.clear()
    return cache


def _content_keys(found: Sequence[str], extra: frozenset[str]) -> tuple[str, ...]:
    """The distinct content-term keys of some tokens, in order of first appearance."""
    key_of = _key_cache(extra)
    for token in set(found).difference(key_of):
        key_of[token] = _content_key(token, extra)
    return tuple(dict.fromkeys(filter(None, map(key_of.__getitem__, found))))


def _content_key(token: str, extra: frozenset[str]) -> str:
    key = _terms.term_key(token)
    if key in extra or not _terms.is_content(key, token):
        return ""
    return key


def _join_title(
    ordered: Sequence[tuple[str, ...]], named: _LazyNames | dict[tuple[str, ...], str]
) -> str:
    """Non-overlapping phrases, best first, until the title has five words (at most ten)."""
    low, high = _TITLE_WORDS
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
        if words >= low:
            break
    if not picked:
        return ""
    return _capitalise(_join_words(picked))


def _join_words(parts: Sequence[str]) -> str:
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _capitalise(text: str) -> str:
    first = text.split(" ", 1)[0]
    if first.isalpha() and first.islower():
        return text[0].upper() + text[1:]
    return text


def _jaccard(left: tuple[str, ...], right: tuple[str, ...]) -> float:
    if not left or not right:
        return 0.0
    a, b = set(left), set(right)
    return len(a & b) / len(a | b)


def _merged_keywords(
    summaries: Sequence[Summary],
) -> tuple[dict[str, float], dict[str, dict[str, int]]]:
    """Keyword weights summed over children: a child's first keyword counts 1, later ones less."""
    weights: dict[str, float] = {}
    forms: dict[str, dict[str, int]] = {}
    for summary in summaries:
        for rank, keyword in enumerate(summary.keywords):
            key = _terms.term_key(keyword)
            weights[key] = weights.get(key, 0.0) + 1.0 / (1.0 + 0.4 * rank)
            seen = forms.setdefault(key, {})
            seen[keyword] = seen.get(keyword, 0) + 1
    return weights, forms


def _cut_summary(text: str) -> str:
    return _terms.cut_at_word(text, _SUMMARY_CHARS)
