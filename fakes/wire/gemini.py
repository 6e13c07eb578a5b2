"""The Gemini API (`models/{model}:generateContent`, and `:streamGenerateContent?alt=sse` when streaming).

Validation rules, each with the error the real service returns (HTTP 400, status `INVALID_ARGUMENT`), as the
Gemini function-calling and thought-signature guides state the contract and users report it:
- `response-follows-call`: "Please ensure that function response turn comes immediately after a function call
  turn." — function responses answer the model turn right before them.
- `responses-match-calls`: "Please ensure that the number of function response parts is equal to the number of
  function call parts of the function call turn." — every call of a turn is answered, and nothing else.
- `thought-signature-replayed`: "Function call is missing a thought_signature in functionCall parts. This is
  required for tools to work correctly …" — a call the model emitted with a thought signature is replayed with
  that signature, on the same part.

Call ids: the API carries an optional `id` on calls and responses; the script's call ids are sent as such.
A thought signature travels as base64 on the part it belongs to; in the neutral vocabulary it is a reasoning item
with no text whose signature is that base64 text, right before its call, as the framework's client represents it.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

from fakes.wire.common import ServedPaths, as_list, as_mapping, grouped, texts, tool_names, usage_of
from fakes.wire.expressible import ScriptedScenario, found, results_in_response, shared_reason, written
from fakes.wire.service import ParsedRequest, ServiceState
from harness.contents import (
    JSON,
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Response,
    Role,
    Text,
    Update,
)
from harness.contract import Dialect
from harness.script import ModelStep, Rejection

_MERGED: frozenset[Role] = frozenset({"tool"})
_MODES = {"AUTO": "auto", "NONE": "none", "ANY": "required", "VALIDATED": "required"}


class Gemini(ServedPaths):
    name: Dialect = "gemini"
    paths = (":generateContent", ":streamGenerateContent")
    base_path = ""
    http_library = "httpx"

    def parse(self, body: Mapping[str, Any], state: ServiceState, path: str) -> ParsedRequest | Rejection:
        messages: list[Message] = []
        instruction = _texts(as_mapping(body.get("systemInstruction")).get("parts"))
        if instruction:
            messages.append(Message("system", instruction))
        for content in as_list(body.get("contents")):
            messages.extend(_turn_messages(as_mapping(content)))
        config = as_mapping(as_mapping(body.get("toolConfig")).get("functionCallingConfig"))
        mode = config.get("mode")
        return ParsedRequest(grouped(messages, _MERGED), _MODES.get(str(mode)) if mode is not None else None,
                             tool_names(body.get("tools"), _names), path.endswith(":streamGenerateContent"))

    def validate(self, body: Mapping[str, Any], parsed: ParsedRequest, state: ServiceState) -> list[Rejection]:
        rejections: list[Rejection] = []
        contents = [as_mapping(c) for c in as_list(body.get("contents"))]
        for index, content in enumerate(contents):
            parts = [as_mapping(p) for p in as_list(content.get("parts"))]
            responses = [as_mapping(p.get("functionResponse")) for p in parts if "functionResponse" in p]
            if responses:
                previous = [as_mapping(p) for p in as_list(contents[index - 1].get("parts"))] if index else []
                calls = [as_mapping(p.get("functionCall")) for p in previous if "functionCall" in p]
                if not calls or contents[index - 1].get("role") != "model":
                    rejections.append(_invalid("response-follows-call", "Please ensure that function response turn "
                                               "comes immediately after a function call turn."))
                elif len(calls) != len(responses) or _ids(calls) != _ids(responses):
                    rejections.append(_invalid("responses-match-calls", "Please ensure that the number of function "
                                               "response parts is equal to the number of function call parts of the "
                                               "function call turn."))
            if content.get("role") == "model":
                for position, part in enumerate(parts):
                    call = as_mapping(part.get("functionCall"))
                    issued = state.signatures.get(str(call.get("id"))) if call else None
                    if issued is not None and part.get("thoughtSignature") != issued:
                        rejections.append(_invalid(
                            "thought-signature-replayed", "Function call is missing a thought_signature in "
                            "functionCall parts. This is required for tools to work correctly, and missing "
                            "thought_signature may lead to degraded model performance. Additional data, function "
                            f"call `default_api:{call.get('name')}` , position {position + 1}."))
        return rejections

    def render(self, response: Response, response_id: str, state: ServiceState) -> dict[str, Any]:
        return _chunk(response_id, _parts(response.messages, state), response, final=True)

    def render_stream(self, step: ModelStep, updates: Sequence[Update], response_id: str,
                      state: ServiceState) -> list[str]:
        _parts(step.response.messages, state)  # the service remembers the signatures it issues
        # A call is streamed whole (its deltas joined), with the signature item before it; text as it comes.
        streamed = _joined_calls([Message("assistant", tuple(c for u in updates for c in u.contents))])[0].contents
        chunks: list[list[dict[str, Any]]] = []
        held: list[Content] = []
        for content in streamed:
            held.append(content)
            if not (isinstance(content, Reasoning) and not content.text):
                chunks.append(_parts([Message("assistant", tuple(held))], None))
                held = []
        events = [_chunk(response_id, parts, step.response, final=False) for parts in chunks if parts]
        events.append(_chunk(response_id, [], step.response, final=True))
        return [json.dumps(event) for event in events]

    def error_body(self, rejection: Rejection) -> dict[str, Any]:
        return {"error": {"code": rejection.status, "message": rejection.message, "status": "INVALID_ARGUMENT"}}

    def unexpressible(self, scenario: ScriptedScenario) -> str | None:
        reason = shared_reason(scenario, "a Gemini content") or results_in_response(scenario, False, "Gemini")
        if reason is not None:
            return reason
        for number, turn in enumerate(scenario.turns, start=1):
            if found(written(turn, "input"), lambda m: bool(m.get("server_label"))) is not None:
                return (f"turn {number}'s input holds a hosted (service-run) call: Gemini has no hosted calls, so "
                        "the client cannot send it")
        return unexpressible([step for turn in scenario.turns for step in turn.steps])

    def as_scripted(self, content: Content, state: ServiceState) -> Content:
        return content  # the scripted signatures are what the service sends: nothing of its own to take out

    def may_restate(self, content: Content) -> bool:
        return False


def unexpressible(steps: Sequence[ModelStep]) -> str | None:
    """Why a script cannot be served in Gemini's format, if it cannot."""
    for step in steps:
        contents = [c for m in step.response.messages for c in m.contents]
        if len(step.response.messages) > 1:
            return "a Gemini candidate is one content: the script's response has several assistant messages"
        for content in contents:
            if isinstance(content, (ApprovalRequest, ApprovalResponse)) or (
                    isinstance(content, FunctionCall) and content.server_label):
                return "Gemini has no hosted (service-run) calls or approvals"
            if isinstance(content, FunctionCall) and isinstance(content.arguments, str):
                return "Gemini call arguments are a JSON object; the script's are raw text"
            if isinstance(content, Reasoning) and (
                    content.item_id or content.kind != "text" or content.data is not None):
                return ("a Gemini thought has no item id, kind or opaque payload but its signature; the script's "
                        "reasoning item has one")
            if isinstance(content, Reasoning) and content.signature and not _is_base64(content.signature):
                return f"a Gemini thought signature is base64; the script's '{content.signature}' is not"
        if step.response.conversation_id is not None:
            return "Gemini's generateContent keeps no conversation on the service"
    return None


# --- parsing -------------------------------------------------------------------------------------------------------


def _turn_messages(content: Mapping[str, Any]) -> list[Message]:
    """One Gemini content as neutral messages: a model turn is one assistant message; a user turn's function
    responses are tool results, its other parts the user's."""
    parts = [as_mapping(p) for p in as_list(content.get("parts"))]
    if content.get("role") == "model":
        contents: list[Content] = []
        for part in parts:
            signature = part.get("thoughtSignature")
            if "functionCall" in part:
                if signature:
                    contents.append(Reasoning("", str(signature)))
                call = as_mapping(part.get("functionCall"))
                contents.append(FunctionCall(str(call.get("id") or call.get("name")), str(call.get("name")),
                                             cast(Mapping[str, JSON], as_mapping(call.get("args")))))
            elif part.get("thought"):
                contents.append(Reasoning(str(part.get("text", "")), str(signature) if signature else None))
            elif "text" in part:
                contents.append(Text(str(part.get("text"))))
        return [Message("assistant", tuple(contents))]
    results = [_result(as_mapping(p.get("functionResponse"))) for p in parts if "functionResponse" in p]
    texts = _texts(parts)
    messages: list[Message] = []
    if results:
        messages.append(Message("tool", tuple(results)))
    if texts:
        messages.append(Message("user", texts))
    return messages


def _result(response: Mapping[str, Any]) -> FunctionResult:
    payload = as_mapping(response.get("response"))
    call_id = str(response.get("id") or response.get("name"))
    value = payload["result"] if set(payload) == {"result"} else dict(payload)
    # A structured result travels as an object; the loop holds it as the JSON text its tool result became.
    return FunctionResult(call_id, value if isinstance(value, str) else json.dumps(value))


def _texts(parts: object) -> tuple[Content, ...]:
    """A content's text parts (its thoughts are reasoning, not text); parts are always a list."""
    return texts(as_list(parts), _answer_text)


def _answer_text(part: Mapping[str, Any]) -> str | None:
    return str(part.get("text")) if "text" in part and not part.get("thought") else None


def _names(tool: Mapping[str, Any]) -> list[str]:
    return [str(as_mapping(d).get("name")) for d in as_list(tool.get("functionDeclarations"))]


def _ids(parts: list[Mapping[str, Any]]) -> list[str]:
    return sorted(str(p.get("id")) for p in parts if p.get("id") is not None)


def _invalid(rule: str, message: str) -> Rejection:
    return Rejection(rule, message, 400, "contents")


# --- rendering -----------------------------------------------------------------------------------------------------


def _joined_calls(messages: list[Message]) -> list[Message]:
    """Streamed pieces of one call (id-less deltas) joined, as Gemini streams a call whole."""
    contents: list[Content] = []
    for content in (c for m in messages for c in m.contents):
        last = contents[-1] if contents else None
        if isinstance(content, FunctionCall) and isinstance(last, FunctionCall) and (
                not content.call_id or (content.call_id == last.call_id and not content.name)):
            contents[-1] = FunctionCall(last.call_id, last.name, _argument_text(last) + _argument_text(content))
        else:
            contents.append(content)
    return [Message("assistant", tuple(contents))]


def _argument_text(call: FunctionCall) -> str:
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments) if call.arguments else ""


def _arguments(call: FunctionCall) -> dict[str, JSON]:
    """A call's arguments as the object Gemini sends; streamed pieces are joined before they are read."""
    if not isinstance(call.arguments, str):
        return dict(call.arguments)
    try:
        parsed: object = json.loads(call.arguments) if call.arguments else {}
    except ValueError:
        return {}
    return cast(dict[str, JSON], parsed) if isinstance(parsed, dict) else {}


def _parts(messages: Sequence[Message], state: ServiceState | None) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    signature: str | None = None  # a signature-only reasoning item rides on the call after it
    for content in (c for m in messages for c in m.contents):
        if isinstance(content, Reasoning):
            if content.text:
                part: dict[str, Any] = {"text": content.text, "thought": True}
                parts.append(part)
                if content.signature:
                    part["thoughtSignature"] = content.signature
            elif content.signature:
                signature = content.signature
        elif isinstance(content, FunctionCall) and not content.server_label:
            arguments = _arguments(content)
            part = {"functionCall": {"id": content.call_id, "name": content.name, "args": arguments}}
            if signature is not None:
                part["thoughtSignature"] = signature
                if state is not None:
                    state.signatures[content.call_id] = signature
                signature = None
            parts.append(part)
        elif isinstance(content, Text):
            parts.append({"text": content.text})
    return parts


def _chunk(response_id: str, parts: list[dict[str, Any]], response: Response, *, final: bool) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    body: dict[str, Any] = {"candidates": [candidate], "modelVersion": "scripted-model", "responseId": response_id}
    if final:
        candidate["finishReason"] = "MAX_TOKENS" if response.finish_reason == "length" else "STOP"
        if (usage := usage_of(response)) is not None:
            body["usageMetadata"] = {"promptTokenCount": usage.input_tokens,
                                     "candidatesTokenCount": usage.output_tokens,
                                     "totalTokenCount": usage.input_tokens + usage.output_tokens}
    return body


def _is_base64(text: str) -> bool:
    try:
        return base64.b64encode(base64.b64decode(text, validate=True)).decode() == text
    except (binascii.Error, ValueError):
        return False
