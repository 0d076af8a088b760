"""The evidence offered (:mod:`tocsearch.navigate._answer`) reads grips only where they can
lead to events: in a store that holds no event (a tree kept without its events), statements
cite none, no grip is read, and the answer is the one reading them would give."""

from __future__ import annotations

from collections.abc import Iterable
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import planted_histories, planted_token

from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip
from tocsearch.navigate import Navigator
from tocsearch.navigate import navigator as navigator_module
from tocsearch.navigate._answer import candidates
from tocsearch.navigate.result import EvidenceKind
from tocsearch.storage import InMemoryStorage


class CountingStorage(InMemoryStorage):
    """An in-memory store that counts the grips asked of it."""

    def __init__(self) -> None:
        super().__init__()
        self.grips_asked = 0

    def find_grips(self, grip_ids: Iterable[str]) -> dict[str, Grip]:
        wanted = list(grip_ids)
        self.grips_asked += len(wanted)
        return super().find_grips(wanted)


def without_events(events: list[Event]) -> CountingStorage:
    """The tree and grips built from ``events``, kept without the events themselves."""
    built = InMemoryStorage()
    TocBuilder(built).ingest(events)
    copy = CountingStorage()
    for level in TocLevel:
        copy.put_nodes(built.get_nodes_by_level(level))
    for grip_id in built.iter_grip_ids():
        copy.put_grip(built.get_grip(grip_id))
    assert copy.count_events() == 0
    return copy


def reading_grips(*args: object, **kwargs: object) -> object:
    """:func:`candidates` told that the store may hold events, so it reads every grip."""
    return candidates(*args, **{**kwargs, "any_events": True})  # type: ignore[arg-type]


@given(events=planted_histories(), picks=st.lists(st.integers(0, 23), min_size=1, max_size=3))
@settings(max_examples=25)
def test_a_store_without_events_reads_no_grip_and_answers_alike(
    events: list[Event], picks: list[int]
) -> None:
    """Over a tree kept without its events, a navigator reads no grip for a topical or a
    time-only question, cites no event, and answers as it does when it reads the grips."""
    storage = without_events(events)
    words = " ".join(planted_token(index % len(events)) for index in picks)
    now = events[-1].timestamp
    for question in (words, "what happened yesterday?", "recap of today"):
        storage.grips_asked = 0
        answer = Navigator(storage, now=now).navigate(question)
        assert storage.grips_asked == 0
        assert all(item.event_ids == () for item in answer.evidence)
        assert all(item.kind is not EvidenceKind.EVENT for item in answer.evidence)
        with mock.patch.object(navigator_module, "candidates", reading_grips):
            assert Navigator(storage, now=now).navigate(question) == answer
        # The answer compared with reads grips: the comparison is not of two shortcuts.
        if any(item.grip_ids for item in answer.evidence):
            assert storage.grips_asked > 0


@given(events=planted_histories())
@settings(max_examples=10)
def test_a_store_with_events_still_reads_the_grips(events: list[Event]) -> None:
    """With its events stored, a time-only question reads the grips of the statements it
    offers, to find the events they cite."""
    storage = CountingStorage()
    TocBuilder(storage).ingest(events)
    answer = Navigator(storage, now=events[-1].timestamp).navigate("recap of today")
    statements = [item for item in answer.evidence if item.grip_ids]
    if statements:
        assert storage.grips_asked > 0
