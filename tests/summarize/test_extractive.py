"""The default summarizer on realistic snippets: useful titles, bullets and keywords."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

import pytest

from tocsearch import ids
from tocsearch.errors import InvalidArgument
from tocsearch.models import Event
from tocsearch.summarize import CallableSummarizer, ExtractiveSummarizer, Summary, SummaryBullet

T0 = datetime(2026, 1, 30, 14, 0, tzinfo=timezone.utc)

CODING = [
    (
        "user",
        "Our API keeps returning 401 after the JWT access token expires, even though the "
        "refresh token is still valid. Can you look at auth/middleware.py?",
    ),
    (
        "assistant",
        "I'll check the middleware. The refresh flow really should issue a new access token "
        "before the old one expires.",
    ),
    (
        "tool",
        "auth/middleware.py:42: if token.exp < now: raise Unauthorized(401)\n"
        "auth/middleware.py:57: refresh = request.cookies.get('refresh_token')",
    ),
    (
        "assistant",
        "Found it: the middleware rejects the expired JWT with 401 before it ever reads the "
        "refresh_token cookie. The check on line 42 runs first, so rotation never happens.",
    ),
    ("user", "Okay, that makes sense. So the thing is we should move the refresh check first?"),
    (
        "assistant",
        "Yes. I moved the refresh handling above the expiry check and added a test in "
        "tests/test_auth.py that sends an expired JWT with a valid refresh token.",
    ),
    ("tool", "pytest tests/test_auth.py ... 12 passed in 0.84s"),
    (
        "user",
        "Great. Also the Postgres connection pool keeps timing out during the migration, any idea?",
    ),
    (
        "assistant",
        "The migration holds an exclusive lock on the sessions table, so every pooled "
        "Postgres connection waits until the pool timeout. Run it with lock_timeout set to 5s.",
    ),
    ("user", "Thanks, I'll set lock_timeout in alembic env.py and rerun it tonight."),
]

PERSONAL = [
    (
        "user",
        "Hey Melanie! I went to the LGBTQ support group yesterday and it was really powerful.",
    ),
    ("assistant", "That sounds amazing, Caroline! What stood out to you?"),
    (
        "user",
        "The transgender stories were so inspiring. It made me think about adoption again; "
        "I want to give a kid a loving home.",
    ),
    (
        "assistant",
        "Caroline, you would be a wonderful parent. Have you looked at adoption agencies yet?",
    ),
    (
        "user",
        "Yes, I researched three adoption agencies that support LGBTQ parents. I'm meeting "
        "one in Boston next week.",
    ),
    ("assistant", "I painted a sunset over the lake last weekend, painting keeps me calm."),
]

PLACEHOLDERS = re.compile(r"conversation segment|first message|total events", re.IGNORECASE)


def events_of(lines: Sequence[tuple[str, str]]) -> list[Event]:
    made = []
    for index, (role, text) in enumerate(lines):
        when = T0 + timedelta(minutes=2 * index)
        kind = {"user": "user_message", "assistant": "assistant_message", "tool": "tool_result"}
        made.append(
            Event(
                event_id=ids.event_id(when, f"e{index}"),
                session_id="s1",
                timestamp=when,
                role=role,
                event_type=kind[role],
                text=text,
            )
        )
    return made


@pytest.mark.parametrize("lines", [CODING, PERSONAL], ids=["coding", "personal"])
def test_titles_have_five_to_ten_whole_words(lines: list[tuple[str, str]]) -> None:
    """The title is 5-10 words, none cut mid-word, and not a placeholder or the first message."""
    events = events_of(lines)
    summary = ExtractiveSummarizer().summarize_events(events)
    words = summary.title.split()
    assert 5 <= len(words) <= 10, summary.title
    assert not PLACEHOLDERS.search(summary.title)
    assert not events[0].text.startswith(summary.title)
    assert "/" not in summary.title
    text = " ".join(event.text for event in events).casefold()
    for word in words:
        assert word.strip(",").casefold() in text or word == "and", word


def test_coding_keywords_are_the_distinctive_terms_in_their_own_casing() -> None:
    """JWT and "refresh token" make the keywords, in their original casing; filler and bare
    numbers such as 401 do not."""
    summary = ExtractiveSummarizer().summarize_events(events_of(CODING))
    assert 3 <= len(summary.keywords) <= 7
    assert "refresh token" in summary.keywords
    assert any("JWT" in keyword.split() for keyword in summary.keywords)
    folded = {keyword.casefold() for keyword in summary.keywords}
    assert folded.isdisjoint({"really", "thing", "okay", "thanks", "the", "great", "idea", "401"})


def test_personal_keywords_keep_names_and_topics() -> None:
    """Caroline, adoption and LGBTQ are keywords; "really" is not."""
    summary = ExtractiveSummarizer().summarize_events(events_of(PERSONAL))
    assert {"Caroline", "LGBTQ"} <= set(summary.keywords)
    assert any("adoption" in keyword.split() for keyword in summary.keywords)
    assert "really" not in {keyword.casefold() for keyword in summary.keywords}


def test_bullets_are_informative_sentences_that_name_their_event() -> None:
    """3-5 bullets, each a sentence found in the last event it names (any earlier events it
    names are the tool output it was read from), without placeholders, covering both topics of
    the coding snippet."""
    events = events_of(CODING)
    by_id = {event.event_id: event for event in events}
    summary = ExtractiveSummarizer().summarize_events(events)
    assert 3 <= len(summary.bullets) <= 5
    for bullet in summary.bullets:
        *support, quoted = bullet.event_ids
        assert bullet.text.rstrip("…") in " ".join(by_id[quoted].text.split())
        assert all(by_id[event_id].role.value == "tool" for event_id in support)
        assert not PLACEHOLDERS.search(bullet.text)
    joined = " ".join(bullet.text for bullet in summary.bullets)
    assert "JWT" in joined
    assert "Postgres" in joined or "lock_timeout" in joined
    assert summary.text


def test_a_finding_cites_the_tool_output_it_was_read_from() -> None:
    """A statement right after tool output gets a grip range that starts at that output."""
    events = events_of(CODING)
    summary = ExtractiveSummarizer().summarize_events(events)
    found = [bullet for bullet in summary.bullets if bullet.text.startswith("Found it")]
    assert found
    assert found[0].event_ids == (events[2].event_id, events[3].event_id)


def test_tool_invocations_are_evidence_not_bullets_or_keywords() -> None:
    """ "[tool: Bash] ..." lines never become bullets or keywords when people said something,
    and the tool's name is never a keyword or a title word."""
    lines = [
        ("user", "The Postgres migration times out on the sessions table, can you check it?"),
        ("assistant", "[tool: Bash] psql orders -c 'SELECT pid, state FROM pg_stat_activity'"),
        ("tool", "48211 | idle in transaction | 47 min\n48212 | active | 0 min"),
        (
            "assistant",
            "Found it: a Metabase session idle in transaction for 47 minutes holds the lock, "
            "so the migration waits until lock_timeout cancels it.",
        ),
        ("assistant", "[tool: Bash] psql orders -c 'SELECT pg_terminate_backend(48211)'"),
        ("user", "Set idle_in_transaction_session_timeout for the metabase role to 10 minutes."),
    ]
    summary = ExtractiveSummarizer().summarize_events(events_of(lines))
    assert not any(bullet.text.startswith("[tool:") for bullet in summary.bullets)
    folded = {keyword.casefold() for keyword in summary.keywords}
    assert "bash" not in folded
    assert "bash" not in summary.title.casefold()
    assert not any(keyword.isdigit() for keyword in summary.keywords)
    assert "Metabase" in folded or "metabase" in folded


def test_long_sentences_are_cut_between_words() -> None:
    """A bullet longer than ``bullet_chars`` ends with "…" after a whole word."""
    sentence = (
        "The refresh endpoint deletes the old session row and inserts a new one, so two tabs "
        "that refresh at the same moment race: the first wins, the second finds no row and "
        "returns invalid_grant, which the frontend treats as a logout and sends users back."
    )
    summarizer = ExtractiveSummarizer(bullet_chars=80)
    summary = summarizer.summarize_events(events_of([("assistant", sentence)] * 1))
    for bullet in summary.bullets:
        assert len(bullet.text) <= 80
        if bullet.text.endswith("…"):
            head = bullet.text[:-1]
            assert sentence.startswith(head)
            assert sentence[len(head)] in " ,;:"


def test_bullets_do_not_repeat_a_sentence() -> None:
    """The same sentence said twice yields one bullet."""
    lines = [*CODING, CODING[0]]
    summary = ExtractiveSummarizer().summarize_events(events_of(lines))
    texts = [bullet.text for bullet in summary.bullets]
    assert len(texts) == len(set(texts))


def test_summaries_are_deterministic() -> None:
    """Two summarizers give equal summaries of the same events."""
    events = events_of(CODING)
    assert ExtractiveSummarizer().summarize_events(events) == ExtractiveSummarizer(
        max_bullets=5
    ).summarize_events(events)


def test_text_without_content_words_still_gets_a_real_summary() -> None:
    """Greetings only: the title and bullet are the text itself, not a placeholder."""
    summary = ExtractiveSummarizer().summarize_events(events_of([("user", "ok, thanks!")]))
    assert summary.title == "ok, thanks!"
    assert summary.bullets[0].text == "ok, thanks!"


def test_extra_stopwords_are_never_keywords() -> None:
    """A word passed as an extra stopword disappears from the keywords."""
    summary = ExtractiveSummarizer(extra_stopwords={"JWT"}).summarize_events(events_of(CODING))
    assert "JWT" not in summary.keywords


def test_children_roll_up_with_grips_and_merged_keywords() -> None:
    """A parent keeps 3-7 of its children's bullets with their grips, and ranks keywords that
    several children share first."""
    children = [
        Summary(
            "JWT refresh token and 401 fix",
            (
                SummaryBullet("The API returned 401 after JWT expiry.", grip_ids=("grip:1:a",)),
                SummaryBullet(
                    "Refresh handling moved before expiry check.", grip_ids=("grip:2:b",)
                ),
            ),
            ("JWT", "401", "refresh"),
        ),
        Summary(
            "Postgres migration lock timeout",
            (
                SummaryBullet("Migration held a lock on sessions.", grip_ids=("grip:3:c",)),
                SummaryBullet("Set lock_timeout to 5s for Postgres.", grip_ids=("grip:4:d",)),
            ),
            ("Postgres", "lock_timeout", "JWT"),
        ),
    ]
    parent = ExtractiveSummarizer().summarize_children(children)
    assert parent.keywords[0] == "JWT"
    assert {"Postgres", "lock_timeout", "refresh"} <= set(parent.keywords)
    assert "401" not in parent.keywords
    assert 3 <= len(parent.bullets) <= 4
    known = {"grip:1:a", "grip:2:b", "grip:3:c", "grip:4:d"}
    for bullet in parent.bullets:
        assert bullet.grip_ids
        assert set(bullet.grip_ids) <= known
    assert {bullet.grip_ids[0] for bullet in parent.bullets} & {"grip:1:a", "grip:2:b"}
    assert {bullet.grip_ids[0] for bullet in parent.bullets} & {"grip:3:c", "grip:4:d"}
    assert parent.title
    assert parent.text


def test_identical_child_bullets_merge_and_pool_their_grips() -> None:
    """The same statement in two children becomes one parent bullet citing both grips."""
    same = "Set lock_timeout to 5s for Postgres."
    children = [
        Summary("Postgres one", (SummaryBullet(same, grip_ids=("grip:1:a",)),), ("Postgres",)),
        Summary("Postgres two", (SummaryBullet(same, grip_ids=("grip:2:b",)),), ("Postgres",)),
    ]
    parent = ExtractiveSummarizer().summarize_children(children)
    assert [bullet.grip_ids for bullet in parent.bullets] == [("grip:1:a", "grip:2:b")]


def test_callable_summarizer_wraps_plain_functions() -> None:
    """on_events is used for segments; without on_children, parents use the fallback."""

    def first_line(events: Sequence[Event]) -> Summary:
        return Summary(
            "First event line",
            (SummaryBullet(events[0].text[:40], event_ids=(events[0].event_id,)),),
        )

    summarizer = CallableSummarizer(first_line)
    events = events_of(CODING)
    assert summarizer.summarize_events(events).title == "First event line"
    child = summarizer.summarize_events(events)
    rolled = summarizer.summarize_children([child])
    assert rolled.title == "First event line"


def test_callable_summarizer_refuses_a_non_summary() -> None:
    """A callable that returns something else is reported by name."""
    summarizer = CallableSummarizer(lambda events: "a title")  # type: ignore[arg-type,return-value]
    with pytest.raises(InvalidArgument, match="on_events must return a Summary"):
        summarizer.summarize_events(events_of(CODING))


def test_summary_records_refuse_blank_text() -> None:
    """A blank title or bullet is an InvalidArgument naming the field."""
    with pytest.raises(InvalidArgument, match="title"):
        Summary("  ")
    with pytest.raises(InvalidArgument, match="text"):
        SummaryBullet("")
