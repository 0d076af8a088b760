"""The tocsearch command, driven through its real entry point for every subcommand."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._support.budget import evidence_items
from tests._support.cli import Terminal, run
from tocsearch import cited_event_ids
from tocsearch.cli import main
from tocsearch.examples import example_path

JWT_QUESTION = "what did we decide about JWT refresh tokens last week"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A JSON-directory store holding the bundled example history."""
    path = tmp_path_factory.mktemp("store")
    status, out, err = run("ingest", str(example_path()), "--store", str(path), "--json")
    assert status == 0, err
    report = json.loads(out)
    assert report["events_added"] >= 300
    return path


def test_ingest_is_idempotent(store: Path) -> None:
    """Ingesting the same file again adds nothing and skips every event as a duplicate."""
    status, out, err = run("ingest", str(example_path()), "--store", str(store), "--json")
    assert status == 0, err
    report = json.loads(out)
    assert report["events_added"] == 0
    assert report["duplicates_skipped"] >= 300


def test_root_lists_years(store: Path) -> None:
    """root lists the year nodes, as text and as JSON."""
    status, out, _ = run("root", "--store", str(store))
    assert status == 0
    assert "toc:year:2026" in out
    status, out, _ = run("root", "--store", str(store), "--json")
    assert [node["node_id"] for node in json.loads(out)] == ["toc:year:2026"]


def test_browse_show_and_search_walk_the_tree(store: Path) -> None:
    """browse lists children, show prints a node, search finds nodes at a level and inside one."""
    status, out, _ = run("browse", "toc:year:2026", "--store", str(store), "--json")
    assert status == 0
    months = [child["node_id"] for child in json.loads(out)["children"]]
    assert months[0].startswith("toc:month:2026-")
    status, out, _ = run("show", months[0], "--store", str(store))
    assert status == 0
    assert months[0] in out
    assert "title:" in out
    status, out, _ = run(
        "search", "--query", "postgres", "--level", "month", "--store", str(store), "--json"
    )
    assert status == 0
    results = json.loads(out)["results"]
    assert results
    assert all(result["node_id"].startswith("toc:month:") for result in results)
    status, out, _ = run(
        "search",
        "--query",
        "postgres",
        "--node",
        results[0]["node_id"],
        "--store",
        str(store),
        "--json",
    )
    assert status == 0
    assert json.loads(out)["matched"] is True
    status, out, _ = run("search", "--query", "jwt", "--parent", months[0], "--store", str(store))
    assert status == 0


def test_navigate_and_expand_cite_raw_events(store: Path) -> None:
    """navigate returns evidence with grip ids when the budget has room for them, and expand
    shows the events behind a grip."""
    status, out, err = run(
        "navigate",
        JWT_QUESTION,
        "--store",
        str(store),
        "--now",
        "2026-04-10T23:00:00Z",
        "--budget",
        "4000",
        "--json",
    )
    assert status == 0, err
    result = json.loads(out)
    grip_ids = [grip for item in evidence_items(result) for grip in item.get("grip_ids", [])]
    assert grip_ids
    status, out, err = run(
        "expand", grip_ids[0], "--before", "1", "--after", "1", "--store", str(store), "--json"
    )
    assert status == 0, err
    expanded = json.loads(out)
    assert expanded["grip"]["grip_id"] == grip_ids[0]
    assert expanded["excerpt_events"]
    status, out, _ = run("navigate", JWT_QUESTION, "--store", str(store), "--verbose")
    assert status == 0
    assert "Search Path" in out


def test_demo_answers_the_readme_question() -> None:
    """demo builds the bundled example in memory and cites JWT refresh-token evidence."""
    status, out, err = run("demo", "--json")
    assert status == 0, err
    result = json.loads(out)
    texts = " ".join(item["text"] for item in evidence_items(result)).lower()
    assert "refresh" in texts
    status, out, _ = run("demo")
    assert status == 0
    cited = [
        event_id
        for item in evidence_items(result)
        if item["kind"] == "event"
        for event_id in item["event_ids"]
    ]
    assert cited
    assert cited_event_ids(out) == tuple(cited)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["show", "toc:day:1999-01-01"], "node not found"),
        (["expand", "grip:1:missing"], "grip not found"),
        (["search", "--query", "  "], "query must not be empty"),
        (["browse", "toc:year:2026", "--token", "garbage!"], "malformed continuation token"),
        (["navigate", " "], "query"),
    ],
)
def test_bad_input_is_one_line_with_status_1(store: Path, argv: list[str], message: str) -> None:
    """Failures print one line on stderr, no traceback, and exit with status 1."""
    status, out, err = run(*argv, "--store", str(store))
    assert status == 1
    assert out == ""
    assert err.count("\n") == 1
    assert message in err
    assert "Traceback" not in err


def test_missing_store_and_missing_file_fail_cleanly(tmp_path: Path) -> None:
    """A store that does not exist, or an input file that does not, is a one-line error."""
    status, _, err = run("root", "--store", str(tmp_path / "absent"))
    assert status == 1
    assert "no store at" in err
    status, _, err = run("ingest", str(tmp_path / "absent.jsonl"), "--store", str(tmp_path / "s"))
    assert status == 1
    assert "absent.jsonl" in err


def test_malformed_event_line_strict_and_lenient(tmp_path: Path) -> None:
    """--strict refuses a file with a bad line and writes nothing; lenient skips and reports it."""
    good = (
        '{"timestamp": "2026-03-02T10:00:00Z", "session_id": "s1", "role": "user",'
        ' "text": "The deploy pipeline needs a canary stage"}'
    )
    source = tmp_path / "events.jsonl"
    source.write_text(good + "\n{not json\n", encoding="utf-8")
    store = tmp_path / "store"
    status, _, err = run("ingest", str(source), "--strict", "--store", str(store))
    assert status == 1
    assert "line 2" in err
    status, _, err = run("root", "--store", str(store))
    assert status == 1, "a refused strict import must not even create the store"
    assert "no store at" in err
    status, out, err = run("ingest", str(source), "--store", str(store), "--json")
    assert status == 0
    assert "line 2" in err
    assert json.loads(out)["events_added"] == 1


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["search"],
        ["search", "--query", "x", "--limit", "0"],
        ["search", "--query", "x", "--level", "decade"],
        ["navigate", "q", "--now", "yesterday"],
    ],
)
def test_usage_errors_exit_2(argv: list[str]) -> None:
    """Unknown commands, missing or malformed options are usage errors with status 2."""
    status, _, err = run(*argv)
    assert status == 2
    assert "usage:" in err


def _python_m(command: str, home: str) -> subprocess.CompletedProcess[str]:
    """``python -m tocsearch COMMAND`` in a real subprocess with ``$TOCSEARCH_HOME`` at
    ``home``."""
    return subprocess.run(
        [sys.executable, "-m", "tocsearch", command],
        capture_output=True,
        text=True,
        env={**os.environ, "TOCSEARCH_HOME": home},
        check=False,
    )


def test_python_dash_m_entry_point(tmp_path: Path) -> None:
    """`python -m tocsearch` runs the same command line in a real subprocess."""
    completed = _python_m("root", str(tmp_path / "home"))
    assert completed.returncode == 1
    assert "no store at" in completed.stderr
    assert str(tmp_path / "home") in completed.stderr


@pytest.mark.parametrize("home", ["~no-such-user-of-this-system/store", "~0"])
def test_a_store_home_of_an_unknown_user_is_a_clear_error(home: str) -> None:
    """``$TOCSEARCH_HOME`` at the home of a user the system does not know exits with status 1
    and a message naming the variable, never a traceback."""
    completed = _python_m("stats", home)
    assert completed.returncode == 1
    assert "Traceback" not in completed.stderr
    assert f"TOCSEARCH_HOME={home!r}" in completed.stderr
    assert "set TOCSEARCH_HOME to a path" in completed.stderr


def test_long_ingest_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    """Ingesting more than one batch (batches are whole days of at least 5,000 events)
    reports progress on stderr when it is a terminal."""
    source = tmp_path / "many.jsonl"
    lines = [
        json.dumps(
            {
                "timestamp": f"2026-03-{2 + n // 5_000:02d}T"
                f"{9 + n // 3600 % 5:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z",
                "session_id": "bulk",
                "role": "user" if n % 2 else "assistant",
                "text": f"step {n} of the nightly export run",
            }
        )
        for n in range(5_001)
    ]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    terminal = Terminal()
    status = main(
        ["ingest", str(source), "--store", str(tmp_path / "a"), "--backend", "shelve"],
        stdout=io.StringIO(),
        stderr=terminal,
    )
    assert status == 0
    assert "ingested 5,000/5,001 events" in terminal.getvalue()
    assert "ingested 5,001/5,001 events" in terminal.getvalue()
    status, _, err = run(
        "ingest", str(source), "--store", str(tmp_path / "b"), "--backend", "shelve"
    )
    assert status == 0
    assert "ingested" not in err


@pytest.mark.parametrize(
    ("zone", "start"),
    [
        ("UTC", "2026-04-09T00:00:00+00:00"),
        ("UTC-8", "2026-04-08T08:00:00+00:00"),
        ("-08:00", "2026-04-08T08:00:00+00:00"),
    ],
)
def test_yesterday_is_the_askers_yesterday(zone: str, start: str) -> None:
    """At 04:00 UTC, --tz UTC-8 (20:00 the evening before) reads "yesterday" as the day before
    the asker's date, from their midnight; a west-of-UTC offset may follow --tz as a separate
    word, dash and all."""
    status, out, _ = run(
        "demo", "yesterday", "--now", "2026-04-10T04:00:00Z", "--tz", zone, "--json"
    )
    assert status == 0
    assert json.loads(out)["time_hints"]["ranges"][0]["start"] == start


def test_an_unknown_zone_is_a_usage_error() -> None:
    """--tz with no such zone exits 2 and says how to write one."""
    status, _, err = run("demo", "--tz", "Mars/Olympus")
    assert status == 2
    assert "unknown time zone 'Mars/Olympus'" in err


def test_a_new_store_is_sqlite_and_existing_stores_need_no_backend(tmp_path: Path) -> None:
    """ingest without --backend creates a SQLite store; every command then opens it (and a
    shelve store made with --backend) without being told the backend; naming the wrong one
    is a one-line error."""
    for name, extra in (("fresh", []), ("shelved", ["--backend", "shelve"])):
        path = str(tmp_path / name)
        status, _, err = run("ingest", str(example_path()), "--store", path, *extra)
        assert status == 0, err
        status, out, err = run("root", "--store", path, "--json")
        assert status == 0, err
        assert json.loads(out)
        status, _, err = run("ingest", str(example_path()), "--store", path)
        assert status == 0, err
    marker = json.loads((tmp_path / "fresh" / "tocsearch-store.json").read_text())
    assert marker["format"] == "tocsearch.sqlite"
    assert (tmp_path / "fresh" / "tocsearch.sqlite3").is_file()
    status, _, err = run("root", "--store", str(tmp_path / "shelved"), "--backend", "sqlite")
    assert status == 1
    assert "holds a shelve store" in err
