"""Reciprocal Rank Fusion: several ranked lists of ids merged into one, scored 0-1.

It lives outside :mod:`tocsearch.index` because both the index (its hybrid search) and the
navigator (blending its own ranking of events with an index's) fuse rankings.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

from tocsearch._checks import positive_number, whole_number
from tocsearch.errors import InvalidArgument

__all__ = ["RRF_K", "reciprocal_rank_fusion"]

RRF_K = 60
"""The rank constant of Reciprocal Rank Fusion (Cormack et al., 2009): a list's first item
scores 1/61, its tenth 1/70, so no single list dominates."""

_T = TypeVar("_T", bound=Hashable)


def reciprocal_rank_fusion(
    *ranked_lists: Sequence[_T], k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[_T, float]]:
    """Merge ranked lists (best first) into one ranking of ``(item, score)``, best first.

    An item at 1-based rank ``r`` of list ``i`` earns ``w_i / (k + r)`` (every ``w_i`` is 1
    without ``weights``); the sum over lists is divided by its largest possible value,
    ``sum(w) / (k + 1)``, so an item ranked first in every list scores 1.0 and every score lies
    in (0, 1]. Ties keep the order items were first seen in. An item repeated within one list
    counts at its best rank only.

    >>> [(item, round(score, 3)) for item, score in reciprocal_rank_fusion("ab", "bc")]
    [('b', 0.992), ('a', 0.5), ('c', 0.492)]
    >>> [item for item, _ in reciprocal_rank_fusion("ab", "ba", weights=(2.0, 1.0))]
    ['a', 'b']
    >>> reciprocal_rank_fusion()
    []

    Raises:
        InvalidArgument: ``k`` is negative, or ``weights`` are not one number above 0 per
            list.
    """
    whole_number("k", k, 0)
    if weights is None:
        weights = [1.0] * len(ranked_lists)
    elif len(weights) != len(ranked_lists):
        raise InvalidArgument(
            f"weights must be one number per list ({len(ranked_lists)}), got {list(weights)!r}"
        )
    else:
        weights = [positive_number("a weight", weight) for weight in weights]
    if not ranked_lists:
        return []
    totals: dict[_T, float] = {}
    for ranked, weight in zip(ranked_lists, weights, strict=True):
        for rank, item in enumerate(dict.fromkeys(ranked), start=1):
            totals[item] = totals.get(item, 0.0) + weight / (k + rank)
    scale = (k + 1) / sum(weights)
    fused = [(item, min(1.0, total * scale)) for item, total in totals.items()]
    fused.sort(key=lambda pair: -pair[1])
    return fused
