"""TocBuilder: reports, duplicates, late events, repair after a crash, and bad input."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, timezone

import attrs
import pytest
from tests._support.synthetic import history

from tocsearch import ids
from tocsearch.errors import InvalidArgument
from tocsearch.ingest import IngestReport, TocBuilder, check_tree
from tocsearch.levels import TocLevel
from tocsearch.models import Event, EventRole, EventType, TocNode
from tocsearch.storage import InMemoryStorage
from tocsearch.summarize import CallableSummarizer, Summary, SummaryBullet


def late_event(after: Event, suffix: str, seconds: int = 1) -> Event:
    when = after.timestamp + timedelta(seconds=seconds)
    return Event(
        event_id=ids.event_id(when, suffix),
        session_id=after.session_id,
        timestamp=when,
        role="user",
        event_type="user_message",
        text="A late note: the Redis maxmemory policy must be allkeys-lru.",
    )


def tree(storage: InMemoryStorage) -> dict[str, TocNode]:
    return {
        node_id: attrs.evolve(storage.get_node(node_id), version=1)
        for node_id in storage.iter_node_ids()
    }


def test_first_ingest_reports_what_it_built() -> None:
    """The report counts the events, the segments and every node written."""
    events = history(300)
    storage = InMemoryStorage()
    report = TocBuilder(storage).ingest(events)
    segments = storage.get_nodes_by_level(TocLevel.SEGMENT)
    assert report.events_added == 300
    assert report.duplicates_skipped == 0
    assert report.segments_created == len(segments) > 1
    assert report.segments_changed == report.segments_removed == 0
    assert report.nodes_updated == storage.count_nodes()
    assert report.grips_written == len(list(storage.iter_grip_ids()))
    assert report.days_rebuilt == len(storage.get_nodes_by_level(TocLevel.DAY))
    check_tree(storage)


def test_duplicates_are_stored_once_and_counted() -> None:
    """An event repeated in a batch and again later is stored once."""
    events = history(50)
    storage = InMemoryStorage()
    builder = TocBuilder(storage)
    first = builder.ingest([*events, events[0]])
    assert (first.events_added, first.duplicates_skipped) == (50, 1)
    again = builder.ingest(events[:10])
    assert again == IngestReport(duplicates_skipped=10, days_rebuilt=again.days_rebuilt)
    assert storage.count_events() == 50


def test_a_late_event_rebuilds_only_its_neighbourhood() -> None:
    """A late event touches its own day and the next one, updates the path to the year, and
    leaves the same tree as a build that had it from the start."""
    events = history(2_000)
    storage = InMemoryStorage()
    builder = TocBuilder(storage)
    builder.ingest(events)
    middle = events[len(events) // 2]
    late = late_event(middle, "late-1")
    report = builder.ingest([late])
    assert report.events_added == 1
    assert report.days_rebuilt <= 2
    assert report.segments_created + report.segments_changed >= 1
    check_tree(storage)
    fresh = InMemoryStorage()
    TocBuilder(fresh).ingest([*events, late])
    assert tree(storage) == tree(fresh)
    owner = [
        node
        for node in storage.get_nodes_by_level(TocLevel.SEGMENT)
        if late.event_id in node.event_ids
    ]
    assert len(owner) == 1
    assert middle.event_id in owner[0].event_ids


def test_changed_nodes_get_a_new_version() -> None:
    """A segment whose events change moves to version 2; untouched segments stay at 1."""
    events = history(200)
    storage = InMemoryStorage()
    builder = TocBuilder(storage)
    builder.ingest(events)
    builder.ingest([late_event(events[-1], "late-2", seconds=5)])
    versions = {node.node_id: node.version for node in storage.get_nodes_by_level(TocLevel.SEGMENT)}
    assert sorted(set(versions.values())) == [1, 2]
    assert max(versions, key=lambda node_id: (versions[node_id], node_id)).startswith("toc:segment")


def test_resegmenting_removes_stale_segments_and_their_grips() -> None:
    """An early event that joins two segments deletes the later one and its grips."""
    events = history(60)
    storage = InMemoryStorage()
    builder = TocBuilder(storage)
    # Two halves of one session, held apart by the missing middle events.
    gap_start = 20
    held = list(events[gap_start : gap_start + 1])
    kept = [event for event in events if event not in held]
    builder.ingest(kept)
    before = set(storage.iter_grip_ids())
    report = builder.ingest(held)
    check_tree(storage)
    fresh = InMemoryStorage()
    TocBuilder(fresh).ingest(events)
    assert tree(storage) == tree(fresh)
    assert set(storage.iter_grip_ids()) == set(fresh.iter_grip_ids())
    if report.segments_removed:
        assert report.grips_removed > 0
        assert before - set(storage.iter_grip_ids())


class CrashingStorage(InMemoryStorage):
    """Fails on the n-th put_nodes call, like a process killed halfway through a build."""

    def __init__(self, crash_at: int) -> None:
        super().__init__()
        self.crash_at = crash_at
        self.calls = 0

    def put_nodes(self, nodes: Iterable[TocNode]) -> None:
        self.calls += 1
        if self.calls == self.crash_at:
            raise OSError("simulated crash")
        super().put_nodes(nodes)


@pytest.mark.parametrize("crash_at", [1, 2, 3, 4, 5])
def test_ingesting_again_repairs_an_interrupted_build(crash_at: int) -> None:
    """After a crash at any write step the events are stored; ingesting them again yields the
    full tree of an uninterrupted build."""
    events = history(400)
    storage = CrashingStorage(crash_at)
    with pytest.raises(OSError, match="simulated crash"):
        TocBuilder(storage).ingest(events)
    assert storage.count_events() == len(events)
    report = TocBuilder(storage).ingest(events)
    assert report.events_added == 0
    check_tree(storage, allow_unreferenced_grips=True)
    fresh = InMemoryStorage()
    TocBuilder(fresh).ingest(events)
    assert tree(storage) == tree(fresh)


def test_a_crash_after_a_late_event_is_repaired_by_ingesting_it_again() -> None:
    """Events written, tree left stale: re-ingesting the late event brings the tree up to date."""
    events = history(300)
    storage = CrashingStorage(crash_at=10**9)
    TocBuilder(storage).ingest(events)
    late = late_event(events[150], "late-3")
    storage.crash_at = storage.calls + 2
    with pytest.raises(OSError, match="simulated crash"):
        TocBuilder(storage).ingest([late])
    TocBuilder(storage).ingest([late])
    check_tree(storage)
    fresh = InMemoryStorage()
    TocBuilder(fresh).ingest([*events, late])
    assert tree(storage) == tree(fresh)


def test_rebuild_resummarizes_with_a_new_summarizer() -> None:
    """rebuild() applies a different summarizer to every stored day."""
    events = history(100)
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(events)

    def shout(batch: Sequence[Event]) -> Summary:
        return Summary(
            "Session notes in capitals",
            (SummaryBullet(batch[0].text.upper()[:80], event_ids=(batch[0].event_id,)),),
            ("NOTES",),
        )

    report = TocBuilder(storage, summarizer=CallableSummarizer(shout)).rebuild()
    assert report.segments_changed == len(storage.get_nodes_by_level(TocLevel.SEGMENT))
    assert all(
        node.title == "Session notes in capitals"
        for node in storage.get_nodes_by_level(TocLevel.SEGMENT)
    )
    check_tree(storage)


def test_a_different_event_under_a_stored_id_is_refused_before_writing() -> None:
    """Events are immutable: a changed text under a known id raises and stores nothing new."""
    events = history(20)
    storage = InMemoryStorage()
    builder = TocBuilder(storage)
    builder.ingest(events)
    changed = attrs.evolve(events[3], text="rewritten")
    extra = late_event(events[-1], "extra")
    with pytest.raises(InvalidArgument, match=events[3].event_id):
        builder.ingest([extra, changed])
    assert not storage.has_event(extra.event_id)


def test_non_events_are_refused_by_type() -> None:
    """A dict in the batch is an InvalidArgument naming its type; a lone Event too."""
    builder = TocBuilder(InMemoryStorage())
    with pytest.raises(InvalidArgument, match="dict"):
        builder.ingest([{"event_id": "x"}])  # type: ignore[list-item]
    with pytest.raises(InvalidArgument, match="single Event"):
        builder.ingest(history(1)[0])  # type: ignore[arg-type]


def test_a_summarizer_that_cites_foreign_events_is_refused() -> None:
    """Bullets must name events of their own segment."""

    def wrong(batch: Sequence[Event]) -> Summary:
        return Summary("Wrong", (SummaryBullet("x", event_ids=("evt:0000000000001:zz",)),))

    builder = TocBuilder(InMemoryStorage(), summarizer=CallableSummarizer(wrong))
    with pytest.raises(InvalidArgument, match="does not own"):
        builder.ingest(history(5))


def test_builder_arguments_are_checked() -> None:
    """Wrong kinds of storage, summarizer or config are refused by name."""
    with pytest.raises(InvalidArgument, match="Storage"):
        TocBuilder(object())  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="Summarizer"):
        TocBuilder(InMemoryStorage(), summarizer=object())  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="BuildConfig"):
        TocBuilder(InMemoryStorage(), config={})  # type: ignore[arg-type]


def test_grips_expand_with_storage_range_reads() -> None:
    """Every grip's range reads back with get_event_range, and its excerpt is text of it."""
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(history(150))
    for grip_id in storage.iter_grip_ids():
        grip = storage.get_grip(grip_id)
        events = storage.get_event_range(grip.event_id_start, grip.event_id_end)
        assert events
        assert events[0].event_id == grip.event_id_start
        assert len(grip.excerpt) <= 200
        stem = grip.excerpt.rstrip("…")[:40]
        assert any(stem in " ".join(event.text.split()) for event in events)
        assert grip.source == events[0].session_id


def test_a_conversation_title_names_its_segments() -> None:
    """A chat's own title (metadata "title") leads its segments' titles; an untitled
    conversation's segment keeps the summary's title alone."""
    when = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
    events = [
        Event(
            event_id=ids.event_id(when + timedelta(minutes=i), f"t{i}"),
            session_id=session,
            timestamp=when + timedelta(minutes=i),
            role=EventRole.USER,
            event_type=EventType.USER_MESSAGE,
            text=text,
            metadata=metadata,
        )
        for i, (session, text, metadata) in enumerate(
            [
                ("chat", "Rolling the staging cluster to the new ingress.", {"title": "Staging"}),
                ("chat", "The ingress needs the TLS secret first.", {"title": "Staging"}),
                ("other", "Anchovies melt into the pasta sauce.", {}),
            ]
        )
    ]
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(events)
    titles = sorted(node.title for node in storage.get_nodes_by_level(TocLevel.SEGMENT))
    assert not titles[0].startswith("Staging")
    assert titles[1].startswith("Staging: ")
