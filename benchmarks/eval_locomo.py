"""Evidence recall on LoCoMo-format conversations: the navigator beside the baselines, each
method at the budget it is scored at.

Usage::

    python benchmarks/eval_locomo.py --data PATH [--budget TOKENS] [--methods a,b] [--json]
        [--misses N] [--list-methods]

For each conversation in the file: import it with :func:`tocsearch.importers.load_locomo` into a
fresh in-memory store, build the tree with :class:`tocsearch.TocBuilder`, then ask every
question of categories 1-4 with ``now`` at the conversation's last turn. The methods are those
of :mod:`benchmarks._methods` (``--list-methods``), all by default:

- ``navigator``: :class:`tocsearch.navigate.Navigator` run once per column with
  ``token_budget`` = that column's budget; an evidence item returns the events it cites.
- ``bm25-turns``: SQLite FTS5 over single turns (``tokenize='porter unicode61'``, terms OR-ed,
  ``bm25()`` ranking).
- ``flat-scan``: every segment ranked with the navigator's term-overlap scorer; a hit returns all
  of its segment's events.
- ``navigator-4x-cut``: the navigator at 4 x the largest budget, its output cut to each column
  (the generous mode earlier results used, kept as a named extra column).

Recall at budget B is the share of a question's gold turns among the returned turns that fit in
B tokens (``tocsearch.text.estimate_tokens`` per turn text, in rank order, stopping at the first
turn that does not fit), averaged over questions; "tokens" is the median count of those kept
tokens, that is what the method returned within B. For the navigator the evidence scored is
read back from its rendered answer (its JSON, checked against the events its Markdown cites),
and the report also gives the size of that answer (the larger of the two renderings) and how
many answers exceeded B. recall@k is the share of gold turns inside the first k returned
items, whatever their size (a navigator item is an event or a grip range, a flat-scan item a
whole segment, a BM25 item one turn), so only recall at a budget compares methods fairly.

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
          "description": str, "budgeted": bool,
          "all" | "1" | "2" | "3" | "4": {
            "questions": int,
            "recall_at_budget": {"<B>": float, ...},
            "recall_at_k": {"5": float, "10": float},       # at the default budget
            "tokens_median": {"<B>": float, ...},           # returned turns kept within B
            "output_tokens": {"<B>": {"median": float, "max": int, "over_budget": int}},
                                                            # rendered answers; {} if none
            "latency_ms": {"median": float, "p99": float}   # per question, default budget
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

from benchmarks._evidence import CATEGORY_NAMES, load_questions
from benchmarks._locomo_eval import (
    Conversation,
    EvaluationReport,
    Method,
    QuestionResult,
    Skips,
    evaluate_conversation,
    grip_ceiling,
    mean_by_category,
)
from benchmarks._methods import METHODS, select
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


def evaluate_file(
    path: Path,
    methods: Sequence[Method],
    *,
    budgets: Sequence[int] = BUDGETS,
    default_budget: int = 1000,
) -> EvaluationReport:
    """Evaluate every conversation of a LoCoMo-format file with each method, each at the
    budgets it is scored at.

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
            methods,
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
        methods=tuple(methods),
    )


def render_overview(report: EvaluationReport, *, baseline: str = "bm25-turns") -> str:
    """One Markdown table over all questions: per method, recall and median tokens returned at
    each budget, and recall as a ratio to ``baseline`` (when it ran)."""
    summaries = report.summaries()
    base = summaries.get(baseline, {}).get("all")
    heads = " | ".join(f"R@{b}" for b in report.budgets)
    tokens = " | ".join(f"tok@{b}" for b in report.budgets)
    ratios = " | ".join(f"R@{b} / {baseline}" for b in report.budgets) if base else ""
    columns = 1 + 2 * len(report.budgets) + (len(report.budgets) if base else 0) + 1
    lines = [
        f"| method | {heads} | {tokens} |{f' {ratios} |' if base else ''} ms median |",
        "|---|" + "---:|" * (columns - 1),
    ]
    for method, per in summaries.items():
        summary = per["all"]
        cells = " | ".join(f"{summary.recall_at_budget[b]:.3f}" for b in report.budgets)
        kept = " | ".join(f"{summary.tokens_median[b]:,.0f}" for b in report.budgets)
        ratio = ""
        if base is not None:
            ratio = (
                " "
                + " | ".join(
                    _ratio(summary.recall_at_budget[b], base.recall_at_budget[b])
                    for b in report.budgets
                )
                + " |"
            )
        lines.append(f"| {method} | {cells} | {kept} |{ratio} {summary.latency_ms_median:,.2f} |")
    return "\n".join(lines)


def _ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}x" if base else "-"


def render_text(report: EvaluationReport) -> str:
    """The report as an overview, then aligned tables, one per method."""
    lines = [
        f"data: {report.data}",
        f"conversations: {report.conversations}, events: {report.events}, "
        f"build: {report.build_seconds:.2f} s",
        "skipped: " + ", ".join(f"{k}={v}" for k, v in attrs.asdict(report.skips).items()),
        "gold turns inside any grip (the ceiling for grip-range methods): "
        + ", ".join(f"{k}={v:.3f}" for k, v in report.grip_ceiling.items()),
        "",
        render_overview(report),
        "",
    ]
    budget_heads = "".join(f"  R@{b}tok" for b in report.budgets)
    token_heads = "".join(f"  tok@{b}" for b in report.budgets)
    descriptions = {method.name: method.description for method in report.methods}
    for method, per in report.summaries().items():
        lines.append(f"## {method}")
        if method in descriptions:
            lines.append(descriptions[method])
        lines.append(
            f"{'category':<16}{'n':>5}{budget_heads}    R@5   R@10{token_heads}  ms_med  ms_p99"
        )
        for key, summary in per.items():
            label = "all" if key == "all" else f"{key} {CATEGORY_NAMES[int(key)]}"
            cells = "".join(
                f"{summary.recall_at_budget[b]:>{len(f'  R@{b}tok')}.3f}" for b in report.budgets
            )
            kept = "".join(
                f"{summary.tokens_median[b]:>{len(f'  tok@{b}')}.0f}" for b in report.budgets
            )
            lines.append(
                f"{label:<16}{summary.questions:>5}{cells}"
                f"{summary.recall_at_k[5]:>7.3f}{summary.recall_at_k[10]:>7.3f}{kept}"
                f"{summary.latency_ms_median:>8.2f}{summary.latency_ms_p99:>8.2f}"
            )
        output = per["all"].output
        if output:
            lines.append(
                "rendered answer tokens (median / max / answers over the budget): "
                + ", ".join(
                    f"at {b}: {size.median:,.0f} / {size.max:,} / {size.over_budget}"
                    for b, size in output.items()
                )
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
        "--methods",
        default=None,
        help=f"comma-separated method names (default: all of {', '.join(METHODS)})",
    )
    parser.add_argument("--list-methods", action="store_true", help="list the methods and exit")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--misses", type=int, default=0, help="list up to N misses per category of a method"
    )
    parser.add_argument(
        "--misses-of", default="navigator", help="the method whose misses --misses lists"
    )
    args = parser.parse_args(argv)
    if args.list_methods:
        for method in METHODS.values():
            kind = "budgeted" if method.budgeted else "unbudgeted"
            print(f"{method.name:<26} {kind:<11} {method.description}")
        return 0
    if args.budget < 1:
        parser.error(f"--budget must be at least 1, got {args.budget}")
    budgets = tuple(sorted({*BUDGETS, args.budget}))
    try:
        methods = select(None if args.methods is None else args.methods.split(","))
        report = evaluate_file(args.data, methods, budgets=budgets, default_budget=args.budget)
    except TocsearchError as error:
        print(f"eval_locomo: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(render_text(report))
        if args.misses:
            print(render_misses(report, args.misses_of, args.misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
