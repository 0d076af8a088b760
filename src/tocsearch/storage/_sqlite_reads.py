"""Reads held in one SQLite read transaction across a block of queries.

A connection in autocommit mode begins and ends a read transaction for every statement: it
takes and drops a read lock on the write-ahead log's index and looks at the file's size each
time (three system calls). :class:`HeldReads` begins one read transaction for a block of
reads (a question), so those are paid once, and every read of the block sees one committed
state of the file. Writes by other connections are seen by the next block, as by the next
statement before.

The connection is shared by threads: the block holds a lock that writes through the same
object also take, so a write from another thread waits for the block to end (a question, a
millisecond or so) instead of failing to begin inside it. A write from the thread that holds
the block ends the read transaction, writes, and begins another: the rest of the block reads
what it wrote.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["HeldReads"]


class HeldReads:
    """Read transactions held across blocks of reads on one connection.

    Args:
        connection: the connection now (None once it is closed); asked at every use, so a
            connection opened anew (a rebuilt file) is the one read.
        failed: the error to raise for what SQLite raised beginning or ending a transaction.
    """

    def __init__(
        self,
        connection: Callable[[], sqlite3.Connection | None],
        failed: Callable[[sqlite3.DatabaseError], Exception],
    ) -> None:
        self._connection = connection
        self._failed = failed
        # Held by a block of reads and by every write, so that no write begins inside a
        # block another thread holds. Re-entrant: a block may write, or open another block.
        self._lock = threading.RLock()
        self._depth = 0
        # Moves on with every read transaction a block begins (see :meth:`held`).
        self._serial = 0

    def held(self) -> int | None:
        """A number for the read transaction a block holds now, or None outside a block:
        while it is the same, nothing another connection commits can be seen, so what was
        worked out from an earlier read of it (a count, a data version) still holds."""
        return self._serial if self._depth else None

    def reading(self) -> HeldReads:
        """A block that holds one read transaction (nested blocks share the outer one): this
        object, whose ``with`` begins and ends it.

        Raises:
            StorageError: (``failed``) the transaction could not begin or end.
        """
        return self

    def __enter__(self) -> None:
        self._lock.acquire()
        try:
            if self._depth == 0:
                self._begin()
        except BaseException:
            self._lock.release()
            raise
        self._depth += 1

    def __exit__(self, *exc_info: object) -> None:
        self._depth -= 1
        try:
            if self._depth == 0:
                self._end()
        finally:
            self._lock.release()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Around a write (or a statement that cannot run inside a transaction): the read
        transaction of a block this thread holds ends first and a new one begins after, so
        the write commits on its own and the rest of the block reads what it wrote.

        Raises:
            StorageError: (``failed``) the read transaction could not end or begin again.
        """
        with self._lock:
            if self._depth:
                self._end()
            try:
                yield
            finally:
                if self._depth:
                    self._begin()

    def _begin(self) -> None:
        connection = self._connection()
        if connection is None:
            return
        try:
            if not connection.in_transaction:
                connection.execute("BEGIN")
                self._serial += 1
        except sqlite3.DatabaseError as error:
            raise self._failed(error) from None

    def _end(self) -> None:
        connection = self._connection()
        if connection is None:
            return
        try:
            # A connection opened anew inside the block holds no transaction.
            if connection.in_transaction:
                connection.execute("COMMIT")
        except sqlite3.ProgrammingError:
            return  # closed inside the block: nothing is held any more
        except sqlite3.DatabaseError as error:
            raise self._failed(error) from None
