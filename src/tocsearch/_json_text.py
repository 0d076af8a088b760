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
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["read_json"]


def read_json(text: str | bytes | bytearray) -> Any:
    """The value of a JSON text, as ``json.loads`` reads it.

    Raises:
        ValueError: the text is not JSON (``json.JSONDecodeError``, with its position), or it
            nests too deep to read.
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deep to read") from None
