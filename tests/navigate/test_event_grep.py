"""Term weighting and the final grep over raw events: rare terms dominate, the exact events are
returned as evidence with their ids, and the budget still holds."""

from __future__ import annotations

from datetime import timedelta

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.budget import limit_named, rendered_tokens
from tests._support.examples import scaled
from tests._support.navtree import utc

from tocsearch import ids
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import Event, EventRole, EventType, TocNode
from tocsearch.navigate import EvidenceKind, Navigator, cited_event_ids
from tocsearch.navigate._events import SPEAKER_KEY, PooledEvent, rank_events
from tocsearch.navigate._weights import TermMatcher, TermWeights
from tocsearch.storage import InMemoryStorage


def test_terms_match_at_word_starts_with_short_suffixes() -> None:
    """'car' finds 'cars' but not 'Caroline'; numbers match inside 'INC-2291'."""
    matcher = TermMatcher(("car", "2291"))
    assert matcher.counts("Caroline bought two cars") == {"car": 1}
    assert matcher.present("postmortem of INC-2291.") == frozenset({"2291"})


def test_a_rare_term_weighs_more_than_a_common_one() -> None:
    """Among candidates, the term fewer of them hold gets the larger weight."""
    weights = TermWeights(("path", "postgres"), [{"path"}, {"path"}, {"path", "postgres"}])
    assert weights.weight["postgres"] > weights.weight["path"]
    assert weights.share({"postgres"}) > weights.share({"path"})


def _history() -> InMemoryStorage:
    lines = [
        "Let's plan the lunch order for Friday.",
        "Pizza again, I suppose.",
        "Which database should the quokkaflux service use?",
        "Postgres, with logical replication for the cutover.",
        "Thanks, noted.",
    ]
    events = []
    start = utc(2026, 3, 2, 9)
    for index, text in enumerate(lines * 4):
        at = start + timedelta(days=index // len(lines), minutes=index)
        events.append(
            Event(
                event_id=f"evt:{int(at.timestamp() * 1000):013d}:e{index}",
                session_id=f"s{index // len(lines)}",
                timestamp=at,
                role=EventRole.USER if index % 2 == 0 else EventRole.ASSISTANT,
                event_type=EventType.USER_MESSAGE
                if index % 2 == 0
                else EventType.ASSISTANT_MESSAGE,
                text=text,
            )
        )
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(events)
    return storage


def test_grep_returns_the_matching_events_with_their_ids() -> None:
    """A topical question ends with a grep step and event evidence that names its event, the
    matching line and the reply after it ranked first."""
    storage = _history()
    result = Navigator(storage, now=utc(2026, 3, 10)).navigate("quokkaflux database")
    assert result.steps[-1].phase.value == "grep"
    first = result.evidence[0]
    assert first.kind is EvidenceKind.EVENT
    assert first.field is None
    assert "quokkaflux" in first.text
    assert first.event_ids
    assert storage.get_event(first.event_ids[0]).text == first.text
    texts = [item.text for item in result.evidence[:3]]
    assert any(text.startswith("Postgres") for text in texts)
    for item in result.evidence:
        for grip_id in item.grip_ids:
            grip = storage.get_grip(grip_id)
            if item.kind is EvidenceKind.EVENT:
                assert grip.event_id_start <= item.event_ids[0] <= grip.event_id_end
    cited = [item.event_ids[0] for item in result.evidence if item.kind is EvidenceKind.EVENT]
    assert cited_event_ids(result.to_markdown()) == tuple(cited)


@given(budget=st.integers(200, 1500), iterations=st.integers(1, 8))
@settings(max_examples=scaled(20), deadline=None)
def test_limits_hold_with_events(budget: int, iterations: int) -> None:
    """With events to grep, the rendered result stays within the budget (and tokens_used
    says what it costs), iterations within the limit, and a walk cut short says so."""
    result = Navigator(
        _STORE, now=utc(2026, 3, 10), token_budget=budget, max_iterations=iterations
    ).navigate("quokkaflux database cutover")
    assert rendered_tokens(result) <= result.tokens_used <= budget
    assert result.iterations <= iterations
    unbounded = Navigator(
        _STORE, now=utc(2026, 3, 10), token_budget=100_000, max_iterations=iterations
    ).navigate("quokkaflux database cutover")
    # Whatever a walk finds, some of it is returned.
    assert bool(result.evidence) == bool(unbounded.evidence)
    cited = [item.event_ids for item in result.evidence if item.kind is EvidenceKind.EVENT]
    assert len(cited) == len(set(cited))
    if result.partial:
        assert limit_named(result.reason), result.reason


_STORE = _history()


def _dialogue(lines: list[tuple[str, str]], *, session: str = "s0") -> list[Event]:
    """One session of turns, each ``(speaker, text)``, a minute apart, labelled as LoCoMo's
    importer labels them: the speaker in the metadata and before the text."""
    start = utc(2026, 3, 2, 9)
    events = []
    for index, (speaker, text) in enumerate(lines):
        at = start + timedelta(minutes=index)
        events.append(
            Event(
                event_id=ids.event_id(at, f"{session}.{index:02d}"),
                session_id=session,
                timestamp=at,
                role=EventRole.USER,
                event_type=EventType.USER_MESSAGE,
                text=f"{speaker}: {text}",
                metadata={SPEAKER_KEY: speaker},
            )
        )
    return events


def _pool(events: list[Event]) -> list[PooledEvent]:
    segment = TocNode(
        node_id=ids.segment_id(events[0].timestamp.date(), "a"),
        level=TocLevel.SEGMENT,
        title="chat",
        start_time=events[0].timestamp,
        end_time=events[-1].timestamp,
        event_ids=tuple(event.event_id for event in events),
    )
    return [PooledEvent(event, segment) for event in events]


def test_a_speaker_named_in_the_question_is_held_by_what_they_said() -> None:
    """'Ann' in a question finds Ann's turns, not Bob's turn that addresses her by name, even
    though Bob's turn is newer and its text holds every term."""
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(
        _dialogue(
            [
                ("Ann", "I saw the quokka exhibit at the zoo today."),
                ("Bob", "Lovely! What did you like best?"),
                ("Bob", "Ann, the quokka exhibit photo you sent is great."),
            ]
        )
    )
    result = Navigator(storage, now=utc(2026, 3, 10)).navigate(
        "What did Ann say about the quokka exhibit?"
    )
    first = result.evidence[0]
    assert first.text.startswith("Ann: I saw the quokka exhibit")
    assert first.matched_terms == ("ann", "quokka", "exhibit")
    bob = next(item for item in result.evidence if item.text.startswith("Bob: Ann,"))
    assert "ann" not in bob.matched_terms


def test_with_a_speaker_named_the_context_moved_up_is_their_own_turns() -> None:
    """Behind the best hit come the named speaker's turns around it (the one before, then the
    one after), not the other speaker's reply in between."""
    events = _dialogue(
        [
            ("Bob", "How was the weekend?"),
            ("Ann", "Busy, I went to the zoo."),
            ("Bob", "Which animals did you see?"),
            ("Ann", "Mostly the quokka enclosure."),
            ("Bob", "Cute!"),
            ("Ann", "They were napping in the shade all afternoon."),
        ]
    )
    pool = _pool(events)
    terms = ("ann", "quokka")
    hits = rank_events(pool, TermMatcher(terms), terms, {})
    order = [hit.event.text for hit in hits]
    assert order[:3] == [events[3].text, events[1].text, events[5].text]


def test_without_a_speaker_named_the_turns_after_the_best_hit_follow_it() -> None:
    """A question that names no speaker keeps grep's after-context: the turns just after the
    best hit are moved up behind it, whoever said them."""
    events = _dialogue(
        [
            ("Ann", "Anything new?"),
            ("Bob", "The quokka enclosure reopened."),
            ("Ann", "Finally!"),
            ("Bob", "The keepers rebuilt the shelter."),
        ]
    )
    terms = ("quokka",)
    hits = rank_events(_pool(events), TermMatcher(terms), terms, {})
    assert [hit.event.text for hit in hits][:3] == [event.text for event in events[1:]]


_FILLERS = ["Fun.", "Yes.", "Sure.", "Right.", "Okay.", "Hmm.", "Well."]


def test_a_hit_further_down_that_asks_is_followed_by_its_reply() -> None:
    """A hit below the best two that asks a question is followed by the turn after it, its
    reply, though the reply holds no term and the turns around the best hits score more."""
    turns = [
        ("Ann", "The quokka quokka quokka show was on."),
        *[("Bob" if i % 2 == 0 else "Ann", text) for i, text in enumerate(_FILLERS)],
        ("Ann", "And the quokka quokka quokka keeper spoke."),
        *[("Bob" if i % 2 == 0 else "Ann", text) for i, text in enumerate(_FILLERS)],
        ("Ann", "Did you see the quokka?"),
        ("Bob", "Yes, asleep in the shade."),
    ]
    events = _dialogue(turns)
    terms = ("quokka",)
    hits = rank_events(_pool(events), TermMatcher(terms), terms, {})
    order = [hit.event.text for hit in hits]
    asked = order.index(events[-2].text)
    assert asked >= 2
    assert order[asked + 1] == events[-1].text
    # Scored alone, the reply ranks below turns that only sit near the best hits.
    assert min(hit.score for hit in hits[:asked]) > hits[asked + 1].score


@given(
    turns=st.lists(
        st.tuples(
            st.sampled_from(("Ann", "Bob")),
            st.sampled_from(("the quokka?", "a quokka", "quokka quokka", "ok", "why?")),
        ),
        min_size=1,
        max_size=24,
    ),
    named=st.booleans(),
)
def test_context_moves_only_reorder_the_hits(turns: list[tuple[str, str]], named: bool) -> None:
    """Moving context up behind hits (after-context, a named speaker's turns, the reply to a
    question) changes the order only: every event holding a term or next to one is returned
    exactly once, and the best one first."""
    events = _dialogue(turns)
    terms = ("ann", "quokka") if named else ("quokka",)
    hits = rank_events(_pool(events), TermMatcher(terms), terms, {})
    returned = [hit.event.event_id for hit in hits]
    assert len(returned) == len(set(returned))
    holding = [i for i, e in enumerate(events) if "quokka" in e.text or (named and "Ann" in e.text)]
    near = {j for i in holding for j in range(i - 1, i + 7) if 0 <= j < len(events)}
    assert set(returned) == {events[j].event_id for j in near} if holding else not returned
    if hits:
        assert hits[0].score == max(hit.score for hit in hits)


@given(
    turns=st.lists(
        st.tuples(st.sampled_from(("Ann", "Bob", "Cy")), st.sampled_from(("Ann", "Bob", ""))),
        min_size=1,
        max_size=12,
    )
)
def test_a_speaker_term_is_held_exactly_by_that_speakers_events(
    turns: list[tuple[str, str]],
) -> None:
    """When Ann said any of the events, an event holds the term 'ann' if and only if she said
    it, whoever the texts address; when she said none, 'ann' is matched in the text like any
    term. Other terms are always matched in the text."""
    events = _dialogue(
        [(speaker, f"{addressee} the quokka".strip()) for speaker, addressee in turns]
    )
    terms = ("ann", "quokka")
    hits = rank_events(_pool(events), TermMatcher(terms), terms, {})
    assert len(hits) == len(events)
    speaks = any(speaker == "Ann" for speaker, _ in turns)
    for hit in hits:
        said = hit.event.metadata[SPEAKER_KEY] == "Ann"
        named = "Ann" in hit.event.text
        assert ("ann" in hit.matched) == (said if speaks else named)
        assert "quokka" in hit.matched


def test_a_turn_whose_session_holds_the_other_terms_ranks_first() -> None:
    """Of two equal turns holding one term, the one whose session says the question's other
    terms elsewhere ranks first, though the other is newer and its segment summary is equal."""
    older = _dialogue(
        [
            ("Ann", "The quokka was asleep."),
            ("Bob", "Oh well."),
            ("Ann", "Anyway."),
            ("Bob", "Right."),
            ("Ann", "We also went to the zoo to see the penguin exhibit."),
        ],
        session="s0",
    )
    newer = [
        attrs.evolve(
            event,
            event_id=ids.event_id(event.timestamp + timedelta(days=1), f"s1.{i}"),
            session_id="s1",
            timestamp=event.timestamp + timedelta(days=1),
        )
        for i, event in enumerate(
            _dialogue(
                [
                    ("Ann", "The quokka was asleep."),
                    ("Bob", "Oh well."),
                    ("Ann", "Anyway."),
                    ("Bob", "Right."),
                    ("Ann", "We also went to the shops for new shoes."),
                ],
                session="s1",
            )
        )
    ]
    pool = _pool(older) + _pool(newer)
    terms = ("quokka", "zoo", "exhibit")
    hits = rank_events(pool, TermMatcher(terms), terms, {})
    quokkas = [hit.event.event_id for hit in hits if hit.event.text.endswith("quokka was asleep.")]
    assert quokkas == [older[0].event_id, newer[0].event_id]
