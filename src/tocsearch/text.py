"""Query terms, text normalisation and token estimates."""

from __future__ import annotations

import math
from typing import Protocol

__all__ = [
    "MIN_TERM_LENGTH",
    "TokenEstimator",
    "estimate_tokens",
    "normalize",
    "query_terms",
]

MIN_TERM_LENGTH = 3
"""Terms shorter than this many characters are dropped from queries."""


def normalize(text: str) -> str:
    """Text folded for case-insensitive, Unicode-aware comparison (``str.casefold``)."""
    return text.casefold()


def query_terms(query: str) -> tuple[str, ...]:
    """The search terms of a query: whitespace-separated, case-folded, at least three
    characters long, each kept once in the order first seen.

    >>> query_terms("The JWT jwt to  Refresh")
    ('the', 'jwt', 'refresh')
    """
    seen: dict[str, None] = {}
    for raw in query.split():
        term = raw.casefold()
        if len(term) >= MIN_TERM_LENGTH:
            seen.setdefault(term, None)
    return tuple(seen)


class TokenEstimator(Protocol):
    """Estimates how many model tokens a text costs. Plug in a real tokenizer if you have one."""

    def __call__(self, text: str) -> int: ...


def estimate_tokens(text: str) -> int:
    """A conservative token estimate that needs no tokenizer: one token per three characters.

    English averages about four characters a token with common tokenizers, so this errs on the
    side of spending less than a budget allows, never more.

    >>> estimate_tokens("JWT refresh tokens")
    6
    """
    return math.ceil(len(text) / 3)
