"""Where ``fcntl`` does not exist (Windows), tocsearch still imports, and the file stores keep
every promise over the Windows lock: the contract and crash suites pass with ``fcntl``
hidden."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests._support import fallback_lock

_ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=_ROOT,
        check=False,
    )


def test_import_and_reads_work_without_any_lock_and_writers_are_told_why(tmp_path: Path) -> None:
    """With neither fcntl nor msvcrt, import works, readers read, and a writer gets a clear
    StorageError instead of an ImportError."""
    code = """
import sys
sys.modules["fcntl"] = None
sys.modules["msvcrt"] = None
import tocsearch
from tocsearch.errors import StorageError
from tocsearch.storage.jsondir import JsonDirStorage
path = sys.argv[1] + "/store"
try:
    JsonDirStorage(path)
except StorageError as error:
    print("refused:", error)
"""
    done = _python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "refused:" in done.stdout
    assert "neither fcntl.flock nor msvcrt.locking" in done.stdout


def test_stores_write_and_refuse_a_second_writer_over_the_windows_lock(tmp_path: Path) -> None:
    """With fcntl hidden, a writer works and a second writer gets StoreLocked."""
    code = """
import sys
sys.path.insert(0, ".")
from tests._support.fallback_lock import use_msvcrt_lock
use_msvcrt_lock()
from tocsearch.errors import StoreLocked
from tocsearch.storage import _lock
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.shelf import ShelveStorage
assert _lock.PRIMITIVE is not None and _lock.PRIMITIVE.name == "msvcrt"
for backend in (JsonDirStorage, ShelveStorage):
    path = sys.argv[1] + "/" + backend.__name__
    with backend(path):
        try:
            backend(path)
        except StoreLocked:
            print("locked", backend.__name__)
    with backend(path):
        print("reopened", backend.__name__)
"""
    done = _python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:4] == [
        "locked JsonDirStorage",
        "reopened JsonDirStorage",
        "locked ShelveStorage",
        "reopened ShelveStorage",
    ]


def test_storage_suites_pass_with_fcntl_hidden() -> None:
    """The storage contract and crash tests of the file backends pass over the Windows lock
    path."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            # The in-memory stores take no lock: their runs would repeat the main session's.
            "-k",
            "not memory",
            "tests/storage/test_storage_contract.py",
            "tests/storage/test_storage_crash.py",
        ],
        capture_output=True,
        text=True,
        cwd=_ROOT,
        # The lock is taken and dropped in every example (each opens its store, many reopen
        # it); the search for other kinds of bug is the main session's, at its own profile.
        env={**os.environ, fallback_lock.ENV: "msvcrt", "HYPOTHESIS_PROFILE": "dev"},
        check=False,
    )
    assert "tocsearch writer lock: msvcrt" in done.stdout
    assert done.returncode == 0, done.stdout[-3000:]
    assert " failed" not in done.stdout
