"""genai `Content` and `Part` (what ADK's events and model requests hold) <-> the neutral contents, both ways.

- Text parts are `Text`; text parts marked ``thought`` are `Reasoning`, their ``thought_signature`` (bytes) the
  reasoning's opaque signature (as text; the scripts write text signatures).
- A `function_call` part is a `FunctionCall`; a `function_response` part is a `FunctionResult`. ADK wraps what a
  tool returns that is not a dict as ``{"result": value}`` and reports a refusal or failure as ``{"error": text}``,
  so those two shapes are read back as the value and as an error result; any other dict is the result itself.
- Role ``model`` is the assistant; a ``user`` content holding only function responses is a tool message (ADK sends
  tool results under the user role, as Gemini does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from google.genai import types

from harness.contents import JSON, Content, FunctionCall, FunctionResult, Message, Reasoning, Role, Text

# The name ADK gives the function call that carries a tool confirmation request to the caller.
CONFIRMATION_CALL = "adk_request_confirmation"


def signature_bytes(signature: str | None) -> bytes | None:
    return signature.encode() if signature is not None else None


def signature_text(signature: bytes | None) -> str | None:
    return signature.decode(errors="backslashreplace") if signature is not None else None


def function_arguments(call: types.FunctionCall) -> dict[str, JSON]:
    return dict(cast(Mapping[str, JSON], call.args or {}))


def response_payload(result: FunctionResult) -> dict[str, Any]:
    """A neutral result as the function response ADK would have written for it."""
    if result.error:
        return {"error": result.result}
    if isinstance(result.result, dict):
        return dict(result.result)
    return {"result": result.result}


def result_value(response: Mapping[str, Any] | None) -> tuple[JSON, bool]:
    """A function response's payload as a neutral result value, and whether it reports an error."""
    payload = dict(response or {})
    if set(payload) == {"result"}:
        return cast(JSON, payload["result"]), False
    if set(payload) == {"error"}:
        return cast(JSON, payload["error"]), True
    return cast(JSON, payload), False


def part_content(part: types.Part) -> Content | None:
    """One part as a neutral content; `None` for parts the neutral vocabulary has no word for (media, code)."""
    if part.function_call is not None:
        call = part.function_call
        return FunctionCall(call.id or "", call.name or "", function_arguments(call))
    if part.function_response is not None:
        response = part.function_response
        value, error = result_value(response.response)
        return FunctionResult(response.id or "", value, error)
    if part.text is not None:
        if part.thought:
            return Reasoning(part.text, signature_text(part.thought_signature))
        return Text(part.text)
    if part.thought and part.thought_signature is not None:
        return Reasoning("", signature_text(part.thought_signature))
    return None


def content_messages(content: types.Content) -> list[Message]:
    """A genai content as neutral messages: function responses under the user role form a tool message."""
    messages: list[Message] = []
    model = content.role == "model"
    for part in content.parts or []:
        converted = part_content(part)
        if converted is None:
            continue
        role: Role = "assistant" if model else ("tool" if isinstance(converted, FunctionResult) else "user")
        if messages and messages[-1].role == role:
            messages[-1] = Message(role, messages[-1].contents + (converted,))
        else:
            messages.append(Message(role, (converted,)))
    return messages


def content_part(content: Content, names: Mapping[str, str]) -> types.Part | None:
    """A neutral content as a genai part; `names` gives a result's function name by call id."""
    if isinstance(content, Text):
        return types.Part(text=content.text)
    if isinstance(content, Reasoning):
        return types.Part(text=content.text, thought=True, thought_signature=signature_bytes(content.signature))
    if isinstance(content, FunctionCall):
        arguments = dict(content.arguments) if isinstance(content.arguments, Mapping) else {}
        return types.Part(function_call=types.FunctionCall(id=content.call_id or None, name=content.name,
                                                           args=arguments))
    if isinstance(content, FunctionResult):
        return types.Part(function_response=types.FunctionResponse(
            id=content.call_id or None, name=names.get(content.call_id, ""), response=response_payload(content)))
    return None


def model_parts(messages: Sequence[Message]) -> list[types.Part]:
    """A scripted model response's contents as the parts of one model content (ADK's one content per call)."""
    parts: list[types.Part] = []
    for message in messages:
        for content in message.contents:
            part = content_part(content, {})
            if part is not None:
                parts.append(part)
    return parts
