"""Keeping conversations out: the store's ignore list and the ``.tocsearch-ignore`` marker,
honoured by ingest and sync, and a forget that stays forgotten when its sources are read again."""

from __future__ import annotations

import json
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests._support.cli import run
from tests._support.storage_helpers import make_event

from tocsearch.errors import StoreCorrupted
from tocsearch.models import Event
from tocsearch.privacy import (
    ForgetRequest,
    IgnoreList,
    load_ignore_list,
    marked_folder,
    save_ignore_list,
    without_ignored,
)
from tocsearch.privacy._ignore import IGNORE_LIST_NAME, IGNORE_MARKER
from tocsearch.storage import open_store

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def _event(n: int, *, session: str = "s1", cwd: str = "", project: str = "") -> Event:
    metadata = {key: value for key, value in (("cwd", cwd), ("project", project)) if value}
    made = make_event(T0 + timedelta(minutes=n), f"e{n}", session)
    return attrs.evolve(made, metadata=metadata)


def _line(n: int, text: str, *, session: str, cwd: Path) -> str:
    """One Claude Code transcript line: a user message said in ``cwd``."""
    record = {
        "type": "user",
        "uuid": f"u-{session}-{n}",
        "sessionId": session,
        "cwd": str(cwd),
        "timestamp": (T0 + timedelta(minutes=n)).isoformat().replace("+00:00", "Z"),
        "message": {"role": "user", "content": text},
    }
    return json.dumps(record) + "\n"


_texts = st.text(st.characters(codec="utf-8"), min_size=1, max_size=12)
_moments = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(timezone.utc)
)


@given(
    sessions=st.frozensets(_texts, max_size=4),
    projects=st.frozensets(_texts, max_size=4),
    starts=st.lists(_moments, max_size=3),
)
def test_the_ignore_list_round_trips(
    sessions: frozenset[str], projects: frozenset[str], starts: list[datetime]
) -> None:
    """Whatever a list holds, saving and loading it gives the same list."""
    ranges = [(start, start + timedelta(hours=1)) for start in starts]
    ignore = IgnoreList(sessions=sessions, projects=projects, ranges=ranges)
    with tempfile.TemporaryDirectory() as scratch:
        save_ignore_list(scratch, ignore)
        assert load_ignore_list(scratch) == ignore


def test_a_store_without_a_list_ignores_nothing(tmp_path: Path) -> None:
    """No file means an empty list, which is false."""
    assert load_ignore_list(tmp_path) == IgnoreList()
    assert not IgnoreList()


@pytest.mark.parametrize(
    "body",
    [
        "{half",
        "[]",
        '{"version": 2}',
        '{"version": 1, "sessions": "s1"}',
        '{"version": 1, "sessions": [1]}',
        '{"version": 1, "ranges": [["not a time", "2026-01-01T00:00:00+00:00"]]}',
        '{"version": 1, "ranges": [["2026-01-01T00:00:00", "2026-01-02T00:00:00"]]}',
    ],
)
def test_a_damaged_ignore_list_is_refused(tmp_path: Path, body: str) -> None:
    """A list that cannot be read raises StoreCorrupted naming the file, instead of letting
    ignored conversations in."""
    (tmp_path / IGNORE_LIST_NAME).write_text(body, encoding="utf-8")
    with pytest.raises(StoreCorrupted, match=IGNORE_LIST_NAME):
        load_ignore_list(tmp_path)


def test_excludes_by_session_project_event_and_range() -> None:
    """Each kind of entry refuses its events and no other."""
    events = [
        _event(0, session="gone"),
        _event(1, cwd="/home/dev/secret/api"),
        _event(2, project="-home-dev-secret"),
        _event(3),
        _event(10),
    ]
    ignore = IgnoreList(
        sessions={"gone"},
        projects={"/home/dev/secret", "-home-dev-secret"},
        event_ids={events[3].event_id},
        ranges=[(T0 + timedelta(minutes=9), T0 + timedelta(minutes=11))],
    )
    assert [ignore.excludes(event) for event in events] == [True] * 5
    assert not ignore.excludes(_event(4, cwd="/home/dev/secretive"))
    assert not ignore.excludes(_event(11))


def test_with_forgotten_records_what_a_forget_named() -> None:
    """A forget of one session or project lists it; of a range, the range up to now; of
    anything narrower, the events it removed."""
    now = T0 + timedelta(days=1)
    empty = IgnoreList()
    assert empty.with_forgotten(ForgetRequest(session="s1"), [], now).sessions == {"s1"}
    assert empty.with_forgotten(ForgetRequest(project="/w"), [], now).projects == {"/w"}
    ranged = empty.with_forgotten(ForgetRequest(since=T0), [], now)
    assert ranged.ranges == ((T0, now),)
    narrow = empty.with_forgotten(ForgetRequest(session="s1", since=T0), ["evt:1:a"], now)
    assert narrow == IgnoreList(event_ids={"evt:1:a"})


def test_a_marker_keeps_its_folder_and_those_below_out(tmp_path: Path) -> None:
    """A .tocsearch-ignore file marks its folder and every folder below it; events that name
    no folder are kept."""
    secret = tmp_path / "secret"
    (secret / "api").mkdir(parents=True)
    (secret / IGNORE_MARKER).touch()
    (tmp_path / "open").mkdir()
    assert marked_folder(str(secret / "api"))
    assert not marked_folder(str(tmp_path / "open"))
    assert not marked_folder("")
    events = [
        _event(0, cwd=str(secret)),
        _event(1, cwd=str(secret / "api")),
        _event(2, cwd=str(tmp_path / "open")),
        _event(3),
    ]
    kept, skipped = without_ignored(events)
    assert (kept, skipped) == (events[2:], 2)
    kept, skipped = without_ignored(events, IgnoreList(sessions={"s1"}))
    assert (kept, skipped) == ([], 4)


def test_sync_and_ingest_leave_a_marked_project_out(tmp_path: Path) -> None:
    """Transcripts of a folder holding .tocsearch-ignore never reach the store, by sync or by
    ingest, and both say how many events they left out."""
    secret, public = tmp_path / "secret", tmp_path / "public"
    secret.mkdir()
    public.mkdir()
    (secret / IGNORE_MARKER).touch()
    projects = tmp_path / "projects"
    projects.mkdir()
    (projects / "a.jsonl").write_text(
        _line(1, "the private launch codes", session="a", cwd=secret), encoding="utf-8"
    )
    (projects / "b.jsonl").write_text(
        _line(2, "the public roadmap", session="b", cwd=public), encoding="utf-8"
    )
    for argv in (["sync", str(projects)], ["ingest", str(projects / "a.jsonl")]):
        status, out, err = run(*argv, "--store", str(tmp_path / "store"), "--json")
        assert status == 0, err
        assert json.loads(out)["events_ignored"] == 1
    with open_store(tmp_path / "store", readonly=True) as store:
        assert [event.text for event in store.get_events()] == ["the public roadmap"]


def test_a_forgotten_session_stays_out_of_later_syncs(tmp_path: Path) -> None:
    """After forget --session, neither new lines of that session nor a full re-read bring it
    back; other sessions keep syncing."""
    transcript = tmp_path / "projects" / "s1.jsonl"
    other = tmp_path / "projects" / "s2.jsonl"
    transcript.parent.mkdir()
    transcript.write_text(_line(1, "my medical results", session="s1", cwd=tmp_path))
    other.write_text(_line(2, "the build is green", session="s2", cwd=tmp_path))
    store = str(tmp_path / "store")
    assert run("sync", str(transcript.parent), "--store", store)[0] == 0
    status, _, err = run("forget", "--session", "s1", "--store", store)
    assert status == 0, err
    with transcript.open("a", encoding="utf-8") as stream:
        stream.write(_line(3, "more about my results", session="s1", cwd=tmp_path))
    with other.open("a", encoding="utf-8") as stream:
        stream.write(_line(4, "release tagged", session="s2", cwd=tmp_path))
    for extra in ([], ["--full"]):
        status, _, err = run("sync", str(transcript.parent), "--store", store, *extra)
        assert status == 0, err
    with open_store(tmp_path / "store", readonly=True) as reader:
        assert reader.get_session_events("s1") == []
        texts = [event.text for event in reader.get_events()]
    assert texts == ["the build is green", "release tagged"]


_lists = st.builds(
    IgnoreList,
    sessions=st.frozensets(st.sampled_from(["s1", "s2", "s3"])),
    projects=st.frozensets(st.sampled_from(["/w/a", "/w/b"])),
    event_ids=st.frozensets(st.sampled_from(["evt:1:a", "evt:2:b"])),
    ranges=st.lists(st.sampled_from([(T0, T0 + timedelta(hours=1)), (T0, T0 + timedelta(days=1))])),
)


@given(first=_lists, second=_lists)
def test_union_and_difference_behave_as_sets(first: IgnoreList, second: IgnoreList) -> None:
    """The union refuses what either list refuses; taking a list off its union with another
    leaves exactly what the other did not hold."""
    both = first.union(second)
    assert first.union(both) == both
    for event in (_event(0, session="s1"), _event(1, cwd="/w/a/x"), _event(30)):
        assert both.excludes(event) == (first.excludes(event) or second.excludes(event))
    rest = both.difference(second)
    assert not rest.sessions & second.sessions
    assert not set(rest.ranges) & set(second.ranges)
    assert rest.union(second) == both
    assert len(both.entries()) == len(both.sessions | both.projects | both.event_ids) + len(
        both.ranges
    )


def test_the_ignore_command_lists_adds_and_removes(tmp_path: Path) -> None:
    """tocsearch ignore adds entries, lists them, and --remove takes them off; removing one
    that is not there is an error that changes nothing."""
    store = str(tmp_path / "store")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(_line(1, "hello there", session="keep", cwd=tmp_path))
    assert run("ingest", str(transcript), "--store", store)[0] == 0
    status, out, _ = run("ignore", "--store", store)
    assert (status, "the ignore list is empty" in out) == (0, True)
    status, out, err = run(
        "ignore", "--session", "s9", "--since", "2026-01-01", "--until", "2026-01-01",
        "--tz", "UTC", "--store", store,
    )  # fmt: skip
    assert status == 0, err
    assert "what is already stored stays" in out
    new_year = datetime(2026, 1, 1, tzinfo=timezone.utc)
    expected = IgnoreList(sessions={"s9"}, ranges=[(new_year, new_year + timedelta(days=1))])
    assert load_ignore_list(store) == expected
    status, out, _ = run("ignore", "--store", store, "--json")
    assert json.loads(out)["sessions"] == ["s9"]
    status, _, err = run("ignore", "--remove", "--session", "nope", "--store", store)
    assert status == 1
    assert "not on the ignore list, nothing changed: session nope" in err
    assert load_ignore_list(store) == expected
    status, out, err = run("ignore", "--remove", "--session", "s9", "--store", store)
    assert status == 0, err
    assert "sync --full" in out
    assert load_ignore_list(store) == attrs.evolve(expected, sessions=frozenset())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--since", "2026-01-01"], "give both"),
        (["--remove"], "--remove needs the entries"),
        (["--session", " "], "--session must not be empty"),
        (["--event", "nope"], "not an event id"),
        (["--since", "2026-01-05", "--until", "2026-01-01"], "must start before it ends"),
    ],
)
def test_the_ignore_command_refuses_bad_input(
    tmp_path: Path, argv: list[str], message: str
) -> None:
    """Bad options exit 1 with a message, and the list is not written."""
    store = tmp_path / "store"
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(_line(1, "hello there", session="keep", cwd=tmp_path))
    assert run("ingest", str(transcript), "--store", str(store))[0] == 0
    status, _, err = run("ignore", *argv, "--store", str(store))
    assert status == 1
    assert message in err
    assert not (store / IGNORE_LIST_NAME).exists()
