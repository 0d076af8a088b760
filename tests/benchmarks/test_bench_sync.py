"""The sync benchmark's history: copies of real transcripts that the importer reads as new
sessions, and an appended turn that sync picks up."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.bench_sync import append_turn, make_history

from tocsearch.importers import load_claude_code
from tocsearch.storage import InMemoryStorage
from tocsearch.storage.protocol import Storage
from tocsearch.sync import sync_sources

FIXTURES = Path(__file__).resolve().parents[1] / "importers" / "fixtures"


def _source(tmp_path: Path) -> Path:
    source = tmp_path / "source" / "-work-app"
    source.mkdir(parents=True)
    for path in sorted((FIXTURES / "claude_code").rglob("*.jsonl")):
        (source / path.name).write_bytes(path.read_bytes())
    return source.parent


def _events(root: Path) -> list[tuple[str, str]]:
    return [
        (event.event_id, event.session_id)
        for path in sorted(root.rglob("*.jsonl"))
        for event in load_claude_code(path).events
    ]


def test_copies_are_new_sessions_a_week_apart(tmp_path: Path) -> None:
    """Each copy holds as many events as the source, under ids and sessions of its own, each
    event ``copy`` weeks after its original."""
    source = _source(tmp_path)
    original = _events(source)
    assert original
    sessions = make_history(source, tmp_path / "copies", 2)
    copied = _events(tmp_path / "copies")
    assert len(copied) == 2 * len(original)
    # The source may hold a line twice (the importer keeps its first); copies never share ids.
    assert len({event_id for event_id, _ in copied}) == 2 * len({i for i, _ in original})
    assert not {session for _, session in copied} & {session for _, session in original}
    assert sessions
    assert all(path.is_file() for path in sessions)
    first = min(load_claude_code(path).events[0].timestamp for path in source.rglob("*.jsonl"))
    later = sorted(
        load_claude_code(path).events[0].timestamp
        for path in (tmp_path / "copies").rglob("*.jsonl")
    )
    assert later[0] == first
    assert (later[-1] - first).days >= 7


def test_an_appended_turn_is_read_by_the_next_sync(tmp_path: Path) -> None:
    source = _source(tmp_path)
    sessions = make_history(source, tmp_path / "copies", 1)
    storage = InMemoryStorage()

    @contextmanager
    def writer() -> Iterator[Storage]:
        yield storage

    sync_sources(tmp_path / "store", [tmp_path / "copies"], writer)
    before = storage.count_events()
    assert append_turn(sessions[0], "quarzvintel")
    report = sync_sources(tmp_path / "store", [tmp_path / "copies"], writer)
    assert report.events_added == 1
    assert storage.count_events() == before + 1
    said = [event for event in storage.get_events() if "quarzvintel" in event.text]
    assert len(said) == 1
    assert said[0].session_id == load_claude_code(sessions[0]).events[0].session_id
