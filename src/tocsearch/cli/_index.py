"""``tocsearch index``, ``find`` and ``context``: the search index beside a store."""

from __future__ import annotations

import argparse
from datetime import tzinfo
from typing import TextIO

from tocsearch import _render
from tocsearch._clock import local_time
from tocsearch._conversation import opening_event
from tocsearch.cli._common import (
    CommandError,
    Commands,
    SharedOptions,
    asker_zone,
    emit,
    moment,
    open_store,
    positive,
    zone,
)
from tocsearch.converter import to_dict
from tocsearch.index import SearchIndex, SearchMode, SearchOutcome, relevant_context
from tocsearch.index._choice import EMBEDDER_CHOICES, embedder_named
from tocsearch.index._context import DEFAULT_CONTEXT_BUDGET
from tocsearch.models import event_project
from tocsearch.storage.protocol import Storage
from tocsearch.text import clip

__all__ = ["register"]


def _score(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}")
    return value


def _embedder_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--embedder",
        default="auto",
        metavar="NAME",
        help=f"vector model: {', '.join(EMBEDDER_CHOICES)} (default: auto, the model the "
        "index was built with, else the installed ONNX model, else full-text only)",
    )


def register(commands: Commands, shared: SharedOptions) -> None:
    """Add the ``index``, ``find`` and ``context`` commands."""
    parents = [shared.store, shared.output]
    index = commands.add_parser(
        "index", parents=parents, help="build or update the search index (FTS5 + vectors)"
    )
    index.add_argument("--rebuild", action="store_true", help="drop the index and build it anew")
    index.add_argument(
        "--check", action="store_true", help="verify the index agrees with the store"
    )
    _embedder_option(index)
    index.set_defaults(run=_index)

    find = commands.add_parser(
        "find", parents=parents, help="search the whole history through the index"
    )
    find.add_argument("query", metavar="QUERY")
    find.add_argument(
        "--mode", choices=[mode.value for mode in SearchMode], default="hybrid", help="rankings"
    )
    find.add_argument("--limit", type=positive, default=10)
    find.add_argument("--min-score", type=_score, default=0.0, help="drop hits scoring less")
    find.add_argument("--since", type=moment, help="only hits at or after this moment")
    find.add_argument("--until", type=moment, help="only hits before this moment")
    find.add_argument(
        "--tz", type=zone, help="show times in this zone (default: the system's zone)"
    )
    _embedder_option(find)
    find.set_defaults(run=_find)

    context = commands.add_parser(
        "context",
        parents=parents,
        help="the <relevant-context> block for a conversation's opening message",
    )
    context.add_argument("message", metavar="MESSAGE")
    context.add_argument("--limit", type=positive, default=5)
    context.add_argument("--min-score", type=_score, default=0.25)
    context.add_argument("--budget", type=positive, default=DEFAULT_CONTEXT_BUDGET)
    _embedder_option(context)
    context.set_defaults(run=_context)


def _open_index(args: argparse.Namespace, storage: Storage) -> SearchIndex:
    index = SearchIndex(storage)
    try:
        index.embedder = embedder_named(args.embedder, recorded=index.recorded_embedder())
    except ImportError as error:
        index.close()
        raise CommandError(str(error)) from None
    return index


def _index(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with open_store(args, writing=False) as storage, _open_index(args, storage) as index:
        report = index.rebuild() if args.rebuild else index.sync()
        if args.check:
            index.check()
        events, segments, vectors = index.counts()
        data = {
            **to_dict(report),
            "path": None if index.path is None else str(index.path),
            "events": events,
            "segments": segments,
            "vectors": vectors,
            "embedder": None if index.embedder is None else index.embedder.name,
            "checked": args.check,
        }

        def text() -> str:
            done = "rebuilt" if report.rebuilt else ("updated" if report.changed else "up to date")
            model = data["embedder"] or "none (full-text only)"
            checked = "; agrees with the store" if args.check else ""
            return (
                f"search index {done}: {events:,} events, {segments:,} segments, "
                f"{vectors:,} vectors (embedder: {model}){checked}\n{data['path'] or ''}"
            ).rstrip()

        emit(args, out, data, text)
    return 0


def _render_outcome(outcome: SearchOutcome, storage: Storage, zone: tzinfo) -> str:
    """Each hit with its score, its start on the ``zone`` clock and its title, then its segment
    with the conversation it holds, and the matched text."""
    lines = [f"{len(outcome.hits)} hits ({outcome.mode_used.value})"]
    if outcome.note:
        lines[0] += f": {outcome.note}"
    for hit in outcome.hits:
        lines.append(f"{hit.score:.2f}  {local_time(hit.start_time, zone)}  {clip(hit.title, 60)}")
        first = opening_event(storage, hit.segment_id)
        if first is None:
            lines += _render.place_lines(hit.segment_id, "", "", "")
        else:
            lines += _render.place_lines(
                hit.segment_id,
                event_project(first),
                first.session_id,
                _render.resume_command(first),
            )
        lines.append(f"      {clip(hit.text, 200)}")
    return "\n".join(lines)


def _find(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with open_store(args, writing=False) as storage, _open_index(args, storage) as index:
        outcome = index.search(
            args.query,
            mode=args.mode,
            limit=args.limit,
            min_score=args.min_score,
            start=args.since,
            end=args.until,
        )
        clock = asker_zone(args)
        emit(args, out, outcome.to_dict(), lambda: _render_outcome(outcome, storage, clock))
    return 0


def _context(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with open_store(args, writing=False) as storage, _open_index(args, storage) as index:
        block = relevant_context(
            index,
            args.message,
            limit=args.limit,
            min_score=args.min_score,
            token_budget=args.budget,
        )
        emit(args, out, {"context": block}, lambda: block or "(nothing relevant found)")
    return 0
