"""Sync over a folder of hostile files: whatever sits among the transcripts (lines that are not
UTF-8, not JSON, nested too deep or holding numbers too long or times that are not times,
symbolic links that loop or lead nowhere, a pipe, a folder named like a transcript, a file name
that is not UTF-8), a sync returns a report, stores every good line once and names the bad
ones; the next sync finds nothing new. A store path that is a file is refused up front."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.cli import run
from tests._support.examples import scaled
from tests.test_sync import Store

from tocsearch.errors import ImportFailed, StorageError
from tocsearch.sync import sync_sources

_T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def _good(number: int) -> bytes:
    """A user message of a transcript, unique by its number."""
    record = {
        "type": "user",
        "uuid": f"u-{number}",
        "sessionId": "s1",
        "cwd": "/work/app",
        "timestamp": (_T0 + timedelta(minutes=number)).isoformat().replace("+00:00", "Z"),
        "message": {"role": "user", "content": f"message number {number}"},
    }
    return json.dumps(record).encode() + b"\n"


def _bad(kind: str, number: int) -> bytes:
    """A transcript line that cannot be an event, of the named kind."""
    good = _good(number).rstrip(b"\n")
    if kind == "not utf-8":
        return good.replace(b"message number", b"message \xff\xfe number") + b"\n"
    if kind == "not json":
        return good[: len(good) // 2] + b"\n"
    if kind == "too deep":
        return b'{"type": "user", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}\n"
    if kind == "long number":
        return good.replace(b'"cwd"', b'"n": 1' + b"0" * 5000 + b', "cwd"') + b"\n"
    stamp = {"nan time": b"NaN", "infinite time": b"1e400", "far time": b'"9999-12-31T00:00:00Z"'}
    old = json.dumps((_T0 + timedelta(minutes=number)).isoformat().replace("+00:00", "Z"))
    return good.replace(old.encode(), stamp[kind]) + b"\n"


_BAD_LINES = ("not utf-8", "not json", "too deep", "long number", "nan time", "infinite time")
_ODD_ENTRIES = ("loop", "dangling", "pipe", "folder named .jsonl", "empty", "name not utf-8")

_lines = st.lists(st.one_of(st.just("good"), st.sampled_from((*_BAD_LINES, "far time"))))
_files = st.lists(_lines, min_size=1, max_size=4)


def _odd_entry(folder: Path, kind: str) -> None:
    if kind == "loop":
        os.symlink("..", folder / "loop")
    elif kind == "dangling":
        os.symlink("nowhere.jsonl", folder / "dangling.jsonl")
    elif kind == "pipe":
        os.mkfifo(folder / "pipe.jsonl")
    elif kind == "folder named .jsonl":
        (folder / "folder.jsonl").mkdir()
    elif kind == "empty":
        (folder / "empty.jsonl").write_bytes(b"")
    else:
        os.close(os.open(os.fsencode(folder) + b"/name-\xff.jsonl", os.O_CREAT | os.O_WRONLY))


@settings(max_examples=scaled(25))
@given(files=_files, odd=st.lists(st.sampled_from(_ODD_ENTRIES), unique=True))
def test_sync_stores_every_good_line_and_names_every_bad_one(
    files: list[list[str]], odd: list[str]
) -> None:
    """Every good line is stored once, each bad line is one problem, the odd entries are
    skipped or reported without failing the sync, and a second sync adds nothing."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        project = root / "projects" / "app"
        project.mkdir(parents=True)
        number = 0
        good = bad = 0
        for index, kinds in enumerate(files):
            body = b""
            for kind in kinds:
                number += 1
                if kind == "good":
                    body += _good(number)
                    good += 1
                else:
                    body += _bad(kind, number)
                    bad += 1
            (project / f"t{index}.jsonl").write_bytes(body)
        for kind in odd:
            _odd_entry(project, kind)
        store = Store(root / "store")
        report = store.sync(root / "projects")
        assert store.storage.count_events() == good
        assert report.events_added == good
        assert len(report.problems) >= bad
        again = store.sync(root / "projects")
        assert again.events_added == 0
        assert store.storage.count_events() == good
        store.storage.check()


@pytest.mark.parametrize("has_news", [True, False])
def test_a_store_path_that_is_a_file_is_refused_before_reading(
    tmp_path: Path, has_news: bool
) -> None:
    """Syncing into a path that is a file raises StorageError naming it, whether or not
    anything new would be stored, and the command exits 1 saying so; the file is untouched."""
    (tmp_path / "projects" / "app").mkdir(parents=True)
    (tmp_path / "projects" / "app" / "t.jsonl").write_bytes(_good(1) if has_news else b"")
    store = tmp_path / "store"
    store.write_text("my notes")
    opened: list[int] = []

    def writer() -> object:
        opened.append(1)
        raise AssertionError("the store was opened")

    with pytest.raises(StorageError, match="is a file, not a tocsearch store directory"):
        sync_sources(store, [tmp_path / "projects"], writer)  # type: ignore[arg-type]
    status, _, err = run("sync", "--store", str(store), str(tmp_path / "projects"))
    assert status == 1
    assert f"tocsearch: error: {str(store)!r} is a file, not a tocsearch store directory" in err
    assert store.read_text() == "my notes"
    assert opened == []


def test_a_pipe_given_to_sync_is_refused_as_neither_file_nor_folder(tmp_path: Path) -> None:
    """A named pipe given by path (which a read would wait on forever) is an ImportFailed
    saying what it is, not 'no such file'; nothing is read or stored."""
    pipe = tmp_path / "talk.jsonl"
    os.mkfifo(pipe)
    store = Store(tmp_path / "store")
    with pytest.raises(ImportFailed, match=r"talk\.jsonl: not a file or a folder$"):
        store.sync(pipe)
    assert store.opened == 0
