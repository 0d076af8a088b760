"""check_tree finds each kind of broken tree and names the broken record."""

from __future__ import annotations

from collections.abc import Callable

import attrs
import pytest
from tests._support.synthetic import history

from tocsearch.errors import StoreCorrupted
from tocsearch.ingest import TocBuilder, check_tree
from tocsearch.levels import TocLevel
from tocsearch.models import TocBullet
from tocsearch.storage import InMemoryStorage


def built() -> InMemoryStorage:
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(history(120))
    return storage


def drop_grip(storage: InMemoryStorage) -> None:
    segment = storage.get_nodes_by_level(TocLevel.SEGMENT)[0]
    storage.delete_grip(segment.bullets[0].grip_ids[0])


def drop_day(storage: InMemoryStorage) -> None:
    storage.delete_node(storage.get_nodes_by_level(TocLevel.DAY)[0].node_id)


def unown_event(storage: InMemoryStorage) -> None:
    segment = storage.get_nodes_by_level(TocLevel.SEGMENT)[0]
    kept = segment.event_ids[:-1]
    last = storage.get_event(kept[-1]).timestamp
    storage.put_node(attrs.evolve(segment, event_ids=kept, end_time=last))


def widen_week(storage: InMemoryStorage) -> None:
    week = storage.get_nodes_by_level(TocLevel.WEEK)[0]
    storage.put_node(attrs.evolve(week, start_time=week.start_time.replace(hour=0, minute=0)))


def placeholder_title(storage: InMemoryStorage) -> None:
    segment = storage.get_nodes_by_level(TocLevel.SEGMENT)[0]
    storage.put_node(attrs.evolve(segment, title="Conversation segment"))


def foreign_grip(storage: InMemoryStorage) -> None:
    first, second = storage.get_nodes_by_level(TocLevel.SEGMENT)[:2]
    bullets = (TocBullet("borrowed", second.bullets[0].grip_ids), *first.bullets)
    storage.put_node(attrs.evolve(first, bullets=bullets))


def unsorted_children(storage: InMemoryStorage) -> None:
    day = next(d for d in storage.get_nodes_by_level(TocLevel.DAY) if len(d.child_node_ids) > 1)
    storage.put_node(attrs.evolve(day, child_node_ids=tuple(reversed(day.child_node_ids))))


def orphan_grip(storage: InMemoryStorage) -> None:
    segment = storage.get_nodes_by_level(TocLevel.SEGMENT)[0]
    grip = storage.get_grip(segment.bullets[0].grip_ids[0])
    storage.put_grip(attrs.evolve(grip, grip_id=grip.grip_id + "x"))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (drop_grip, "missing grip"),
        (drop_day, "no parent"),
        (unown_event, "belongs to no segment"),
        (widen_week, "children span"),
        (placeholder_title, "placeholder title"),
        (foreign_grip, "names 'toc:segment"),
        (unsorted_children, "out of time order"),
        (orphan_grip, "held by no bullet"),
    ],
)
def test_check_tree_reports_the_first_problem(
    damage: Callable[[InMemoryStorage], None], message: str
) -> None:
    """Each kind of damage raises StoreCorrupted with a message that says what broke."""
    storage = built()
    check_tree(storage)
    damage(storage)
    with pytest.raises(StoreCorrupted, match=message):
        check_tree(storage)


def test_unreferenced_grips_can_be_allowed() -> None:
    """allow_unreferenced_grips accepts grips left behind by an interrupted build."""
    storage = built()
    orphan_grip(storage)
    check_tree(storage, allow_unreferenced_grips=True)


def test_an_empty_store_is_a_valid_tree() -> None:
    """No events, no nodes: nothing to complain about."""
    check_tree(InMemoryStorage())
