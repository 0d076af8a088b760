"""What a sync checks before each query, read by one statement, is what reading each table
on its own gives, however the sidecar's tables are missing or damaged."""

from __future__ import annotations

import sqlite3

from hypothesis import given
from hypothesis import strategies as st

from tocsearch.index._schema import _state_by_parts, create_index_tables, index_state

DAMAGE = (
    "DROP TABLE fts_meta",
    "DROP TABLE index_meta",
    "DROP TABLE events_fts",
    "DROP TABLE segments_fts",
    "UPDATE fts_meta SET value = 'x' WHERE key = 'version'",
    "UPDATE fts_meta SET value = '2' WHERE key = 'version'",
    "DELETE FROM fts_meta",
    "UPDATE index_meta SET value = 'abc' WHERE key = 'format'",
    "DELETE FROM index_meta WHERE key = 'format'",
    "INSERT OR REPLACE INTO index_meta (key, value) VALUES ('store_events', '12')",
    "INSERT OR REPLACE INTO fts_meta (key, value) VALUES ('other', '5')",
)


@given(st.lists(st.sampled_from(DAMAGE), unique=True), st.booleans())
def test_one_read_of_the_state_is_the_reads_of_its_parts(damage: list[str], made: bool) -> None:
    """The format, the FTS version and every ``index_meta`` value agree with reading them
    one table at a time, for a sidecar with its tables, without them, or damaged."""
    connection = sqlite3.connect(":memory:")
    if made:
        create_index_tables(connection)
        for statement in damage:
            try:
                connection.execute(statement)
            except sqlite3.OperationalError:  # the table went with an earlier step
                continue
    assert index_state(connection) == _state_by_parts(connection)
    found, meta = index_state(connection)
    if made and not damage:
        assert found is not None
        assert meta["format"] == str(found[0])
