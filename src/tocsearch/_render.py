"""Plain-text renderings of results for people at a terminal: aligned, short, no JSON."""

from __future__ import annotations

import shlex
import textwrap
from collections.abc import Mapping, Sequence
from datetime import timezone, tzinfo

from tocsearch._clock import local_time
from tocsearch.models import Event, TocNode, event_project, is_tool_result
from tocsearch.navigate import NavigationResult
from tocsearch.service import (
    BrowseTocResponse,
    ExpandEventResponse,
    ExpandGripResponse,
    SearchChildrenResponse,
    SearchNodeResponse,
)
from tocsearch.text import ELLIPSIS, clip

__all__ = [
    "TOOL_OUTPUT_SHOWN",
    "browse_page",
    "conversation_header",
    "event_context",
    "expansion",
    "ingest_report",
    "navigation",
    "node",
    "node_list",
    "node_matches",
    "place_lines",
    "resume_command",
    "search_results",
]

_WIDTH = 100


def _table(rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell; the last column is left ragged."""
    if not rows:
        return ""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines)


def ingest_report(totals: Mapping[str, int]) -> str:
    rows = [[key.replace("_", " "), f"{value:,}"] for key, value in totals.items()]
    return _table(rows)


def node_matches(response: SearchNodeResponse) -> str:
    if not response.matches:
        return f"No matches in {response.node_id}."
    rows = [["score", "field", "text"]]
    for match in response.matches:
        grips = f"  [{', '.join(match.grip_ids)}]" if match.grip_ids else ""
        rows.append([f"{match.score:.2f}", match.field.value, clip(match.text, 80) + grips])
    more = "\n(more matches were cut by the limit or budget)" if response.has_more else ""
    return f"{response.node_id} ({response.level.value})\n{_table(rows)}{more}"


def search_results(
    response: SearchChildrenResponse,
    *,
    zone: tzinfo = timezone.utc,
    resume: Mapping[str, str] | None = None,
) -> str:
    """Each result with its score, local start and title, then its id and conversation (project
    and session, for a segment), the command that resumes it (``resume``, by node id, for a
    Claude Code session) and its best matches."""
    if not response.results:
        return "No matching nodes."
    blocks = []
    for result in response.results:
        when = local_time(result.start_time, zone)
        lines = [f"{result.relevance_score:.2f}  {when}  {clip(result.title, 70)}"]
        command = (resume or {}).get(result.node_id, "")
        lines += place_lines(result.node_id, result.project, result.session_id, command)
        for match in result.matches[:3]:
            grips = f"  [{', '.join(match.grip_ids)}]" if match.grip_ids else ""
            lines.append(f"      {match.field.value:<8}  {clip(match.text, 70)}{grips}")
        blocks.append("\n".join(lines))
    more = (
        "\n(more nodes matched; raise --limit or --budget to see them)" if response.has_more else ""
    )
    return "\n".join(blocks) + more


def place_lines(node_id: str, project: str, session_id: str, resume: str) -> list[str]:
    """Where a result was said, indented under its heading: its id with its project and
    session (when known), then the command that resumes it (when there is one)."""
    place = [node_id]
    if project:
        place.append(f"project {project}")
    if session_id:
        place.append(f"session {session_id}")
    lines = ["      " + "  ".join(place)]
    if resume:
        lines.append(f"      resume: {resume}")
    return lines


def navigation(result: NavigationResult, *, verbose: bool) -> str:
    return result.to_markdown(include_path=verbose)


TOOL_OUTPUT_SHOWN = 600
"""Characters of one tool output shown by ``expand`` unless ``--full`` asks for all of it."""


def _event_line(event: Event, marker: str, zone: tzinfo, full: bool) -> str:
    when = f"{event.timestamp.astimezone(zone):%Y-%m-%d %H:%M}"
    speaker = event.metadata.get("speaker") or event.role.value
    text = " ".join(event.text.split())
    if not full and is_tool_result(event) and len(text) > TOOL_OUTPUT_SHOWN:
        hidden = len(text) - TOOL_OUTPUT_SHOWN
        text = (
            f"{text[:TOOL_OUTPUT_SHOWN]}{ELLIPSIS} "
            f"[tool output clipped: {hidden:,} more characters; --full shows all]"
        )
    body = textwrap.fill(text, width=_WIDTH, initial_indent="", subsequent_indent=" " * 30)
    return f"{marker} {when}  {speaker:<10}  {body}"


def conversation_header(event: Event) -> list[str]:
    """Where an event was said: its project, session, branch and subagent, and for a Claude
    Code session the command that resumes it."""
    metadata = event.metadata
    place = event_project(event)
    parts = [f"project {place}"] if place else []
    parts.append(f"session {event.session_id}")
    if metadata.get("git_branch"):
        parts.append(f"branch {metadata['git_branch']}")
    if metadata.get("agent_id"):
        parts.append(f"subagent {metadata['agent_id']}")
    lines = ["  ".join(parts)]
    resume = resume_command(event)
    if resume:
        lines.append(f"resume: {resume}")
    return lines


def resume_command(event: Event) -> str:
    """The shell command that resumes the Claude Code session an event was said in (from its
    working directory when the transcript recorded one), or empty for other sources."""
    if event.agent != "claude-code":
        return ""
    resume = f"claude -r {shlex.quote(event.session_id)}"
    cwd = event.metadata.get("cwd")
    return f"cd {shlex.quote(cwd)} && {resume}" if cwd else resume


def expansion(
    response: ExpandGripResponse, *, zone: tzinfo = timezone.utc, full: bool = False
) -> str:
    grip = response.grip
    lines = [f"{grip.grip_id}  (segment {grip.toc_node_id or '-'})"]
    if response.excerpt_events:
        lines += conversation_header(response.excerpt_events[0])
    lines += [f"excerpt: {grip.excerpt}", ""]
    lines += [_event_line(event, " ", zone, full) for event in response.events_before]
    lines += [_event_line(event, ">", zone, full) for event in response.excerpt_events]
    lines += [_event_line(event, " ", zone, full) for event in response.events_after]
    return "\n".join(lines)


def event_context(
    response: ExpandEventResponse, *, zone: tzinfo = timezone.utc, full: bool = False
) -> str:
    lines = [response.event.event_id, *conversation_header(response.event), ""]
    lines += [_event_line(event, " ", zone, full) for event in response.events_before]
    lines.append(_event_line(response.event, ">", zone, full))
    lines += [_event_line(event, " ", zone, full) for event in response.events_after]
    return "\n".join(lines)


def node(toc_node: TocNode) -> str:
    lines = [
        f"{toc_node.node_id}  ({toc_node.level.value}, version {toc_node.version})",
        f"title:    {toc_node.title}",
        f"span:     {toc_node.start_time:%Y-%m-%d %H:%M} .. {toc_node.end_time:%Y-%m-%d %H:%M} UTC",
    ]
    if toc_node.keywords:
        lines.append(f"keywords: {', '.join(toc_node.keywords)}")
    if toc_node.summary:
        lines.append(
            "summary:  " + textwrap.fill(toc_node.summary, _WIDTH, subsequent_indent=" " * 10)
        )
    if toc_node.bullets:
        lines.append("bullets:")
        for bullet in toc_node.bullets:
            grips = f"  [{', '.join(bullet.grip_ids)}]" if bullet.grip_ids else ""
            lines.append(f"  - {bullet.text}{grips}")
    if toc_node.child_node_ids:
        lines.append(
            f"children: {len(toc_node.child_node_ids)} (tocsearch browse {toc_node.node_id})"
        )
    if toc_node.event_ids:
        lines.append(f"events:   {len(toc_node.event_ids)}")
    return "\n".join(lines)


def node_list(nodes: Sequence[TocNode]) -> str:
    if not nodes:
        return "The store is empty."
    rows = [
        [
            toc_node.node_id,
            f"{toc_node.start_time:%Y-%m-%d}..{toc_node.end_time:%Y-%m-%d}",
            clip(toc_node.title, 60),
        ]
        for toc_node in nodes
    ]
    return _table(rows)


def browse_page(page: BrowseTocResponse) -> str:
    text = node_list(page.children) if page.children else "No children."
    if page.continuation_token:
        parent = page.parent_id or '""'
        text += f"\n(more: tocsearch browse {parent} --token {page.continuation_token})"
    return text
