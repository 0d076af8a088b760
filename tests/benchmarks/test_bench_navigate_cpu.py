"""The CPU-time navigation benchmark pickles the stores it generates once (the tree without
its events and with them), reads them back on later runs, and prints the median CPU and wall
time of the plain and hinted questions on each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmarks._speed import _navigate_queries, load_tree
from benchmarks.bench_navigate_cpu import main, stored
from benchmarks.synth import generate_tree

from tocsearch.navigate import Navigator
from tocsearch.storage.memory import InMemoryStorage


def test_a_run_prints_medians_and_a_second_run_reads_the_pickled_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = ["--segments", "300", "--calls", "6", "--cache", str(tmp_path)]
    assert main(arguments) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed) == {"plain", "hinted", "events_plain", "events_hinted"}
    for medians in printed.values():
        assert set(medians) == {"cpu_ms", "wall_ms"}
        assert all(value >= 0 for value in medians.values())
    pickles = sorted(path.name for path in tmp_path.iterdir())
    assert pickles == ["navigate-300-6-events.pickle", "navigate-300-6.pickle"]
    written = {path: path.stat().st_mtime_ns for path in tmp_path.iterdir()}
    assert main([*arguments, "--only", "2"]) == 0
    assert main([*arguments, "--only", "2", "--events"]) == 0
    assert capsys.readouterr().out == ""
    assert {path: path.stat().st_mtime_ns for path in tmp_path.iterdir()} == written


def test_events_choose_the_store_of_a_run_of_only_some_questions(tmp_path: Path) -> None:
    """A timed run times both stores, so ``--events`` without ``--only`` is refused."""
    with pytest.raises(SystemExit):
        main(["--segments", "30", "--calls", "2", "--cache", str(tmp_path), "--events"])


@pytest.mark.parametrize("events", [False, True])
def test_the_store_read_back_answers_as_the_one_generated(tmp_path: Path, events: bool) -> None:
    """The pickled store, with or without events, answers every question as the tree
    generated anew does, and the store with events cites them."""
    tree = generate_tree(300, years=5, seed=11, with_events=events)
    storage = InMemoryStorage()
    load_tree(tree, storage)
    generated = Navigator(storage, now=tree.end)
    read_back, plain, hinted = stored(300, 6, tmp_path, events=events)
    assert read_back.storage.count_events() == (3000 if events else 0)
    assert (plain, hinted) == _navigate_queries(tree, 6, 11)
    cited = 0
    for question in plain + hinted:
        answer = read_back.navigate(question)
        assert answer.to_dict() == generated.navigate(question).to_dict()
        cited += sum(len(item.event_ids) for item in answer.evidence)
    assert (cited > 0) is events


@pytest.mark.parametrize("flag", ["--segments", "--calls"])
def test_sizes_below_one_are_refused(flag: str, tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main([flag, "0", "--cache", str(tmp_path)])
