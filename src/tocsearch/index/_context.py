"""Relevant context for the start of a conversation: the past segments that best match the
opening message, as a ``<relevant-context>`` block within a token budget."""

from __future__ import annotations

from tocsearch._checks import whole_number
from tocsearch.index._search import SearchHit, SearchOutcome
from tocsearch.index._sidecar import SearchIndex
from tocsearch.text import TokenEstimator, clip, estimate_tokens

__all__ = ["DEFAULT_CONTEXT_BUDGET", "format_context", "relevant_context"]

DEFAULT_CONTEXT_BUDGET = 1_500
"""Tokens a relevant-context block may take by default: room for five short segments."""

_OPEN = "<relevant-context>"
_CLOSE = "</relevant-context>"
_HIT_CHARACTERS = 600


def _entry(hit: SearchHit, characters: int) -> str:
    when = f"{hit.start_time:%Y-%m-%d %H:%M}"
    header = f"[{when} UTC, score {hit.score:.2f}] {clip(hit.title, 120)} ({hit.segment_id})"
    cites = f"\n  grips: {', '.join(hit.grip_ids[:3])}" if hit.grip_ids else ""
    return f"{header}\n  {clip(hit.text, characters)}{cites}"


def format_context(
    hits: tuple[SearchHit, ...],
    *,
    token_budget: int = DEFAULT_CONTEXT_BUDGET,
    estimator: TokenEstimator = estimate_tokens,
) -> str:
    """The hits, best first, as a ``<relevant-context>`` block of at most ``token_budget``
    tokens; hits that do not fit are left out (a long one is first cut shorter). Empty when
    there are no hits or not even one fits.

    Raises:
        InvalidArgument: ``token_budget`` is not a whole number of at least 1.
    """
    whole_number("token_budget", token_budget)
    entries: list[str] = []
    used = estimator(f"{_OPEN}\n{_CLOSE}")
    for hit in hits:
        for characters in (_HIT_CHARACTERS, _HIT_CHARACTERS // 3):
            entry = _entry(hit, characters)
            cost = estimator(entry + "\n\n")
            if used + cost <= token_budget:
                entries.append(entry)
                used += cost
                break
    if not entries:
        return ""
    return f"{_OPEN}\n" + "\n\n".join(entries) + f"\n{_CLOSE}"


def relevant_context(
    index: SearchIndex,
    opening_message: str,
    *,
    limit: int = 5,
    min_score: float = 0.25,
    token_budget: int = DEFAULT_CONTEXT_BUDGET,
    estimator: TokenEstimator = estimate_tokens,
) -> str:
    """What the history holds about ``opening_message``: up to ``limit`` segments scoring at
    least ``min_score`` in a hybrid search, as a ``<relevant-context>`` block within
    ``token_budget`` tokens, or an empty string when nothing relevant is found.

    >>> from tocsearch.storage import InMemoryStorage
    >>> from tocsearch.examples import load_example_events
    >>> from tocsearch.ingest import TocBuilder
    >>> store = InMemoryStorage()
    >>> _ = TocBuilder(store).ingest(load_example_events())
    >>> block = relevant_context(SearchIndex(store), "the JWT refresh token rotation again")
    >>> block.startswith("<relevant-context>"), block.endswith("</relevant-context>")
    (True, True)
    >>> estimate_tokens(block) <= DEFAULT_CONTEXT_BUDGET
    True
    """
    outcome: SearchOutcome = index.search(opening_message, limit=limit, min_score=min_score)
    return format_context(outcome.hits, token_budget=token_budget, estimator=estimator)
