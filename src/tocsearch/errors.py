"""The exceptions tocsearch raises.

Every error is a :class:`TocsearchError`; where a builtin fits, an error also inherits it, so
``except KeyError`` and ``except ValueError`` keep working for callers that do not know us::

    TocsearchError
    ├── InvalidArgument (ValueError)        a caller passed a value we cannot use
    │   └── InvalidId                       a node, grip or event id that does not parse
    ├── NotFound (KeyError)                 something asked for by id is not stored
    │   ├── NodeNotFound
    │   ├── GripNotFound
    │   └── EventNotFound
    ├── StorageError (OSError)              a store could not be read or written
    │   ├── StoreLocked                     another writer holds the store
    │   ├── StoreReadOnly                   a write to a store opened read-only
    │   ├── StoreClosed                     the store was used after close()
    │   └── StoreCorrupted                  check() or a read found broken data
    └── ImportFailed (ValueError)           an input file could not be imported
        └── UnknownFormat                   an input's format cannot be told from its content
"""

from __future__ import annotations

__all__ = [
    "EventNotFound",
    "GripNotFound",
    "ImportFailed",
    "InvalidArgument",
    "InvalidId",
    "NodeNotFound",
    "NotFound",
    "StorageError",
    "StoreClosed",
    "StoreCorrupted",
    "StoreLocked",
    "StoreReadOnly",
    "TocsearchError",
    "UnknownFormat",
]


class TocsearchError(Exception):
    """Base class of every error raised by tocsearch."""


class InvalidArgument(TocsearchError, ValueError):
    """A caller passed a value that cannot be used, such as an empty query."""


class InvalidId(InvalidArgument):
    """A node, grip or event id does not have the documented format."""


class NotFound(TocsearchError, KeyError):
    """Something asked for by id is not in the store."""

    def __str__(self) -> str:
        # KeyError.__str__ shows the repr of its argument; a message reads better plain.
        return str(self.args[0]) if self.args else ""


class NodeNotFound(NotFound):
    """No TOC node with the given id is stored."""


class GripNotFound(NotFound):
    """No grip with the given id is stored."""


class EventNotFound(NotFound):
    """No event with the given id is stored."""


class StorageError(TocsearchError, OSError):
    """A store could not be read or written."""


class StoreLocked(StorageError):
    """Another process holds the store's writer lock."""


class StoreReadOnly(StorageError):
    """A write was attempted on a store opened with ``readonly=True``."""


class StoreClosed(StorageError):
    """The store was used after it was closed."""


class StoreCorrupted(StorageError):
    """A store's data breaks an invariant that check() or a read verifies."""


class ImportFailed(TocsearchError, ValueError):
    """An input file could not be imported; the message names the file, record and reason."""


class UnknownFormat(ImportFailed):
    """The format of an input cannot be told from its content, so it must be named.

    ``detail`` says what was found, without the hint on how to name the format, so that the
    command line can give its own (``--format``) where Python callers read ``format=``.
    """

    def __init__(self, detail: str) -> None:
        super().__init__(f"{detail}; pass format=")
        self.detail = detail
