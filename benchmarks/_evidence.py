"""Gold evidence of LoCoMo questions: reading the questions and normalising their turn ids.

LoCoMo names each dialogue turn ``D<session>:<turn>``. A handful of gold ids in the published
files are malformed; :func:`normalise_evidence` repairs the ones whose meaning is clear and drops
the rest, and says which it did so the evaluation can report the counts:

- ``"D8:6; D9:17"`` holds two ids: it is split.
- ``"D:11:26"`` has a stray colon: it becomes ``D11:26``.
- ``"D30:05"`` has a zero-padded turn: it becomes ``D30:5``.
- ``"D"`` (or anything else without a session and a turn) is skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from tocsearch.errors import ImportFailed

__all__ = [
    "CATEGORY_NAMES",
    "EVALUATED_CATEGORIES",
    "Evidence",
    "Question",
    "load_questions",
    "normalise_evidence",
]

CATEGORY_NAMES: Mapping[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
EVALUATED_CATEGORIES: tuple[int, ...] = (1, 2, 3, 4)
"""Category 5 questions are unanswerable by design, so they have no evidence to recall."""

_WELL_FORMED = re.compile(r"D[1-9]\d*:[1-9]\d*")
# Tolerant: an optional stray colon after the D, spaces, and zero padding in either number.
_REPAIRABLE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
_SEPARATORS = re.compile(r"[;,]")


@attrs.frozen
class Evidence:
    """The gold turn ids of one question after normalisation, and what normalisation did.

    ``ids`` keeps the first-seen order and holds each id once. ``split`` counts raw entries that
    held more than one id, ``rewritten`` the ids repaired into ``D<n>:<m>`` form, ``skipped`` the
    pieces that named no turn.
    """

    ids: tuple[str, ...]
    split: int = 0
    rewritten: int = 0
    skipped: int = 0


def normalise_evidence(raw: Iterable[object]) -> Evidence:
    """Normalise a question's raw ``evidence`` list into well-formed, distinct turn ids.

    >>> normalise_evidence(["D8:6; D9:17", "D:11:26", "D30:05", "D"])
    Evidence(ids=('D8:6', 'D9:17', 'D11:26', 'D30:5'), split=1, rewritten=2, skipped=1)
    """
    ids: dict[str, None] = {}
    split = rewritten = skipped = 0
    for entry in raw:
        if not isinstance(entry, str):
            skipped += 1
            continue
        pieces = [piece.strip() for piece in _SEPARATORS.split(entry)]
        pieces = [piece for piece in pieces if piece]
        if len(pieces) > 1:
            split += 1
        if not pieces:
            skipped += 1
        for piece in pieces:
            if _WELL_FORMED.fullmatch(piece):
                ids.setdefault(piece, None)
                continue
            match = _REPAIRABLE.fullmatch(piece)
            if match is None or int(match[1]) == 0 or int(match[2]) == 0:
                skipped += 1
                continue
            rewritten += 1
            ids.setdefault(f"D{int(match[1])}:{int(match[2])}", None)
    return Evidence(tuple(ids), split, rewritten, skipped)


@attrs.frozen
class Question:
    """One LoCoMo question with its normalised gold evidence."""

    sample_id: str
    index: int
    text: str
    category: int
    evidence: Evidence


def _question(sample_id: str, index: int, item: Any, where: str) -> Question:
    if not isinstance(item, dict):
        raise ImportFailed(f"{where}: a qa entry must be an object, got {item!r}")
    text = item.get("question")
    if not isinstance(text, str):
        raise ImportFailed(f"{where}: 'question' must be a string, got {text!r}")
    category = item.get("category")
    if not isinstance(category, int) or isinstance(category, bool):
        raise ImportFailed(f"{where}: 'category' must be an integer, got {category!r}")
    raw = item.get("evidence", [])
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        raise ImportFailed(f"{where}: 'evidence' must be a list of turn ids, got {raw!r}")
    return Question(sample_id, index, text, category, normalise_evidence(raw))


def load_questions(path: Path) -> dict[str, list[Question]]:
    """The questions of every conversation in a LoCoMo-format file, keyed by ``sample_id`` in
    file order.

    Raises:
        ImportFailed: the file is not JSON, or a sample or question lacks a required field.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ImportFailed(f"{path}: cannot read LoCoMo JSON: {error}") from error
    if not isinstance(data, list):
        raise ImportFailed(f"{path}: a LoCoMo file is a JSON list of samples")
    questions: dict[str, list[Question]] = {}
    for number, sample in enumerate(data):
        if not isinstance(sample, dict) or not isinstance(sample.get("sample_id"), str):
            raise ImportFailed(f"{path}: sample {number} has no string 'sample_id'")
        sample_id = sample["sample_id"]
        qa = sample.get("qa", [])
        if not isinstance(qa, list):
            raise ImportFailed(f"{path}: sample {sample_id!r}: 'qa' must be a list")
        questions[sample_id] = [
            _question(sample_id, index, item, f"{path}: sample {sample_id!r} qa {index}")
            for index, item in enumerate(qa)
        ]
    return questions
