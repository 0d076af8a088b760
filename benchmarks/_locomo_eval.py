"""The LoCoMo evidence-recall evaluation: per conversation, build a store, ask every question of
every method, score the answers, and aggregate per method and category.

Every method is scored at each budget B on what it returned when run for that column: a
budgeted method (the navigator) runs once per budget with ``token_budget = B``; an unbudgeted
one (BM25, flat scan) ranks once and each column keeps what fits. Per question, method and
budget the evaluation records recall (see :func:`benchmarks._retrieval.fill_budget`) and the
tokens of returned turns kept; for methods that render an answer (the navigator), also the size
of that answer. recall@5 and @10 over returned items and the latency come from the run at the
default budget. Questions of category 5 (adversarial, no evidence by design) are not asked;
questions whose normalised evidence is empty, or names no turn of the conversation, are skipped
and counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

import attrs

from benchmarks._evidence import CATEGORY_NAMES, EVALUATED_CATEGORIES, Question
from benchmarks._retrieval import RankedItem, fill_budget, recall, turns_of_top
from benchmarks._timing import percentile
from tocsearch.errors import InvalidArgument
from tocsearch.models import Event
from tocsearch.storage.protocol import Storage

__all__ = [
    "Conversation",
    "EvaluationReport",
    "Method",
    "MethodSummary",
    "OutputSize",
    "QuestionResult",
    "RendersOutput",
    "Retriever",
    "evaluate_conversation",
    "grip_ceiling",
    "mean_by_category",
    "summarise",
]

RECALL_AT = (5, 10)


class Retriever(Protocol):
    """A retrieval method prepared for one conversation."""

    name: str

    def retrieve(self, question: str) -> list[RankedItem]:
        """Ranked items for a question, best first."""
        ...

    def close(self) -> None:
        """Release what the retriever holds."""


@runtime_checkable
class RendersOutput(Protocol):
    """A retriever whose answer is rendered for a caller (the navigator's Markdown):
    ``output_tokens`` is the size of the answer to the last question."""

    output_tokens: int | None


@attrs.frozen
class Conversation:
    """One conversation ready to be asked: its built store, its events and its end time."""

    sample_id: str
    storage: Storage
    events: tuple[Event, ...]
    now: datetime
    build_seconds: float

    @property
    def dia_ids(self) -> frozenset[str]:
        """The LoCoMo turn ids present among the events."""
        return frozenset(
            event.metadata["dia_id"] for event in self.events if "dia_id" in event.metadata
        )


@attrs.frozen
class Method:
    """One named retrieval method (see :mod:`benchmarks._methods` for the registry).

    ``make(conversation, budget)`` returns a fresh retriever. A ``budgeted`` method is made once
    per budget column with that column's budget, and scored in that column only; an unbudgeted
    method is made once, with the largest budget of the run, and every column keeps what fits
    of its one ranking.
    """

    name: str
    make: Callable[[Conversation, int], Retriever]
    budgeted: bool
    description: str

    def __attrs_post_init__(self) -> None:
        if not self.name or any(ch.isspace() or ch == "," for ch in self.name):
            raise InvalidArgument(
                f"a method name must be non-empty, without spaces or commas, got {self.name!r}"
            )


@attrs.frozen
class QuestionResult:
    """How one method did on one question."""

    method: str
    sample_id: str
    index: int
    category: int
    question: str
    gold: tuple[str, ...]
    recall_at_budget: Mapping[int, float]
    recall_at_k: Mapping[int, float]
    tokens: Mapping[int, int]
    """Per budget, the tokens of the returned turns kept within it."""
    output_tokens: Mapping[int, int]
    """Per budget, the size of the rendered answer; empty for methods that render none."""
    latency: float
    top_labels: tuple[str, ...]


@attrs.frozen
class Skips:
    """What was left out, and what normalisation repaired, over the whole file."""

    questions_total: int = 0
    category_5: int = 0
    other_categories: int = 0
    no_evidence: int = 0
    evidence_split: int = 0
    evidence_rewritten: int = 0
    evidence_skipped: int = 0
    evidence_not_in_conversation: int = 0

    def add(self, other: Skips) -> Skips:
        """Both counts summed."""
        pairs = zip(attrs.astuple(self), attrs.astuple(other), strict=True)
        return Skips(*(a + b for a, b in pairs))


def _gold(question: Question, present: frozenset[str]) -> tuple[tuple[str, ...], Skips]:
    evidence = question.evidence
    gold = tuple(turn for turn in evidence.ids if turn in present)
    skips = Skips(
        evidence_split=evidence.split,
        evidence_rewritten=evidence.rewritten,
        evidence_skipped=evidence.skipped,
        evidence_not_in_conversation=len(evidence.ids) - len(gold),
    )
    return gold, skips


@attrs.frozen
class _Answer:
    items: tuple[RankedItem, ...]
    output_tokens: int | None
    latency: float


def _ask(retriever: Retriever, asked: Sequence[tuple[Question, tuple[str, ...]]]) -> list[_Answer]:
    answers: list[_Answer] = []
    try:
        for question, _ in asked:
            started = time.perf_counter()
            items = retriever.retrieve(question.text)
            latency = time.perf_counter() - started
            rendered = retriever.output_tokens if isinstance(retriever, RendersOutput) else None
            answers.append(_Answer(tuple(items), rendered, latency))
    finally:
        retriever.close()
    return answers


def _run_method(
    method: Method,
    conversation: Conversation,
    asked: Sequence[tuple[Question, tuple[str, ...]]],
    budgets: Sequence[int],
    default_budget: int,
) -> list[QuestionResult]:
    """Score one method on the asked questions at every budget (see the module docstring)."""
    if method.budgeted:
        runs = {budget: _ask(method.make(conversation, budget), asked) for budget in budgets}
    else:
        once = _ask(method.make(conversation, max(budgets)), asked)
        runs = dict.fromkeys(budgets, once)
    results: list[QuestionResult] = []
    for number, (question, gold) in enumerate(asked):
        fills = {budget: fill_budget(runs[budget][number].items, budget) for budget in budgets}
        default = runs[default_budget][number]
        # A rendered answer is compared with the budget the method was given, so only budgeted
        # methods report one per column.
        rendered = {
            budget: tokens
            for budget in budgets
            if method.budgeted and (tokens := runs[budget][number].output_tokens) is not None
        }
        results.append(
            QuestionResult(
                method=method.name,
                sample_id=question.sample_id,
                index=question.index,
                category=question.category,
                question=question.text,
                gold=gold,
                recall_at_budget={b: recall(gold, f.dia_ids) for b, f in fills.items()},
                recall_at_k={k: recall(gold, turns_of_top(default.items, k)) for k in RECALL_AT},
                tokens={b: f.tokens for b, f in fills.items()},
                output_tokens=rendered,
                latency=default.latency,
                top_labels=tuple(item.label for item in default.items[:10]),
            )
        )
    return results


def evaluate_conversation(
    conversation: Conversation,
    questions: Sequence[Question],
    methods: Sequence[Method],
    *,
    budgets: Sequence[int],
    default_budget: int,
) -> tuple[list[QuestionResult], Skips]:
    """Ask every evaluated question of every method on one conversation, each method scored at
    every budget on what it returned when run for that budget.

    Raises:
        InvalidArgument: ``default_budget`` is not among ``budgets``.
    """
    if default_budget not in budgets:
        raise InvalidArgument(f"default budget {default_budget} is not among {list(budgets)}")
    present = conversation.dia_ids
    skips = Skips(questions_total=len(questions))
    asked: list[tuple[Question, tuple[str, ...]]] = []
    for question in questions:
        if question.category == 5:
            skips = skips.add(Skips(category_5=1))
            continue
        if question.category not in EVALUATED_CATEGORIES:
            skips = skips.add(Skips(other_categories=1))
            continue
        gold, evidence_skips = _gold(question, present)
        skips = skips.add(evidence_skips)
        if not gold:
            skips = skips.add(Skips(no_evidence=1))
            continue
        asked.append((question, gold))
    results: list[QuestionResult] = []
    for method in methods:
        results.extend(_run_method(method, conversation, asked, budgets, default_budget))
    return results, skips


def grip_ceiling(
    conversation: Conversation, questions: Sequence[Question]
) -> list[tuple[int, float]]:
    """For each evaluated question with usable evidence, its category and the share of its gold
    turns that lie inside any grip of the store: the most any method returning grip ranges can
    recall, whatever its ranking and budget."""
    storage = conversation.storage
    covered: set[str] = set()
    for grip_id in storage.iter_grip_ids():
        grip = storage.get_grip(grip_id)
        for event in storage.get_event_range(grip.event_id_start, grip.event_id_end):
            if "dia_id" in event.metadata:
                covered.add(event.metadata["dia_id"])
    present = conversation.dia_ids
    rows: list[tuple[int, float]] = []
    for question in questions:
        if question.category not in EVALUATED_CATEGORIES:
            continue
        gold, _ = _gold(question, present)
        if gold:
            rows.append((question.category, recall(gold, covered)))
    return rows


def mean_by_category(rows: Sequence[tuple[int, float]]) -> dict[str, float]:
    """The mean value over all rows (``"all"``) and per category present."""
    if not rows:
        return {}
    means = {"all": sum(value for _, value in rows) / len(rows)}
    for category in sorted({category for category, _ in rows}):
        values = [value for c, value in rows if c == category]
        means[str(category)] = sum(values) / len(values)
    return means


@attrs.frozen
class OutputSize:
    """Rendered answers at one budget: their median and largest size, and how many exceeded
    the budget they were asked for."""

    median: float
    max: int
    over_budget: int


@attrs.frozen
class MethodSummary:
    """Means over the questions of one method and one category (or all)."""

    questions: int
    recall_at_budget: Mapping[int, float]
    recall_at_k: Mapping[int, float]
    tokens_median: Mapping[int, float]
    """Per budget, the median tokens of returned turns kept within it."""
    output: Mapping[int, OutputSize]
    """Per budget, the size of the rendered answers; empty for methods that render none."""
    latency_ms_median: float
    latency_ms_p99: float

    def to_json(self) -> dict[str, object]:
        """The summary as JSON-ready values (see the schema in ``eval_locomo.py``)."""
        return {
            "questions": self.questions,
            "recall_at_budget": {str(b): round(v, 4) for b, v in self.recall_at_budget.items()},
            "recall_at_k": {str(k): round(v, 4) for k, v in self.recall_at_k.items()},
            "tokens_median": {str(b): v for b, v in self.tokens_median.items()},
            "output_tokens": {str(b): attrs.asdict(v) for b, v in self.output.items()},
            "latency_ms": {
                "median": round(self.latency_ms_median, 3),
                "p99": round(self.latency_ms_p99, 3),
            },
        }


def _summary(results: Sequence[QuestionResult], budgets: Sequence[int]) -> MethodSummary:
    count = len(results)

    def mean(values: Iterable[float]) -> float:
        return sum(values) / count

    latencies = [result.latency * 1000 for result in results]
    output: dict[int, OutputSize] = {}
    for budget in budgets:
        sizes = [r.output_tokens[budget] for r in results if budget in r.output_tokens]
        if sizes:
            output[budget] = OutputSize(
                median=percentile([float(size) for size in sizes], 0.5),
                max=max(sizes),
                over_budget=sum(1 for size in sizes if size > budget),
            )
    return MethodSummary(
        questions=count,
        recall_at_budget={b: mean(r.recall_at_budget[b] for r in results) for b in budgets},
        recall_at_k={k: mean(r.recall_at_k[k] for r in results) for k in RECALL_AT},
        tokens_median={b: percentile([float(r.tokens[b]) for r in results], 0.5) for b in budgets},
        output=output,
        latency_ms_median=percentile(latencies, 0.5),
        latency_ms_p99=percentile(latencies, 0.99),
    )


def summarise(
    results: Sequence[QuestionResult], budgets: Sequence[int]
) -> dict[str, dict[str, MethodSummary]]:
    """Per method (in first-seen order), a summary for ``"all"`` and for each category present
    (keyed by its number as a string)."""
    methods: dict[str, list[QuestionResult]] = {}
    for result in results:
        methods.setdefault(result.method, []).append(result)
    summaries: dict[str, dict[str, MethodSummary]] = {}
    for method, rows in methods.items():
        per: dict[str, MethodSummary] = {"all": _summary(rows, budgets)}
        for category in sorted({row.category for row in rows}):
            chosen = [row for row in rows if row.category == category]
            per[str(category)] = _summary(chosen, budgets)
        summaries[method] = per
    return summaries


@attrs.frozen
class EvaluationReport:
    """Everything one run measured."""

    data: str
    budgets: tuple[int, ...]
    default_budget: int
    conversations: int
    build_seconds: float
    events: int
    skips: Skips
    results: tuple[QuestionResult, ...]
    grip_ceiling: Mapping[str, float] = attrs.field(factory=dict)
    methods: tuple[Method, ...] = ()

    def summaries(self) -> dict[str, dict[str, MethodSummary]]:
        """Per method and category, see :func:`summarise`."""
        return summarise(self.results, self.budgets)

    def _method_facts(self, name: str) -> dict[str, object]:
        for method in self.methods:
            if method.name == name:
                return {"description": method.description, "budgeted": method.budgeted}
        return {}

    def to_json(self) -> dict[str, object]:
        """The report as one JSON-ready object (schema in ``eval_locomo.py``)."""
        return {
            "data": self.data,
            "budgets": list(self.budgets),
            "default_budget": self.default_budget,
            "conversations": self.conversations,
            "events": self.events,
            "build_seconds": round(self.build_seconds, 3),
            "categories": {str(c): CATEGORY_NAMES[c] for c in EVALUATED_CATEGORIES},
            "skipped": attrs.asdict(self.skips),
            "grip_ceiling": {key: round(value, 4) for key, value in self.grip_ceiling.items()},
            "methods": {
                method: {
                    **self._method_facts(method),
                    **{key: summary.to_json() for key, summary in per.items()},
                }
                for method, per in self.summaries().items()
            },
        }
