"""JSON text read with one rule for nesting: too deep to parse is malformed, not a crash."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tocsearch._json_text import read_json


@given(
    depth=st.integers(min_value=1, max_value=200_000),
    opener=st.sampled_from(["[", '{"a":']),
    as_bytes=st.booleans(),
)
@example(depth=100_000, opener="[", as_bytes=False)
@example(depth=3_000, opener='{"a":', as_bytes=True)
def test_any_nesting_is_a_value_or_a_value_error(depth: int, opener: str, as_bytes: bool) -> None:
    """A value nested to any depth is read as json.loads reads it, or refused with a
    ValueError that says it nests too deep; never a RecursionError."""
    closer = "]" if opener == "[" else "}"
    text = opener * depth + "1" + closer * depth
    try:
        expected = json.loads(text)
    except RecursionError:
        with pytest.raises(ValueError, match="nested too deep"):
            read_json(text.encode() if as_bytes else text)
        return
    got = read_json(text.encode() if as_bytes else text)
    # Comparing two values a thousand levels deep recurses too; the shallow ones are compared.
    assert type(got) is type(expected)
    if depth <= 100:
        assert got == expected


def test_malformed_json_is_still_the_value_error_json_raises() -> None:
    """Other malformed text raises json's own error, with its position."""
    with pytest.raises(json.JSONDecodeError, match="line 1 column 7"):
        read_json('{"a": }')
