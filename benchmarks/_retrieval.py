"""What a retrieval method returns, and how its output is scored against gold turns.

Every method returns ranked *items*, best first; an item is a run of conversation turns (a
navigator evidence item holds the events of its grips, a BM25 hit one turn, a flat-scan hit a
whole segment). Two measures read them:

- **recall at a token budget**: walk the items in rank order and their turns in order, keep each
  distinct turn while its text still fits in ``budget`` tokens, stop at the first turn that does
  not fit; the score is the share of gold turns kept. This is the fair comparison across methods,
  because every method pays for what it returns in the same currency.
- **recall@k**: the share of gold turns inside the first ``k`` items, whatever their size.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

import attrs

from tocsearch.errors import InvalidArgument
from tocsearch.text import TokenEstimator, estimate_tokens

__all__ = ["Filled", "RankedItem", "Turn", "fill_budget", "recall", "turns_of_top"]


@attrs.frozen
class Turn:
    """One returned turn: ``key`` identifies it for de-duplication (an event id), ``dia_id`` is
    its LoCoMo turn id when it has one."""

    key: str
    dia_id: str | None
    text: str


@attrs.frozen
class RankedItem:
    """One item of a method's ranked output: its turns in conversation order and a label
    (a segment or turn id) for failure reports."""

    label: str
    turns: tuple[Turn, ...]


@attrs.frozen
class Filled:
    """The turns kept within a budget, in the order kept, and the tokens they cost."""

    turns: tuple[Turn, ...]
    tokens: int

    @property
    def dia_ids(self) -> frozenset[str]:
        """The LoCoMo ids of the kept turns."""
        return frozenset(turn.dia_id for turn in self.turns if turn.dia_id is not None)


def fill_budget(
    items: Iterable[RankedItem], budget: int, *, estimator: TokenEstimator = estimate_tokens
) -> Filled:
    """The distinct turns of ``items``, in rank order, that fit in ``budget`` tokens.

    A turn already kept costs nothing the second time. Filling stops at the first new turn whose
    text would exceed the budget, so a method cannot gain by returning a huge item first.

    Raises:
        InvalidArgument: ``budget`` is less than 1.
    """
    if budget < 1:
        raise InvalidArgument(f"budget must be at least 1 token, got {budget}")
    kept: list[Turn] = []
    seen: set[str] = set()
    used = 0
    for item in items:
        for turn in item.turns:
            if turn.key in seen:
                continue
            cost = estimator(turn.text)
            if used + cost > budget:
                return Filled(tuple(kept), used)
            seen.add(turn.key)
            kept.append(turn)
            used += cost
    return Filled(tuple(kept), used)


def turns_of_top(items: Sequence[RankedItem], k: int) -> frozenset[str]:
    """The LoCoMo ids of every turn in the first ``k`` items.

    Raises:
        InvalidArgument: ``k`` is less than 1.
    """
    if k < 1:
        raise InvalidArgument(f"k must be at least 1, got {k}")
    return frozenset(
        turn.dia_id for item in items[:k] for turn in item.turns if turn.dia_id is not None
    )


def recall(gold: Collection[str], found: Collection[str]) -> float:
    """The share of ``gold`` ids that are in ``found``.

    Raises:
        InvalidArgument: ``gold`` is empty, so recall is undefined.
    """
    if not gold:
        raise InvalidArgument("recall needs at least one gold id")
    found_set = set(found)
    return sum(1 for gold_id in gold if gold_id in found_set) / len(gold)
