"""The runner's events as what the caller saw: streamed updates and the turn's response, in neutral contents.

- A model event (role ``model``) is an assistant message; its message id is a stable name for the event's id. The
  partial events of one streamed model response, and the complete event that ends it, take the message id of its
  first partial event: from 2.10.0 on they share one event id, while older releases give every event a new one
  (2.0.0's ``BaseLlmFlow`` mints a new id after each yielded event, partial or not), and a streamed response read
  by event id there would fall apart into one message per chunk.
- A function response event is a tool message. The responses it holds for calls awaiting confirmation (named in
  its ``requested_tool_confirmations``) are not results: they are ADK's pending marker, half of the confirmation
  request, so they are left out.
- A call of a long-running tool (a declaration-only tool, whose result the caller sends) that the model event lists
  in its ``long_running_tool_ids`` is a `UserInputRequest` for that call, after it in the same message.
- An ``adk_request_confirmation`` call is an `ApprovalRequest` for the call it carries (``originalFunctionCall``),
  filed under the message id of the model event holding that call, so it folds into that message when nothing comes
  between them.

In streaming mode the caller sees each partial model event as an update, then every complete event that is not the
end of a streamed model response (tool results, confirmation requests); the response is the fold of the complete
events, in both modes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from google.adk.events.event import Event

from harness.adapters.google_adk.convert import CONFIRMATION_CALL, part_content
from harness.adapters.google_adk.history import ApprovalIds
from harness.contents import (
    JSON,
    ApprovalRequest,
    Content,
    FunctionCall,
    Response,
    Update,
    UserInputRequest,
    fold_updates,
)


class EventReader:
    """Reads the events of one conversation; message ids stay stable across its turns."""

    def __init__(self, ids: ApprovalIds, names: dict[str, str]) -> None:
        self.ids = ids
        self.names = names  # every call's function name by call id, for results the caller writes later
        self._message_ids: dict[str, str] = {}
        self._call_messages: dict[str, str] = {}

    def alias(self, event: Event, streamed: Event) -> None:
        """Files `event`, a later partial event or the complete response ending a stream, under the message id of
        the stream's earlier partial events (releases before 2.10.0 give each event an id of its own)."""
        self._message_ids[event.id] = self.message_id(streamed)

    def message_id(self, event: Event) -> str:
        known = self._message_ids.get(event.id)
        if known is None:
            known = f"adk-event-{len(self._message_ids) + 1}"
            self._message_ids[event.id] = known
        return known

    def _request(self, call: Any) -> tuple[ApprovalRequest, str | None]:
        arguments = cast(Mapping[str, Any], call.args or {})
        original = cast(Mapping[str, Any], arguments.get("originalFunctionCall") or {})
        call_id = str(original.get("id") or "")
        function_call = FunctionCall(call_id, str(original.get("name") or ""),
                                     dict(cast(Mapping[str, JSON], original.get("args") or {})))
        return ApprovalRequest(self.ids.neutral(call.id or ""), function_call), self._call_messages.get(call_id)

    def _model_updates(self, event: Event) -> list[Update]:
        own = self.message_id(event)
        updates: list[Update] = []
        contents: list[Content] = []
        for part in event.content.parts or [] if event.content else []:
            call = part.function_call
            if call is not None and call.name == CONFIRMATION_CALL:
                request, message_id = self._request(call)
                updates.append(Update("assistant", (request,), message_id or own))
                continue
            content = part_content(part)
            if isinstance(content, FunctionCall) and not event.partial:
                self._call_messages[content.call_id] = own
                self.names[content.call_id] = content.name
            if content is not None:
                contents.append(content)
        if contents:
            updates.insert(0, Update("assistant", tuple(contents), own))
        waiting = set(event.long_running_tool_ids or ()) if not event.partial else set[str]()
        asks = tuple(UserInputRequest(c.call_id, c) for c in contents if isinstance(c, FunctionCall)
                     and c.call_id in waiting)
        if asks:
            updates.insert(1, Update("assistant", asks, own))
        return updates

    def _tool_updates(self, event: Event) -> list[Update]:
        pending = set(event.actions.requested_tool_confirmations or {})
        contents = tuple(c for part in (event.content.parts or [] if event.content else [])
                         if part.function_response is not None and part.function_response.id not in pending
                         and (c := part_content(part)) is not None)
        return [Update("tool", contents, self.message_id(event))] if contents else []

    def updates(self, event: Event) -> list[Update]:
        """The complete (or partial) event as the caller reads it."""
        if event.content is None:
            return []
        if event.content.role == "model" or event.get_function_calls():
            return self._model_updates(event)
        if event.get_function_responses():
            return self._tool_updates(event)
        return []


def response_of(reader: EventReader, events: Sequence[Event]) -> Response:
    """A turn's response: the fold of its complete events."""
    return fold_updates([u for e in events if not e.partial for u in reader.updates(e)])


def _ends_stream(event: Event) -> bool:
    """Whether a complete event is a model response (not a confirmation request the flow adds after it)."""
    return event.content is not None and event.content.role == "model" and any(
        p.function_call is None or p.function_call.name != CONFIRMATION_CALL for p in event.content.parts or [])


def _is_pause(update: Update) -> bool:
    return any(isinstance(c, ApprovalRequest | UserInputRequest) for c in update.contents)


def _unstreamed(update: Update, streamed_calls: set[str]) -> Update | None:
    """What the end of a streamed response adds to its partials: its pauses, and calls no partial carried (releases
    before progressive SSE streaming send a response's calls in its final response only)."""
    if _is_pause(update):
        return update
    calls = tuple(c for c in update.contents if isinstance(c, FunctionCall) and c.call_id not in streamed_calls)
    return Update(update.role, calls, update.message_id) if calls else None


def streamed_updates(reader: EventReader, events: Sequence[Event]) -> list[Update]:
    """What a streaming caller saw: partial model events, then complete events that do not end a streamed one."""
    updates: list[Update] = []
    streamed: Event | None = None  # the last partial event of the model response being streamed
    streamed_calls: set[str] = set()
    previous: Event | None = None  # the event before this one
    for event in events:
        if event.partial:
            if previous is not None and previous.partial and previous.author == event.author:
                reader.alias(event, previous)  # the same streamed response, whatever its event id
            streamed = event
            for update in reader.updates(event):
                streamed_calls.update(c.call_id for c in update.contents if isinstance(c, FunctionCall))
                updates.append(update)
        elif streamed is not None and _ends_stream(event):
            reader.alias(event, streamed)
            streamed = None
            # The end of a streamed response repeats it; only what no partial carried is news.
            updates.extend(u for u in (_unstreamed(u, streamed_calls) for u in reader.updates(event)) if u)
            streamed_calls = set()
        else:
            updates.extend(reader.updates(event))
        previous = event
    return updates
