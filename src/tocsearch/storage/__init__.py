"""Storage backends. Every backend implements :class:`Storage` with the same behaviour."""

from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.memory import InMemoryStorage
from tocsearch.storage.protocol import Storage
from tocsearch.storage.shelf import ShelveStorage

__all__ = ["InMemoryStorage", "JsonDirStorage", "ShelveStorage", "Storage"]
