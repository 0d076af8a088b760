"""JSON text read with one rule for nesting: a value nested deeper than the parser can follow
is malformed JSON, a ``ValueError`` like any other, never a ``RecursionError``.

``json.loads`` recurses once per level, so a few thousand brackets in a damaged store file, a
forged continuation token or a model's tool arguments would otherwise escape every
``except ValueError`` that reads them.

>>> read_json('{"a": [1, 2]}')
{'a': [1, 2]}
>>> read_json("[" * 100_000)
Traceback (most recent call last):
  ...
ValueError: JSON nested too deep to read

A number longer than Python reads into an ``int`` (4,300 digits by default) is said to be one,
without the interpreter's advice to raise the limit, which a reader of the message cannot take:

>>> read_json("1" * 5000)
Traceback (most recent call last):
  ...
ValueError: JSON holds a number of more than 4300 digits

Where a value arrives from someone who might give a key twice (a model's tool arguments),
``unique_keys=True`` refuses it instead of keeping the last value as ``json.loads`` does:

>>> read_json('{"query": "a", "query": "b"}', unique_keys=True)
Traceback (most recent call last):
  ...
tocsearch._json_text.RepeatedKey: JSON gives the key 'query' more than once in one object
"""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["RepeatedKey", "long_number", "read_json"]


def long_number() -> str:
    """What a JSON text holds when ``json.loads`` raises a ``ValueError`` that is not a
    ``JSONDecodeError``: the one such error is ``int()`` refusing a number that long."""
    return f"a number of more than {sys.get_int_max_str_digits()} digits"


class RepeatedKey(ValueError):
    """A JSON object gives one key twice; ``key`` is that key."""

    def __init__(self, key: str) -> None:
        super().__init__(f"JSON gives the key {key!r} more than once in one object")
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKey(key)
            seen.add(key)
    return value


def read_json(text: str | bytes | bytearray, *, unique_keys: bool = False) -> Any:
    """The value of a JSON text, as ``json.loads`` reads it.

    Args:
        text: the JSON text.
        unique_keys: refuse an object that gives a key twice, rather than keep its last value.

    Raises:
        RepeatedKey: ``unique_keys`` is set and an object, at any depth, repeats a key.
        ValueError: the text is not JSON (``json.JSONDecodeError``, with its position), or it
            nests too deep, or holds a number too long, to read.
    """
    try:
        if unique_keys:
            return json.loads(text, object_pairs_hook=_unique_pairs)
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deep to read") from None
    except (json.JSONDecodeError, RepeatedKey):
        raise
    except ValueError:
        raise ValueError(f"JSON holds {long_number()}") from None
