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
"""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["long_number", "read_json"]


def long_number() -> str:
    """What a JSON text holds when ``json.loads`` raises a ``ValueError`` that is not a
    ``JSONDecodeError``: the one such error is ``int()`` refusing a number that long."""
    return f"a number of more than {sys.get_int_max_str_digits()} digits"


def read_json(text: str | bytes | bytearray) -> Any:
    """The value of a JSON text, as ``json.loads`` reads it.

    Raises:
        ValueError: the text is not JSON (``json.JSONDecodeError``, with its position), or it
            nests too deep, or holds a number too long, to read.
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deep to read") from None
    except json.JSONDecodeError:
        raise
    except ValueError:
        raise ValueError(f"JSON holds {long_number()}") from None
