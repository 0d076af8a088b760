"""The LoCoMo evidence-recall evaluation: per conversation, build a store, ask every question of
every method, score the answers, and aggregate per method and category.

Per question and method the evaluation records recall at each token budget (see
:func:`benchmarks._retrieval.fill_budget`), recall@5 and @10 over returned items, the tokens the
default budget actually filled and the retrieval latency. Questions of category 5 (adversarial,
no evidence by design) are not asked; questions whose normalised evidence is empty, or names no
turn of the conversation, are skipped and counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

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
    "MethodSummary",
    "QuestionResult",
    "Retriever",
    "RetrieverFactory",
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


RetrieverFactory = Callable[[Conversation], Retriever]


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
    tokens: int
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


def evaluate_conversation(
    conversation: Conversation,
    questions: Sequence[Question],
    factories: Sequence[RetrieverFactory],
    *,
    budgets: Sequence[int],
    default_budget: int,
) -> tuple[list[QuestionResult], Skips]:
    """Ask every evaluated question of every method on one conversation.

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
    for factory in factories:
        retriever = factory(conversation)
        try:
            for question, gold in asked:
                started = time.perf_counter()
                items = retriever.retrieve(question.text)
                latency = time.perf_counter() - started
                fills = {budget: fill_budget(items, budget) for budget in budgets}
                results.append(
                    QuestionResult(
                        method=retriever.name,
                        sample_id=question.sample_id,
                        index=question.index,
                        category=question.category,
                        question=question.text,
                        gold=gold,
                        recall_at_budget={b: recall(gold, f.dia_ids) for b, f in fills.items()},
                        recall_at_k={k: recall(gold, turns_of_top(items, k)) for k in RECALL_AT},
                        tokens=fills[default_budget].tokens,
                        latency=latency,
                        top_labels=tuple(item.label for item in items[:10]),
                    )
                )
        finally:
            retriever.close()
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
class MethodSummary:
    """Means over the questions of one method and one category (or all)."""

    questions: int
    recall_at_budget: Mapping[int, float]
    recall_at_k: Mapping[int, float]
    tokens_median: float
    tokens_p99: float
    latency_ms_median: float
    latency_ms_p99: float

    def to_json(self) -> dict[str, object]:
        """The summary as JSON-ready values (see the schema in ``eval_locomo.py``)."""
        return {
            "questions": self.questions,
            "recall_at_budget": {str(b): round(v, 4) for b, v in self.recall_at_budget.items()},
            "recall_at_k": {str(k): round(v, 4) for k, v in self.recall_at_k.items()},
            "tokens": {"median": self.tokens_median, "p99": self.tokens_p99},
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
    tokens = [float(result.tokens) for result in results]
    return MethodSummary(
        questions=count,
        recall_at_budget={b: mean(r.recall_at_budget[b] for r in results) for b in budgets},
        recall_at_k={k: mean(r.recall_at_k[k] for r in results) for k in RECALL_AT},
        tokens_median=percentile(tokens, 0.5),
        tokens_p99=percentile(tokens, 0.99),
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

    def summaries(self) -> dict[str, dict[str, MethodSummary]]:
        """Per method and category, see :func:`summarise`."""
        return summarise(self.results, self.budgets)

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
                method: {key: summary.to_json() for key, summary in per.items()}
                for method, per in self.summaries().items()
            },
        }
