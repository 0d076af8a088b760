"""Planted needles through the search index: the navigator teleported by the index, and the
index's own search, beside the index-free navigator and a bare FTS5 table, in one run.

Run: ``python benchmarks/bench_planted_index.py [--cache-dir DIR] [--events N] [--built-by DIGEST]
[--per-size K] [--budget T]`` (defaults: ``benchmarks/.cache/planted``, 100000 events, the SQLite
store built by the current sources, 20 needles of each size, 1,000 tokens).

The history, its needles (one to three made-up terms said once, in one raw turn) and the SQLite
store come from the planted-needle cache (:mod:`benchmarks._planted_cache`: generated, imported
and built through the real pipeline); ``--built-by`` reads the store earlier sources built
instead, when building anew takes too long. The index is the sidecar
:class:`tocsearch.index.SearchIndex` builds beside a store (full text only), kept in the
history's cache folder and built on first use, its build timed and the time kept beside it
(``index-<store>.json``), so a run that reuses the index prints how long it took to build.
Each needle is asked bare, as the planted-needle section of ``bench_speed.py`` asks it:

- ``navigator``: ``Navigator(token_budget=T).navigate(terms)``, as without an index;
- ``navigator + index``: the same with ``seeder=IndexSeeder(index)`` (the teleport);
- ``index search``: ``SearchIndex.search(terms, mode="fts", limit=10)``;
- ``FTS5``: the bare baseline table over the same turns, first ten turns.

A method finds a needle when its answer cites the planted turn. Medians of one timed call per
needle after three warm-up calls. Not a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._lexical import Fts5Index
from benchmarks._planted import pick_needles
from benchmarks._planted_cache import (
    DEFAULT_ROOT,
    BuiltStore,
    History,
    ensure_fts5,
    ensure_history,
    ensure_store,
    open_built,
    write_json,
)
from benchmarks._planted_measure import FOUND_WITHIN, Found, _Cited, _found
from tocsearch.errors import InvalidArgument
from tocsearch.index import IndexSeeder, SearchIndex, SearchMode
from tocsearch.navigate import Navigator
from tocsearch.storage.protocol import Storage


def _row(name: str, found: Found, baseline: Found) -> str:
    median = found.timing.median * 1000
    ratio = found.timing.median / baseline.timing.median if baseline.timing.median else 0.0
    terms = " / ".join(f"{found.by_terms[size]:.0%}" for size in sorted(found.by_terms))
    return (
        f"| {name} | {found.recall:.0%} | {terms} | {median:.2f} "
        f"| {found.timing.p90 * 1000:.2f} | {ratio:.1f}x |"
    )


def _cached_index(storage: Storage, history: History, store: BuiltStore) -> tuple[SearchIndex, str]:
    """The history's index of ``store``, built and synced now when it is not complete, and a
    line saying how long opening and syncing took and, for a reused index, how long its build
    took when it was built (kept in its meta file, written once the build is complete)."""
    path = history.directory / f"index-{store.path.name}.sqlite"
    meta = path.with_suffix(".json")
    started = time.perf_counter()
    index = SearchIndex(storage, path)
    report = index.sync()
    seconds = time.perf_counter() - started
    opened = f"index: {seconds:.1f} s to open and sync"
    if report.events_added:
        built_at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        write_json(meta, {"seconds": seconds, "events": report.events_added, "built_at": built_at})
        return index, f"{opened} (built now, {report.events_added:,} events)"
    if not meta.is_file():
        return index, f"{opened} (reused; built before its build time was kept)"
    built = json.loads(meta.read_text(encoding="utf-8"))
    return index, (
        f"{opened} (reused; built in {float(built['seconds']):.1f} s, "
        f"{int(built['events']):,} events, at {built['built_at']})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument(
        "--built-by",
        metavar="DIGEST",
        help="read the SQLite store earlier sources built (their source digest)",
    )
    parser.add_argument("--needles", type=int, default=20, help="planted per size (history)")
    parser.add_argument("--per-size", type=int, default=20, help="asked per size")
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args(argv)
    history = ensure_history(
        args.cache_dir, args.events, needles_per_size=args.needles, seed=args.seed
    )
    try:
        store = ensure_store(history, "sqlite", built_by=args.built_by)
    except InvalidArgument as error:
        parser.error(str(error))
    needles = list(pick_needles(history.needles, set(store.leaked), args.per_size))
    if not needles:
        parser.error(f"every needle of {history.directory} leaked into the tree")
    fts_path, _ = ensure_fts5(history)
    storage = open_built(store)
    try:
        index, index_line = _cached_index(storage, history, store)
        plain = _Cited(Navigator(storage, now=history.end, token_budget=args.budget))
        teleported = _Cited(
            Navigator(storage, now=history.end, token_budget=args.budget, seeder=IndexSeeder(index))
        )

        def searched(query: str) -> set[str]:
            outcome = index.search(query, mode=SearchMode.FTS, limit=FOUND_WITHIN)
            return {event_id for hit in outcome.hits for event_id in hit.event_ids}

        # Alternated per method, so load on a shared machine slows them alike.
        navigator_found = _found(needles, lambda n: plain(n.query))
        teleport_found = _found(needles, lambda n: teleported(n.query))
        search_found = _found(needles, lambda n: searched(n.query))
    finally:
        storage.close()
    baseline = Fts5Index.open(fts_path)
    try:
        fts_found = _found(needles, lambda n: set(baseline.search(n.query, FOUND_WITHIN)))
    finally:
        baseline.close()
    print(
        f"{store.events:,} events, {store.nodes:,} nodes; SQLite store built at "
        f"{store.commit} ({store.built_at}); {len(needles)} needles "
        f"({len(store.leaked)} of {len(history.needles)} leaked into the tree and left out); "
        f"budget {args.budget} tokens"
    )
    print(index_line)
    print()
    print("| method | found | found by 1 / 2 / 3 terms | median ms | p90 ms | median / FTS5 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, found in [
        ("navigator", navigator_found),
        ("navigator + index (teleport)", teleport_found),
        ("index search (fts)", search_found),
        ("FTS5 table, first 10 turns", fts_found),
    ]:
        print(_row(name, found, fts_found))
    goal = 3 * fts_found.timing.median * 1000 + 1
    print()
    print(
        f"goal for navigator + index: found 100%, median <= 3 x FTS5 + 1 ms = {goal:.2f} ms; "
        f"measured {teleport_found.recall:.0%}, {teleport_found.timing.median * 1000:.2f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
