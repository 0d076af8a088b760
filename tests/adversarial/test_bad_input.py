"""Hostile and broken input: every case gets a clear answer, loses nothing, and never a traceback.

How to add a case: write the input the way a user (or an attacker) would hand it over, through
the real entry point (``load_events``, the ``tocsearch`` command via ``tests._support.cli.run``,
the agent tools or the service), and assert both halves of the rule:

- strict: the input is refused with a message that names the file, the record and the reason,
  and the store is left exactly as it was (nothing written);
- lenient: the bad record is counted in ``problems`` / ``records skipped`` and every good record
  is imported.

Rules these tests hold the code to (see docs/importers.md):

- unencodable text (an unpaired surrogate such as ``"\\ud800"``) is replaced by U+FFFD wherever
  it enters, in every format and in ``Event`` itself, so no store ever sees it;
- a record nested deeper than ``DEPTH_LIMIT`` (100) levels is a bad record.

Damage to stores on disk has its own module beside this one.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from tests._support.cli import run
from tests._support.storage_helpers import BACKENDS as ALL_BACKENDS
from tests._support.storage_helpers import open_store
from tests.strategies import any_text

from tocsearch._limits import CONTEXT_EVENTS_LIMIT
from tocsearch.errors import ImportFailed, InvalidArgument
from tocsearch.examples import EXAMPLE_END, example_path
from tocsearch.ids import event_id
from tocsearch.importers import DEPTH_LIMIT, event_to_json_line, load_events, load_jsonl
from tocsearch.models import Event
from tocsearch.service import ExpandEventRequest, MemoryService
from tocsearch.storage import open_store as open_any_store
from tocsearch.text import encodable
from tocsearch.tools import AgentTools

START = 1_769_781_900  # 2026-01-30T14:05:00Z
GOOD_LINES = 6_000
BACKENDS = ("jsondir", "shelve")


def good_line(number: int) -> str:
    """One valid generic JSONL event, a minute after the previous one."""
    return json.dumps(
        {
            "timestamp": START + number * 60,
            "session_id": f"deploy-{number // 50}",
            "role": "user" if number % 2 == 0 else "assistant",
            "text": f"step {number} of the staging deployment",
        }
    )


def surrogate_line(*, with_id: bool) -> str:
    """A valid line whose text holds a lone surrogate, written as JSON writes it (escaped)."""
    when = START + GOOD_LINES * 60
    record: dict[str, Any] = {
        "timestamp": when,
        "session_id": "deploy-final",
        "role": "user",
        "text": "rollback plan \ud800 confirmed",
    }
    if with_id:
        record["event_id"] = f"evt:{when * 1000}:rollback"
    return json.dumps(record)


@pytest.fixture(scope="module")
def good_lines() -> list[str]:
    return [good_line(number) for number in range(GOOD_LINES)]


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def nothing_written(store: Path) -> bool:
    """True when a store directory was never created or holds no file at all."""
    return not store.exists() or not any(item.is_file() for item in store.rglob("*"))


# --- unencodable text: one rule, U+FFFD, at every entry -------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("with_id", [True, False], ids=["event_id", "hashed_id"])
def test_strict_ingest_stores_a_lone_surrogate_as_replacement_character(
    tmp_path: Path, good_lines: list[str], backend: str, with_id: bool
) -> None:
    """6,000 good lines and one with a lone surrogate: strict ingest stores all 6,001 events,
    the surrogate as U+FFFD, and search and expand print it in text and JSON."""
    source = write_lines(tmp_path / "partial.jsonl", [*good_lines, surrogate_line(with_id=with_id)])
    store = tmp_path / "store"
    common = ("--store", str(store), "--backend", backend)
    status, out, err = run("ingest", str(source), *common, "--strict", "--json")
    assert status == 0, err
    assert json.loads(out)["events_added"] == GOOD_LINES + 1
    with open_store(backend, store, readonly=True) as storage:
        assert storage.count_events() == GOOD_LINES + 1
        [kept] = [event for event in storage.get_events(None, None) if "rollback" in event.text]
    assert kept.text == "rollback plan \ufffd confirmed"
    if with_id:
        assert kept.event_id == f"evt:{(START + GOOD_LINES * 60) * 1000}:rollback"
    for extra in ((), ("--json",)):
        status, out, err = run("expand", kept.event_id, *common, *extra)
        assert status == 0, err
        assert "rollback plan \ufffd confirmed" in (
            json.loads(out)["event"]["text"] if extra else out
        )
        status, out, err = run("search", "-q", "rollback", "--level", "segment", *common, *extra)
        assert status == 0, err
        out.encode("utf-8")


def test_lenient_and_strict_agree_on_a_lone_surrogate(tmp_path: Path) -> None:
    """Without an event_id the surrogate line loads in both modes, with one deterministic id."""
    source = write_lines(tmp_path / "one.jsonl", [good_line(0), surrogate_line(with_id=False)])
    strict = load_events(source)
    lenient = load_events(source, strict=False)
    assert strict.events == lenient.events
    assert lenient.problems == ()
    assert [event.text for event in strict.events][-1] == "rollback plan \ufffd confirmed"
    assert load_events(source).events == strict.events


def locomo_document(text: str) -> list[dict[str, Any]]:
    return [
        {
            "sample_id": "conv-x",
            "conversation": {
                "speaker_a": "Ana",
                "speaker_b": "Bo",
                "session_1_date_time": "1:56 pm on 8 May, 2023",
                "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": text}],
            },
        }
    ]


def chatgpt_document(text: str) -> list[dict[str, Any]]:
    return [
        {
            "id": "conv-1",
            "title": "Staging",
            "create_time": START,
            "mapping": {
                "m1": {
                    "id": "m1",
                    "parent": None,
                    "children": [],
                    "message": {
                        "id": "m1",
                        "author": {"role": "user"},
                        "create_time": START,
                        "content": {"content_type": "text", "parts": [text]},
                    },
                }
            },
        }
    ]


def claude_code_line(text: str) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": "u1",
        "sessionId": "s1",
        "timestamp": "2026-01-30T14:05:00Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }


def write_format(path: Path, name: str, text: str) -> Path:
    """A minimal valid input of one format whose single message holds ``text``."""
    if name == "jsonl":
        record = {"timestamp": START, "session_id": text, "role": "user", "text": text}
        record["metadata"] = {text: text}
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    elif name == "claude-code":
        path.write_text(json.dumps(claude_code_line(text)) + "\n", encoding="utf-8")
    elif name == "locomo":
        path.write_text(json.dumps(locomo_document(text)), encoding="utf-8")
    else:
        path.write_text(json.dumps(chatgpt_document(text)), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["jsonl", "claude-code", "locomo", "chatgpt"])
def test_every_format_replaces_lone_surrogates(tmp_path: Path, name: str) -> None:
    """Each importer hands out text that encodes as UTF-8, in every text field."""
    source = write_format(tmp_path / f"in.{name}", name, "half \ud83d emoji \udc00")
    [event] = load_events(source, format=name).events
    assert "half \ufffd emoji \ufffd" in event.text
    for field in (event.text, event.session_id, *event.metadata, *event.metadata.values()):
        field.encode("utf-8")


@given(text=any_text)
def test_event_text_round_trips_or_is_replaced_by_the_one_rule(text: str) -> None:
    """Event keeps text UTF-8 can hold and replaces only unpaired surrogates; the JSONL writer
    and reader give the same event back."""
    when = datetime(2026, 1, 30, 14, 5, tzinfo=timezone.utc)
    event = Event(
        event_id=event_id(when, "e1"),
        session_id="s1" + text,
        timestamp=when,
        role="user",
        event_type="user_message",
        text=text,
        metadata={"note": text},
        agent=text or None,
    )
    assert event.text == encodable(text)
    event.text.encode("utf-8")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        assert "\ufffd" in event.text
    else:
        assert event.text == text
    line = event_to_json_line(event)
    assert load_jsonl_line(line) == event


def load_jsonl_line(line: str) -> Event:
    """The one event a JSONL line describes, read through the importer."""
    from tocsearch.importers.jsonl import parse_event_record

    return parse_event_record(json.loads(line))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_events_built_in_python_reach_every_store_encodable(tmp_path: Path, backend: str) -> None:
    """An Event built directly with a lone surrogate is stored and read back by every backend."""
    when = datetime(2026, 1, 30, 14, 5, tzinfo=timezone.utc)
    event = Event(
        event_id=event_id(when, "direct"),
        session_id="s\udfff",
        timestamp=when,
        role="user",
        event_type="user_message",
        text="direct \ud800",
        metadata={"k\ud800": "v\udc00"},
    )
    with open_store(backend, tmp_path / "store") as storage:
        storage.put_events([event])
        assert storage.get_event(event.event_id) == event
        assert storage.get_session_events("s\ufffd") == [event]
    assert event.text == "direct \ufffd"
    assert event.metadata == {"k\ufffd": "v\ufffd"}


# --- strict means nothing is written ---------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_strict_ingest_writes_nothing_when_the_last_record_is_bad(
    tmp_path: Path, good_lines: list[str], backend: str
) -> None:
    """A bad line after 6,000 good ones: strict ingest exits 1 naming it and writes no file;
    lenient ingest stores the 6,000 and counts one skipped record."""
    bad = json.dumps({"session_id": "s", "role": "user", "text": "no time"})
    source = write_lines(tmp_path / "partial.jsonl", [*good_lines, bad])
    store = tmp_path / "store"
    status, _, err = run(
        "ingest", str(source), "--store", str(store), "--backend", backend, "--strict"
    )
    assert status == 1
    assert f"line {GOOD_LINES + 1}: 'timestamp' is missing" in err
    assert "Traceback" not in err
    assert nothing_written(store)
    status, out, err = run(
        "ingest", str(source), "--store", str(store), "--backend", backend, "--json"
    )
    assert status == 0, err
    report = json.loads(out)
    assert (report["events_added"], report["records_skipped"]) == (GOOD_LINES, 1)


# --- deep nesting: a bad record, never a RecursionError --------------------------------------


def nested(depth: int, leaf: str = "1") -> str:
    """JSON text of ``depth`` objects nested inside each other."""
    return '{"a":' * depth + leaf + "}" * depth


def deep_lines() -> Iterator[tuple[str, str]]:
    yield "line", "[" * 100_000 + "]" * 100_000
    yield (
        "metadata",
        '{"timestamp": 1769781900, "session_id": "s", "role": "user", "text": "t", '
        f'"metadata": {nested(5_000)}}}',
    )


@pytest.mark.parametrize(("name", "line"), list(deep_lines()), ids=lambda value: value[:8])
def test_jsonl_line_nested_too_deep_is_one_bad_record(tmp_path: Path, name: str, line: str) -> None:
    """A line nested 100,000 deep (or 5,000 inside metadata) is one problem in lenient mode and
    a clear error in strict mode; the lines around it load."""
    source = write_lines(tmp_path / "deep.jsonl", [good_line(0), line, good_line(1)])
    result = load_events(source, format="jsonl", strict=False)
    assert len(result.events) == 2
    [problem] = result.problems
    assert problem.location == "line 2"
    assert f"nested more than {DEPTH_LIMIT} levels" in problem.reason
    with pytest.raises(ImportFailed, match=f"line 2: nested more than {DEPTH_LIMIT}"):
        load_events(source, format="jsonl")
    status, _, err = run("ingest", str(source), "--store", str(tmp_path / "s"), "--strict")
    assert status == 1
    assert "nested more than" in err
    assert "Traceback" not in err


def test_nesting_limit_is_exact(tmp_path: Path) -> None:
    """Metadata nested to the limit is read (and refused as metadata); one level more is refused
    as too deep."""

    def line(depth: int) -> str:
        body = nested(depth - 1, '"x"')
        return (
            '{"timestamp": 1769781900, "session_id": "s", "role": "user", "text": "t",'
            f' "metadata": {body}}}'
        )

    source = write_lines(tmp_path / "edge.jsonl", [line(DEPTH_LIMIT), line(DEPTH_LIMIT + 1)])
    problems = load_jsonl(source, strict=False).problems
    assert "'metadata' values must be strings" in problems[0].reason
    assert "nested more than" in problems[1].reason


def test_claude_code_line_nested_too_deep_is_one_bad_record(tmp_path: Path) -> None:
    """A transcript line whose tool input nests 5,000 deep is one problem; the rest loads."""
    deep = claude_code_line("ok")
    deep["uuid"] = "u2"
    text = json.dumps(deep).replace('"text": "ok"', f'"text": "ok", "extra": {nested(5_000)}')
    source = tmp_path / "s1.jsonl"
    source.write_text(json.dumps(claude_code_line("hello")) + "\n" + text + "\n", encoding="utf-8")
    result = load_events(source, strict=False)
    assert [event.text for event in result.events] == ["hello"]
    assert [problem.location for problem in result.problems] == ["line 2"]


@pytest.mark.parametrize("name", ["chatgpt", "locomo"])
def test_document_nested_200000_deep_is_a_bad_record(tmp_path: Path, name: str) -> None:
    """A .json document nested 200,000 deep: one problem in lenient mode, a clear error in
    strict mode, a clear 'cannot tell the format' from detection."""
    source = tmp_path / "deep.json"
    source.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    result = load_events(source, format=name, strict=False)
    assert result.events == ()
    assert [problem.reason for problem in result.problems] == [
        f"nested more than {DEPTH_LIMIT} levels of objects and lists deep"
    ]
    with pytest.raises(ImportFailed, match="nested more than"):
        load_events(source, format=name)
    status, _, err = run("ingest", str(source), "--store", str(tmp_path / "s"))
    assert status == 1
    assert "nested more than" in err
    assert "--format" in err
    assert "format=" not in err


def test_one_deep_conversation_does_not_sink_an_export(tmp_path: Path) -> None:
    """A ChatGPT export with a conversation nested too deep between two good ones: lenient
    imports the two and names the third."""
    first, second = chatgpt_document("first"), chatgpt_document("second")
    second[0]["id"] = "conv-2"
    second[0]["mapping"]["m1"]["id"] = second[0]["mapping"]["m1"]["message"]["id"] = "m2"
    text = f"[{json.dumps(first[0])}, {nested(200_000)}, {json.dumps(second[0])}]"
    source = tmp_path / "conversations.json"
    source.write_text(text, encoding="utf-8")
    result = load_events(source, strict=False)
    assert [event.text for event in result.events] == ["first", "second"]
    assert [problem.location for problem in result.problems] == ["conversation 2"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | any_text,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(any_text, children, max_size=4)
    ),
    max_leaves=20,
)


@given(
    lines=st.lists(
        st.one_of(
            # Raw text lines: no line breaks, and no NUL, which marks a whole file as binary.
            any_text.filter(lambda text: not {"\n", "\r", "\x00"} & set(text)),
            json_values.map(json.dumps),
            st.integers(1, 3000).map(lambda depth: "[" * depth + "]" * depth),
            st.integers(0, GOOD_LINES).map(good_line),
        ),
        max_size=8,
    )
)
def test_lenient_import_never_raises_on_arbitrary_lines(lines: list[str]) -> None:
    """Whatever the lines hold, a lenient JSONL import returns: each non-blank line is an event
    or a problem, and every event can be written as UTF-8."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "any.jsonl"
        source.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
        result = load_jsonl(source, strict=False)
    counted = sum(1 for line in lines if line.strip())
    assert result.records_read >= counted
    assert len(result.problems) <= result.records_read
    assert len(result.events) + len(result.problems) <= result.records_read
    for event in result.events:
        event_to_json_line(event).encode("utf-8")


# The keys the four formats read, so that arbitrary values land where each importer looks.
_FORMAT_KEYS = st.sampled_from(
    [
        *("title", "mapping", "message", "author", "role", "content", "content_type", "parts"),
        *("create_time", "current_node", "parent", "children", "id", "sample_id"),
        *("conversation", "speaker_a", "session_1", "session_1_date_time", "speaker", "dia_id"),
        *("text", "blip_caption", "type", "uuid", "sessionId", "timestamp", "tool_use_id"),
        *("name", "input", "session_id", "event_type", "metadata", "agent", "event_id"),
    ]
)
_FORMAT_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(),
    st.text(max_size=6),
    st.sampled_from(["user", "assistant", "text", "tool_use", "tool_result", "a", "session_1"]),
    st.sampled_from(["2026-01-30T10:00:00Z", "1:56 pm on 8 May, 2023"]),
)
format_records = st.recursive(
    _FORMAT_VALUES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_FORMAT_KEYS, inner, max_size=6),
    max_leaves=25,
)
_CHATGPT_MESSAGE = {"id": "a", "author": {"role": "user"}, "create_time": 1769763600}


@given(record=format_records, name=st.sampled_from(["jsonl", "claude-code", "chatgpt", "locomo"]))
@example(record={"type": []}, name="claude-code")
@example(
    record={
        "type": "user",
        "uuid": "u",
        "timestamp": "2026-01-30T10:00:00Z",
        "message": {"content": [{"type": {}}]},
    },
    name="claude-code",
)
@example(
    record=[{"mapping": {"a": {"message": dict(_CHATGPT_MESSAGE, content={"content_type": []})}}}],
    name="chatgpt",
)
@example(
    record=[{"mapping": {"a": {"message": dict(_CHATGPT_MESSAGE, author={"role": []})}}}],
    name="chatgpt",
)
def test_any_record_in_any_format_is_read_or_reported(record: Any, name: str) -> None:
    """A record of any shape, with lists, objects, huge or odd numbers where each format
    expects a string or a number, is an event or a problem in a lenient import and an
    ImportFailed in a strict one; never another exception."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / ("x.jsonl" if name in ("jsonl", "claude-code") else "x.json")
        source.write_text(json.dumps(record) + "\n", encoding="utf-8")
        with contextlib.suppress(ImportFailed):
            load_events(source, format=name, strict=True)
        events: tuple[Event, ...] = ()
        # A lenient import may still refuse a file that is no document of its format at all.
        with contextlib.suppress(ImportFailed):
            events = load_events(source, format=name, strict=False).events
    for event in events:
        event_to_json_line(event).encode("utf-8")


# --- requests that ask for unbounded work or give a budget of nothing ------------------------


@pytest.fixture(scope="module")
def example_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store (of the default backend) holding the bundled example history."""
    path = tmp_path_factory.mktemp("example")
    status, _, err = run("ingest", str(example_path()), "--store", str(path))
    assert status == 0, err
    return path


def test_expand_context_is_capped_everywhere(example_store: Path) -> None:
    """events_before/events_after above the cap are refused with the same rule by the service,
    the agent tools and the command line; the cap itself is served in full."""
    with open_any_store(example_store, readonly=True) as storage:
        service = MemoryService(storage)
        middle = storage.get_events()[240]
        around = service.expand_event(
            ExpandEventRequest(middle.event_id, CONTEXT_EVENTS_LIMIT, CONTEXT_EVENTS_LIMIT)
        )
        assert len(around.events_before) + len(around.events_after) > 0
        message = f"events_after must be at most {CONTEXT_EVENTS_LIMIT}, got {10**9}"
        with pytest.raises(InvalidArgument, match=message):
            service.expand_event(ExpandEventRequest(middle.event_id, 3, 10**9))
        tools = AgentTools(storage, now=EXAMPLE_END)
        for name, target in (("expand_event", "event_id"), ("expand_grip", "grip_id")):
            answer = json.loads(tools.handle_tool_call(name, {target: "x", "events_before": 10**9}))
            assert answer["error"]["type"] == "InvalidArgument"
            assert f"at most {CONTEXT_EVENTS_LIMIT}" in answer["error"]["message"]
        schema = {spec["name"]: spec for spec in AgentTools.definitions()}
        limits = schema["expand_grip"]["parameters"]["properties"]["events_after"]
        assert limits["maximum"] == CONTEXT_EVENTS_LIMIT
    store = ("--store", str(example_store))
    status, _, err = run("expand", middle.event_id, "--before", str(10**9), *store)
    assert status == 2
    assert f"argument --before: expected at most {CONTEXT_EVENTS_LIMIT}, got {10**9}" in err
    status, out, err = run("expand", middle.event_id, "--after", "100", "--json", *store)
    assert status == 0, err
    assert len(json.loads(out)["events_after"]) <= CONTEXT_EVENTS_LIMIT


def test_a_token_budget_of_zero_is_refused_by_every_tool(example_store: Path) -> None:
    """navigate refuses token_budget 0 with the message search_node gives, instead of using
    the default."""
    with open_any_store(example_store, readonly=True) as storage:
        tools = AgentTools(storage, now=EXAMPLE_END)
        answers = [
            json.loads(tools.handle_tool_call(name, {**arguments, "token_budget": 0}))
            for name, arguments in (
                ("navigate", {"query": "jwt refresh"}),
                ("search_node", {"node_id": "toc:year:2026", "query": "jwt refresh"}),
                ("search_children", {"query": "jwt refresh"}),
            )
        ]
    for answer in answers:
        assert answer["error"] == {
            "type": "InvalidArgument",
            "message": "token_budget must be a whole number of at least 1, got 0",
        }


# --- content from newer clients ----------------------------------------------------------------


def test_strict_ingest_keeps_unknown_blocks_and_says_so(tmp_path: Path) -> None:
    """A transcript holding a block type the importer does not know ingests in strict mode;
    the text is kept, and the command counts the unknown types on stderr and in its report."""
    line = claude_code_line("deploy the staging cluster")
    line["message"]["content"].append({"type": "canvas", "text": "rollout checklist canvas"})
    line["message"]["content"].append({"type": "canvas"})
    source = tmp_path / "s1.jsonl"
    source.write_text(json.dumps(line) + "\n", encoding="utf-8")
    store = tmp_path / "store"
    status, out, err = run("ingest", str(source), "--store", str(store), "--strict", "--json")
    assert status == 0, err
    assert json.loads(out)["unknown_content"] == 2
    assert "unknown types, text kept where it had any: canvas (2)" in err
    with open_any_store(store, readonly=True) as storage:
        texts = sorted(event.text for event in storage.get_events())
    assert texts == ["deploy the staging cluster", "rollout checklist canvas"]
