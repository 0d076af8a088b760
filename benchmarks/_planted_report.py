"""The planted-needle section of ``bench_speed.py``: which stores to build, and its tables.

A plan names history sizes and, for each, the backends to build into:
``"100000:memory+jsondir,1000000:memory+sqlite"``. Backends this checkout lacks (``sqlite``
before ``SqliteStorage`` exists) are reported as skipped, never silently dropped.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import attrs

from benchmarks._backends import BACKENDS, backend_available
from benchmarks._planted_cache import ensure_fts5, ensure_history, ensure_store
from benchmarks._planted_measure import Found, PlantedRow, TurnGrep, measure_planted
from tocsearch.errors import InvalidArgument

__all__ = [
    "FULL_PLAN",
    "QUICK_PLAN",
    "PlantedSettings",
    "parse_plan",
    "render_planted",
    "run_planted",
]

FULL_PLAN = "100000:memory+jsondir,1000000:memory+sqlite"
QUICK_PLAN = "2000:memory+jsondir"


def parse_plan(plan: str) -> list[tuple[int, tuple[str, ...]]]:
    """``"SIZE:BACKEND+BACKEND,..."`` as (size, backends) pairs, in the order given.

    >>> parse_plan("100000:memory+jsondir,1000000:sqlite")
    [(100000, ('memory', 'jsondir')), (1000000, ('sqlite',))]

    Raises:
        InvalidArgument: a part is not SIZE:BACKENDS, a size is not a positive whole number,
            or a backend is unknown.
    """
    pairs: list[tuple[int, tuple[str, ...]]] = []
    for part in (piece.strip() for piece in plan.split(",")):
        if not part:
            continue
        size, _, names = part.partition(":")
        if not size.strip().isdigit() or int(size) < 1 or not names:
            raise InvalidArgument(f"a plan part is SIZE:BACKEND[+BACKEND...], got {part!r}")
        backends = tuple(name.strip() for name in names.split("+") if name.strip())
        unknown = [name for name in backends if name not in BACKENDS]
        if unknown or not backends:
            raise InvalidArgument(
                f"unknown backends {', '.join(unknown) or '(none)'} in {part!r}; "
                f"choose from {', '.join(BACKENDS)}"
            )
        pairs.append((int(size), backends))
    if not pairs:
        raise InvalidArgument(f"the plan {plan!r} names no size")
    return pairs


@attrs.frozen
class PlantedSettings:
    """How the section runs: where the cache is, needles per size, the navigator's budget."""

    cache: Path
    needles_per_size: int = 20
    token_budget: int = 1000
    grep_calls: int = 12
    seed: int = 29
    rebuild: bool = False
    built_by: str | None = None
    """Read the stores earlier sources built (see :func:`ensure_store`), not today's."""


def run_planted(
    plan: Sequence[tuple[int, Sequence[str]]], settings: PlantedSettings
) -> tuple[list[PlantedRow], list[str]]:
    """Build (or reuse) every store of the plan and measure it; also the notes on backends
    that were skipped. Progress goes to stderr."""
    rows: list[PlantedRow] = []
    notes: list[str] = []
    for size, backends in plan:
        history = ensure_history(
            settings.cache, size, needles_per_size=settings.needles_per_size, seed=settings.seed
        )
        fts, fts_seconds = ensure_fts5(history)
        grep = TurnGrep(history)
        for backend in backends:
            if not backend_available(backend):
                notes.append(f"{backend} at {size:,} events: skipped, this checkout lacks it")
                continue
            print(f"<!-- planted: {size:,} events into {backend} -->", file=sys.stderr, flush=True)
            store = ensure_store(
                history, backend, rebuild=settings.rebuild, built_by=settings.built_by
            )
            rows.append(
                measure_planted(
                    history,
                    store,
                    fts,
                    fts_seconds,
                    grep,
                    token_budget=settings.token_budget,
                    per_size=settings.needles_per_size,
                    grep_calls=settings.grep_calls,
                )
            )
    return rows, notes


def _recall(found: Found) -> str:
    parts = " / ".join(f"{found.by_terms[size]:.0%}" for size in sorted(found.by_terms))
    return f"{found.recall:.0%} ({parts})"


def _ms(found: Found) -> str:
    return f"{found.timing.median * 1e3:,.2f} | {found.timing.p90 * 1e3:,.2f}"


def render_planted(rows: Sequence[PlantedRow], notes: Sequence[str]) -> str:
    """The build table, then recall and latency per store and variant, with ratios to FTS5."""
    if not rows:
        return "\n".join(notes) or "no store was measured"
    lines = [
        "| events | backend | build s | events/s | nodes | needles asked (planted, leaked) "
        "| open ms | first answer ms | FTS5 build s | built |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        store = row.store
        built = f"{store.built_at}, {store.commit}" + (" (cached)" if store.reused else "")
        opened = "-" if store.backend == "memory" else f"{row.open_seconds * 1e3:,.1f}"
        lines.append(
            f"| {store.events:,} | {store.backend} | {store.build_seconds:,.1f} "
            f"| {store.events_per_second:,.0f} | {store.nodes:,} "
            f"| {row.needles} ({row.planted}, {row.leaked}) "
            f"| {opened} | {row.first_answer_seconds * 1e3:,.1f} "
            f"| {row.fts_build_seconds:,.1f} | {built} |"
        )
    lines += [
        "",
        "Recall: share of needles whose turn is cited (navigator) or among the first 10 turns "
        "(FTS5, grep), over all and for 1 / 2 / 3 terms. Times in ms, median | p90.",
        "",
        "| events | backend | query | navigator recall | navigate ms median | p90 | FTS5 recall "
        "| FTS5 ms median | p90 | grep recall, ms median (calls) | navigate / FTS5 "
        "| answer tokens median (over budget) |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        for variant, nav, fts, grep in (
            ("terms", row.navigate_plain, row.fts_plain, row.grep_plain),
            ("terms + month", row.navigate_hinted, row.fts_hinted, row.grep_hinted),
        ):
            ratio = nav.timing.median / fts.timing.median if fts.timing.median else 0.0
            lines.append(
                f"| {row.store.events:,} | {row.store.backend} | {variant} | {_recall(nav)} "
                f"| {_ms(nav)} | {_recall(fts)} | {_ms(fts)} "
                f"| {grep.recall:.0%}, {grep.timing.median * 1e3:,.1f} ({grep.timing.calls}) "
                f"| {ratio:,.1f}x "
                f"| {row.answer_tokens_median:,.0f} ({row.answers_over_budget}) |"
            )
    lines.append("")
    lines.append(
        f"Navigator: token_budget={rows[0].token_budget}, other settings at their defaults; "
        "answer tokens are its Markdown answer by its estimator, over both query variants."
    )
    lines.extend(notes)
    return "\n".join(lines)
