"""Storage backends. Every backend implements :class:`Storage` with the same behaviour."""

from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.memory import InMemoryStorage
from tocsearch.storage.protocol import Storage
from tocsearch.storage.shelf import ShelveStorage
from tocsearch.storage.sqlite import SqliteStorage

__all__ = ["InMemoryStorage", "JsonDirStorage", "ShelveStorage", "SqliteStorage", "Storage"]
