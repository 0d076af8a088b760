"""The measurements of ``bench_speed.py``, one function per question, each returning rows.

Every figure is a median and a p99 over many calls (see :func:`benchmarks._timing.time_calls`);
baselines run in the same process on the same segment texts, and are reported as ratios to the
navigator so that the numbers travel between machines better than absolute times do.
"""

from __future__ import annotations

import gc
import pickle
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import attrs

from benchmarks._backends import open_backend
from benchmarks._lexical import Bm25sIndex, Fts5Index, bm25s_available
from benchmarks._timing import Timing, resident_bytes, time_calls, timing_of
from benchmarks.synth import SyntheticTree, Vocabulary, generate_events, generate_tree
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import Grip, TocNode
from tocsearch.navigate import Navigator
from tocsearch.search import rank_nodes, search_children, search_node
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.memory import InMemoryStorage
from tocsearch.storage.protocol import Storage

__all__ = [
    "IngestRow",
    "NavigateRow",
    "OpenRow",
    "measure_ingest",
    "measure_jsondir_open",
    "measure_memory",
    "measure_navigate",
    "measure_search_children",
    "measure_search_node",
    "segment_text",
    "write_tree_batches",
]


def segment_text(node: TocNode) -> str:
    """The text every lexical method indexes for a segment: title, summary and keywords."""
    return " ".join((node.title, node.summary_text, " ".join(node.keywords)))


def _vocabulary_queries(words: Vocabulary, count: int, seed: int) -> list[str]:
    # Mid-frequency words: common enough to match many nodes, rare enough to be a real topic.
    rng = random.Random(seed)
    pool = words.words[50:2000]
    return [" ".join(rng.sample(pool, 2)) for _ in range(count)]


def measure_search_node(calls: int, *, seed: int = 3) -> Timing:
    """search_node on typical segments (5 bullets, 7 keywords) with 2-3 word queries."""
    tree = generate_tree(200, years=1, seed=seed)
    words = Vocabulary()
    queries = _vocabulary_queries(words, 50, seed) + [topic.query for topic in tree.topics]
    rng = random.Random(seed)
    pairs = [(rng.choice(tree.segments), rng.choice(queries)) for _ in range(calls)]
    return time_calls(lambda pair: search_node(pair[0], pair[1]), pairs)


def measure_search_children(calls: int, *, children: int = 100, seed: int = 5) -> Timing:
    """search_children over one day node holding ``children`` segments, in memory."""
    tree = generate_tree(children, days=1, seed=seed)
    storage = InMemoryStorage()
    storage.put_nodes([*tree.segments, *tree.rollups])
    day = next(node for node in tree.rollups if node.level is TocLevel.DAY)
    queries = _vocabulary_queries(Vocabulary(), 40, seed) + [t.query for t in tree.topics]
    arguments = [queries[index % len(queries)] for index in range(calls)]
    return time_calls(
        lambda query: search_children(storage, day.node_id, query, child_level=TocLevel.SEGMENT),
        arguments,
    )


def load_tree(tree: SyntheticTree, storage: Storage) -> None:
    """Store every node, grip and event of a synthetic tree."""
    storage.put_nodes([*tree.segments, *tree.rollups])
    storage.put_grips(tree.grips)
    if tree.events:
        storage.put_events(tree.events)


@attrs.frozen
class NavigateRow:
    """Navigation on one tree size, with the baselines measured on the same segments."""

    segments: int
    nodes: int
    build_seconds: float
    plain: Timing
    hinted: Timing
    visited_plain: float
    visited_hinted: float
    topic_found_plain: float
    topic_found_hinted: float
    flat: Timing
    fts5: Timing
    bm25s: Timing | None
    flat_top10_share: float


def _median(values: Sequence[float]) -> float:
    return timing_of(values).median if values else 0.0


def _navigate_queries(tree: SyntheticTree, count: int, seed: int) -> tuple[list[str], list[str]]:
    """Plain and time-hinted queries: every planted topic, then vocabulary pairs."""
    rng = random.Random(seed)
    plain = [topic.query for topic in tree.topics]
    hinted = [f"{t.query} {tree.month_hint(t.places[0])}" for t in tree.topics]
    vocabulary = _vocabulary_queries(Vocabulary(), max(0, count - len(plain)), seed)
    plain.extend(vocabulary)
    for query in vocabulary:
        hinted.append(f"{query} {tree.month_hint(rng.randrange(len(tree.segments)))}")
    return plain[:count], hinted[:count]


def measure_navigate(
    segments: int, calls: int, *, scan_calls: int, years: int = 5, seed: int = 11
) -> NavigateRow:
    """Navigate with and without a time hint on a tree of ``segments`` segments (in memory),
    and the flat scan, FTS5 and bm25s over the same segment texts."""
    started = time.perf_counter()
    tree = generate_tree(segments, years=years, seed=seed)
    storage = InMemoryStorage()
    load_tree(tree, storage)
    build_seconds = time.perf_counter() - started
    plain, hinted = _navigate_queries(tree, calls, seed)
    navigator = Navigator(storage, now=tree.end)

    visited: dict[str, int] = {}
    evidence: dict[str, set[str]] = {}

    def navigate(query: str) -> None:
        result = navigator.navigate(query)
        visited[query] = result.nodes_visited
        evidence[query] = {item.segment_id for item in result.evidence}

    plain_timing = time_calls(navigate, plain)
    hinted_timing = time_calls(navigate, hinted)

    def found(queries: Sequence[str]) -> float:
        hits = 0
        for topic, query in zip(tree.topics, queries, strict=False):
            planted = {tree.segments[place].node_id for place in topic.places}
            hits += bool(planted & evidence[query])
        return hits / min(len(tree.topics), len(queries))

    all_segments = list(tree.segments)
    scan_queries = plain[:scan_calls]
    flat_top: dict[str, list[str]] = {}

    def flat(query: str) -> None:
        ranked = rank_nodes(all_segments, query, limit=10)
        flat_top[query] = [result.node_id for result in ranked.results]

    flat_timing = time_calls(flat, scan_queries, warmup=0)
    shares = [len(set(top) & evidence[query]) / len(top) for query, top in flat_top.items() if top]
    documents = [(node.node_id, segment_text(node)) for node in tree.segments]
    fts = Fts5Index(documents)
    fts_timing = time_calls(lambda query: fts.search(query, 10), plain)
    fts.close()
    bm25_timing: Timing | None = None
    if bm25s_available():
        index = Bm25sIndex(documents)
        bm25_timing = time_calls(lambda query: index.search(query, 10), plain)
    return NavigateRow(
        segments=segments,
        nodes=storage.count_nodes(),
        build_seconds=build_seconds,
        plain=plain_timing,
        hinted=hinted_timing,
        visited_plain=_median([visited[q] for q in plain]),
        visited_hinted=_median([visited[q] for q in hinted]),
        topic_found_plain=found(plain),
        topic_found_hinted=found(hinted),
        flat=flat_timing,
        fts5=fts_timing,
        bm25s=bm25_timing,
        flat_top10_share=sum(shares) / len(shares) if shares else 0.0,
    )


@attrs.frozen
class IngestRow:
    """Events per second through TocBuilder into one backend."""

    backend: str
    events: int
    seconds: float

    @property
    def events_per_second(self) -> float:
        """Throughput."""
        return self.events / self.seconds if self.seconds else 0.0


def measure_ingest(events: int, backends: Sequence[str]) -> list[IngestRow]:
    """Ingest the same generated events into a fresh store of each backend, timed end to end
    (segmenting, summarising, grips, rollups and writes)."""
    per_session = 10
    sessions_per_day = 8
    days = max(1, events // (per_session * sessions_per_day))
    generated, _ = generate_events(
        days=days, sessions_per_day=sessions_per_day, events_per_session=per_session
    )
    rows: list[IngestRow] = []
    for backend in backends:
        with tempfile.TemporaryDirectory() as directory:
            storage = open_backend(backend, Path(directory) / "store")
            try:
                started = time.perf_counter()
                TocBuilder(storage).ingest(generated)
                seconds = time.perf_counter() - started
            finally:
                storage.close()
        rows.append(IngestRow(backend, len(generated), seconds))
    return rows


@attrs.frozen
class OpenRow:
    """Opening a JSON-dir store, then answering one navigation query, from a fresh open."""

    nodes: int
    write_seconds: float
    open_only: Timing
    first_plain: Timing
    first_hinted: Timing


def measure_jsondir_open(nodes: int, repeats: int, *, seed: int = 13) -> OpenRow:
    """Write a tree of about ``nodes`` nodes to a JSON-dir store, then time opening it
    read-only: alone, followed by a first topical query, and followed by a first topical query
    with a time hint. All in this process, so the operating system's file cache is warm. Grips
    are not written: navigation reads nodes only, and one file per grip would multiply the
    set-up time five-fold."""
    rollups = 2200  # about what 5 years of days, weeks, months and years add
    tree = generate_tree(max(1, nodes - rollups), seed=seed)
    topic = tree.topics[0]
    plain = topic.query
    hinted = f"{topic.query} {tree.month_hint(topic.places[0])}"
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "store"
        started = time.perf_counter()
        with JsonDirStorage(path) as storage:
            storage.put_nodes([*tree.segments, *tree.rollups])
            stored = storage.count_nodes()
        write_seconds = time.perf_counter() - started

        def first_answer(query: str | None) -> float:
            started = time.perf_counter()
            store = JsonDirStorage(path, readonly=True)
            try:
                if query is not None:
                    Navigator(store, now=tree.end).navigate(query)
                return time.perf_counter() - started
            finally:
                store.close()

        opens = [first_answer(None) for _ in range(repeats)]
        plains = [first_answer(plain) for _ in range(repeats)]
        hinteds = [first_answer(hinted) for _ in range(repeats)]
    return OpenRow(stored, write_seconds, timing_of(opens), timing_of(plains), timing_of(hinteds))


def write_tree_batches(segments: int, path: Path, *, batch: int = 500) -> None:
    """Generate a tree of ``segments`` segments and pickle it to ``path`` in batches: ``batch``
    segments with their grips at a time, then the rollups, as a builder hands them to a
    store."""
    tree = generate_tree(segments)
    grips: dict[str | None, list[Grip]] = {}
    for grip in tree.grips:
        grips.setdefault(grip.toc_node_id, []).append(grip)
    with path.open("wb") as handle:
        for first in range(0, len(tree.segments), batch):
            nodes = tree.segments[first : first + batch]
            held = [grip for node in nodes for grip in grips.get(node.node_id, ())]
            pickle.dump((nodes, held), handle, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.dump((tree.rollups, grips.get(None, [])), handle, protocol=pickle.HIGHEST_PROTOCOL)


def measure_memory(path: Path, *, pack_segments: bool = True) -> tuple[int, int]:
    """Resident bytes added by an InMemoryStorage holding the tree that
    :func:`write_tree_batches` wrote to ``path``, put one batch at a time (what a build keeps,
    not what it made on the way), and the number of nodes. Run it in a fresh process: freed
    memory is not always returned. ``pack_segments`` is the store's option of that name."""
    gc.collect()
    before = resident_bytes()
    storage = InMemoryStorage(pack_segments=pack_segments)
    with path.open("rb") as handle:
        while True:
            try:
                nodes, grips = pickle.load(handle)
            except EOFError:
                break
            storage.put_nodes(nodes)
            storage.put_grips(grips)
            del nodes, grips
    gc.collect()
    return resident_bytes() - before, storage.count_nodes()
