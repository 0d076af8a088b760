"""TocBuilder: raw events in, a consistent Year > Month > Week > Day > Segment tree out.

``ingest`` stores the new events, then rebuilds the days they fall on (plus the next day that
has events, whose first segment carries overlap from them), then rolls the changes up to the
years. The tree is a function of the stored events alone: segment ids come from their first
event, summaries are deterministic, and parents are made from their children only. Ingesting
the same events in any order, in any batching, or twice gives the same nodes and grips (only
``version``, which counts changes, records the history).

Writes go in this order: events, grips, segments, days, weeks, months, years, and only then
the removal of segments and grips that no longer exist. A crash at any point leaves the events
durable; ingesting any event of an affected day again (even one already stored) rebuilds that
day and its ancestors, which repairs the tree.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from datetime import date, datetime

import attrs

from tocsearch._checks import whole_number
from tocsearch.errors import InvalidArgument
from tocsearch.ids import day_id, event_id_floor, parent_id, parse_node_id, segment_prefix
from tocsearch.ingest._config import BuildConfig
from tocsearch.ingest._days import DayMaker, DayPlan, MadeDay
from tocsearch.ingest._digests import (
    DayDigests,
    FreshUnions,
    SegmentPositions,
    Unions,
)
from tocsearch.ingest._early import EarlyParents
from tocsearch.ingest._helpers import HelperWork, available_cpus
from tocsearch.ingest._incoming import DAY, Incoming, day_start
from tocsearch.ingest._rollup import ParentJob, with_version
from tocsearch.ingest._segmenter import (
    SegmentPlan,
    last_segment,
    overlap_tail,
    plan_with_tail,
    split_events,
)
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode, conversation_key
from tocsearch.storage.protocol import Storage
from tocsearch.summarize._extractive import ExtractiveSummarizer
from tocsearch.summarize._summarizer import Summarizer
from tocsearch.text import TokenEstimator, estimate_tokens

__all__ = ["IngestReport", "TocBuilder"]

_MOST_HELPERS = 3
# A helper's fork and its results' trip back cost about as much as summarising a few
# segments, or parents of about a thousand children between them (a parent's summary reads
# only its children's bullets, and forking late in a build also costs this process a copy of
# every memory page it writes to afterwards: measured, a level of 216 or about 870 children
# took this process longer with a helper than alone, one of about 1,100 a little less): a
# window of days with fewer segments to summarise, or a level whose parents have fewer
# children, is made here alone.
_LEAST_SEGMENTS = 16
_LEAST_CHILDREN = 1024
# Grips, and the segments that hold them, are written this many grips at a time or more (and
# at the end of a window): each write costs a store about as much as a few hundred grips do
# (a compressed leaf opened and sealed again in memory, a month's file rewritten in a JSON
# folder, a transaction in SQLite).
_GRIPS_AT_ONCE = 1024
# Days are planned and made in windows (see _windows) of this many events and up.
_FIRST_WINDOW_EVENTS = 2_000
_WINDOW_EVENTS = 32_000


@attrs.frozen
class IngestReport:
    """What one ``ingest`` (or ``rebuild``) call changed.

    Attributes:
        events_added: events stored for the first time.
        duplicates_skipped: events already stored (or repeated in the batch), not stored again.
        segments_created: segment nodes that did not exist before.
        segments_changed: existing segment nodes whose content changed.
        segments_removed: segment nodes deleted because re-segmentation dropped them.
        nodes_updated: nodes of any level written because they were new or changed.
        grips_written: grips written because they were new or changed.
        grips_removed: grips deleted with the bullets that held them.
        days_rebuilt: days whose segmentation was recomputed.
    """

    events_added: int = 0
    duplicates_skipped: int = 0
    segments_created: int = 0
    segments_changed: int = 0
    segments_removed: int = 0
    nodes_updated: int = 0
    grips_written: int = 0
    grips_removed: int = 0
    days_rebuilt: int = 0


@attrs.define
class _Run:
    """The state of one build: what to write and delete, and the counts for the report."""

    force: bool
    fresh: FreshUnions
    incoming: Incoming
    early: EarlyParents
    segments_by_day: dict[date, list[TocNode]] = attrs.field(factory=dict)
    day_nodes: dict[date, TocNode] = attrs.field(factory=dict)
    # For each planned day, the overlap its next day carries in (see _tail_before).
    day_tails: dict[date, tuple[tuple[str, ...], tuple[str, str, str] | None]] = attrs.field(
        factory=dict
    )
    # The grips of the days taken in since grips were last written.
    grips: list[Grip] = attrs.field(factory=list)
    grips_written: int = 0
    # The newest day of the build: the next ingest of a growing history rebuilds it, so its
    # segments' positions are remembered (those of other days would cost more than they save).
    newest: date | None = None
    segment_writes: list[TocNode] = attrs.field(factory=list)
    dropped_nodes: list[str] = attrs.field(factory=list)
    dropped_grips: dict[str, None] = attrs.field(factory=dict)
    segments_created: int = 0
    segments_changed: int = 0
    nodes_updated: int = 0


class TocBuilder:
    """Builds and maintains the TOC tree in a store from raw events.

    Args:
        storage: where events, grips and nodes are kept.
        summarizer: makes titles, bullets and keywords; :class:`ExtractiveSummarizer` by default.
        config: segmentation settings; :class:`BuildConfig` defaults by default.
        estimator: token counter for segmentation; :func:`tocsearch.text.estimate_tokens`.
        helpers: processes forked to summarise days beside this one during a large build
            (see :mod:`tocsearch.ingest._helpers`); by default one fewer than the CPUs this
            process may use, at most three. The tree is the same with any number; 0 builds
            in this process alone, as does any build with a summarizer other than the default
            one, one of few segments, or one in a process with other threads running.
    """

    def __init__(
        self,
        storage: Storage,
        *,
        summarizer: Summarizer | None = None,
        config: BuildConfig | None = None,
        estimator: TokenEstimator | None = None,
        helpers: int | None = None,
    ) -> None:
        if not isinstance(storage, Storage):
            raise InvalidArgument(f"storage must implement Storage, got {type(storage).__name__}")
        if summarizer is not None and not isinstance(summarizer, Summarizer):
            raise InvalidArgument(
                f"summarizer must implement Summarizer, got {type(summarizer).__name__}"
            )
        if config is not None and not isinstance(config, BuildConfig):
            raise InvalidArgument(f"config must be a BuildConfig, got {type(config).__name__}")
        if estimator is not None and not callable(estimator):
            raise InvalidArgument(f"estimator must be callable, got {estimator!r}")
        self.storage = storage
        self.summarizer: Summarizer = (
            summarizer if summarizer is not None else ExtractiveSummarizer()
        )
        self.config = config if config is not None else BuildConfig()
        self.estimator: TokenEstimator = estimator if estimator is not None else estimate_tokens
        self.helpers = (
            min(available_cpus() - 1, _MOST_HELPERS)
            if helpers is None
            else whole_number("helpers", helpers, 0)
        )
        # Digests of segments, days and parents already worked out in this process (bounded).
        self._segment_positions = SegmentPositions()
        self._day_digests = DayDigests()
        self._unions = Unions()

    # -- public ----------------------------------------------------------------------------
    def ingest(self, events: Iterable[Event]) -> IngestReport:
        """Store new events and bring every affected node, up to the year, up to date.

        An event already stored (or repeated in the batch) is skipped, but its day is still
        checked and rebuilt where the tree disagrees with the events, which is how an
        interrupted build is repaired. When this returns, the tree is consistent.

        Runtime: linear in the events of the affected days; other days are not read.

        Raises:
            InvalidArgument: an item is not an Event, or an event id is already stored (or
                repeated in the batch) with different content. Nothing is written then.
        """
        fresh, duplicates, days = self._sort_out(events)
        report = self._build(days, force=False, incoming=Incoming(self.storage, fresh))
        return attrs.evolve(report, events_added=len(fresh), duplicates_skipped=duplicates)

    def rebuild(self, start: datetime | None = None, end: datetime | None = None) -> IngestReport:
        """Re-segment and re-summarize every day with events in ``[start, end)`` (all days by
        default), for instance after changing the summarizer or the config."""
        days = {event.timestamp.date() for event in self.storage.get_events(start, end)}
        return self._build(days, force=True)

    def rebuild_days(self, days: Iterable[date]) -> IngestReport:
        """Re-segment and re-summarize these days (UTC dates) from the events stored now, and
        the next day with events after each. A day left without events loses its node, and so
        does a week, month or year left without children: after events were removed or
        changed, no node, grip or digest still holds what they said.

        Raises:
            InvalidArgument: an item is not a date.
        """
        wanted: set[date] = set()
        for day in days:
            if not isinstance(day, date) or isinstance(day, datetime):
                raise InvalidArgument(f"rebuild_days expects dates, got {day!r}")
            wanted.add(day)
        return self._build(wanted, force=True)

    # -- input -----------------------------------------------------------------------------
    def _sort_out(self, events: Iterable[Event]) -> tuple[list[Event], int, set[date]]:
        """The events not yet stored (in id order), how many were duplicates, and the days
        touched by all of them."""
        if isinstance(events, Event):
            raise InvalidArgument("ingest expects an iterable of events, got a single Event")
        seen: dict[str, Event] = {}
        duplicates = 0
        days: set[date] = set()
        has_event = self.storage.has_event
        for event in events:
            if not isinstance(event, Event):
                raise InvalidArgument(
                    f"ingest expects Event records, got {type(event).__name__}: {event!r:.120}"
                )
            known = seen.get(event.event_id)
            if known is None and has_event(event.event_id):
                known = self.storage.get_event(event.event_id)
            if known is not None:
                if known != event:
                    raise InvalidArgument(
                        f"event {event.event_id!r} is already stored with different content; "
                        "events are immutable"
                    )
                duplicates += 1
            else:
                seen[event.event_id] = event
            days.add(event.timestamp.date())
        fresh = [seen[key] for key in sorted(seen)]
        return fresh, duplicates, days

    # -- the build -------------------------------------------------------------------------
    def _build(
        self, days: set[date], *, force: bool, incoming: Incoming | None = None
    ) -> IngestReport:
        """Rebuild ``days`` and the next day with events after each, first storing the
        ``incoming`` events (see :meth:`_make_days`)."""
        incoming = incoming if incoming is not None else Incoming(self.storage)
        work = sorted(days | self._next_days(days, incoming))
        run = _Run(
            force=force,
            fresh=FreshUnions(self._unions),
            incoming=incoming,
            early=EarlyParents(self.storage, self.summarizer, self._unions),
            newest=work[-1] if work else None,
        )
        self._make_days(work, run)
        self._write_taken_in(run)
        self._roll_up(run)
        referenced = {
            grip
            for nodes in run.segments_by_day.values()
            for node in nodes
            for bullet in node.bullets
            for grip in bullet.grip_ids
        }
        for node_id in run.dropped_nodes:
            self.storage.delete_node(node_id)
        removed = [grip for grip in run.dropped_grips if grip not in referenced]
        for grip in removed:
            self.storage.delete_grip(grip)
        return IngestReport(
            segments_created=run.segments_created,
            segments_changed=run.segments_changed,
            segments_removed=len(run.dropped_nodes),
            nodes_updated=run.nodes_updated,
            grips_written=run.grips_written,
            grips_removed=len(removed),
            days_rebuilt=len(work),
        )

    def _next_days(self, days: set[date], incoming: Incoming) -> set[date]:
        """For each day, the next later day that has events (stored or ``incoming``): its
        first segment's overlap comes from the day before it."""
        found: set[date] = set()
        for day in days:
            floor = event_id_floor(day_start(day) + DAY)
            after = self.storage.get_events_after(floor, 1)
            following = incoming.next_day(day, after[0].timestamp.date() if after else None)
            if following is not None:
                found.add(following)
        return found

    def _make_days(self, work: list[date], run: _Run) -> None:
        """Plan, make and take in the days of ``work``, in order. A window of planned days
        gets its helpers before the window before it is taken in, so that they make its days
        while this process plans the next window and stores the last one's. The incoming
        events are stored once the first window's helpers are at work (or before a day is
        planned that needs them stored), and always before anything else is written."""
        maker = DayMaker(self.summarizer, self.config, self._segment_positions, self._day_digests)
        started: list[tuple[list[DayPlan], HelperWork[DayPlan, MadeDay]]] = []
        try:
            for window in self._windows(work, run):
                summaries = sum(plan.summaries() for plan in window)
                helping = HelperWork(
                    maker.make, window, helpers=self._helpers_for(summaries, _LEAST_SEGMENTS)
                )
                started.append((window, helping))
                helping.start()
                run.incoming.store()
                if len(started) > 1:
                    self._take_in_oldest(started, run)
            run.incoming.store()
            while started:
                self._take_in_oldest(started, run)
        finally:
            for _, helping in started:
                helping.stop()

    def _take_in_oldest(
        self, started: list[tuple[list[DayPlan], HelperWork[DayPlan, MadeDay]]], run: _Run
    ) -> None:
        """Take in the made days of the oldest started window, then stop its helpers and drop
        it (a failure leaves it started, for the caller to stop)."""
        window, made = started[0]
        for plan, day in zip(window, made.results(), strict=True):
            self._apply_day(plan, day, run)
        self._write_taken_in(run)
        started.pop(0)[1].stop()

    def _windows(self, work: list[date], run: _Run) -> Iterator[list[DayPlan]]:
        """The days of ``work`` planned, in windows of at least ``_FIRST_WINDOW_EVENTS``
        events and then of ``_WINDOW_EVENTS`` (and the days after them): the first helper
        starts soon, the later ones seldom (each fork fills its caches again), and a rebuild
        of a large store holds two windows of its events at a time."""
        window: list[DayPlan] = []
        events = 0
        size = _FIRST_WINDOW_EVENTS
        for day in work:
            plan = self._plan_day(day, run)
            window.append(plan)
            events += len(plan.events)
            if events >= size:
                yield window
                window, events, size = [], 0, _WINDOW_EVENTS
        if window:
            yield window

    def _plan_day(self, day: date, run: _Run) -> DayPlan:
        """A day's events, its stored segments and the segments its events fall into."""
        start = day_start(day)
        events = run.incoming.new_day(day)
        if events is None:
            # The day had stored events: read it whole, the incoming ones with them.
            run.incoming.store()
            events = tuple(self.storage.get_events(start, start + DAY))
        prefix = segment_prefix(day)
        stored = {
            node.node_id: node
            for node in self.storage.get_nodes_by_level(TocLevel.SEGMENT, start, start + DAY)
            if node.node_id.startswith(prefix)
        }
        plans: list[SegmentPlan] = []
        if events:
            tail, key = self._tail_before(events[0], run)
            plans, last_tail, last_key = plan_with_tail(
                events, self.config, self.estimator, tail, key
            )
            run.day_tails[day] = (last_tail, last_key)
        return DayPlan(day, events, stored, tuple(plans), force=run.force, newest=day == run.newest)

    def _helpers_for(self, summaries: int, least: int) -> int:
        """How many helper processes make work of this many summaries: none for a summarizer
        that is not the default one (it may hold connections or threads a fork would share),
        nor for fewer than ``least``, too little for a helper to pay for its fork."""
        if self.helpers == 0 or type(self.summarizer) is not ExtractiveSummarizer:
            return 0
        return self.helpers if summaries >= least else 0

    def _apply_day(self, plan: DayPlan, made: MadeDay, run: _Run) -> None:
        """Take a made day into the build: what to write, drop and roll up. Grips, and then
        the segments that hold them, are stored a thousand or so grips at a time, while
        helpers still make later days, instead of all at the end with no helper at work."""
        day = plan.day
        run.grips.extend(made.grips)
        run.segment_writes.extend(made.writes)
        if len(run.grips) >= _GRIPS_AT_ONCE:
            self._write_taken_in(run)
        run.segments_created += made.created
        run.segments_changed += len(made.writes) - made.created
        if plan.events:
            run.fresh.add(day_id(day), made.digest_text, made.digest)
            if made.process != os.getpid():
                # A helper filled its own copy of the cache: this one learns its day here.
                self._day_digests.keep(plan.events, made.nodes, made.digest_text)
            for segment, node in zip(plan.segments, made.nodes, strict=True):
                positions = made.positions.get(node.node_id)
                if positions is not None:
                    self._segment_positions.remember(segment.events, node, positions)
        run.dropped_nodes.extend(made.dropped_nodes)
        run.dropped_grips.update(made.dropped_grips)
        run.segments_by_day[day] = made.nodes
        if made.node is not None:
            run.day_nodes[day] = made.node
        run.early.day_taken_in(day, made.node)

    def _tail_before(
        self, first: Event, run: _Run
    ) -> tuple[tuple[str, ...], tuple[str, str, str] | None]:
        """The overlap for a day's first segment: the tail of the segment that holds the last
        event before it, with that segment's conversation."""
        previous = run.incoming.event_before(first.event_id)
        if previous is None:
            return (), None
        day = previous.timestamp.date()
        planned = run.day_tails.get(day)
        if planned is not None:
            return planned
        segment = self._stored_last_segment(day, previous)
        if segment is None:
            start = day_start(day)
            events = self.storage.get_events(start, start + DAY)
            segment = tuple(last_segment(split_events(events, self.config, self.estimator)))
        return overlap_tail(segment, self.config, self.estimator), conversation_key(segment[-1])

    def _stored_last_segment(self, day: date, last: Event) -> tuple[Event, ...] | None:
        """The events of the stored segment that ends at the day's last event, if the stored
        tree agrees with the events (that segment owns exactly stored events of its range)."""
        day_node = self.storage.find_node(day_id(day))
        if day_node is None:
            return None
        # The segment holding the last event is usually the day's last child; with interleaved
        # conversations it can be an earlier one.
        for child_id in reversed(day_node.child_node_ids):
            segment = self.storage.find_node(child_id)
            if segment is not None and segment.event_ids and segment.event_ids[-1] == last.event_id:
                break
        else:
            return None
        owned = set(segment.event_ids)
        events = [
            event
            for event in self.storage.get_event_range(segment.event_ids[0], segment.event_ids[-1])
            if event.event_id in owned
        ]
        if tuple(event.event_id for event in events) != segment.event_ids:
            return None
        return tuple(events)

    # -- writing ---------------------------------------------------------------------------
    def _write_taken_in(self, run: _Run) -> None:
        """Store the grips and then the segments taken in since the last call that are new
        or changed (grips go before the segments that hold them). Packing a segment costs a
        store that compresses them (the in-memory one) about a tenth of a millisecond:
        written here, a helper makes days meanwhile, instead of waiting for the end."""
        if run.grips:
            changed = [grip for grip in run.grips if self.storage.find_grip(grip.grip_id) != grip]
            self.storage.put_grips(changed)
            run.grips_written += len(changed)
            run.grips.clear()
        if run.segment_writes:
            self.storage.put_nodes(run.segment_writes)
            run.nodes_updated += len(run.segment_writes)
            run.segment_writes.clear()

    def _roll_up(self, run: _Run) -> None:
        """Days from their segments, then weeks, months and years from their stored children;
        a node left with no segment or child is removed."""
        days: list[TocNode] = []
        emptied: list[str] = []
        for day, segments in sorted(run.segments_by_day.items()):
            if not segments:
                emptied.append(day_id(day))
                continue
            days.append(run.day_nodes[day])
        self._write_level(days, run)
        run.fresh.finish()
        changed = {parent_id(node.node_id) for node in days}
        changed |= self._remove_empty(emptied)
        for level in (TocLevel.WEEK, TocLevel.MONTH, TocLevel.YEAR):
            jobs: list[ParentJob] = []
            early: list[TocNode] = []
            emptied = []
            for node_id in sorted(identifier for identifier in changed if identifier is not None):
                node = run.early.made(node_id)
                if node is not None:
                    early.append(node)
                    continue
                children = self._stored_children(node_id, level)
                if not children:
                    emptied.append(node_id)
                else:
                    jobs.append(
                        ParentJob(node_id, level, tuple(children), self._unions.of(children))
                    )
            # A level of many parents (a long history of short days) is summarised with
            # helpers too.
            read = sum(len(job.children) for job in jobs)
            helpers = self._helpers_for(read, _LEAST_CHILDREN)
            with HelperWork(self._make_parent, jobs, helpers=helpers) as made:
                parents = list(made.results())
            if early:
                # In the order of their ids, as they would have been made here.
                parents = sorted([*parents, *early], key=lambda node: node.node_id)
            self._write_level(parents, run)
            changed = {parent_id(node.node_id) for node in parents}
            changed |= self._remove_empty(emptied)

    def _make_parent(self, job: ParentJob) -> TocNode:
        return job.make(self.summarizer)

    def _remove_empty(self, node_ids: list[str]) -> set[str | None]:
        """Delete the stored ones of these nodes, which no longer have children; their parents
        are to be rolled up again."""
        parents: set[str | None] = set()
        for node_id in node_ids:
            if self.storage.find_node(node_id) is not None:
                self.storage.delete_node(node_id)
                parents.add(parent_id(node_id))
        return parents

    def _stored_children(self, node_id: str, level: TocLevel) -> list[TocNode]:
        """The stored nodes one level below ``node_id`` that belong to it, by start time."""
        key = parse_node_id(node_id)
        child_level = level.child()
        assert child_level is not None
        return [
            node
            for node in self.storage.get_nodes_by_level(child_level, key.start, key.end)
            if parent_id(node.node_id) == node_id
        ]

    def _write_level(self, nodes: list[TocNode], run: _Run) -> None:
        writes: list[TocNode] = []
        for node in nodes:
            old = self.storage.find_node(node.node_id)
            versioned = with_version(node, old)
            if versioned is not old:
                writes.append(versioned)
        self.storage.put_nodes(writes)
        run.nodes_updated += len(writes)
