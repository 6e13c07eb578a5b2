"""Reading an AG-UI server-sent event stream with the protocol's own event models (`ag_ui.core.Event`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

from ag_ui.core import Event
from pydantic import TypeAdapter, ValidationError

from harness.contents import JSON
from harness.contract import TransportEvent

_EVENT: TypeAdapter[Any] = TypeAdapter(Event)
# Bookkeeping the protocol allows on every event; not what the checks judge.
_UNJUDGED = frozenset({"type", "timestamp", "rawEvent"})
UNPARSEABLE = "UNPARSEABLE"  # an event the protocol's models refuse, kept so the well-formedness check sees it


def parse_event(data: str) -> TransportEvent:
    try:
        event = _EVENT.validate_json(data)
    except ValidationError as refused:
        return TransportEvent(UNPARSEABLE, {"data": data, "error": str(refused).splitlines()[0]})
    dumped = cast(dict[str, JSON], event.model_dump(mode="json", by_alias=True, exclude_none=True))
    return TransportEvent(str(dumped.get("type")), {k: v for k, v in dumped.items() if k not in _UNJUDGED})


async def read_events(lines: AsyncIterator[str]) -> list[TransportEvent]:
    """Every event of the stream in order; comments (keepalives) and event names are transport, not events."""
    events: list[TransportEvent] = []
    data: list[str] = []
    async for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line.strip() and data:
            events.append(parse_event("\n".join(data)))
            data = []
    if data:
        events.append(parse_event("\n".join(data)))
    return events
