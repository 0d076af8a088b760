"""Reciprocal Rank Fusion: several ranked lists of ids merged into one, scored 0-1."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

from tocsearch._checks import whole_number

__all__ = ["RRF_K", "reciprocal_rank_fusion"]

RRF_K = 60
"""The rank constant of Reciprocal Rank Fusion (Cormack et al., 2009): a list's first item
scores 1/61, its tenth 1/70, so no single list dominates."""

_T = TypeVar("_T", bound=Hashable)


def reciprocal_rank_fusion(*ranked_lists: Sequence[_T], k: int = RRF_K) -> list[tuple[_T, float]]:
    """Merge ranked lists (best first) into one ranking of ``(item, score)``, best first.

    An item at 1-based rank ``r`` of a list earns ``1 / (k + r)``; the sum over lists is divided
    by its largest possible value, ``n_lists / (k + 1)``, so an item ranked first in every list
    scores 1.0 and every score lies in (0, 1]. Ties keep the order items were first seen in.
    An item repeated within one list counts at its best rank only.

    >>> [(item, round(score, 3)) for item, score in reciprocal_rank_fusion("ab", "bc")]
    [('b', 0.992), ('a', 0.5), ('c', 0.492)]
    >>> reciprocal_rank_fusion()
    []

    Raises:
        InvalidArgument: ``k`` is negative.
    """
    whole_number("k", k, 0)
    if not ranked_lists:
        return []
    totals: dict[_T, float] = {}
    for ranked in ranked_lists:
        for rank, item in enumerate(dict.fromkeys(ranked), start=1):
            totals[item] = totals.get(item, 0.0) + 1.0 / (k + rank)
    scale = (k + 1) / len(ranked_lists)
    fused = [(item, min(1.0, total * scale)) for item, total in totals.items()]
    fused.sort(key=lambda pair: -pair[1])
    return fused
