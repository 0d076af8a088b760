"""A store directory moved away and replaced by a file while a writer has it open: every call
either works or raises StorageError naming the store (never a bare OSError from deep in a
backend, nor a failure printed when the store is collected), and the directory moved away holds
every write that returned."""

from __future__ import annotations

import gc
import os
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.storage_helpers import FILE_BACKENDS, make_event, make_node, open_store

from tocsearch.errors import StorageError
from tocsearch.levels import TocLevel
from tocsearch.models import Event

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
@settings(max_examples=10)
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
