"""Fast matching: a node's folded text holds exactly the terms its fields hold, many texts
searched together give what each searched alone gives, and the cache never changes an answer."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests._support.navtree import utc
from tests.strategies import toc_nodes, topic_matchers, tricky_segments, tricky_texts

from tocsearch.errors import InvalidArgument
from tocsearch.levels import TocLevel
from tocsearch.models import TocBullet, TocNode
from tocsearch.navigate._folded import FoldedTexts, searchable_text
from tocsearch.navigate._weights import TermMatcher


def _fields(node: TocNode) -> list[str]:
    return [
        node.title,
        *([node.summary] if node.summary else []),
        *(bullet.text for bullet in node.bullets),
        *node.keywords,
    ]


@given(node=st.one_of(toc_nodes(), tricky_segments()), matcher=topic_matchers)
def test_folded_text_holds_the_terms_of_its_fields(node: TocNode, matcher: TermMatcher) -> None:
    """The terms found in a node's folded text are the union of those in each field."""
    expected: frozenset[str] = frozenset().union(*(matcher.present(t) for t in _fields(node)))
    assert matcher.present_folded(searchable_text(node)) == expected


def _counts_by_scanning(matcher: TermMatcher, folded: str) -> dict[str, int]:
    """What the matcher's expression finds stepping through every character of ``folded``."""
    pattern = matcher._pattern
    found: dict[str, int] = {}
    if pattern is None:
        return found
    for match in pattern.finditer(folded):
        assert match.lastindex is not None
        term = matcher._group_term[match.lastindex]
        found[term] = found.get(term, 0) + 1
    return found


@given(
    text=st.one_of(
        tricky_texts,
        st.lists(st.sampled_from(["tok", "en", "token", "s", " ", "izer", "-", "ß"])).map("".join),
    ),
    matcher=topic_matchers,
)
def test_counts_tried_where_terms_start_are_the_counts_of_a_full_scan(
    text: str, matcher: TermMatcher
) -> None:
    """Trying the expression only where a term starts counts every match a scan of every
    character finds, overlapping and nested terms included."""
    folded = text.casefold()
    scanned = _counts_by_scanning(matcher, folded)
    assert matcher._counted(folded) == scanned
    assert matcher.counts_folded(folded) == scanned


@given(many=st.lists(tricky_texts, max_size=12), matcher=topic_matchers)
def test_texts_searched_together_match_each_searched_alone(
    many: list[str], matcher: TermMatcher
) -> None:
    """present_in_each gives, for every text, the terms present() finds in it alone."""
    folded = [text.casefold() for text in many]
    assert matcher.present_in_each(folded) == [matcher.present(text) for text in many]


@given(text=tricky_texts, matcher=topic_matchers)
def test_counts_skip_the_expression_only_for_texts_without_a_term(
    text: str, matcher: TermMatcher
) -> None:
    """Counting a text's terms gives what the regular expression alone gives, whether or not
    a term occurs in it as a substring (the texts without one skip the expression)."""
    folded = text.casefold()
    assert matcher.counts(text) == matcher.counts_folded(folded) == matcher._counted(folded)
    assert matcher.present(text) == frozenset(matcher._counted(folded))


def _node(suffix: str, title: str) -> TocNode:
    start = utc(2026, 1, 5)
    return TocNode(
        node_id=f"toc:segment:2026-01-05:{suffix}",
        level=TocLevel.SEGMENT,
        title=title,
        start_time=start,
        end_time=start + timedelta(minutes=30),
        bullets=(TocBullet("Checked the JWT expiry"),),
        keywords=("auth",),
    )


def test_cache_is_bounded_and_replaced_nodes_are_folded_afresh() -> None:
    """The cache keeps at most its capacity, and a stored node replaced by a new one with the
    same id is folded again rather than served from the cache."""
    cache = FoldedTexts(capacity=2)
    first = _node("a", "Login bug")
    assert cache.of(first) == "login bug\n\nchecked the jwt expiry\nauth"
    cache.of(_node("b", "Other"))
    cache.of(_node("c", "Third"))
    assert len(cache) == 2
    replaced = _node("a", "Cache warmup")
    assert cache.of(first) == searchable_text(first)
    assert cache.of(replaced).startswith("cache warmup\n")


def test_a_cache_of_capacity_zero_keeps_nothing() -> None:
    """Capacity 0 folds every time and stores nothing; a negative capacity is refused."""
    cache = FoldedTexts(capacity=0)
    assert cache.of(_node("a", "Login")) == searchable_text(_node("a", "Login"))
    assert len(cache) == 0
    with pytest.raises(
        InvalidArgument, match="capacity must be a whole number of at least 0, got -1"
    ):
        FoldedTexts(capacity=-1)
