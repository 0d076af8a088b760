"""What ``tocsearch navigate`` prints for each segment of evidence: its local start and the
conversation it holds."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from tests._support.budget import evidence_items, group_dicts
from tests._support.cli import example_store, run

from tocsearch.examples import EXAMPLE_END

QUESTION = "what did we decide about JWT refresh tokens"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of the bundled example history."""
    return example_store(tmp_path_factory.mktemp("store"))


def test_segment_headings_show_local_start_project_and_session(store: Path) -> None:
    """With --tz, each segment heading shows its start on that clock (a date where its id
    names another day, the first event's line its time), its project and its session, as the
    JSON names them once per segment (and the pattern of its event ids, where it has one)."""
    # With room for every item whole, each segment names its conversation (an answer slimmed
    # to fit more items leaves it to their ids).
    common = (
        "navigate",
        QUESTION,
        "--store",
        str(store),
        "--now",
        EXAMPLE_END.isoformat(),
        "--budget",
        "8000",
    )
    status, out, err = run(*common, "--tz", "Asia/Kolkata", "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["zone"] == "Asia/Kolkata"
    groups = group_dicts(data)
    assert groups
    items = evidence_items(data)
    status, text, err = run(*common, "--tz", "Asia/Kolkata")
    assert status == 0, err
    assert not data["partial"]
    assert groups[0]["project"] == "auth-service"
    lines = text.splitlines()
    for group in groups:
        first = next(item for item in items if item["segment_id"] == group["segment_id"])
        local = datetime.fromisoformat(first["start_time"]).astimezone(ZoneInfo("Asia/Kolkata"))
        where = []
        if first["kind"] == "bullet":
            where.append(f"{local:%Y-%m-%d %H:%M} IST")
        elif not group["segment_id"].startswith(f"toc:segment:{local:%Y-%m-%d}:"):
            where.append(f"{local:%Y-%m-%d}")
        assert group["project"] in ("auth-service", "orders-db")
        where += [f"project {group['project']}", f"session {group['session_id']}"]
        if "ids" in group:
            where.append(f"ids {group['ids']}")
        at = next(
            n for n, line in enumerate(lines) if line.startswith(f"**{group['segment_id']}**")
        )
        assert lines[at].endswith(f" ({', '.join(where)})" if where else "**")
        if first["kind"] == "event":
            assert lines[at + 1].startswith(f"- {local:%H:%M} ")
    assert "times Asia/Kolkata)_" in text
