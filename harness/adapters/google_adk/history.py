"""A caller's messages as ADK takes them: session events to append before the run, and the run's new message.

ADK keeps a conversation as the events of a session; a caller restoring a conversation it kept itself writes those
events into a session (`BaseSessionService.append_event`) and sends its new input as the run's ``new_message``. The
events are written as ADK writes them:

- a user message is an event authored by ``user``; an assistant message one authored by the agent, role ``model``;
  tool results one authored by the agent under the user role (how ADK files a function response event);
- a user-input request for a call is ADK's long-running call: the call is among its model event's
  ``long_running_tool_ids``, and the caller's result for it is a function response;
- an approval request is ADK's confirmation request: the pending response ADK's `FunctionTool` writes for the call
  while it waits (an event whose ``requested_tool_confirmations`` names the call), then an
  ``adk_request_confirmation`` function call by the agent, long-running, whose arguments carry the original call and
  the `ToolConfirmation` asked for (the caller's view folds that pair into the one request, `events`);
- a decision is the caller's function response to that call, ``{"confirmed": true|false}``, as ADK documents it;
- a pending-approval placeholder result (`APPROVAL_PENDING`) written for a call awaiting its decision is ADK's own
  pending response for it, written once (with its approval request's, when the history holds that).

The caller's messages after the last assistant message (its text, decisions and answers to calls that wait for it)
are the run's new message, one user content as an ADK client sends it; everything else is history, the results it
replays after that message and its pending placeholders included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.adk.tools.tool_confirmation import ToolConfirmation
from google.genai import types

from harness.adapters.google_adk.convert import CONFIRMATION_CALL, content_part
from harness.contents import (
    ApprovalRequest,
    ApprovalResponse,
    FunctionCall,
    FunctionResult,
    Message,
    UserInputRequest,
    placeholder_results,
)

# What ADK's FunctionTool returns for a call awaiting confirmation, and the hint it asks with.
PENDING_ERROR = "This tool call requires confirmation, please approve or reject."
HISTORY_INVOCATION = "caller-history"


def confirmation_hint(name: str) -> str:
    return (f"Please approve or reject the tool call {name}() by responding with a FunctionResponse with an "
            "expected ToolConfirmation payload.")


class ApprovalIds:
    """The neutral id of each ADK confirmation request (ADK's are random; reports want stable ones), both ways."""

    def __init__(self) -> None:
        self._neutral: dict[str, str] = {}
        self._adk: dict[str, str] = {}

    def neutral(self, adk_id: str) -> str:
        known = self._neutral.get(adk_id)
        if known is None:
            known = f"adk-confirmation-{len(self._neutral) + 1}"
            self._neutral[adk_id] = known
            self._adk[known] = adk_id
        return known

    def adk(self, neutral_id: str) -> str:
        """The ADK id of a request the caller names; a request the caller wrote itself keeps its own id."""
        return self._adk.get(neutral_id, neutral_id)


@dataclass
class CallerInput:
    """The session events a turn's input adds before the run, and the run's new message."""

    events: list[Event] = field(default_factory=lambda: [])
    new_message: types.Content | None = None


def _call_payload(call: FunctionCall) -> dict[str, object]:
    arguments = dict(call.arguments) if not isinstance(call.arguments, str) else {}
    return {"id": call.call_id, "name": call.name, "args": arguments}


def confirmation_request_part(request: ApprovalRequest, ids: ApprovalIds) -> types.Part:
    call = request.function_call
    confirmation = ToolConfirmation(hint=confirmation_hint(call.name))
    return types.Part(function_call=types.FunctionCall(
        id=ids.adk(request.id), name=CONFIRMATION_CALL,
        args={"originalFunctionCall": _call_payload(call),
              "toolConfirmation": confirmation.model_dump(by_alias=True, exclude_none=True)}))


def decision_part(decision: ApprovalResponse, ids: ApprovalIds) -> types.Part:
    return types.Part(function_response=types.FunctionResponse(
        id=ids.adk(decision.id), name=CONFIRMATION_CALL, response={"confirmed": decision.approved}))


def _response_id(part: types.Part) -> str:
    return part.function_response.id or "" if part.function_response is not None else ""


class InputBuilder:
    """Builds the events of one turn's caller messages; `names` holds the function name of every call id seen."""

    def __init__(self, agent: str, ids: ApprovalIds, names: dict[str, str]) -> None:
        self.agent = agent
        self.ids = ids
        self.names = names
        self._pending: set[str] = set()  # calls whose pending response is written
        # The last assistant message's gated calls and confirmation request, written after its tool results: ADK
        # files a batch's settled results and its pending responses in one event, then asks for the confirmation.
        self._held: tuple[list[str], Event | None] = ([], None)

    def _event(self, author: str, role: str, parts: list[types.Part], **extra: object) -> Event:
        return Event(invocation_id=HISTORY_INVOCATION, author=author,
                     content=types.Content(role=role, parts=parts), **extra)  # type: ignore[arg-type]

    def _assistant(self, message: Message) -> list[Event]:
        parts: list[types.Part] = []
        requests: list[types.Part] = []
        waiting = {c.function_call.call_id for c in message.contents
                   if isinstance(c, UserInputRequest) and c.function_call is not None}
        for content in message.contents:
            if isinstance(content, FunctionCall):
                self.names[content.call_id] = content.name
            if isinstance(content, ApprovalRequest):
                requests.append(confirmation_request_part(content, self.ids))
            elif (part := content_part(content, self.names)) is not None:
                parts.append(part)
        extra: dict[str, object] = {"long_running_tool_ids": waiting} if waiting else {}
        gated = [c.function_call.call_id for c in message.contents if isinstance(c, ApprovalRequest)]
        confirmation = None
        if requests:
            long_running = {p.function_call.id for p in requests if p.function_call and p.function_call.id}
            confirmation = self._event(self.agent, "model", requests, long_running_tool_ids=long_running)
        self._held = (gated, confirmation)
        return [self._event(self.agent, "model", parts, **extra)] if parts else []

    def _response_event(self, settled: list[FunctionResult], pending_ids: list[str]) -> list[Event]:
        """One function response event: settled results, and ADK's pending response for each call awaiting
        confirmation that has none yet (named in the event's ``requested_tool_confirmations``)."""
        fresh = [c for c in dict.fromkeys(pending_ids) if c not in self._pending]
        self._pending.update(fresh)
        parts = [p for r in settled if (p := content_part(r, self.names)) is not None]
        parts += [types.Part(function_response=types.FunctionResponse(
            id=c, name=self.names.get(c, ""), response={"error": PENDING_ERROR})) for c in fresh]
        # In the calls' order, as ADK merges a batch's responses.
        order = list(self.names)
        parts.sort(key=lambda part: order.index(i) if (i := _response_id(part)) in order else len(order))
        if not parts:
            return []
        confirmations = {c: ToolConfirmation(hint=confirmation_hint(self.names.get(c, ""))) for c in fresh}
        extra: dict[str, object] = {"actions": EventActions(requested_tool_confirmations=confirmations)} \
            if confirmations else {}
        return [self._event(self.agent, "user", parts, **extra)]

    def flush(self) -> list[Event]:
        """The held confirmation request when no tool results follow it: ADK's pending responses, then the request."""
        gated, confirmation = self._held
        self._held = ([], None)
        return self._response_event([], gated) + ([confirmation] if confirmation is not None else [])

    def _results(self, results: list[FunctionResult], placeholders: set[int]) -> list[Event]:
        gated, confirmation = self._held
        self._held = ([], None)
        settled = [r for r in results if id(r) not in placeholders]
        pending = gated + [r.call_id for r in results if id(r) in placeholders]
        return self._response_event(settled, pending) + ([confirmation] if confirmation is not None else [])

    def _user(self, message: Message) -> list[Event]:
        parts: list[types.Part] = []
        for content in message.contents:
            if isinstance(content, ApprovalResponse):
                parts.append(decision_part(content, self.ids))
            elif (part := content_part(content, self.names)) is not None:
                parts.append(part)
        return [self._event("user", "user", parts)] if parts else []

    def message_events(self, message: Message, placeholders: set[int]) -> list[Event]:
        if message.role == "tool":
            results = [c for c in message.contents if isinstance(c, FunctionResult)]
            return self._results(results, placeholders)
        held = self.flush()
        if message.role == "assistant":
            return held + self._assistant(message)
        # A system message has no place in an ADK session (instructions are the agent's); it is sent as user text.
        return held + self._user(message)

    def build(self, messages: str | Sequence[Message]) -> CallerInput:
        if isinstance(messages, str):
            return CallerInput([], types.Content(role="user", parts=[types.Part(text=messages)]))
        placeholders = placeholder_results(messages)
        history, new = split_new_input(messages, placeholders)
        events = [e for m in history for e in self.message_events(m, placeholders)] + self.flush()
        # The caller's new input (its text, decisions and answers) is one new message, as an ADK client sends it:
        # ADK reads the decisions of a resume from the last user event only.
        parts = [p for m in new for e in self.message_events(m, placeholders)
                 for p in (e.content.parts or [] if e.content else [])]
        return CallerInput(events, types.Content(role="user", parts=parts) if parts else None)


def split_new_input(messages: Sequence[Message], placeholders: set[int]) -> tuple[list[Message], list[Message]]:
    """The caller's history, and its new input: the messages after the last assistant message, less the tool
    results it replays (results of calls that did not wait for the caller, and pending placeholders)."""
    tail = len(messages)
    while tail > 0 and messages[tail - 1].role != "assistant":
        tail -= 1
    asked = {c.function_call.call_id for m in messages for c in m.contents
             if isinstance(c, UserInputRequest) and c.function_call is not None}
    called = {c.call_id for m in messages[:tail] if m.role == "assistant" for c in m.contents
              if isinstance(c, FunctionCall)}

    def replayed(message: Message) -> bool:
        return message.role == "tool" and all(
            id(c) in placeholders or (isinstance(c, FunctionResult) and c.call_id in called and c.call_id not in asked)
            for c in message.contents)

    trailing = list(messages[tail:])
    return [*messages[:tail], *(m for m in trailing if replayed(m))], [m for m in trailing if not replayed(m)]
