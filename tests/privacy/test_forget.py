"""Forget and redact over every backend: the text leaves events, nodes, grips, digests, the
search index and the store's files; everything else is still there; the tree stays whole."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.records import files_text, records_text
from tests._support.storage_helpers import BACKENDS, FILE_BACKENDS, open_store
from tests.strategies import planted_histories, planted_token

from tocsearch import NavigateRequest, SearchChildrenRequest, TocBuilder
from tocsearch.converter import to_json
from tocsearch.errors import InvalidArgument, StoreCorrupted, StoreReadOnly
from tocsearch.examples import load_example_events
from tocsearch.index import IndexingStorage, SearchIndex
from tocsearch.ingest import check_tree
from tocsearch.levels import TocLevel
from tocsearch.models import Event
from tocsearch.privacy import (
    ForgetRequest,
    RedactRequest,
    finish_pending,
    forget_events,
    load_ignore_list,
    redact_events,
)
from tocsearch.privacy._forget import REDACTED
from tocsearch.privacy._pending import PENDING_NAME
from tocsearch.service import MemoryService
from tocsearch.storage.protocol import Storage

EXAMPLE = load_example_events()
VICTIM = "2026-02-17-incident-2291"
# Words only the victim session says (checked below), and one every backend must still hold.
VICTIM_WORDS = ("mitigate", "exhausted")
KEPT_WORD = "leeway"


@pytest.fixture(params=BACKENDS)
def built(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Storage, Path]]:
    """The example history built into a store of each backend."""
    store = open_store(request.param, tmp_path / "store")
    TocBuilder(store).ingest(EXAMPLE)
    yield store, tmp_path / "store"
    store.close()


def test_the_victim_words_are_the_victim_sessions_alone() -> None:
    """The words the tests look for are said in the victim session and nowhere else."""
    for word in VICTIM_WORDS:
        sayers = {event.session_id for event in EXAMPLE if word in event.text.lower()}
        assert sayers == {VICTIM}


def test_forget_a_session_removes_its_text_everywhere(built: tuple[Storage, Path]) -> None:
    """After forgetting a session no record or file holds its words; the rest stays."""
    store, directory = built
    assert all(word in records_text(store).lower() for word in VICTIM_WORDS)
    report = forget_events(store, ForgetRequest(session=VICTIM))
    assert report.events == sum(event.session_id == VICTIM for event in EXAMPLE)
    assert report.sessions == (VICTIM,)
    assert store.get_session_events(VICTIM) == []
    assert store.count_events() == len(EXAMPLE) - report.events
    text = records_text(store).lower()
    assert not any(word in text for word in VICTIM_WORDS)
    assert KEPT_WORD in text
    store.check()
    check_tree(store)
    if directory.exists():
        raw = files_text(directory).lower()
        assert not any(word.encode() in raw for word in VICTIM_WORDS)
        assert KEPT_WORD.encode() in raw


def test_redact_replaces_matches_in_records_and_files(built: tuple[Storage, Path]) -> None:
    """A redacted pattern is found nowhere afterwards; the marker stands in its place."""
    store, directory = built
    report = redact_events(store, RedactRequest(pattern=re.compile("deploy\\w*", re.I)))
    assert report.events > 0
    assert report.matches >= report.events
    text = records_text(store)
    assert not re.search("deploy", text, re.I)
    assert REDACTED in text
    assert store.count_events() == len(EXAMPLE)
    store.check()
    check_tree(store)
    if directory.exists():
        assert not re.search(b"deploy", files_text(directory), re.I)


def test_a_dry_run_changes_nothing(built: tuple[Storage, Path]) -> None:
    """A dry run reports what would go and leaves every record as it was."""
    store, _ = built
    before = records_text(store)
    report = forget_events(store, ForgetRequest(session=VICTIM, dry_run=True))
    assert report.dry_run
    assert report.events > 0
    assert report.days_rebuilt == 0
    redacted = redact_events(store, RedactRequest(pattern="deploy", dry_run=True))
    assert redacted.dry_run
    assert redacted.events > 0
    assert records_text(store) == before


@pytest.mark.parametrize("backend", FILE_BACKENDS)
def test_forget_survives_reopening_and_is_put_on_the_ignore_list(
    backend: str, tmp_path: Path
) -> None:
    """A file store reopened after a forget no longer holds the session, and its ignore list
    refuses the session from then on."""
    with open_store(backend, tmp_path / "store") as store:
        TocBuilder(store).ingest(EXAMPLE)
        forget_events(store, ForgetRequest(session=VICTIM))
    with open_store(backend, tmp_path / "store", readonly=True) as store:
        assert store.get_session_events(VICTIM) == []
        check_tree(store)
    assert VICTIM in load_ignore_list(tmp_path / "store").sessions


def test_forget_keep_out_false_leaves_the_ignore_list_alone(tmp_path: Path) -> None:
    """With keep_out=False nothing is added to the ignore list."""
    with open_store("sqlite", tmp_path / "store") as store:
        TocBuilder(store).ingest(EXAMPLE)
        report = forget_events(store, ForgetRequest(session=VICTIM, keep_out=False))
    assert not report.ignored
    assert not load_ignore_list(tmp_path / "store")


def test_forget_a_time_range_empties_days_and_removes_their_nodes() -> None:
    """Forgetting every event of a month removes its day, week and month nodes too."""
    store = open_store("memory", None)
    TocBuilder(store).ingest(EXAMPLE)
    start = datetime(2026, 2, 1, tzinfo=timezone.utc)
    end = datetime(2026, 3, 1, tzinfo=timezone.utc)
    forget_events(store, ForgetRequest(since=start, until=end))
    assert store.get_events(start, end) == []
    assert store.find_node("toc:month:2026-02") is None
    assert not [
        node
        for node in store.get_nodes_by_level(TocLevel.DAY, start, end)
        if start <= node.start_time < end
    ]
    check_tree(store)


def test_forget_everything_leaves_an_empty_tree() -> None:
    """Forgetting all events leaves no node, grip or event."""
    store = open_store("memory", None)
    TocBuilder(store).ingest(EXAMPLE)
    forget_events(store, ForgetRequest(since=datetime(2000, 1, 1, tzinfo=timezone.utc)))
    assert (store.count_events(), store.count_nodes(), list(store.iter_grip_ids())) == (0, 0, [])


def test_forget_a_project_matches_exactly() -> None:
    """A project is matched by its whole name, never by a part of it."""
    store = open_store("memory", None)
    TocBuilder(store).ingest(EXAMPLE)
    project = EXAMPLE[0].metadata["project"]
    assert forget_events(store, ForgetRequest(project=project[:-1])).events == 0
    report = forget_events(store, ForgetRequest(project=project))
    assert report.events == sum(e.metadata.get("project") == project for e in EXAMPLE)
    assert report.projects == (project,)


def test_requests_refuse_what_cannot_be_meant() -> None:
    """An empty request, a backwards range, a bad id or a pattern matching nothing are refused."""
    with pytest.raises(InvalidArgument, match="say what to forget"):
        ForgetRequest()
    later = datetime(2026, 2, 1, tzinfo=timezone.utc)
    with pytest.raises(InvalidArgument, match="must be before"):
        ForgetRequest(since=later, until=later - timedelta(days=1))
    with pytest.raises(InvalidArgument):
        ForgetRequest(event_ids=("not an id",))
    with pytest.raises(InvalidArgument, match="naive"):
        ForgetRequest(since=datetime(2026, 1, 1))
    with pytest.raises(InvalidArgument, match="empty string"):
        RedactRequest(pattern="x*")
    with pytest.raises(InvalidArgument, match="not a regular expression"):
        RedactRequest(pattern="(")


def test_a_read_only_store_refuses_a_forget(tmp_path: Path) -> None:
    """Forgetting through a read-only store raises and removes nothing."""
    with open_store("jsondir", tmp_path / "store") as store:
        TocBuilder(store).ingest(EXAMPLE)
    with (
        open_store("jsondir", tmp_path / "store", readonly=True) as store,
        pytest.raises(StoreReadOnly),
    ):
        forget_events(store, ForgetRequest(session=VICTIM))
    with (
        open_store("jsondir", tmp_path / "store", readonly=True) as store,
        pytest.raises(StoreReadOnly),
    ):
        redact_events(store, RedactRequest(pattern="(?i)multi-az"))
    # Nothing was noted for a later writer to carry out, and nothing was put on the list.
    assert sorted(path.name for path in (tmp_path / "store").glob(".tocsearch-*")) == []
    with open_store("jsondir", tmp_path / "store") as store:
        assert not finish_pending(store)
        assert store.get_session_events(VICTIM)
        assert "multi-az" in records_text(store).lower()


@pytest.mark.parametrize("backend", ["jsondir", "sqlite"])
def test_the_search_index_loses_the_text_too(backend: str, tmp_path: Path) -> None:
    """A store's sidecar search index no longer finds forgotten or redacted text and still
    agrees with the store."""
    with open_store(backend, tmp_path / "store") as store:
        TocBuilder(store).ingest(EXAMPLE)
        with SearchIndex(store) as index:
            index.sync()
            assert index.fts_events("mitigate", limit=5)
        forget_events(store, ForgetRequest(session=VICTIM))
        redact_events(store, RedactRequest(pattern="(?i)leeway"))
        with SearchIndex(store) as index:
            assert index.is_current()
            index.check()
            victims = {event.event_id for event in EXAMPLE if event.session_id == VICTIM}
            assert not victims & set(index.fts_events("mitigate", limit=50))
            assert index.fts_events("leeway", limit=5) == []
            assert index.fts_events("token", limit=5)
            rows = index._connection.execute("SELECT * FROM segments_fts").fetchall()
            assert "exhausted" not in str(rows).lower()


def test_the_service_forgets_through_its_index() -> None:
    """MemoryService.forget and .redact keep the service's index in step."""
    store = open_store("memory", None)
    TocBuilder(store).ingest(EXAMPLE)
    index = SearchIndex(store)
    index.sync()
    service = MemoryService(store, index=index)
    assert service.forget(ForgetRequest(session=VICTIM)).events > 0
    assert service.redact(RedactRequest(pattern="(?i)leeway")).events > 0
    index.check()
    assert index.fts_events("leeway", limit=5) == []
    assert not searched(service, "exhausted")


def searched(service: MemoryService, query: str) -> list[str]:
    """The nodes of every level whose texts match ``query``."""
    return [
        result.node_id
        for level in TocLevel
        for result in service.search_children(
            SearchChildrenRequest(query=query, child_level=level, limit=50)
        ).results
    ]


def _every_text(store: Storage, index: SearchIndex) -> str:
    return records_text(store) + "\n".join(
        map(str, index._connection.execute("SELECT * FROM events_fts").fetchall())
    )


@settings(max_examples=scaled(25))
@given(
    history=planted_histories(),
    data=st.data(),
    backend=st.sampled_from(["memory", "sqlite", "jsondir"]),
)
def test_after_forget_or_redact_of_any_subset_nothing_finds_it(
    history: list[Event], data: st.DataObject, backend: str
) -> None:
    """Forget (by events, session or time range) or redact any subset of a history: no
    record, search or index query holds a removed word, every other word is still found, and
    the tree passes check_tree."""
    with tempfile.TemporaryDirectory() as scratch:
        store = open_store(backend, Path(scratch) / "store")
        try:
            TocBuilder(store).ingest(history)
            index = SearchIndex(store)
            index.sync()
            # A file store's sidecar index is found and updated by the forget itself; an
            # in-memory index is written through, as MemoryService does.
            target: Storage = IndexingStorage(index) if backend == "memory" else store
            tokens = {event.event_id: planted_token(n) for n, event in enumerate(history)}
            how = data.draw(st.sampled_from(["events", "session", "range", "redact"]))
            if how == "events":
                chosen = data.draw(st.sets(st.sampled_from(sorted(tokens)), min_size=1))
                forget_events(target, ForgetRequest(event_ids=tuple(chosen)))
            elif how == "session":
                session = data.draw(st.sampled_from(["s1", "s2", "s3"]))
                chosen = {e.event_id for e in history if e.session_id == session}
                forget_events(target, ForgetRequest(session=session))
            elif how == "range":
                first = data.draw(st.integers(0, len(history) - 1))
                last = data.draw(st.integers(first, len(history) - 1))
                since = history[first].timestamp
                until = history[last].timestamp + timedelta(milliseconds=1)
                chosen = {e.event_id for e in history if since <= e.timestamp < until}
                forget_events(target, ForgetRequest(since=since, until=until))
            else:
                chosen = data.draw(st.sets(st.sampled_from(sorted(tokens)), min_size=1))
                alternatives = "|".join(sorted(tokens[event_id] for event_id in chosen))
                redact_events(target, RedactRequest(pattern=f"\\b(?:{alternatives})\\b"))
            index.sync()
            index.check()
            store.check()
            check_tree(store)
            text = _every_text(store, index)
            service = MemoryService(store, index=index)
            for event_id, token in tokens.items():
                if event_id in chosen:
                    assert token not in text
                    assert index.fts_events(token, limit=3) == []
                    assert not searched(service, token)
                    navigated = service.navigate(NavigateRequest(query=token))
                    # The result repeats the query; what it found must not hold the word.
                    assert not any(token in to_json(item) for item in navigated.evidence)
                else:
                    assert store.get_event(event_id).text.count(token) == 1
                    assert index.fts_events(token, limit=3) == [event_id]
            if how == "redact":
                assert store.count_events() == len(history)
            else:
                assert store.count_events() == len(history) - len(chosen)
            index.close()
            if backend != "memory":
                raw = files_text(Path(scratch) / "store")
                for event_id in chosen:
                    assert tokens[event_id].encode() not in raw
        finally:
            store.close()


def test_a_damaged_index_stops_a_forget_before_it_starts(tmp_path: Path) -> None:
    """A sidecar index that cannot be read fails the forget with a clear error, before any
    event is removed or any note is left for a later writer."""
    with open_store("sqlite", tmp_path / "store") as store:
        TocBuilder(store).ingest(EXAMPLE)
        with SearchIndex(store) as index:
            index.sync()
            path = index.path
        assert path is not None
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        path.write_bytes(b"not a database" * 100)
        with pytest.raises(StoreCorrupted, match="rebuild"):
            forget_events(store, ForgetRequest(session=VICTIM, keep_out=False))
        assert store.get_session_events(VICTIM)
    assert not (tmp_path / "store" / PENDING_NAME).exists()
