"""JSON text read with one rule for nesting: too deep to parse is malformed, not a crash."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tocsearch._json_text import RepeatedKey, read_json


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


_KEYS = st.text(max_size=6)
_VALUES = st.recursive(
    st.none() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=8,
)


@given(value=_VALUES)
def test_unique_keys_reads_every_json_without_repeats_as_json_does(value: Any) -> None:
    """A text with no repeated key reads the same with or without unique_keys."""
    text = json.dumps(value)
    assert read_json(text, unique_keys=True) == json.loads(text)


@given(inner=st.dictionaries(_KEYS, _VALUES, min_size=1, max_size=3), data=st.data())
def test_unique_keys_refuses_a_repeat_at_any_depth_naming_the_key(
    inner: dict[str, Any], data: st.DataObject
) -> None:
    """An object that repeats a key, however deep it sits, is refused with RepeatedKey naming
    that key, a ValueError like every other refusal of read_json."""
    key = data.draw(st.sampled_from(sorted(inner)), label="key")
    depth = data.draw(st.integers(0, 4), label="depth")
    text = json.dumps(inner)[:-1] + f", {json.dumps(key)}: 0}}"
    for _ in range(depth):
        text = f'{{"outer": [{text}]}}'
    with pytest.raises(RepeatedKey) as raised:
        read_json(text, unique_keys=True)
    assert raised.value.key == key
    assert isinstance(raised.value, ValueError)
