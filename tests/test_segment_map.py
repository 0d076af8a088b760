"""Segment maps: each segment's digest of a day side by side, never ruling out a segment its
own digest keeps, stored behind the day digest where a plain digest reader does not see it."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tocsearch._segment_map import (
    MAX_ROW_BITS,
    SegmentMap,
    at_least,
    attach,
    positions,
    split,
    without_map,
)
from tocsearch.digest import TermDigest
from tocsearch.navigate._terms import topic_terms
from tocsearch.navigate._weights import TermMatcher

words = st.text(alphabet="abcdeéßTOK019._-+#/", min_size=1, max_size=14)
texts = st.lists(words, max_size=40).map(" ".join)
# A segment's digest, or None for a segment without one.
segments = st.lists(st.one_of(texts, st.none()), min_size=1, max_size=20)


def _digests(values: list[str | None]) -> list[TermDigest | None]:
    return [None if text is None else TermDigest.sized_for([text]) for text in values]


def _ids(count: int) -> list[str]:
    return [f"toc:segment:2026-01-05:s{index}" for index in range(count)]


def _held(smap: SegmentMap, probes: list[tuple[int, ...] | None], count: int) -> list[int]:
    """For each of ``count`` segments, how many of the terms its row may hold."""
    masks = smap.masks(probes)
    return [sum((mask >> index) & 1 for mask in masks) for index in range(count)]


def _matching(smap: SegmentMap, probes: list[tuple[int, ...] | None], need: int) -> list[int]:
    """The segments that may hold ``need`` of the terms, in day order, as navigation asks."""
    return sorted(positions(at_least(smap.masks(probes), need, smap.every)))


@given(segments, texts)
def test_a_map_keeps_every_segment_whose_text_holds_the_terms(
    values: list[str | None], query: str
) -> None:
    """For every segment, the map counts at least the terms its text holds (a segment without
    a digest, every term): the map never rules out a segment that holds a term."""
    terms = topic_terms(query)
    smap = SegmentMap.of(_digests(values), _ids(len(values)))
    counts = _held(smap, [TermDigest.probes(term) for term in terms], len(values))
    matcher = TermMatcher(terms)
    for text, held in zip(values, counts, strict=True):
        if text is None:
            assert held == len(terms)
        else:
            assert held >= len(matcher.present(text)), (text, terms)


@given(segments, st.lists(words, min_size=1, max_size=6))
def test_a_map_answers_at_least_what_each_segments_digest_answers(
    values: list[str | None], terms: list[str]
) -> None:
    """A term a segment's digest may hold counts for it in the map: rows hold every bit of
    their digest, repeated or folded."""
    digests = _digests(values)
    smap = SegmentMap.of(digests, _ids(len(values)))
    probes: list[tuple[int, ...] | None] = [TermDigest.probes(term) for term in terms]
    counts = _held(smap, probes, len(values))
    for digest, held in zip(digests, counts, strict=True):
        expected = len(terms) if digest is None else sum(map(digest.holds, probes))
        assert held >= expected
    for need in range(1, len(terms) + 1):
        assert _matching(smap, probes, need) == [
            index for index, held in enumerate(counts) if held >= need
        ]


def test_a_row_as_wide_as_its_digest_answers_exactly_as_the_digest() -> None:
    """Where every segment's digest has the map's row width, the map rules out exactly what
    the digests rule out."""
    values = [f"alpha{index} beta{index} gamma{index}" for index in range(6)]
    digests = _digests(list(values))
    assert len({digest.bits for digest in digests if digest is not None}) == 1
    smap = SegmentMap.of(digests, _ids(len(values)))
    for term in ("alpha3", "beta5", "delta", "gamma0"):
        probes = TermDigest.probes(term)
        expected = [i for i, d in enumerate(digests) if d is not None and d.holds(probes)]
        assert _matching(smap, [probes], 1) == expected


def test_wide_digests_are_folded_to_the_widest_row() -> None:
    """A segment of a great many words is folded to at most MAX_ROW_BITS bits, and still
    holds each of its words."""
    text = " ".join(f"word{index}x" for index in range(3000))
    digest = TermDigest.sized_for([text])
    assert digest.bits > MAX_ROW_BITS
    smap = SegmentMap.of([digest] * 16, _ids(16))
    assert smap.stored_size < 16 * MAX_ROW_BITS // 8 + 64
    assert _matching(smap, [TermDigest.probes("word2999x")], 1) == list(range(16))


@given(segments)
def test_stored_maps_read_back_equal(values: list[str | None]) -> None:
    """to_bytes then from_tail gives back an equal map, also behind other bytes."""
    smap = SegmentMap.of(_digests(values), _ids(len(values)))
    assert SegmentMap.from_tail(smap.to_bytes()) == smap
    assert SegmentMap.from_tail(b"other bytes first" + smap.to_bytes()) == smap


@given(segments, st.lists(texts, max_size=4))
def test_a_day_digest_with_its_map_reads_as_the_plain_digest(
    values: list[str | None], day_texts: list[str]
) -> None:
    """A reader of plain digests reads a day digest with a map behind it as the digest alone;
    split gives back both."""
    day = TermDigest.from_texts(day_texts)
    smap = SegmentMap.of(_digests(values), _ids(len(values)))
    text = attach(day.to_text(), smap)
    assert TermDigest.from_text(text) == day
    parts = split(text)
    assert parts is not None
    packed, found = parts
    assert found == smap
    assert TermDigest.from_packed(packed) == (day, b"")
    assert without_map(text) == day.to_text()
    assert without_map(day.to_text()) == day.to_text()


def test_a_digest_without_a_map_splits_into_itself_and_no_map() -> None:
    """A digest stored before maps existed has no map; its bytes are the whole digest."""
    day = TermDigest.from_texts(["Rotated the Postgres credentials"])
    parts = split(day.to_text())
    assert parts is not None
    assert parts[1] is None
    assert TermDigest.from_packed(parts[0])[0] == day


@pytest.mark.parametrize("cut", [1, 7, 13, 200])
def test_a_damaged_map_is_no_map(cut: int) -> None:
    """A map cut short or with a broken footer is not read (the digest before it still is)."""
    day = TermDigest.from_texts(["Rotated the Postgres credentials"])
    smap = SegmentMap.of(_digests(["postgres", "kubernetes"] * 50), _ids(100))
    text = attach(day.to_text(), smap)
    packed = base64.b64decode(text)
    damaged = base64.b64encode(packed[:-cut]).decode("ascii")
    parts = split(damaged)
    assert parts is not None
    assert parts[1] is None
    assert split("not base64 at all!") is None


def test_a_map_covers_only_the_ids_it_was_made_for() -> None:
    """covers() is true for the same ids in the same order, false otherwise."""
    ids = _ids(3)
    smap = SegmentMap.of(_digests(["a b c", "d e f", "g h i"]), ids)
    assert smap.covers(ids)
    assert not smap.covers(ids[::-1])
    assert not smap.covers(ids[:2])
    assert not smap.covers([*ids, "toc:segment:2026-01-05:extra"])


def test_digests_and_ids_must_pair_up() -> None:
    """A map needs one id per digest."""
    with pytest.raises(ValueError, match="2 digests for 1 segments"):
        SegmentMap.of(_digests(["a", "b"]), _ids(1))


@given(st.lists(st.integers(0, 255), max_size=6), st.integers(0, 7))
def test_at_least_keeps_the_segments_set_in_enough_masks(masks: list[int], need: int) -> None:
    """at_least sets exactly the bits set in at least ``need`` of the masks; positions lists
    them highest first."""
    every = 255
    found = at_least(masks, need, every)
    for bit in range(8):
        held = sum(mask >> bit & 1 for mask in masks)
        assert bool(found >> bit & 1) == (held >= need)
    assert positions(found) == sorted((bit for bit in range(8) if found >> bit & 1), reverse=True)
