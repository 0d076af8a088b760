"""Request fields that check themselves, read themselves from JSON and describe themselves.

A request record (:mod:`tocsearch.requests`) declares each field with one of the makers here.
The field then carries everything the callers need, in one place:

- its default, and a validator that raises :class:`~tocsearch.errors.InvalidArgument` naming
  the field and the value, so a record cannot hold a bad value whoever builds it;
- its JSON-schema fragment (type, bounds, enum, default, description), from which
  :func:`request_schema` makes the tool schema that agents and MCP clients see;
- how a decoded JSON value becomes the field's value, used by :func:`parse_request` to build a
  record from tool-call arguments with errors that say which argument was wrong.

The service, the agent tools, the MCP server and the command line all take their defaults and
limits from here, so they cannot disagree.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

import attrs

from tocsearch._checks import in_utc, whole_number
from tocsearch.converter import _parse_datetime
from tocsearch.errors import InvalidArgument

__all__ = [
    "Argument",
    "choice_field",
    "choices_field",
    "count_field",
    "field_default",
    "flag_field",
    "moment_field",
    "optional_count_field",
    "optional_text_field",
    "parse_request",
    "request_schema",
    "text_field",
    "texts_field",
]

_KEY = "tocsearch.argument"
E = TypeVar("E", bound=enum.Enum)
R = TypeVar("R")


@attrs.frozen
class Argument:
    """How one request field looks in a JSON schema and reads from a decoded JSON value."""

    schema: Mapping[str, Any]
    parse: Callable[[Any], Any]


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- validators ---------------------------------------------------------------------------


def _not_blank(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"{attribute.name} must not be empty")


def _text(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(f"{attribute.name} must be a string, got {value!r}")


def _optional_text(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not isinstance(value, str):
        raise InvalidArgument(f"{attribute.name} must be a string or None, got {value!r}")


def _at_least(
    minimum: int, maximum: int | None = None
) -> Callable[[Any, attrs.Attribute[Any], Any], None]:
    def check(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        whole_number(attribute.name, value, minimum, maximum)

    return check


def _none_or_at_least(minimum: int) -> Callable[[Any, attrs.Attribute[Any], Any], None]:
    def check(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value is not None:
            whole_number(attribute.name, value, minimum)

    return check


def _flag(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, bool):
        raise InvalidArgument(f"{attribute.name} must be true or false, got {value!r}")


def _aware(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None:
        in_utc(value, attribute.name)


# -- converters ---------------------------------------------------------------------------


def _utc(value: Any) -> Any:
    # A value that is no aware datetime is left for the validator, which names the field.
    try:
        return None if value is None else in_utc(value)
    except InvalidArgument:
        return value


def _enum_parser(kind: type[E]) -> Callable[[Any], E]:
    parse: Callable[[str], E] | None = getattr(kind, "parse", None)

    def convert(value: Any) -> E:
        if isinstance(value, kind):
            return value
        if not isinstance(value, str):
            raise InvalidArgument(f"expected one of {_names(kind)}, got {value!r}")
        if parse is not None:
            return parse(value)
        try:
            return kind(value)
        except ValueError:
            raise InvalidArgument(f"expected one of {_names(kind)}, got {value!r}") from None

    return convert


def _names(kind: type[enum.Enum]) -> str:
    return ", ".join(str(member.value) for member in kind)


# -- JSON readers -------------------------------------------------------------------------


def _json_text(value: Any) -> Any:
    if not isinstance(value, str):
        raise InvalidArgument(f"must be a string, got {value!r}")
    return value


def _json_whole(value: Any) -> Any:
    if not _is_whole(value):
        raise InvalidArgument(f"must be an integer, got {value!r}")
    return value


def _json_flag(value: Any) -> Any:
    if not isinstance(value, bool):
        raise InvalidArgument(f"must be a boolean, got {value!r}")
    return value


def _json_texts(value: Any) -> Any:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InvalidArgument(f"must be a list of strings, got {value!r}")
    return tuple(value)


def _json_moment(value: Any) -> Any:
    try:
        return _parse_datetime(value, datetime)
    except InvalidArgument:
        raise InvalidArgument(
            f"must be an ISO 8601 timestamp with its offset such as 2026-03-01T09:00:00Z, "
            f"got {value!r}"
        ) from None


# -- field makers -------------------------------------------------------------------------


def _metadata(schema: dict[str, Any], parse: Callable[[Any], Any]) -> dict[str, Any]:
    return {_KEY: Argument(schema=schema, parse=parse)}


def text_field(description: str, *, default: str | None = None, blank: bool = False) -> Any:
    """A string; required when there is no ``default``; ``blank`` allows empty text."""
    schema: dict[str, Any] = {"type": "string", "description": description}
    if default is not None:
        schema["default"] = default
    validator = _text if blank else _not_blank
    metadata = _metadata(schema, _json_text)
    if default is None:
        return attrs.field(validator=validator, metadata=metadata)
    return attrs.field(default=default, validator=validator, metadata=metadata)


def optional_text_field(description: str) -> Any:
    """A string or None (the default)."""
    schema = {"type": "string", "description": description}
    return attrs.field(
        default=None, validator=_optional_text, metadata=_metadata(schema, _json_text)
    )


def texts_field(description: str) -> Any:
    """A tuple of strings, empty by default (a JSON array)."""
    schema = {"type": "array", "items": {"type": "string"}, "description": description}
    return attrs.field(default=(), converter=tuple, metadata=_metadata(schema, _json_texts))


def count_field(description: str, *, default: int, minimum: int, maximum: int | None = None) -> Any:
    """A whole number of at least ``minimum`` (and, when given, at most ``maximum``)."""
    schema: dict[str, Any] = {"type": "integer", "minimum": minimum}
    if maximum is not None:
        schema["maximum"] = maximum
    schema.update(default=default, description=description)
    return attrs.field(
        default=default,
        validator=_at_least(minimum, maximum),
        metadata=_metadata(schema, _json_whole),
    )


def optional_count_field(description: str, *, minimum: int = 1) -> Any:
    """A whole number of at least ``minimum``, or None (the default) for no limit."""
    schema = {"type": "integer", "minimum": minimum, "description": description}
    return attrs.field(
        default=None, validator=_none_or_at_least(minimum), metadata=_metadata(schema, _json_whole)
    )


def flag_field(description: str, *, default: bool = False) -> Any:
    """True or false."""
    schema = {"type": "boolean", "default": default, "description": description}
    return attrs.field(default=default, validator=_flag, metadata=_metadata(schema, _json_flag))


def moment_field(description: str) -> Any:
    """A timezone-aware datetime kept in UTC, or None (the default); ISO 8601 in JSON."""
    schema = {"type": "string", "format": "date-time", "description": description}
    return attrs.field(
        default=None, converter=_utc, validator=_aware, metadata=_metadata(schema, _json_moment)
    )


def choice_field(kind: type[E], description: str, *, default: E) -> Any:
    """One member of the string enum ``kind``, given by value (case-insensitively where the
    enum has a ``parse`` class method)."""
    schema = {
        "type": "string",
        "enum": [str(member.value) for member in kind],
        "default": str(default.value),
        "description": description,
    }
    convert = _enum_parser(kind)
    return attrs.field(default=default, converter=convert, metadata=_metadata(schema, _json_text))


def choices_field(kind: type[E], description: str) -> Any:
    """A tuple of members of the string enum ``kind``, empty by default."""
    schema = {
        "type": "array",
        "items": {"type": "string", "enum": [str(member.value) for member in kind]},
        "description": description,
    }
    convert = _enum_parser(kind)

    def convert_all(values: Any) -> tuple[E, ...]:
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise InvalidArgument(f"expected a sequence of {kind.__name__}, got {values!r}")
        return tuple(convert(value) for value in values)

    return attrs.field(default=(), converter=convert_all, metadata=_metadata(schema, _json_texts))


# -- records as schemas and from JSON -----------------------------------------------------


def _arguments(cls: type[Any]) -> list[tuple[attrs.Attribute[Any], Argument]]:
    found: list[tuple[attrs.Attribute[Any], Argument]] = []
    for field in attrs.fields(cls):
        argument = field.metadata.get(_KEY)
        if isinstance(argument, Argument):
            found.append((field, argument))
    return found


def field_default(cls: type[Any], name: str) -> Any:
    """The default a request record declares for its field ``name``.

    Raises:
        KeyError: the record has no such field.
    """
    return attrs.fields_dict(cls)[name].default


def request_schema(cls: type[Any]) -> dict[str, Any]:
    """The JSON schema of a request record's arguments: an object of its fields, the ones
    without a default required, nothing else allowed.

    >>> import attrs
    >>> @attrs.frozen
    ... class Hello:
    ...     name: str = text_field("Who to greet.")
    ...     times: int = count_field("How often.", default=1, minimum=1)
    >>> schema = request_schema(Hello)
    >>> schema["required"], schema["properties"]["times"]["minimum"]
    (['name'], 1)
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field, argument in _arguments(cls):
        properties[field.name] = dict(argument.schema)
        if field.default is attrs.NOTHING:
            required.append(field.name)
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def parse_request(cls: type[R], arguments: Mapping[str, Any], *, what: str) -> R:
    """A request record built from decoded JSON arguments, every value checked.

    A JSON ``null`` counts as absent, so the field's default applies.

    Raises:
        InvalidArgument: an unknown or missing argument, or a value of the wrong type or out of
            range; the message names ``what`` and the argument.
    """
    known = _arguments(cls)
    names = [field.name for field, _ in known]
    unknown = sorted(set(arguments) - set(names))
    if unknown:
        raise InvalidArgument(
            f"{what} takes {', '.join(sorted(names))}; unknown argument(s): {', '.join(unknown)}"
        )
    values: dict[str, Any] = {}
    for field, argument in known:
        value = arguments.get(field.name)
        if value is None:
            if field.default is attrs.NOTHING:
                raise InvalidArgument(f"argument {field.name!r} is required")
            continue
        try:
            values[field.name] = argument.parse(value)
        except InvalidArgument as error:
            raise InvalidArgument(f"argument {field.name!r} {error}") from None
    return cls(**values)
