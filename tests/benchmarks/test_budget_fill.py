"""Filling a token budget with ranked turns, and recall over what was kept."""

from __future__ import annotations

import pytest
from benchmarks._retrieval import (
    RankedItem,
    Turn,
    fill_budget,
    recall,
    turns_of_top,
)
from hypothesis import given
from hypothesis import strategies as st

from tocsearch.errors import InvalidArgument
from tocsearch.text import estimate_tokens


def turn(number: int, chars: int) -> Turn:
    """A turn D1:<number> whose text costs ceil(chars / 3) tokens."""
    return Turn(f"evt{number}", f"D1:{number}", "x" * chars)


def test_turns_are_kept_in_rank_order_until_the_budget_is_full() -> None:
    """Three 10-token turns in a 25-token budget keep the first two, costing 20."""
    items = [RankedItem("a", (turn(1, 30), turn(2, 30))), RankedItem("b", (turn(3, 30),))]
    filled = fill_budget(items, 25)
    assert [t.dia_id for t in filled.turns] == ["D1:1", "D1:2"]
    assert filled.tokens == 20


def test_filling_stops_at_the_first_turn_that_does_not_fit() -> None:
    """A big turn ranked second ends the fill, even if a later small turn would still fit."""
    items = [RankedItem("a", (turn(1, 30),)), RankedItem("b", (turn(2, 300), turn(3, 3)))]
    filled = fill_budget(items, 50)
    assert filled.dia_ids == frozenset({"D1:1"})
    assert filled.tokens == 10


def test_a_repeated_turn_costs_nothing_the_second_time() -> None:
    """The same event returned by two items is counted and paid for once."""
    shared = turn(1, 30)
    items = [RankedItem("a", (shared,)), RankedItem("b", (shared, turn(2, 30)))]
    filled = fill_budget(items, 20)
    assert [t.key for t in filled.turns] == ["evt1", "evt2"]
    assert filled.tokens == 20


def test_an_exact_fit_is_kept() -> None:
    """A turn whose cost equals the remaining budget is kept."""
    assert fill_budget([RankedItem("a", (turn(1, 30),))], 10).tokens == 10


def test_budget_below_one_is_refused() -> None:
    """A budget of zero tokens is an error naming the value."""
    with pytest.raises(InvalidArgument, match="got 0"):
        fill_budget([], 0)


@given(
    st.lists(st.lists(st.integers(0, 12), max_size=4), max_size=6),
    st.integers(1, 60),
)
def test_fill_never_exceeds_the_budget_and_keeps_a_prefix(
    ranking: list[list[int]], budget: int
) -> None:
    """Whatever the ranking, the kept turns cost at most the budget, appear once, and are the
    first distinct turns of the ranking."""
    items = [
        RankedItem(str(i), tuple(turn(n, 3 * n + 1) for n in numbers))
        for i, numbers in enumerate(ranking)
    ]
    filled = fill_budget(items, budget)
    assert filled.tokens <= budget
    assert filled.tokens == sum(estimate_tokens(t.text) for t in filled.turns)
    distinct = list(dict.fromkeys(t for item in items for t in item.turns))
    assert list(filled.turns) == distinct[: len(filled.turns)]


def test_turns_of_top_reads_only_the_first_k_items() -> None:
    """recall@k sees the turns of the first k items, whatever their size."""
    items = [
        RankedItem("a", (turn(1, 3), turn(2, 3))),
        RankedItem("b", (turn(3, 3),)),
        RankedItem("c", (turn(4, 3),)),
    ]
    assert turns_of_top(items, 2) == frozenset({"D1:1", "D1:2", "D1:3"})


def test_recall_is_the_share_of_gold_found() -> None:
    """Two of three gold turns found is recall 2/3; extra turns do not lower it."""
    assert recall(("D1:1", "D1:2", "D1:3"), {"D1:1", "D1:3", "D9:9"}) == pytest.approx(2 / 3)


def test_recall_without_gold_is_refused() -> None:
    """Recall over no gold turns is undefined and refused."""
    with pytest.raises(InvalidArgument):
        recall((), {"D1:1"})
