"""Normalisation of LoCoMo gold evidence ids, and reading questions from a LoCoMo file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmarks._evidence import Evidence, load_questions, normalise_evidence
from hypothesis import given
from hypothesis import strategies as st

from tocsearch.errors import ImportFailed

FIXTURE = Path(__file__).parent / "fixtures" / "tiny_locomo.json"


def test_well_formed_ids_pass_unchanged() -> None:
    """Ids already of the form D<n>:<m> are kept as they are, in order, with nothing counted."""
    assert normalise_evidence(["D1:3", "D12:40"]) == Evidence(("D1:3", "D12:40"))


def test_semicolon_joined_ids_are_split() -> None:
    """ "D8:6; D9:17" is two ids and counts as one split entry."""
    assert normalise_evidence(["D8:6; D9:17"]) == Evidence(("D8:6", "D9:17"), split=1)


def test_stray_colon_is_repaired() -> None:
    """ "D:11:26" becomes D11:26 and counts as rewritten."""
    assert normalise_evidence(["D:11:26"]) == Evidence(("D11:26",), rewritten=1)


def test_zero_padded_turn_is_repaired() -> None:
    """ "D30:05" becomes D30:5 and counts as rewritten."""
    assert normalise_evidence(["D30:05"]) == Evidence(("D30:5",), rewritten=1)


@pytest.mark.parametrize("raw", ["D", "", " ", "D0:1", "D3:0", "session 3", "D3"])
def test_pieces_naming_no_turn_are_skipped(raw: str) -> None:
    """A bare "D", an empty string, a zero session or turn, and free text name no turn."""
    assert normalise_evidence([raw]) == Evidence((), skipped=1)


def test_non_string_entries_are_skipped() -> None:
    """A number or null in the evidence list is skipped and counted, not a crash."""
    assert normalise_evidence([3, None, "D1:1"]) == Evidence(("D1:1",), skipped=2)


def test_repeated_ids_are_kept_once() -> None:
    """The same turn named twice (once malformed) is one gold turn."""
    assert normalise_evidence(["D2:2", "D2:02"]).ids == ("D2:2",)


@given(
    st.lists(
        st.tuples(st.integers(1, 40), st.integers(1, 60)).map(lambda p: f"D{p[0]}:{p[1]}"),
        max_size=8,
    )
)
def test_well_formed_lists_are_fixed_points(raw: list[str]) -> None:
    """Normalising well-formed ids keeps each distinct id once in first-seen order and counts
    nothing."""
    result = normalise_evidence(raw)
    assert result == Evidence(tuple(dict.fromkeys(raw)))
    assert normalise_evidence(list(result.ids)) == result


def test_load_questions_reads_every_question_with_normalised_evidence() -> None:
    """The fixture's seven questions load in order, their evidence normalised."""
    questions = load_questions(FIXTURE)["tiny-1"]
    assert [q.category for q in questions] == [4, 2, 1, 2, 5, 4, 3]
    assert questions[3].evidence == Evidence(("D1:3", "D2:2"), split=1, rewritten=2, skipped=1)
    assert questions[5].evidence.ids == ()


def test_load_questions_names_the_bad_field(tmp_path: Path) -> None:
    """A question without a category is refused with a message naming the sample and field."""
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"sample_id": "s", "qa": [{"question": "q?"}]}]))
    with pytest.raises(ImportFailed, match=r"sample 's' qa 0: 'category'"):
        load_questions(path)


def test_load_questions_refuses_non_json(tmp_path: Path) -> None:
    """A file that is not JSON raises ImportFailed naming the path."""
    path = tmp_path / "broken.json"
    path.write_text("[{")
    with pytest.raises(ImportFailed, match=r"broken\.json"):
        load_questions(path)
