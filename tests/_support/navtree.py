"""Build strict TOC trees from a short spec of segments, for navigation tests.

Each segment spec becomes a segment node with bullets and grip ids; its day, week, month and
year are made from :func:`tocsearch.ids.calendar_node_id` (a week belongs to the month of its
Thursday) and linked through ``child_node_ids``. Upper nodes get a lossy rollup: by default their
title names the period and their bullets are the titles of their first children, so a term that
appears only in a segment's bullets is mentioned nowhere above it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta, timezone

import attrs

from tocsearch import ids
from tocsearch.digest import TermDigest
from tocsearch.ingest._digests import day_digest, segment_positions, union_digest
from tocsearch.levels import TocLevel
from tocsearch.models import TocBullet, TocNode
from tocsearch.storage import InMemoryStorage

UPPER_LEVELS = (TocLevel.DAY, TocLevel.WEEK, TocLevel.MONTH, TocLevel.YEAR)

Rollup = Callable[[TocLevel, str, Sequence[TocNode]], tuple[str, tuple[str, ...]]]


@attrs.frozen
class Seg:
    """A segment to build: when it starts, its title and bullets, and optional keywords."""

    start: datetime
    title: str
    bullets: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    minutes: int = 30
    summary: str | None = None


def utc(year: int, month: int, day: int, hour: int = 12, minute: int = 0) -> datetime:
    """A UTC datetime."""
    return datetime(year, month, day, hour, minute, tzinfo=timezone.utc)


def default_rollup(
    level: TocLevel, node_id: str, children: Sequence[TocNode]
) -> tuple[str, tuple[str, ...]]:
    """Title: the period; bullets: the titles of the first five children (lossy, like a real
    rollup that keeps a handful of bullets)."""
    return node_id.split(":", 2)[2], tuple(child.title for child in children[:5])


def segment_node(spec: Seg, index: int) -> TocNode:
    """The segment node of a spec; ``index`` makes its id unique."""
    suffix = f"s{index}"
    bullets = tuple(
        TocBullet(text, (ids.grip_id(spec.start + timedelta(seconds=n), f"{suffix}b{n}"),))
        for n, text in enumerate(spec.bullets)
    )
    return TocNode(
        node_id=ids.segment_id(spec.start.date(), suffix),
        level=TocLevel.SEGMENT,
        title=spec.title,
        start_time=spec.start,
        end_time=spec.start + timedelta(minutes=spec.minutes),
        bullets=bullets,
        keywords=spec.keywords,
        summary=spec.summary,
    )


def build_nodes(
    specs: Iterable[Seg],
    rollup: Rollup = default_rollup,
    *,
    digests: bool = False,
    segment_digests: bool = False,
) -> dict[str, TocNode]:
    """Every node of the strict tree over ``specs``, by id; with ``digests``, days carry the
    term digest of their segments and higher nodes the union of their children's, as the
    builder makes them. With ``segment_digests`` too, segments carry the digest of their texts
    the builder gives them, and so days of at least eight segments their segment maps."""
    nodes: dict[str, TocNode] = {}
    level_nodes: list[TocNode] = []
    for index, spec in enumerate(specs):
        node = segment_node(spec, index)
        if segment_digests:
            made = TermDigest.from_positions(segment_positions((), node), sized=True)
            node = attrs.evolve(node, digest=made.to_text())
        nodes[node.node_id] = node
        level_nodes.append(node)
    for level in UPPER_LEVELS:
        groups: dict[str, list[TocNode]] = {}
        for child in level_nodes:
            groups.setdefault(ids.calendar_node_id(level, child.start_time), []).append(child)
        level_nodes = []
        for node_id, children in sorted(groups.items()):
            children.sort(key=lambda child: (child.start_time, child.node_id))
            title, bullets = rollup(level, node_id, children)
            node = TocNode(
                node_id=node_id,
                level=level,
                title=title,
                start_time=min(child.start_time for child in children),
                end_time=max(child.end_time for child in children),
                bullets=tuple(TocBullet(text) for text in bullets),
                child_node_ids=tuple(child.node_id for child in children),
            )
            if digests:
                digest = (
                    day_digest((), children) if level is TocLevel.DAY else union_digest(children)
                )
                node = attrs.evolve(node, digest=digest)
            nodes[node_id] = node
            level_nodes.append(node)
    return nodes


def build_store(
    specs: Iterable[Seg],
    rollup: Rollup = default_rollup,
    *,
    digests: bool = False,
    segment_digests: bool = False,
) -> InMemoryStorage:
    """An in-memory store holding the tree over ``specs`` (see :func:`build_nodes`)."""
    storage = InMemoryStorage()
    nodes = build_nodes(specs, rollup, digests=digests, segment_digests=segment_digests)
    storage.put_nodes(nodes.values())
    return storage


def check_strict(nodes: dict[str, TocNode]) -> None:
    """Assert the tree is strict: every node but a year has exactly one parent, the one its id
    names, and that parent lists it."""
    for node in nodes.values():
        if node.level is TocLevel.YEAR:
            continue
        if node.level is TocLevel.SEGMENT:
            expected = ids.day_id(node.start_time.date())
        else:
            parent = ids.parent_id(node.node_id)
            assert parent is not None
            expected = parent
        assert node.node_id in nodes[expected].child_node_ids, (node.node_id, expected)


def topic_rollup(overrides: Mapping[str, tuple[str, tuple[str, ...]]] | None = None) -> Rollup:
    """A rollup whose bullets carry the children's topics upward (a day lists its segments'
    titles, a week its days' bullets, ...), five at most; ``overrides`` fixes the title and
    bullets of chosen node ids."""
    fixed = dict(overrides or {})

    def rollup(
        level: TocLevel, node_id: str, children: Sequence[TocNode]
    ) -> tuple[str, tuple[str, ...]]:
        if node_id in fixed:
            return fixed[node_id]
        texts: dict[str, None] = {}
        for child in children:
            if level is TocLevel.DAY:
                texts.setdefault(child.title, None)
            else:
                for bullet in child.bullets:
                    texts.setdefault(bullet.text, None)
        return node_id.split(":", 2)[2], tuple(texts)[:5]

    return rollup
