"""An event a navigate answer cites by a short reference expands from that reference and its
segment's ``ids`` pattern, through the service, the agent tools and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests._support.cli import example_store, run
from tocsearch import (
    AgentTools,
    ExpandRequest,
    InMemoryStorage,
    InvalidArgument,
    MemoryService,
    TocBuilder,
)
from tocsearch.examples import load_example_events
from tocsearch.navigate._event_refs import id_pattern, short_ref
from tocsearch.service import ExpandEventResponse
from tocsearch.tools import tools_named

_EVENTS = load_example_events()
_STORAGE = InMemoryStorage()
TocBuilder(_STORAGE).ingest(_EVENTS)
_SERVICE = MemoryService(_STORAGE)
_IDS = sorted(event.event_id for event in _EVENTS)


def _cited(first: str, event_id: str) -> tuple[str, str] | None:
    """The pattern ``first`` writes and the reference citing ``event_id`` under it, if any."""
    pattern = id_pattern(first)
    ref = None if pattern is None else short_ref(pattern, event_id)
    return None if pattern is None or ref is None else (pattern, ref)


@given(st.sampled_from(_IDS), st.sampled_from(_IDS), st.booleans())
def test_a_reference_expands_to_its_event(first: str, event_id: str, bracketed: bool) -> None:
    """Expanding a reference with its pattern shows the same event and context as expanding the
    full id; the brackets an answer writes around the reference may stay."""
    cited = _cited(first, event_id)
    if cited is None:
        return
    pattern, ref = cited
    target = f"[{ref}]" if bracketed else ref
    by_ref = _SERVICE.expand(ExpandRequest(target, 2, 2, pattern))
    by_id = _SERVICE.expand(ExpandRequest(event_id, 2, 2))
    assert isinstance(by_ref, ExpandEventResponse)
    assert by_ref == by_id
    assert by_ref.event.event_id == event_id


def test_every_event_a_segment_cites_has_a_reference() -> None:
    """The events of one segment share their pattern, so the examples above are exercised:
    the same first event gives references for several others."""
    first = _IDS[0]
    assert sum(_cited(first, event_id) is not None for event_id in _IDS) > 1


@pytest.mark.parametrize(
    ("target", "ids"),
    [
        ("12:x", "evt:17746*000:*"),  # too few digits for the pattern's hole
        ("24800:x", "not a pattern"),
        ("24800", "evt:17746*000:*"),  # no ':' between the holes' parts
    ],
)
def test_a_reference_that_does_not_fill_its_pattern_is_refused(target: str, ids: str) -> None:
    with pytest.raises(InvalidArgument):
        _SERVICE.expand(ExpandRequest(target, ids=ids))


def test_the_tools_take_a_reference() -> None:
    """The agent tools' ``expand_event`` and the MCP server's ``expand`` take ``ids``; a bad
    pattern is an error result, not a raise."""
    pattern, ref = _first_reference()
    (expand,) = tools_named("expand")
    answer = expand.call(_SERVICE, {"target": ref, "ids": pattern})
    assert answer["event"]["event_id"] == _full_id(pattern, ref)
    tools = AgentTools(_STORAGE)
    answer = json.loads(tools.handle_tool_call("expand_event", {"event_id": ref, "ids": pattern}))
    assert answer["event"]["event_id"] == _full_id(pattern, ref)
    refused = json.loads(tools.handle_tool_call("expand_event", {"event_id": ref, "ids": "evt:"}))
    assert "error" in refused


def test_the_command_line_expands_a_reference(tmp_path: Path) -> None:
    store = example_store(tmp_path / "store")
    pattern, ref = _first_reference()
    status, out, err = run("expand", f"[{ref}]", "--ids", pattern, "--store", str(store), "--json")
    assert status == 0, err
    assert json.loads(out)["event"]["event_id"] == _full_id(pattern, ref)
    status, out, err = run("expand", ref, "--ids", "evt:x", "--store", str(store))
    assert (status, out, err.count("\n")) == (1, "", 1)
    assert "is not an event id pattern" in err
    assert "Traceback" not in err


def _first_reference() -> tuple[str, str]:
    """A pattern and a reference under it of two events of the example."""
    for event_id in _IDS[1:]:
        cited = _cited(_IDS[0], event_id)
        if cited is not None:
            return cited
    raise AssertionError("no two example events share a pattern")


def _full_id(pattern: str, ref: str) -> str:
    return next(event_id for event_id in _IDS if _cited(_IDS[0], event_id) == (pattern, ref))
