"""Request records: they check themselves, describe themselves as JSON schema, and read back from
the JSON a model sends."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import requests, utc_datetimes
from tocsearch.converter import to_dict
from tocsearch.errors import InvalidArgument
from tocsearch.requests import (
    BrowseTocRequest,
    ExpandEventRequest,
    ExpandGripRequest,
    ExpandRequest,
    NavigateRequest,
    SearchChildrenRequest,
    SearchNodeRequest,
    SyncRequest,
    parse_request,
    request_schema,
)

REQUESTS: list[type[Any]] = [
    BrowseTocRequest,
    ExpandEventRequest,
    ExpandGripRequest,
    ExpandRequest,
    NavigateRequest,
    SearchChildrenRequest,
    SearchNodeRequest,
    SyncRequest,
]


@pytest.mark.parametrize("cls", REQUESTS, ids=lambda cls: cls.__name__)
def test_schema_requires_exactly_the_fields_without_a_default(cls: type[Any]) -> None:
    """Every field is a described property; those without a default are required."""
    schema = request_schema(cls)
    names = [field.name for field in attrs.fields(cls)]
    assert list(schema["properties"]) == names
    assert schema["required"] == [
        field.name for field in attrs.fields(cls) if field.default is attrs.NOTHING
    ]
    assert schema["additionalProperties"] is False
    for name, prop in schema["properties"].items():
        assert prop["description"], name
        field = attrs.fields_dict(cls)[name]
        if "default" in prop:
            assert prop["default"] == to_dict(field.default)


@given(requests())
def test_a_request_reads_back_from_its_own_json(request: Any) -> None:
    """A request's JSON form, decoded by parse_request, is the same request."""
    arguments = {key: value for key, value in to_dict(request).items() if value is not None}
    assert parse_request(type(request), arguments, what="tool") == request


@given(
    st.sampled_from(REQUESTS),
    st.dictionaries(
        st.sampled_from(
            ["query", "node_id", "target", "limit", "since", "until", "fields", "paths", "x"]
        ),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(-3, 30),
            st.text(max_size=25),
            st.lists(st.text(max_size=8), max_size=3),
            utc_datetimes().map(lambda moment: moment.isoformat()),
        ),
        max_size=5,
    ),
)
def test_any_arguments_give_a_request_or_invalid_argument(
    cls: type[Any], arguments: dict[str, Any]
) -> None:
    """Whatever a model sends, parsing yields a request or a clear InvalidArgument."""
    try:
        made = parse_request(cls, arguments, what="tool")
    except InvalidArgument as error:
        message = str(error)
        assert message
    else:
        assert isinstance(made, cls)


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda: SearchChildrenRequest("jwt", limit=0), "limit must be a whole number"),
        (lambda: SearchChildrenRequest("jwt", limit=True), "limit must be a whole number"),
        (lambda: SearchChildrenRequest("a b"), "no term of three or more"),
        (lambda: SearchNodeRequest("", "jwt"), "node_id must not be empty"),
        (
            lambda: SearchNodeRequest("x", "jwt", token_budget=0),
            "token_budget must be a whole number",
        ),
        (lambda: ExpandGripRequest("g", events_before=-1), "events_before"),
        (lambda: NavigateRequest("   "), "query must not be empty"),
        (lambda: NavigateRequest("jwt", since=datetime(2026, 1, 1)), "timezone-aware"),
        (
            lambda: NavigateRequest(
                "jwt",
                since=datetime(2026, 2, 1, tzinfo=timezone.utc),
                until=datetime(2026, 1, 1, tzinfo=timezone.utc),
            ),
            "must be after since",
        ),
        (
            lambda: SearchChildrenRequest("jwt", child_level="decade"),  # type: ignore[arg-type]
            "level must be one of",
        ),
        (
            lambda: SearchNodeRequest("x", "jwt", fields=("colour",)),  # type: ignore[arg-type]
            "field must be one of",
        ),
        (lambda: SyncRequest(full_rescan=1), "true or false"),  # type: ignore[arg-type]
    ],
)
def test_bad_values_are_refused_when_the_request_is_made(make: Any, fragment: str) -> None:
    """A request never holds a bad value: making one raises InvalidArgument naming the field."""
    with pytest.raises(InvalidArgument, match=fragment):
        make()


def test_parse_request_names_the_argument_at_fault() -> None:
    """Unknown, missing and mistyped arguments say which argument and which tool."""
    with pytest.raises(InvalidArgument, match=r"navigate takes .* unknown argument\(s\): colour"):
        parse_request(NavigateRequest, {"query": "jwt", "colour": 1}, what="navigate")
    with pytest.raises(InvalidArgument, match="argument 'query' is required"):
        parse_request(NavigateRequest, {}, what="navigate")
    with pytest.raises(InvalidArgument, match="argument 'limit' must be an integer"):
        parse_request(NavigateRequest, {"query": "jwt", "limit": "ten"}, what="navigate")
    with pytest.raises(InvalidArgument, match="argument 'since' must be an ISO 8601"):
        parse_request(NavigateRequest, {"query": "jwt", "since": "monday"}, what="navigate")


def test_moments_are_kept_in_utc() -> None:
    """A window given in another offset is the same instant in UTC."""
    plus_two = timezone(timedelta(hours=2))
    request = NavigateRequest("jwt", since=datetime(2026, 3, 1, 2, 0, tzinfo=plus_two))
    assert request.since == datetime(2026, 3, 1, 0, 0, tzinfo=timezone.utc)
    assert request.since is not None
    assert request.since.tzinfo is timezone.utc
