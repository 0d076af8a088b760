"""A forget or redact cut short by a crash: the note it leaves lets the next writer finish it,
with the same result as a run that was never interrupted and nothing else lost."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path

import attrs
import pytest
from tests._support.cli import run
from tests._support.records import files_text, records_text
from tests._support.storage_helpers import FILE_BACKENDS, open_store

from tocsearch import TocBuilder
from tocsearch.converter import to_json
from tocsearch.errors import StoreCorrupted
from tocsearch.examples import load_example_events
from tocsearch.ingest import check_tree
from tocsearch.privacy import (
    ForgetRequest,
    RedactRequest,
    finish_pending,
    forget_events,
    redact_events,
)
from tocsearch.privacy._pending import (
    PENDING_NAME,
    PendingWork,
    read_pending,
    write_pending,
)
from tocsearch.storage.protocol import Storage

EXAMPLE = load_example_events()
VICTIM = "2026-02-17-incident-2291"


class Crash(Exception):
    """Stands for the process dying at this point."""


def _crash(*_: object, **__: object) -> None:
    raise Crash


def _tree(store: Storage) -> list[str]:
    """Every node, grip and event, node versions aside: what the tree says."""
    texts = [to_json(attrs.evolve(store.get_node(n), version=1)) for n in store.iter_node_ids()]
    texts += [to_json(store.get_grip(grip_id)) for grip_id in store.iter_grip_ids()]
    texts += [to_json(event) for event in store.get_events()]
    return sorted(texts)


def _forget(store: Storage) -> None:
    forget_events(store, ForgetRequest(session=VICTIM))


def _redact(store: Storage) -> None:
    redact_events(store, RedactRequest(pattern="(?i)multi-az|leeway"))


STEPS = ("delete", "rebuild", "scrub")


# Every step a forget takes, on every file backend; a redact takes the same steps.
CASES = [
    *((backend, where, _forget) for backend in FILE_BACKENDS for where in STEPS),
    *(("sqlite", where, _redact) for where in STEPS),
]


@pytest.mark.parametrize(("backend", "where", "operation"), CASES)
def test_a_crash_midway_is_finished_by_the_next_writer(
    backend: str,
    where: str,
    operation: Callable[[Storage], None],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whichever step a crash cuts, the note stays; reopening and finishing gives the tree an
    uninterrupted run gives, and removes the note."""
    with open_store(backend, tmp_path / "clean") as store:
        TocBuilder(store).ingest(EXAMPLE)
    shutil.copytree(tmp_path / "clean", tmp_path / "crashed")
    with open_store(backend, tmp_path / "clean") as store:
        operation(store)
        expected = _tree(store)
    store = open_store(backend, tmp_path / "crashed")
    cls = type(store)
    method = {"delete": "delete_events", "rebuild": None, "scrub": "scrub"}[where]
    with monkeypatch.context() as patch:
        if method is None:
            patch.setattr(TocBuilder, "rebuild_days", _crash)
        else:
            patch.setattr(cls, method, _crash)
        with pytest.raises(Crash):
            operation(store)
    store.close()
    assert (tmp_path / "crashed" / PENDING_NAME).is_file()
    with open_store(backend, tmp_path / "crashed") as store:
        assert finish_pending(store)
        assert not finish_pending(store)
        assert _tree(store) == expected
        store.check()
        check_tree(store)
    assert not (tmp_path / "crashed" / PENDING_NAME).exists()
    raw = files_text(tmp_path / "crashed").lower()
    assert b"multi-az" not in raw


def test_a_writing_command_finishes_the_work_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a crash, the next tocsearch command that writes finishes the forget before its
    own work; a reading command leaves the note for it."""
    path = tmp_path / "store"
    with open_store("sqlite", path) as store:
        TocBuilder(store).ingest(EXAMPLE)
        with monkeypatch.context() as patch:
            patch.setattr(TocBuilder, "rebuild_days", _crash)
            with pytest.raises(Crash):
                _forget(store)
    assert run("stats", "--store", str(path))[0] == 0
    assert (path / PENDING_NAME).is_file()
    status, _, err = run("redact", "zz-matches-nothing-zz", "--store", str(path))
    assert status == 0, err
    assert not (path / PENDING_NAME).exists()
    with open_store("sqlite", path, readonly=True) as store:
        assert "multi-az" not in records_text(store).lower()
        check_tree(store)


def test_the_note_round_trips_and_holds_no_removed_text(tmp_path: Path) -> None:
    """The note keeps ids, redacted events and days; never the text a redact removed."""
    event = EXAMPLE[0]
    redacted = attrs.evolve(event, text=re.sub("a", "[redacted]", event.text))
    work = PendingWork(delete=(EXAMPLE[1].event_id,), put=(redacted,), days=(date(2026, 1, 5),))
    write_pending(tmp_path, work)
    assert read_pending(tmp_path) == work
    assert event.text.encode() not in (tmp_path / PENDING_NAME).read_bytes()


@pytest.mark.parametrize(
    "body", ["", "{half", "[]", '{"version": 9}', '{"version": 1, "delete": 5}']
)
def test_a_damaged_note_is_refused_with_advice(tmp_path: Path, body: str) -> None:
    """A note that cannot be read raises StoreCorrupted saying what to do."""
    (tmp_path / PENDING_NAME).write_text(body, encoding="utf-8")
    with pytest.raises(StoreCorrupted, match="run the same forget or redact again"):
        read_pending(tmp_path)
