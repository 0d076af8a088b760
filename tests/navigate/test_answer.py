"""The evidence offered (:mod:`tocsearch.navigate._answer`) reads grips only where they can
lead to events: in a store that holds no event (a tree kept without its events), statements
cite none, no grip is read, and the answer is the one reading them would give. What only an
item shown whole says is read as the fit reads the item whole, and the answer is the one
reading every item whole first would give."""

from __future__ import annotations

from collections.abc import Iterable
from unittest import mock

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests.strategies import planted_histories, planted_token

from tocsearch.errors import InvalidArgument
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, event_project
from tocsearch.navigate import Navigator
from tocsearch.navigate import navigator as navigator_module
from tocsearch.navigate._answer import Offered, candidates
from tocsearch.navigate._fit import _lean, _slimmed
from tocsearch.navigate.result import Evidence, EvidenceKind, NavigationResult
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
@settings(max_examples=scaled(25))
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
@settings(max_examples=scaled(10))
def test_a_store_with_events_still_reads_the_grips(events: list[Event]) -> None:
    """With its events stored, a time-only question reads the grips of the statements it
    offers, to find the events they cite."""
    storage = CountingStorage()
    TocBuilder(storage).ingest(events)
    answer = Navigator(storage, now=events[-1].timestamp).navigate("recap of today")
    statements = [item for item in answer.evidence if item.grip_ids]
    if statements:
        assert storage.grips_asked > 0


def whole_of(storage: InMemoryStorage, item: Evidence) -> Evidence:
    """``item`` as an answer shows it whole, worked out from the store on its own: an event
    with the grips of its segment's bullets whose range holds it, a statement with the
    project and session of its segment's first event."""
    segment = storage.get_node(item.segment_id)
    if item.kind is EvidenceKind.EVENT:
        (event_id,) = item.event_ids
        holding = []
        grips = storage.find_grips(g for bullet in segment.bullets for g in bullet.grip_ids)
        for bullet in segment.bullets:
            for grip_id in bullet.grip_ids:
                grip = grips[grip_id]
                if grip.event_id_start <= event_id <= grip.event_id_end:
                    holding.append(grip_id)
        return attrs.evolve(item, grip_ids=tuple(dict.fromkeys(holding)))
    first = storage.get_event(segment.event_ids[0])
    return attrs.evolve(item, project=event_project(first), session_id=first.session_id)


class _EagerOffer(list[Evidence]):
    """Every offered item made whole before the fit (by :func:`whole_of`), and said of as a
    whole, slimmed and leaned from those whole items: the answer as it was before items were
    read whole as the fit asks."""

    @property
    def bare(self) -> list[Evidence]:
        return self


def reading_everything(storage: InMemoryStorage) -> object:
    """:func:`candidates` with every item made whole at once, from the store alone."""

    def offer(*args: object, **kwargs: object) -> object:
        offered = candidates(*args, **kwargs)  # type: ignore[arg-type]
        return _EagerOffer(whole_of(storage, item) for item in offered.bare)

    return offer


def _answer_or_error(navigator: Navigator, question: str) -> NavigationResult | str:
    try:
        return navigator.navigate(question)
    except InvalidArgument as error:
        return str(error)


@given(
    events=planted_histories(),
    picks=st.lists(st.integers(0, 23), min_size=1, max_size=3),
    budget=st.sampled_from([160, 240, 400, 700, 2000]),
    limit=st.integers(1, 12),
)
@settings(max_examples=scaled(40))
def test_items_read_whole_as_the_fit_asks_answer_as_reading_them_all_first(
    events: list[Event], picks: list[int], budget: int, limit: int
) -> None:
    """Reading an item's grips and conversation only when the fit reads it whole gives the
    answer that reading every offered item whole first gives, at any budget, and asks the
    store for no more grips."""
    storage = CountingStorage()
    TocBuilder(storage).ingest(events)
    words = " ".join(planted_token(index % len(events)) for index in picks)
    common = events[0].text.split()[0]
    now = events[-1].timestamp
    for question in (words, f"{words} {common}", common, "recap of today"):
        storage.grips_asked = 0
        navigator = Navigator(storage, now=now, token_budget=budget, max_evidence=limit)
        answer = _answer_or_error(navigator, question)
        lazily = storage.grips_asked
        storage.grips_asked = 0
        with mock.patch.object(navigator_module, "candidates", reading_everything(storage)):
            eager = Navigator(storage, now=now, token_budget=budget, max_evidence=limit)
            assert _answer_or_error(eager, question) == answer
        assert lazily <= storage.grips_asked


@given(events=planted_histories(), order=st.permutations(range(8)))
@settings(max_examples=scaled(25))
def test_an_offered_item_read_whole_is_the_same_in_any_order(
    events: list[Event], order: list[int]
) -> None:
    """Each offered item read whole is the item as read with all before it, whichever items
    were read first; its bare form differs only in what whole forms add (an event's grips,
    a statement's conversation), and slims and leans alike."""
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(events)
    navigator = Navigator(storage, now=events[-1].timestamp, max_evidence=8)
    offered: list[Offered] = []

    def keeping(*args: object, **kwargs: object) -> object:
        made = candidates(*args, **kwargs)  # type: ignore[arg-type]
        offered.append(made)
        return made

    question = " ".join(planted_token(index) for index in range(0, len(events), 3))
    with mock.patch.object(navigator_module, "candidates", keeping):
        navigator.navigate(f"{question} {events[0].text.split()[0]}")
    (first,) = offered
    with mock.patch.object(navigator_module, "candidates", keeping):
        navigator.navigate(f"{question} {events[0].text.split()[0]}")
    second = offered[1]
    whole = list(first)
    assert [second[index] for index in order if index < len(second)] == [
        whole[index] for index in order if index < len(whole)
    ]
    assert whole == [whole_of(storage, bare) for bare in first.bare]
    for bare, item in zip(first.bare, whole, strict=True):
        assert _slimmed([bare]) == _slimmed([item])
        assert _lean(bare) == _lean(item)
