"""Conversion between the neutral vocabulary and LangChain's messages, both ways.

- A neutral assistant message is one `AIMessage`: its text as the message content, its calls as `tool_calls`
  (arguments that are no JSON object as `invalid_tool_calls`, as LangChain's own parsers keep them). LangChain
  holds one `AIMessage` per model call, so a scripted response of several assistant messages becomes one.
- A neutral tool message (a batch of results) is one `ToolMessage` per result; read back, consecutive
  `ToolMessage`s are one neutral tool message again. A result's value is the text LangChain makes of a tool's
  output (strings as they are, anything else as JSON), and ``status="error"`` is a neutral error result.
- Approval contents are control, not conversation: they never become LangChain messages (`approvals` maps them to
  interrupts and resume commands), and a pending-approval placeholder the caller wrote is dropped.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from harness.adapters.langchain.blocks import block_content, reasoning_block, text_block
from harness.contents import (
    JSON,
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Role,
    Text,
    parse_arguments,
    placeholder_results,
)


class UnsupportedContentError(ValueError):
    """A neutral content LangChain has no message for (a hosted call, a user-input request)."""


def result_text(value: JSON) -> str:
    """A tool's output as LangChain's tool node puts it into a `ToolMessage`: text as it is, else JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _call_dict(call: FunctionCall, arguments: Mapping[str, JSON]) -> dict[str, Any]:
    return {"id": call.call_id, "name": call.name, "args": dict(arguments), "type": "tool_call"}


def _invalid_call(call: FunctionCall) -> dict[str, Any]:
    return {"id": call.call_id, "name": call.name, "args": call.arguments, "error": "arguments are not a JSON object",
            "type": "invalid_tool_call"}


def ai_message(contents: Iterable[Content], message_id: str | None = None) -> AIMessage:
    """One `AIMessage` holding `contents`: its text (and reasoning, as content blocks in order), then its calls in
    order; other contents are refused."""
    blocks: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    invalid: list[dict[str, Any]] = []
    for content in contents:
        if isinstance(content, Text):
            blocks.append(text_block(content))
        elif isinstance(content, Reasoning):
            blocks.append(reasoning_block(content))
        elif isinstance(content, FunctionCall) and content.server_label is None:
            if isinstance(content.arguments, str):
                invalid.append(_invalid_call(content))
            else:
                calls.append(_call_dict(content, content.arguments))
        elif not isinstance(content, ApprovalRequest):
            raise UnsupportedContentError(f"LangChain's AIMessage has no place for {type(content).__name__}")
    reasoned = any(b["type"] == "reasoning" for b in blocks)
    body: Any = blocks if reasoned else "".join(str(b["text"]) for b in blocks)  # plain text stays a string
    return AIMessage(content=body, tool_calls=calls, invalid_tool_calls=invalid, id=message_id)


def _tool_message(result: FunctionResult) -> ToolMessage:
    return ToolMessage(content=result_text(result.result), tool_call_id=result.call_id,
                       status="error" if result.error else "success")


def to_langchain(messages: Sequence[Message]) -> list[BaseMessage]:
    """The caller's neutral messages as the LangChain messages a caller writes (control contents left out)."""
    placeholders = placeholder_results(messages)
    converted: list[BaseMessage] = []
    for message in messages:
        kept = [c for c in message.contents
                if not isinstance(c, ApprovalRequest | ApprovalResponse) and id(c) not in placeholders]
        if not kept:
            continue
        if message.role == "tool":
            converted.extend(_tool_message(c) for c in kept if isinstance(c, FunctionResult))
        elif message.role == "assistant":
            converted.append(ai_message(kept))
        else:
            text = "".join(c.text for c in kept if isinstance(c, Text))
            converted.append(SystemMessage(text) if message.role == "system" else HumanMessage(text))
    return converted


# --- LangChain -> neutral ---------------------------------------------------------------------------------------


def text_of(content: str | list[str | dict[str, Any]]) -> str:
    """The text of a message's content: a string, or the text of its text blocks."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def content_of(content: str | list[str | dict[str, Any]]) -> list[Content]:
    """A message content's reasoning and text, in order (adjacent text joined; empty text left out)."""
    if isinstance(content, str):
        return [Text(content)] if content else []
    found: list[Content] = []
    for block in content:
        converted = block_content(block)
        if isinstance(converted, Text) and found and isinstance(found[-1], Text):
            found[-1] = Text(found[-1].text + converted.text)
        elif converted is not None and not (isinstance(converted, Text) and not converted.text):
            found.append(converted)
    return found


def _result_value(message: ToolMessage) -> JSON:
    content = cast(str | list[str | dict[str, Any]], message.content)
    if isinstance(content, str):
        return content
    if all(isinstance(part, str) for part in content):
        return cast(JSON, list(content))
    return text_of(content)


def ai_contents(message: AIMessage) -> tuple[Content, ...]:
    """An `AIMessage`'s reasoning and text in order, then its calls (valid and invalid) in order."""
    contents = content_of(cast(str | list[str | dict[str, Any]], message.content))
    # A copy: the neutral form is a snapshot, which must not change when the loop changes the message later.
    contents.extend(FunctionCall(str(c.get("id") or ""), c["name"], copy.deepcopy(cast(dict[str, JSON], c["args"])))
                    for c in message.tool_calls)
    contents.extend(FunctionCall(str(c.get("id") or ""), str(c.get("name") or ""), parse_arguments(c.get("args")))
                    for c in message.invalid_tool_calls)
    return tuple(contents)


def _role_of(message: BaseMessage) -> Role:
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, ToolMessage):
        return "tool"
    if isinstance(message, SystemMessage):
        return "system"
    return "user"


def neutral_messages(messages: Sequence[BaseMessage]) -> tuple[Message, ...]:
    """LangChain messages as neutral ones: consecutive `ToolMessage`s are one tool message (one batch)."""
    converted: list[Message] = []
    for message in messages:
        role = _role_of(message)
        if isinstance(message, AIMessage):
            contents = ai_contents(message)
        elif isinstance(message, ToolMessage):
            contents = (FunctionResult(message.tool_call_id, _result_value(message), message.status == "error"),)
        else:
            contents = (Text(text_of(cast(str | list[str | dict[str, Any]], message.content))),)
        if role == "tool" and converted and converted[-1].role == "tool":
            converted[-1] = Message("tool", converted[-1].contents + contents)
        elif contents:
            converted.append(Message(role, contents))
    return tuple(converted)
