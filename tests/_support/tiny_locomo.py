"""The six-turn LoCoMo fixture of the evaluation tests, built into a store, and the turn ids
of a method's ranked output."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks._locomo_eval import Conversation
from benchmarks._retrieval import RankedItem

from benchmarks import eval_locomo

FIXTURE = Path(__file__).parents[1] / "benchmarks" / "fixtures" / "tiny_locomo.json"


def tiny_conversation() -> Conversation:
    """The fixture's conversation, imported and built into a fresh in-memory store."""
    return eval_locomo.build_conversation(FIXTURE, "tiny-1")


def dia_ids(ranked: Sequence[RankedItem]) -> list[str | None]:
    """The LoCoMo ids of the turns of ``ranked``, in order (None for a turn without one)."""
    return [turn.dia_id for item in ranked for turn in item.turns]
