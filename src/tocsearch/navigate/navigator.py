"""The Navigator: answers a question by walking the time table of contents, within limits.

A query is split into time hints and a topic (:mod:`tocsearch.navigate.timehints`). The walk
then runs in phases, each only when the ones before found too little:

0. **Teleport** (with a seeder only): verify the segments an index names first.
1. **Walk** from the tightest nodes that cover the hinted period (or from the years), drilling
   into the best-matching child, collecting matching segments, backtracking to the next best.
2. **Scan** the segments of the period directly, guided by their term digests: summaries above
   the segments keep only a few bullets, so a term can be missing from every level above the
   segment that holds it.
3. **Adjacent periods**: the same for the periods just before and after the hinted one.
4. **Broaden**: drop the time restriction and search the whole history the same way.
5. **Grep** the raw events of the segments found, then of those whose digests may hold the
   terms, and rank them; with a seeder that ranks events too (an
   :class:`~tocsearch.navigate.seeder.EventSeeder`), blend its ranking in
   (:mod:`tocsearch.navigate._blend`).

A query with a time hint and no topic ("what did we do yesterday?", "recap of last week")
lists the segments of that period instead. The walk is bounded by its own limits (searches,
nodes read, events read); the token budget bounds what is returned
(:mod:`tocsearch.navigate._fit`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from typing import cast

from tocsearch._checks import in_utc, whole_number
from tocsearch._clock import zone_name
from tocsearch.errors import InvalidArgument
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode, time_order
from tocsearch.navigate._answer import Offered, candidates
from tocsearch.navigate._blend import blend, nearest_events, seeder_query
from tocsearch.navigate._book import EvidenceBook
from tocsearch.navigate._day_stacks import DayStacks
from tocsearch.navigate._descent import descend
from tocsearch.navigate._digests import DEFAULT_DIGESTS, DigestCache
from tocsearch.navigate._events import EventHit
from tocsearch.navigate._fit import fit
from tocsearch.navigate._folded import DEFAULT_CAPACITY, FoldedTexts
from tocsearch.navigate._grep import grep
from tocsearch.navigate._lens import Lens
from tocsearch.navigate._listing import listing
from tocsearch.navigate._pages import newest_in
from tocsearch.navigate._route import may_hold_all
from tocsearch.navigate._scan import scan
from tocsearch.navigate._skeleton import Skeleton
from tocsearch.navigate._teleport import answers_alone, teleport
from tocsearch.navigate._terms import MAX_QUERY_TERMS, searched_terms, topic_terms
from tocsearch.navigate._trail import Trail, WalkLimits
from tocsearch.navigate._walk import Walk, holds_events
from tocsearch.navigate.result import (
    Evidence,
    EvidenceKind,
    NavigationResult,
    StepPhase,
    node_label,
)
from tocsearch.navigate.seeder import EventSeeder, SegmentSeeder
from tocsearch.navigate.timehints import TimeHints, TimeRange, parse_time_hints
from tocsearch.storage._common import reads_of, revision_of
from tocsearch.storage.protocol import Storage
from tocsearch.text import TokenEstimator, encodable, estimate_tokens

__all__ = ["MAX_QUERY_CHARACTERS", "MAX_QUERY_TERMS", "Navigator"]

_START_LEVELS = (TocLevel.DAY, TocLevel.WEEK, TocLevel.MONTH, TocLevel.YEAR)
MAX_QUERY_CHARACTERS = 4000
"""The longest question a navigator takes: a question, not a document."""


def _not_fitting(returned: int, offered: int) -> str:
    return f"{returned} of {offered} items fit the budget"


class Navigator:
    """Finds the segments and events that answer a question, and explains the path it took.

    Args:
        storage: the store holding the tree.
        now: the moment questions are asked at, timezone-aware (default: the current UTC time
            at each call). Time hints resolve against it, so an evaluation can ask as of a
            past date, and in its zone: "yesterday" is the day before ``now``'s local date.
        max_iterations: at most this many searches per question.
        token_budget: at most this many tokens returned per question (the result as JSON and
            as Markdown), by ``estimator``; the walk itself is bounded by the other limits.
        estimator: counts tokens (default :func:`tocsearch.text.estimate_tokens`).
        threshold: the share of query terms a node must hold to be drilled into, in [0, 1].
        width: how many matches a search reports, and so how many branches it can open.
        max_evidence: at most this many evidence items are offered; as many of them as fit
            the token budget are returned.
        scan_page: how many segments one scanning step reads at most (a scan guided by
            term digests starts with smaller pages and doubles them up to this).
        max_start_nodes: a walk starts at the deepest level where at most this many nodes
            cover the hinted period.
        max_nodes: at most this many nodes are scored per question.
        max_events: at most this many raw events are read in the final step, which greps the
            events of the chosen segments, then of the segments whose digests may hold the
            terms.
        text_cache: how many nodes' case-folded text the navigator keeps between questions
            (least recently used first out; 0 keeps none). It only saves time: answers never
            depend on it.
        digest_cache: how many nodes' decoded term digests the navigator keeps between
            questions (0 keeps none), and how many days' segment maps it keeps stacked by
            year beside them (about as many bytes again as the days' maps). It only saves
            time.
        seeder: an index that names likely segments (:class:`SegmentSeeder`); they are
            verified and grepped first. When it ranks events too (:class:`EventSeeder`),
            that ranking is blended with the grep's. None walks without an index.

    Raises:
        InvalidArgument: a limit is not positive, ``threshold`` is outside [0, 1], or ``now``
            is naive.
    """

    def __init__(
        self,
        storage: Storage,
        *,
        now: datetime | None = None,
        max_iterations: int = 50,
        token_budget: int = 2000,
        estimator: TokenEstimator | None = None,
        threshold: float = 0.3,
        width: int = 5,
        max_evidence: int = 30,
        scan_page: int = 500,
        max_start_nodes: int = 3,
        max_nodes: int = 50_000,
        max_events: int = 2000,
        text_cache: int = DEFAULT_CAPACITY,
        digest_cache: int = DEFAULT_DIGESTS,
        seeder: SegmentSeeder | None = None,
    ) -> None:
        if not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
            raise InvalidArgument(f"threshold must be between 0 and 1, got {threshold!r}")
        if seeder is not None and not isinstance(seeder, SegmentSeeder):
            raise InvalidArgument(
                f"seeder must have a name and a seed() method, got {type(seeder).__name__}"
            )
        self.storage = storage
        # Kept in its own zone: that zone says whose days "yesterday" and "last week" are.
        self.now = now if now is None else in_utc(now, "now").astimezone(now.tzinfo)
        self.token_budget = whole_number("token_budget", token_budget)
        self.estimator: TokenEstimator = estimator if estimator is not None else estimate_tokens
        self.max_start_nodes = whole_number("max_start_nodes", max_start_nodes)
        self.seeder = seeder
        self._checked_seeder: tuple[SegmentSeeder, bool] | None = None
        self.limits = WalkLimits(
            max_iterations=whole_number("max_iterations", max_iterations),
            threshold=float(threshold),
            width=whole_number("width", width),
            max_evidence=whole_number("max_evidence", max_evidence),
            scan_page=whole_number("scan_page", scan_page),
            max_nodes=whole_number("max_nodes", max_nodes),
            max_events=whole_number("max_events", max_events),
        )
        self.max_events = self.limits.max_events
        # The folded text of the nodes read, kept across questions (bounded; see _folded).
        self._folded = FoldedTexts(whole_number("text_cache", text_cache, 0))
        # Decoded term digests of the nodes read, kept across questions (bounded; see _digests).
        self._digests = DigestCache(whole_number("digest_cache", digest_cache, 0))
        # The segment maps of each year's days stacked, as many days as digests are kept.
        self._stacks = DayStacks(self._digests.capacity)
        # The nodes above the segments as the store last held them, as many as digests.
        self._skeleton = Skeleton(self._digests.capacity)

    def navigate(self, query: str, *, full_path: bool = False) -> NavigationResult:
        """Answer ``query`` with evidence from the tree and the path that found it, within
        the token budget.

        The path is one step per phase unless ``full_path`` asks for every step (then counted
        in the budget too) or the budget has room for every step after the evidence.

        Raises:
            InvalidArgument: the query is not a string, is blank or longer than
                :data:`MAX_QUERY_CHARACTERS`, or the budget cannot hold even its frame.
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidArgument(f"query must be a non-empty string, got {query!r}")
        if len(query) > MAX_QUERY_CHARACTERS:
            raise InvalidArgument(
                f"query must be at most {MAX_QUERY_CHARACTERS} characters, got {len(query)}"
            )
        # An unpaired surrogate (a command line's bytes that are not UTF-8) is U+FFFD, as in
        # every stored text, so the answer that echoes the question can be written.
        query = encodable(query)
        # One state of the store for the whole question, its read lock taken once (SQLite).
        with reads_of(self.storage):
            return self._answer(query, full_path)

    def _answer(self, query: str, full_path: bool) -> NavigationResult:
        """:meth:`navigate` for a checked ``query``."""
        now = self.now if self.now is not None else datetime.now(timezone.utc)
        hints = parse_time_hints(query, now)
        every = topic_terms(hints.topic)
        # A long query is cut to its first terms, so the work stays linear in what is kept.
        # "What did I work on last week", "summarize", "recap of yesterday": the words ask
        # for the period itself, so it is listed as a time-only question.
        terms = searched_terms(hints.topic)
        recap = bool(every) and not terms
        # Asked before anything is read: a write from here on moves it for the next question.
        skeleton = self._skeleton.at(revision_of(self.storage))
        lens = Lens(terms, folded=self._folded, digests=self._digests, stacks=self._stacks)
        stored = self.storage.count_events() > 0 if terms else None
        walk = Walk(
            storage=self.storage,
            lens=lens,
            trail=Trail(self.limits, keeps_grep=bool(stored)),
            book=EvidenceBook(lens, self.limits.max_evidence),
            any_events=stored,
            skeleton=skeleton,
        )
        hits: list[EventHit] = []
        if terms:
            seeded: list[TocNode] = []
            if self.seeder is not None:
                seeded = teleport(
                    walk, self.seeder, hints.topic, hints.ranges, limit=2 * self.limits.width
                )
            if seeded and answers_alone(walk, seeded):
                # The index led to an event that holds every term: verified, nothing to walk.
                where = "teleported"
                ranges = hints.ranges
                hits = grep(walk, ranges, where="", seeded=seeded, beyond=False)
            else:
                where = self._topical(walk, hints)
                ranges = _searched_ranges(hints.ranges, where)
                hits = grep(walk, ranges, where=_where(ranges), seeded=seeded)
            ranker = self._event_ranker()
            if ranker is not None:
                asked = seeder_query(hints.topic, hits, lens.matcher)
                nearest = nearest_events(
                    walk, ranker, asked, ranges, limit=2 * self.limits.max_evidence
                )
                hits = blend(hits, nearest, walk)
            offered = self._offered(walk, hits)
            summary = _topical_summary(walk, offered.bare, where, len(terms))
        else:
            summary = self._time_only(walk, hints, now)
            offered = self._offered(walk, hits)
        if recap:
            summary = f"a recap of the period: {summary}"
        if terms and len(every) > len(terms):
            summary += f"; searched the first {len(terms)} of {len(every)} query terms"
        trail = walk.trail
        reason = summary if trail.halted is None else f"{trail.halted}; {summary}"
        result = NavigationResult(
            query=query,
            topic=hints.topic,
            terms=terms,
            time_hints=hints,
            steps=tuple(trail.steps),
            evidence=(),
            partial=trail.halted is not None,
            reason=reason,
            tokens_used=0,
            token_budget=self.token_budget,
            nodes_visited=len(trail.seen | lens.digest_checked),
            iterations=trail.iterations,
            zone=zone_name(now.tzinfo, now),
        )
        return fit(
            result,
            offered,
            budget=self.token_budget,
            estimator=self.estimator,
            full_path=full_path,
            note=_not_fitting,
            bare=offered.bare,
        )

    def _offered(self, walk: Walk, hits: list[EventHit]) -> Offered:
        """The evidence offered to the fit (:func:`candidates`), from ``hits`` and what the
        walk collected."""
        return candidates(
            self.storage,
            walk.book,
            hits,
            self.limits.max_evidence,
            any_events=holds_events(walk),
        )

    def _event_ranker(self) -> EventSeeder | None:
        """The seeder when it also ranks single events, else None. Checking a protocol takes
        longer than a full-text query, so it is checked once per seeder."""
        seeder = self.seeder
        if seeder is None:
            return None
        if self._checked_seeder is None or self._checked_seeder[0] is not seeder:
            self._checked_seeder = (seeder, isinstance(seeder, EventSeeder))
        return cast(EventSeeder, seeder) if self._checked_seeder[1] else None

    # -- phases ------------------------------------------------------------------------------
    def _topical(self, walk: Walk, hints: TimeHints) -> str:
        """Run the phases for a query with topic terms; returns where the evidence came from."""
        ranges = hints.ranges
        if not ranges:
            descend(
                walk,
                self.storage.get_toc_root(),
                (),
                phase=StepPhase.START,
                scope="Years",
                open_roots=False,
            )
            if walk.book.full_segments() == 0:
                scan(walk, (), phase=StepPhase.SCAN, where="in the whole history")
            return ""
        phrases = ", ".join(f'"{phrase}"' for phrase in hints.phrases)
        self._within(walk, ranges, phase=StepPhase.START, scanning=StepPhase.SCAN, what=phrases)
        # A term said only in an event is in no summary, but the period's digests say whether
        # its events may hold it: then the grep of the period finds it, and nothing beyond the
        # period is read.
        if walk.book.evidence or walk.trail.halted or may_hold_all(walk, ranges):
            return ""
        wide = tuple(span.widened() for span in ranges)
        self._within(
            walk,
            wide,
            phase=StepPhase.ADJACENT,
            scanning=StepPhase.ADJACENT,
            what=f"next to {phrases}",
        )
        if walk.book.evidence or walk.trail.halted or may_hold_all(walk, wide):
            return "adjacent"
        descend(
            walk,
            self.storage.get_toc_root(),
            (),
            phase=StepPhase.BROADEN,
            scope="Years (time restriction dropped)",
            open_roots=False,
        )
        if walk.book.full_segments() == 0:
            scan(walk, (), phase=StepPhase.BROADEN, where="in the whole history")
        return "broadened"

    def _within(
        self,
        walk: Walk,
        ranges: Sequence[TimeRange],
        *,
        phase: StepPhase,
        scanning: StepPhase,
        what: str,
    ) -> None:
        covering = self._covering(ranges)
        labels = ", ".join(node_label(node.node_id) for node in covering)
        where = "in " + ", ".join(span.label() for span in ranges)
        before = len(walk.trail.steps)
        descend(walk, covering, ranges, phase=phase, scope=f"{what}: {labels}", open_roots=True)
        if walk.book.full_segments() == 0:
            scan(walk, ranges, phase=scanning, where=where)
        if len(walk.trail.steps) == before:
            walk.trail.note(
                phase=phase,
                level=TocLevel.SEGMENT,
                scope=f"{what}: {labels or 'no node'}",
                reason=f"Nothing left to search {where}: every node there was already read",
            )

    def _time_only(self, walk: Walk, hints: TimeHints, now: datetime) -> str:
        """List what happened in the hinted period (or on the latest active day)."""
        ranges: tuple[TimeRange, ...] = hints.ranges
        if not ranges:
            latest = self._latest_day(now)
            if latest is None:
                return "the query names no topic and no time, and the history is empty"
            ranges = (latest,)
            intro = f"Most recent activity, {latest.label()}"
        else:
            phrases = ", ".join(f'"{phrase}"' for phrase in hints.phrases)
            labels = ", ".join(node_label(node.node_id) for node in self._covering(ranges))
            intro = f"{phrases}: {labels or 'segments without a day node'}"
        segments = _segments_in(self.storage, ranges)
        listing(walk, segments, phase=StepPhase.LIST, scope=intro)
        period = ", ".join(span.label() for span in ranges)
        if segments:
            return f"listed what happened in {period}"
        wide = tuple(span.widened() for span in ranges)
        nearby = _segments_in(self.storage, wide)
        if nearby:
            listing(
                walk,
                nearby,
                phase=StepPhase.ADJACENT,
                scope="Segments in the adjacent periods "
                + ", ".join(span.label() for span in wide),
            )
            return f"nothing is recorded in {period}; listed the adjacent periods instead"
        return f"nothing is recorded in {period} or next to it"

    # -- helpers -----------------------------------------------------------------------------
    def _covering(self, ranges: Sequence[TimeRange]) -> list[TocNode]:
        """The tightest nodes covering each range: the deepest level where 1 to
        ``max_start_nodes`` nodes overlap it, else every overlapping node of the top level
        that has any."""
        chosen: dict[str, TocNode] = {}
        for span in ranges:
            fallback: list[TocNode] = []
            for level in _START_LEVELS:
                nodes = self.storage.get_nodes_by_level(level, span.start, span.end)
                if 1 <= len(nodes) <= self.max_start_nodes:
                    fallback = nodes
                    break
                if nodes:
                    fallback = nodes
            for node in fallback:
                chosen.setdefault(node.node_id, node)
        return sorted(chosen.values(), key=time_order)

    def _latest_day(self, now: datetime) -> TimeRange | None:
        """The day of the newest segment that started by ``now``."""
        latest = next(newest_in(self.storage, TocLevel.SEGMENT, None, now), None)
        if latest is None:
            return None
        newest = latest.start_time
        day = datetime(newest.year, newest.month, newest.day, tzinfo=timezone.utc)
        return TimeRange(day, day + timedelta(days=1))


def _segments_in(storage: Storage, ranges: Sequence[TimeRange]) -> list[TocNode]:
    found: dict[str, TocNode] = {}
    for span in ranges:
        for node in storage.get_nodes_by_level(TocLevel.SEGMENT, span.start, span.end):
            found.setdefault(node.node_id, node)
    return list(found.values())


def _searched_ranges(ranges: tuple[TimeRange, ...], where: str) -> tuple[TimeRange, ...]:
    """The period the evidence came from: the hinted one, its neighbours, or everything."""
    if where == "adjacent":
        return tuple(span.widened() for span in ranges)
    if where == "broadened":
        return ()
    return ranges


def _where(ranges: Sequence[TimeRange]) -> str:
    if not ranges:
        return "in the whole history"
    return "in " + ", ".join(span.label() for span in ranges)


def _topical_summary(walk: Walk, evidence: Sequence[Evidence], where: str, terms: int) -> str:
    segments = len({item.segment_id for item in evidence})
    if segments == 0:
        return "no segment matches the query"
    events = sum(1 for item in evidence if item.kind is EvidenceKind.EVENT)
    full = walk.book.full_segments()
    # The walk may stop (on its budget) before it reaches a segment, leaving the grep of the
    # events to find the evidence; then the evidence itself says how many terms were found.
    best = max(
        walk.book.best_score(),
        max((len(item.matched_terms) for item in evidence), default=0) / max(1, terms),
    )
    plural = "s" if segments != 1 else ""
    if full:
        found = f"found {full} segment{'s' if full != 1 else ''} containing every term"
    elif best >= 1.0:
        found = f"found {segments} segment{plural} with events containing every term"
    else:
        found = f"found {segments} segment{plural} with at best {best:.0%} of the terms"
    if events:
        found += f"; cited {events} matching event{'s' if events != 1 else ''}"
    if where == "adjacent":
        return found + ", in the periods next to the one asked about"
    if where == "broadened":
        return found + ", outside the period asked about"
    if where == "teleported":
        return found + ", where the index led (the tree was not walked)"
    return found
