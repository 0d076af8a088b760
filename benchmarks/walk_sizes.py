"""How much of a tree a navigation reads, on generated trees of 1,000 and 10,000 segments.

Not a test (no timing belongs in the suite): run it to print the table quoted in reports::

    python benchmarks/walk_sizes.py
"""

from __future__ import annotations

import random
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests._support.navtree import Seg, build_store, topic_rollup, utc

from tocsearch.navigate import Navigator

TOPICS = ["review", "refactor", "deploy", "cache", "schema", "retry", "login", "docs", "bug"]


def history(count: int, seed: int = 7) -> list[Seg]:
    """``count`` segments over three years; segment 0 (the oldest) holds a unique term, and
    the newest week holds a "kafka" migration that the rollups carry upward."""
    rng = random.Random(seed)
    start = utc(2024, 1, 1)
    span = timedelta(days=3 * 365)
    specs = []
    for index in range(count):
        when = start + span * (index / count) + timedelta(minutes=rng.randint(0, 600))
        words = rng.sample(TOPICS, 3)
        bullets = [f"{word} item {index}" for word in words]
        if index == 0:
            bullets.append("Evaluated the quokkaflux library")
        title = f"{words[0]} session {index}"
        if index == count - 5:
            title = "Kafka migration"
            bullets.append("Moved the event bus to kafka")
        specs.append(Seg(when, title, tuple(bullets)))
    return specs


QUERIES = [
    ("term carried up by rollups", "kafka migration"),
    ("term only in one old segment", "quokkaflux"),
    ("common term with a time hint", "cache last month"),
    ("time only", "what did we do yesterday?"),
]


def main() -> None:
    print("| segments | question | iterations | nodes visited | tokens | found | ms |")
    print("|---:|---|---:|---:|---:|---|---:|")
    for count in (1_000, 10_000):
        store = build_store(history(count), topic_rollup())
        navigator = Navigator(store, now=utc(2027, 1, 1))
        for label, query in QUERIES:
            started = time.perf_counter()
            result = navigator.navigate(query)
            elapsed = (time.perf_counter() - started) * 1000
            print(
                f"| {count} | {label}: `{query}` | {result.iterations} | {result.nodes_visited} "
                f"| {result.tokens_used} | {len(result.segment_ids)} segments | {elapsed:.0f} |"
            )


if __name__ == "__main__":
    main()
