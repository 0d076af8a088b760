"""Fitting a response into a token budget by dropping its lowest-ranked items.

The size of a response is the estimator applied to the response's compact JSON, the form an
agent actually reads, so "within budget" means the same thing for every response type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tocsearch._checks import whole_number
from tocsearch.converter import to_json
from tocsearch.errors import InvalidArgument
from tocsearch.text import TokenEstimator

__all__ = ["fit_to_budget", "response_tokens"]

T = TypeVar("T")
R = TypeVar("R")


def response_tokens(response: Any, estimator: TokenEstimator) -> int:
    """The estimated token size of a record, as its compact JSON."""
    return estimator(to_json(response))


def fit_to_budget(
    items: Sequence[T],
    build: Callable[[Sequence[T], bool], R],
    budget: int | None,
    estimator: TokenEstimator,
    *,
    has_more: bool = False,
) -> R:
    """The response with as many of the best ``items`` as fit in ``budget`` tokens.

    ``items`` are ordered best first; ``build(kept, has_more)`` makes a response. Items are dropped
    from the end until the response's size is within the budget; ``has_more`` is true when any
    item was dropped or was already true.

    Raises:
        InvalidArgument: the budget is not positive, or even a response with no items exceeds it.
    """
    if budget is None:
        return build(items, has_more)
    whole_number("token_budget", budget)
    full = build(items, has_more)
    if response_tokens(full, estimator) <= budget:
        return full
    # Estimate each item's share once, then confirm the whole response with a real measure;
    # rounding in the estimator can make the parts disagree with the whole by a few tokens.
    empty_size = response_tokens(build((), True), estimator)
    if empty_size > budget:
        raise InvalidArgument(
            f"token_budget {budget} is below the smallest possible response ({empty_size} tokens)"
        )
    sizes = [estimator(to_json(item)) + 1 for item in items]
    kept = 0
    used = empty_size
    while kept < len(items) and used + sizes[kept] <= budget:
        used += sizes[kept]
        kept += 1
    response = build(items[:kept], True)
    while kept > 0 and response_tokens(response, estimator) > budget:
        kept -= 1
        response = build(items[:kept], True)
    return response
