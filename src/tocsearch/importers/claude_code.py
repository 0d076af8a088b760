"""Claude Code session transcripts: ``~/.claude/projects/<project>/<session>.jsonl``.

Each line is one JSON object. Lines of ``type`` ``"user"`` and ``"assistant"`` carry a
``message`` whose ``content`` is a string or a list of blocks; every other type (``summary``,
``system``, ``file-history-snapshot``, ...) is bookkeeping and is skipped without a problem, as
are lines marked ``isMeta`` (text the client injects, not typed by anyone).

Blocks become events:

- ``text`` -> a USER_MESSAGE or ASSISTANT_MESSAGE with the text;
- ``tool_use`` -> an ASSISTANT_MESSAGE ``"[tool: Bash] npm test"`` with ``metadata["tool"]`` and
  the full input as JSON in ``metadata["tool_input"]``;
- ``tool_result`` -> a TOOL_RESULT from the TOOL role, with the tool's name when the call was
  seen earlier in the same file;
- ``image`` / ``document`` -> a message ``"[image]"`` / ``"[document]"`` so the moment is kept;
- ``thinking`` / ``redacted_thinking`` -> skipped: private reasoning, not conversation.

Event ids are ``<line uuid>.<block index>``, so several events of one line stay distinct and a
re-import gives the same ids. A resumed session repeats earlier lines in a new file; those
repeats produce equal events and collapse into one.

Every event's ``metadata`` names its ``project`` (the transcript's folder under
``~/.claude/projects``, the same for a session's subagent transcripts), and where the line has
them its ``cwd``, ``git_branch`` and, for a subagent, ``agent_id``. A ``summary`` line is Claude
Code's own title of the conversation that ends at its ``leafUuid``: when that line is among the
transcripts read together, every event of its session carries it as ``metadata["title"]``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from tocsearch.errors import ImportFailed
from tocsearch.importers._collect import BadRecord, Collector, make_event
from tocsearch.importers._fields import (
    optional_str,
    parse_iso_timestamp,
    require_mapping,
    require_str,
    safe_suffix,
    short,
    stamped_id,
    tag,
)
from tocsearch.importers._json import parse_record
from tocsearch.importers._records import ImportResult
from tocsearch.importers._source import Line, iter_complete_lines, iter_lines
from tocsearch.models import Event, EventRole, EventType
from tocsearch.text import clip

__all__ = [
    "AGENT",
    "TranscriptTail",
    "claude_code_files",
    "load_claude_code",
    "load_claude_code_tail",
    "project_folder",
    "tool_call_text",
    "transcripts_below",
]

AGENT = "claude-code"
_MESSAGE_TYPES = frozenset({"user", "assistant"})
# Fields of a line kept in each of its events' metadata, by their metadata names.
_LINE_METADATA = (("cwd", "cwd"), ("gitBranch", "git_branch"), ("agentId", "agent_id"))
_SKIPPED_BLOCKS = frozenset({"thinking", "redacted_thinking"})
_PLACEHOLDER_BLOCKS = {"image": "[image]", "document": "[document]"}
# The input field that says most about a call, per common tool; others show their JSON.
_TOOL_SUMMARY_KEYS = (
    "command",
    "file_path",
    "notebook_path",
    "path",
    "pattern",
    "url",
    "query",
    "description",
    "prompt",
)
_MAX_SUMMARY = 300


def tool_call_text(name: str, tool_input: Mapping[str, Any]) -> str:
    """``"[tool: Bash] npm test"``: the tool's name and the gist of its input.

    >>> tool_call_text("Read", {"file_path": "src/auth/jwt.py"})
    '[tool: Read] src/auth/jwt.py'
    """
    for key in _TOOL_SUMMARY_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            gist = value
            break
    else:
        gist = json.dumps(tool_input, ensure_ascii=False, sort_keys=True) if tool_input else ""
    if len(gist) > _MAX_SUMMARY:
        gist = clip(gist, _MAX_SUMMARY)
    return f"[tool: {name}] {gist}".rstrip()


def _unknown_block_text(block: Mapping[str, Any]) -> str:
    """The text a block of a type this importer does not know carries, if any."""
    for key in ("text", "content"):
        value = block.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _block_kind(block: Mapping[str, Any]) -> str:
    kind = block.get("type")
    return kind if isinstance(kind, str) and kind else "(no type)"


class _FileReader:
    """Turns the lines of one transcript into events, remembering tool names by call id."""

    def __init__(self, collector: Collector, path: Path, titles: dict[str, str]) -> None:
        self.collector = collector
        self.path = path
        self.display = os.fspath(path)
        self.project = project_folder(path).name
        self.tool_names: dict[str, str] = {}
        self.titles = titles  # leaf uuid -> Claude Code's summary of the conversation ending there
        self.unknown: list[str] = []  # block types of the current line this importer does not know

    def read(self) -> None:
        for line in iter_lines(self.path):
            self._line(line)

    def read_from(self, start: int, first_number: int) -> tuple[int, int]:
        """Read the whole lines from byte ``start``; returns the offset and the number of the
        last line read (``start`` and ``first_number - 1`` when there was none)."""
        offset, number = start, first_number - 1
        for line, after in iter_complete_lines(self.path, start, first_number):
            self._line(line)
            offset, number = after, line.number
        return offset, number

    def _line(self, line: Line) -> None:
        where = f"line {line.number}"
        if line.text is None:
            self.collector.records_read += 1
            self._problem(where, line.decode_error or "not UTF-8 text")
            return
        if not line.text.strip():
            return
        self.collector.records_read += 1
        self.unknown.clear()
        try:
            events = self._events(parse_record(line.text))
        except BadRecord as bad:
            self._problem(where, bad.reason)
            return
        self.collector.count_unknown(self.unknown)
        if events:
            self.collector.add(events, where, path=self.display)

    def _problem(self, where: str, reason: str) -> None:
        self.collector.problem(where, reason, path=self.display)

    def _events(self, record: Any) -> list[Event]:
        line = require_mapping(record, "a line")
        kind = tag(line, "type")
        if kind == "summary":
            summary, leaf = line.get("summary"), line.get("leafUuid")
            if isinstance(summary, str) and summary.strip() and isinstance(leaf, str):
                self.titles[leaf] = " ".join(summary.split())
            return []
        if kind not in _MESSAGE_TYPES or line.get("isMeta") is True:
            return []
        uuid = require_str(line, "uuid")
        timestamp = parse_iso_timestamp(line.get("timestamp"), "timestamp")
        session_id = optional_str(line, "sessionId") or self.path.stem
        message = require_mapping(line.get("message"), "'message'")
        content = message.get("content")
        metadata = {"uuid": uuid, "project": self.project}
        for source, target in (
            ("cwd", "cwd"),
            ("gitBranch", "git_branch"),
            ("agentId", "agent_id"),
        ):
            value = line.get(source)
            if isinstance(value, str) and value:
                metadata[target] = value
        model = message.get("model")
        if isinstance(model, str) and model:
            metadata["model"] = model
        if line.get("isSidechain") is True:
            metadata["sidechain"] = "true"
        role = EventRole.USER if kind == "user" else EventRole.ASSISTANT
        if isinstance(content, str):
            blocks: list[Any] = [{"type": "text", "text": content}]
        elif isinstance(content, list):
            blocks = content
        else:
            raise BadRecord(f"'message.content' must be a string or a list, got {short(content)}")
        events: list[Event] = []
        for index, block in enumerate(blocks):
            made = self._block(block, role, dict(metadata))
            if made is None:
                continue
            event_role, event_type, text, block_metadata = made
            events.append(
                make_event(
                    event_id=stamped_id(timestamp, safe_suffix(f"{uuid}.{index}")),
                    session_id=session_id,
                    timestamp=timestamp,
                    role=event_role,
                    event_type=event_type,
                    text=text,
                    metadata=block_metadata,
                    agent=AGENT,
                )
            )
        return events

    def _block(
        self, block: Any, role: EventRole, metadata: dict[str, str]
    ) -> tuple[EventRole, EventType, str, dict[str, str]] | None:
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        mapping = require_mapping(block, "a content block")
        kind = tag(mapping, "type")
        message_type = (
            EventType.USER_MESSAGE if role is EventRole.USER else EventType.ASSISTANT_MESSAGE
        )
        if kind == "text":
            text = require_str(mapping, "text", allow_empty=True)
            if not text.strip():
                return None
            return role, message_type, text, metadata
        if kind in _SKIPPED_BLOCKS:
            return None
        if kind in _PLACEHOLDER_BLOCKS:
            return role, message_type, _PLACEHOLDER_BLOCKS[kind], metadata
        if kind == "tool_use":
            name = require_str(mapping, "name")
            tool_input = mapping.get("input") or {}
            if not isinstance(tool_input, dict):
                raise BadRecord(f"tool_use 'input' must be an object, got {short(tool_input)}")
            call_id = optional_str(mapping, "id")
            if call_id:
                self.tool_names[call_id] = name
                metadata["tool_use_id"] = call_id
            metadata["tool"] = name
            metadata["tool_input"] = json.dumps(tool_input, ensure_ascii=False, sort_keys=True)
            return (
                EventRole.ASSISTANT,
                EventType.ASSISTANT_MESSAGE,
                tool_call_text(name, tool_input),
                metadata,
            )
        if kind == "tool_result":
            call_id = optional_str(mapping, "tool_use_id")
            if call_id:
                metadata["tool_use_id"] = call_id
                if call_id in self.tool_names:
                    metadata["tool"] = self.tool_names[call_id]
            if mapping.get("is_error") is True:
                metadata["is_error"] = "true"
            return (
                EventRole.TOOL,
                EventType.TOOL_RESULT,
                self._result_text(mapping.get("content")),
                metadata,
            )
        # A block type this importer does not know (newer clients add some): keep its text
        # where it has any, and count it, rather than refuse a whole transcript.
        self.unknown.append(_block_kind(mapping))
        text = _unknown_block_text(mapping)
        if not text:
            return None
        metadata["block_type"] = _block_kind(mapping)
        return role, message_type, text, metadata

    def _result_text(self, content: Any) -> str:
        if content is None:
            return ""
        if isinstance(content, str):
            return content
        if not isinstance(content, list):
            raise BadRecord(f"tool_result content must be a string or a list, got {short(content)}")
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
                continue
            if not isinstance(block, dict):
                raise BadRecord(f"tool_result content holds a non-block item: {short(block)}")
            kind = tag(block, "type")
            if kind == "text":
                parts.append(str(block.get("text", "")))
            elif kind in _PLACEHOLDER_BLOCKS:
                parts.append(_PLACEHOLDER_BLOCKS[kind])
            elif kind == "tool_reference" and isinstance(block.get("tool_name"), str):
                # What a tool search found: the names of the tools it loaded.
                parts.append(f"[tool reference: {block['tool_name']}]")
            else:
                self.unknown.append(_block_kind(block))
                text = _unknown_block_text(block)
                if text:
                    parts.append(text)
        return "\n".join(parts)


def claude_code_files(path: Path) -> list[Path]:
    """The transcripts to read: the file itself, or every ``*.jsonl`` below a directory, sorted.

    Raises:
        ImportFailed: the path does not exist, or a directory holds no transcript.
    """
    if path.is_dir():
        files = [transcript for transcript, _ in transcripts_below(path)]
        if not files:
            raise ImportFailed(f"{path}: directory holds no *.jsonl transcript")
        return files
    if not path.exists():
        raise ImportFailed(f"{path}: no such file or directory")
    return [path]


def transcripts_below(folder: Path) -> list[tuple[Path, bool]]:
    """The ``*.jsonl`` files below ``folder`` (paths under it as given, sorted), each with
    whether it is a symbolic link.

    Linked folders are not entered, as ``Path.rglob`` does not; a link that leads to no file,
    and a folder that cannot be read, are left out. The folders' entries say which are links,
    folders and files without a system call per file (thousands, in a long history).
    """
    found: list[tuple[Path, bool]] = []
    pending = [os.fspath(folder)]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue  # unreadable or gone since it was listed: as rglob, skipped
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
            elif not entry.name.endswith(".jsonl"):
                continue
            elif entry.is_symlink():
                if Path(entry.path).is_file():
                    found.append((Path(entry.path), True))
            elif entry.is_file(follow_symlinks=False):
                found.append((Path(entry.path), False))
    # By their parts, as paths order (and as rglob's results were sorted), compared in C.
    return sorted(found, key=lambda item: item[0].parts)


def project_folder(transcript: Path) -> Path:
    """The project folder of a transcript: its own folder, or for a subagent transcript
    (``<project>/<session>/subagents/agent-*.jsonl``) the folder of its session."""
    folder = transcript.parent
    if folder.name == "subagents":
        return folder.parent.parent
    return folder


def load_claude_code(
    path: str | os.PathLike[str],
    *,
    strict: bool = True,
    progress: Callable[[str], None] | None = None,
) -> ImportResult:
    """Events from a Claude Code transcript, or from every transcript below a directory.

    ``progress``, when given, is called after each transcript with a short line such as
    ``read 12/47 files, 3,456 events``.

    Raises:
        ImportFailed: a file is missing or binary, or (in strict mode) a line is bad.
    """
    source = Path(path)
    collector = Collector(os.fspath(path), strict=strict)
    titles: dict[str, str] = {}
    transcripts = claude_code_files(source)
    for number, transcript in enumerate(transcripts, start=1):
        _FileReader(collector, transcript, titles).read()
        if progress is not None:
            progress(
                f"read {number:,}/{len(transcripts):,} files, {collector.event_count:,} events"
            )
    result = collector.result()
    return attrs.evolve(result, events=_titled(result.events, titles))


@attrs.frozen
class TranscriptTail:
    """What :func:`load_claude_code_tail` read: the events, where reading stopped (the byte
    offset and the number of the last whole line), and the tool calls still awaiting their
    results, to pass to the next read."""

    result: ImportResult
    offset: int
    lines: int
    open_calls: Mapping[str, str]


def load_claude_code_tail(
    path: str | os.PathLike[str],
    *,
    start: int = 0,
    lines: int = 0,
    open_calls: Mapping[str, str] | None = None,
    strict: bool = False,
) -> TranscriptTail:
    """The events of the whole lines a transcript gained after byte ``start`` (``lines`` whole
    lines came before it), for reading a growing transcript a piece at a time.

    ``open_calls`` (tool call id -> tool name) carries the calls of earlier pieces whose results
    may come in this one, so a result still names its tool. A summary line in this piece titles
    the events of this piece only.

    Raises:
        ImportFailed: the file is missing or binary, or (in strict mode) a line is bad.
    """
    transcript = Path(path)
    collector = Collector(os.fspath(path), strict=strict)
    titles: dict[str, str] = {}
    reader = _FileReader(collector, transcript, titles)
    reader.tool_names.update(open_calls or {})
    offset, last = reader.read_from(start, lines + 1)
    result = collector.result()
    answered = {
        event.metadata.get("tool_use_id")
        for event in result.events
        if event.event_type is EventType.TOOL_RESULT
    }
    waiting = {call: name for call, name in reader.tool_names.items() if call not in answered}
    # Only the newest calls can still be answered; a crashed session must not grow the state.
    kept = dict(list(waiting.items())[-_OPEN_CALLS:])
    return TranscriptTail(
        attrs.evolve(result, events=_titled(result.events, titles)), offset, last, kept
    )


_OPEN_CALLS = 64


def _titled(events: Sequence[Event], titles: Mapping[str, str]) -> tuple[Event, ...]:
    """The events, those of a session that a summary line names carrying its title (the
    newest summary of a session wins: a resumed conversation is summarised again)."""
    by_session: dict[str, tuple[str, str]] = {}
    for event in events:
        title = titles.get(event.metadata.get("uuid", ""))
        if title is not None:
            newest = by_session.get(event.session_id)
            if newest is None or event.event_id > newest[0]:
                by_session[event.session_id] = (event.event_id, title)
    if not by_session:
        return tuple(events)
    return tuple(
        attrs.evolve(event, metadata={**event.metadata, "title": by_session[event.session_id][1]})
        if event.session_id in by_session
        else event
        for event in events
    )
