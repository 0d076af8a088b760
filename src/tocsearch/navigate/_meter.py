"""The token meter of one navigation: what has been read and returned, against the budget."""

from __future__ import annotations

from tocsearch.text import TokenEstimator

__all__ = ["TokenMeter"]


class TokenMeter:
    """Counts tokens spent and keeps a reserve for returning evidence.

    Reading (search results) may use the budget up to the reserve; returning evidence may use
    all of it, so a walk that read a lot still has room to hand back what it found.
    """

    def __init__(self, budget: int, estimator: TokenEstimator, reserve: int) -> None:
        self.budget = budget
        self.reserve = reserve
        self.estimator = estimator
        self.used = 0

    def cost(self, text: str) -> int:
        """The estimated tokens of a text."""
        return max(1, self.estimator(text))

    def can_read(self, tokens: int) -> bool:
        """Whether ``tokens`` more can be read without touching the reserve."""
        return self.used + tokens <= self.budget - self.reserve

    def can_return(self, tokens: int) -> bool:
        """Whether ``tokens`` more fit in the whole budget."""
        return self.used + tokens <= self.budget

    def spend(self, tokens: int) -> None:
        """Count ``tokens`` as spent; callers check first, so the budget is never exceeded."""
        self.used += tokens
