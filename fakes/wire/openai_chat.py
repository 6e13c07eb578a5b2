"""The OpenAI Chat Completions API (`POST /v1/chat/completions`): messages parsed back, rules enforced, answers
rendered as a completion or as `chat.completion.chunk` server-sent events ending with `[DONE]`.

Validation rules, each with the error the real service returns (HTTP 400, `invalid_request_error`, `param` naming
the offending message), as the Chat Completions function-calling contract states and users report them:
- `tool-answers-call`: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message
  with 'tool_calls'." (the service's own spelling) — a tool message answers a call of the assistant message that
  the run of tool messages it belongs to follows.
- `calls-answered`: "An assistant message with 'tool_calls' must be followed by tool messages responding to each
  'tool_call_id'. The following tool_call_ids did not have response messages: …" — no call is left unanswered.

The format has no reasoning items, no hosted (service-run) calls or approvals and no stored conversations, and a
choice is one message whose text and calls are separate fields: a scenario whose script or expectations need one
of those is not expressible here (`unexpressible` names it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from fakes.wire.common import (
    ServedPaths,
    arguments_from_wire,
    arguments_to_wire,
    as_list,
    as_mapping,
    grouped,
    openai_error_body,
    openai_http_library,
    result_from_wire,
    texts,
    tool_choice,
    tool_names,
    usage_of,
)
from fakes.wire.expressible import (
    ScriptedScenario,
    ScriptedTurn,
    found,
    results_in_response,
    shared_reason,
    step_contents,
    streamed_mapping,
    written,
)
from fakes.wire.service import ParsedRequest, ServiceState
from harness.contents import (
    ApprovalRequest,
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


class OpenAIChat(ServedPaths):
    name: Dialect = "openai-chat"
    paths = ("/chat/completions",)
    base_path = "/v1"

    @property
    def http_library(self) -> str:
        return openai_http_library()

    def parse(self, body: Mapping[str, Any], state: ServiceState, path: str) -> ParsedRequest | Rejection:
        messages = [_message(as_mapping(m)) for m in as_list(body.get("messages"))]
        return ParsedRequest(grouped(messages, _MERGED), tool_choice(body.get("tool_choice")),
                             tool_names(body.get("tools"), _names), bool(body.get("stream")))

    def validate(self, body: Mapping[str, Any], parsed: ParsedRequest, state: ServiceState) -> list[Rejection]:
        rejections: list[Rejection] = []
        open_calls: list[str] = []  # calls of the last assistant message, not answered yet
        opened_at = -1
        answerable = False  # inside the run of tool messages following an assistant message with tool_calls
        wire = [as_mapping(m) for m in as_list(body.get("messages"))]
        for index, message in enumerate(wire):
            role = message.get("role")
            if role == "tool":
                call_id = str(message.get("tool_call_id"))
                if not answerable or call_id not in open_calls:
                    rejections.append(Rejection(
                        "tool-answers-call", "Invalid parameter: messages with role 'tool' must be a response to a "
                        "preceeding message with 'tool_calls'.", param=f"messages.[{index}].role"))
                else:
                    open_calls.remove(call_id)
                continue
            if open_calls:
                rejections.append(_unanswered(opened_at, open_calls))
            calls = [str(as_mapping(c).get("id")) for c in as_list(message.get("tool_calls"))]
            open_calls, opened_at, answerable = calls, index, role == "assistant" and bool(calls)
        if open_calls:
            rejections.append(_unanswered(opened_at, open_calls))
        return rejections

    def render(self, response: Response, response_id: str, state: ServiceState) -> dict[str, Any]:
        text, calls = _answer(response)
        message: dict[str, Any] = {"role": "assistant", "content": text if text or not calls else None}
        if calls:
            message["tool_calls"] = [_tool_call(call) for call in calls]
        body: dict[str, Any] = {"id": response_id, "object": "chat.completion", "created": 0,
                                "model": "scripted-model", "choices": [{
                                    "index": 0, "message": message, "logprobs": None,
                                    "finish_reason": _finish_reason(response, calls)}]}
        if (usage := _usage(response)) is not None:
            body["usage"] = usage
        return body

    def render_stream(self, step: ModelStep, updates: Sequence[Update], response_id: str,
                      state: ServiceState) -> list[str]:
        chunks: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
        indexes: dict[str, int] = {}
        current = -1
        for update in updates:
            for content in update.contents:
                if isinstance(content, Text) and content.text:
                    chunks.append({"content": content.text})
                elif isinstance(content, FunctionCall) and not content.server_label:
                    piece = arguments_to_wire(content) if content.arguments != {} else ""
                    if content.call_id and content.call_id not in indexes:
                        current = indexes[content.call_id] = len(indexes)
                        chunks.append({"tool_calls": [{"index": current, "id": content.call_id, "type": "function",
                                                       "function": {"name": content.name, "arguments": piece}}]})
                    elif current >= 0:
                        at = indexes.get(content.call_id, current)
                        # A name that arrives after the call's id is sent on its own delta, as such providers do;
                        # left out, the client would receive a call that never gets a name.
                        function = {"name": content.name, "arguments": piece} if content.name else {"arguments": piece}
                        chunks.append({"tool_calls": [{"index": at, "function": function}]})
        _, calls = _answer(step.response)
        events = [_chunk(response_id, delta, None) for delta in chunks]
        events.append(_chunk(response_id, {}, _finish_reason(step.response, calls)))
        if (usage := _usage(step.response)) is not None:
            events.append({"id": response_id, "object": "chat.completion.chunk", "created": 0,
                           "model": "scripted-model", "choices": [], "usage": usage})
        return [json.dumps(event) for event in events] + ["[DONE]"]

    def error_body(self, rejection: Rejection) -> dict[str, Any]:
        return openai_error_body(rejection)

    def unexpressible(self, scenario: ScriptedScenario) -> str | None:
        if (reason := shared_reason(scenario, "a Chat Completions choice")) is not None:
            return reason
        if (reason := streamed_mapping(scenario, "Chat Completions")) is not None:
            return reason
        for number, turn in enumerate(scenario.turns, start=1):
            for index, step in enumerate(turn.steps, start=1):
                if step.response.conversation_id is not None:
                    return (f"turn {number}, model response {index} continues the service-stored conversation "
                            f"{step.response.conversation_id}: Chat Completions stores no conversations")
        for where, _, content in step_contents(scenario):
            if (reason := _unexpressible_content(content)) is not None:
                return f"{where} {reason}"
        if (reason := results_in_response(scenario, False, "Chat Completions")) is not None:
            return reason
        for number, turn in enumerate(scenario.turns, start=1):
            for index, step in enumerate(turn.steps, start=1):
                kinds = [type(c) for m in step.response.messages for c in m.contents
                         if isinstance(c, Text | FunctionCall)]
                if FunctionCall in kinds and Text in kinds[kinds.index(FunctionCall):]:
                    return (f"turn {number}, model response {index} has text after a call: a choice's text and its "
                            "tool_calls are separate fields, so their order cannot be sent")
        for number, turn in enumerate(scenario.turns, start=1):
            if (reason := _unexpressible_input(turn)) is not None:
                return f"turn {number}'s input {reason}"
        return None

    def as_scripted(self, content: Content, state: ServiceState) -> Content:
        return content  # the service adds nothing of its own to what it sends

    def may_restate(self, content: Content) -> bool:
        return False


def _unexpressible_content(content: Content) -> str | None:
    if isinstance(content, Reasoning):
        return "holds a reasoning item: a Chat Completions choice carries no reasoning"
    if isinstance(content, FunctionCall) and content.server_label is not None:
        return (f"holds the hosted call {content.call_id} of server {content.server_label}: Chat Completions runs no "
                "hosted tools")
    if isinstance(content, ApprovalRequest):
        return (f"asks for approval of call {content.function_call.call_id}: Chat Completions has no approval "
                "requests")
    return None


def _unexpressible_input(turn: ScriptedTurn) -> str | None:
    given = written(turn, "input")
    if found(given, lambda m: m.get("reasoning") is not None) is not None:
        return "holds a reasoning item: a Chat Completions message carries no reasoning"
    if found(given, lambda m: m.get("server_label") is not None) is not None:
        return "holds a hosted call or approval: Chat Completions runs no hosted tools"
    return None


def _unanswered(index: int, call_ids: list[str]) -> Rejection:
    return Rejection("calls-answered", "An assistant message with 'tool_calls' must be followed by tool messages "
                     "responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                     + ", ".join(call_ids), param=f"messages.[{index}].role")


def _message(message: Mapping[str, Any]) -> Message:
    role = str(message.get("role", "user"))
    if role == "tool":
        return Message("tool", (FunctionResult(str(message.get("tool_call_id")),
                                               result_from_wire(message.get("content"))),))
    contents: list[Content] = list(texts(message.get("content"), _text, keep_empty=False))
    for call in as_list(message.get("tool_calls")):
        declared = as_mapping(call)
        function = as_mapping(declared.get("function"))
        contents.append(FunctionCall(str(declared.get("id")), str(function.get("name")),
                                     arguments_from_wire(function.get("arguments"))))
    if role in ("system", "developer"):
        return Message("system", tuple(contents))
    return Message("assistant" if role == "assistant" else "user", tuple(contents))


def _text(part: Mapping[str, Any]) -> str:
    return str(part.get("text", ""))


def _names(tool: Mapping[str, Any]) -> list[str]:
    return [str(as_mapping(tool.get("function")).get("name"))]


def _answer(response: Response) -> tuple[str, list[FunctionCall]]:
    """A choice is one message: the texts of the scripted answer joined, and its calls in order."""
    contents = [c for m in response.messages for c in m.contents]
    text = "".join(c.text for c in contents if isinstance(c, Text))
    return text, [c for c in contents if isinstance(c, FunctionCall) and not c.server_label]


def _tool_call(call: FunctionCall) -> dict[str, Any]:
    return {"id": call.call_id, "type": "function",
            "function": {"name": call.name, "arguments": arguments_to_wire(call)}}


def _finish_reason(response: Response, calls: list[FunctionCall]) -> str:
    if response.finish_reason == "length":
        return "length"
    return "tool_calls" if calls else "stop"


def _usage(response: Response) -> dict[str, int] | None:
    usage = usage_of(response)
    if usage is None:
        return None
    return {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
            "total_tokens": usage.input_tokens + usage.output_tokens}


def _chunk(response_id: str, delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
    return {"id": response_id, "object": "chat.completion.chunk", "created": 0, "model": "scripted-model",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]}
