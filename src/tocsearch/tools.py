"""Agent tools: JSON-schema definitions for function calling, and one handler that never raises.

Give :meth:`AgentTools.definitions` (or the OpenAI / Anthropic shaped variants) to a model, and
pass each tool call it makes to :meth:`AgentTools.handle_tool_call`; the answer is always a JSON
string: the result, or ``{"error": {"type": ..., "message": ...}}`` for bad arguments, unknown
ids and anything else that went wrong.

Each tool is a :class:`Tool`: a name, a description, the request record of
:mod:`tocsearch.requests` whose fields are its arguments (so its JSON schema and its argument
checks come from that record), and the service call that answers it. The MCP server
(:mod:`tocsearch.mcp`) serves tools from the same table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import attrs

from tocsearch._arguments import field_default
from tocsearch._json_text import RepeatedKey, read_json
from tocsearch._terminal import terminal_json
from tocsearch.converter import to_dict
from tocsearch.errors import InvalidArgument, TocsearchError
from tocsearch.index import SearchIndex, SearchOutcome, format_context
from tocsearch.index._context import DEFAULT_CONTEXT_BUDGET
from tocsearch.index._search import run_search
from tocsearch.requests import (
    BrowseTocRequest,
    ExpandEventRequest,
    ExpandGripRequest,
    ExpandRequest,
    MemorySearchRequest,
    NavigateRequest,
    SearchChildrenRequest,
    SearchNodeRequest,
    parse_request,
    request_schema,
)
from tocsearch.service import MemoryService
from tocsearch.storage.protocol import Storage
from tocsearch.text import TokenEstimator, estimate_tokens

__all__ = ["AgentTools", "Tool", "answer_json", "decode_arguments", "error_answer", "tools_named"]


@attrs.frozen
class Tool:
    """One tool: its name and description, its request record, and how the service answers.

    ``answer(service, request)`` returns JSON-ready data (dicts, lists, strings, numbers).
    """

    name: str
    description: str
    request: type[Any]
    answer: Callable[[MemoryService, Any], Any]

    def definition(self) -> dict[str, Any]:
        """``name``, ``description`` and the JSON-schema ``parameters`` of the request record."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": request_schema(self.request),
        }

    def call(self, service: MemoryService, arguments: Mapping[str, Any]) -> Any:
        """Check ``arguments`` against the request record and answer them.

        Raises:
            InvalidArgument: an unknown, missing, mistyped or out-of-range argument.
            TocsearchError: whatever the service raises (an unknown node, grip or event).
        """
        return self.answer(service, parse_request(self.request, arguments, what=self.name))


_NAVIGATE = Tool(
    "navigate",
    "Answer a question about the conversation history by walking its table of contents: "
    "reads time hints such as 'last week' or 'in January', drills into the best matching "
    "periods, and returns cited evidence (raw events and bullets with their ids) and the path "
    "it took, all within token_budget. In a segment with an 'ids' pattern such as "
    "'evt:16835*000:conv-26:D1:*', an event cited as 'a:b' is that pattern with a and b for "
    "its two '*' (evt:1683554220000:conv-26:D1:3 for '54220:3'); expand takes either form.",
    NavigateRequest,
    lambda service, request: service.navigate(request).to_dict(),
)
_SEARCH_NODE = Tool(
    "search_node",
    "Search inside one node of the conversation-history table of contents (a year, month, "
    "week, day or segment) for query terms. Returns the matching title, summary, bullets (with "
    "grip ids that cite raw events) and keywords, each with a 0-1 score.",
    SearchNodeRequest,
    lambda service, request: to_dict(service.search_node(request)),
)
_SEARCH_CHILDREN = Tool(
    "search_children",
    "Search the children of a node (e.g. the days of a week) and rank them by how well they "
    "match the query. With no parent_id, searches every node of child_level.",
    SearchChildrenRequest,
    lambda service, request: to_dict(service.search_children(request)),
)
_BROWSE = Tool(
    "browse",
    "List the children of a node in time order (the years for an empty parent_id), one page at "
    "a time: months of a year, weeks of a month, days of a week, segments of a day.",
    BrowseTocRequest,
    lambda service, request: to_dict(service.browse_toc(request)),
)
_EXPAND = Tool(
    "expand",
    "Show the raw conversation events behind a grip id (from a bullet) or around an event id "
    "(from navigate evidence), with some events of context before and after.",
    ExpandRequest,
    lambda service, request: to_dict(service.expand(request)),
)
_EXPAND_GRIP = Tool(
    "expand_grip",
    "Show the raw conversation events behind a grip id (from a bullet's evidence), with some "
    "events of context before and after.",
    ExpandGripRequest,
    lambda service, request: to_dict(service.expand_grip(request)),
)
_EXPAND_EVENT = Tool(
    "expand_event",
    "Show one raw conversation event by id (navigator evidence cites event ids), with some "
    "events of context before and after.",
    ExpandEventRequest,
    lambda service, request: to_dict(service.expand_event(request)),
)


def _search_answer(outcome: SearchOutcome) -> dict[str, Any]:
    data = outcome.to_dict()
    return {"results": data["hits"], "mode_used": data["mode_used"], "note": data["note"]}


_MEMORY_SEARCH = Tool(
    "memory_search",
    "Search the whole conversation history for a topic, by keywords and meaning (full-text "
    "and vector search fused). Returns the best matching past segments, each with its time "
    "range, the matching events' text, event ids and grip ids to expand, and a 0-1 score.",
    MemorySearchRequest,
    lambda service, request: _search_answer(service.memory_search(request)),
)

_AGENT_TOOLS: tuple[Tool, ...] = (
    _SEARCH_NODE,
    _SEARCH_CHILDREN,
    _NAVIGATE,
    _EXPAND_GRIP,
    _EXPAND_EVENT,
    _BROWSE,
    _MEMORY_SEARCH,
)
"""The tools :class:`AgentTools` offers, in the order of its definitions."""
_EVERY_TOOL = {tool.name: tool for tool in (*_AGENT_TOOLS, _EXPAND)}


def tools_named(*names: str) -> tuple[Tool, ...]:
    """The tools of these names, in this order.

    >>> [tool.name for tool in tools_named("navigate", "expand")]
    ['navigate', 'expand']

    Raises:
        KeyError: no tool has one of the names.
    """
    return tuple(_EVERY_TOOL[name] for name in names)


def answer_json(data: Any) -> str:
    """A call's answer as JSON that UTF-8 can carry, as every transport sends it: an unpaired
    surrogate (a file name that is not UTF-8, quoted in a sync's answer or an error) is written
    as a ``\\u`` escape, which reads back as the same string, not raw, which no UTF-8
    encoder takes (:func:`tocsearch._terminal.terminal_json`)."""
    return terminal_json(data)


def error_answer(kind: str, message: str) -> str:
    """The JSON answer for a failed call: ``{"error": {"type": kind, "message": message}}``."""
    return answer_json({"error": {"type": kind, "message": message}})


def decode_arguments(arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """A tool call's arguments as a dict, from the JSON string a model produced or a mapping.

    Raises:
        InvalidArgument: the text is not JSON, not a JSON object, or gives a key twice (which
            of the two the model meant cannot be told, so neither is taken).
    """
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            decoded = read_json(arguments, unique_keys=True)
        except RepeatedKey as error:
            raise InvalidArgument(
                f"arguments give the key {error.key!r} more than once; give each argument once"
            ) from None
        except ValueError as error:
            raise InvalidArgument(f"arguments are not valid JSON: {error}") from None
    else:
        decoded = arguments
    if not isinstance(decoded, Mapping):
        raise InvalidArgument(f"arguments must be a JSON object, got {type(decoded).__name__}")
    return dict(decoded)


class AgentTools:
    """The tocsearch tools over one store, ready for a function-calling loop.

    Args:
        storage: the store to search.
        now: the moment time hints are read against; None means the current time at each call.
        navigator_budget: the navigator's token budget when a call gives none.
        estimator: the token estimator for budgets.
        index: the search index of ``storage``: ``memory_search`` and :meth:`relevant_context`
            rank through it and ``navigate`` teleports to what it finds; without one they walk
            the table of contents and say so.
    """

    def __init__(
        self,
        storage: Storage,
        *,
        now: datetime | None = None,
        navigator_budget: int = field_default(NavigateRequest, "token_budget"),
        estimator: TokenEstimator = estimate_tokens,
        index: SearchIndex | None = None,
    ) -> None:
        self.storage = storage
        self.index = index
        self.now = now
        self.navigator_budget = navigator_budget
        self.estimator = estimator
        self.service = MemoryService(storage, estimator=estimator, now=now, index=index)
        self._tools = {tool.name: tool for tool in _AGENT_TOOLS}

    def relevant_context(
        self,
        opening_message: str,
        *,
        limit: int = 5,
        min_score: float = 0.25,
        token_budget: int = DEFAULT_CONTEXT_BUDGET,
    ) -> str:
        """A ``<relevant-context>`` block of the past segments that best match the opening
        message of a conversation (at most ``limit``, each scoring ``min_score`` or more),
        within ``token_budget`` tokens; empty when nothing relevant is found."""
        if self.index is not None:
            outcome = self.index.search(opening_message, limit=limit, min_score=min_score)
        else:
            outcome = run_search(
                self.storage, None, opening_message, limit=limit, min_score=min_score
            )
        return format_context(outcome.hits, token_budget=token_budget, estimator=self.estimator)

    @staticmethod
    def definitions() -> list[dict[str, Any]]:
        """Tool definitions: name, description and a JSON-schema ``parameters`` object."""
        return [tool.definition() for tool in _AGENT_TOOLS]  # fresh dicts callers may modify

    @classmethod
    def openai_tools(cls) -> list[dict[str, Any]]:
        """Definitions in the ``{"type": "function", "function": {...}}`` shape."""
        return [{"type": "function", "function": spec} for spec in cls.definitions()]

    @classmethod
    def anthropic_tools(cls) -> list[dict[str, Any]]:
        """Definitions in the ``{"name", "description", "input_schema"}`` shape."""
        return [
            {
                "name": spec["name"],
                "description": spec["description"],
                "input_schema": spec["parameters"],
            }
            for spec in cls.definitions()
        ]

    def handle_tool_call(self, name: str, arguments: str | Mapping[str, Any] | None) -> str:
        """Run one tool call and return its JSON result; never raises.

        ``arguments`` may be the JSON string a model produced or an already decoded mapping.
        """
        try:
            tool = self._tools.get(name)
            if tool is None:
                known = ", ".join(self._tools)
                return error_answer("UnknownTool", f"unknown tool {name!r}; known tools: {known}")
            decoded = decode_arguments(arguments)
            if tool is _NAVIGATE and decoded.get("token_budget") is None:
                decoded["token_budget"] = self.navigator_budget
            return answer_json(tool.call(self.service, decoded))
        except TocsearchError as error:
            return error_answer(type(error).__name__, str(error))
        except Exception as error:  # a tool call must never take the agent loop down
            return error_answer(type(error).__name__, str(error) or repr(error))
