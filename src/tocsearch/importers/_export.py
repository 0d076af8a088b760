"""Where a ChatGPT export keeps its conversations: ``conversations.json`` as a file, in the
folder the export unpacks to, or inside the ``.zip`` ChatGPT mails.

>>> from pathlib import Path
>>> is_zip(Path(__file__))
False
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from tocsearch.errors import ImportFailed
from tocsearch.importers._json import parse_document

__all__ = ["CONVERSATIONS", "is_zip", "unpacked_export", "zipped_conversations"]

CONVERSATIONS = "conversations.json"
"""The file of a ChatGPT export that holds the conversations."""

# Every zip archive starts with a local file header (or, empty, the end-of-directory record).
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
# A ChatGPT export's conversations.json is large, but not this large; a bigger member is refused
# rather than unpacked into memory (a zip bomb).
_MAX_MEMBER_BYTES = 4 * 1024**3


def is_zip(path: Path) -> bool:
    """Whether ``path`` is meant as a zip archive: named ``.zip`` (read as one, so that a
    damaged archive says so), or a file that starts as a zip archive does, whatever its name."""
    if path.suffix.lower() == ".zip":
        return True
    try:
        with path.open("rb") as stream:
            return stream.read(4) in _ZIP_MAGIC
    except OSError:
        return False


def unpacked_export(path: Path) -> Path | None:
    """The ``conversations.json`` of the unpacked export folder ``path``, or None when the
    folder holds none."""
    inside = path / CONVERSATIONS
    return inside if inside.is_file() else None


def zipped_conversations(path: Path) -> object:
    """The parsed ``conversations.json`` of a ChatGPT export ``.zip`` (the one nearest the
    archive's top when several are in it).

    Raises:
        ImportFailed: not a zip file, no ``conversations.json`` in it, too large, not UTF-8 or
            not JSON.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            members = [
                info
                for info in archive.infolist()
                if info.filename.rsplit("/", 1)[-1] == CONVERSATIONS and not info.is_dir()
            ]
            if not members:
                raise ImportFailed(f"{path}: the zip holds no {CONVERSATIONS}")
            member = min(members, key=lambda info: info.filename.count("/"))
            if member.file_size > _MAX_MEMBER_BYTES:
                raise ImportFailed(
                    f"{path}: {member.filename} unpacks to {member.file_size:,} bytes, "
                    f"more than {_MAX_MEMBER_BYTES:,}"
                )
            data = archive.read(member)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as error:
        raise ImportFailed(f"{path}: not a readable zip file ({error})") from None
    except OSError as error:
        raise ImportFailed(f"{path}: cannot be read: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ImportFailed(f"{path}: {member.filename} is not UTF-8 text") from None
    return parse_document(text, f"{os.fspath(path)}!{member.filename}")
