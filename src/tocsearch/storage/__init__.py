"""Storage backends. Every backend implements :class:`Storage` with the same behaviour;
:class:`Backend` is what a new record store subclasses, :func:`open_store` opens any store."""

from tocsearch.storage._open import open_store, store_backend
from tocsearch.storage.backend import Backend
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.memory import InMemoryStorage
from tocsearch.storage.protocol import Storage
from tocsearch.storage.shelf import ShelveStorage
from tocsearch.storage.sqlite import SqliteStorage

__all__ = [
    "Backend",
    "InMemoryStorage",
    "JsonDirStorage",
    "ShelveStorage",
    "SqliteStorage",
    "Storage",
    "open_store",
    "store_backend",
]
