"""Structuring the records a store reads back, without the converter's generic walk.

A stored event, grip or node is a JSON object of plain values: strings, ``null``, integers,
lists of strings, a string-to-string mapping, a list of bullet objects. For such an object
:func:`plain_hook` checks each field's value by its exact type and calls the class directly,
which costs a fraction of the converter's generated function (one hook call and one
dispatch per field). Anything else (a missing field, a value of another type, a subclass of
``str``, a value the class refuses) is handed to that generated function, so every answer,
and every error, is the converter's own.
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar, cast

import attrs
import cattrs
from cattrs.dispatch import StructureHook

__all__ = ["plain_hook"]

T = TypeVar("T")

# What a field's reader returns when the value is not of the plain form it reads.
_REFUSED: Any = object()
_ABSENT: Any = object()

_Reader = Callable[[Any], Any]


def _plain_str(value: Any) -> Any:
    return value if type(value) is str else _REFUSED


def _optional_str(value: Any) -> Any:
    return value if value is None or type(value) is str else _REFUSED


def _plain_int(value: Any) -> Any:
    return value if type(value) is int else _REFUSED


def _str_tuple(value: Any) -> Any:
    if type(value) is not list:
        return _REFUSED
    for item in value:
        if type(item) is not str:
            return _REFUSED
    return tuple(value)


def _str_mapping(value: Any) -> Any:
    if type(value) is not dict:
        return _REFUSED
    for key, item in value.items():
        if type(key) is not str or type(item) is not str:
            return _REFUSED
    return value


def _timestamp(parse: StructureHook) -> _Reader:
    def read(value: Any) -> Any:
        if type(value) is not str:
            return _REFUSED
        try:
            return parse(value, datetime)
        except Exception:  # what the parser refuses, the converter explains
            return _REFUSED

    return read


def _member_of(cls: type[enum.Enum]) -> _Reader:
    members = cls._value2member_map_

    def read(value: Any) -> Any:
        if type(value) is not str:
            return _REFUSED
        return members.get(value, _REFUSED)

    return read


def _records_of(read_record: Callable[[Any], Any]) -> _Reader:
    def read(value: Any) -> Any:
        if type(value) is not list:
            return _REFUSED
        records = []
        for item in value:
            record = read_record(item)
            if record is _REFUSED:
                return _REFUSED
            records.append(record)
        return tuple(records)

    return read


def _reader(kind: Any, made: cattrs.Converter) -> _Reader | None:
    """How a value of the type ``kind`` is read in its plain form, or None when ``kind`` has
    no plain form here."""
    if kind is str:
        return _plain_str
    if kind is int:
        return _plain_int
    if kind == (str | None):
        return _optional_str
    if kind is datetime:
        return _timestamp(made.get_structure_hook(datetime))
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return _member_of(kind)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        if args[0] is str:
            return _str_tuple
        if attrs.has(args[0]):
            return _records_of(_record_reader(args[0], made))
    if origin is dict and args == (str, str):
        return _str_mapping
    return None


def _record_reader(cls: type[T], made: cattrs.Converter) -> Callable[[Any], Any]:
    """A function that makes ``cls`` of a dict whose fields all hold plain values, and returns
    :data:`_REFUSED` for anything else (or what ``cls`` itself refuses).

    Its code is written for ``cls``, one test per field, as attrs and cattrs write theirs: a
    loop over the fields would cost as much as the generic walk it saves. Fields without a
    default are passed by position, the others by name when present.
    """
    hints = typing.get_type_hints(cls)
    scope: dict[str, Any] = {"cls": cls, "R": _REFUSED, "A": _ABSENT}
    lines = ["def read(data):", "    if type(data) is not dict:", "        return R"]
    lines += ["    get = data.get", "    named = {}"]
    passed: list[str] = []
    for number, field in enumerate(attrs.fields(cast(Any, cls))):
        reader = _reader(hints[field.name], made)
        if reader is None:
            raise TypeError(f"{cls.__name__}.{field.name} has no plain form")
        value = f"v{number}"
        # A missing field reads as A, which every test refuses: the converter explains.
        if reader is _plain_str:
            check = [f"if type({value}) is not str:", "    return R"]
        else:
            scope[f"read_{number}"] = reader
            check = [f"{value} = read_{number}({value})", f"if {value} is R:", "    return R"]
        lines.append(f"    {value} = get({field.name!r}, A)")
        if field.default is attrs.NOTHING:
            lines += [f"    {line}" for line in check]
            if field.kw_only:
                lines.append(f"    named[{field.name!r}] = {value}")
            else:
                passed.append(value)
        else:
            lines.append(f"    if {value} is not A:")
            lines += [f"        {line}" for line in check]
            lines.append(f"        named[{field.name!r}] = {value}")
    lines.append("    try:")
    lines.append(f"        return cls({', '.join([*passed, '**named'])})")
    # What the class refuses, the converter explains.
    lines.append("    except Exception:\n        return R")
    exec(compile("\n".join(lines), f"<plain {cls.__name__} reader>", "exec"), scope)
    read: Callable[[Any], Any] = scope["read"]
    return read


def plain_hook(cls: type[T], made: cattrs.Converter) -> StructureHook:
    """A structure hook for the attrs class ``cls`` that reads a dict of plain values
    directly and hands anything else to the hook ``made`` has for ``cls`` now (its generated
    one), so it returns and raises what that hook does.

    Raises:
        TypeError: a field of ``cls`` is of a type without a plain form here.
    """
    generic = made.get_structure_hook(cls)
    read = _record_reader(cls, made)

    def structure(data: Any, target: Any) -> Any:
        record = read(data)
        return generic(data, target) if record is _REFUSED else record

    return structure
