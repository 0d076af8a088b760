"""A seeder (an index) teleports the walk to its segments: verified first, grepped first,
filtered by the time hints, explained in the path; a failing or wrong seeder changes nothing
but the path."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import pytest

from tocsearch.examples import EXAMPLE_END, load_example_events
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.navigate import Navigator, SegmentSeeder, StepPhase
from tocsearch.storage import InMemoryStorage


class FakeSeeder:
    """Answers every query with fixed segments, recording what it was asked."""

    def __init__(self, pairs: Sequence[tuple[str, float]], name: str = "fake") -> None:
        self.pairs = list(pairs)
        self._name = name
        self.calls: list[tuple[str, int, datetime | None, datetime | None]] = []

    @property
    def name(self) -> str:
        return self._name

    def seed(
        self, query: str, *, limit: int, start: datetime | None, end: datetime | None
    ) -> Sequence[tuple[str, float]]:
        self.calls.append((query, limit, start, end))
        return self.pairs[:limit]


class BrokenSeeder:
    name = "broken"

    def seed(
        self, query: str, *, limit: int, start: datetime | None, end: datetime | None
    ) -> Sequence[tuple[str, float]]:
        raise RuntimeError("index is gone")


@pytest.fixture(scope="module")
def storage() -> InMemoryStorage:
    built = InMemoryStorage()
    TocBuilder(built).ingest(load_example_events())
    return built


def _segment_holding(storage: InMemoryStorage, word: str) -> str:
    """A segment one of whose events says ``word``."""
    for segment in storage.get_nodes_by_level(TocLevel.SEGMENT):
        events = storage.get_event_range(min(segment.event_ids), max(segment.event_ids))
        if any(word in event.text for event in events):
            return segment.node_id
    raise AssertionError(word)


def test_the_fake_seeder_is_a_segment_seeder() -> None:
    """The protocol is structural: any object with a name and seed() qualifies."""
    assert isinstance(FakeSeeder([]), SegmentSeeder)
    assert not isinstance(object(), SegmentSeeder)


def test_seeded_segments_are_verified_and_grepped_first(storage: InMemoryStorage) -> None:
    """The walk starts with a teleport step naming the seeder and its best segment, and the
    seeded segment's events are cited."""
    target = _segment_holding(storage, "ImmatureSignatureError")
    seeder = FakeSeeder([(target, 0.9)], name="FTS5")
    result = Navigator(storage, now=EXAMPLE_END, seeder=seeder).navigate(
        "ImmatureSignatureError", full_path=True
    )
    first = result.steps[0]
    assert first.phase is StepPhase.TELEPORT
    assert f"Teleported via FTS5 to {target}" in first.reason
    assert target in result.segment_ids
    assert any(item.event_ids for item in result.evidence if item.segment_id == target)
    assert seeder.calls == [("ImmatureSignatureError", 10, None, None)]


def test_time_hints_filter_the_seeded_segments(storage: InMemoryStorage) -> None:
    """The seeder is asked within the hinted period, and a segment outside it is dropped."""
    target = _segment_holding(storage, "ImmatureSignatureError")
    seeder = FakeSeeder([(target, 0.9)])
    result = Navigator(storage, now=EXAMPLE_END, seeder=seeder).navigate(
        "ImmatureSignatureError yesterday", full_path=True
    )
    (_, _, start, end) = seeder.calls[0]
    assert start is not None
    assert end is not None
    assert (end - start).days == 1
    assert result.steps[0].phase is StepPhase.TELEPORT
    assert "named no stored segment in the period" in result.steps[0].reason


def test_unknown_ids_and_failures_fall_back_to_the_plain_walk(storage: InMemoryStorage) -> None:
    """Ids that are no segment, malformed pairs and a raising seeder leave the evidence as the
    index-free walk finds it."""
    plain = Navigator(storage, now=EXAMPLE_END, token_budget=50_000).navigate(
        "stale profile cache in Redis"
    )
    for seeder in (
        FakeSeeder([("toc:segment:1999-01-01:nothing", 1.0), ("toc:year:2026", 0.5)]),
        BrokenSeeder(),
    ):
        seeded = Navigator(storage, now=EXAMPLE_END, token_budget=50_000, seeder=seeder).navigate(
            "stale profile cache in Redis", full_path=True
        )
        assert seeded.steps[0].phase is StepPhase.TELEPORT
        assert seeded.evidence == plain.evidence
    assert "index is gone" in seeded.steps[0].reason


def test_a_seeder_must_look_like_one(storage: InMemoryStorage) -> None:
    """Passing something that is not a seeder is a clear error."""
    from tocsearch.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="seeder must have a name and a seed"):
        Navigator(storage, seeder=object())  # type: ignore[arg-type]


def test_a_seeded_event_with_every_term_answers_without_a_walk(storage: InMemoryStorage) -> None:
    """When the seeded segment holds an event with every term, the path is the teleport and
    the grep of the seeded segment alone, and the answer cites that event; a seeded segment
    that misses a term leaves the walk to run as without a seeder."""
    target = _segment_holding(storage, "ImmatureSignatureError")
    seeded = Navigator(
        storage, now=EXAMPLE_END, seeder=FakeSeeder([(target, 0.9)], name="FTS5")
    ).navigate("ImmatureSignatureError", full_path=True)
    assert [step.phase for step in seeded.steps] == [StepPhase.TELEPORT, StepPhase.GREP]
    assert seeded.steps[-1].scope.startswith("Events of 1 teleported segment")
    assert "where the index led" in seeded.reason
    cited = [item for item in seeded.evidence if item.event_ids]
    assert cited
    assert {item.segment_id for item in cited} == {target}
    events = storage.get_event_range(min(cited[0].event_ids), max(cited[0].event_ids))
    assert any("ImmatureSignatureError" in event.text for event in events)

    elsewhere = _segment_holding(storage, "Redis")
    walked = Navigator(storage, now=EXAMPLE_END, seeder=FakeSeeder([(elsewhere, 0.9)])).navigate(
        "ImmatureSignatureError Redis pasta", full_path=True
    )
    phases = [step.phase for step in walked.steps]
    assert phases[0] is StepPhase.TELEPORT
    assert StepPhase.START in phases
    assert "teleported" not in walked.steps[-1].scope
    assert "where the index led" not in walked.reason
