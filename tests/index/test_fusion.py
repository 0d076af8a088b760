"""Reciprocal Rank Fusion: merged, normalised to 0-1, best first."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tocsearch.errors import InvalidArgument
from tocsearch.index import reciprocal_rank_fusion
from tocsearch.index._fusion import RRF_K


def test_items_in_both_lists_rank_above_items_in_one() -> None:
    """An item found by both rankings beats items found by one, even ranked lower in each."""
    fused = reciprocal_rank_fusion(["a", "b", "c"], ["d", "e", "c"])
    assert fused[0][0] == "c"
    assert [item for item, _ in fused[1:]] == ["a", "d", "b", "e"]


def test_scores_are_normalised_by_the_best_possible_sum() -> None:
    """First in every list scores 1.0; first in one of two lists scores 0.5."""
    fused = dict(reciprocal_rank_fusion(["a", "b"], ["a", "c"]))
    assert fused["a"] == pytest.approx(1.0)
    assert fused["b"] == pytest.approx((1 / (RRF_K + 2)) * (RRF_K + 1) / 2)


def test_a_single_list_keeps_its_order_with_scores() -> None:
    """One list fused alone keeps its order; its first item scores 1.0."""
    fused = reciprocal_rank_fusion(["x", "y", "z"])
    assert [item for item, _ in fused] == ["x", "y", "z"]
    assert fused[0][1] == pytest.approx(1.0)
    assert fused[2][1] == pytest.approx((RRF_K + 1) / (RRF_K + 3))


def test_a_negative_k_is_refused() -> None:
    """k must be a non-negative integer."""
    with pytest.raises(InvalidArgument, match="k must be a whole number"):
        reciprocal_rank_fusion(["a"], k=-1)


@given(
    st.lists(st.lists(st.integers(0, 30), max_size=20), max_size=4),
    st.integers(0, 100),
)
def test_scores_lie_in_0_1_sorted_and_cover_every_item(lists: list[list[int]], k: int) -> None:
    """Every listed item appears once, scores are in (0, 1] and never increase."""
    fused = reciprocal_rank_fusion(*lists, k=k)
    items = [item for item, _ in fused]
    assert sorted(items) == sorted({item for ranked in lists for item in ranked})
    scores = [score for _, score in fused]
    assert all(0.0 < score <= 1.0 for score in scores)
    assert scores == sorted(scores, reverse=True)
