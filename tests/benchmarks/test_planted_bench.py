"""The planted-needle section end to end on a tiny history: cache, build through the importer
and the builder, measurement beside FTS5 and the grep, the tables, and the plan syntax."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from benchmarks._lexical import Fts5Index
from benchmarks._planted_cache import ensure_history, ensure_store, source_digest
from benchmarks._planted_measure import TurnGrep, month_range
from benchmarks._planted_report import parse_plan

import tocsearch
from benchmarks import _planted_report, bench_planted_index, bench_speed
from tocsearch.errors import InvalidArgument


def test_month_range_wraps_the_year() -> None:
    """December runs to the first of January of the next year."""
    start, end = month_range(datetime(2023, 12, 9, tzinfo=timezone.utc))
    assert start == datetime(2023, 12, 1, tzinfo=timezone.utc).timestamp()
    assert end == datetime(2024, 1, 1, tzinfo=timezone.utc).timestamp()


@pytest.mark.parametrize(
    "plan",
    ["", "abc", "100:", "0:memory", "100:nope", "-5:memory", "100:memory+"],
)
def test_a_bad_plan_is_refused(plan: str) -> None:
    """A plan part that is not SIZE:BACKENDS with known backends is refused."""
    if plan == "100:memory+":
        assert parse_plan(plan) == [(100, ("memory",))]
        return
    with pytest.raises(InvalidArgument):
        parse_plan(plan)


def test_fts5_index_filters_by_time_and_reopens_from_its_file(tmp_path: Path) -> None:
    """Documents outside [start, end) are left out; an index written to a file answers the same
    after being opened again."""
    path = tmp_path / "fts.sqlite"
    documents = [("a", "blue whale"), ("b", "blue sky"), ("c", "red whale")]
    index = Fts5Index(documents, times={"a": 10.0, "b": 20.0, "c": 30.0}, path=path)
    assert index.search("whale", 10) == ["a", "c"]
    assert index.search("whale blue", 10, start=15.0) == ["b", "c"]
    assert index.search("whale", 10, start=5.0, end=30.0) == ["a"]
    index.close()
    reopened = Fts5Index.open(path)
    assert len(reopened) == 3
    assert reopened.search("whale", 10, end=11.0) == ["a"]
    reopened.close()
    with pytest.raises(InvalidArgument, match="already exists"):
        Fts5Index(documents, path=path)
    with pytest.raises(InvalidArgument, match="no FTS5 index"):
        Fts5Index.open(tmp_path / "missing.sqlite")


def test_grep_needs_every_term_and_answers_newest_first(tmp_path: Path) -> None:
    """The grep baseline returns turns holding all terms, newest first, within the time range."""
    history = ensure_history(tmp_path, 120, needles_per_size=1, seed=3)
    grep = TurnGrep(history)
    needle = next(n for n in history.needles if len(n.terms) == 2)
    assert grep.search(needle.terms, 10) == [needle.event_id]
    assert grep.search((needle.terms[0], "stovwhelwhelk"), 10) == []
    start, end = month_range(needle.timestamp)
    assert grep.search(needle.terms, 10, start=end) == []
    assert grep.search(needle.terms, 10, start=start, end=end) == [needle.event_id]
    common = grep.search(["lo"], 5)
    assert len(common) == 5


def test_the_store_is_built_once_and_reused(tmp_path: Path) -> None:
    """A second ensure_store reuses the build of the first (same facts, marked reused); a
    directory left without its meta.json is built again."""
    history = ensure_history(tmp_path, 200, needles_per_size=1, seed=3)
    first = ensure_store(history, "memory")
    assert not first.reused
    assert first.events == history.events == 200
    assert first.source == source_digest()
    again = ensure_store(history, "memory")
    assert again.reused
    assert (again.build_seconds, again.leaked, again.nodes) == (
        first.build_seconds,
        first.leaked,
        first.nodes,
    )
    (first.path / "meta.json").unlink()
    assert not ensure_store(history, "memory").reused


def test_planted_section_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """bench_speed's planted section builds the plan's stores through the real pipeline, prints
    one build row per store and two query rows (bare, with the month) per store, reports a
    backend the checkout lacks as skipped, and reuses its stores on a second run."""
    monkeypatch.setattr(
        _planted_report, "backend_available", lambda name: name in ("memory", "jsondir")
    )
    argv = [
        "--sections",
        "planted",
        "--planted",
        "240:memory+jsondir+sqlite",
        "--needles",
        "1",
        "--grep-calls",
        "2",
        "--cache-dir",
        str(tmp_path),
    ]
    assert bench_speed.main(argv) == 0
    out = capsys.readouterr().out
    assert "## Planted needles through the real pipeline" in out
    assert "sqlite at 240 events: skipped" in out
    rows = [line for line in out.splitlines() if line.startswith("| 240 |")]
    assert len(rows) == 6
    assert sum("| terms + month |" in row for row in rows) == 2
    assert "(cached)" not in out
    history_dirs = list(tmp_path.glob("h240-*"))
    assert len(history_dirs) == 1
    assert json.loads((history_dirs[0] / "history.json").read_text())["events"] == 240
    assert bench_speed.main(argv) == 0
    assert capsys.readouterr().out.count("(cached)") == 2


def test_the_source_digest_ignores_readers_and_follows_the_builder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change to the navigator, the index or the CLI keeps the digest; one to the builder
    or a store changes it."""
    package = tmp_path / "tocsearch"
    for relative in ("__init__.py", "navigate/a.py", "index/b.py", "cli/c.py", "ingest/d.py"):
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text("x = 1\n", encoding="utf-8")
    monkeypatch.setattr(tocsearch, "__file__", str(package / "__init__.py"))
    first = source_digest()
    for reader in ("__init__.py", "navigate/a.py", "index/b.py", "cli/c.py"):
        (package / reader).write_text("x = 2\n", encoding="utf-8")
    assert source_digest() == first
    (package / "ingest/d.py").write_text("x = 2\n", encoding="utf-8")
    assert source_digest() != first


def test_planted_index_bench_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """bench_planted_index builds a small history's SQLite store and its index, and prints one
    row per method; the index and the teleported navigator find every needle FTS5 finds."""
    argv = ["--cache-dir", str(tmp_path), "--events", "400", "--needles", "3", "--per-size", "3"]
    assert bench_planted_index.main(argv) == 0
    out = capsys.readouterr().out
    rows = {
        line.split(" | ")[0][2:]: line.split(" | ")
        for line in out.splitlines()
        if line.startswith("| ") and "---" not in line and "method" not in line
    }
    assert set(rows) == {
        "navigator",
        "navigator + index (teleport)",
        "index search (fts)",
        "FTS5 table, first 10 turns",
    }
    assert rows["FTS5 table, first 10 turns"][1] == "100%"
    assert rows["navigator + index (teleport)"][1] == "100%"
    assert rows["index search (fts)"][1] == "100%"
    built = re.search(r"index: ([0-9.]+) s to open and sync \(built now, ([0-9,]+) events\)", out)
    assert built is not None
    assert bench_planted_index.main(argv) == 0
    again = capsys.readouterr().out
    # The cached index reports the build time measured when it was built, not a reopen time.
    assert f"(reused; built in {built[1]} s, {built[2]} events, at " in again


def test_built_by_reads_an_earlier_build_or_says_there_is_none(tmp_path: Path) -> None:
    history = ensure_history(tmp_path, 200, needles_per_size=1, seed=3)
    built = ensure_store(history, "memory")
    again = ensure_store(history, "memory", built_by=built.source)
    assert again.reused
    assert again.path == built.path
    with pytest.raises(InvalidArgument, match="no complete memory store built by 0123abcd"):
        ensure_store(history, "memory", built_by="0123abcd")
