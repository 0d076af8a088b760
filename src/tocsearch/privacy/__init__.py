"""Privacy: forget conversations, redact a pattern, and keep conversations out of a store.

- :func:`forget_events` removes a session, a project, a time range or given events, and
  rebuilds every node, grip, digest and index row derived from them.
- :func:`redact_events` replaces every match of a regular expression (Python :mod:`re`) in event
  texts and metadata with ``[redacted]``, then rebuilds what derived from those events.
- :class:`IgnoreList` (kept in the store) and the ``.tocsearch-ignore`` marker file keep
  conversations out of ``ingest`` and ``sync``; a forget adds what it removed to the list.

The MCP server offers none of this: removing history is for its owner, not for an agent.

>>> from tocsearch import InMemoryStorage, TocBuilder
>>> from tocsearch.examples import load_example_events
>>> store = InMemoryStorage()
>>> events = load_example_events()
>>> _ = TocBuilder(store).ingest(events)
>>> report = forget_events(store, ForgetRequest(session=events[0].session_id))
>>> report.events > 0, store.get_session_events(events[0].session_id)
(True, [])
"""

from tocsearch.privacy._forget import (
    ForgetReport,
    RedactReport,
    RedactRequest,
    finish_pending,
    forget_events,
    redact_events,
)
from tocsearch.privacy._ignore import (
    IgnoreList,
    load_ignore_list,
    marked_folder,
    save_ignore_list,
    without_ignored,
)
from tocsearch.privacy._select import ForgetRequest

__all__ = [
    "ForgetReport",
    "ForgetRequest",
    "IgnoreList",
    "RedactReport",
    "RedactRequest",
    "finish_pending",
    "forget_events",
    "load_ignore_list",
    "marked_folder",
    "redact_events",
    "save_ignore_list",
    "without_ignored",
]
