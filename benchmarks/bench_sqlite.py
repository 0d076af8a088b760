"""SqliteStorage beside the other backends and a bare FTS5 index, in one run.

1. **Writes**: the events of a generated history, imported with the JSONL importer, put in
   batches of 1,000 into a fresh store of each backend (SqliteStorage indexes every text in
   FTS5 in the same transactions), beside building a bare FTS5 table over the same texts;
   then each needle's terms asked of the SQLite store's own ``events_fts`` and of the bare
   table (median of one warm query). Medians of ``--repeats`` runs, backends alternating.
2. **Through the pipeline**: the same history built by TocBuilder into memory, JSON-dir and
   SQLite stores (cached under ``benchmarks/.cache/planted/`` with the planted benchmark).
3. **Open and first answer**: a fresh process opens the built store read-only and answers one
   planted-needle question with the Navigator (plain, with the month it was said in, and,
   where the planted-needle benchmark has built the store's search index, teleported by it:
   the store and the index opened, the index's state read, then the question); beside it, a
   fresh process opens the bare FTS5 index and runs the same terms, and one runs the terms
   against the store's own ``events_fts``. Only the open and the answer are timed, not the
   interpreter's start.

Run: ``python benchmarks/bench_sqlite.py [--write-events 100000] [--open-events 1000000]``.
Prints Markdown tables. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import gc
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._backends import open_backend
from benchmarks._lexical import Fts5Index, fts5_query
from benchmarks._planted_cache import (
    DEFAULT_ROOT,
    BuiltStore,
    History,
    ensure_fts5,
    ensure_history,
    ensure_store,
    latest_built,
)
from tocsearch.converter import from_json
from tocsearch.importers import load_jsonl
from tocsearch.index import IndexSeeder, SearchIndex
from tocsearch.models import Event
from tocsearch.navigate import Navigator
from tocsearch.storage.sqlite import SqliteStorage

_BATCH = 1_000
_NEEDLES_PER_SIZE = 20
_SEED = 29


def _median(values: Sequence[float]) -> float:
    return statistics.median(values)


# -- 1. writes -----------------------------------------------------------------------------------
_OWN_FTS_SQL = (
    "SELECT events.event_id FROM events_fts JOIN events ON events.id = events_fts.rowid"
    " WHERE events_fts MATCH ? ORDER BY rank LIMIT 10"
)


def _query_ms(search: Callable[[str], object], queries: Sequence[str]) -> float:
    """The median milliseconds of one query, each query run once before it is timed."""
    times = []
    for query in queries:
        search(query)
        started = time.perf_counter()
        search(query)
        times.append((time.perf_counter() - started) * 1e3)
    return _median(times)


def _put_all(
    backend: str, events: Sequence[Event], queries: Sequence[str]
) -> tuple[float, float | None]:
    """Seconds to put ``events`` in batches into a fresh store of ``backend``, and for a SQLite
    store the median milliseconds of one of ``queries`` against its own ``events_fts``."""
    with tempfile.TemporaryDirectory(dir=DEFAULT_ROOT) as scratch:
        store = open_backend(backend, Path(scratch) / "store")
        try:
            gc.collect()
            started = time.perf_counter()
            for start in range(0, len(events), _BATCH):
                store.put_events(events[start : start + _BATCH])
            seconds = time.perf_counter() - started
            if not isinstance(store, SqliteStorage):
                return seconds, None
            connection = sqlite3.connect(f"{store.database_path.as_uri()}?mode=ro", uri=True)
            try:
                return seconds, _query_ms(
                    lambda query: connection.execute(_OWN_FTS_SQL, (fts5_query(query),)).fetchall(),
                    queries,
                )
            finally:
                connection.close()
        finally:
            store.close()


def _fts5_build(events: Sequence[Event], queries: Sequence[str]) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(dir=DEFAULT_ROOT) as scratch:
        gc.collect()
        started = time.perf_counter()
        index = Fts5Index(
            ((event.event_id, event.text) for event in events), path=Path(scratch) / "fts.sqlite"
        )
        seconds = time.perf_counter() - started
        try:
            return seconds, _query_ms(lambda query: index.search(query, 10), queries)
        finally:
            index.close()


def measure_writes(
    events: Sequence[Event], backends: Sequence[str], repeats: int, queries: Sequence[str]
) -> str:
    """Events per second for batched puts into each backend and for a bare FTS5 build; for the
    SQLite store and the bare table, the median time of one of ``queries`` (each needle's
    terms) once written."""
    runs: dict[str, list[float]] = {name: [] for name in [*backends, "bare FTS5 table"]}
    asked: dict[str, list[float]] = {}
    for _ in range(repeats):
        for backend in backends:
            seconds, query_ms = _put_all(backend, events, queries)
            runs[backend].append(seconds)
            if query_ms is not None:
                asked.setdefault(backend, []).append(query_ms)
            print(f"<!-- writes: {backend} {seconds:.1f} s -->", file=sys.stderr)
        seconds, query_ms = _fts5_build(events, queries)
        runs["bare FTS5 table"].append(seconds)
        asked.setdefault("bare FTS5 table", []).append(query_ms)
    base = _median(runs["bare FTS5 table"])
    base_query = _median(asked["bare FTS5 table"])
    lines = [
        f"Batched puts of {len(events):,} events ({_BATCH:,} per batch), medians of {repeats}; "
        f"then one needle's terms (of {len(queries)}, OR-ed, best 10 by BM25) against the "
        "written full-text table:",
        "",
        "| store | seconds | events/s | time / bare FTS5 build | query µs | / bare FTS5 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, times in runs.items():
        middle = _median(times)
        query = " | "
        if name in asked:
            query = f"{_median(asked[name]) * 1e3:.1f} | {_median(asked[name]) / base_query:.2f}"
        lines.append(
            f"| {name} | {middle:.2f} | {len(events) / middle:,.0f} | {middle / base:.2f} "
            f"| {query} |"
        )
    return "\n".join(lines)


# -- 2. through the pipeline ---------------------------------------------------------------------
def measure_builds(
    history: History, backends: Sequence[str], *, any_build: bool = False
) -> tuple[str, dict[str, BuiltStore]]:
    """The TocBuilder build of ``history`` into each backend (cached builds are reported as
    they were measured when built; with ``any_build``, a build by other sources is reused)."""
    built = {}
    for backend in backends:
        print(f"<!-- build: {history.events:,} into {backend} -->", file=sys.stderr, flush=True)
        latest = latest_built(history, backend) if any_build else None
        built[backend] = latest if latest is not None else ensure_store(history, backend)
    lines = [
        "| backend | events | nodes | build s | events/s | built |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for backend, store in built.items():
        cached = " (cached)" if store.reused else ""
        lines.append(
            f"| {backend} | {store.events:,} | {store.nodes:,} | {store.build_seconds:.1f} "
            f"| {store.events_per_second:,.0f} | {store.built_at}, {store.commit}{cached} |"
        )
    return "\n".join(lines), built


# -- 3. open and first answer, each in a fresh process ---------------------------------------
def _child(kind: str, path: str, query: str, now: str, index_path: str = "") -> None:
    """Run in a fresh process: open, answer once, print the seconds of each as JSON."""
    started = time.perf_counter()
    answer: Callable[[], object]
    if kind == "teleport":
        storage = open_backend("sqlite", Path(path), readonly=True)
        search_index = SearchIndex(storage, index_path)
        opened = time.perf_counter()
        teleported = Navigator(
            storage, now=datetime.fromisoformat(now), seeder=IndexSeeder(search_index)
        )

        def answer() -> object:
            return teleported.navigate(query)

    elif kind == "fts5":
        index = Fts5Index.open(Path(path))
        opened = time.perf_counter()

        def answer() -> object:
            return index.search(query, 10)

    elif kind == "events_fts":
        store = SqliteStorage(path, readonly=True)
        connection = sqlite3.connect(f"{store.database_path.as_uri()}?mode=ro", uri=True)
        opened = time.perf_counter()

        def answer() -> object:
            rows = connection.execute(
                "SELECT events.record FROM events_fts JOIN events ON events.id = events_fts.rowid"
                " WHERE events_fts MATCH ? ORDER BY rank LIMIT 10",
                (fts5_query(query),),
            ).fetchall()
            return [from_json(record, Event) for (record,) in rows]

    else:
        storage = open_backend(kind, Path(path), readonly=True)
        opened = time.perf_counter()
        navigator = Navigator(storage, now=datetime.fromisoformat(now))

        def answer() -> object:
            return navigator.navigate(query)

    answer()
    answered = time.perf_counter()
    print(json.dumps({"open": opened - started, "first": answered - started}))


def _fresh(
    kind: str, path: Path, query: str, now: datetime, index: Path | None = None
) -> tuple[float, float]:
    extra = [] if index is None else ["--child-index", str(index)]
    done = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(path), query, now.isoformat(), *extra],
        capture_output=True,
        text=True,
        check=True,
    )
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    return float(facts["open"]), float(facts["first"])


def measure_open(history: History, stores: dict[str, BuiltStore], fts: Path, repeats: int) -> str:
    """Open + first answer for each store and for the bare FTS5 index, fresh processes,
    alternating, ``repeats`` times; medians in milliseconds."""
    leaked = {event_id for store in stores.values() for event_id in store.leaked}
    needle = next(n for n in history.needles if n.event_id not in leaked)
    subjects: list[tuple[str, str, Path, str, Path | None]] = []
    for backend, store in stores.items():
        if backend == "memory":
            continue
        where = store.path / "store"
        subjects.append((f"{backend}: navigate", backend, where, needle.query, None))
        subjects.append(
            (f"{backend}: navigate, month hint", backend, where, needle.hinted_query, None)
        )
        if backend == "sqlite":
            # The sidecar index bench_planted_index.py builds beside this store (built there,
            # once: building it here would time minutes of indexing, not an open).
            index = history.directory / f"index-{store.path.name}.sqlite"
            if index.is_file():
                subjects.append(
                    ("sqlite: navigate with its index", "teleport", where, needle.query, index)
                )
            subjects.append(("sqlite: its events_fts", "events_fts", where, needle.query, None))
    subjects.append(("bare FTS5 index", "fts5", fts, needle.query, None))
    opens: dict[str, list[float]] = {label: [] for label, *_ in subjects}
    firsts: dict[str, list[float]] = {label: [] for label, *_ in subjects}
    for _ in range(repeats):
        for label, kind, path, query, index_file in subjects:
            opened, first = _fresh(kind, path, query, history.end, index_file)
            opens[label].append(opened)
            firsts[label].append(first)
    base = _median(firsts["bare FTS5 index"])
    lines = [
        f"{history.events:,} events; question: the needle `{needle.query}` (said once); "
        f"fresh process per run, medians of {repeats}:",
        "",
        "| what | open ms | open + first answer ms | max ms | / bare FTS5 |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, *_ in subjects:
        first = _median(firsts[label])
        lines.append(
            f"| {label} | {_median(opens[label]) * 1e3:,.2f} | {first * 1e3:,.2f} "
            f"| {max(firsts[label]) * 1e3:,.2f} | {first / base:,.1f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write-events", type=int, default=100_000)
    parser.add_argument("--write-backends", nargs="+", default=["memory", "jsondir", "sqlite"])
    parser.add_argument("--build-events", type=int, default=100_000)
    parser.add_argument("--build-backends", nargs="+", default=["memory", "jsondir", "sqlite"])
    parser.add_argument("--open-events", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--open-repeats", type=int, default=7)
    parser.add_argument("--skip", nargs="*", default=[], choices=["writes", "builds", "open"])
    parser.add_argument(
        "--any-build",
        action="store_true",
        help="reuse the latest build of a store even if other sources made it",
    )
    parser.add_argument("--child", nargs=4, metavar=("KIND", "PATH", "QUERY", "NOW"))
    parser.add_argument("--child-index", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, path, query, now = args.child
        _child(kind, path, query, now, index_path=args.child_index)
        return 0
    DEFAULT_ROOT.mkdir(parents=True, exist_ok=True)
    small = ensure_history(
        DEFAULT_ROOT, args.build_events, needles_per_size=_NEEDLES_PER_SIZE, seed=_SEED
    )
    if "writes" not in args.skip:
        written = ensure_history(
            DEFAULT_ROOT, args.write_events, needles_per_size=_NEEDLES_PER_SIZE, seed=_SEED
        )
        events = load_jsonl(written.jsonl).events
        queries = [needle.query for needle in written.needles]
        print("### Writes\n")
        print(measure_writes(events, args.write_backends, args.repeats, queries), flush=True)
    if "builds" not in args.skip:
        print("\n### Through TocBuilder\n")
        table, built = measure_builds(small, args.build_backends, any_build=args.any_build)
        print(table, flush=True)
        fts, _ = ensure_fts5(small)
        print()
        print(measure_open(small, built, fts, args.open_repeats), flush=True)
    if "open" not in args.skip:
        large = ensure_history(
            DEFAULT_ROOT, args.open_events, needles_per_size=_NEEDLES_PER_SIZE, seed=_SEED
        )
        print(f"\n### {large.events:,} events\n")
        table, built = measure_builds(large, ["sqlite"], any_build=args.any_build)
        print(table)
        fts, _ = ensure_fts5(large)
        print()
        print(measure_open(large, built, fts, args.open_repeats), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
