"""What a caller of `Runner.run_streamed` sees, as neutral updates.

The model's output reaches the caller as raw Responses events (`raw_response_event`): text deltas, function-call
argument deltas (the call's id and name come with its ``output_item.added``), reasoning deltas (the signature comes
with ``output_item.done``). What the runner itself adds reaches the caller as run-item events: ``tool_output`` for a
tool result. Run-item events that repeat a model item already streamed raw (``tool_called``,
``message_output_created``, ``reasoning_item_created``) add nothing. The SDK does not stream approval interruptions
("approvals represent interruptions, not streamed items"): a streaming caller finds them on the result's
``interruptions`` once the stream ends, so `StreamDecoder.pause` reports them as the run's last update, in the
message they close.

Updates of one neutral message share its group as `message_id`, so folding them gives the final response's messages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from agents import ToolApprovalItem
from agents.stream_events import RawResponsesStreamEvent, RunItemStreamEvent, StreamEvent
from openai.types.responses import (
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseReasoningItem,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseReasoningTextDeltaEvent,
    ResponseRefusalDeltaEvent,
    ResponseTextDeltaEvent,
)

from harness.adapters.openai_agents.convert import as_mapping, group_of, reasoning_of, run_item_entries
from harness.contents import Content, FunctionCall, Reasoning, Text, Update

# Run-item events for items the model produced, which the raw events already delivered.
_MODEL_ITEM_EVENTS = frozenset({"tool_called", "message_output_created", "reasoning_item_created"})


@dataclass(frozen=True)
class _Item:
    message_id: str
    call_id: str = ""
    own_id: str | None = None  # a reasoning item's id of its own (not one the adapter made)


@dataclass
class _Message:
    """The assistant message streamed last: its message id and the neutral message (group) it came from."""

    message_id: str
    group: str | None


@dataclass
class StreamDecoder:
    """Turns the events of one streamed run into neutral updates, in order."""

    approval_id: Callable[[ToolApprovalItem], str]
    _items: dict[str, _Item] = field(default_factory=lambda: {})
    _message: _Message | None = None

    def updates(self, event: StreamEvent) -> list[Update]:
        if isinstance(event, RawResponsesStreamEvent):
            return self._raw(event.data)
        if isinstance(event, RunItemStreamEvent) and event.name not in _MODEL_ITEM_EVENTS:
            updates = [Update(entry.role, (entry.content,), entry.group)
                       for entry in run_item_entries(event.item, self.approval_id)]
            if any(update.role != "assistant" for update in updates):
                self._message = None
            return updates
        return []

    def pause(self, interruptions: Sequence[ToolApprovalItem], earlier: Sequence[Update]) -> list[Update]:
        """The interruptions a streamed run ended with, as the caller reads them off the result after the stream: one
        last update, in the assistant message streamed last (as the final response puts them) or a message of its
        own."""
        entries = [entry for item in interruptions for entry in run_item_entries(item, self.approval_id)]
        if not entries:
            return []
        joins = bool(earlier) and earlier[-1].role == "assistant"
        message_id = earlier[-1].message_id if joins else "pause"
        return [Update("assistant", tuple(entry.content for entry in entries), message_id)]

    def _raw(self, data: object) -> list[Update]:
        if isinstance(data, ResponseOutputItemAddedEvent):
            return self._added(data)
        if isinstance(data, ResponseTextDeltaEvent | ResponseRefusalDeltaEvent):
            return self._update(data.item_id, Text(data.delta))
        if isinstance(data, ResponseFunctionCallArgumentsDeltaEvent):
            item = self._items.get(data.item_id, _Item(data.item_id))
            return self._update(data.item_id, FunctionCall(item.call_id, "", data.delta))
        if isinstance(data, ResponseReasoningTextDeltaEvent | ResponseReasoningSummaryTextDeltaEvent):
            kind = "summary" if isinstance(data, ResponseReasoningSummaryTextDeltaEvent) else "text"
            own_id = self._items.get(data.item_id, _Item(data.item_id)).own_id
            return self._update(data.item_id, Reasoning(data.delta, item_id=own_id, kind=kind))
        if isinstance(data, ResponseOutputItemDoneEvent) and isinstance(data.item, ResponseReasoningItem):
            # The signature or payload comes with the finished item, as the final one of its fragments.
            done = reasoning_of(as_mapping(data.item))
            payload = replace(done, text="")
            return self._update(data.item.id, payload) if done.signature or done.data is not None else []
        return []

    def _added(self, event: ResponseOutputItemAddedEvent) -> list[Update]:
        raw = event.item
        raw_id = str(getattr(raw, "id", None) or f"output-{event.output_index}")
        group = group_of(raw_id)
        call_id = str(getattr(raw, "call_id", "") or "")
        own_id = raw_id if raw.type == "reasoning" and group is None else None
        self._items[raw_id] = _Item(self._message_of(raw_id, group), call_id, own_id)
        if raw.type == "function_call":
            return self._update(raw_id, FunctionCall(call_id, str(getattr(raw, "name", "")), ""))
        return []

    def _message_of(self, raw_id: str, group: str | None) -> str:
        """The message an item's updates go to, as `convert.group_entries` groups the final response's items: an
        item without a group (a reasoning item with an id of its own) joins the assistant message streamed last,
        and the first grouped item names the message it opened."""
        current = self._message
        if current is not None and (group is None or current.group is None or current.group == group):
            current.group = current.group or group
            return current.message_id
        self._message = _Message(group or raw_id, group)
        return self._message.message_id

    def _update(self, raw_id: str, content: Content) -> list[Update]:
        item = self._items.get(raw_id, _Item(group_of(raw_id) or raw_id))
        return [Update("assistant", (content,), item.message_id)]
