"""A store directory moved away and replaced by a file while a writer has it open: every call
either works or raises StorageError naming the store (never a bare OSError from deep in a
backend, nor a failure printed when the store is collected), and the directory moved away holds
every write that returned."""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.storage_helpers import FILE_BACKENDS, make_event, make_node, open_store

from tocsearch import ids
from tocsearch.errors import StorageError
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip
from tocsearch.storage.protocol import Storage

_T0 = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)


def _write_across_the_swap(
    backend: str, path: Path, aside: Path, before: int, after: int, also_check: bool
) -> tuple[list[Event], list[str]]:
    """Put ``before`` events, swap the directory for a file, then put ``after`` more, a node,
    maybe check, and close: the events whose put returned, and the failures' messages."""
    store = open_store(backend, path)
    written = [make_event(_T0 + timedelta(minutes=i), f"e{i}") for i in range(before)]
    store.put_events(written)
    os.rename(path, aside)
    path.write_text("not a store any more")
    later = [make_event(_T0 + timedelta(hours=1, minutes=i), f"n{i}") for i in range(after)]
    calls: list[tuple[Event | None, Callable[[], object]]] = [
        (event, lambda event=event: store.put_event(event))  # type: ignore[misc]
        for event in later
    ]
    day = make_node("toc:day:2026-01-30", TocLevel.DAY, _T0)
    calls.append((None, lambda: store.put_node(day)))
    if also_check:
        calls.append((None, store.check))
    calls.append((None, store.close))
    failures: list[str] = []
    for event, call in calls:
        try:
            call()
        except StorageError as error:
            failures.append(str(error))
        else:
            if event is not None:
                written.append(event)
    return written, failures


@pytest.mark.parametrize("backend", FILE_BACKENDS)
@settings(max_examples=scaled(10))
@given(before=st.integers(0, 4), after=st.integers(1, 4), also_check=st.booleans())
def test_writes_after_the_directory_is_replaced_fail_clearly_and_lose_nothing(
    backend: str, before: int, after: int, also_check: bool
) -> None:
    """Events put before the swap are all in the moved directory; each put after it either
    works (SQLite writes on through its open file) and is there too, or raises StorageError
    saying the store directory is a file now; closing does the same and releases the store,
    and nothing fails later when the store is collected."""
    with tempfile.TemporaryDirectory() as folder:
        path, aside = Path(folder) / "store", Path(folder) / "aside"
        unraised: list[object] = []
        hook, sys.unraisablehook = sys.unraisablehook, unraised.append
        try:
            written, failures = _write_across_the_swap(
                backend, path, aside, before, after, also_check
            )
            gc.collect()
        finally:
            sys.unraisablehook = hook
        assert unraised == []
        assert all(f"{str(path)!r} is a file now" in failure for failure in failures)
        assert backend == "sqlite" or failures
        assert path.read_text() == "not a store any more"
        with open_store(backend, aside, readonly=True) as moved:
            assert moved.get_events() == written


_GRIP = ids.grip_id(_T0, "g0")
_READS: dict[str, Callable[[Storage], object]] = {
    "get_events": lambda store: store.get_events(),
    "find_event": lambda store: store.find_event(ids.event_id(_T0, "e0")),
    "find_node": lambda store: store.find_node("toc:day:2026-01-30"),
    "find_grip": lambda store: store.find_grip(_GRIP),
    "days": lambda store: store.get_nodes_by_level(TocLevel.DAY),
    "years": lambda store: store.get_nodes_by_level(TocLevel.YEAR),
    "children": lambda store: store.get_child_nodes("toc:day:2026-01-30"),
    "count_events": lambda store: store.count_events(),
    "session": lambda store: store.get_session_events("s1"),
    "after": lambda store: store.get_events_after(ids.event_id(_T0, "e0"), 5),
    "node_ids": lambda store: sorted(store.iter_node_ids()),
}


def _fill(store: Storage, marker: str) -> None:
    """Events, a day with a segment, and a grip, whose texts say which store holds them."""
    store.put_events([make_event(_T0 + timedelta(minutes=i), f"e{i}") for i in range(3)])
    day = make_node("toc:day:2026-01-30", TocLevel.DAY, _T0, hours=24)
    segment = make_node("toc:segment:2026-01-30:090000-aa", TocLevel.SEGMENT, _T0)
    store.put_nodes(
        [
            attrs.evolve(day, title=f"day of {marker}", child_node_ids=(segment.node_id,)),
            segment,
        ]
    )
    store.put_grip(
        Grip(
            grip_id=_GRIP,
            excerpt=f"grip of {marker}",
            event_id_start=ids.event_id(_T0, "e0"),
            event_id_end=ids.event_id(_T0, "e0"),
            timestamp=_T0,
            source="user",
            toc_node_id=segment.node_id,
        )
    )


def _answer(read: Callable[[Storage], object], store: Storage) -> tuple[str, object]:
    try:
        return "answer", read(store)
    except StorageError as error:
        return "error", str(error)


@pytest.mark.parametrize("backend", FILE_BACKENDS)
@pytest.mark.parametrize("readonly", [False, True])
@settings(max_examples=scaled(12), deadline=None)
@given(
    swap=st.sampled_from(["a file", "gone", "another directory"]),
    warmed=st.lists(st.sampled_from(sorted(_READS)), max_size=4),
    reads=st.lists(st.sampled_from(sorted(_READS)), min_size=1, max_size=8),
)
def test_reads_after_the_directory_is_replaced_answer_as_before_or_say_so(
    backend: str, readonly: bool, swap: str, warmed: list[str], reads: list[str]
) -> None:
    """Once the store's directory is moved away and a file, nothing or another store put at
    its path, revision() raises StorageError saying what the path is now, and every read
    either answers exactly as it did before (from what the store holds open or read) or
    raises that StorageError: never an answer from the other store, an empty answer for
    missing files, or another kind of error."""
    with tempfile.TemporaryDirectory() as folder:
        path, aside = Path(folder) / "store", Path(folder) / "aside"
        with open_store(backend, path) as writer:
            _fill(writer, "the store opened")
        store = open_store(backend, path, readonly=readonly) if readonly else None
        if store is None:
            store = open_store(backend, path)
        try:
            expected = {name: _READS[name](store) for name in _READS}
            for name in warmed:
                _READS[name](store)
            os.rename(path, aside)
            if swap == "a file":
                path.write_text("not a store any more")
            elif swap == "another directory":
                with open_store(backend, path) as other:
                    _fill(other, "another store")
            else:
                shutil.rmtree(aside)
            said = f"store directory {str(path)!r} is {swap} now"
            with pytest.raises(StorageError) as raised:
                store.revision()
            assert said in str(raised.value)
            for name in reads:
                kind, answer = _answer(_READS[name], store)
                if kind == "answer":
                    assert answer == expected[name], name
                else:
                    assert said in str(answer), name
        finally:
            with contextlib.suppress(StorageError):
                store.close()
