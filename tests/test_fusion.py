"""Reciprocal Rank Fusion: merged, normalised to 0-1, best first."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tocsearch._fusion import RRF_K
from tocsearch.errors import InvalidArgument
from tocsearch.index import reciprocal_rank_fusion


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


def test_weights_favour_the_heavier_list() -> None:
    """With weights 2:1, the first of the heavier list beats the first of the lighter one, and
    an item first in both still scores 1.0."""
    fused = reciprocal_rank_fusion(["a", "b"], ["b", "a"], weights=(2.0, 1.0))
    assert [item for item, _ in fused] == ["a", "b"]
    assert dict(reciprocal_rank_fusion(["a"], ["a"], weights=(2.0, 1.0)))["a"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ((1.0,), r"weights must be one number per list \(2\), got \[1.0\]"),
        ((1.0, 0.0), "a weight must be a finite number above 0, got 0.0"),
        ((1.0, -2.0), "a weight must be a finite number above 0, got -2.0"),
        ((1.0, True), "a weight must be a finite number above 0, got True"),
        ((1.0, "2"), "a weight must be a finite number above 0, got '2'"),
        ((1.0, float("nan")), "a weight must be a finite number above 0, got nan"),
        ((1.0, float("inf")), "a weight must be a finite number above 0, got inf"),
    ],
)
def test_weights_must_be_one_number_above_0_per_list(
    weights: tuple[object, ...], message: str
) -> None:
    """A missing, zero, negative, NaN or non-numeric weight is refused, naming what was given."""
    with pytest.raises(InvalidArgument, match=message):
        reciprocal_rank_fusion(["a"], ["b"], weights=weights)  # type: ignore[arg-type]


@given(
    st.lists(st.integers(0, 30), max_size=20, unique=True),
    st.lists(st.integers(0, 30), max_size=20, unique=True),
    st.floats(0.1, 10.0),
    st.integers(0, 100),
)
def test_weighted_fusion_keeps_each_lists_own_items_in_order(
    first: list[int], second: list[int], weight: float, k: int
) -> None:
    """Items only one list holds keep that list's order; scores lie in (0, 1] and never
    increase."""
    fused = reciprocal_rank_fusion(first, second, k=k, weights=(weight, 1.0))
    items = [item for item, _ in fused]
    assert sorted(items) == sorted(set(first) | set(second))
    only_first = [item for item in first if item not in second]
    only_second = [item for item in second if item not in first]
    assert [item for item in items if item in only_first] == only_first
    assert [item for item in items if item in only_second] == only_second
    scores = [score for _, score in fused]
    assert all(0.0 < score <= 1.0 for score in scores)
    assert scores == sorted(scores, reverse=True)
