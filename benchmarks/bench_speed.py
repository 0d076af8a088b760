"""Speed at scale: index-free search, navigation, ingest, opening a store, memory, and planted
needles through the real pipeline.

Usage::

    python benchmarks/bench_speed.py --quick          # CI smoke run, seconds
    python benchmarks/bench_speed.py                  # the full sizes (long: see below)
    python benchmarks/bench_speed.py --sizes 1000,10000 --calls 100 --sections navigate
    python benchmarks/bench_speed.py --sections planted --planted 100000:memory+jsondir

Trees for the ``search`` and ``navigate`` sections are generated directly
(:func:`benchmarks.synth.generate_tree`: segments with bullets, keywords and grips, plus
rollups; no events), so they measure the walk over summaries alone. The ``planted`` section is
what a user gets: generated conversations written as JSONL, imported with the JSONL importer,
built with :class:`tocsearch.TocBuilder` into each backend, with needle terms said once in one
raw turn (checked to be in no title, summary, bullet, keyword or excerpt), asked of the
navigator at the budget users pass and of SQLite FTS5 and a plain grep over the same turns.
Built stores are cached under ``benchmarks/.cache/planted`` (a 1M-event build takes minutes;
``--rebuild`` forces one).

Output is Markdown tables on stdout; the goals are printed beside the measurements and never
asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    # Run as a script: make the repository root importable so `benchmarks` resolves.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._planted_cache import DEFAULT_ROOT
from benchmarks._planted_report import (
    FULL_PLAN,
    QUICK_PLAN,
    PlantedSettings,
    parse_plan,
    render_planted,
    run_planted,
)
from benchmarks._speed import (
    IngestRow,
    NavigateRow,
    OpenRow,
    measure_ingest,
    measure_jsondir_open,
    measure_memory,
    measure_navigate,
    measure_search_children,
    measure_search_node,
    write_tree_batches,
)
from benchmarks._timing import Timing
from tocsearch.errors import InvalidArgument

SECTIONS = ("search", "navigate", "ingest", "open", "memory", "planted")
BACKENDS = ("memory", "jsondir", "shelf")


def _us(timing: Timing) -> str:
    scaled = timing.scaled(1e6)
    return f"{scaled.median:,.1f} µs | {scaled.p99:,.1f} µs"


def _ms(timing: Timing) -> str:
    scaled = timing.scaled(1e3)
    return f"{scaled.median:,.2f} | {scaled.p99:,.2f}"


def machine() -> str:
    """nproc, CPU model, Python version and date, for the head of a results page."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()} "
        f"on {platform.system()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )


def render_search(node: Timing, children: Timing) -> str:
    """The index-free search table."""
    return "\n".join(
        [
            "| operation | calls | median | p99 | goal |",
            "|---|---:|---:|---:|---|",
            f"| search_node (5 bullets, 7 keywords) | {node.calls} | {_us(node)} | <= 20 µs |",
            f"| search_children (100 children) | {children.calls} | {_us(children)} | <= 1 ms |",
        ]
    )


def render_navigate(rows: Sequence[NavigateRow]) -> str:
    """Navigation per tree size, then the baselines as ratios to navigate."""
    lines = [
        "| segments | nodes | calls | navigate ms median | p99 | with time hint ms median | p99 "
        "| nodes visited median (plain / hinted) | planted topic found (plain / hinted) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.segments:,} | {row.nodes:,} | {row.plain.calls} | {_ms(row.plain)} "
            f"| {_ms(row.hinted)} | {row.visited_plain:.0f} / {row.visited_hinted:.0f} "
            f"| {row.topic_found_plain:.0%} / {row.topic_found_hinted:.0%} |"
        )
    lines += [
        "",
        "| segments | flat scan ms (calls) | FTS5 ms | bm25s ms | flat / navigate | "
        "FTS5 / navigate | bm25s / navigate | navigator's share of flat top 10 |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        nav = row.plain.median
        bm25 = "not installed" if row.bm25s is None else f"{row.bm25s.median * 1e3:,.2f}"
        bm25_ratio = "-" if row.bm25s is None else f"{row.bm25s.median / nav:,.2f}x"
        lines.append(
            f"| {row.segments:,} | {row.flat.median * 1e3:,.1f} ({row.flat.calls}) "
            f"| {row.fts5.median * 1e3:,.2f} | {bm25} | {row.flat.median / nav:,.1f}x "
            f"| {row.fts5.median / nav:,.2f}x | {bm25_ratio} | {row.flat_top10_share:.0%} |"
        )
    return "\n".join(lines)


def render_ingest(rows: Sequence[IngestRow]) -> str:
    """Ingest throughput per backend."""
    lines = ["| backend | events | seconds | events/s |", "|---|---:|---:|---:|"]
    for row in rows:
        lines.append(
            f"| {row.backend} | {row.events:,} | {row.seconds:,.2f} "
            f"| {row.events_per_second:,.0f} |"
        )
    return "\n".join(lines)


def render_open(row: OpenRow) -> str:
    """Opening a JSON-dir store."""
    return "\n".join(
        [
            f"JSON-dir store of {row.nodes:,} nodes (written in {row.write_seconds:,.1f} s):",
            "",
            "| step | repeats | ms median | ms p99 | goal |",
            "|---|---:|---:|---:|---|",
            f"| open (read-only) | {row.open_only.calls} | {_ms(row.open_only)} | |",
            f"| open + first navigate | {row.first_plain.calls} | {_ms(row.first_plain)} "
            "| <= 200 ms |",
            f"| open + first navigate with a time hint | {row.first_hinted.calls} "
            f"| {_ms(row.first_hinted)} | <= 200 ms |",
        ]
    )


def memory_in_child(segments: int) -> list[tuple[str, int, int]]:
    """Resident bytes for a tree of ``segments`` segments, stored batch by batch in a fresh
    interpreter (another one generates the tree, so its garbage is not counted), with segments
    packed (the default) and kept as objects: ``(mode, bytes, nodes)`` rows."""
    rows: list[tuple[str, int, int]] = []
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "tree.pickle"
        subprocess.run(
            [sys.executable, __file__, "--memory-tree", str(segments), str(path)], check=True
        )
        modes: tuple[tuple[str, list[str]], ...] = (
            ("default (segments packed)", []),
            ("pack_segments=False", ["--memory-objects"]),
        )
        for mode, flags in modes:
            output = subprocess.run(
                [sys.executable, __file__, "--memory-child", str(path), *flags],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            added, nodes = json.loads(output)
            rows.append((mode, int(added), int(nodes)))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Run the chosen sections and print their tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes for a smoke run")
    parser.add_argument("--sizes", help="tree sizes in segments, comma-separated")
    parser.add_argument("--calls", type=int, help="navigate calls per size and variant")
    parser.add_argument("--scan-calls", type=int, help="flat-scan calls per size")
    parser.add_argument("--search-calls", type=int, help="search_node/search_children calls")
    parser.add_argument("--ingest-events", type=int, help="events ingested per backend")
    parser.add_argument("--open-nodes", type=int, help="nodes in the JSON-dir store to open")
    parser.add_argument("--memory-segments", type=int, help="segments for the memory measure")
    parser.add_argument(
        "--sections", default=",".join(SECTIONS), help=f"any of {', '.join(SECTIONS)}"
    )
    parser.add_argument(
        "--planted",
        help=f"history sizes and backends, SIZE:BACKEND+BACKEND,... (default {FULL_PLAN}; "
        f"quick {QUICK_PLAN})",
    )
    parser.add_argument("--needles", type=int, help="needles of each size (1, 2, 3 terms)")
    parser.add_argument(
        "--token-budget", type=int, default=1000, help="the navigator's token_budget (1000)"
    )
    parser.add_argument("--grep-calls", type=int, help="needles asked of the plain grep")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_ROOT, help="built stores")
    parser.add_argument("--rebuild", action="store_true", help="rebuild cached stores")
    parser.add_argument(
        "--built-by",
        metavar="DIGEST",
        help="read the cached stores earlier sources built (their source digest)",
    )
    parser.add_argument("--memory-tree", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--memory-child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--memory-objects", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_tree is not None:
        write_tree_batches(int(args.memory_tree[0]), Path(args.memory_tree[1]))
        return 0
    if args.memory_child is not None:
        print(json.dumps(measure_memory(args.memory_child, pack_segments=not args.memory_objects)))
        return 0
    quick = args.quick
    sizes = [
        int(s)
        for s in (args.sizes or ("1000,10000" if quick else "1000,10000,100000,300000")).split(",")
    ]
    calls = args.calls or (30 if quick else 100)
    scan_calls = args.scan_calls or (5 if quick else 20)
    search_calls = args.search_calls or (2000 if quick else 20000)
    ingest_events = args.ingest_events or (800 if quick else 20000)
    open_nodes = args.open_nodes or (3000 if quick else 100000)
    memory_segments = args.memory_segments or (5000 if quick else 100000)
    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown sections {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    try:
        plan = parse_plan(args.planted or (QUICK_PLAN if quick else FULL_PLAN))
    except InvalidArgument as error:
        parser.error(str(error))
    if args.token_budget < 1:
        parser.error(f"--token-budget must be at least 1, got {args.token_budget}")
    planted = PlantedSettings(
        cache=args.cache_dir,
        needles_per_size=args.needles or (5 if quick else 20),
        token_budget=args.token_budget,
        grep_calls=args.grep_calls or (6 if quick else 12),
        rebuild=args.rebuild,
        built_by=args.built_by,
    )

    print(f"# tocsearch speed ({'quick' if quick else 'full'})\n\nMachine: {machine()}\n")
    if "search" in sections:
        node = measure_search_node(search_calls)
        children = measure_search_children(max(100, search_calls // 20))
        print("## Index-free search\n\n" + render_search(node, children) + "\n", flush=True)
    if "navigate" in sections:
        rows = []
        for size in sizes:
            rows.append(measure_navigate(size, calls, scan_calls=scan_calls))
            print(f"<!-- navigate {size:,} segments done -->", file=sys.stderr, flush=True)
        print("## Navigation (in memory)\n\n" + render_navigate(rows) + "\n", flush=True)
    if "ingest" in sections:
        rows_ingest = measure_ingest(ingest_events, BACKENDS)
        print("## Ingest through TocBuilder\n\n" + render_ingest(rows_ingest) + "\n", flush=True)
    if "open" in sections:
        opened = measure_jsondir_open(open_nodes, 3 if quick else 5)
        print("## Opening a JSON-dir store\n\n" + render_open(opened) + "\n", flush=True)
    if "memory" in sections:
        lines = [
            "## Resident memory (InMemoryStorage, nodes and grips)\n",
            f"{memory_segments:,} segments, 5 grips per segment, stored 500 segments at a time:\n",
            "| store | nodes | MiB | MiB per 100k segments | bytes per segment |",
            "|---|---:|---:|---:|---:|",
        ]
        for mode, added, nodes in memory_in_child(memory_segments):
            lines.append(
                f"| {mode} | {nodes:,} | {added / 2**20:,.0f} "
                f"| {added * 100_000 / memory_segments / 2**20:,.0f} "
                f"| {added / memory_segments:,.0f} |"
            )
        print("\n".join(lines) + "\n", flush=True)
    if "planted" in sections:
        planted_rows, notes = run_planted(plan, planted)
        print(
            "## Planted needles through the real pipeline\n\n"
            + render_planted(planted_rows, notes)
            + "\n",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
