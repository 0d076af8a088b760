"""Reads of the file stores, opened as writer and as reader: every node and up to 2,000 events
looked up by id, and navigator questions, over the bundled example history.

Run: ``python benchmarks/bench_store_reads.py DIR [--rounds R]`` (default 5 rounds of lookups;
30 questions). The example history is built once into a store of each file backend under
``DIR`` and reused by later runs. Prints one JSON object: for each backend and mode, the
seconds the lookups and the questions took. Run it once per version of the code
(``PYTHONPATH=<checkout>/src``) and alternate the versions. Not a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from tocsearch.examples import EXAMPLE_END, load_example_events
from tocsearch.ingest import TocBuilder
from tocsearch.navigate import Navigator
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.shelf import ShelveStorage
from tocsearch.storage.sqlite import SqliteStorage

_STORES: dict[str, type[JsonDirStorage] | type[ShelveStorage] | type[SqliteStorage]] = {
    "jsondir": JsonDirStorage,
    "shelve": ShelveStorage,
    "sqlite": SqliteStorage,
}
_QUESTIONS = (
    "jwt refresh token",
    "deploy failed",
    "what did we decide about caching",
    "last week database migration",
    "invoice bug",
)


def measure(root: Path, rounds: int) -> dict[str, tuple[float, float]]:
    """Seconds of the lookups and of the questions, by ``<backend>-<rw|ro>``."""
    timings: dict[str, tuple[float, float]] = {}
    for name, store_type in _STORES.items():
        path = root / name
        if not path.exists():
            with store_type(path) as store:
                TocBuilder(store, helpers=0).ingest(load_example_events())
        for readonly in (False, True):
            with store_type(path, readonly=readonly) as store:
                node_ids = list(store.iter_node_ids())
                event_ids = [event.event_id for event in store.get_events()][:2000]
                started = time.perf_counter()
                for _ in range(rounds):
                    for node_id in node_ids:
                        store.find_node(node_id)
                    for event_id in event_ids:
                        store.find_event(event_id)
                lookups = time.perf_counter() - started
                navigator = Navigator(store, now=EXAMPLE_END, token_budget=1500)
                started = time.perf_counter()
                for question in _QUESTIONS * 6:
                    navigator.navigate(question)
                questions = time.perf_counter() - started
            timings[f"{name}-{'ro' if readonly else 'rw'}"] = (lookups, questions)
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="folder for the stores (reused)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.root, args.rounds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
