"""Conversion between the neutral vocabulary and pydantic-ai's message parts.

One pydantic-ai part is one neutral content. A pydantic-ai history is seen two ways:

- by the model (`model_bound_messages`): every part of every request and response, requests split into system,
  user and tool messages, and tool results as the text a provider puts on the wire (`model_response_str`);
- by the caller (`part_content`): the parts of the messages a run returned.

Either way a tool result is the text pydantic-ai gives the model for it (`model_response_str`), as every provider
sends it and as the other implementations report results; only a result the caller wrote itself is read back as
the value it wrote (`raw`).

Reasoning keeps its opaque signature (`ThinkingPart.signature`). A call the provider ran itself is a
`NativeToolCallPart`, which the agent never executes: it carries the neutral `informational_only` mark, and the
hosted `server_label` as its `provider_name`. A tool result's `outcome` other than ``'success'`` (failed, denied,
retried, interrupted) is a neutral error result. Parts with no neutral counterpart (tool-availability notes,
instruction records, files) have none.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from harness.contents import (
    JSON,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    ReasoningKind,
    Response,
    Role,
    Text,
    Usage,
    parse_arguments,
)
from pydantic_ai.messages import (
    BaseToolCallPart,
    FinishReason,
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    NativeToolCallPart,
    RetryFeedbackPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

# The provider name FunctionModel's streamed reasoning carries when it has a signature; non-streamed reasoning
# gets the same, so both response modes hold the same parts.
SIGNATURE_PROVIDER = "function"
# The `ThinkingPart.provider_details` keys holding a reasoning item's kind and opaque payload.
REASONING_KIND = "kind"
REASONING_DATA = "data"
_FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop", "length": "length", "content_filter": "content_filter", "tool_calls": "tool_call",
    "tool_call": "tool_call", "error": "error",
}


class UnsupportedContentError(ValueError):
    """A neutral content pydantic-ai has no message part for (hosted approvals, for example)."""


# --- pydantic-ai -> neutral -----------------------------------------------------------------------------------


def json_value(value: object) -> JSON:
    """A tool's value as JSON: JSON types as they are, anything else as its JSON text or `str`."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    try:
        return cast(JSON, json.loads(json.dumps(value)))
    except (TypeError, ValueError):
        return str(value)


def call_arguments(part: BaseToolCallPart) -> Mapping[str, JSON] | str:
    """A call's arguments as a dict, or the raw string when it is not a JSON object (e.g. still streaming)."""
    args = cast(object, part.args)
    if isinstance(args, Mapping):  # pydantic-ai may hold non-JSON values the model never sent as such
        return cast(dict[str, JSON], json_value(cast(Mapping[str, object], args)))
    return parse_arguments(args)


def call_from_part(part: BaseToolCallPart) -> FunctionCall:
    """A `ToolCallPart` as a call; a `NativeToolCallPart` as an informational-only (or hosted) one."""
    if isinstance(part, NativeToolCallPart):
        return FunctionCall(part.tool_call_id, part.tool_name, call_arguments(part), part.provider_name is None,
                            part.provider_name)
    return FunctionCall(part.tool_call_id, part.tool_name, call_arguments(part))


def result_from_part(part: ToolReturnPart, *, raw: bool = False) -> FunctionResult:
    """A tool result as the text the model is given, or (`raw`) as the value the part holds."""
    value: JSON = json_value(part.content) if raw else part.model_response_str(wrap_if_error=False)
    return FunctionResult(part.tool_call_id, value, part.outcome != "success")


def _reasoning(part: ThinkingPart) -> Reasoning:
    """A thinking part as a reasoning item: its id, and the kind and payload kept in its `provider_details`."""
    details = part.provider_details or {}
    kind = details.get(REASONING_KIND)
    return Reasoning(part.content, part.signature, part.id,
                     cast(ReasoningKind, kind) if kind in ("summary", "encrypted") else "text",
                     json_value(details.get(REASONING_DATA)))


def _user_text(part: UserPromptPart) -> str:
    if isinstance(part.content, str):
        return part.content
    return "".join(item for item in part.content if isinstance(item, str))


def part_content(part: ModelRequestPart | ModelResponsePart, *, raw: bool = False) -> Content | None:
    """One part as one neutral content, or `None` for a part the neutral vocabulary has no form for."""
    if isinstance(part, TextPart):
        return Text(part.content)
    if isinstance(part, ThinkingPart):
        return _reasoning(part)
    if isinstance(part, BaseToolCallPart):
        return call_from_part(part)
    if isinstance(part, ToolReturnPart):
        return result_from_part(part, raw=raw)
    if isinstance(part, UserPromptPart):
        return Text(_user_text(part))
    if isinstance(part, SystemPromptPart):
        return Text(part.content)
    if isinstance(part, RetryFeedbackPart):
        return Text(part.content if isinstance(part.content, str) else json.dumps(part.content, default=str))
    return None


def part_role(part: ModelRequestPart) -> Role | None:
    """The neutral role of a request part; `None` for parts that are not messages."""
    if isinstance(part, SystemPromptPart):
        return "system"
    if isinstance(part, UserPromptPart | RetryFeedbackPart):
        return "user"
    if isinstance(part, ToolReturnPart):
        return "tool"
    return None


def _request_messages(request: ModelRequest) -> list[Message]:
    messages: list[Message] = []
    for part in request.parts:
        role, content = part_role(part), part_content(part)
        if role is None or content is None:
            continue
        if messages and messages[-1].role == role:
            messages[-1] = Message(role, (*messages[-1].contents, content))
        else:
            messages.append(Message(role, (content,)))
    return messages


def model_bound_messages(history: Iterable[ModelMessage]) -> tuple[Message, ...]:
    """The history a model call receives, as neutral messages (empty messages left out)."""
    messages: list[Message] = []
    for message in history:
        if isinstance(message, ModelRequest):
            messages.extend(_request_messages(message))
            continue
        contents = tuple(c for c in (part_content(p) for p in message.parts) if c is not None)
        if contents:
            messages.append(Message("assistant", contents))
    return tuple(messages)


# --- neutral -> pydantic-ai -----------------------------------------------------------------------------------


def arguments_json(call: FunctionCall) -> str:
    return call.arguments if isinstance(call.arguments, str) else json.dumps(dict(call.arguments))


def call_part(call: FunctionCall) -> ToolCallPart | NativeToolCallPart:
    """A call the loop may run as a `ToolCallPart`; one it must not (informational, hosted) as a native call."""
    args: dict[str, Any] | str = call.arguments if isinstance(call.arguments, str) else dict(call.arguments)
    if call.informational_only or call.server_label is not None:
        return NativeToolCallPart(call.name, args, call.call_id, provider_name=call.server_label)
    return ToolCallPart(call.name, args, call.call_id)


def thinking_part(reasoning: Reasoning) -> ThinkingPart:
    """A reasoning item as the thinking part a provider returns: id and signature in their own fields, the item's
    kind and opaque payload in `provider_details` (pydantic-ai's field for data that must be sent back as is)."""
    details: dict[str, Any] = {}
    if reasoning.kind != "text":
        details[REASONING_KIND] = reasoning.kind
    if reasoning.data is not None:
        details[REASONING_DATA] = reasoning.data
    named = reasoning.signature or reasoning.item_id or details
    return ThinkingPart(reasoning.text, id=reasoning.item_id, signature=reasoning.signature,
                        provider_name=SIGNATURE_PROVIDER if named else None, provider_details=details or None)


def response_part(content: Content) -> ModelResponsePart:
    if isinstance(content, Text):
        return TextPart(content.text)
    if isinstance(content, Reasoning):
        return thinking_part(content)
    if isinstance(content, FunctionCall):
        return call_part(content)
    raise UnsupportedContentError(f"pydantic-ai has no model response part for a {type(content).__name__}")


def result_part(result: FunctionResult, tool_name: str) -> ToolReturnPart:
    return ToolReturnPart(tool_name, result.result, result.call_id, outcome="failed" if result.error else "success")


def request_part(content: Content, role: Role, tool_names: Mapping[str, str]) -> ModelRequestPart:
    """A caller-written content of a system, user or tool message; `tool_names` names results' calls by id."""
    if isinstance(content, FunctionResult):
        return result_part(content, tool_names.get(content.call_id, ""))
    if isinstance(content, Text):
        return SystemPromptPart(content.text) if role == "system" else UserPromptPart(content.text)
    raise UnsupportedContentError(f"pydantic-ai has no request part for a {type(content).__name__} in a "
                                  f"{role} message")


def finish_reason(raw: str | None) -> FinishReason | None:
    return _FINISH_REASONS.get(raw) if raw is not None else None


def response_to_model(response: Response) -> ModelResponse:
    """A scripted response as the one `ModelResponse` a model call returns: every message's parts, in order.

    A model call returns one response message in pydantic-ai, so a script spreading its calls over several
    assistant messages arrives as one.
    """
    parts = [response_part(c) for m in response.messages for c in m.contents if not isinstance(c, Usage)]
    return ModelResponse(parts=parts, finish_reason=finish_reason(response.finish_reason))


def contents_of(parts: Sequence[ModelRequestPart | ModelResponsePart]) -> tuple[Content, ...]:
    return tuple(c for c in (part_content(p) for p in parts) if c is not None)
