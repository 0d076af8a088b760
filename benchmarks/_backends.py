"""The storage backends benchmarks build into, by name, including ones a checkout may lack.

``sqlite`` is :class:`tocsearch.storage.SqliteStorage` where the checkout has it; every other
name maps to a backend the library has always shipped.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from tocsearch.errors import InvalidArgument
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.memory import InMemoryStorage
from tocsearch.storage.protocol import Storage
from tocsearch.storage.shelf import ShelveStorage

__all__ = ["BACKENDS", "ON_DISK", "backend_available", "open_backend"]

BACKENDS = ("memory", "jsondir", "shelf", "sqlite")
ON_DISK = frozenset({"jsondir", "shelf", "sqlite"})


def _sqlite_class() -> Callable[..., Storage] | None:
    try:
        module = importlib.import_module("tocsearch.storage.sqlite")
    except ImportError:
        return None
    found: Callable[..., Storage] | None = getattr(module, "SqliteStorage", None)
    return found


def backend_available(name: str) -> bool:
    """Whether this checkout of the library has the backend ``name``."""
    if name == "sqlite":
        return _sqlite_class() is not None
    return name in BACKENDS


def open_backend(name: str, path: Path | None = None, *, readonly: bool = False) -> Storage:
    """A store of backend ``name`` at ``path`` (ignored, and may be None, for ``memory``).

    Raises:
        InvalidArgument: the name is unknown, the checkout lacks the backend, or an on-disk
            backend is given no path.
    """
    if name == "memory":
        return InMemoryStorage()
    if name not in BACKENDS:
        raise InvalidArgument(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    if path is None:
        raise InvalidArgument(f"backend {name!r} needs a path")
    if name == "jsondir":
        return JsonDirStorage(path, readonly=readonly)
    if name == "shelf":
        return ShelveStorage(path, readonly=readonly)
    sqlite = _sqlite_class()
    if sqlite is None:
        raise InvalidArgument("this checkout has no tocsearch.storage.sqlite.SqliteStorage")
    return sqlite(path, readonly=readonly)
