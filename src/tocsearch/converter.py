"""The one cattrs converter: records to JSON-ready dicts and back.

Datetimes travel as ISO 8601 strings in UTC (``2026-01-30T14:05:00.123000+00:00``); enums as
their values; tuples as lists. Structuring runs the records' own validators, so a malformed
document is refused with :class:`~tocsearch.errors.InvalidArgument` instead of being half-read.
Reading is strict about types: a string field must hold a string and a list field a list, so
``null`` never becomes ``"None"`` and ``"jwt"`` never becomes ``["j", "w", "t"]``.
"""

from __future__ import annotations

import enum
import json
from datetime import datetime
from typing import Any, TypeVar, get_args, get_origin

import cattrs
from cattrs.cols import homogenous_tuple_structure_factory
from cattrs.dispatch import StructureHook
from cattrs.v import format_exception

from tocsearch._json_text import read_json
from tocsearch._plain_records import plain_hook
from tocsearch.errors import InvalidArgument
from tocsearch.models import Event, Grip, TocNode

__all__ = ["converter", "from_dict", "from_json", "to_dict", "to_json"]

T = TypeVar("T")


def _parse_datetime(value: Any, _: type) -> datetime:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise InvalidArgument(f"expected an ISO 8601 timestamp string, got {value!r}")
    try:
        # fromisoformat in Python 3.10 does not read a trailing "Z".
        parsed = datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)
    except ValueError:
        raise InvalidArgument(f"not an ISO 8601 timestamp: {value!r}") from None
    if parsed.tzinfo is None:
        raise InvalidArgument(f"timestamp must carry a UTC offset, got {value!r}")
    return parsed


def _plain_str(value: str) -> str:
    return value.value if isinstance(value, enum.Enum) else value


def _structure_str(value: Any, cls: type) -> Any:
    # cattrs would call str() on anything; our str-valued enums also dispatch here.
    if not isinstance(value, str):
        raise InvalidArgument(f"expected a string, got {value!r}")
    return value if cls is str else cls(value)


def _structure_int(value: Any, _: type) -> int:
    # int() would truncate 2.7 and accept "2" or True; a document holds a true integer.
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"expected an integer, got {value!r}")
    return value


def _structure_bool(value: Any, _: type) -> bool:
    # Without its own hook bool would dispatch to the int hook above (bool subclasses int).
    if not isinstance(value, bool):
        raise InvalidArgument(f"expected true or false, got {value!r}")
    return value


def _is_homogeneous_tuple(cls: Any) -> bool:
    args = get_args(cls)
    return get_origin(cls) is tuple and len(args) == 2 and args[1] is Ellipsis


def _tuple_hook(cls: Any, made: cattrs.Converter) -> StructureHook:
    structure_items = homogenous_tuple_structure_factory(cls, made)
    of_strings = get_args(cls)[0] is str

    def structure(value: Any, target: Any) -> Any:
        # A string is iterable, but a list field given one string is a mistake, not letters.
        if not isinstance(value, (list, tuple)):
            raise InvalidArgument(f"expected a list, got {value!r}")
        # Ids and keywords: a list of plain strings is already what the item hook would
        # return item by item, at a fraction of the cost (segments list hundreds of ids).
        if of_strings and all(type(item) is str for item in value):
            return tuple(value)
        return structure_items(value, target)

    return structure


def _make_converter(*, plain: bool = True) -> cattrs.Converter:
    """The converter with tocsearch's hooks; with ``plain``, also the hooks that read stored
    records of plain values directly (a test compares them with the generated ones)."""
    made = cattrs.Converter(forbid_extra_keys=False)
    made.register_structure_hook(str, _structure_str)
    made.register_structure_hook(int, _structure_int)
    made.register_structure_hook(bool, _structure_bool)
    made.register_structure_hook_factory(_is_homogeneous_tuple, _tuple_hook)
    made.register_unstructure_hook(datetime, lambda value: value.isoformat())
    # Our enums subclass str, so cattrs dispatches them to its str passthrough and would hand
    # out enum members; plain values keep to_dict() output made of builtin types only, as
    # serialisers other than json (yaml.safe_dump, msgpack) expect.
    made.register_unstructure_hook(str, _plain_str)
    made.register_structure_hook(datetime, _parse_datetime)
    # The records a store reads back, each time it answers: read directly when they hold
    # plain values, by the hooks above otherwise (see tocsearch._plain_records).
    if plain:
        for record in (Event, Grip, TocNode):
            made.register_structure_hook(record, plain_hook(record, made))
    return made


converter = _make_converter()


def to_dict(record: Any) -> Any:
    """A JSON-ready form of a record (dicts, lists, strings, numbers)."""
    return converter.unstructure(record)


def from_dict(data: Any, cls: type[T]) -> T:
    """A record of type ``cls`` from :func:`to_dict` output.

    Raises:
        InvalidArgument: the data does not describe a valid ``cls``.
    """
    try:
        return converter.structure(data, cls)
    except InvalidArgument:
        raise
    except (cattrs.BaseValidationError, ValueError, TypeError, KeyError) as error:
        raise InvalidArgument(f"not a valid {cls.__name__}: {_describe(error)}") from error


def to_json(record: Any) -> str:
    """A record as a compact JSON string."""
    return json.dumps(to_dict(record), ensure_ascii=False, separators=(",", ":"))


def from_json(text: str | bytes, cls: type[T]) -> T:
    """A record of type ``cls`` from :func:`to_json` output.

    Raises:
        InvalidArgument: the text is not JSON or does not describe a valid ``cls``.
    """
    try:
        data = read_json(text)
    except ValueError as error:
        raise InvalidArgument(f"not valid JSON for {cls.__name__}: {error}") from None
    return from_dict(data, cls)


def _describe(error: BaseException) -> str:
    if isinstance(error, cattrs.BaseValidationError):
        # transform_error names the path of each failure: "required field missing @ $.title".
        return "; ".join(cattrs.transform_error(error, format_exception=_format)) or str(error)
    return str(error) or type(error).__name__


def _format(error: BaseException, cls: type | None) -> str:
    # Our own errors already say what was wrong and with which value; keep their words.
    if isinstance(error, InvalidArgument):
        return str(error)
    if isinstance(error, ValueError) and str(error):
        # cattrs' wording drops the value ("expected TocLevel"); the builtin's message names it.
        return f"{format_exception(error, cls)} ({error})"
    return format_exception(error, cls)
