"""Histories with needles: each needle's terms are said once, in one raw turn; the history
round-trips through the JSONL importer; leaks into the tree are detected."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from benchmarks._planted import (
    SPARE,
    Needle,
    leaked_needles,
    needle_word,
    pick_needles,
    plant_history,
    write_jsonl,
)
from benchmarks.synth import Vocabulary, month_hint
from hypothesis import given
from hypothesis import strategies as st

from tocsearch import ids
from tocsearch.errors import InvalidArgument
from tocsearch.importers import load_jsonl
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.storage.memory import InMemoryStorage

WORD = re.compile(r"\w+")


@given(st.integers(0, 5000), st.integers(0, 5000))
def test_needle_words_are_distinct_and_prefix_no_other_word(a: int, b: int) -> None:
    """Two needle words of different indexes differ, and neither starts the other."""
    if a != b:
        first, second = needle_word(a), needle_word(b)
        assert not first.startswith(second)
        assert not second.startswith(first)


def test_needle_words_are_no_prefix_of_a_vocabulary_word() -> None:
    """No needle word starts a generated word, and no generated word starts a needle word."""
    needles = [needle_word(index) for index in range(300)]
    for word in Vocabulary().words:
        assert not any(word.startswith(n) or n.startswith(word) for n in needles)


def test_every_needle_term_is_said_once_in_its_own_turn() -> None:
    """Each term occurs as a word in exactly one event, the needle's; every size from 1 to 3
    terms is planted SPARE times the count asked; events stay in time order."""
    history = plant_history(800, needles_per_size=2, seed=5)
    assert [e.timestamp for e in history.events] == sorted(e.timestamp for e in history.events)
    assert len({e.event_id for e in history.events}) == len(history.events)
    sizes = [len(needle.terms) for needle in history.needles]
    assert {size: sizes.count(size) for size in (1, 2, 3)} == {
        1: 2 * SPARE,
        2: 2 * SPARE,
        3: 2 * SPARE,
    }
    holders: dict[str, list[str]] = {}
    terms = {term for needle in history.needles for term in needle.terms}
    for event in history.events:
        for word in set(WORD.findall(event.text)) & terms:
            holders.setdefault(word, []).append(event.event_id)
    for needle in history.needles:
        for term in needle.terms:
            assert holders[term] == [needle.event_id]
    assert len({needle.event_id for needle in history.needles}) == len(history.needles)
    assert history.end == history.events[-1].timestamp


def test_history_refuses_impossible_sizes() -> None:
    """More needles than events, or a count below 1, is refused with the numbers."""
    with pytest.raises(InvalidArgument, match="do not fit"):
        plant_history(16, needles_per_size=5)
    with pytest.raises(InvalidArgument, match="needles_per_size"):
        plant_history(100, needles_per_size=0)


def test_history_round_trips_through_the_jsonl_importer(tmp_path: Path) -> None:
    """What write_jsonl writes, load_jsonl reads back as the same events."""
    history = plant_history(200, needles_per_size=1, seed=3)
    path = tmp_path / "history.jsonl"
    assert write_jsonl(history.events, path) == len(history.events)
    assert list(load_jsonl(path).events) == list(history.events)


def test_leaked_needles_are_those_whose_terms_reach_the_tree() -> None:
    """A needle term in a keyword (any case) marks its needle leaked; a needle whose terms only
    occur inside a longer word, or nowhere, is not."""
    when = datetime(2024, 3, 5, tzinfo=timezone.utc)
    kept = Needle(("stovbrink",), "evt:1", when)
    leaked = Needle(("stovstovk", "stovglapk"), "evt:2", when)
    storage = InMemoryStorage()
    storage.put_node(
        TocNode(
            node_id=ids.segment_id(when.date(), "s1"),
            level=TocLevel.SEGMENT,
            title="xstovbrinkx about things",
            start_time=when,
            end_time=when,
            keywords=("STOVGLAPK",),
        )
    )
    assert leaked_needles(storage, [kept, leaked]) == (leaked,)


@given(
    sizes=st.lists(st.integers(1, 3), max_size=40),
    leaked=st.sets(st.integers(0, 39)),
    per_size=st.integers(1, 5),
)
def test_pick_needles_takes_the_first_unleaked_of_each_size(
    sizes: list[int], leaked: set[int], per_size: int
) -> None:
    """At most per_size of each size, none leaked, in the order given, and as many as the
    unleaked needles of that size allow."""
    when = datetime(2024, 1, 1, tzinfo=timezone.utc)
    needles = [Needle(("w",) * size, f"e{n}", when) for n, size in enumerate(sizes)]
    picked = pick_needles(needles, {f"e{n}" for n in leaked}, per_size)
    assert all(n.event_id not in {f"e{i}" for i in leaked} for n in picked)
    assert [needles.index(n) for n in picked] == sorted(needles.index(n) for n in picked)
    for size in (1, 2, 3):
        free = [n for i, n in enumerate(needles) if len(n.terms) == size and i not in leaked]
        assert [n for n in picked if len(n.terms) == size] == free[:per_size]


def test_month_hint_names_the_month() -> None:
    """The hint is the one the navigator's time parser reads: "in <Month> <year>"."""
    assert (
        month_hint(datetime(2023, 12, 31, 23, 59, tzinfo=timezone.utc).date()) == "in December 2023"
    )
    needle = Needle(("stovbrink",), "evt:1", datetime(2024, 3, 5, tzinfo=timezone.utc))
    assert needle.hinted_query == "stovbrink in March 2024"
