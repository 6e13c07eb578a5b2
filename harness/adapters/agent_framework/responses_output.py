"""What a caller of a Responses-API server reads back: output items and server-sent events, in neutral contents.

The caller of a hosting server sees only what the API returns: a response's `output` items (non-streaming), or
the events of a streamed response. Items are read in order; consecutive items of one role make one message, as
the framework's own responses group them (a call, its result, the answer: three messages).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from harness.contents import (
    ROLES,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Response,
    Role,
    Text,
    Update,
    parse_arguments,
)


class UnreadableOutputError(ValueError):
    """The server returned something a Responses caller cannot read (an unknown item, malformed events)."""


def item_contents(item: Mapping[str, Any]) -> tuple[Role, tuple[Content, ...]]:
    """One output item as the role it speaks in and its contents."""
    kind = item.get("type")
    if kind == "message":
        parts = cast(Sequence[Mapping[str, Any]], item.get("content") or [])
        texts = tuple(Text(str(p.get("text", ""))) for p in parts if p.get("type") in ("output_text", "input_text"))
        role = str(item.get("role") or "assistant")
        if role not in ROLES:
            raise UnreadableOutputError(f"the server returned a message with role {role!r}")
        return role, texts
    if kind == "function_call":
        return "assistant", (FunctionCall(str(item.get("call_id")), str(item.get("name")),
                                          parse_arguments(item.get("arguments"))),)
    if kind == "function_call_output":
        output = item.get("output")
        # The API carries a tool's output as text (or content parts); the caller reads it as sent.
        return "tool", (FunctionResult(str(item.get("call_id")), cast(Any, output)),)
    raise UnreadableOutputError(f"the server returned an output item of type {kind!r}, which this caller cannot "
                                "read")


@dataclass
class _Grouper:
    """Numbers the messages consecutive items make, so streamed updates fold into the messages `output` makes."""

    role: Role | None = None
    number: int = 0

    def message_id(self, role: Role) -> str:
        if role != self.role:
            self.role = role
            self.number += 1
        return f"host-message-{self.number}"


def response_from_output(output: Sequence[Mapping[str, Any]]) -> Response:
    """A response's `output` items as the caller's response."""
    messages: list[Message] = []
    for item in output:
        role, contents = item_contents(item)
        if messages and messages[-1].role == role:
            messages[-1] = Message(role, messages[-1].contents + contents)
        else:
            messages.append(Message(role, contents))
    return Response(tuple(messages))


@dataclass(frozen=True)
class ServerEvent:
    name: str
    data: Mapping[str, Any]


def server_events(body: str) -> Iterator[ServerEvent]:
    """The events of a server-sent-event body (``event:`` and ``data:`` lines, a blank line ends each)."""
    name: str | None = None
    data: list[str] = []
    for line in [*body.splitlines(), ""]:
        if line.startswith("event:"):
            name = line[len("event:"):].strip()
        elif line.startswith("data:"):
            data.append(line[len("data:"):].strip())
        elif not line.strip() and name is not None:
            try:
                parsed = json.loads("\n".join(data))
            except ValueError as error:
                raise UnreadableOutputError(f"event {name!r} carries data that is not JSON: {error}") from error
            if not isinstance(parsed, dict):
                raise UnreadableOutputError(f"event {name!r} carries data that is not a JSON object")
            yield ServerEvent(name, cast(Mapping[str, Any], parsed))
            name, data = None, []


@dataclass(frozen=True)
class StreamedResponse:
    updates: tuple[Update, ...]
    response: Mapping[str, Any]  # the final response object (of the `response.completed` or `response.failed` event)


def streamed_response(body: str) -> StreamedResponse:
    """A streamed response as updates (one per finished output item) and the final response object it ends with."""
    grouper = _Grouper()
    updates: list[Update] = []
    final: Mapping[str, Any] | None = None
    for event in server_events(body):
        if event.name == "response.output_item.done":
            role, contents = item_contents(cast(Mapping[str, Any], event.data.get("item") or {}))
            updates.append(Update(role, contents, grouper.message_id(role)))
        elif event.name in ("response.completed", "response.failed", "response.incomplete"):
            final = cast(Mapping[str, Any], event.data.get("response") or {})
    if final is None:
        raise UnreadableOutputError("the stream ended without a final response event")
    return StreamedResponse(tuple(updates), final)
