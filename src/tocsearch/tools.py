"""Agent tools: JSON-schema definitions for function calling, and one handler that never raises.

Give :meth:`AgentTools.definitions` (or the OpenAI / Anthropic shaped variants) to a model, and
pass each tool call it makes to :meth:`AgentTools.handle_tool_call`; the answer is always a JSON
string: the result, or ``{"error": {"type": ..., "message": ...}}`` for bad arguments, unknown
ids and anything else that went wrong.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from tocsearch.converter import to_dict
from tocsearch.errors import InvalidArgument, TocsearchError
from tocsearch.levels import TocLevel
from tocsearch.navigate import Navigator
from tocsearch.service import (
    ExpandEventRequest,
    ExpandGripRequest,
    MemoryService,
    SearchChildrenRequest,
    SearchNodeRequest,
)
from tocsearch.storage.protocol import Storage
from tocsearch.text import TokenEstimator, estimate_tokens

__all__ = ["AgentTools"]

_FIELDS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {"type": "string", "enum": ["title", "summary", "bullets", "keywords"]},
    "description": "Fields to search; empty or absent means all fields.",
}
_BUDGET_SCHEMA: dict[str, Any] = {
    "type": "integer",
    "minimum": 1,
    "description": "Largest response size in estimated tokens; the lowest-ranked items are "
    "dropped first and has_more says so.",
}

_DEFINITIONS: tuple[dict[str, Any], ...] = (
    {
        "name": "search_node",
        "description": (
            "Search inside one node of the conversation-history table of contents (a year, "
            "month, week, day or segment) for query terms. Returns the matching title, summary, "
            "bullets (with grip ids that cite raw events) and keywords, each with a 0-1 score."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "node_id": {
                    "type": "string",
                    "description": "A node id such as toc:day:2026-01-30 or toc:week:2026-W05.",
                },
                "query": {
                    "type": "string",
                    "description": "Space-separated terms; terms under 3 characters are ignored.",
                },
                "fields": _FIELDS_SCHEMA,
                "limit": {"type": "integer", "minimum": 1, "default": 10},
                "token_budget": _BUDGET_SCHEMA,
            },
            "required": ["node_id", "query"],
            "additionalProperties": False,
        },
    },
    {
        "name": "search_children",
        "description": (
            "Search the children of a node (e.g. the days of a week) and rank them by how well "
            "they match the query. With no parent_id, searches every node of child_level."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Space-separated terms."},
                "parent_id": {
                    "type": "string",
                    "description": "The node whose children to search; empty for a whole level.",
                    "default": "",
                },
                "child_level": {
                    "type": "string",
                    "enum": [level.value for level in TocLevel],
                    "default": "year",
                    "description": "The level to search when parent_id is empty.",
                },
                "fields": _FIELDS_SCHEMA,
                "limit": {"type": "integer", "minimum": 1, "default": 10},
                "token_budget": _BUDGET_SCHEMA,
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
    {
        "name": "navigate",
        "description": (
            "Answer a question about the conversation history by walking its table of contents: "
            "reads time hints such as 'last week' or 'in January', drills into the best matching "
            "periods, and returns cited evidence (raw events and bullets with their ids) and "
            "the path it took, all within token_budget."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "The question, in plain words."},
                "token_budget": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Largest response size in estimated tokens, path included; "
                    "the best evidence that fits is returned.",
                },
                "full_path": {
                    "type": "boolean",
                    "default": False,
                    "description": "Show every step of the path instead of one per phase "
                    "(counted in the budget).",
                },
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
    {
        "name": "expand_grip",
        "description": (
            "Show the raw conversation events behind a grip id (from a bullet's evidence), with "
            "some events of context before and after."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "grip_id": {"type": "string", "description": "A grip id such as grip:1769...:a1."},
                "events_before": {"type": "integer", "minimum": 0, "default": 3},
                "events_after": {"type": "integer", "minimum": 0, "default": 3},
            },
            "required": ["grip_id"],
            "additionalProperties": False,
        },
    },
    {
        "name": "expand_event",
        "description": (
            "Show one raw conversation event by id (navigator evidence cites event ids), with "
            "some events of context before and after."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "event_id": {
                    "type": "string",
                    "description": "An event id such as evt:1769781900000:a1.",
                },
                "events_before": {"type": "integer", "minimum": 0, "default": 3},
                "events_after": {"type": "integer", "minimum": 0, "default": 3},
            },
            "required": ["event_id"],
            "additionalProperties": False,
        },
    },
)


def _error(kind: str, message: str) -> str:
    return json.dumps({"error": {"type": kind, "message": message}}, ensure_ascii=False)


class AgentTools:
    """The tocsearch tools over one store, ready for a function-calling loop.

    Args:
        storage: the store to search.
        now: the moment time hints are read against; None means the current time at each call.
        navigator_budget: the navigator's token budget when a call gives none.
        estimator: the token estimator for budgets.
    """

    def __init__(
        self,
        storage: Storage,
        *,
        now: datetime | None = None,
        navigator_budget: int = 2000,
        estimator: TokenEstimator = estimate_tokens,
    ) -> None:
        self.storage = storage
        self.now = now
        self.navigator_budget = navigator_budget
        self.estimator = estimator
        self.service = MemoryService(storage, estimator=estimator)
        self._handlers: dict[str, Callable[[dict[str, Any]], Any]] = {
            "search_node": self._search_node,
            "search_children": self._search_children,
            "navigate": self._navigate,
            "expand_grip": self._expand_grip,
            "expand_event": self._expand_event,
        }

    @staticmethod
    def definitions() -> list[dict[str, Any]]:
        """Tool definitions: name, description and a JSON-schema ``parameters`` object."""
        copied: list[dict[str, Any]] = json.loads(json.dumps(_DEFINITIONS))
        return copied  # a deep copy that callers may modify

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
            handler = self._handlers.get(name)
            if handler is None:
                known = ", ".join(self._handlers)
                return _error("UnknownTool", f"unknown tool {name!r}; known tools: {known}")
            return json.dumps(handler(_decode(arguments)), ensure_ascii=False)
        except TocsearchError as error:
            return _error(type(error).__name__, str(error))
        except Exception as error:  # a tool call must never take the agent loop down
            return _error(type(error).__name__, str(error) or repr(error))

    def _search_node(self, arguments: dict[str, Any]) -> Any:
        _only(arguments, {"node_id", "query", "fields", "limit", "token_budget"}, "search_node")
        request = SearchNodeRequest(
            node_id=_text(arguments, "node_id"),
            query=_text(arguments, "query"),
            fields=tuple(_list(arguments, "fields")),
            limit=_integer(arguments, "limit", 10),
            token_budget=_optional_integer(arguments, "token_budget"),
        )
        return to_dict(self.service.search_node(request))

    def _search_children(self, arguments: dict[str, Any]) -> Any:
        _only(
            arguments,
            {"query", "parent_id", "child_level", "fields", "limit", "token_budget"},
            "search_children",
        )
        request = SearchChildrenRequest(
            query=_text(arguments, "query"),
            parent_id=_text(arguments, "parent_id", ""),
            child_level=TocLevel.parse(_text(arguments, "child_level", "year")),
            fields=tuple(_list(arguments, "fields")),
            limit=_integer(arguments, "limit", 10),
            token_budget=_optional_integer(arguments, "token_budget"),
        )
        return to_dict(self.service.search_children(request))

    def _navigate(self, arguments: dict[str, Any]) -> Any:
        _only(arguments, {"query", "token_budget", "full_path"}, "navigate")
        budget = _optional_integer(arguments, "token_budget")
        full_path = arguments.get("full_path", False)
        if not isinstance(full_path, bool):
            raise InvalidArgument(f"argument 'full_path' must be a boolean, got {full_path!r}")
        navigator = Navigator(
            self.storage,
            now=self.now,
            token_budget=self.navigator_budget if budget is None else budget,
            estimator=self.estimator,
        )
        return navigator.navigate(_text(arguments, "query"), full_path=full_path).to_dict()

    def _expand_grip(self, arguments: dict[str, Any]) -> Any:
        _only(arguments, {"grip_id", "events_before", "events_after"}, "expand_grip")
        request = ExpandGripRequest(
            grip_id=_text(arguments, "grip_id"),
            events_before=_integer(arguments, "events_before", 3),
            events_after=_integer(arguments, "events_after", 3),
        )
        return to_dict(self.service.expand_grip(request))

    def _expand_event(self, arguments: dict[str, Any]) -> Any:
        _only(arguments, {"event_id", "events_before", "events_after"}, "expand_event")
        request = ExpandEventRequest(
            event_id=_text(arguments, "event_id"),
            events_before=_integer(arguments, "events_before", 3),
            events_after=_integer(arguments, "events_after", 3),
        )
        return to_dict(self.service.expand_event(request))


def _decode(arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments)
        except ValueError as error:
            raise InvalidArgument(f"arguments are not valid JSON: {error}") from None
    else:
        decoded = arguments
    if not isinstance(decoded, Mapping):
        raise InvalidArgument(f"arguments must be a JSON object, got {type(decoded).__name__}")
    return dict(decoded)


def _only(arguments: Mapping[str, Any], allowed: set[str], tool: str) -> None:
    unknown = sorted(set(arguments) - allowed)
    if unknown:
        raise InvalidArgument(
            f"{tool} takes {', '.join(sorted(allowed))}; unknown argument(s): {', '.join(unknown)}"
        )


_MISSING = object()


def _text(arguments: Mapping[str, Any], name: str, default: Any = _MISSING) -> str:
    value = arguments.get(name, default)
    if value is _MISSING:
        raise InvalidArgument(f"argument {name!r} is required")
    if not isinstance(value, str):
        raise InvalidArgument(f"argument {name!r} must be a string, got {value!r}")
    return value


def _integer(arguments: Mapping[str, Any], name: str, default: int) -> int:
    value = arguments.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidArgument(f"argument {name!r} must be an integer, got {value!r}")
    return value


def _optional_integer(arguments: Mapping[str, Any], name: str) -> int | None:
    if arguments.get(name) is None:
        return None
    return _integer(arguments, name, 0)


def _list(arguments: Mapping[str, Any], name: str) -> list[str]:
    value = arguments.get(name) or []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InvalidArgument(f"argument {name!r} must be a list of strings, got {value!r}")
    return value
