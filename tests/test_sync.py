"""Incremental sync: only new whole lines are read, changed or replaced files are read again,
ChatGPT exports only when they change, and what was read is searchable at once."""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._support.cli import run
from tests._support.examples import scaled
from tocsearch.errors import ImportFailed
from tocsearch.storage import InMemoryStorage
from tocsearch.storage.protocol import Storage
from tocsearch.sync import SyncReport, source_files, sync_sources

FIXTURES = Path(__file__).parent / "importers" / "fixtures"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def line(number: int, text: str, *, session: str = "s1") -> str:
    """One Claude Code transcript line: a user message."""
    record = {
        "type": "user",
        "uuid": f"u-{session}-{number}",
        "sessionId": session,
        "cwd": "/work/app",
        "timestamp": (T0 + timedelta(minutes=number)).isoformat().replace("+00:00", "Z"),
        "message": {"role": "user", "content": text},
    }
    return json.dumps(record) + "\n"


class Store:
    """An in-memory store that sync opens as its writer, kept across syncs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.storage = InMemoryStorage()
        self.opened = 0

    @contextmanager
    def writer(self) -> Iterator[Storage]:
        self.opened += 1
        yield self.storage

    def sync(self, *paths: Path, full: bool = False) -> SyncReport:
        return sync_sources(self.root, list(paths), self.writer, full=full)

    def texts(self) -> list[str]:
        return [event.text for event in self.storage.get_events()]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store")


def test_only_the_appended_line_is_read(store: Store, tmp_path: Path) -> None:
    """After a first sync, an appended line is read alone (its bytes only) and stored."""
    transcript = tmp_path / "projects" / "app" / "s1.jsonl"
    transcript.parent.mkdir(parents=True)
    first = line(1, "we chose postgres for the queue") + line(2, "and redis for the cache")
    transcript.write_text(first, encoding="utf-8")
    report = store.sync(tmp_path / "projects")
    assert (report.files_read, report.events_added) == (1, 2)
    appended = line(3, "the flamingo deploy finished")
    with transcript.open("a", encoding="utf-8") as stream:
        stream.write(appended)
    report = store.sync(tmp_path / "projects")
    assert report.bytes_read == len(appended.encode())
    assert (report.events_read, report.events_added, report.files_reread) == (1, 1, 0)
    assert "the flamingo deploy finished" in store.texts()


def test_nothing_new_opens_no_store(store: Store, tmp_path: Path) -> None:
    """A second sync with nothing new reads no file and never opens the store."""
    transcript = tmp_path / "s1.jsonl"
    transcript.write_text(line(1, "hello there world"), encoding="utf-8")
    store.sync(transcript)
    opened = store.opened
    report = store.sync(transcript)
    assert (report.files_unchanged, report.files_read, report.bytes_read) == (1, 0, 0)
    assert store.opened == opened


def test_a_line_being_written_waits_for_the_next_sync(store: Store, tmp_path: Path) -> None:
    """A last line without its newline is not read until it is whole."""
    transcript = tmp_path / "s1.jsonl"
    whole, partial = line(1, "complete line here"), line(2, "half written words")
    transcript.write_text(whole + partial[:20], encoding="utf-8")
    report = store.sync(transcript)
    assert report.events_read == 1
    with transcript.open("a", encoding="utf-8") as stream:
        stream.write(partial[20:])
    report = store.sync(transcript)
    assert report.events_read == 1
    assert report.bytes_read == len(partial.encode())
    assert "half written words" in store.texts()


def test_a_truncated_or_replaced_file_is_read_again(store: Store, tmp_path: Path) -> None:
    """A file that shrank, or another file under the same name, is read from its start."""
    transcript = tmp_path / "s1.jsonl"
    transcript.write_text(line(1, "alpha beta gamma") + line(2, "delta epsilon"), "utf-8")
    store.sync(transcript)
    transcript.write_text(line(5, "zeta after truncation"), encoding="utf-8")
    report = store.sync(transcript)
    assert (report.files_reread, report.events_added) == (1, 1)
    replacement = tmp_path / "new.jsonl"
    replacement.write_text(
        line(5, "zeta after truncation") + line(6, "replaced file line"), "utf-8"
    )
    os.replace(replacement, transcript)
    report = store.sync(transcript)
    assert report.files_reread == 1
    assert report.events_added == 1
    assert "replaced file line" in store.texts()


@settings(max_examples=scaled(20), deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=6))
def test_syncing_in_pieces_stores_what_one_read_stores(pieces: list[int]) -> None:
    """However a transcript grows between syncs, the stored events are those of one read."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        lines = [line(n, f"message number {n} about topic{n}") for n in range(sum(pieces))]
        transcript = root / "s1.jsonl"
        transcript.write_text("", encoding="utf-8")
        pieced = Store(root / "a")
        written = 0
        for size in pieces:
            with transcript.open("a", encoding="utf-8") as stream:
                stream.writelines(lines[written : written + size])
            written += size
            pieced.sync(transcript)
        whole = Store(root / "b")
        whole.sync(transcript)
        assert pieced.storage.get_events() == whole.storage.get_events()


def _export(path: Path, title: str) -> None:
    document = json.loads((FIXTURES / "chatgpt_conversations.json").read_text("utf-8"))
    document[0]["title"] = title
    path.write_text(json.dumps(document), encoding="utf-8")


def test_chatgpt_exports_are_read_again_only_when_changed(store: Store, tmp_path: Path) -> None:
    """A ChatGPT export folder and .zip are read once, then again only after they change."""
    folder = tmp_path / "export"
    folder.mkdir()
    _export(folder / "conversations.json", "first")
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.write(folder / "conversations.json", "chatgpt/conversations.json")
    report = store.sync(folder, archive)
    assert report.files_read == 2
    assert report.events_added > 0
    assert store.sync(folder, archive).files_unchanged == 2
    _export(folder / "conversations.json", "second")
    report = store.sync(folder, archive)
    assert (report.files_read, report.files_reread, report.files_unchanged) == (1, 1, 1)


def test_bad_paths_are_clear_errors(tmp_path: Path) -> None:
    """A missing path or an unknown kind of file is refused by name."""
    with pytest.raises(ImportFailed, match="no such file"):
        source_files([tmp_path / "nowhere"])
    (tmp_path / "notes.txt").write_text("hi", encoding="utf-8")
    with pytest.raises(ImportFailed, match="not a Claude Code transcript"):
        source_files([tmp_path / "notes.txt"])
    (tmp_path / "bad.zip").write_bytes(b"PK not really")
    with pytest.raises(ImportFailed, match="not a readable zip"):
        Store(tmp_path / "s").sync(tmp_path / "bad.zip")


def test_the_command_syncs_and_says_where_the_store_is(tmp_path: Path) -> None:
    """tocsearch sync names the store on stderr, and the next sync finds nothing new; the
    synced line is found by search; stats counts it."""
    projects = tmp_path / "projects"
    shutil.copytree(FIXTURES / "claude_code", projects / "app")
    store = tmp_path / "store"
    status, out, err = run("sync", str(projects), "--store", str(store), "--json")
    assert status == 0, err
    assert f"store {store}" in err
    first = json.loads(out)
    assert first["events_added"] > 0
    status, out, err = run("sync", str(projects), "--store", str(store), "--json")
    assert status == 0, err
    assert json.loads(out)["files_unchanged"] == first["files_seen"]
    status, out, err = run("stats", "--store", str(store), "--json")
    assert status == 0, err
    stats = json.loads(out)
    assert stats["events"] == first["events_added"]
    assert stats["sessions"] >= 1
    assert stats["store_bytes"] > 0


def test_version_is_printed() -> None:
    """--version prints the package version."""
    import tocsearch

    status, out, _ = run("--version")
    assert status == 0
    assert out.strip() == f"tocsearch {tocsearch.__version__}"


def test_source_files_are_resolved_once_each_and_linked_folders_are_not_entered(
    tmp_path: Path,
) -> None:
    """A transcript reached through a linked file counts once, remembered by its real path
    and read by the path it was found under; a linked folder is not walked; a broken link and
    other files are left out."""
    projects = tmp_path / "projects"
    (projects / "app").mkdir(parents=True)
    (projects / "app" / "s1.jsonl").write_text(line(1, "first"), encoding="utf-8")
    (projects / "app" / "notes.txt").write_text("not a transcript", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "s2.jsonl").write_text(line(2, "second", session="s2"), encoding="utf-8")
    (projects / "app" / "linked.jsonl").symlink_to(elsewhere / "s2.jsonl")
    (projects / "app" / "twice.jsonl").symlink_to(projects / "app" / "s1.jsonl")
    (projects / "app" / "broken.jsonl").symlink_to(tmp_path / "gone.jsonl")
    (projects / "folder-link").symlink_to(elsewhere, target_is_directory=True)
    found = source_files([projects, projects / "app" / "s1.jsonl"])
    assert [source.resolved for source in found] == [
        (elsewhere / "s2.jsonl").resolve(),
        (projects / "app" / "s1.jsonl").resolve(),
    ]
    # Read by the paths they were found under: the project is named by its folder there.
    assert [source.path for source in found] == [
        projects / "app" / "linked.jsonl",
        projects / "app" / "s1.jsonl",
    ]
    assert {source.kind for source in found} == {"claude-code"}


def test_a_transcript_whose_name_is_not_utf8_is_synced_and_remembered(tmp_path: Path) -> None:
    """A transcript file named in bytes that are not UTF-8 is read, remembered, and skipped
    by the next sync as unchanged (its name has lone surrogates once decoded)."""
    projects = tmp_path / "projects" / "app"
    projects.mkdir(parents=True)
    name = os.fsdecode(b"\xff\xfe-session.jsonl")
    try:
        (projects / name).write_text(line(1, "the cache warmer story"), encoding="utf-8")
    except (UnicodeEncodeError, OSError):
        pytest.skip("this file system refuses names that are not UTF-8")
    store = tmp_path / "store"
    status, out, err = run("sync", str(projects.parent), "--store", str(store), "--json")
    assert status == 0, err
    assert json.loads(out)["events_added"] == 1
    status, out, err = run("sync", str(projects.parent), "--store", str(store), "--json")
    assert status == 0, err
    assert json.loads(out)["files_unchanged"] == 1
