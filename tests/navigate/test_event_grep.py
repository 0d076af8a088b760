"""Term weighting and the final grep over raw events: rare terms dominate, the exact events are
returned as evidence with their ids, and the budget still holds."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from navigate.navtree import utc
from tocsearch.build import TocBuilder
from tocsearch.models import Event, EventRole, EventType
from tocsearch.navigate import EvidenceKind, Navigator
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
    assert "[evt:" in result.to_markdown()


@given(budget=st.integers(1, 1500), iterations=st.integers(1, 8))
@settings(max_examples=20, deadline=None)
def test_limits_hold_with_events(budget: int, iterations: int) -> None:
    """With events to grep, tokens_used stays within the budget and iterations within the
    limit, and a walk cut short says so."""
    result = Navigator(
        _STORE, now=utc(2026, 3, 10), token_budget=budget, max_iterations=iterations
    ).navigate("quokkaflux database cutover")
    assert result.tokens_used <= budget
    assert result.iterations <= iterations
    cited = [item.event_ids for item in result.evidence if item.kind is EvidenceKind.EVENT]
    assert len(cited) == len(set(cited))
    if result.partial:
        assert "exhausted" in result.reason or "max_iterations" in result.reason


_STORE = _history()
