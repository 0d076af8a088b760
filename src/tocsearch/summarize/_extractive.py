"""The default summarizer: extractive, deterministic, offline.

Segments: each event is read once. Statements (what the user and the assistant wrote) are what
a summary is made of; tool invocations (``"[tool: Bash] pytest -q"``) and tool output are
evidence: their terms count at a fraction of the weight, they lend their events to the grip of
the statement that follows them, and they become bullets only in a segment that has no
statement at all. Each content term gets a weight from how often it occurs and how specific
its shape is (file names, acronyms, numbers, names in mid-sentence weigh more; everyday words
less). Keywords are the heaviest terms that can name a topic (never a bare number, a tool
name, a unit, a month or an error word), with two-word phrases such as "refresh token" when
the words keep company. Bullets are the highest-scoring sentences, picked greedily so that
each covers terms the earlier ones did not, favouring decisions, findings and causes over
questions and one-word replies. The title joins the best non-overlapping key phrases of the
top sentences into five to ten words.

Parents (day, week, month, year) are summarized from their children by
:mod:`tocsearch.summarize._parents`.

Runtime: linear in the text of a segment; parents are linear in their children's bullets.
"""

from __future__ import annotations

import heapq
import itertools
import math
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

import attrs

from tocsearch._checks import whole_number
from tocsearch.errors import InvalidArgument
from tocsearch.models import Event, EventRole, EventType
from tocsearch.summarize import _parents, _phrasing, _terms
from tocsearch.summarize._summarizer import Summary, SummaryBullet

__all__ = ["ExtractiveSummarizer"]

_ROLE_WEIGHT = {
    EventRole.USER: 1.0,
    EventRole.ASSISTANT: 1.0,
    EventRole.TOOL: 0.4,
    EventRole.SYSTEM: 0.5,
}
_TOOL_CALL_WEIGHT = 0.3  # a command line says what was tried, rarely what was learned
_TOOL_OUTPUT_WEIGHT = 0.4
_EVIDENCE_BEFORE = 2  # tool events just before a statement that its grip also covers
_TF_POWER = 0.7  # a term met n times weighs n**0.7 times one met once
_COVERED = 0.3  # weight left to a term that an earlier bullet already covers
_SAME_TOPIC = 0.6  # Jaccard overlap of terms above which two bullets say the same thing
_TITLE_SOURCES = 6  # how many top sentences are scanned for title phrases
_PHRASE_SOURCES = 10  # how many top sentences are scanned for recurring phrases
_PICK_POOL = 25  # how many top sentences compete for bullets
_DENSE = 10  # how many of the densest events offer their sentences as bullets
_PER_EVENT = 10_000  # sentence order numbers: event position * this + sentence position
_PHRASE_MAX = 3
# Tokens, and the punctuation (or a dash between spaces) that breaks a phrase between them.
_TOKENS_AND_BREAKS = re.compile(r"(\w+(?:['’./\-]\w+)*)|([^\w\s'’./\-]+|\s[-–—]\s)")
if sys.version_info >= (3, 11):  # the same matches; see _terms.TOKEN_PATTERN
    _TOKENS_AND_BREAKS = re.compile(r"(\w++(?:['’./\-]\w++)*+)|([^\w\s'’./\-]++|\s[-–—]\s)")
_SUMMARY_CHARS = 300
_MIN_WORDS = 4  # shorter sentences ("Merged.") are bullets only when nothing else is said
# Sentences that report a decision, a finding, a cause or a fix carry the story of a segment.
# Matched against lower-cased text: that and the first-letter lookahead make the search about
# four times faster than a case-insensitive pattern, with the same matches.
_STATEMENT_CUES = re.compile(
    r"\b(?=[abcdfgimoprst])(?:decid\w*|decision|agreed|because|caus\w*|root|fix\w*|found|"
    r"turns out|resolved|chose|choose|going with|go with|recorded|instead|so we|means|proposal|"
    r"plan)\b"
)
_ASCII_STATEMENT_CUES = _terms.ascii_twin(_STATEMENT_CUES)


def _positive(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    whole_number(f"ExtractiveSummarizer.{attribute.name}", value)


def _folded(values: Iterable[str]) -> frozenset[str]:
    if isinstance(values, str):
        raise InvalidArgument(f"extra_stopwords must be a collection of words, got {values!r}")
    return frozenset(_terms.term_key(value) for value in values)


@attrs.define(eq=False)
class _Sentence:
    """An event (or one sentence of it) with its content terms."""

    order: int
    position: int  # index of the event in the segment
    event_id: str
    text: str
    size: int
    keys: tuple[str, ...]
    role_weight: float
    evidence: bool  # a tool invocation or tool output
    score: float = 0.0
    factor: float = 1.0  # see _statement_factor; set once for the sentences that compete
    gain: float = 0.0  # summed weight of the keys; set by _score with nothing covered
    scale: float = 0.0  # role weight and length factor; set by _score with nothing covered


@attrs.frozen
class _Analysis:
    documents: list[_Sentence]
    weights: dict[str, float]
    forms: dict[str, dict[str, int]]
    tools: frozenset[str]  # case-folded names of the tools invoked in the segment
    said: frozenset[str]  # the terms met in statements (not in tool text)
    # The key cache the analysis filled: later steps must read this same map, since the shared
    # cache may be cleared (when it grows too large) between two calls to key_cache.
    key_of: dict[str, str]


@attrs.frozen
class ExtractiveSummarizer:
    """Titles, bullets and keywords picked from the text itself; see the module docstring.

    Args:
        max_bullets: bullets per segment (3 to this many, fewer only for very little text).
        max_parent_bullets: bullets per day, week, month or year (3 to this many).
        max_keywords: keywords per segment (3 to this many).
        max_parent_keywords: keywords per day, week, month or year: a parent names the threads
            of all its children, so it keeps more.
        bullet_chars: longest bullet text; longer sentences are cut at a clause or word break.
        extra_stopwords: more words never to use as keywords or title words.
    """

    max_bullets: int = attrs.field(default=5, validator=_positive)
    max_parent_bullets: int = attrs.field(default=7, validator=_positive)
    max_keywords: int = attrs.field(default=7, validator=_positive)
    max_parent_keywords: int = attrs.field(default=10, validator=_positive)
    bullet_chars: int = attrs.field(default=200, validator=_positive)
    extra_stopwords: frozenset[str] = attrs.field(default=frozenset(), converter=_folded)

    # -- segments --------------------------------------------------------------------------
    def summarize_events(self, events: Sequence[Event]) -> Summary:
        """A segment summary; each bullet is a sentence of one statement and names that event
        (and the tool events just before it that support it)."""
        if not events:
            raise InvalidArgument("summarize_events needs at least one event")
        analysis = self._analyse(events)
        documents, weights = analysis.documents, analysis.weights
        if not weights:
            return self._plain_summary(events, _sentences(documents, {}))
        statements = [document for document in documents if not document.evidence]
        pool = statements or documents
        total = sum(document.size for document in pool)
        wanted = min(self.max_bullets, 3 if total < 120 else 4 if total < 400 else 5)
        # Only the sentences of the densest events compete: splitting and scoring every
        # sentence of a long segment costs more than it changes the outcome.
        for document in pool:
            document.score = _score(document, weights, {})
        dense = sorted(pool, key=lambda d: (-d.score, d.order))[: max(_DENSE, 2 * wanted)]
        key_of = analysis.key_of
        sentences = _sentences(sorted(dense, key=lambda d: d.order), key_of)
        for sentence in sentences:
            sentence.factor = _statement_factor(sentence)
            sentence.score = _score(sentence, weights, {}) * sentence.factor
        ranked = sorted(sentences, key=lambda s: (-s.score, s.order))
        chosen = self._pick(ranked, weights, wanted)
        bullets = tuple(
            SummaryBullet(
                _terms.cut_at_clause(_terms.clean_sentence(s.text), self.bullet_chars),
                event_ids=_support(events, analysis, s),
            )
            for s in sorted(chosen, key=lambda s: s.order)
        )
        found = [_phrases(s.text, key_of, analysis.tools) for s in ranked[:_PHRASE_SOURCES]]
        # The title's sentences are the first of the phrase sources: their counts are counted
        # once and then carried on over the rest.
        title_counts = _phrase_counts(found[:_TITLE_SOURCES])
        phrases = title_counts.copy()
        phrases.update(itertools.chain.from_iterable(found[_TITLE_SOURCES:]))
        keywords = self._keywords(analysis, phrases)
        title = self._title(title_counts, phrases, analysis)
        return Summary(
            title=title,
            bullets=bullets,
            keywords=keywords,
            text=_segment_text(events, documents, chosen),
        )

    def _analyse(self, events: Sequence[Event]) -> _Analysis:
        """Every event with its content terms, the term weights, and surface forms per term.

        Each event is tokenised once. Counting runs over surface forms with C-level counters;
        forms fold into terms once at the end, since a segment has far fewer distinct forms
        than tokens. In a statement, a form seen in mid-sentence counts twice as much as one
        seen first in a sentence, where capitals say nothing; in tool text capitals never
        count as a name.
        """
        key_of = _phrasing.key_cache(self.extra_stopwords)
        extra = self.extra_stopwords
        # Tokens are gathered per weight class and counted once per class at the end: one
        # C-level count over a long list is cheaper than an update per event.
        by_weight: dict[tuple[float, bool], list[str]] = {}
        statement_texts: list[str] = []
        documents: list[_Sentence] = []
        tools: set[str] = set()
        pending: list[tuple[int, list[str]]] = []  # document index, tokens
        # _terms.tokens, written out: this runs for every event.
        findall = _terms.TOKEN_PATTERN.findall
        ascii_findall = _terms.ASCII_TOKEN_PATTERN.findall
        for position, event in enumerate(events):
            text = event.text
            if not text:
                continue
            evidence = True
            if event.role is EventRole.TOOL or event.event_type is EventType.TOOL_RESULT:
                role_weight = _TOOL_OUTPUT_WEIGHT
            else:
                call = _terms.split_tool_call(text)
                if call is None:
                    evidence = False
                    role_weight = _ROLE_WEIGHT.get(event.role, 1.0)
                else:
                    tools.add(_terms.term_key(call[0]))
                    text = call[1]
                    role_weight = _TOOL_CALL_WEIGHT
            found = (ascii_findall if text.isascii() else findall)(text)
            if not found:
                continue
            bucket = by_weight.get((role_weight, evidence))
            if bucket is None:
                bucket = by_weight[(role_weight, evidence)] = []
            bucket += found
            if not evidence:
                statement_texts.append(text)
            pending.append((len(documents), found))
            documents.append(
                _Sentence(
                    len(documents) * _PER_EVENT,
                    position,
                    event.event_id,
                    text,
                    len(found),
                    (),
                    role_weight,
                    evidence,
                )
            )
        # New surface forms get their term keys once per weight class, not once per event.
        classes = {weight_class: Counter(bucket) for weight_class, bucket in by_weight.items()}
        for tally_of in classes.values():
            for token in [token for token in tally_of if token not in key_of]:
                key_of[token] = _phrasing.content_key(token, extra)
        # Tool text rarely competes for bullets: its keys are made only when the segment has
        # no statement at all.
        has_statement = any(not document.evidence for document in documents)
        for index, found in pending:
            document = documents[index]
            if not (has_statement and document.evidence):
                document.keys = tuple(dict.fromkeys(filter(None, map(key_of.__getitem__, found))))
        # Joined by line breaks, the statements have the sentence starts they have apart.
        initial = Counter(_terms.sentence_initials("\n".join(statement_texts)))
        counts: dict[str, float] = {}
        forms: dict[str, dict[str, int]] = {}
        boosts: dict[str, float] = {}
        tallies: dict[str, int] = {}  # the sum of forms[key].values()
        shape_boost = _terms.shape_boost
        initial_count = initial.get
        for (role_weight, evidence), tally_of in sorted(classes.items()):
            for form, count in tally_of.items():
                key = key_of[form]
                if not key:
                    continue
                if evidence:
                    first = count
                else:
                    first = initial_count(form, 0)
                    if first > count:
                        first = count
                tally = 2 * count - first
                boost = shape_boost(form, first >= count) * tally
                seen = forms.get(key)
                if seen is None:
                    # A term's first form starts all four sums (as 0 + x would, exactly).
                    forms[key] = {form: tally}
                    counts[key] = count * role_weight
                    tallies[key] = tally
                    boosts[key] = boost
                else:
                    seen[form] = seen.get(form, 0) + tally
                    counts[key] += count * role_weight
                    tallies[key] += tally
                    boosts[key] += boost
        weights = {
            # The shape boost of a term is the mean over its occurrences.
            key: boosts[key] / tallies[key] * count**_TF_POWER
            for key, count in counts.items()
        }
        said = {key for document in documents if not document.evidence for key in document.keys}
        return _Analysis(documents, weights, forms, frozenset(tools), frozenset(said), key_of)

    def _pick(
        self, ranked: list[_Sentence], weights: dict[str, float], wanted: int
    ) -> list[_Sentence]:
        """Greedy selection: the best sentence, then the best at covering new terms, skipping
        sentences that repeat a chosen one. Returned in the order picked.

        Lazy evaluation: covering terms only lowers a score, so a sentence whose refreshed
        score still beats every other stale score is the true best (a max-heap of bounds).
        """
        pool = [s for s in ranked[: max(_PICK_POOL, wanted * 4)] if s.keys]
        if sum(1 for s in pool if s.size >= _MIN_WORDS) >= min(wanted, 3):
            pool = [s for s in pool if s.size >= _MIN_WORDS]
        heap = [(-s.score, s.order, s) for s in pool]
        heapq.heapify(heap)
        chosen: list[_Sentence] = []
        covered: dict[str, None] = {}
        seen_texts: set[str] = set()
        fresh: set[int] = set()  # orders whose heap score reflects the current coverage
        while heap and len(chosen) < wanted:
            _, order, best = heapq.heappop(heap)
            if order not in fresh:
                fresh.add(order)
                score = _score(best, weights, covered) * best.factor
                heapq.heappush(heap, (-score, order, best))
                continue
            folded = _terms.clean_sentence(best.text).casefold()
            if folded in seen_texts or any(
                _phrasing.jaccard(best.keys, other.keys) > _SAME_TOPIC for other in chosen
            ):
                continue
            seen_texts.add(folded)
            chosen.append(best)
            covered.update(dict.fromkeys(best.keys))
            fresh.clear()
        return chosen

    def _keywords(
        self, analysis: _Analysis, phrases: dict[tuple[str, ...], int]
    ) -> tuple[str, ...]:
        """The heaviest terms that can name a topic, with two-word phrases for words that stand
        together at least twice in the top sentences ("refresh token"); a phrase stands in for
        its words."""
        weights, forms, tools = analysis.weights, analysis.forms, analysis.tools
        # Terms met only in tool text (paths in a command line, words of a log) are evidence
        # for a statement, not a topic of their own.
        said = analysis.said or weights.keys()

        def eligible(key: str) -> bool:
            return key in said and key not in tools and _terms.is_keyword(key)

        # Only the heaviest eligible terms can be read below: a term is passed over only when
        # a kept phrase holds it, so before ``max_keywords`` phrases are kept at most twice as
        # many terms are read (each kept, or held by a kept pair). The terms are read from the
        # heaviest down until that many are eligible (and any tied at the last), so only those
        # are tested for eligibility and scored; the floor is the same, since the heaviest
        # eligible term is among them. (The order of the scores does not matter: phrases are
        # ranked by score and then by phrase.)
        reach = 2 * self.max_keywords
        scores: dict[tuple[str, ...], float] = {}
        least = -math.inf
        for key in sorted(weights, key=weights.__getitem__, reverse=True):
            weight = weights[key]
            if weight < least:
                break
            if eligible(key):
                scores[(key,)] = weight
                if len(scores) == reach:
                    least = weight
        for phrase, count in phrases.items():
            if count >= 2 and len(phrase) == 2 and eligible(phrase[0]) and eligible(phrase[1]):
                scores[phrase] = max(weights[phrase[0]], weights[phrase[1]]) * 1.2
        if not scores:
            return ()
        floor = max(scores.values()) * 0.25
        kept: list[tuple[str, ...]] = []
        used: set[str] = set()
        for phrase in _phrasing.best_first(scores):
            if len(kept) >= self.max_keywords or (len(kept) >= 3 and scores[phrase] < floor):
                break
            if used.intersection(phrase):
                continue
            kept.append(phrase)
            used.update(phrase)
        return tuple(
            " ".join(_terms.display_form(forms[key].items()) for key in phrase) for phrase in kept
        )

    def _title(
        self,
        counts: dict[tuple[str, ...], int],
        recurring: dict[tuple[str, ...], int],
        analysis: _Analysis,
    ) -> str:
        """Five to ten words: the heaviest key phrases of the top sentences that share no
        term, heavier when they recur among more top sentences; file names, numbers on their
        own and tool names never make a title."""
        weights, forms, tools = analysis.weights, analysis.forms, analysis.tools
        for phrase in counts:
            counts[phrase] = recurring.get(phrase, counts[phrase])
        # A phrase weighs what its words weigh, more when it recurs; a lone everyday word
        # ("delete", "window") names a topic only when nothing better does.
        scores = _title_scores(counts, weights)
        ordered = _phrasing.best_first(scores)
        named = _LazyNames(
            lambda phrase: " ".join(_terms.display_form(forms[key].items()) for key in phrase)
        )
        title = _phrasing.join_title(ordered, named)
        if title:
            return title
        usable = [key for key in weights if _terms.is_keyword(key) and key not in tools]
        best = max(usable or weights, key=lambda k: (weights[k], k))
        return _terms.display_form(forms[best].items())

    def _plain_summary(self, events: Sequence[Event], sentences: list[_Sentence]) -> Summary:
        """A summary for events whose text has no content word (greetings, empty markers)."""
        if sentences:
            longest = sorted(sentences, key=lambda s: (-len(s.text), s.order))[:3]
            bullets = tuple(
                SummaryBullet(
                    _terms.cut_at_clause(_terms.clean_sentence(s.text), self.bullet_chars),
                    event_ids=(s.event_id,),
                )
                for s in sorted(longest, key=lambda s: s.order)
            )
            words = _terms.clean_sentence(longest[0].text).split()[: _phrasing.TITLE_WORDS[1]]
            return Summary(title=" ".join(words), bullets=bullets, text=bullets[0].text)
        kinds = list(dict.fromkeys(event.event_type.value.replace("_", " ") for event in events))
        sessions = list(dict.fromkeys(event.session_id for event in events))
        described = _phrasing.capitalise(_phrasing.join_words(kinds))
        title = described + f" in session {', '.join(sessions[:3])}"
        bullet = SummaryBullet(
            f"{described} without text in session {sessions[0]}",
            event_ids=(events[0].event_id,),
        )
        return Summary(title=title, bullets=(bullet,), text=bullet.text)

    # -- parents ---------------------------------------------------------------------------
    def summarize_children(self, summaries: Sequence[Summary]) -> Summary:
        """A parent summary: the children's main threads as keywords and title, their most
        informative bullets (with their grips; never a tool invocation), and a summary text
        that names every child's topic so a search on the parent finds what any child holds."""
        return _parents.summarize_children(
            summaries,
            max_bullets=self.max_parent_bullets,
            max_keywords=self.max_parent_keywords,
            extra_stopwords=self.extra_stopwords,
        )


def _segment_text(
    events: Sequence[Event], documents: Sequence[_Sentence], chosen: Sequence[_Sentence]
) -> str:
    """The request that opened the segment (in the user's own words, which are the words a
    later question is likely to use), then the best bullets, within ``_SUMMARY_CHARS``."""
    parts: list[str] = []
    for document in documents:
        user = events[document.position].role is EventRole.USER
        if user and not document.evidence and document.size >= _MIN_WORDS:
            parts.append(_terms.cut_at_clause(document.text, _SUMMARY_CHARS // 2))
            break
    for sentence in chosen[:2]:
        cleaned = _terms.clean_sentence(sentence.text)
        if not any(cleaned.rstrip("…") in part or part.rstrip("…") in cleaned for part in parts):
            parts.append(cleaned)
    return _terms.cut_at_clause(" ".join(parts), _SUMMARY_CHARS)


def _score(sentence: _Sentence, weights: dict[str, float], covered: dict[str, None]) -> float:
    """The weight of a sentence's keys (those in ``covered`` count ``_COVERED``), scaled by
    role and length. With nothing covered the parts are kept on the sentence, so rescoring
    against a coverage only sums the covered keys."""
    if not covered:
        gained = sentence.gain = sum(map(weights.__getitem__, sentence.keys))
        factor = sentence.role_weight / math.sqrt(max(sentence.size, 8))
        if sentence.size < _MIN_WORDS:
            factor *= 0.5
        elif sentence.size > 60:
            factor *= 0.75
        sentence.scale = factor
        return gained * factor
    gained = sentence.gain
    repeated = sum([weights[key] for key in sentence.keys if key in covered])
    gained -= (1.0 - _COVERED) * repeated
    return gained * sentence.scale


def _statement_factor(sentence: _Sentence) -> float:
    """More for a decision, finding or cause; less for a question."""
    factor = 1.0
    lowered = sentence.text.lower()
    if (_ASCII_STATEMENT_CUES if lowered.isascii() else _STATEMENT_CUES).search(lowered):
        factor *= 1.25
    if sentence.text.rstrip().endswith("?"):
        factor *= 0.7
    return factor


def _support(events: Sequence[Event], analysis: _Analysis, sentence: _Sentence) -> tuple[str, ...]:
    """The event a bullet quotes, preceded by the tool events of the same session just before
    it (the command and output a finding is read from)."""
    position = sentence.position
    first = position
    session = events[position].session_id
    while (
        first > 0
        and position - first < _EVIDENCE_BEFORE
        and events[first - 1].session_id == session
        and _is_evidence(events[first - 1])
    ):
        first -= 1
    return tuple(event.event_id for event in events[first : position + 1])


def _is_evidence(event: Event) -> bool:
    return (
        event.role is EventRole.TOOL
        or event.event_type is EventType.TOOL_RESULT
        or event.text.startswith("[tool:")
    )


def _sentences(documents: Sequence[_Sentence], key_of: dict[str, str]) -> list[_Sentence]:
    """The sentences of whole-event documents, with the documents' event ids and role weights,
    numbered so that sorting by ``order`` gives time order."""
    found_sentences: list[_Sentence] = []
    tokens = _terms.tokens
    split = _terms.SENTENCE_BREAK.split
    for document in documents:
        parts = split(document.text)
        if len(parts) == 1 and document.keys:
            # One sentence: the document's own tokens and keys are the sentence's.
            found_sentences.append(
                _Sentence(
                    document.order,
                    document.position,
                    document.event_id,
                    document.text,
                    document.size,
                    document.keys,
                    document.role_weight,
                    document.evidence,
                )
            )
            continue
        for index, raw in enumerate(parts):
            found = tokens(raw)
            if not found:
                continue
            keys = tuple(dict.fromkeys(filter(None, map(key_of.get, found))))
            found_sentences.append(
                _Sentence(
                    document.order + index,
                    document.position,
                    document.event_id,
                    raw,
                    len(found),
                    keys,
                    document.role_weight,
                    document.evidence,
                )
            )
    return found_sentences


def _title_scores(
    counts: Mapping[tuple[str, ...], int], weights: Mapping[str, float]
) -> dict[tuple[str, ...], float]:
    """Each phrase's summed word weights times ``1 + log(count)``, halved for a lone everyday
    word. A one-word phrase's sum is its word's weight and a factor of 1.0 changes nothing, so
    each case is written out: the same scores, without the general sum for most phrases."""
    scores: dict[tuple[str, ...], float] = {}
    weight_of = weights.get
    common = _terms.COMMON_WORDS
    for phrase, count in counts.items():
        if len(phrase) == 1:
            key = phrase[0]
            score = weight_of(key, 0.0) * (1.0 + math.log(count))
            scores[phrase] = score * 0.5 if key in common else score
        elif len(phrase) == 2:
            # Added left to right from 0.0, as sum() adds: the same floats.
            first, second = phrase
            scores[phrase] = (weight_of(first, 0.0) + weight_of(second, 0.0)) * (
                1.0 + math.log(count)
            )
        else:
            scores[phrase] = sum([weight_of(key, 0.0) for key in phrase]) * (1.0 + math.log(count))
    return scores


def _phrase_counts(found: Iterable[list[tuple[str, ...]]]) -> Counter[tuple[str, ...]]:
    """How many times each phrase occurs in some sentences' phrase lists (in order of first
    occurrence)."""
    return Counter(itertools.chain.from_iterable(found))


class _LazyNames(Mapping[tuple[str, ...], str]):
    """Phrase display names, made only for the phrases a title looks at."""

    def __init__(self, make: Callable[[tuple[str, ...]], str]) -> None:
        self._make = make
        self._made: dict[tuple[str, ...], str] = {}

    def __getitem__(self, phrase: tuple[str, ...]) -> str:
        name = self._made.get(phrase)
        if name is None:
            name = self._made[phrase] = self._make(phrase)
        return name

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        return iter(self._made)

    def __len__(self) -> int:
        return len(self._made)


_USABLE, _NUMBER, _BREAK = 1, 2, 0
_TITLE_KINDS: dict[str, int] = {}  # token -> how it may stand in a title phrase


def _title_kind(token: str) -> int:
    """Whether a content token can be a title word, only a number after a name, or breaks a
    run (a path, a tool name, a unit or calendar word)."""
    key = _terms.term_key(token)
    if _terms.is_pathlike(token):
        return _BREAK
    if _terms.is_number(key):
        return _NUMBER
    return _USABLE if _terms.is_keyword(key) else _BREAK


def _phrases(text: str, key_of: dict[str, str], tools: frozenset[str]) -> list[tuple[str, ...]]:
    """Runs of one to three adjacent title words of a sentence, as term keys. Punctuation
    other than the inner marks of a token, a dash between spaces, a file name, a tool name or
    a non-content word break a run; a number may only follow a name ("Postgres 16"), and no
    phrase starts with one."""
    found: list[tuple[str, ...]] = []
    kinds = _TITLE_KINDS
    if len(kinds) > 200_000:
        kinds.clear()
    get_key = key_of.get
    get_kind = kinds.get
    run: list[str] = []
    numbers: set[int] = set()  # positions in the run that hold a number
    previous = ""
    # One pass over tokens and breaks: a break comes back as ("", break), a token as (token, "").
    for token, _ in [*_TOKENS_AND_BREAKS.findall(text), ("", "")]:
        key = get_key(token, "")
        if key and key not in tools:
            kind = get_kind(token, -1)
            if kind < 0:
                kind = kinds[token] = _title_kind(token)
            if kind == _USABLE or (kind == _NUMBER and run and previous[:1].isupper()):
                previous = token
                if key not in run:
                    if kind == _NUMBER:
                        numbers.add(len(run))
                    run.append(key)
                    continue
        else:
            kind = _BREAK
        previous = token
        # A run is empty until a usable word starts one, so only a non-empty run ends here.
        if run:
            if len(run) == 1:
                found.append((run[0],))
            else:
                for size in range(1, min(_PHRASE_MAX, len(run)) + 1):
                    for start in range(len(run) - size + 1):
                        if start not in numbers:
                            found.append(tuple(run[start : start + size]))
                numbers = set()
            run = [key] if kind == _USABLE else []
    return found
