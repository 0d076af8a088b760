"""Planted-needle recall and latency on a built store, beside FTS5 and a flat grep of the same
turns, all in one run.

Each needle (one, two or three made-up terms said once, in one raw turn) is asked twice: as its
bare terms, and followed by the month it was said in ("in March 2023"). A method finds a needle
when its answer cites the planted turn: the navigator among the events of its evidence, FTS5 and
the grep among their first ten turns. The navigator runs as a user runs it: ``token_budget`` as
given (1,000 by default), every other setting at its default, ``now`` at the history's end.
Needles whose terms leaked into the tree's own text are left out and counted.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path

import attrs

from benchmarks._lexical import Fts5Index
from benchmarks._planted import Needle, pick_needles
from benchmarks._planted_cache import BuiltStore, History, open_built
from benchmarks._timing import Timing, time_calls
from tocsearch.errors import InvalidArgument
from tocsearch.navigate import Navigator

__all__ = [
    "FOUND_WITHIN",
    "Found",
    "PlantedRow",
    "TurnGrep",
    "measure_planted",
    "month_range",
]

FOUND_WITHIN = 10
"""FTS5 and the grep find a needle when the planted turn is among their first ten turns."""


@attrs.frozen
class Found:
    """One method on one query variant: the share of needles found, per number of terms and
    over all, and the latency per query."""

    by_terms: dict[int, float]
    recall: float
    timing: Timing


@attrs.frozen
class PlantedRow:
    """Everything measured on one store of one history."""

    store: BuiltStore
    needles: int
    leaked: int
    planted: int
    token_budget: int
    open_seconds: float
    """Opening the store (for ``memory``: loading the cached pickle, not a user's step)."""
    first_answer_seconds: float
    """The first question after opening, alone."""
    navigate_plain: Found
    navigate_hinted: Found
    answer_tokens_median: float
    answers_over_budget: int
    fts_plain: Found
    fts_hinted: Found
    fts_build_seconds: float
    grep_plain: Found
    grep_hinted: Found


def month_range(when: datetime) -> tuple[float, float]:
    """The calendar month (UTC) holding ``when``, as epoch seconds ``[start, end)``."""
    start = datetime(when.year, when.month, 1, tzinfo=timezone.utc)
    end = datetime(when.year + when.month // 12, when.month % 12 + 1, 1, tzinfo=timezone.utc)
    return start.timestamp(), end.timestamp()


class TurnGrep:
    """The plainest baseline: every turn's case-folded text in memory, newest first; a query
    returns the turns holding every one of its terms."""

    def __init__(self, history: History) -> None:
        rows: list[tuple[float, str, str]] = []
        with history.jsonl.open(encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                stamp = datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00"))
                rows.append((stamp.timestamp(), record["event_id"], record["text"].casefold()))
        rows.sort(reverse=True)
        self._rows = rows

    def search(
        self,
        terms: Sequence[str],
        limit: int,
        *,
        start: float | None = None,
        end: float | None = None,
    ) -> list[str]:
        """Event ids of up to ``limit`` turns holding every term, newest first, optionally only
        those in ``[start, end)``."""
        first, *rest = [term.casefold() for term in terms]
        low = float("-inf") if start is None else start
        high = float("inf") if end is None else end
        found: list[str] = []
        for stamp, event_id, text in self._rows:
            if first in text and low <= stamp < high and all(term in text for term in rest):
                found.append(event_id)
                if len(found) >= limit:
                    break
        return found


def _found(
    needles: Sequence[Needle], ask: Callable[[Needle], set[str]], *, warmup: int = 3
) -> Found:
    """Ask every needle once (timed; after ``warmup`` untimed asks) and score the answers."""
    answers: dict[str, bool] = {}

    def call(needle: Needle) -> None:
        answers[needle.event_id] = needle.event_id in ask(needle)

    timing = time_calls(call, needles, warmup=warmup)
    by_terms: dict[int, float] = {}
    for size in sorted({len(needle.terms) for needle in needles}):
        chosen = [n for n in needles if len(n.terms) == size]
        by_terms[size] = sum(answers[n.event_id] for n in chosen) / len(chosen)
    recall = sum(answers[n.event_id] for n in needles) / len(needles)
    return Found(by_terms, recall, timing)


class _Cited:
    """Asks the navigator and keeps the size of each rendered answer, once per query."""

    def __init__(self, navigator: Navigator) -> None:
        self.navigator = navigator
        self.sizes: dict[str, int] = {}

    def __call__(self, query: str) -> set[str]:
        result = self.navigator.navigate(query)
        self.sizes[query] = self.navigator.estimator(result.to_markdown())
        return {event_id for item in result.evidence for event_id in item.event_ids}


def measure_planted(
    history: History,
    store: BuiltStore,
    fts: Path,
    fts_build_seconds: float,
    grep: TurnGrep,
    *,
    token_budget: int,
    per_size: int,
    grep_calls: int,
) -> PlantedRow:
    """Open the built store (timed, with its first answer), then ask ``per_size`` needles of
    each size that did not leak (:func:`~benchmarks._planted.pick_needles`) of the navigator
    and of FTS5, and the first ``grep_calls`` of them of the grep, bare and with their month."""
    needles = list(pick_needles(history.needles, set(store.leaked), per_size))
    if not needles:
        raise InvalidArgument(f"every needle of {history.directory} leaked into the tree")
    started = time.perf_counter()
    storage = open_built(store)
    opened = time.perf_counter()
    try:
        navigator = Navigator(storage, now=history.end, token_budget=token_budget)
        navigator.navigate(needles[0].query)
        answered = time.perf_counter()
        cited = _Cited(navigator)
        plain = _found(needles, lambda n: cited(n.query))
        hinted = _found(needles, lambda n: cited(n.hinted_query))
    finally:
        storage.close()
    index = Fts5Index.open(fts)
    try:
        fts_plain = _found(needles, lambda n: set(index.search(n.query, FOUND_WITHIN)))
        fts_hinted = _found(
            needles,
            lambda n: set(index.search(n.query, FOUND_WITHIN, **_bounds(n.timestamp))),
        )
    finally:
        index.close()
    sample = needles[: max(1, grep_calls)]
    grep_plain = _found(sample, lambda n: set(grep.search(n.terms, FOUND_WITHIN)), warmup=0)
    grep_hinted = _found(
        sample,
        lambda n: set(grep.search(n.terms, FOUND_WITHIN, **_bounds(n.timestamp))),
        warmup=0,
    )
    ordered = sorted(cited.sizes.values())
    sizes = ordered
    return PlantedRow(
        store=store,
        needles=len(needles),
        leaked=len(store.leaked),
        planted=len(history.needles),
        token_budget=token_budget,
        open_seconds=opened - started,
        first_answer_seconds=answered - opened,
        navigate_plain=plain,
        navigate_hinted=hinted,
        answer_tokens_median=float(ordered[len(ordered) // 2]) if ordered else 0.0,
        answers_over_budget=sum(1 for size in sizes if size > token_budget),
        fts_plain=fts_plain,
        fts_hinted=fts_hinted,
        fts_build_seconds=fts_build_seconds,
        grep_plain=grep_plain,
        grep_hinted=grep_hinted,
    )


def _bounds(when: datetime) -> dict[str, float | None]:
    start, end = month_range(when)
    return {"start": start, "end": end}
