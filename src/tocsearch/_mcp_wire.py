"""The MCP server's wire refuses a message that gives a key twice in one object.

The SDK reads each JSON-RPC message with a parser that keeps the last value of a repeated key,
so ``{"query": "a", "query": "b"}`` in a tool call's arguments would reach the tool as
``"b"``: a silent choice of what a hostile or broken client meant. Both transports look at the
message text before the SDK does, and answer such a message with a JSON-RPC error
(``-32600``, invalid request) that names the key, under the message's id when it has one;
the message itself is dropped. Text that is not JSON at all is left to the SDK, which says so.

>>> repeated_key('{"params": {"arguments": {"query": "a", "query": "b"}}}')
'query'
>>> refusal('{"jsonrpc": "2.0", "id": 7, "query": "a", "query": "b"}', "query")["id"]
7
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import IO, Any

import anyio

from tocsearch._json_text import RepeatedKey, read_json

__all__ = ["INVALID_REQUEST", "RefusingLines", "refusal", "refusing_app", "repeated_key"]

# JSON-RPC 2.0: "The JSON sent is not a valid Request object."
INVALID_REQUEST = -32600

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def repeated_key(text: str | bytes) -> str | None:
    """The first key ``text`` gives twice in one object, at any depth; None when it gives
    none, or is not JSON (for the SDK to refuse)."""
    try:
        read_json(text, unique_keys=True)
    except RepeatedKey as error:
        return error.key
    except ValueError:
        return None
    return None


class _Pairs(list[tuple[str, Any]]):
    """An object's pairs in the order given, repeated keys and all."""


def refusal(text: str | bytes, key: str) -> dict[str, Any]:
    """The JSON-RPC error answering ``text``, which gives ``key`` twice: under the message's
    id when it gives one once, a string or a whole number, else under none."""
    ident: str | int | None = None
    try:
        # Every object as its list of pairs: an id given twice is told from one given once.
        message = json.loads(text, object_pairs_hook=_Pairs)
    except (ValueError, RecursionError):
        message = None
    if isinstance(message, _Pairs):
        ids = [value for name, value in message if name == "id"]
        if len(ids) == 1 and (isinstance(ids[0], str) or type(ids[0]) is int):
            ident = ids[0]
    return {
        "jsonrpc": "2.0",
        "id": ident,
        "error": {
            "code": INVALID_REQUEST,
            "message": f"the message gives the key {key!r} more than once; give each key once",
        },
    }


class RefusingLines(anyio.AsyncFile[str]):
    """The lines of a stdio transport's input file without the messages that repeat a key:
    each is answered by :func:`refusal` through ``answer`` (set once the transport is open,
    before any line is read) instead of being passed on."""

    def __init__(self, lines: IO[str]) -> None:
        super().__init__(lines)
        self.answer: Callable[[dict[str, Any]], Awaitable[None]] | None = None

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in super().__aiter__():
            key = repeated_key(line)
            if key is None or self.answer is None:
                yield line
            else:
                await self.answer(refusal(line, key))


def refusing_app(app: App) -> App:
    """The ASGI ``app`` behind a check of every POSTed message: one that repeats a key is
    answered ``400`` with :func:`refusal`; any other reaches ``app`` as it was sent."""

    async def checked(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        parts: list[Message] = []
        body = bytearray()
        while True:
            part = await receive()
            parts.append(part)
            if part.get("type") != "http.request":
                break
            body += part.get("body", b"")
            if not part.get("more_body", False):
                break
        key = repeated_key(bytes(body))
        if key is not None:
            answer = json.dumps(refusal(bytes(body), key)).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 400,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(answer)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": answer})
            return
        pending = iter(parts)

        async def replay() -> Message:
            # The parts already read, then whatever comes after them (a disconnect).
            for part in pending:
                return part
            return await receive()

        await app(scope, replay, send)

    return checked
