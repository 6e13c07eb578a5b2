"""The OpenAI Responses API (`POST /v1/responses`): request items parsed back, rules enforced, answers rendered.

Validation rules, each with the error the real service returns (HTTP 400, `invalid_request_error`), as users
report them from production and as OpenAI's function-calling and conversation-state guides describe the contract:
- `previous-response-exists`: "Previous response with id '…' not found." — a continuation must name a response
  the service stored (`store` is on by default; a request with `store: false` leaves nothing to continue).
- `output-has-call`: "No tool call found for function call output with call_id …." — every
  `function_call_output` answers a `function_call` of the conversation (stored or sent).
- `call-has-output`: "No tool output found for function call …." — a conversation handed to the model may not
  hold a function call without its output.
- `reasoning-with-call`: "Item '…' of type 'function_call' was provided without its required 'reasoning' item:
  '…'." — without storage, a call the model emitted after a reasoning item is replayed with that item.
- `no-duplicate-items`: "Duplicate item found with id …." — a continuation may not resend an item the stored
  response already holds.
- `approval-response-has-request`: an `mcp_approval_response` must answer an `mcp_approval_request` of the
  conversation; the service refuses a decision on a request it never issued (a local approval sent as a hosted
  one is the usual cause).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
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
    results_in_response,
    shared_reason,
    step_contents,
    streamed_mapping,
)
from fakes.wire.openai_responses_events import stream_events
from fakes.wire.service import IssuedReasoning, ParsedRequest, ServiceState
from harness.contents import (
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    ReasoningKind,
    Response,
    Role,
    Text,
    Update,
)
from harness.contract import Dialect
from harness.script import ModelStep, Rejection

_MERGED: frozenset[Role] = frozenset({"assistant", "tool"})


class OpenAIResponses(ServedPaths):
    name: Dialect = "openai-responses"
    paths = ("/responses",)
    base_path = "/v1"

    @property
    def http_library(self) -> str:
        return openai_http_library()

    # --- requests ------------------------------------------------------------------------------------------------

    def parse(self, body: Mapping[str, Any], state: ServiceState, path: str) -> ParsedRequest | Rejection:
        continues = body.get("previous_response_id")
        stored: tuple[Message, ...] = ()
        if continues is not None:
            if str(continues) not in state.conversations:
                return Rejection("previous-response-exists", f"Previous response with id '{continues}' not found.",
                                 param="previous_response_id")
            stored = state.conversations[str(continues)]
        raw_input = body.get("input")
        items = [{"type": "message", "role": "user", "content": raw_input}] if isinstance(raw_input, str) \
            else as_list(raw_input)
        instructions = body.get("instructions")
        messages = [Message("system", (Text(instructions),))] if isinstance(instructions, str) and instructions \
            else []
        known = _approval_calls(stored)
        messages.extend(message for item in items if (message := _item_message(as_mapping(item), known, state)))
        return ParsedRequest(
            grouped(messages, _MERGED), tool_choice(body.get("tool_choice")), tool_names(body.get("tools"), _names),
            bool(body.get("stream")), None if continues is None else str(continues), stored,
            store=body.get("store", True) is not False)

    def validate(self, body: Mapping[str, Any], parsed: ParsedRequest, state: ServiceState) -> list[Rejection]:
        items = [as_mapping(i) for i in as_list(body.get("input"))]
        seen = parsed.stored + parsed.messages
        hosted = {c.call_id for m in seen for c in m.contents if isinstance(c, FunctionCall) and c.server_label}
        calls = [c.call_id for m in seen for c in m.contents if isinstance(c, FunctionCall) and not c.server_label]
        # A hosted call's output travels inside its own mcp_call item: it answers no function_call.
        outputs = [c.call_id for m in seen for c in m.contents
                   if isinstance(c, FunctionResult) and c.call_id not in hosted]
        rejections: list[Rejection] = []
        for call_id in outputs:
            if call_id not in calls:
                rejections.append(Rejection("output-has-call", "No tool call found for function call output with "
                                            f"call_id {call_id}.", param="input"))
        for call_id in calls:
            if call_id not in outputs:
                rejections.append(Rejection("call-has-output", f"No tool output found for function call {call_id}.",
                                            param="input"))
        if parsed.continues is None:
            sent = [str(i.get("id")) for i in items if i.get("id") is not None]
            for item in items:
                needed = state.reasoning_of_call.get(str(item.get("id")))
                if item.get("type") == "function_call" and needed is not None and needed not in sent:
                    rejections.append(Rejection(
                        "reasoning-with-call", f"Item '{item.get('id')}' of type 'function_call' was provided "
                        f"without its required 'reasoning' item: '{needed}'.", param="input"))
        else:
            held = state.item_ids.get(parsed.continues, frozenset())
            for item in items:
                if item.get("id") is not None and str(item.get("id")) in held:
                    rejections.append(Rejection("no-duplicate-items", f"Duplicate item found with id {item.get('id')}.",
                                                param="input"))
        requested = {c.id for m in seen for c in m.contents if isinstance(c, ApprovalRequest)}
        for item in items:
            if item.get("type") == "mcp_approval_response" and str(item.get("approval_request_id")) not in requested:
                rejections.append(Rejection(
                    "approval-response-has-request", "mcp_approval_response refers to approval request "
                    f"'{item.get('approval_request_id')}', which is not part of this conversation.", param="input"))
        return rejections

    # --- answers ---------------------------------------------------------------------------------------------------

    def render(self, response: Response, response_id: str, state: ServiceState) -> dict[str, Any]:
        output = _output_items(response, response_id, state)
        state.item_ids[response_id] = state.item_ids.get(response_id, frozenset()) | {
            str(i["id"]) for i in output if "id" in i}
        return _response_body(response_id, output, response, "completed")

    def render_stream(self, step: ModelStep, updates: Sequence[Update], response_id: str,
                      state: ServiceState) -> list[str]:
        output = _output_items(step.response, response_id, state)
        state.item_ids[response_id] = frozenset(str(i["id"]) for i in output if "id" in i)
        events = stream_events(updates, output,
                               lambda items, status: _response_body(response_id, items, step.response, status))
        return [json.dumps(event) for event in events]

    def error_body(self, rejection: Rejection) -> dict[str, Any]:
        return openai_error_body(rejection)

    # --- what the format cannot carry, and what the service adds -----------------------------------------------------

    def unexpressible(self, scenario: ScriptedScenario) -> str | None:
        if (reason := shared_reason(scenario, "a Responses output")) is not None:
            return reason
        if (reason := streamed_mapping(scenario, "the Responses API")) is not None:
            return reason
        if (reason := results_in_response(scenario, True, "the Responses API")) is not None:
            return reason
        for where, _, content in step_contents(scenario):
            if isinstance(content, ApprovalRequest) and content.function_call.call_id != content.id:
                return (f"{where} asks for approval of hosted call {content.function_call.call_id} under the request "
                        f"id {content.id}: an mcp_approval_request item has one id, the request's, so no client can "
                        "see a separate call id")
            if isinstance(content, Reasoning) and (problem := _unexpressible_reasoning(content)) is not None:
                return f"{where} holds a reasoning item {problem}"
        return None

    def as_scripted(self, content: Content, state: ServiceState) -> Content:
        if isinstance(content, FunctionCall) and content.server_label is not None:
            return _hosted_restated(content, state)
        if not isinstance(content, Reasoning) or content.item_id is None:
            return content
        issued = state.reasoning_items.get(content.item_id)
        return content if issued is None else _restated(content, issued, issued.scripted.kind)

    def may_restate(self, content: Content) -> bool:
        """Hosted calls and reasoning items with an id: the only contents `as_scripted` changes."""
        return (isinstance(content, FunctionCall) and content.server_label is not None
                or isinstance(content, Reasoning) and content.item_id is not None)


# --- parsing -------------------------------------------------------------------------------------------------------


def _approval_calls(messages: Sequence[Message]) -> dict[str, FunctionCall]:
    return {c.id: c.function_call for m in messages for c in m.contents if isinstance(c, ApprovalRequest)}


def _item_message(item: Mapping[str, Any], known: dict[str, FunctionCall], state: ServiceState) -> Message | None:
    kind = item.get("type", "message")
    if kind == "message":
        role = str(item.get("role", "user"))
        sent = texts(item.get("content"), _text_or_refusal)
        if role in ("system", "developer"):
            return Message("system", sent)
        return Message("assistant" if role == "assistant" else "user", sent)
    if kind == "function_call":
        return Message("assistant", (FunctionCall(str(item.get("call_id")), str(item.get("name")),
                                                  arguments_from_wire(item.get("arguments"))),))
    if kind == "function_call_output":
        return Message("tool", (FunctionResult(str(item.get("call_id")), result_from_wire(item.get("output"))),))
    if kind == "reasoning":
        return Message("assistant", (_reasoning_from_wire(item, state),))
    if kind == "mcp_approval_request":
        call = _hosted_call(item)
        known[call.call_id] = call
        return Message("assistant", (ApprovalRequest(call.call_id, call),))
    if kind == "mcp_approval_response":
        request_id = str(item.get("approval_request_id"))
        call = known.get(request_id, FunctionCall(request_id, ""))
        return Message("user", (ApprovalResponse(request_id, bool(item.get("approve")), call),))
    if kind == "mcp_call":
        call = _hosted_restated(replace(_hosted_call(item), informational_only=True), state)
        contents: list[Content] = [call]
        if item.get("output") is not None:
            contents.append(FunctionResult(call.call_id, result_from_wire(item.get("output"))))
        return Message("assistant", tuple(contents))
    return None


def _reasoning_from_wire(item: Mapping[str, Any], state: ServiceState) -> Reasoning:
    """A reasoning item as sent: raw reasoning text (`content`) or a summary, its id and opaque payload, restated
    in the script's terms where the service issued the item."""
    raw = "".join(str(as_mapping(p).get("text", "")) for p in as_list(item.get("content")))
    summary = "".join(str(as_mapping(p).get("text", "")) for p in as_list(item.get("summary")))
    payload = item.get("encrypted_content")
    item_id = str(item["id"]) if item.get("id") else None
    issued = state.reasoning_items.get(item_id) if item_id is not None else None
    kind: ReasoningKind = "text" if raw else "summary" if summary else (
        issued.scripted.kind if issued is not None else "encrypted" if payload else "text")
    sent = Reasoning(raw or summary, str(payload) if payload else None, item_id, kind)
    return sent if issued is None else _restated(sent, issued, kind)


def _restated(content: Reasoning, issued: IssuedReasoning, kind: ReasoningKind) -> Reasoning:
    """A reasoning content of an item the service issued, in the script's terms: the id and payload the service
    added itself taken out, a payload it sent from the script's `data` shown as that data. A changed payload stays
    a signature, so a loop that altered it is seen doing so."""
    item_id = None if issued.generated_id else content.item_id
    signature, data = content.signature, content.data
    if signature is not None and signature == issued.payload and issued.payload_from != "signature":
        signature = None
        data = issued.scripted.data if issued.payload_from == "data" else data
    return Reasoning(content.text, signature, item_id, kind, data)


def _unexpressible_reasoning(content: Reasoning) -> str | None:
    payload = _data_payload(content)
    if content.data is not None and payload is None:
        return f"with data {content.data!r}: a reasoning item carries one opaque payload, its encrypted_content"
    if payload is not None and content.signature is not None:
        return "with both a signature and an encrypted payload: a reasoning item carries one encrypted_content"
    return None


def _data_payload(content: Reasoning) -> str | None:
    """The encrypted content a scripted item's `data` names, when that is all it holds."""
    data = content.data
    if isinstance(data, dict) and set(data) == {"encrypted_content"} and isinstance(data["encrypted_content"], str):
        return data["encrypted_content"]
    return None


def _hosted_restated(call: FunctionCall, state: ServiceState) -> FunctionCall:
    """A hosted call's record as the script wrote it. Every mcp_call item records a call the service already ran,
    so clients read each as informational-only: the format has no other kind, and the flag says nothing of its own
    for a hosted call the service sent; one it never sent stays a record."""
    scripted = state.hosted_calls.get(call.call_id)
    return call if scripted is None else replace(call, informational_only=scripted.informational_only)


def _hosted_call(item: Mapping[str, Any]) -> FunctionCall:
    return FunctionCall(str(item.get("id")), str(item.get("name")), arguments_from_wire(item.get("arguments")),
                        server_label=str(item.get("server_label") or "") or None)


def _text_or_refusal(part: Mapping[str, Any]) -> str:
    return str(part.get("text", part.get("refusal", "")))


def _names(tool: Mapping[str, Any]) -> list[str]:
    """A function tool's name; a hosted (MCP) tool's server label."""
    name = tool.get("name") or tool.get("server_label")
    return [] if name is None else [str(name)]


# --- rendering -----------------------------------------------------------------------------------------------------


def _response_body(response_id: str, output: list[dict[str, Any]], response: Response,
                   status: str) -> dict[str, Any]:
    body: dict[str, Any] = {"id": response_id, "object": "response", "created_at": 0, "status": status,
                            "model": "scripted-model", "output": output, "parallel_tool_calls": True,
                            "tool_choice": "auto", "tools": [], "error": None, "incomplete_details": None,
                            "instructions": None, "metadata": {}, "temperature": None, "top_p": None}
    if (usage := usage_of(response)) is not None:
        body["usage"] = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
                         "total_tokens": usage.input_tokens + usage.output_tokens,
                         "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                         "output_tokens_details": {"reasoning_tokens": 0}}
    return body


def _output_items(response: Response, response_id: str, state: ServiceState) -> list[dict[str, Any]]:
    """The response's output items, in the script's order. Ids the script does not give are the service's own and
    unique per item, as the real service's are (a reused call id still gets an item of its own)."""
    items: list[dict[str, Any]] = []
    reasoning: str | None = None  # the reasoning item the next call is emitted with
    for message in response.messages:
        for content in message.contents:
            item_id = f"{response_id}_{len(items)}"
            if isinstance(content, Text):
                if items and items[-1]["type"] == "message":
                    part = items[-1]["content"][0]
                    part["text"] += content.text
                else:
                    items.append({"type": "message", "id": f"msg_{item_id}", "role": "assistant",
                                  "status": "completed", "content": [_output_text(content.text)]})
            elif isinstance(content, Reasoning):
                items.append(_reasoning_item(content, f"rs_{item_id}", state))
                reasoning = str(items[-1]["id"])
            elif isinstance(content, FunctionCall) and content.server_label:
                state.hosted_calls[content.call_id] = content
                items.append({"type": "mcp_call", "id": content.call_id, "server_label": content.server_label,
                              "name": content.name, "arguments": arguments_to_wire(content), "output": None,
                              "status": "completed"})
            elif isinstance(content, FunctionCall):
                items.append({"type": "function_call", "id": f"fc_{item_id}", "call_id": content.call_id,
                              "name": content.name, "arguments": arguments_to_wire(content), "status": "completed"})
                if reasoning is not None:
                    state.reasoning_of_call[f"fc_{item_id}"] = reasoning
            elif isinstance(content, FunctionResult):
                hosted = next((i for i in items if i["type"] == "mcp_call" and i["id"] == content.call_id), None)
                if hosted is not None:
                    hosted["output"] = content.result if isinstance(content.result, str) else json.dumps(
                        content.result)
            elif isinstance(content, ApprovalRequest):
                call = content.function_call
                items.append({"type": "mcp_approval_request", "id": content.id,
                              "server_label": call.server_label or "", "name": call.name,
                              "arguments": arguments_to_wire(call)})
    return items


def _reasoning_item(content: Reasoning, default_id: str, state: ServiceState) -> dict[str, Any]:
    """A reasoning item: raw text as `content`, a summary as `summary`, and always an `encrypted_content` (the
    service returns one by default): the script's signature or data, else an opaque payload of its own."""
    item_id = content.item_id or default_id
    item: dict[str, Any] = {"type": "reasoning", "id": item_id, "summary": []}
    if content.text and content.kind == "summary":
        item["summary"] = [{"type": "summary_text", "text": content.text}]
    elif content.text:
        item["content"] = [{"type": "reasoning_text", "text": content.text}]
    if content.signature is not None:
        issued = IssuedReasoning(content, content.item_id is None, content.signature, "signature")
    elif (payload := _data_payload(content)) is not None:
        issued = IssuedReasoning(content, content.item_id is None, payload, "data")
    else:
        generated = "gAAAAA" + base64.b64encode(f"scripted reasoning {item_id}".encode()).decode()
        issued = IssuedReasoning(content, content.item_id is None, generated, "service")
    item["encrypted_content"] = issued.payload
    state.reasoning_items[item_id] = issued
    return item


def _output_text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
