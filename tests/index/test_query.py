"""FTS5 match expressions: every input is searchable text, never FTS5 syntax."""

from __future__ import annotations

import sqlite3

from hypothesis import example, given
from hypothesis import strategies as st
from tests.strategies import any_text

from tocsearch.index import fts_phrases, match_all, match_any
from tocsearch.storage._sqlite_fts import create_fts_tables, upsert_event_texts


def _table() -> sqlite3.Connection:
    connection = sqlite3.connect(":memory:")
    create_fts_tables(connection)
    upsert_event_texts(
        connection,
        [(1, 'deploy: "prod" AND NOT(x) near*'), (2, "the quick brown fox"), (3, "c++ ^ ( )")],
    )
    return connection


def _matches(connection: sqlite3.Connection, expression: str) -> list[int]:
    rows = connection.execute(
        "SELECT rowid FROM events_fts WHERE events_fts MATCH ? ORDER BY rowid", (expression,)
    )
    return [row[0] for row in rows]


def test_operators_and_punctuation_are_searched_as_text() -> None:
    """AND, NOT, parentheses, quotes and colons find the row that holds them as words."""
    connection = _table()
    expression = match_all('deploy: "prod" AND NOT(x)')
    assert expression is not None
    assert _matches(connection, expression) == [1]


def test_empty_and_blank_queries_have_no_expression() -> None:
    """A query with no token gives no expression rather than an invalid one."""
    assert match_all("") is None
    assert match_any(" \t\n ") is None
    assert fts_phrases("") == ()


def test_filler_words_are_dropped_unless_nothing_else_is_left() -> None:
    """A question matches on its topic words; a query of filler alone still searches it."""
    assert match_all("what did we say about foxes") == '"foxes"'
    assert match_all("what about") == '"what" "about"'


def test_any_matches_rows_with_one_token() -> None:
    """The OR expression finds rows holding any one of the words."""
    expression = match_any("quick deploy")
    assert expression is not None
    assert _matches(_table(), expression) == [1, 2]


@given(any_text)
@example("jwt\x00refresh")
@example("\x00")
@example("jwt \ud800")
def test_no_text_raises_an_fts5_syntax_error(text: str) -> None:
    """Any text, hostile or not, NUL and unpaired surrogates included, runs as a query of
    both kinds: SQLite reads a string up to its first NUL and cannot be given a surrogate."""
    connection = _table()
    for expression in (match_all(text), match_any(text), " ".join(fts_phrases(text))):
        if expression:
            _matches(connection, expression)


def test_a_nul_separates_words_in_a_query_as_in_a_text() -> None:
    """A NUL splits words in a query as it does in an indexed text, so it finds what the two
    words find instead of reading as a broken string."""
    connection = _table()
    upsert_event_texts(connection, [(4, "alpha\x00zebracorn quagga")])
    for text in ("zebracorn\x00quagga", "alpha\x00zebracorn"):
        expression = match_all(text)
        assert expression is not None
        assert _matches(connection, expression) == [4]


@given(st.lists(st.text(min_size=1).filter(lambda t: t.split() != []), min_size=1))
def test_each_token_is_one_quoted_string(tokens: list[str]) -> None:
    """Every token (split at white space and NUL) becomes one double-quoted string whose
    inner quotes are doubled."""
    text = " ".join(tokens)
    expected = dict.fromkeys(text.replace("\x00", " ").split())
    phrases = fts_phrases(text)
    assert len(phrases) == len(expected)
    for phrase, token in zip(phrases, expected, strict=True):
        assert phrase == '"' + token.replace('"', '""') + '"'
