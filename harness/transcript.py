"""Canonical, JSON-shaped transcripts: the form expectations, diffs, snapshots and reports compare."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from harness.contents import (
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Text,
    Update,
    Usage,
    UserInputRequest,
    content_kind,
    merge_contents,
)

WRAPPERS = ("approval_request", "approval_response", "user_input_request")


def call_form(call: FunctionCall) -> dict[str, Any]:
    form: dict[str, Any] = {"call_id": call.call_id, "name": call.name}
    if call.arguments not in ({}, ""):
        form["arguments"] = call.arguments if isinstance(call.arguments, str) else dict(call.arguments)
    if call.informational_only:
        form["informational_only"] = True
    if call.server_label is not None:
        form["server_label"] = call.server_label
    return form


def content_form(content: Content) -> dict[str, Any]:
    """A content in the scenario format's shape, defaults omitted, e.g. ``{"text": "hi"}``."""
    body: Any
    if isinstance(content, Text):
        body = content.text
    elif isinstance(content, Reasoning):
        body = {"text": content.text} | ({"signature": content.signature} if content.signature else {})
        if content.item_id is not None:
            body["id"] = content.item_id
        if content.kind != "text":
            body["kind"] = content.kind
        if content.data is not None:
            body["data"] = content.data
    elif isinstance(content, FunctionCall):
        body = call_form(content)
    elif isinstance(content, FunctionResult):
        body = {"call_id": content.call_id, "result": content.result} | ({"error": True} if content.error else {})
    elif isinstance(content, ApprovalRequest):
        body = {"call_id": content.function_call.call_id, "id": content.id,
                "function_call": call_form(content.function_call)}
    elif isinstance(content, ApprovalResponse):
        body = {"call_id": content.function_call.call_id, "approved": content.approved, "id": content.id,
                "function_call": call_form(content.function_call)}
        if content.standing is not None:
            body["standing"] = content.standing
    elif isinstance(content, UserInputRequest):
        body = {"id": content.id}
        if content.function_call is not None:
            body["call_id"] = content.function_call.call_id
            # The finalised call the request carries (a declaration-only call's complete arguments): compared only
            # where a scenario names it, as wrappers' fields are.
            body["function_call"] = call_form(content.function_call)
        if content.payload is not None:
            body["payload"] = content.payload
    else:
        assert isinstance(content, Usage)
        body = {"input_tokens": content.input_tokens, "output_tokens": content.output_tokens}
    return {content_kind(content): body}


def message_form(message: Message) -> dict[str, Any]:
    return {"role": message.role, "contents": [content_form(c) for c in merge_contents(message.contents)]}


def messages_form(messages: Iterable[Message]) -> list[dict[str, Any]]:
    return [message_form(m) for m in messages]


def normalised_flow(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Role-tagged contents in order, chunking folded, usage dropped and generated ids renamed by appearance.

    Two transcripts with equal flows show a caller the same thing, however they were split into messages.
    """
    flow: list[dict[str, Any]] = []
    contents: list[tuple[str, Content]] = []
    for message in messages:
        for content in merge_contents(message.contents):
            previous = contents[-1] if contents else None
            if previous and previous[0] == message.role and isinstance(previous[1], Text) and isinstance(content, Text):
                contents[-1] = (message.role, Text(previous[1].text + content.text))
            elif not isinstance(content, Usage):
                contents.append((message.role, content))
    ids: dict[str, str] = {}
    for role, content in contents:
        form = content_form(content)
        body = next(iter(form.values()))
        if isinstance(body, dict) and "id" in body:
            generated = str(body["id"])  # pyright: ignore[reportUnknownArgumentType]
            body["id"] = ids.setdefault(generated, f"<id {len(ids) + 1}>")
        flow.append({"role": role} | form)
    return flow


def stream_tokens(updates: Sequence[Update]) -> list[str]:
    """The order in which contents appear in a stream, e.g. ``["function_call c1", "text"]``: one token per content.

    Only the fragments a stream splits one content into (text chunks, a call's argument deltas: what
    `merge_contents` joins) make one token between them; every other content is a token of its own each time it
    appears, so three input requests for one call are three tokens and a stream that shows one of them is told
    apart from one that shows all three.
    """
    tokens: list[str] = []
    fragments: list[Content] = []  # the raw pieces of the content the last token stands for
    for update in updates:
        for content in update.contents:
            token = content_token(content)
            if token is None:
                continue
            if fragments and len(merge_contents((*fragments, content))) == 1:
                fragments.append(content)
                continue
            fragments = [content]
            tokens.append(token)
    return tokens


def content_token(content: Content) -> str | None:
    if isinstance(content, Usage):
        return None
    kind = content_kind(content)
    call_id = _call_id(content)
    return f"{kind} {call_id}" if call_id else kind


def _call_id(content: Content) -> str | None:
    if isinstance(content, FunctionCall | FunctionResult):
        return content.call_id
    if isinstance(content, ApprovalRequest | ApprovalResponse):
        return content.function_call.call_id
    if isinstance(content, UserInputRequest) and content.function_call is not None:
        return content.function_call.call_id
    return None


def render_flow(flow: Sequence[dict[str, Any]]) -> list[str]:
    """One readable line per content, for diffs."""
    lines: list[str] = []
    for item in flow:
        role = item["role"]
        kind, body = next((k, v) for k, v in item.items() if k != "role")
        lines.append(f"{role:>9} | {kind}: {json.dumps(body, sort_keys=True, default=str)}")
    return lines
