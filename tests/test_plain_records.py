"""Records read back by the plain-value hooks: the converter's answer and errors, faster."""

from __future__ import annotations

import copy
from datetime import datetime, timezone
from typing import Any

import attrs
import cattrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import any_text, events, grips, toc_nodes
from tocsearch._plain_records import plain_hook
from tocsearch.converter import _make_converter, converter, from_dict, to_dict
from tocsearch.errors import InvalidArgument
from tocsearch.models import Event, EventRole, EventType, Grip, TocNode

# The converter as it is without the plain hooks: its generated functions alone.
_GENERIC = _make_converter(plain=False)

_RECORDS = st.one_of(
    events().map(lambda record: (Event, to_dict(record))),
    grips().map(lambda record: (Grip, to_dict(record))),
    toc_nodes().map(lambda record: (TocNode, to_dict(record))),
)
_ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False),
    any_text,
    st.lists(st.one_of(any_text, st.integers(0, 2)), max_size=3),
    st.dictionaries(any_text, st.one_of(any_text, st.none()), max_size=2),
)


@st.composite
def _damaged(draw: st.DrawFn) -> tuple[type[Any], Any]:
    """A stored record's data as it is, or with a field dropped, replaced by an odd value,
    or added; or not a dict at all."""
    cls, data = draw(_RECORDS)
    data = copy.deepcopy(data)
    keys = sorted(data)
    change = draw(st.sampled_from(["none", "drop", "replace", "add", "nested", "junk"]))
    if change == "drop":
        del data[draw(st.sampled_from(keys))]
    elif change == "replace":
        data[draw(st.sampled_from(keys))] = draw(_ODD_VALUES)
    elif change == "add":
        data[draw(any_text)] = draw(_ODD_VALUES)
    elif change == "nested" and data.get("bullets"):
        bullet = data["bullets"][0]
        bullet[draw(st.sampled_from(sorted(bullet)))] = draw(_ODD_VALUES)
    elif change == "junk":
        data = draw(_ODD_VALUES)
    return cls, data


def _outcome(made: cattrs.Converter, cls: type[Any], data: Any) -> tuple[str, Any]:
    """What ``made`` makes of ``data``: the record, or the error (with what each part of a
    validation error says)."""
    try:
        return "made", made.structure(copy.deepcopy(data), cls)
    except cattrs.BaseValidationError as error:
        return type(error).__name__, cattrs.transform_error(error)
    except Exception as error:  # the error itself is compared
        return type(error).__name__, str(error)


@given(case=_damaged())
def test_the_plain_hooks_answer_as_the_converter_does(case: tuple[type[Any], Any]) -> None:
    """Whatever a stored record holds, reading it with the plain hooks gives the record the
    converter's generated function gives, or the same error with the same message."""
    cls, data = case
    assert _outcome(converter, cls, data) == _outcome(_GENERIC, cls, data)


@given(record=events() | grips() | toc_nodes())
def test_a_record_round_trips_through_the_plain_hooks(record: Event | Grip | TocNode) -> None:
    """A record's own data is read back by the plain path to an equal record."""
    hook = converter.get_structure_hook(type(record))
    assert hook(to_dict(record), type(record)) == record


def test_a_field_of_another_type_has_no_plain_form() -> None:
    """A class with a field the plain hooks cannot read is refused when the hook is made."""

    @attrs.frozen
    class Odd:
        ratio: float

    with pytest.raises(TypeError, match=r"Odd\.ratio has no plain form"):
        plain_hook(Odd, _GENERIC)


def test_a_wrong_value_is_explained_by_the_converter() -> None:
    """A stored event with a role no member has is refused as the converter refuses it: the
    error names the field and the value."""
    data = to_dict(
        Event(
            event_id="evt:1769763600000:a",
            session_id="s",
            timestamp=datetime(2026, 1, 30, 9, tzinfo=timezone.utc),
            role=EventRole.USER,
            event_type=EventType.USER_MESSAGE,
            text="hi",
        )
    )
    data["role"] = "robot"
    assert _outcome(converter, Event, data) == _outcome(_GENERIC, Event, data)
    with pytest.raises(InvalidArgument, match=r"robot.*\$\.role"):
        from_dict(data, Event)
