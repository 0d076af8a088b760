"""A seeder that ranks events (an EventSeeder) has its ranking blended into the grep's: an
event no query word verifies can be returned, within the hinted period, explained in the path;
a failing or wrong seeder leaves the evidence as the words alone rank it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs
import pytest
from hypothesis import given
from tests._support.tiny_locomo import tiny_conversation
from tests._support.walks import WALK_LIMITS
from tests.strategies import sentences

from tocsearch.examples import EXAMPLE_END, load_example_events
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import Event
from tocsearch.navigate import EventSeeder, Evidence, Navigator, SegmentSeeder, StepPhase
from tocsearch.navigate._blend import blend, seeder_query
from tocsearch.navigate._book import EvidenceBook
from tocsearch.navigate._events import SPEAKER_KEY, EventHit, PooledEvent
from tocsearch.navigate._lens import Lens
from tocsearch.navigate._terms import topic_terms
from tocsearch.navigate._trail import Trail
from tocsearch.navigate._walk import Walk
from tocsearch.navigate._weights import TermMatcher
from tocsearch.storage import InMemoryStorage
from tocsearch.storage.protocol import Storage

QUESTION = "stale profile cache in Redis"


class EventsSeeder:
    """Names no segment, and ranks fixed events, recording what it was asked."""

    def __init__(self, triples: Sequence[object], name: str = "vectors") -> None:
        self.triples = list(triples)
        self._name = name
        self.calls: list[tuple[str, int, datetime | None, datetime | None]] = []

    @property
    def name(self) -> str:
        return self._name

    def seed(
        self, query: str, *, limit: int, start: datetime | None, end: datetime | None
    ) -> Sequence[tuple[str, float]]:
        return []

    def seed_events(
        self, query: str, *, limit: int, start: datetime | None, end: datetime | None
    ) -> Sequence[tuple[str, str, float]]:
        self.calls.append((query, limit, start, end))
        return self.triples[:limit]  # type: ignore[return-value]


class BrokenEventsSeeder(EventsSeeder):
    def seed_events(
        self, query: str, *, limit: int, start: datetime | None, end: datetime | None
    ) -> Sequence[tuple[str, str, float]]:
        raise RuntimeError("model server is down")


@pytest.fixture(scope="module")
def storage() -> InMemoryStorage:
    built = InMemoryStorage()
    TocBuilder(built).ingest(load_example_events())
    return built


def _wordless_event(storage: InMemoryStorage, query: str) -> tuple[Event, str]:
    """The newest event holding no term of ``query``, with its segment's id."""
    matcher = TermMatcher(topic_terms(query))
    segments = sorted(
        storage.get_nodes_by_level(TocLevel.SEGMENT), key=lambda node: node.start_time
    )
    for segment in reversed(segments):
        events = storage.get_event_range(min(segment.event_ids), max(segment.event_ids))
        for event in events:
            if (
                event.event_id in segment.event_ids
                and event.text
                and not matcher.present(event.text)
            ):
                return event, segment.node_id
    raise AssertionError(query)


def _cited(result_evidence: Sequence[Evidence]) -> list[str]:
    return [event_id for item in result_evidence for event_id in item.event_ids]


def test_an_event_seeder_is_a_segment_seeder_with_seed_events() -> None:
    """The protocol is structural: seed() and seed_events() make an EventSeeder."""
    seeder = EventsSeeder([])
    assert isinstance(seeder, EventSeeder)
    assert isinstance(seeder, SegmentSeeder)


def test_an_event_only_the_seeder_ranks_is_returned(storage: InMemoryStorage) -> None:
    """An event holding no query word, which the words alone never return, is returned when
    the seeder ranks it first, and the grep step says the rankings were blended."""
    event, segment_id = _wordless_event(storage, QUESTION)
    plain = Navigator(storage, now=EXAMPLE_END, token_budget=50_000).navigate(QUESTION)
    assert event.event_id not in _cited(plain.evidence)
    seeder = EventsSeeder([(event.event_id, segment_id, 0.9)])
    blended = Navigator(storage, now=EXAMPLE_END, token_budget=50_000, seeder=seeder).navigate(
        QUESTION, full_path=True
    )
    assert event.event_id in _cited(blended.evidence)
    item = next(item for item in blended.evidence if event.event_id in item.event_ids)
    assert item.segment_id == segment_id
    assert item.matched_terms == ()
    grep = [step for step in blended.steps if step.phase is StepPhase.GREP][-1]
    assert "blended with the 1 events the seeder ranks nearest (1 not among the grep's)" in (
        grep.reason
    )
    assert seeder.calls == [(QUESTION, 60, None, None)]
    # With room for every item, the words' evidence is all still offered: the blend adds.
    wide = {"now": EXAMPLE_END, "token_budget": 50_000, "max_evidence": 500}
    everything = Navigator(storage, **wide).navigate(QUESTION)  # type: ignore[arg-type]
    added = Navigator(storage, seeder=seeder, **wide).navigate(QUESTION)  # type: ignore[arg-type]
    assert set(_cited(everything.evidence)) | {event.event_id} == set(_cited(added.evidence))


def test_the_blend_puts_the_words_first_when_the_seeder_agrees(storage: InMemoryStorage) -> None:
    """A seeder ranking the words' best event first leaves it first."""
    plain = Navigator(storage, now=EXAMPLE_END, token_budget=50_000).navigate(QUESTION)
    best = plain.evidence[0]
    seeder = EventsSeeder([(best.event_ids[0], best.segment_id, 1.0)])
    blended = Navigator(storage, now=EXAMPLE_END, token_budget=50_000, seeder=seeder).navigate(
        QUESTION
    )
    assert blended.evidence[0].event_ids == best.event_ids


def test_wrong_and_failing_event_seeders_leave_the_words_ranking(storage: InMemoryStorage) -> None:
    """Unknown events, segments that do not hold the event, malformed entries, events outside
    the hinted period and a raising seeder change nothing but the path."""
    event, segment_id = _wordless_event(storage, QUESTION)
    other = next(
        node.node_id
        for node in storage.get_nodes_by_level(TocLevel.SEGMENT)
        if node.node_id != segment_id
    )
    for query in (QUESTION, f"{QUESTION} in March 2026"):
        plain = Navigator(storage, now=EXAMPLE_END, token_budget=50_000).navigate(query)
        wrong = (
            ("evt:nothing", segment_id, 1.0),
            (event.event_id, other, 1.0),
            (event.event_id, "toc:year:2026", 1.0),
            (event.event_id, segment_id),
            (event.event_id, segment_id, "high"),
            (event.event_id, segment_id, True),
            "not a triple",
        )
        for seeder in (EventsSeeder(wrong), BrokenEventsSeeder([])):
            blended = Navigator(
                storage, now=EXAMPLE_END, token_budget=50_000, seeder=seeder
            ).navigate(query, full_path=True)
            assert blended.evidence == plain.evidence
    failed = Navigator(
        storage, now=EXAMPLE_END, token_budget=50_000, seeder=BrokenEventsSeeder([])
    ).navigate(QUESTION, full_path=True)
    assert any("model server is down" in step.reason for step in failed.steps)


def test_the_seeder_is_asked_within_the_hinted_period(storage: InMemoryStorage) -> None:
    """With a time hint the seeder is asked for events of that period, and an event outside
    it is not returned."""
    event, segment_id = _wordless_event(storage, QUESTION)
    assert event.timestamp.month == 4
    seeder = EventsSeeder([(event.event_id, segment_id, 0.9)])
    result = Navigator(storage, now=EXAMPLE_END, token_budget=50_000, seeder=seeder).navigate(
        f"{QUESTION} in March 2026"
    )
    (_, _, start, end) = seeder.calls[0]
    assert start is not None
    assert end is not None
    assert (start.year, start.month, start.day) == (2026, 3, 1)
    assert event.event_id not in _cited(result.evidence)


def _walk(storage: Storage, terms: tuple[str, ...]) -> Walk:
    lens = Lens(terms)
    limits = WALK_LIMITS
    return Walk(
        storage=storage,
        lens=lens,
        trail=Trail(limits, keeps_grep=True),
        book=EvidenceBook(lens, limits.max_evidence),
    )


def test_the_seeders_events_by_a_speaker_the_question_names_go_first() -> None:
    """When a query term names a speaker, the seeder's events said by that speaker go before
    those said by others; with no term naming a speaker the seeder's order is kept."""
    conversation = tiny_conversation()
    store = conversation.storage
    segments = {
        event_id: segment
        for segment in store.get_nodes_by_level(TocLevel.SEGMENT)
        for event_id in segment.event_ids
    }
    # D1:3 is Alice's, D2:1 Bob's; the seeder ranks Alice's first.
    nearest = [
        PooledEvent(event, segments[event.event_id])
        for turn in ("D1:3", "D2:1")
        for event in conversation.events
        if event.metadata["dia_id"] == turn
    ]

    def order(terms: tuple[str, ...]) -> list[str]:
        blended = blend([], nearest, _walk(store, terms))
        return [hit.event.metadata["dia_id"] for hit in blended]

    assert order(("bob", "music")) == ["D2:1", "D1:3"]
    assert order(("music",)) == ["D1:3", "D2:1"]


def _said_by(speakers: Sequence[str]) -> list[EventHit]:
    """Hits on the tiny conversation's first segment's events, said in turn by ``speakers``."""
    conversation = tiny_conversation()
    segment = conversation.storage.get_nodes_by_level(TocLevel.SEGMENT)[0]
    return [
        EventHit(
            attrs.evolve(event, metadata={**event.metadata, SPEAKER_KEY: speaker}),
            segment,
            (),
            0.0,
            0.0,
        )
        for event, speaker in zip(conversation.events, speakers, strict=False)
    ]


def _asked(topic: str, hits: Sequence[EventHit]) -> str:
    return seeder_query(topic, hits, TermMatcher(topic_terms(topic)))


def test_the_seeder_is_asked_without_the_words_naming_a_speaker() -> None:
    """The words that name a speaker of the hits, possessives included, are left out of what
    the seeder is asked; a topic naming no speaker, or nothing but one, is asked as it is."""
    hits = _said_by(["Alice", "Bob"])
    assert _asked("What music does Bob's sister like?", hits) == "What music does sister like?"
    assert _asked("Did Alice and Bob go hiking?", hits) == "Did and go hiking?"
    assert _asked("What music does Carol like?", hits) == "What music does Carol like?"
    assert _asked("Bob?", hits) == "Bob?"
    assert _asked("What music does Bob like?", []) == "What music does Bob like?"


@given(sentences)
def test_the_seeders_query_keeps_every_other_word_in_order(topic: str) -> None:
    """What the seeder is asked is the topic's words in order, less those naming a speaker of
    the hits (here Caroline), and never empty."""
    asked = _asked(topic, _said_by(["Caroline", "Dana"]))
    words = topic.split()
    others = [word for word in words if word.casefold() != "caroline"]
    assert asked.split() == (others or words)


def test_the_navigator_asks_its_event_seeder_without_the_speakers_name() -> None:
    """A question naming a speaker reaches the event seeder without the name; one naming none
    reaches it whole."""
    store = tiny_conversation().storage
    seeder = EventsSeeder([])
    navigator = Navigator(store, token_budget=5_000, seeder=seeder)
    navigator.navigate("What instrument is Bob learning?")
    navigator.navigate("Who is learning the violin?")
    asked = [query for query, *_ in seeder.calls]
    assert asked == ["What instrument is learning?", "Who is learning the violin?"]


class _EventCountingStorage(InMemoryStorage):
    """An in-memory store that counts how often it is asked for its number of events."""

    def __init__(self) -> None:
        super().__init__()
        self.counted = 0

    def count_events(self) -> int:
        self.counted += 1
        return super().count_events()


def test_a_seeder_put_in_place_of_another_is_asked_as_what_it_is(
    storage: InMemoryStorage,
) -> None:
    """The navigator asks single events of its seeder only when that seeder ranks them, also
    after the seeder was replaced by one of another kind, and back."""
    ranker = EventsSeeder([])
    navigator = Navigator(storage, now=EXAMPLE_END, seeder=ranker)
    navigator.navigate(QUESTION)
    assert len(ranker.calls) == 1
    segments_only = FakeSegmentSeeder()
    navigator.seeder = segments_only
    navigator.navigate(QUESTION)
    assert segments_only.asked == 1
    assert len(ranker.calls) == 1
    other = EventsSeeder([])
    navigator.seeder = other
    navigator.navigate(QUESTION)
    assert len(other.calls) == 1


class FakeSegmentSeeder:
    """Names no segment and ranks no event."""

    name = "segments"

    def __init__(self) -> None:
        self.asked = 0

    def seed(
        self, query: str, *, limit: int, start: datetime | None, end: datetime | None
    ) -> Sequence[tuple[str, float]]:
        self.asked += 1
        return []


def test_a_navigation_asks_the_store_for_its_event_count_once() -> None:
    """Whether there are events to grep is asked of the store once per question."""
    store = _EventCountingStorage()
    TocBuilder(store).ingest(load_example_events()[:120])
    navigator = Navigator(store, now=EXAMPLE_END)
    store.counted = 0
    result = navigator.navigate("deploy failed")
    assert result.evidence
    assert store.counted == 1
