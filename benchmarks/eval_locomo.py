"""Evidence recall on LoCoMo-format conversations: the navigator against two baselines.

Usage::

    python benchmarks/eval_locomo.py --data PATH [--budget TOKENS] [--json] [--misses N]

For each conversation in the file: import it with :func:`tocsearch.importers.load_locomo` into a
fresh in-memory store, build the tree with :class:`tocsearch.TocBuilder`, then ask every
question of categories 1-4 with ``now`` at the conversation's last turn. Methods, each filling the
same token budgets with the same event texts:

- ``navigator``: :class:`tocsearch.navigate.Navigator`; an evidence item returns the events of its
  grips' ranges.
- ``flat-scan``: every segment ranked with the navigator's term-overlap scorer; a hit returns all
  of its segment's events.
- ``bm25-turns``: SQLite FTS5 over single turns (``tokenize='porter unicode61'``, terms OR-ed,
  ``bm25()`` ranking).

Recall at budget B is the share of a question's gold turns among the returned turns that fit in
B tokens (``tocsearch.text.estimate_tokens`` per turn text, in rank order, stopping at the first
turn that does not fit), averaged over questions. recall@k is the share of gold turns inside the
first k returned items, whatever their size (a navigator item is a grip range, a flat-scan item
a whole segment, a BM25 item one turn), so only recall at a budget compares methods fairly.

``--json`` prints one object::

    {
      "data": str, "budgets": [int, ...], "default_budget": int,
      "conversations": int, "events": int, "build_seconds": float,
      "categories": {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop"},
      "skipped": {
        "questions_total": int, "category_5": int, "other_categories": int,
        "no_evidence": int,                    # no usable gold turn after normalisation
        "evidence_split": int,                 # "D8:6; D9:17" entries split in two
        "evidence_rewritten": int,             # "D:11:26" -> "D11:26", "D30:05" -> "D30:5"
        "evidence_skipped": int,               # pieces naming no turn, such as a bare "D"
        "evidence_not_in_conversation": int    # well-formed ids of turns that do not exist
      },
      "grip_ceiling": {"all" | "1" | ...: float},  # share of gold turns inside any grip's range:
                                                   # what a grip-range method can recall at most
      "methods": {
        "<method>": {
          "all" | "1" | "2" | "3" | "4": {
            "questions": int,
            "recall_at_budget": {"<B>": float, ...},
            "recall_at_k": {"5": float, "10": float},
            "tokens": {"median": float, "p99": float},        # filled at the default budget
            "latency_ms": {"median": float, "p99": float}     # retrieval only, per question
          }
        }
      }
    }
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import attrs

if __package__ in (None, ""):
    # Run as a script: make the repository root importable so `benchmarks` resolves.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._baselines import FlatSegmentScan, TurnBm25
from benchmarks._evidence import CATEGORY_NAMES, load_questions
from benchmarks._locomo_eval import (
    Conversation,
    EvaluationReport,
    QuestionResult,
    Retriever,
    RetrieverFactory,
    Skips,
    evaluate_conversation,
    grip_ceiling,
    mean_by_category,
)
from benchmarks._navigation import NavigatorRetriever
from tocsearch.errors import TocsearchError
from tocsearch.importers import load_locomo
from tocsearch.ingest import TocBuilder
from tocsearch.storage.memory import InMemoryStorage

BUDGETS = (500, 1000, 2000)


def build_conversation(path: Path, sample_id: str) -> Conversation:
    """Import one conversation of the file into a fresh store and build its tree."""
    imported = load_locomo(path, samples=[sample_id])
    storage = InMemoryStorage()
    started = time.perf_counter()
    TocBuilder(storage).ingest(imported.events)
    seconds = time.perf_counter() - started
    events = tuple(imported.events)
    now = max(event.timestamp for event in events)
    return Conversation(sample_id, storage, events, now, seconds)


def default_factories(navigator_budget: int) -> list[RetrieverFactory]:
    """The navigator and both baselines."""

    def navigator(conversation: Conversation) -> Retriever:
        return NavigatorRetriever(
            conversation.storage, now=conversation.now, token_budget=navigator_budget
        )

    def flat(conversation: Conversation) -> Retriever:
        return FlatSegmentScan(conversation.storage)

    def bm25(conversation: Conversation) -> Retriever:
        return TurnBm25(conversation.events)

    return [navigator, flat, bm25]


def evaluate_file(
    path: Path,
    factories: Sequence[RetrieverFactory],
    *,
    budgets: Sequence[int] = BUDGETS,
    default_budget: int = 1000,
) -> EvaluationReport:
    """Evaluate every conversation of a LoCoMo-format file with each method.

    Raises:
        ImportFailed: the file cannot be read as LoCoMo.
    """
    all_budgets = tuple(sorted({*budgets, default_budget}))
    questions = load_questions(path)
    results: list[QuestionResult] = []
    ceiling: list[tuple[int, float]] = []
    skips = Skips()
    build_seconds = 0.0
    events = 0
    for sample_id, sample_questions in questions.items():
        conversation = build_conversation(path, sample_id)
        build_seconds += conversation.build_seconds
        events += len(conversation.events)
        found, skipped = evaluate_conversation(
            conversation,
            sample_questions,
            factories,
            budgets=all_budgets,
            default_budget=default_budget,
        )
        results.extend(found)
        skips = skips.add(skipped)
        ceiling.extend(grip_ceiling(conversation, sample_questions))
    return EvaluationReport(
        data=str(path),
        budgets=all_budgets,
        default_budget=default_budget,
        conversations=len(questions),
        build_seconds=build_seconds,
        events=events,
        skips=skips,
        results=tuple(results),
        grip_ceiling=mean_by_category(ceiling),
    )


def render_text(report: EvaluationReport) -> str:
    """The report as aligned tables, one per method."""
    lines = [
        f"data: {report.data}",
        f"conversations: {report.conversations}, events: {report.events}, "
        f"build: {report.build_seconds:.2f} s",
        "skipped: " + ", ".join(f"{k}={v}" for k, v in attrs.asdict(report.skips).items()),
        "gold turns inside any grip (the ceiling for grip-range methods): "
        + ", ".join(f"{k}={v:.3f}" for k, v in report.grip_ceiling.items()),
        "",
    ]
    budget_heads = "".join(f"  R@{b}tok" for b in report.budgets)
    for method, per in report.summaries().items():
        lines.append(f"## {method}")
        lines.append(
            f"{'category':<16}{'n':>5}{budget_heads}    R@5   R@10  tok_med  ms_med  ms_p99"
        )
        for key, summary in per.items():
            label = "all" if key == "all" else f"{key} {CATEGORY_NAMES[int(key)]}"
            cells = "".join(
                f"{summary.recall_at_budget[b]:>{len(f'  R@{b}tok')}.3f}" for b in report.budgets
            )
            lines.append(
                f"{label:<16}{summary.questions:>5}{cells}"
                f"{summary.recall_at_k[5]:>7.3f}{summary.recall_at_k[10]:>7.3f}"
                f"{summary.tokens_median:>9.0f}{summary.latency_ms_median:>8.2f}"
                f"{summary.latency_ms_p99:>8.2f}"
            )
        lines.append("")
    return "\n".join(lines)


def render_misses(report: EvaluationReport, method: str, limit: int) -> str:
    """Up to ``limit`` questions per category where ``method`` found no gold turn within the
    default budget, with what it returned first."""
    lines = [f"## misses of {method} at {report.default_budget} tokens"]
    for category in sorted({r.category for r in report.results}):
        misses = [
            r
            for r in report.results
            if r.method == method
            and r.category == category
            and r.recall_at_budget[report.default_budget] == 0.0
        ]
        lines.append(f"# category {category} {CATEGORY_NAMES[category]}: {len(misses)} misses")
        for miss in misses[:limit]:
            lines.append(f"- [{miss.sample_id} q{miss.index}] {miss.question}")
            lines.append(f"  gold: {', '.join(miss.gold)}; top: {', '.join(miss.top_labels[:3])}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the evaluation and print the tables (or ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    parser.add_argument(
        "--budget", type=int, default=1000, help="the default token budget (default 1000)"
    )
    parser.add_argument(
        "--navigator-budget",
        type=int,
        default=None,
        help="token_budget passed to the Navigator (default: 4 x the largest budget)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--misses", type=int, default=0, help="list up to N navigator misses per category"
    )
    args = parser.parse_args(argv)
    if args.budget < 1:
        parser.error(f"--budget must be at least 1, got {args.budget}")
    budgets = tuple(sorted({*BUDGETS, args.budget}))
    navigator_budget = args.navigator_budget or 4 * max(budgets)
    try:
        report = evaluate_file(
            args.data,
            default_factories(navigator_budget),
            budgets=budgets,
            default_budget=args.budget,
        )
    except TocsearchError as error:
        print(f"eval_locomo: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(render_text(report))
        if args.misses:
            print(render_misses(report, "navigator", args.misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
