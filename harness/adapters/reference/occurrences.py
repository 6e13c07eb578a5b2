"""Which contents of one model response are the same call occurrence: the reference loop's identity for each call
it receives, and the copies of one service output item that a response may repeat."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from harness.contents import Content, FunctionCall, Message


def _item_key(call: FunctionCall) -> tuple[str, str] | None:
    """The service's identity of a call's output item, when it gives one: its call id and item id."""
    return None if call.item_id is None else (call.call_id, call.item_id)


def distinct_calls(calls: Sequence[FunctionCall]) -> list[FunctionCall]:
    """One model response's calls, each service output item once.

    A response may carry the same call twice, in two of its messages: same call id, same service item id. A
    service mints one item id per output item, so the copies are one call, which runs once (row "Calls across
    response messages": every actionable call is executed once). Calls without an item id are never merged: two
    calls that share only a call id are two calls ("reused call ids are correlated by logical occurrence").
    """
    items = RepeatedItems()
    return [call for call in calls if items.first(call)]


class RepeatedItems:
    """Drops the repeated copies of an output item from what one model response adds to the model-bound history:
    that history holds one call/result pair per logical occurrence, while the caller sees the response as sent."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, str]] = set()

    def first(self, call: FunctionCall) -> bool:
        """Whether `call` is the first copy of its output item seen here (always, for a call without an item id)."""
        key = _item_key(call)
        if key is None:
            return True
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def without_repeats(self, message: Message) -> Message:
        """`message` without the later copies of an item; a nameless streamed fragment continues its call and stays."""
        return Message(message.role, tuple(c for c in message.contents
                                           if not (isinstance(c, FunctionCall) and c.name) or self.first(c)))


class OccurrenceStamp:
    """Gives each call of one model response the loop's identity for its occurrence, so that a caller can name the
    occurrence it answers when the model reuses a call id. Streamed fragments of one call share it: a fragment with
    a name starts a new call. Copies of one service output item (same call id and item id) are one occurrence."""

    def __init__(self, response: int) -> None:
        self._response = response
        self._seen: dict[str, int] = {}
        self._items: dict[tuple[str, str], str] = {}

    def stamp(self, contents: Sequence[Content]) -> tuple[Content, ...]:
        stamped: list[Content] = []
        for content in contents:
            if isinstance(content, FunctionCall) and content.occurrence_id is None:
                content = dataclasses.replace(content, occurrence_id=self._identity(content))  # noqa: PLW2901
            stamped.append(content)
        return tuple(stamped)

    def _identity(self, call: FunctionCall) -> str:
        item = _item_key(call)
        if item is not None and item in self._items:
            return self._items[item]
        if call.name or call.call_id not in self._seen:
            self._seen[call.call_id] = self._seen.get(call.call_id, 0) + 1
        identity = f"occ-{self._response}-{call.call_id}-{self._seen[call.call_id]}"
        if item is not None:
            self._items[item] = identity
        return identity
