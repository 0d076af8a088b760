"""What SQLite raises becomes the same tocsearch error through the ``with`` block and through
the function hot paths call, naming the file, for every kind of failure."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tocsearch.errors import StorageError, StoreCorrupted, StoreLocked
from tocsearch.storage._sqlite_db import sqlite_errors, storage_error

ERRORS = st.builds(
    lambda kind, message: kind(message),
    st.sampled_from([sqlite3.OperationalError, sqlite3.DatabaseError, sqlite3.IntegrityError]),
    st.sampled_from(
        [
            "database is locked",
            "database is busy",
            "disk I/O error",
            "unable to open database file",
            "no such table: nodes",
            "file is not a database",
        ]
    ),
)


@given(error=ERRORS, advice=st.sampled_from(["", "; rebuild it"]))
def test_the_block_and_the_function_raise_the_same_error(
    error: sqlite3.DatabaseError, advice: str
) -> None:
    """Same class and message from both, and the message names the file."""
    where = Path("/stores/x/tocsearch.sqlite3")
    with (
        pytest.raises(StorageError) as raised,
        sqlite_errors(where, kind="search index", advice=advice),
    ):
        raise error
    made = storage_error(error, where, kind="search index", advice=advice)
    assert type(made) is type(raised.value)
    assert str(made) == str(raised.value)
    assert str(where) in str(made)


def test_a_locked_file_is_locked_and_a_damaged_one_corrupted() -> None:
    """The kinds a caller acts on: wait and retry, or rebuild."""
    where = "index.sqlite"
    assert isinstance(
        storage_error(sqlite3.OperationalError("database is locked"), where), StoreLocked
    )
    assert isinstance(
        storage_error(sqlite3.DatabaseError("file is not a database"), where), StoreCorrupted
    )
