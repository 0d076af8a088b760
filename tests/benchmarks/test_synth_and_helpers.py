"""The synthetic history generator, the lexical baselines and the timing helpers."""

from __future__ import annotations

import random

import attrs
import pytest
from benchmarks._lexical import Bm25sIndex, Fts5Index, fts5_query, word_terms
from benchmarks._speed import load_tree
from benchmarks._timing import percentile, time_calls, timing_of
from benchmarks.synth import Vocabulary, generate_events, generate_tree
from hypothesis import given
from hypothesis import strategies as st

from tocsearch import ids
from tocsearch.digest import TermDigest
from tocsearch.errors import InvalidArgument
from tocsearch.levels import TocLevel
from tocsearch.models import EventRole
from tocsearch.storage.memory import InMemoryStorage


def test_same_seed_gives_the_same_tree() -> None:
    """Generation is deterministic: two runs with one seed produce equal nodes and grips."""
    assert generate_tree(120, years=1, seed=4) == generate_tree(120, years=1, seed=4)
    assert generate_tree(120, years=1, seed=4) != generate_tree(120, years=1, seed=5)


@given(st.integers(1, 120), st.integers(1, 40))
def test_tree_has_the_requested_segments_and_a_strict_hierarchy(segments: int, days: int) -> None:
    """Every requested segment exists with 5 bullets and at most 7 keywords, and every node
    is listed by exactly the parent its id names, whose span covers it."""
    tree = generate_tree(segments, days=days, topics=2, occurrences=1)
    assert len(tree.segments) == segments
    assert all(len(node.bullets) == 5 and len(node.keywords) <= 7 for node in tree.segments)
    by_id = {node.node_id: node for node in (*tree.segments, *tree.rollups)}
    assert len(by_id) == len(tree.segments) + len(tree.rollups)
    listed = [child for node in tree.rollups for child in node.child_node_ids]
    assert sorted(listed) == sorted(n for n in by_id if ids.level_of(n) is not TocLevel.YEAR)
    for node in by_id.values():
        parent = ids.parent_id(node.node_id)
        if parent is None:
            continue
        holder = by_id[parent]
        assert node.node_id in holder.child_node_ids
        assert holder.start_time <= node.start_time <= node.end_time <= holder.end_time


def test_planted_topics_sit_in_their_segments() -> None:
    """Each planted topic's words appear in the first bullet of each segment it was planted in,
    and a month hint names that segment's month."""
    tree = generate_tree(500, years=1, topics=4, occurrences=2)
    for topic in tree.topics:
        assert len(topic.places) == 2
        for place in topic.places:
            segment = tree.segments[place]
            assert all(word in segment.bullets[0].text.split() for word in topic.words)
            month = segment.start_time.strftime("%B %Y")
            assert tree.month_hint(place) == f"in {month}"


def test_tree_loads_into_a_store_and_grips_resolve() -> None:
    """The generated nodes and grips store cleanly, and every bullet's grip is stored."""
    tree = generate_tree(50, days=3)
    storage = InMemoryStorage()
    storage.put_nodes([*tree.segments, *tree.rollups])
    storage.put_grips(tree.grips)
    storage.check()
    for node in tree.segments:
        for bullet in node.bullets:
            assert all(storage.find_grip(grip) is not None for grip in bullet.grip_ids)


@given(st.integers(1, 60), st.integers(1, 12))
def test_a_tree_with_events_is_the_same_tree_whose_grips_cover_stored_events(
    segments: int, days: int
) -> None:
    """A tree made with events has the nodes, grips and topics of the one made without (but
    for the segments' event ids and the digests); each bullet's grip covers a user message
    and the assistant message that the bullet quotes, both stored and owned by its segment,
    and every digest may hold every word of its events."""
    bare = generate_tree(segments, days=days, topics=2, occurrences=1)
    tree = generate_tree(segments, days=days, topics=2, occurrences=1, with_events=True)
    assert tree.grips == bare.grips
    assert tree.topics == bare.topics
    assert bare.events == ()
    for ours, theirs in zip(
        (*tree.segments, *tree.rollups), (*bare.segments, *bare.rollups), strict=True
    ):
        assert attrs.evolve(ours, event_ids=(), digest="") == attrs.evolve(
            theirs, event_ids=(), digest=""
        )
    storage = InMemoryStorage()
    load_tree(tree, storage)
    storage.check()
    assert [event.event_id for event in tree.events] == sorted(e.event_id for e in tree.events)
    assert storage.count_events() == len(tree.events) == 10 * segments
    parents = {node.node_id: node for node in tree.rollups}
    for segment in tree.segments:
        owned: list[str] = []
        for bullet in segment.bullets:
            (grip_id,) = bullet.grip_ids
            grip = storage.get_grip(grip_id)
            asked, answered = storage.get_event_range(grip.event_id_start, grip.event_id_end)
            assert (asked.role, answered.role) == (EventRole.USER, EventRole.ASSISTANT)
            assert answered.text == bullet.text
            owned += [asked.event_id, answered.event_id]
        assert segment.event_ids == tuple(owned)
        day = parents[ids.parent_id(segment.node_id) or ""]
        words = {
            word
            for event in storage.get_event_range(owned[0], owned[-1])
            for word in event.text.split()
        }
        for digest in (segment.digest, day.digest):
            assert all(TermDigest.from_text(digest).may_contain(word) for word in words)


def test_generated_events_are_ordered_and_carry_their_topics() -> None:
    """Events come in id (time) order, one session at a time, and each planted topic's words
    appear in the sessions it was planted in."""
    events, topics = generate_events(
        days=3, sessions_per_day=4, events_per_session=5, topics=2, occurrences=2
    )
    assert len(events) == 3 * 4 * 5
    assert [e.event_id for e in events] == sorted(e.event_id for e in events)
    for topic in topics:
        for place in topic.places:
            text = " ".join(e.text for e in events if e.session_id == f"s{place:07d}")
            assert all(word in text for word in topic.words)


def test_generator_refuses_bad_sizes() -> None:
    """Zero segments, days or events per session are refused with the value named."""
    with pytest.raises(InvalidArgument, match="segments"):
        generate_tree(0)
    with pytest.raises(InvalidArgument, match="days"):
        generate_tree(10, days=0)
    with pytest.raises(InvalidArgument, match="events_per_session"):
        generate_events(days=1, sessions_per_day=1, events_per_session=0)


def test_vocabulary_is_zipf_shaped() -> None:
    """The commonest word is drawn far more often than a word a hundred ranks down."""
    words = Vocabulary(1000)
    drawn = words.sample(random.Random(1), 20000)
    assert drawn.count(words.words[0]) > 10 * drawn.count(words.words[100])
    assert len(set(words.words)) == 1000
    assert all(len(word) >= 3 for word in words.words)


def test_fts5_query_quotes_every_term() -> None:
    """FTS5 operators and quotes in a question are only ever searched as words."""
    assert fts5_query('NOT "x" AND y*') == '"not" OR "x" OR "and" OR "y"'
    assert fts5_query("?!") is None
    assert word_terms("Bob's bob") == ["bob", "s"]


def test_fts5_index_ranks_and_refuses_repeated_keys() -> None:
    """The document sharing the rarer term ranks first; a repeated key is refused."""
    index = Fts5Index([("a", "common words here"), ("b", "common rare words")])
    assert index.search("rare common", 10) == ["b", "a"]
    assert index.search("absent", 10) == []
    assert len(index) == 2
    with pytest.raises(InvalidArgument, match="'a'"):
        Fts5Index([("a", "x"), ("a", "y")])


def test_bm25s_index_leaves_out_documents_without_shared_terms() -> None:
    """bm25s returns only documents that share a term, best first."""
    index = Bm25sIndex([("a", "cats and dogs"), ("b", "violin lessons"), ("c", "cats cats")])
    assert index.search("cats", 10) == ["c", "a"]
    assert index.search("absent", 10) == []


def test_percentile_is_nearest_rank() -> None:
    """p50 of four values is the second smallest; p99 of 100 values is the 99th."""
    assert percentile([4.0, 1.0, 3.0, 2.0], 0.5) == 2.0
    assert percentile([float(v) for v in range(1, 101)], 0.99) == 99.0
    with pytest.raises(InvalidArgument):
        percentile([], 0.5)
    with pytest.raises(InvalidArgument, match=r"1\.5"):
        percentile([1.0], 1.5)


@given(st.lists(st.floats(0, 1e3), min_size=1, max_size=50))
def test_timing_is_ordered(values: list[float]) -> None:
    """min <= median <= p90 <= p99 <= max, whatever the durations."""
    timing = timing_of(values)
    assert min(values) <= timing.median <= timing.p90 <= timing.p99 <= max(values)
    assert timing.calls == len(values)


def test_time_calls_calls_once_per_argument_per_repeat() -> None:
    """Each argument is timed once per repeat, after the untimed warm-up calls."""
    seen: list[int] = []
    timing = time_calls(seen.append, [1, 2, 3], repeat=2, warmup=1)
    assert seen == [1, 1, 2, 3, 1, 2, 3]
    assert timing.calls == 6
