"""A ChatGPT export is read as ChatGPT mails it (``.zip``), as it unpacks (a folder) or as its
``conversations.json``, by the loader, by format detection and by ``tocsearch ingest``."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from tests._support.cli import run

from tocsearch.errors import ImportFailed
from tocsearch.importers import detect_format, load_chatgpt, load_events

FIXTURE = Path(__file__).parent / "fixtures" / "chatgpt_conversations.json"


def _zip(path: Path, member: str = "conversations.json", data: bytes | None = None) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, FIXTURE.read_bytes() if data is None else data)
        archive.writestr("chat.html", "<html></html>")
    return path


def _folder(path: Path) -> Path:
    path.mkdir()
    (path / "conversations.json").write_bytes(FIXTURE.read_bytes())
    (path / "user.json").write_text("{}", encoding="utf-8")
    return path


def test_zip_folder_and_file_give_the_same_events(tmp_path: Path) -> None:
    expected = load_chatgpt(FIXTURE).events
    assert expected
    assert load_chatgpt(_zip(tmp_path / "export.zip")).events == expected
    assert load_chatgpt(_folder(tmp_path / "export")).events == expected


def test_detection_knows_a_zip_by_its_bytes_and_an_export_folder(tmp_path: Path) -> None:
    """A zip renamed without its suffix is still a zip; a folder with conversations.json is a
    ChatGPT export, not a tree of transcripts."""
    renamed = _zip(tmp_path / "export.zip").rename(tmp_path / "export-download")
    assert detect_format(renamed)[0] == "chatgpt"
    assert load_events(renamed).events == load_chatgpt(FIXTURE).events
    folder = _folder(tmp_path / "unpacked")
    assert detect_format(folder) == ("chatgpt", None)
    (tmp_path / "transcripts").mkdir()
    assert detect_format(tmp_path / "transcripts") == ("claude-code", None)


@pytest.mark.parametrize(
    ("member", "data", "reason"),
    [
        ("notes.txt", b"hello", "holds no conversations.json"),
        ("conversations.json", b"\xff\xfe", "not UTF-8"),
        ("conversations.json", b"[{", "not valid JSON"),
    ],
)
def test_a_bad_zip_is_refused_with_its_reason(
    tmp_path: Path, member: str, data: bytes, reason: str
) -> None:
    archive = _zip(tmp_path / "export.zip", member, data)
    with pytest.raises(ImportFailed, match=reason):
        load_events(archive)


def test_a_damaged_zip_is_refused(tmp_path: Path) -> None:
    broken = tmp_path / "export.zip"
    broken.write_bytes(_zip(tmp_path / "good.zip").read_bytes()[:100])
    with pytest.raises(ImportFailed, match="not a readable zip"):
        load_events(broken)


def test_ingest_reads_the_zip_chatgpt_mails(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "export.zip")
    code, out, err = run("ingest", str(archive), "--store", str(tmp_path / "s"), "--json")
    assert code == 0, err
    assert json.loads(out)["events_added"] == len(load_chatgpt(FIXTURE).events)
