"""Messages between the neutral vocabulary and AG-UI's message models (`ag_ui.core`), as an AG-UI client keeps
them: the caller's messages become protocol messages, and a snapshot's messages become what the caller saw, with
the endpoint's synthetic `confirm_changes` calls shown as the approval requests they stand for."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ag_ui.core import AssistantMessage, SystemMessage, ToolCall, ToolMessage, UserMessage
from ag_ui.core import FunctionCall as AgUiFunctionCall

from harness.contents import (
    JSON,
    ApprovalRequest,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Text,
    parse_arguments,
)
from harness.transport.agui import CONFIRM_CHANGES, AgUiMessage, items, mapping, text


def result_text(result: JSON) -> str:
    return result if isinstance(result, str) else json.dumps(result)


def to_agui(message: Message, new_id: Callable[[], str]) -> list[AgUiMessage]:
    """One neutral message as protocol messages (one per tool result); approval contents are not messages in
    AG-UI (decisions travel as resume entries, requests as interrupts), so they are left out."""
    texts = "".join(c.text for c in message.contents if isinstance(c, Text))
    if message.role == "tool":
        return [_dump(ToolMessage(id=new_id(), content=result_text(c.result), tool_call_id=c.call_id,
                                  error=result_text(c.result) if c.error else None))
                for c in message.contents if isinstance(c, FunctionResult)]
    if message.role == "assistant":
        calls = [ToolCall(id=c.call_id, function=AgUiFunctionCall(
            name=c.name, arguments=c.arguments if isinstance(c.arguments, str) else json.dumps(dict(c.arguments))))
            for c in message.contents if isinstance(c, FunctionCall)]
        if not texts and not calls:
            return []
        return [_dump(AssistantMessage(id=new_id(), content=texts or None, tool_calls=calls or None))]
    if message.role == "system":
        return [_dump(SystemMessage(id=new_id(), content=texts))]
    if not texts:
        return []
    return [_dump(UserMessage(id=new_id(), content=texts))]


def _dump(model: Any) -> AgUiMessage:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def from_agui(message: AgUiMessage, approvals: Mapping[str, str]) -> Message | None:
    """A snapshot message as the caller sees it. `approvals` maps each call awaiting approval to its approval id:
    the message's calls come first, then an approval request for each of them that awaits one. The endpoint's
    `confirm_changes` calls are how a UI renders those requests, not calls of the model, so they are left out."""
    role = text(message.get("role"))
    if role == "tool":
        return Message("tool", (FunctionResult(text(message.get("toolCallId")), text(message.get("content")),
                                               error=message.get("error") is not None),))
    contents: list[Content] = []
    if text(message.get("content")):
        contents.append(Text(text(message.get("content"))))
    calls: list[FunctionCall] = []
    for raw in items(message.get("toolCalls")):
        function = mapping(mapping(raw).get("function"))
        if text(function.get("name")) != CONFIRM_CHANGES:
            calls.append(FunctionCall(text(mapping(raw).get("id")), text(function.get("name")),
                                      parse_arguments(text(function.get("arguments")))))
    contents.extend(calls)
    contents.extend(ApprovalRequest(approvals[c.call_id], c) for c in calls if c.call_id in approvals)
    if role not in ("user", "assistant", "system") or not contents:
        return None
    return Message("assistant" if role == "assistant" else "system" if role == "system" else "user",
                   tuple(contents))


def from_agui_all(messages: Sequence[AgUiMessage], approvals: Mapping[str, str]) -> tuple[Message, ...]:
    """AG-UI gives each tool result a message of its own; the results of one batch are one tool message."""
    read: list[Message] = []
    for message in (from_agui(m, approvals) for m in messages):
        if message is None:
            continue
        if read and message.role == "tool" and read[-1].role == "tool":
            read[-1] = Message("tool", (*read[-1].contents, *message.contents))
        else:
            read.append(message)
    return tuple(read)
