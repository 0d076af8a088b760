"""ChatGPT data exports: ``conversations.json``, a list of conversations with a message tree.

Each conversation has a ``mapping`` of nodes ``{id, message, parent, children}``; editing a
prompt or regenerating an answer forks the tree. The importer follows one branch:

- the path from ``current_node`` (the branch the user last saw) up to the root, when the
  conversation names a ``current_node`` that is in the mapping;
- otherwise every node, depth-first from the roots, children in their listed order.

Messages become USER_MESSAGE, ASSISTANT_MESSAGE or (role ``tool``) TOOL_RESULT events; a visible
system message becomes a SYSTEM event of type SESSION_START. Skipped without a problem: nodes
without a message, messages with no text, messages marked hidden
(``is_visually_hidden_from_conversation``), and content that is not conversation
(``user_editable_context``, ``model_editable_context``, ``thoughts``, ``reasoning_recap``).

``create_time`` is epoch seconds. A message whose ``create_time`` is null is placed 1 ms after
the message before it on the branch (the conversation's ``create_time`` for the first), so order
is kept and ids stay distinct in time. The session id is the conversation's ``id`` (or
``conversation_id``); without either it is a stable hash of title and creation time.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from tocsearch.errors import ImportFailed
from tocsearch.importers._collect import BadRecord, Collector, make_event
from tocsearch.importers._export import (
    CONVERSATIONS,
    is_zip,
    unpacked_export,
    zipped_conversations,
)
from tocsearch.importers._fields import (
    epoch_seconds,
    hashed_suffix,
    optional_str,
    require_mapping,
    safe_suffix,
    short,
    stamped_id,
    tag,
)
from tocsearch.importers._json import TooDeep, parse_document
from tocsearch.importers._records import ImportResult
from tocsearch.importers._source import read_text
from tocsearch.models import Event, EventRole, EventType

__all__ = [
    "AGENT",
    "branch_node_ids",
    "load_chatgpt",
    "load_chatgpt_document",
    "message_text",
]

AGENT = "chatgpt"
_HIDDEN_CONTENT = frozenset(
    {"user_editable_context", "model_editable_context", "thoughts", "reasoning_recap"}
)
_ROLES = {
    "user": (EventRole.USER, EventType.USER_MESSAGE),
    "assistant": (EventRole.ASSISTANT, EventType.ASSISTANT_MESSAGE),
    "tool": (EventRole.TOOL, EventType.TOOL_RESULT),
    "system": (EventRole.SYSTEM, EventType.SESSION_START),
}
_ONE_MS = timedelta(milliseconds=1)


def _part_text(part: Any, number: int) -> str:
    """The text of one of a message's ``parts``: a string, an object's ``text``, or a
    placeholder naming an object's ``content_type``.

    Raises:
        BadRecord: the part is neither a string nor an object with text or a content type, so
            nothing of it could be kept; a message never loses a part silently.
    """
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        kind = part.get("content_type")
        if isinstance(part.get("text"), str):
            return str(part["text"])
        if kind == "image_asset_pointer":
            return "[image]"
        if kind in ("audio_asset_pointer", "real_time_user_audio_video_asset_pointer"):
            return "[audio]"
        if isinstance(kind, str) and kind:
            return f"[{kind}]"
    raise BadRecord(f"part {number} holds no text and no content_type: {short(part)}")


def message_text(content: Mapping[str, Any]) -> str | None:
    """The readable text of a message's ``content``, or None for content that is not conversation.

    Raises:
        BadRecord: the content type is unknown and holds no text to fall back on.
    """
    kind = content.get("content_type")
    if tag(content, "content_type") in _HIDDEN_CONTENT:
        return None
    parts = content.get("parts")
    if isinstance(parts, list):
        texts = (_part_text(part, number) for number, part in enumerate(parts, start=1))
        return "\n".join(text for text in texts if text)
    if kind == "tether_quote":
        pieces = [content.get("title"), content.get("text"), content.get("url")]
        return "\n".join(piece for piece in pieces if isinstance(piece, str) and piece)
    for key in ("text", "result"):
        if isinstance(content.get(key), str):
            return str(content[key])
    raise BadRecord(f"content_type {short(kind)} holds no parts or text")


def branch_node_ids(mapping: Mapping[str, Any], current_node: Any) -> list[str]:
    """The node ids to import, root first (see the module docstring for which branch)."""
    if isinstance(current_node, str) and current_node in mapping:
        path: list[str] = []
        seen: set[str] = set()
        node_id: Any = current_node
        while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
            seen.add(node_id)
            path.append(node_id)
            node = mapping[node_id]
            node_id = node.get("parent") if isinstance(node, dict) else None
        return path[::-1]
    # A damaged export may hold a list or an object where an id belongs: only a string that
    # is a key links two nodes (``in mapping`` would raise on the unhashable ones).
    roots = [
        key
        for key, node in mapping.items()
        if not isinstance(node, dict) or not _node_key(node.get("parent"), mapping)
    ]
    ordered: list[str] = []
    visited: set[str] = set()
    stack = roots[::-1]
    while stack:
        key = stack.pop()
        if key in visited:
            continue
        visited.add(key)
        ordered.append(key)
        node = mapping.get(key)
        children = node.get("children") if isinstance(node, dict) else None
        if isinstance(children, list):
            stack.extend(child for child in reversed(children) if _node_key(child, mapping))
    # Nodes caught in a parent cycle have no root; keep them rather than lose them.
    ordered.extend(key for key in mapping if key not in visited)
    return ordered


def _node_key(value: Any, mapping: Mapping[str, Any]) -> bool:
    """Whether ``value`` is the id of a node of ``mapping``."""
    return isinstance(value, str) and value in mapping


def _session_id(conversation: Mapping[str, Any], title: str, created: datetime | None) -> str:
    for key in ("id", "conversation_id"):
        value = conversation.get(key)
        if isinstance(value, str) and value:
            return value
    return "chatgpt:" + hashed_suffix(title, created.isoformat() if created else "", prefix="")


def _conversation(collector: Collector, position: int, conversation: Any) -> None:
    where = f"conversation {position}"
    if isinstance(conversation, TooDeep):
        collector.problem(where, conversation.reason)
        return
    try:
        record = require_mapping(conversation, "a conversation")
        title = optional_str(record, "title") or ""
        created_raw = record.get("create_time")
        created = None if created_raw is None else epoch_seconds(created_raw, "create_time")
        mapping = require_mapping(record.get("mapping"), "'mapping'")
    except BadRecord as bad:
        collector.problem(where, bad.reason)
        return
    session_id = _session_id(record, title, created)
    previous = created
    for node_id in branch_node_ids(mapping, record.get("current_node")):
        node = mapping[node_id]
        message = node.get("message") if isinstance(node, dict) else None
        if message is None:
            continue
        collector.records_read += 1
        message_where = f"{where}, message {node_id!r}"
        try:
            made = _message(message, session_id, title, previous)
        except BadRecord as bad:
            collector.problem(message_where, bad.reason)
            continue
        if made is None:
            continue
        event, previous = made
        collector.add([event], message_where)


def _message(
    message: Any, session_id: str, title: str, previous: datetime | None
) -> tuple[Event, datetime] | None:
    record = require_mapping(message, "'message'")
    author = require_mapping(record.get("author"), "'author'")
    role_name = tag(author, "role")
    if role_name not in _ROLES:
        shown = short(author.get("role"))
        raise BadRecord(f"author role must be one of {', '.join(_ROLES)}, got {shown}")
    metadata_field = record.get("metadata")
    extra = metadata_field if isinstance(metadata_field, dict) else {}
    if extra.get("is_visually_hidden_from_conversation") is True:
        return None
    content = require_mapping(record.get("content"), "'content'")
    text = message_text(content)
    if text is None or not text.strip():
        return None
    role, event_type = _ROLES[role_name]
    raw_time = record.get("create_time")
    if raw_time is not None:
        when = epoch_seconds(raw_time, "create_time")
    elif previous is not None:
        when = previous + _ONE_MS
    else:
        raise BadRecord("'create_time' is null and the conversation has no create_time either")
    message_id = optional_str(record, "id")
    if not message_id:
        raise BadRecord("'id' is missing")
    metadata = {"message_id": message_id, "title": title}
    model = extra.get("model_slug")
    if isinstance(model, str) and model:
        metadata["model"] = model
    name = author.get("name")
    if role is EventRole.TOOL and isinstance(name, str) and name:
        metadata["tool"] = name
    event = make_event(
        event_id=stamped_id(when, safe_suffix(message_id)),
        session_id=session_id,
        timestamp=when,
        role=role,
        event_type=event_type,
        text=text,
        metadata=metadata,
        agent=AGENT,
    )
    return event, when


def load_chatgpt_document(document: Any, path: str, *, strict: bool = True) -> ImportResult:
    """Events from an already parsed export; see :func:`load_chatgpt`."""
    if isinstance(document, (dict, TooDeep)):
        document = [document]
    if not isinstance(document, list):
        raise ImportFailed(f"{path}: a ChatGPT export is a JSON list of conversations")
    collector = Collector(path, strict=strict)
    for position, conversation in enumerate(document, start=1):
        _conversation(collector, position, conversation)
    return collector.result()


def load_chatgpt(path: str | os.PathLike[str], *, strict: bool = True) -> ImportResult:
    """Events from a ChatGPT export: its ``conversations.json`` (a list, or one conversation
    object), the folder the export unpacks to, or the ``.zip`` ChatGPT mails.

    Raises:
        ImportFailed: the file is missing, not JSON, a zip without ``conversations.json``, or
            (in strict mode) holds a bad message.
    """
    source = Path(path)
    if source.is_dir():
        inside = unpacked_export(source)
        if inside is None:
            raise ImportFailed(f"{source}: the folder holds no {CONVERSATIONS}")
        source = inside
    if is_zip(source):
        document = zipped_conversations(source)
    else:
        document = parse_document(read_text(source), os.fspath(source))
    return load_chatgpt_document(document, os.fspath(path), strict=strict)
