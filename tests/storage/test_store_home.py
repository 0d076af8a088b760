"""A store whose directory can no longer be looked at (a folder on the way made unreadable)
says so with StorageError, as it does for a directory moved away, never a bare OSError."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from tests._support.storage_helpers import FILE_BACKENDS, open_store

from tocsearch.errors import StorageError
from tocsearch.levels import TocLevel
from tocsearch.storage._home import StoreHome


def _refusing_stat(path: Path, code: int) -> object:
    """``os.stat`` that fails with ``code`` for ``path`` and works for everything else."""
    real = os.stat

    def stat(target: object, *args: object, **kwargs: object) -> os.stat_result:
        if Path(os.fsdecode(target)) == path:  # type: ignore[arg-type]
            raise OSError(code, os.strerror(code), str(path))
        return real(target, *args, **kwargs)  # type: ignore[arg-type]

    return stat


@pytest.mark.parametrize("code", [errno.EACCES, errno.ELOOP, errno.ENAMETOOLONG])
def test_a_home_that_cannot_be_looked_at_is_unreachable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    """moved() names the failure; confirm() raises StorageError with it and the action."""
    home = StoreHome(tmp_path)
    assert home.moved() is None
    monkeypatch.setattr(os, "stat", _refusing_stat(tmp_path, code))
    assert home.moved() == f"unreachable ({os.strerror(code)})"
    with pytest.raises(StorageError) as raised:
        home.confirm("read")
    assert f"store directory {str(tmp_path)!r} is unreachable ({os.strerror(code)}) now" in str(
        raised.value
    )
    monkeypatch.undo()
    assert home.moved() is None  # reachable again: the same directory


@pytest.mark.parametrize("backend", FILE_BACKENDS)
def test_a_store_whose_directory_becomes_unreadable_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    """revision() of an open store raises StorageError, not PermissionError, while its
    directory cannot be looked at, and answers again once it can."""
    path = tmp_path / "store"
    store = open_store(backend, path)
    try:
        before = store.revision()
        monkeypatch.setattr(os, "stat", _refusing_stat(path, errno.EACCES))
        with pytest.raises(StorageError, match="unreachable"):
            store.revision()
        monkeypatch.undo()
        assert store.revision() == before
    finally:
        store.close()


@pytest.mark.parametrize("backend", FILE_BACKENDS)
@pytest.mark.parametrize("read", ["revision", "get_nodes_by_level", "get_events", "count_events"])
def test_a_read_of_a_store_gone_says_so_once(tmp_path: Path, backend: str, read: str) -> None:
    """A read that finds the store's directory gone answers as before or raises one
    StorageError that says so once: the reads that explain a failure of the files, and a
    backend's read built on another, do not wrap the explanation in itself again."""
    path = tmp_path / "store"
    store = open_store(backend, path)
    calls: dict[str, Callable[[], object]] = {
        "revision": store.revision,
        "get_nodes_by_level": lambda: store.get_nodes_by_level(TocLevel.YEAR),
        "get_events": store.get_events,
        "count_events": store.count_events,
    }
    shutil.rmtree(path)
    said = None
    try:
        calls[read]()
    except StorageError as error:
        said = str(error)
    finally:
        with contextlib.suppress(StorageError):
            store.close()
    if said is not None:
        assert said.count(f"store directory {str(path)!r} is gone now") == 1, said
