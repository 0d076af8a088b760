"""A node's searchable texts are one definition shared by term digests and the navigator: a
digest built from them holds every term the navigator can match there, so pruning by digest
never hides a node the navigator would have found."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import attrs
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import events, toc_nodes, topic_matchers, tricky_segments, tricky_texts
from tocsearch.digest import TermDigest
from tocsearch.ingest._digests import day_digest, union_digest
from tocsearch.levels import TocLevel
from tocsearch.models import Event, TocBullet, TocNode
from tocsearch.navigate._folded import FoldedTexts, searchable_text
from tocsearch.navigate._lens import Lens
from tocsearch.navigate._weights import TermMatcher
from tocsearch.storage._sqlite_fts import segment_fields, storable_text

DAY = date(2026, 1, 5)
NOON = datetime(2026, 1, 5, 12, tzinfo=timezone.utc)


def _holds(digest: TermDigest, term: str) -> bool:
    # As the navigator asks: through the term's probes, worked out once per query.
    return digest.holds(TermDigest.probes(term))


def test_searchable_texts_are_title_summary_bullets_and_keywords_in_order() -> None:
    """Every field a search reads is there once, in field order, "" standing for no summary."""
    node = TocNode(
        node_id="toc:segment:2026-01-05:a",
        level=TocLevel.SEGMENT,
        title="Login bug",
        start_time=NOON,
        end_time=NOON,
        bullets=(TocBullet("Checked JWT expiry"), TocBullet("Rotated keys")),
        keywords=("auth", "jwt"),
    )
    assert node.searchable_texts == (
        "Login bug",
        "",
        "Checked JWT expiry",
        "Rotated keys",
        "auth",
        "jwt",
    )
    assert attrs.evolve(node, summary="Fixed").searchable_texts[1] == "Fixed"
    assert searchable_text(node) == "login bug\n\nchecked jwt expiry\nrotated keys\nauth\njwt"


@given(node=st.one_of(toc_nodes(), tricky_segments()), matcher=topic_matchers)
def test_a_nodes_digest_holds_every_term_the_navigator_matches_in_it(
    node: TocNode, matcher: TermMatcher
) -> None:
    """Each term the navigator finds in a node's folded text is held by the digest of the
    node's searchable texts."""
    digest = TermDigest.from_texts(node.searchable_texts)
    for term in matcher.present_folded(FoldedTexts().of(node)):
        assert _holds(digest, term), term


@st.composite
def days(draw: st.DrawFn, day: date = DAY) -> tuple[list[Event], list[TocNode]]:
    """The events and segments of one day, their texts drawn to make matches likely."""
    start = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
    stamps = st.integers(0, 86_399).map(lambda second: start + timedelta(seconds=second))
    said = draw(st.lists(st.tuples(stamps, tricky_texts), max_size=4))
    made = [attrs.evolve(draw(events(when)), text=text) for when, text in said]
    return made, draw(st.lists(tricky_segments(day), min_size=1, max_size=3))


@given(first=days(), second=days(date(2026, 1, 6)), matcher=topic_matchers)
def test_day_and_parent_digests_hold_every_term_the_navigator_matches_below_them(
    first: tuple[list[Event], list[TocNode]],
    second: tuple[list[Event], list[TocNode]],
    matcher: TermMatcher,
) -> None:
    """A term the navigator matches in any segment (through its folded-text cache) or event of
    a day is held by the day's digest as the builder makes it, and by the union above."""
    folded = FoldedTexts()
    day_nodes: list[TocNode] = []
    for day_events, segments in (first, second):
        matched: set[str] = set().union(*matcher.present_in_each(folded.of_each(segments)))
        for event in day_events:
            matched |= matcher.counts(event.text).keys()
        text = day_digest(day_events, segments)
        digest = TermDigest.from_text(text)
        assert all(_holds(digest, term) for term in matched), matched
        day_nodes.append(
            TocNode(
                node_id=f"toc:day:{segments[0].start_time.date().isoformat()}",
                level=TocLevel.DAY,
                title="a day",
                start_time=segments[0].start_time,
                end_time=segments[0].start_time,
                digest=text,
            )
        )
        week = TermDigest.from_text(union_digest(day_nodes))
        assert all(_holds(week, term) for term in matched), matched


@given(node=st.one_of(toc_nodes(), tricky_segments()), matcher=topic_matchers)
def test_the_fields_a_step_shows_are_the_searchable_texts(
    node: TocNode, matcher: TermMatcher
) -> None:
    """The navigator's per-field view of a node (what a step shows) reads exactly the node's
    searchable texts, so every term it can show a match for is one the digest holds."""
    lens = Lens(matcher.terms)
    fields = lens.fields(node)
    shown = sorted(text for _, text, _ in fields if text)
    assert shown == sorted(text for text in node.searchable_texts if text)
    digest = TermDigest.from_texts(node.searchable_texts)
    for _, _, held in fields:
        assert all(_holds(digest, term) for term in held)


@given(node=st.one_of(toc_nodes(), tricky_segments()))
def test_the_fts_columns_of_a_segment_hold_its_searchable_texts(node: TocNode) -> None:
    """The full-text index's segment columns carry the words of the searchable texts, no
    more and no fewer."""
    assert (
        " ".join(segment_fields(node)).split()
        == " ".join(storable_text(text) for text in node.searchable_texts).split()
    )
