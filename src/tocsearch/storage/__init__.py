"""Storage backends. Every backend implements :class:`Storage` with the same behaviour."""

from tocsearch.storage.memory import InMemoryStorage
from tocsearch.storage.protocol import Storage

__all__ = ["InMemoryStorage", "Storage"]
