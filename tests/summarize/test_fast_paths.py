"""The summarizer's fast paths give exactly what the plain formulations give: sentence breaks,
statement cues, cuts of long texts, lazy greedy parent bullets, tool text keyed only when a
segment has no statement, and segment keywords ranked over the terms they can reach."""

from __future__ import annotations

import math
import re
import sys
from datetime import datetime, timedelta, timezone

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from tests._support.storage_helpers import make_event

from tocsearch import ids
from tocsearch import text as text_module
from tocsearch.errors import InvalidArgument
from tocsearch.models import Event
from tocsearch.summarize import (
    ExtractiveSummarizer,
    Summary,
    SummaryBullet,
    _extractive,
    _parents,
    _phrasing,
    _terms,
)

# The plain formulations the fast ones replace.
PLAIN_SENTENCE_BREAK = re.compile(r"(?<!\.\.\.)(?<=[.!?…])\s+(?=[A-Z0-9\"'“‘(\[`])|\s*\n\s*")
PLAIN_SEGMENT_CUES = re.compile(
    r"\b(?:decid\w*|decision|agreed|because|caus\w*|root|fix\w*|found|turns out|resolved|"
    r"chose|choose|going with|go with|recorded|instead|so we|means|proposal|plan)\b",
    re.IGNORECASE,
)
PLAIN_PARENT_CUES = re.compile(
    r"\b(?:decid\w*|decision|agreed|because|caus\w*|root|fix\w*|found|resolved|chose|"
    r"going with|recorded|instead|proposal|plan)\b",
    re.IGNORECASE,
)
SPACES = re.compile(r"\s+")
PLAIN_TOKENS = re.compile(r"\w+(?:['’./\-]\w+)*")
PLAIN_TOKENS_AND_BREAKS = re.compile(r"(\w+(?:['’./\-]\w+)*)|([^\w\s'’./\-]+|\s[-–—]\s)")
PLAIN_SENTENCE_INITIAL = re.compile(r"(?:^|[.!?…]\s+|\n)[\s\-*•>#]*(\w+)")

_PIECES = (
    "We", "found", "the", "Root", "cause", "FIXED", "because", "plan", "so we", "Going with",
    "auth.py", "401", "e.g.", "...", "…", ".", "!", "?", "(", "\"", "'", "`", "[", "-", "•",
    "x", "Decided", "turns out", "instead", "means", "chose", "proposal", "recorded",
)  # fmt: skip
_GAPS = (" ", "  ", "\n", " \n ", "\t", "\n\n", "", " \t ")

texts = st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_GAPS)), max_size=40).map(
    lambda parts: "".join(piece + gap for piece, gap in parts)
)


@given(texts)
def test_sentence_breaks_match_the_plain_pattern(text: str) -> None:
    """The anchored sentence-break pattern splits every text where the plain one does."""
    assert _terms.SENTENCE_BREAK.split(text) == PLAIN_SENTENCE_BREAK.split(text)


marked_texts = st.lists(
    st.tuples(
        st.sampled_from(
            (
                "We",
                "auth.py",
                "x",
                "401",
                ".",
                "!",
                "?",
                "…",
                "...",
                "-",
                "*",
                "•",
                ">",
                "#",
                "(",
                "é",
            )
        ),
        st.sampled_from(_GAPS),
    ),
    max_size=40,
).map(lambda parts: "".join(piece + gap for piece, gap in parts))


@given(texts | marked_texts)
def test_sentence_initials_match_the_plain_pattern(text: str) -> None:
    """The split search for sentence-initial words finds what the one plain pattern finds."""
    assert _terms.sentence_initials(text) == PLAIN_SENTENCE_INITIAL.findall(text)


@given(st.lists(texts | marked_texts, max_size=5))
def test_sentence_initials_of_joined_statements_are_those_of_each(values: list[str]) -> None:
    """Statements joined by line breaks have the sentence-initial words of each, in order."""
    each = [word for value in values for word in PLAIN_SENTENCE_INITIAL.findall(value)]
    assert _terms.sentence_initials("\n".join(values)) == each


@given(texts)
def test_statement_cues_match_a_case_insensitive_search(text: str) -> None:
    """Cues searched in lower-cased text are found exactly where a case-insensitive search
    finds them, for segments and for parents."""
    lowered = text.lower()
    found = _extractive._STATEMENT_CUES.search(lowered) is not None
    assert found == (PLAIN_SEGMENT_CUES.search(text) is not None)
    found = _parents._STATEMENT_CUES.search(lowered) is not None
    assert found == (PLAIN_PARENT_CUES.search(text) is not None)


# Every kind of ASCII character the patterns treat apart (word characters, the marks a token
# may hold inside, white space including the separators Unicode counts as white space,
# punctuation and control characters), with cue words and their capitals.
_ASCII_PIECES = (
    *filter(str.isascii, _PIECES), "Fixing", "CAUSED", "decide", "x_y", "v2.3.1", "it's", "a/b",
    "9", " ", "\t", "\n", "\x0b", "\x1c", "\x1f", "\x00", ",", ";", "_", "=",
)  # fmt: skip
ascii_texts = st.lists(st.sampled_from(_ASCII_PIECES), max_size=40).map("".join)


@given(ascii_texts)
@example("Root\x1ccause: auth.py's v2.3.1 fix_it")
def test_ascii_twins_find_what_the_unicode_patterns_find(text: str) -> None:
    """In ASCII text the twins compiled for it find the same tokens and statement cues as the
    Unicode patterns (and the plain forms)."""
    assert text.isascii()
    assert _terms.tokens(text) == _terms.TOKEN_PATTERN.findall(text) == PLAIN_TOKENS.findall(text)
    assert _terms.ASCII_TOKEN_PATTERN.findall(text) == PLAIN_TOKENS.findall(text)
    lowered = text.lower()
    found = _extractive._ASCII_STATEMENT_CUES.search(lowered) is not None
    assert found == (PLAIN_SEGMENT_CUES.search(text) is not None)
    found = _parents._ASCII_STATEMENT_CUES.search(lowered) is not None
    assert found == (PLAIN_PARENT_CUES.search(text) is not None)


@given(st.lists(texts | ascii_texts, min_size=1, max_size=6))
def test_summaries_are_the_same_without_the_ascii_twins(values: list[str]) -> None:
    """A segment's summary and its parent's are the same when ASCII text is read by the
    Unicode patterns instead of their twins."""
    start = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
    events = [
        attrs.evolve(make_event(start + timedelta(minutes=index), f"e{index}"), text=value)
        for index, value in enumerate(values)
    ]
    summarizer = ExtractiveSummarizer()

    def both() -> tuple[Summary, Summary]:
        # Fresh caches: a summary must not be read back from the other run's.
        _phrasing._KEY_CACHES.clear()
        _parents._bullet_parts.cache_clear()
        _terms.clean_sentence.cache_clear()
        segment = summarizer.summarize_events(events)
        return segment, summarizer.summarize_children([segment])

    with_twins = both()
    twins = (_terms.ASCII_TOKEN_PATTERN, _extractive._ASCII_STATEMENT_CUES)
    parent_twin = _parents._ASCII_STATEMENT_CUES
    try:
        _terms.ASCII_TOKEN_PATTERN = _terms.TOKEN_PATTERN
        _extractive._ASCII_STATEMENT_CUES = _extractive._STATEMENT_CUES
        _parents._ASCII_STATEMENT_CUES = _parents._STATEMENT_CUES
        without = both()
    finally:
        _terms.ASCII_TOKEN_PATTERN, _extractive._ASCII_STATEMENT_CUES = twins
        _parents._ASCII_STATEMENT_CUES = parent_twin
        _phrasing._KEY_CACHES.clear()
        _parents._bullet_parts.cache_clear()
    assert with_twins == without


def test_a_pattern_that_matches_white_space_has_no_ascii_twin() -> None:
    """ASCII mode narrows white space (no separators \\x1c-\\x1f), so a pattern using it gets
    no twin, with an error naming the pattern."""
    for pattern in (r"a\s+b", r"[^\S]"):
        with pytest.raises(InvalidArgument, match=re.escape(repr(pattern))):
            _terms.ascii_twin(re.compile(pattern))
    assert _terms.ascii_twin(re.compile(r"\bx\w*")).flags & re.ASCII


token_texts = st.lists(
    st.sampled_from(
        (
            "auth",
            "py",
            "v2",
            "3",
            "don",
            "t",
            "é",
            "_",
            ".",
            "/",
            "-",
            "'",
            "’",
            "..",
            " ",
            " - ",
            " — ",
            ",",
            "(",
            "\n",
        )
    ),
    max_size=40,
).map("".join)


@given(token_texts)
def test_tokens_match_the_plain_patterns(text: str) -> None:
    """The token patterns find the tokens (and breaks) the plain backtracking forms find."""
    assert _terms.TOKEN_PATTERN.findall(text) == PLAIN_TOKENS.findall(text)
    assert _extractive._TOKENS_AND_BREAKS.findall(text) == PLAIN_TOKENS_AND_BREAKS.findall(text)


def plain_cut_at_word(text: str, limit: int) -> str:
    collapsed = SPACES.sub(" ", text).strip()
    if len(collapsed) <= limit:
        return collapsed
    if limit <= 1:
        return collapsed[:limit]
    head = collapsed[: limit - 1]
    space = head.rfind(" ")
    if space >= limit // 2:
        head = head[:space]
    return head.rstrip(" ,;:-") + "…"


long_texts = st.lists(
    st.tuples(st.sampled_from(("word", "a,", "b;", "(c)", "—", "x" * 30)), st.integers(1, 60)),
    max_size=80,
).map(lambda parts: "".join(piece + " " * gap for piece, gap in parts))


@given(long_texts, st.integers(1, 60))
def test_cuts_of_long_texts_read_only_what_they_need(text: str, limit: int) -> None:
    """Collapsing only a window of a long text gives the same cut as collapsing all of it,
    however much white space the window holds."""
    assert text_module.clip(text, limit) == plain_cut_at_word(text, limit)
    assert (
        text_module.collapsed_head(text, limit)[: limit + 1]
        == SPACES.sub(" ", text).strip()[: limit + 1]
    )


spaced_texts = st.lists(
    st.tuples(
        st.sampled_from(("word", "a,", "ẞ", "x\u0301", "\u200b", "-")),
        st.sampled_from((" ", "\n", "\t", "\u00a0", "\u2003", "\u3000", "\x1c", "\x85", "")),
    ),
    max_size=30,
).map(lambda parts: "".join(piece + gap for piece, gap in parts))


@given(spaced_texts)
def test_collapsing_spaces_by_splitting_matches_the_pattern(text: str) -> None:
    """Joining the split words gives what replacing each white-space run and stripping gives."""
    assert text_module.collapse_spaces(text) == SPACES.sub(" ", text).strip()


def test_the_pattern_and_split_agree_on_white_space() -> None:
    """Every code point is white space to ``\\s`` exactly when it is to ``str.split``."""
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        assert (SPACES.fullmatch(char) is not None) == char.isspace(), hex(code)
        assert (char.split() == []) == char.isspace(), hex(code)


def plain_phrases(
    text: str, key_of: dict[str, str], tools: frozenset[str]
) -> list[tuple[str, ...]]:
    """Title phrases by the straightforward scan: every token decides its kind, every break
    ends (and resets) the run."""
    found: list[tuple[str, ...]] = []
    run: list[str] = []
    numbers: set[int] = set()
    previous = ""
    for token, _ in [*_extractive._TOKENS_AND_BREAKS.findall(text), ("", "")]:
        key = key_of.get(token, "")
        kind = _extractive._BREAK
        if key and key not in tools:
            kind = _extractive._title_kind(token)
        usable = kind == _extractive._USABLE
        if usable or (kind == _extractive._NUMBER and run and previous[:1].isupper()):
            previous = token
            if key not in run:
                if kind == _extractive._NUMBER:
                    numbers.add(len(run))
                run.append(key)
                continue
        previous = token
        if run:
            if len(run) == 1:
                found.append((run[0],))
            else:
                for size in range(1, min(_extractive._PHRASE_MAX, len(run)) + 1):
                    for start in range(len(run) - size + 1):
                        if start not in numbers:
                            found.append(tuple(run[start : start + size]))
            numbers = set()
        run = [key] if usable else []
    return found


# Clauses of words (names, numbers, paths, stopwords, tool names, repeats) between breaks.
_PHRASE_WORDS = (
    "Postgres", "16", "401", "v2.3", "Redis", "redis", "cache", "lock", "the", "and", "JWT",
    "token", "auth.py", "src/app", "bash", "pytest", "x", "CI", "January", "error", "it's",
)  # fmt: skip
clauses = st.lists(st.lists(st.sampled_from(_PHRASE_WORDS), min_size=1, max_size=6), max_size=5)


@given(
    clauses,
    st.sampled_from((", ", "; ", " - ", " — ", " (", ". ")),
    st.sets(st.sampled_from(("bash", "pytest", "redis"))),
)
@example([["Postgres", "401"], ["Redis", "cache", "lock"]], ", ", set())  # a number, then a run
def test_title_phrases_match_the_plain_scan(
    words: list[list[str]], glue: str, tools: set[str]
) -> None:
    """The title phrases of a sentence are those the straightforward scan finds."""
    text = glue.join(" ".join(clause) for clause in words)
    key_of = {token: _phrasing.content_key(token, frozenset()) for token in _terms.tokens(text)}
    expected = plain_phrases(text, key_of, frozenset(tools))
    assert _extractive._phrases(text, key_of, frozenset(tools)) == expected


@given(
    st.dictionaries(
        st.lists(
            st.sampled_from(("jwt", "token", "file", "lock", "redis", "x")), min_size=1, max_size=3
        ).map(tuple),
        st.integers(1, 12),
    ),
    st.dictionaries(
        st.sampled_from(("jwt", "token", "file", "lock", "redis")), st.floats(0.01, 50.0)
    ),
)
def test_title_scores_match_the_plain_formula(
    counts: dict[tuple[str, ...], int], weights: dict[str, float]
) -> None:
    """Title phrase scores are exactly the summed weights times 1 + log(count), halved for a
    lone everyday word ("file" is one)."""
    plain = {
        phrase: sum(weights.get(key, 0.0) for key in phrase)
        * (1.0 + math.log(count))
        * (0.5 if len(phrase) == 1 and phrase[0] in _terms.COMMON_WORDS else 1.0)
        for phrase, count in counts.items()
    }
    assert _extractive._title_scores(counts, weights) == plain


def plain_parent_bullets(summaries: list[Summary], limit: int) -> tuple[SummaryBullet, ...]:
    """Parent bullets by a full scan of every candidate each round."""
    merged = _parents._merge_keywords(summaries, frozenset())
    candidates = _parents._candidates(summaries, frozenset())
    wanted = min(limit, max(3, len(summaries)), len(candidates))
    words = merged.words
    picks: dict[int, int] = {}
    covered: set[str] = set()
    chosen: list[_parents._Candidate] = []

    def value(candidate: _parents._Candidate) -> tuple[float, int, int]:
        gained = sum(
            words.get(key, 0.1) * (_parents._COVERED if key in covered else 1.0)
            for key in candidate.keys
        )
        score = gained / math.sqrt(max(candidate.size, 8)) * candidate.factor
        score *= (1.0 + 0.5 * (candidate.support - 1)) * 0.5 ** picks.get(candidate.child, 0)
        return score, -candidate.child, -candidate.index

    pool = sorted(candidates, key=value, reverse=True)[: max(40, 4 * wanted)]
    while pool and len(chosen) < wanted:
        best = max(pool, key=value)
        pool.remove(best)
        if any(_phrasing.jaccard(best.keys, other.keys) > _parents._SAME_TOPIC for other in chosen):
            continue
        chosen.append(best)
        covered.update(best.keys)
        picks[best.child] = picks.get(best.child, 0) + 1
    chosen.sort(key=lambda candidate: (candidate.child, candidate.index))
    return tuple(SummaryBullet(c.text, grip_ids=tuple(c.grip_ids)) for c in chosen)


_BULLETS = (
    "We decided to rotate the JWT refresh token on every request.",
    "The Postgres migration holds a lock on the sessions table.",
    "Found it: the cache key ignores the Python version.",
    "Why does the readiness probe fail after the deploy?",
    "Set lock_timeout to 5s so the connection pool stops timing out.",
    "The root cause is the eviction policy of Redis under maxmemory.",
    "Merged.",
    "Caroline asked about the adoption agency and the support group.",
)

children = st.lists(
    st.tuples(
        st.lists(st.sampled_from(_BULLETS), min_size=1, max_size=5),
        st.lists(st.sampled_from(("JWT", "Postgres", "Redis", "cache key", "401")), max_size=4),
    ),
    min_size=1,
    max_size=12,
)


@given(children, st.integers(1, 8))
def test_lazy_parent_bullets_pick_what_a_full_scan_picks(
    shapes: list[tuple[list[str], list[str]]], limit: int
) -> None:
    """The lazy greedy choice of parent bullets equals re-valuing every candidate each round."""
    summaries = [
        Summary(
            title=f"Child {child}",
            bullets=tuple(
                SummaryBullet(text, grip_ids=(f"grip:{child}:{index}",))
                for index, text in enumerate(texts)
            ),
            keywords=tuple(dict.fromkeys(keywords)),
        )
        for child, (texts, keywords) in enumerate(shapes)
    ]
    merged = _parents._merge_keywords(summaries, frozenset())
    got = _parents._bullets(summaries, merged, limit, frozenset())
    assert got == plain_parent_bullets(summaries, limit)


def test_a_segment_of_tool_text_alone_still_gets_bullets_from_it() -> None:
    """With no statement in a segment, tool output is keyed and becomes the bullets."""
    start = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)
    lines = (
        "FAILED tests/test_auth.py::test_refresh - JWT expiry mismatch",
        "Postgres migration 0042 waiting for lock on table sessions",
        "Redis eviction: maxmemory reached, evicting keys with the allkeys-lru policy",
    )
    events = [
        Event(
            event_id=ids.event_id(start + timedelta(seconds=n), f"t{n}"),
            session_id="s1",
            timestamp=start + timedelta(seconds=n),
            role="tool",
            event_type="tool_result",
            text=text,
        )
        for n, text in enumerate(lines)
    ]
    summary = ExtractiveSummarizer().summarize_events(events)
    assert summary.bullets
    quoted = {bullet.event_ids[-1] for bullet in summary.bullets}
    assert quoted <= {event.event_id for event in events}
    assert any("Redis" in bullet.text or "JWT" in bullet.text for bullet in summary.bullets)


def plain_keywords(
    analysis: _extractive._Analysis, phrases: dict[tuple[str, ...], int], limit: int
) -> tuple[str, ...]:
    """Segment keywords ranked over every eligible term and phrase, as before any was left out:
    each phrase scored, all sorted, and the best taken that share no word with one taken."""
    candidates = (analysis.said or analysis.weights.keys()) - analysis.tools
    eligible = {key: analysis.weights[key] for key in candidates if _terms.is_keyword(key)}
    scored = [((key,), weight) for key, weight in eligible.items()] + [
        (phrase, 1.2 * max(eligible[word] for word in phrase))
        for phrase, count in phrases.items()
        if count >= 2 and len(phrase) == 2 and set(phrase) <= eligible.keys()
    ]
    ranked = sorted(dict(scored).items(), key=lambda item: (-item[1], item[0]))
    floor = 0.25 * max((score for _, score in ranked), default=0.0)
    taken: list[tuple[str, ...]] = []
    for phrase, score in ranked:
        if len(taken) == limit or (len(taken) >= 3 and score < floor):
            break
        if all(set(phrase).isdisjoint(other) for other in taken):
            taken.append(phrase)
    forms = analysis.forms
    return tuple(" ".join(_terms.display_form(forms[key].items()) for key in p) for p in taken)


_TERMS = (*(f"term{letter}" for letter in "abcdefghijklmnopqrstuvwxyz"), "401", "bash")
term_weights = st.dictionaries(
    st.sampled_from(_TERMS), st.sampled_from((0.3, 0.5, 1.0, 1.0, 1.4, 2.0, 2.7, 9.0)), max_size=28
)


@given(term_weights, st.data(), st.integers(1, 9))
@example(dict.fromkeys(_TERMS, 1.0), None, 1)  # every term tied
@example({"terma": 9.0, "termb": 9.0, "termc": 1.0}, None, 2)  # a pair hides both its words
@example({"401": 9.0, "bash": 9.0, "terma": 2.0, "termb": 1.0}, None, 1)  # heaviest ineligible
def test_keywords_rank_only_the_terms_they_can_reach(
    weights: dict[str, float], data: st.DataObject | None, limit: int
) -> None:
    """Segment keywords ranked over the heaviest eligible terms alone (and every pair), read
    from the heaviest term down, are those ranked over every term: ties at the cut, pairs that
    hide their words, the heaviest terms not eligible (said only in tool text, never said, a
    number or a tool name), and any number of keywords asked for."""
    keys = sorted(weights)
    if data is None:
        # Every term said, and the two heaviest standing together twice.
        said, tools = set(keys), set()
        pairs = {tuple(sorted(keys, key=lambda key: -weights[key])[:2]): 2}
    elif keys:
        some = st.sets(st.sampled_from(keys))
        said = data.draw(st.just(set(keys)) | some)
        tools = data.draw(st.just(set()) | some)
        pair = st.tuples(st.sampled_from(keys), st.sampled_from(keys))
        pairs = data.draw(st.dictionaries(pair, st.sampled_from((1, 2, 2, 3))))
    else:
        said, tools, pairs = set(), set(), {}
    analysis = _extractive._Analysis(
        documents=[],
        weights=weights,
        forms={key: {key.upper() if key.endswith("a") else key: 1} for key in keys},
        tools=frozenset(tools),
        said=frozenset(said),
        key_of={},
    )
    summarizer = ExtractiveSummarizer(max_keywords=limit)
    assert summarizer._keywords(analysis, pairs) == plain_keywords(analysis, pairs, limit)


def test_keywords_tied_at_the_cut_keep_every_tied_term() -> None:
    """Terms tied at the weight where the ranking stops are all ranked, so the tie goes to the
    first term in order, as in a full ranking, whichever order the terms were counted in."""
    weights = {"termc": 1.0, "termb": 1.0, "terma": 1.0}
    analysis = _extractive._Analysis(
        documents=[],
        weights=weights,
        forms={key: {key: 1} for key in weights},
        tools=frozenset(),
        said=frozenset(weights),
        key_of={},
    )
    keywords = ExtractiveSummarizer(max_keywords=1)._keywords(analysis, {})
    assert keywords == plain_keywords(analysis, {}, 1) == ("terma",)
