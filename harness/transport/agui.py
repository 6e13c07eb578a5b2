"""AG-UI events as the protocol defines them, read from their JSON form (`TransportEvent`): the messages a run's
events fold to, the run's messages snapshot, and the synthetic approval controls the endpoint adds for its UI.

Shared by the adapter (to build what the caller saw) and the event-level checks (to judge it), so both read the
events one way; it imports no framework, so the checks run without the extra installed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import cast

from harness.contents import JSON
from harness.contract import TransportEvent

# The tool call the endpoint adds beside a call that awaits approval, for a UI to render a confirmation.
CONFIRM_CHANGES = "confirm_changes"
APPROVAL_EVENT = "function_approval_request"
INPUT_REQUEST_EVENT = "oauth_consent_request"

AgUiMessage = dict[str, JSON]


def text(value: JSON) -> str:
    return value if isinstance(value, str) else ""


def mapping(value: JSON) -> Mapping[str, JSON]:
    return cast(Mapping[str, JSON], value) if isinstance(value, dict) else {}


def items(value: JSON) -> list[JSON]:
    return cast(list[JSON], value) if isinstance(value, list) else []


def fold(events: Sequence[TransportEvent]) -> list[AgUiMessage]:
    """The messages a run's events describe, in the shape of a messages snapshot, in order of first appearance."""
    messages: dict[str, AgUiMessage] = {}
    calls: dict[str, dict[str, JSON]] = {}
    for event in events:
        fields = event.fields
        if event.type in ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK"):
            message_id = text(fields.get("messageId"))
            message = messages.setdefault(message_id, {"id": message_id, "role": text(fields.get("role"))
                                                       or "assistant"})
            message["content"] = text(message.get("content")) + text(fields.get("delta"))
        elif event.type in ("TOOL_CALL_START", "TOOL_CALL_CHUNK") and text(fields.get("toolCallId")) not in calls:
            parent = text(fields.get("parentMessageId")) or text(fields.get("toolCallId"))
            message = messages.setdefault(parent, {"id": parent, "role": "assistant"})
            call: dict[str, JSON] = {"id": text(fields.get("toolCallId")), "type": "function",
                                     "function": {"name": text(fields.get("toolCallName")), "arguments": ""}}
            message["toolCalls"] = [*items(message.get("toolCalls")), call]
            calls[text(fields.get("toolCallId"))] = call
            if event.type == "TOOL_CALL_CHUNK":
                _append_arguments(call, text(fields.get("delta")))
        elif event.type in ("TOOL_CALL_ARGS", "TOOL_CALL_CHUNK"):
            call = calls.get(text(fields.get("toolCallId")), {})
            if call:
                _append_arguments(call, text(fields.get("delta")))
        elif event.type == "TOOL_CALL_RESULT":
            message_id = text(fields.get("messageId"))
            messages[message_id] = {"id": message_id, "role": "tool", "toolCallId": text(fields.get("toolCallId")),
                                    "content": text(fields.get("content"))}
    return list(messages.values())


def _append_arguments(call: dict[str, JSON], delta: str) -> None:
    function = dict(mapping(call.get("function")))
    function["arguments"] = text(function.get("arguments")) + delta
    call["function"] = function


def snapshot(events: Sequence[TransportEvent]) -> list[AgUiMessage] | None:
    """The messages of the run's last messages snapshot, or None when it sent none."""
    last = next((e for e in reversed(events) if e.type == "MESSAGES_SNAPSHOT"), None)
    if last is None:
        return None
    return [dict(mapping(m)) for m in items(last.fields.get("messages"))]


def sent_messages(request: Mapping[str, JSON]) -> list[AgUiMessage]:
    return [dict(mapping(m)) for m in items(request.get("messages"))]


def comparable(messages: Sequence[AgUiMessage]) -> list[JSON]:
    """What two renderings of the same messages share: roles, texts, tool calls with parsed arguments, results.
    Message ids are left out (the snapshot may split or join the streamed messages; the checks compare a result's
    message id on its own); an assistant message with neither text nor calls says nothing."""
    form: list[JSON] = []
    for message in messages:
        role = text(message.get("role"))
        if role == "tool":
            form.append({"role": role, "toolCallId": text(message.get("toolCallId")),
                         "content": text(message.get("content"))})
            continue
        calls: list[JSON] = [_comparable_call(mapping(c)) for c in items(message.get("toolCalls"))]
        content = text(message.get("content"))
        if content or calls:
            form.append({"role": role, "content": content, "toolCalls": calls})
    return form


def _comparable_call(call: Mapping[str, JSON]) -> JSON:
    function = mapping(call.get("function"))
    return {"id": text(call.get("id")), "name": text(function.get("name")),
            "arguments": parsed(text(function.get("arguments")))}


def parsed(arguments: str) -> JSON:
    try:
        return cast(JSON, json.loads(arguments))
    except ValueError:
        return arguments


def control_calls(events: Sequence[TransportEvent]) -> dict[str, str]:
    """The synthetic `confirm_changes` calls of the events, by their id, each with the call id it confirms
    (empty when its arguments name none)."""
    found: dict[str, str] = {}
    for message in fold(events):
        for call in items(message.get("toolCalls")):
            function = mapping(mapping(call).get("function"))
            if text(function.get("name")) == CONFIRM_CHANGES:
                target = mapping(parsed(text(function.get("arguments"))))
                found[text(mapping(call).get("id"))] = text(target.get("function_call_id"))
    return found


def approval_requests(events: Sequence[TransportEvent]) -> dict[str, Mapping[str, JSON]]:
    """The approval requests the run announced (custom events), by approval id, each with its function call."""
    found: dict[str, Mapping[str, JSON]] = {}
    for event in events:
        if event.type == "CUSTOM" and text(event.fields.get("name")) == APPROVAL_EVENT:
            value = mapping(event.fields.get("value"))
            found[text(value.get("id"))] = mapping(value.get("function_call"))
    return found


def input_requests(events: Sequence[TransportEvent]) -> list[str]:
    """The consent links of the run's user-input requests, in order: the endpoint sends each request a tool's
    execution raised as a custom event of its own (a consent request is the generic one the framework offers)."""
    return [text(mapping(e.fields.get("value")).get("consent_link")) for e in events
            if e.type == "CUSTOM" and text(e.fields.get("name")) == INPUT_REQUEST_EVENT]


def interrupts(events: Sequence[TransportEvent]) -> list[Mapping[str, JSON]]:
    """The open interrupts the run finished with."""
    finished = next((e for e in reversed(events) if e.type == "RUN_FINISHED"), None)
    if finished is None:
        return []
    return [mapping(i) for i in items(mapping(finished.fields.get("outcome")).get("interrupts"))]
