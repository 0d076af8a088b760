"""open_store: any store opens with the backend its marker names; a path that holds no store
gets a clear error; the Backend contract's hooks are the documented ones."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from tests._support.storage_helpers import FILE_BACKENDS, make_event, open_file_store

from tocsearch.errors import StorageError, StoreLocked, StoreReadOnly
from tocsearch.storage import Backend, open_store, store_backend
from tocsearch.storage import backend as backend_module
from tocsearch.storage._open import BACKENDS, DEFAULT_BACKEND

_T0 = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("backend", FILE_BACKENDS)
def test_every_store_opens_with_its_own_backend(backend: str, tmp_path: Path) -> None:
    """A store made by any backend is detected and opened by that backend, as a writer (which
    holds the lock) and as a reader (which refuses writes), with its records."""
    path = tmp_path / "store"
    with open_file_store(backend, path) as store:
        store.put_event(make_event(_T0, "a"))
        kind = type(store)
    assert store_backend(path) == backend
    with open_store(path) as writer:
        assert type(writer) is kind
        assert writer.count_events() == 1
        with pytest.raises(StoreLocked):
            open_store(path)
    with open_store(path, readonly=True) as reader:
        assert type(reader) is kind
        assert reader.get_event(make_event(_T0, "a").event_id).text == "text a"
        with pytest.raises(StoreReadOnly):
            reader.put_event(make_event(_T0, "b"))


def test_a_path_without_a_store_is_a_clear_error(tmp_path: Path) -> None:
    """A missing path, an empty folder, a file and a foreign folder each raise StorageError
    saying there is no store, and none of them is created or written."""
    missing = tmp_path / "missing"
    with pytest.raises(StorageError, match="no such directory"):
        open_store(missing)
    assert not missing.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(StorageError, match=re.escape("no tocsearch-store.json")):
        open_store(empty)
    assert list(empty.iterdir()) == []
    file = tmp_path / "notes.txt"
    file.write_text("hello")
    with pytest.raises(StorageError, match="is a file"):
        open_store(file)
    assert store_backend(missing) is None
    assert store_backend(empty) is None


def test_an_unknown_or_damaged_marker_is_reported(tmp_path: Path) -> None:
    """A marker naming a format this version does not know, or one that is not a marker,
    raises StorageError naming the marker file."""
    path = tmp_path / "store"
    path.mkdir()
    marker = path / "tocsearch-store.json"
    marker.write_text(json.dumps({"format": "tocsearch.future", "version": 1}))
    with pytest.raises(StorageError, match=re.escape("tocsearch.future")):
        open_store(path)
    marker.write_text("{half")
    with pytest.raises(StorageError, match=re.escape("tocsearch-store.json")):
        open_store(path)


def test_the_default_backend_for_new_stores_is_sqlite() -> None:
    """New stores are SQLite stores unless told otherwise, and every on-disk backend is named."""
    assert DEFAULT_BACKEND == "sqlite"
    assert set(BACKENDS) == set(FILE_BACKENDS)


def test_the_backend_hooks_are_the_documented_ones() -> None:
    """The abstract hooks of Backend are exactly those its documentation lists."""
    doc = backend_module.__doc__
    assert doc is not None
    documented = set(re.findall(r"^``(_[a-z_]+)\(", doc, re.MULTILINE))
    assert documented - {"_index_span", "_scrub"} == set(Backend.__abstractmethods__)
    assert Backend.__abstractmethods__ == {
        "_read_node",
        "_write_nodes",
        "_erase_node",
        "_read_grip",
        "_write_grips",
        "_erase_grip",
        "_grip_ids",
        "_read_event",
        "_write_events",
        "_erase_events",
        "_release",
    }
