"""Navigation: time hints, the Navigator walk, and the explainable result it returns."""

from tocsearch.navigate._event_refs import cited_event_ids
from tocsearch.navigate.navigator import Navigator
from tocsearch.navigate.result import (
    Evidence,
    EvidenceKind,
    NavigationResult,
    NavigationStep,
    StepMatch,
    StepPhase,
)
from tocsearch.navigate.seeder import EventSeeder, SegmentSeeder
from tocsearch.navigate.timehints import TimeHints, TimeRange, parse_time_hints

__all__ = [
    "EventSeeder",
    "Evidence",
    "EvidenceKind",
    "NavigationResult",
    "NavigationStep",
    "Navigator",
    "SegmentSeeder",
    "StepMatch",
    "StepPhase",
    "TimeHints",
    "TimeRange",
    "cited_event_ids",
    "parse_time_hints",
]
