"""The LoCoMo evaluation harness on a hand-written six-turn conversation whose recall is known.

The fixture has two sessions of three turns and seven questions: four are scored (categories
1, 2, 2 and 4), one is adversarial (category 5), one has no evidence and one names a turn that
does not exist. One question's evidence is malformed (``"D:1:3; D2:02"`` and a bare ``"D"``).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from benchmarks._baselines import FlatSegmentScan, TurnBm25
from benchmarks._evidence import load_questions
from benchmarks._locomo_eval import (
    Conversation,
    Method,
    Skips,
    evaluate_conversation,
    grip_ceiling,
    mean_by_category,
    summarise,
)
from benchmarks._retrieval import RankedItem, Turn
from hypothesis import given
from hypothesis import strategies as st

from benchmarks import eval_locomo
from tocsearch import ids
from tocsearch.errors import InvalidArgument
from tocsearch.levels import TocLevel
from tocsearch.models import Event, EventRole, EventType, Grip, TocNode
from tocsearch.storage.memory import InMemoryStorage

FIXTURE = Path(__file__).parent / "fixtures" / "tiny_locomo.json"
START = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
EXPECTED_SKIPS = Skips(
    questions_total=7,
    category_5=1,
    no_evidence=2,
    evidence_split=1,
    evidence_rewritten=2,
    evidence_skipped=1,
    evidence_not_in_conversation=1,
)


def tiny_events() -> list[Event]:
    """The fixture's six turns as events, "Speaker: text", one minute apart."""
    sample = json.loads(FIXTURE.read_text())[0]["conversation"]
    events: list[Event] = []
    for session in (1, 2):
        for turn in sample[f"session_{session}"]:
            when = START + timedelta(minutes=len(events))
            events.append(
                Event(
                    event_id=ids.event_id(when, turn["dia_id"].replace(":", "-")),
                    session_id=f"tiny-1:session_{session}",
                    timestamp=when,
                    role=EventRole.USER,
                    event_type=EventType.USER_MESSAGE,
                    text=f"{turn['speaker']}: {turn['text']}",
                    metadata={"dia_id": turn["dia_id"]},
                )
            )
    return events


def tiny_conversation(storage: InMemoryStorage | None = None) -> Conversation:
    """The fixture as a conversation over ``storage`` (an empty store by default)."""
    events = tiny_events()
    return Conversation(
        "tiny-1", storage or InMemoryStorage(), tuple(events), events[-1].timestamp, 0.0
    )


class FixedRanking:
    """A method that returns the same ranking for every question: D1:3, then D1:1 with D2:2,
    each turn costing exactly 10 tokens."""

    name = "fixed"

    def retrieve(self, question: str) -> list[RankedItem]:
        def turn(dia_id: str) -> Turn:
            return Turn(dia_id, dia_id, "x" * 30)

        return [RankedItem("a", (turn("D1:3"),)), RankedItem("b", (turn("D1:1"), turn("D2:2")))]

    def close(self) -> None:
        pass


FIXED = Method(
    "fixed", make=lambda _c, _b: FixedRanking(), budgeted=False, description="one ranking"
)


def test_fixed_ranking_scores_exactly_as_computed_by_hand() -> None:
    """With a 20-token budget the fixed method keeps D1:3 and D1:1: recall 1, 1, 1/2, 1/2 on the
    four scored questions; at 1,000 tokens it keeps all three turns and every recall is 1."""
    questions = load_questions(FIXTURE)["tiny-1"]
    results, skips = evaluate_conversation(
        tiny_conversation(), questions, [FIXED], budgets=(20, 1000), default_budget=20
    )
    assert skips == EXPECTED_SKIPS
    assert [(r.index, r.recall_at_budget[20]) for r in results] == [
        (0, 1.0),
        (1, 1.0),
        (2, 0.5),
        (3, 0.5),
    ]
    assert all(r.recall_at_budget[1000] == 1.0 for r in results)
    assert all(r.recall_at_k == {5: 1.0, 10: 1.0} for r in results)
    assert all(r.tokens == {20: 20, 1000: 30} for r in results)
    assert all(r.output_tokens == {} for r in results)
    summary = summarise(results, (20, 1000))["fixed"]
    assert summary["all"].recall_at_budget == {20: 0.75, 1000: 1.0}
    assert summary["1"].recall_at_budget[20] == 0.5
    assert summary["2"].recall_at_budget[20] == 0.75
    assert summary["4"].recall_at_budget[20] == 1.0
    assert "3" not in summary
    assert summary["2"].questions == 2


def test_default_budget_must_be_one_of_the_budgets() -> None:
    """Asking for a default budget that is not measured is refused, naming it."""
    with pytest.raises(InvalidArgument, match="999"):
        evaluate_conversation(
            tiny_conversation(), [], [FIXED], budgets=(500, 1000), default_budget=999
        )


def test_bm25_turns_finds_exactly_the_turns_sharing_terms() -> None:
    """FTS5 ranks D2:2 (biscuit, chew, sneakers) above D1:1 (biscuit, puppy) above D2:1 (the),
    and finds nothing for a question whose words no turn uses."""
    retriever = TurnBm25(tiny_events())
    ranked = retriever.retrieve("Did Biscuit the puppy chew sneakers?")
    assert [item.turns[0].dia_id for item in ranked] == ["D2:2", "D1:1", "D2:1"]
    assert retriever.retrieve("When did Caroline travel?") == []
    retriever.close()


def test_bm25_turns_recall_on_the_fixture() -> None:
    """BM25 over turns recalls every gold turn except for the Caroline question: 3/4 overall,
    category 2 at 1/2."""
    questions = load_questions(FIXTURE)["tiny-1"]

    bm25 = Method(
        "bm25-turns",
        make=lambda conversation, _: TurnBm25(conversation.events),
        budgeted=False,
        description="BM25",
    )
    results, _ = evaluate_conversation(
        tiny_conversation(), questions, [bm25], budgets=(1000,), default_budget=1000
    )
    summary = summarise(results, (1000,))["bm25-turns"]
    assert summary["all"].recall_at_budget[1000] == 0.75
    assert summary["2"].recall_at_budget[1000] == 0.5
    assert summary["1"].recall_at_budget[1000] == 1.0
    assert summary["4"].recall_at_budget[1000] == 1.0


def test_flat_scan_returns_whole_segments_best_first() -> None:
    """Each flat-scan hit is all the events of one segment; the segment sharing more of the
    query's terms comes first."""
    events = tiny_events()
    storage = InMemoryStorage()
    storage.put_events(events)
    for number, (first, last, bullet) in enumerate(
        [(0, 3, "puppy adopted and hiking"), (3, 6, "violin lessons, biscuit chewed sneakers")]
    ):
        span = events[first:last]
        storage.put_node(
            TocNode(
                node_id=ids.segment_id(span[0].timestamp.date(), f"s{number}"),
                level=TocLevel.SEGMENT,
                title=f"segment {number}",
                start_time=span[0].timestamp,
                end_time=span[-1].timestamp,
                summary=bullet,
                event_ids=tuple(event.event_id for event in span),
            )
        )
    ranked = FlatSegmentScan(storage).retrieve("biscuit sneakers")
    assert [[turn.dia_id for turn in item.turns] for item in ranked] == [["D2:1", "D2:2", "D2:3"]]
    ranked = FlatSegmentScan(storage).retrieve("puppy biscuit sneakers")
    assert [item.label.rsplit(":", 1)[-1] for item in ranked] == ["s1", "s0"]


def test_grip_ceiling_is_the_share_of_gold_inside_any_grip() -> None:
    """With one grip over D1:1..D1:2, the ceiling is 1 for the puppy-name question, 1/2 for the
    question whose gold is D1:1 and D2:2, and 0 for the others; skipped questions are absent."""
    events = tiny_events()
    storage = InMemoryStorage()
    storage.put_events(events)
    storage.put_grip(
        Grip(
            grip_id=ids.grip_id(events[0].timestamp, "g1"),
            excerpt="puppy",
            event_id_start=events[0].event_id,
            event_id_end=events[1].event_id,
            timestamp=events[0].timestamp,
            source="test",
        )
    )
    rows = grip_ceiling(tiny_conversation(storage), load_questions(FIXTURE)["tiny-1"])
    assert rows == [(4, 1.0), (2, 0.0), (1, 0.5), (2, 0.0)]
    assert mean_by_category(rows) == {"all": 0.375, "1": 0.5, "2": 0.0, "4": 1.0}
    assert mean_by_category([]) == {}


def test_end_to_end_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    """The script imports, builds and evaluates the fixture with every method and prints one
    JSON object whose counts and BM25 recall match the hand computation."""
    assert eval_locomo.main(["--data", str(FIXTURE), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["conversations"] == 1
    assert report["events"] == 6
    assert report["budgets"] == [500, 1000, 2000]
    assert report["skipped"] == {
        "questions_total": 7,
        "category_5": 1,
        "other_categories": 0,
        "no_evidence": 2,
        "evidence_split": 1,
        "evidence_rewritten": 2,
        "evidence_skipped": 1,
        "evidence_not_in_conversation": 1,
    }
    assert set(report["grip_ceiling"]) == {"all", "1", "2", "4"}
    methods = report["methods"]
    assert set(methods) == {
        "navigator",
        "flat-scan",
        "bm25-turns",
        "navigator-4x-cut",
        "index-fts",
        "index-vec",
        "index-hybrid",
        "index-hybrid-turns",
        "navigator-teleport-fts",
        "navigator-teleport-hybrid",
    }
    assert methods["navigator"]["budgeted"] is True
    assert methods["bm25-turns"]["budgeted"] is False
    # Only a method given the column's budget reports its rendered answer per column.
    assert set(methods["navigator"]["all"]["output_tokens"]) == {"500", "1000", "2000"}
    assert methods["navigator-4x-cut"]["all"]["output_tokens"] == {}
    for budget, median in methods["bm25-turns"]["all"]["tokens_median"].items():
        assert 0 <= median <= int(budget)
    assert methods["bm25-turns"]["all"]["recall_at_budget"] == {
        "500": 0.75,
        "1000": 0.75,
        "2000": 0.75,
    }
    for per in methods.values():
        assert per["all"]["questions"] == 4
        assert set(per) <= {"all", "1", "2", "4", "description", "budgeted"}
        for value in per["all"]["recall_at_budget"].values():
            assert 0.0 <= value <= 1.0


def test_end_to_end_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --json the script prints one table per method and the navigator's misses."""
    assert eval_locomo.main(["--data", str(FIXTURE), "--misses", "2"]) == 0
    out = capsys.readouterr().out
    for heading in (
        "## navigator",
        "## flat-scan",
        "## bm25-turns",
        "## navigator-4x-cut",
        "## misses of navigator",
        "| method | R@500 | R@1000 | R@2000 |",
    ):
        assert heading in out
    assert "rendered answer tokens" in out


def test_unreadable_file_exits_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that is not LoCoMo JSON ends the script with status 2 and a message naming it."""
    path = tmp_path / "nope.json"
    path.write_text("{")
    assert eval_locomo.main(["--data", str(path)]) == 2
    assert "nope.json" in capsys.readouterr().err


class BudgetEcho:
    """A budgeted fake: given budget B it returns D1:1 only when B is at least 1,000, and
    reports a rendered answer of B + 1 tokens (one over) when B is 500, B otherwise."""

    name = "echo"

    def __init__(self, budget: int, made: list[int]) -> None:
        made.append(budget)
        self.budget = budget
        self.output_tokens: int | None = None

    def retrieve(self, question: str) -> list[RankedItem]:
        self.output_tokens = self.budget + 1 if self.budget == 500 else self.budget
        if self.budget < 1000:
            return []
        return [RankedItem("a", (Turn("D1:1", "D1:1", "x" * 30),))]

    def close(self) -> None:
        pass


def test_a_budgeted_method_is_scored_per_column_on_its_own_run() -> None:
    """A budgeted method is made once per budget with that budget; column B scores the run made
    with B, so an answer that needs 1,000 tokens of budget counts only from that column on, and
    rendered answers over their budget are counted."""
    made: list[int] = []
    echo = Method("echo", make=lambda _c, b: BudgetEcho(b, made), budgeted=True, description="echo")
    questions = load_questions(FIXTURE)["tiny-1"]
    results, _ = evaluate_conversation(
        tiny_conversation(), questions, [echo], budgets=(500, 1000, 2000), default_budget=1000
    )
    assert sorted(made) == [500, 1000, 2000]
    puppy = next(r for r in results if r.index == 0)  # gold D1:1
    assert puppy.recall_at_budget == {500: 0.0, 1000: 1.0, 2000: 1.0}
    assert puppy.tokens == {500: 0, 1000: 10, 2000: 10}
    assert puppy.output_tokens == {500: 501, 1000: 1000, 2000: 2000}
    summary = summarise(results, (500, 1000, 2000))["echo"]["all"]
    assert summary.output[500].over_budget == 4
    assert summary.output[1000].over_budget == 0
    assert summary.output[2000].max == 2000


def test_an_unbudgeted_method_runs_once_with_the_largest_budget() -> None:
    """An unbudgeted method is made once, given the largest budget, and every column keeps what
    fits of its one ranking; no rendered answer is reported."""
    made: list[int] = []
    echo = Method(
        "echo", make=lambda _c, b: BudgetEcho(b, made), budgeted=False, description="echo"
    )
    questions = load_questions(FIXTURE)["tiny-1"]
    results, _ = evaluate_conversation(
        tiny_conversation(), questions, [echo], budgets=(500, 2000), default_budget=500
    )
    assert made == [2000]
    puppy = next(r for r in results if r.index == 0)
    assert puppy.recall_at_budget == {500: 1.0, 2000: 1.0}
    assert puppy.output_tokens == {}


class RandomRanking:
    """Returns a fixed ranking of the fixture's turns, each turn ``size`` characters long."""

    name = "random"

    def __init__(self, order: list[str], sizes: list[int]) -> None:
        self.items = [
            RankedItem(dia_id, (Turn(dia_id, dia_id, "y" * size),))
            for dia_id, size in zip(order, sizes, strict=False)
        ]

    def retrieve(self, question: str) -> list[RankedItem]:
        return self.items

    def close(self) -> None:
        pass


TURN_IDS = ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2", "D2:3"]


@given(
    order=st.permutations(TURN_IDS),
    sizes=st.lists(st.integers(min_value=1, max_value=3000), min_size=6, max_size=6),
    budgets=st.lists(st.integers(min_value=1, max_value=2000), min_size=1, max_size=4, unique=True),
)
def test_one_ranking_recalls_more_as_the_budget_grows(
    order: list[str], sizes: list[int], budgets: list[int]
) -> None:
    """For one ranking scored at several budgets: recall stays in [0, 1] and never falls as the
    budget grows, and the tokens kept never exceed the budget."""
    ranking = Method(
        "random",
        make=lambda _c, _b: RandomRanking(order, sizes),
        budgeted=False,
        description="a permutation",
    )
    ordered = sorted(budgets)
    results, _ = evaluate_conversation(
        tiny_conversation(),
        load_questions(FIXTURE)["tiny-1"],
        [ranking],
        budgets=ordered,
        default_budget=ordered[0],
    )
    for result in results:
        values = [result.recall_at_budget[b] for b in ordered]
        assert all(0.0 <= v <= 1.0 for v in values)
        assert values == sorted(values)
        assert all(result.tokens[b] <= b for b in ordered)
