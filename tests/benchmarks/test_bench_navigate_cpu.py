"""The CPU-time navigation benchmark pickles the store it generates once, reads it back on
later runs, and prints the median CPU and wall time of the plain and hinted questions."""

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
    assert set(printed) == {"plain", "hinted"}
    for medians in printed.values():
        assert set(medians) == {"cpu_ms", "wall_ms"}
        assert all(value >= 0 for value in medians.values())
    (pickled,) = tmp_path.iterdir()
    written = pickled.stat().st_mtime_ns
    assert main([*arguments, "--only", "2"]) == 0
    assert capsys.readouterr().out == ""
    assert pickled.stat().st_mtime_ns == written


def test_the_store_read_back_answers_as_the_one_generated(tmp_path: Path) -> None:
    tree = generate_tree(300, years=5, seed=11)
    storage = InMemoryStorage()
    load_tree(tree, storage)
    generated = Navigator(storage, now=tree.end)
    read_back, plain, hinted = stored(300, 6, tmp_path)
    assert (plain, hinted) == _navigate_queries(tree, 6, 11)
    for question in plain + hinted:
        assert read_back.navigate(question).to_dict() == generated.navigate(question).to_dict()


@pytest.mark.parametrize("flag", ["--segments", "--calls"])
def test_sizes_below_one_are_refused(flag: str, tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main([flag, "0", "--cache", str(tmp_path)])
