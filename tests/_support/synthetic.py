"""Synthetic but realistic coding-session histories, seeded and deterministic, for tests and for
measuring ingest speed (``python benchmarks/bench_ingest.py``)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

from tocsearch import ids
from tocsearch.models import Event, EventRole, EventType

START = datetime(2025, 12, 29, 8, 0, tzinfo=timezone.utc)

TOPICS: tuple[tuple[str, ...], ...] = (
    ("JWT", "refresh token", "401", "auth/middleware.py", "expiry", "rotation"),
    ("Postgres", "migration", "lock_timeout", "connection pool", "alembic", "index"),
    ("flaky CI", "pytest", "GitHub Actions", "cache key", "retry", "timeout"),
    ("Docker", "image size", "multi-stage build", "Dockerfile", "layer cache", "alpine"),
    ("React", "useEffect", "re-render", "components/Table.tsx", "memo", "props"),
    ("Redis", "eviction", "maxmemory", "TTL", "cache stampede", "lock"),
    ("Kubernetes", "readiness probe", "OOMKilled", "deployment.yaml", "HPA", "pod"),
    ("S3", "presigned URL", "CORS", "bucket policy", "upload", "403"),
)

USER_LINES = (
    "Why does {a} keep failing after the {b} change?",
    "Can you check {c}? I think the {a} handling is wrong.",
    "We still see {d} errors around {b} in production.",
    "Please make the {e} configurable and add a test for {a}.",
    "What is the safest way to change {b} without breaking {f}?",
)
ASSISTANT_LINES = (
    "I looked at {c}: the {a} path skips {b} when {d} is set, so the {e} never happens.",
    "The root cause is the {b}; {a} reads it before {f} is ready. I changed the order in {c}.",
    "I added a regression test for {a} with {d} and it passes now.",
    "Setting {e} to a lower value fixes the {f} problem; the {b} stays unchanged.",
    "Here is the plan: first isolate {a}, then rewrite {b}, then verify {c} under load.",
)
TOOL_LINES = (
    "$ grep -n {a} {c}\n{c}:42: {b} = load({d})\n{c}:57: if not {e}: raise Error({f})",
    "===== 12 passed, 1 failed in 3.21s =====\nFAILED tests/test_{f}.py::test_{e} - {a} mismatch",
)


def history(events: int, *, seed: int = 7, sessions_per_day: int = 4) -> list[Event]:
    """About ``events`` events of coding sessions over consecutive days, in time order."""
    rng = random.Random(seed)
    made: list[Event] = []
    day = 0
    session = 0
    while len(made) < events:
        clock = START + timedelta(days=day, minutes=rng.randint(0, 120))
        for _ in range(sessions_per_day):
            session += 1
            topic = TOPICS[rng.randrange(len(TOPICS))]
            clock = _session(rng, made, f"s{session}", topic, clock, events)
            clock += timedelta(minutes=rng.randint(35, 240))
            if len(made) >= events:
                break
        day += 1
    return made


def _session(
    rng: random.Random,
    made: list[Event],
    session: str,
    topic: tuple[str, ...],
    clock: datetime,
    limit: int,
) -> datetime:
    turns = rng.randint(8, 40)
    for turn in range(turns):
        if len(made) >= limit:
            break
        shuffled = list(topic)
        rng.shuffle(shuffled)
        fill = dict(zip("abcdef", shuffled, strict=False))
        lines: tuple[str, ...]
        if turn % 3 == 0:
            role, kind, lines = EventRole.USER, EventType.USER_MESSAGE, USER_LINES
        elif turn % 3 == 1:
            role, kind, lines = EventRole.ASSISTANT, EventType.ASSISTANT_MESSAGE, ASSISTANT_LINES
        else:
            role, kind, lines = EventRole.TOOL, EventType.TOOL_RESULT, TOOL_LINES
        text = " ".join(rng.choice(lines).format(**fill) for _ in range(rng.randint(1, 3)))
        if role is EventRole.TOOL and rng.random() < 0.2:
            text = text + "\n" + "log line " * rng.randint(100, 400)
        made.append(
            Event(
                event_id=ids.event_id(clock, f"{session}-{turn}"),
                session_id=session,
                timestamp=clock,
                role=role,
                event_type=kind,
                text=text,
            )
        )
        clock += timedelta(seconds=rng.randint(5, 150))
    return clock
