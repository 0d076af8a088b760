"""JSON parsing with a nesting limit: records and whole documents."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tocsearch.errors import ImportFailed
from tocsearch.importers._collect import BadRecord
from tocsearch.importers._json import (
    DEPTH_LIMIT,
    NestedTooDeep,
    TooDeep,
    parse_document,
    parse_record,
)

shallow_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=15,
)


def deep_list(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"text": "unterminated', "Unterminated string starting at line 1, column 10"),
        ("{,}", "Expecting property name enclosed in double quotes at line 1, column 2"),
        ("", "Expecting value at line 1, column 1"),
    ],
)
def test_syntax_errors_read_plainly(text: str, reason: str) -> None:
    """A syntax error names what was expected and where, without doubled words."""
    with pytest.raises(BadRecord) as caught:
        parse_record(text)
    assert caught.value.reason == f"not valid JSON ({reason})"
    assert " at at " not in caught.value.reason


def test_depth_limit_is_exact() -> None:
    """A record may nest DEPTH_LIMIT levels, not one more."""
    assert parse_record(deep_list(DEPTH_LIMIT)) is not None
    with pytest.raises(NestedTooDeep):
        parse_record(deep_list(DEPTH_LIMIT + 1))
    with pytest.raises(NestedTooDeep):
        parse_record(deep_list(100_000))


@given(values=st.lists(shallow_values, max_size=5))
def test_shallow_documents_parse_as_json_does(values: list[Any]) -> None:
    """A document within the limit parses to exactly what json.loads gives."""
    text = json.dumps(values)
    assert parse_document(text, "doc.json") == json.loads(text)


@given(values=st.lists(shallow_values, min_size=1, max_size=4), where=st.integers(0, 4))
def test_one_deep_item_is_replaced_and_the_others_kept(values: list[Any], where: int) -> None:
    """An item too deep for the parser becomes TooDeep; the other items parse as json does."""
    where = min(where, len(values))
    parts = [json.dumps(value) for value in values]
    parts.insert(where, deep_list(50_000))
    parsed = parse_document("[" + ", ".join(parts) + "]", "doc.json")
    assert isinstance(parsed[where], TooDeep)
    assert parsed[:where] + parsed[where + 1 :] == values


def test_a_deep_document_with_bad_syntax_is_refused() -> None:
    """A document too deep to parse whole and broken after the deep item is not JSON."""
    with pytest.raises(ImportFailed, match=r"doc\.json: not valid JSON"):
        parse_document(f"[{deep_list(50_000)} 7]", "doc.json")
    with pytest.raises(ImportFailed, match="not valid JSON"):
        parse_document(f"[{deep_list(50_000)}] trailing", "doc.json")
    with pytest.raises(ImportFailed, match="not valid JSON"):
        parse_document("[" * 50_000, "doc.json")


def test_a_deep_single_object_is_one_too_deep_item() -> None:
    """A document that is one object nested too deep is a single TooDeep."""
    assert isinstance(parse_document('{"a":' * 5_000 + "1" + "}" * 5_000, "doc.json"), TooDeep)
