"""Summary quality on the bundled example history: statements over tool lines, keywords that
name topics, readable titles, and parents that keep what their children are about."""

from __future__ import annotations

import re

import pytest

from tocsearch.examples import load_example_events
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.search import search_node
from tocsearch.storage import InMemoryStorage

PARENT_LEVELS = (TocLevel.WEEK, TocLevel.MONTH, TocLevel.YEAR)
ALL_LEVELS = (TocLevel.SEGMENT, TocLevel.DAY, *PARENT_LEVELS)
TOOL_NAMES = {"bash", "read", "edit", "write", "grep", "glob", "multiedit", "webfetch"}
CALENDAR = {
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday",
}  # fmt: skip
NOISE = {"errno", "error", "traceback", "gb", "mb", "ms"}
BARE_NUMBER = re.compile(r"[\d.,:\-]+")
PATH = re.compile(r"\S*/\S*|\S+\.(?:py|md|ts|js|sql|sh|yml|yaml|json|toml)\b")


@pytest.fixture(scope="module")
def store() -> InMemoryStorage:
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(load_example_events())
    return storage


def nodes(store: InMemoryStorage, *levels: TocLevel) -> list[TocNode]:
    return [node for level in levels for node in store.get_nodes_by_level(level)]


def searchable(node: TocNode) -> str:
    parts = [node.title, node.summary or "", *node.keywords]
    parts += [bullet.text for bullet in node.bullets]
    return " ".join(parts).casefold()


def test_no_tool_invocation_is_a_bullet_at_week_level_or_above(store: InMemoryStorage) -> None:
    """Weeks, months and the year cite statements, never "[tool: ...]" lines."""
    for node in nodes(store, *PARENT_LEVELS):
        for bullet in node.bullets:
            assert not bullet.text.startswith("[tool:"), (node.node_id, bullet.text)


def test_segments_lead_with_statements(store: InMemoryStorage) -> None:
    """A segment where people said something has no tool line among its bullets."""
    for node in nodes(store, TocLevel.SEGMENT, TocLevel.DAY):
        assert not any(bullet.text.startswith("[tool:") for bullet in node.bullets), node.node_id


def test_keywords_are_never_numbers_tool_names_or_calendar_words(store: InMemoryStorage) -> None:
    """No keyword at any level is a bare number, a tool name, a month or day name, or a
    generic unit or error word."""
    for node in nodes(store, *ALL_LEVELS):
        for keyword in node.keywords:
            folded = keyword.casefold()
            assert not BARE_NUMBER.fullmatch(keyword), (node.node_id, keyword)
            assert folded not in TOOL_NAMES | CALENDAR | NOISE, (node.node_id, keyword)


def test_keywords_keep_the_signal(store: InMemoryStorage) -> None:
    """The example's real topics surface as keywords somewhere in the tree."""
    every = {keyword.casefold() for node in nodes(store, *ALL_LEVELS) for keyword in node.keywords}
    for wanted in ("postgres", "pg_upgrade", "refresh token", "redis", "flaky", "lock_timeout"):
        assert wanted in every, wanted
    assert "priya" in every
    assert any("adr-0021" in searchable(node) for node in nodes(store, TocLevel.SEGMENT))


def test_titles_are_short_phrases_without_paths_or_tool_names(store: InMemoryStorage) -> None:
    """Every title has 3-12 words, no file path and no tool name."""
    for node in nodes(store, *ALL_LEVELS):
        words = node.title.split()
        assert 3 <= len(words) <= 12, (node.node_id, node.title)
        assert not PATH.search(node.title), (node.node_id, node.title)
        assert not {word.strip(",").casefold() for word in words} & {"bash"}, node.title


def test_each_month_names_the_main_topics_of_its_weeks(store: InMemoryStorage) -> None:
    """For every week, one of its top three keywords appears in its month's summary, title or
    keywords, so a search on the month finds what any of its weeks is about."""
    for month in nodes(store, TocLevel.MONTH):
        text = " ".join([month.title, month.summary or "", *month.keywords]).casefold()
        for week_id in month.child_node_ids:
            week = store.get_node(week_id)
            top = [keyword.casefold() for keyword in week.keywords[:3]]
            assert any(keyword in text for keyword in top), (month.node_id, week_id, top)


def test_each_parent_names_the_main_topic_of_every_child(store: InMemoryStorage) -> None:
    """The same coverage holds one level down: each day's top keywords reach its week."""
    for week in nodes(store, TocLevel.WEEK):
        text = " ".join([week.title, week.summary or "", *week.keywords]).casefold()
        for day_id in week.child_node_ids:
            top = [keyword.casefold() for keyword in store.get_node(day_id).keywords[:3]]
            assert any(keyword in text for keyword in top), (week.node_id, day_id, top)


def test_parent_summaries_stay_bounded(store: InMemoryStorage) -> None:
    """Month and year summaries hold at most 600 characters."""
    for node in nodes(store, TocLevel.MONTH, TocLevel.YEAR):
        assert node.summary is not None
        assert len(node.summary) <= 600


def test_postgres_queries_find_the_months_they_happened_in(store: InMemoryStorage) -> None:
    """ "postgres" matches January, when the upgrade was planned and rehearsed, and the
    February lock-timeout incident is found by "postgres lock timeout"."""
    months = {node.node_id: node for node in nodes(store, TocLevel.MONTH)}
    assert search_node(months["toc:month:2026-01"], "postgres")
    lock = search_node(months["toc:month:2026-02"], "postgres lock timeout")
    assert any("lock" in match.text.casefold() for match in lock)


def test_segment_bullets_are_distinct_whole_statements(store: InMemoryStorage) -> None:
    """Segments carry 1-5 bullets, no two alike, and a cut bullet ends after a whole word."""
    events = {event.event_id: event for event in load_example_events()}
    for node in nodes(store, TocLevel.SEGMENT):
        texts = [bullet.text for bullet in node.bullets]
        assert 1 <= len(texts) <= 5
        assert len(set(texts)) == len(texts), node.node_id
        for bullet in node.bullets:
            if not bullet.text.endswith("…"):
                continue
            grip = store.get_grip(bullet.grip_ids[0])
            source = " ".join(events[grip.event_id_end].text.split())
            head = bullet.text[:-1]
            at = source.find(head)
            assert at >= 0, bullet.text
            assert source[at + len(head)] in " ,;:(-", bullet.text


def test_decisions_and_numbers_stay_in_the_bullets(store: InMemoryStorage) -> None:
    """Statements that carry a decision or a measurement are kept as bullets."""
    bullets = " ".join(
        bullet.text for node in nodes(store, TocLevel.SEGMENT) for bullet in node.bullets
    )
    assert "30 seconds is the usual choice" in bullets
    assert "we move to rotating refresh tokens with reuse detection" in bullets
    assert "Read-only window 3 minutes 48 seconds" in bullets
