"""The MCP server's wire: a message that gives a key twice in one object is refused with a
JSON-RPC error naming the key, on stdio and on HTTP; every other message passes as it was."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests._support.cli import example_store
from tocsearch._mcp_wire import INVALID_REQUEST, refusal, refusing_app, repeated_key
from tocsearch.examples import EXAMPLE_END

_keys = st.text(min_size=1, max_size=8)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=3),
    max_leaves=8,
)
_SERVE = [sys.executable, "-m", "tocsearch", "mcp"]
_ids = st.none() | st.integers(-(2**40), 2**40) | st.text(max_size=8)


def _object(pairs: list[tuple[str, Any]]) -> str:
    """The JSON text of an object of ``pairs`` in order, a key given twice included."""
    return "{" + ", ".join(f"{json.dumps(key)}: {json.dumps(value)}" for key, value in pairs) + "}"


@given(value=_json_values)
def test_json_with_each_key_once_passes(value: Any) -> None:
    """No JSON that gives each key once in every object is taken for one that repeats a key."""
    assert repeated_key(json.dumps(value)) is None


@given(
    ident=_ids,
    key=_keys.filter(lambda key: key != "id"),
    first=_json_values,
    second=_json_values,
    depth=st.integers(0, 3),
)
def test_a_key_given_twice_is_named_under_the_messages_id(
    ident: str | int | None, key: str, first: Any, second: Any, depth: int
) -> None:
    """A key given twice at any depth is found and named, and the refusal answers under the
    message's id."""
    inner = _object([(key, first), (key, second)])
    for _ in range(depth):
        inner = '{"params": ' + inner + "}"
    text = '{"jsonrpc": "2.0", "id": ' + json.dumps(ident) + ', "method": "x", "p": ' + inner + "}"
    assert repeated_key(text) == key
    answer = refusal(text, key)
    assert answer["id"] == ident
    assert answer["error"]["code"] == INVALID_REQUEST
    assert repr(key) in answer["error"]["message"]


@given(first=_ids, second=_ids)
def test_an_id_given_twice_answers_under_none(first: Any, second: Any) -> None:
    """A message that gives its id twice is answered under no id: which it meant is unknown."""
    text = _object([("jsonrpc", "2.0"), ("id", first), ("id", second)])
    assert repeated_key(text) == "id"
    assert refusal(text, "id")["id"] is None


def test_text_that_is_not_json_is_left_to_the_sdk() -> None:
    """Broken JSON is not refused here: the SDK answers it with its parse error."""
    assert repeated_key('{"query": "a", "query": ') is None
    assert repeated_key("[" * 100_000) is None


def _exchange(
    store: Path, lines: list[dict[str, Any] | str], expected: int
) -> list[dict[str, Any]]:
    """The ``expected`` answers ``tocsearch mcp`` over stdio gives to ``lines`` (a dict is sent
    as JSON, a string as it is), after the handshake."""
    handshake: list[dict[str, Any] | str] = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "wire-test", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    sent = "".join(
        (line if isinstance(line, str) else json.dumps(line)) + "\n"
        for line in [*handshake, *lines]
    )
    server = subprocess.Popen(
        [*_SERVE, "--store", os.fspath(store), "--now", EXAMPLE_END.isoformat()],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert server.stdin is not None
    assert server.stdout is not None
    answers: list[dict[str, Any]] = []
    try:
        server.stdin.write(sent)
        server.stdin.flush()
        # The input stays open until every request is answered: at its end the server stops.
        while len(answers) < expected + 1:
            line = server.stdout.readline()
            if not line:
                break
            answers.append(json.loads(line))
    finally:
        server.stdin.close()
        server.wait(timeout=60)
    return [answer for answer in answers if answer.get("id") != 0]


def test_stdio_refuses_a_call_that_gives_an_argument_twice(tmp_path: Path) -> None:
    """Over stdio a tool call giving ``query`` twice gets a JSON-RPC error under its id, and
    the server goes on to answer the next call."""
    pytest.importorskip("mcp")
    store = example_store(tmp_path)
    twice = (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "navigate", '
        '"arguments": {"query": "jwt refresh", "query": "deploy"}}}'
    )
    once = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "browse", "arguments": {}},
    }
    answers = {answer["id"]: answer for answer in _exchange(store, [twice, once], 2)}
    assert set(answers) == {1, 2}
    assert answers[1]["error"]["code"] == INVALID_REQUEST
    assert "'query' more than once" in answers[1]["error"]["message"]
    assert "result" not in answers[1]
    assert not answers[2]["result"].get("isError")


def _post(body: list[bytes]) -> tuple[list[MutableMapping[str, Any]], list[bytes]]:
    """What ``refusing_app`` sends back for a POST of ``body`` in those parts, and the body
    the app behind it read (empty when it was not called)."""
    import anyio

    read: list[bytes] = []
    sent: list[MutableMapping[str, Any]] = []

    async def behind(scope: Any, receive: Any, send: Any) -> None:
        while True:
            part = await receive()
            read.append(part["body"])
            if not part.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    parts = [
        {"type": "http.request", "body": chunk, "more_body": index < len(body) - 1}
        for index, chunk in enumerate(body)
    ]

    async def receive() -> MutableMapping[str, Any]:
        return parts.pop(0) if parts else {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    async def main() -> None:
        scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": []}
        await refusing_app(behind)(scope, receive, send)

    anyio.run(main)
    return sent, read


@given(
    value=st.dictionaries(_keys, _json_values, max_size=4),
    cuts=st.lists(st.integers(0, 200), max_size=3),
)
def test_http_passes_a_message_on_as_it_was_sent(value: dict[str, Any], cuts: list[int]) -> None:
    """Over HTTP a message that gives each key once reaches the server as it was sent, in
    however many parts it came."""
    pytest.importorskip("anyio")
    body = json.dumps({"jsonrpc": "2.0", "id": 3, **value}).encode()
    bounds = [0, *sorted(min(cut, len(body)) for cut in cuts), len(body)]
    sent, read = _post([body[start:end] for start, end in itertools.pairwise(bounds)])
    assert b"".join(read) == body
    assert sent[0]["status"] == 200


def test_http_refuses_a_message_that_gives_a_key_twice() -> None:
    """Over HTTP a message giving an argument twice is answered 400 with the JSON-RPC error,
    and never reaches the server."""
    pytest.importorskip("anyio")
    body = b'{"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "navigate", '
    sent, read = _post([body, b'"arguments": {"query": "x", "query": "y"}}}'])
    assert read == []
    assert sent[0]["status"] == 400
    answer = json.loads(sent[1]["body"])
    assert answer["id"] == "a"
    assert answer["error"]["code"] == INVALID_REQUEST
    assert "'query' more than once" in answer["error"]["message"]
