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

import json
from collections.abc import Mapping, Sequence
from typing import Any

from fakes.wire.common import (
    arguments_from_wire,
    arguments_to_wire,
    as_list,
    as_mapping,
    grouped,
    result_from_wire,
)
from fakes.wire.service import ParsedRequest, ServiceState
from harness.contents import (
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
    Usage,
)
from harness.contract import Dialect
from harness.script import ModelStep, Rejection

_MERGED: frozenset[Role] = frozenset({"assistant", "tool"})


class OpenAIResponses:
    name: Dialect = "openai-responses"
    path = "/responses"
    base_path = "/v1"
    http_library = "httpx2"

    def serves(self, path: str) -> bool:
        return path.endswith(self.path)

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
        messages.extend(message for item in items if (message := _item_message(as_mapping(item), known)))
        return ParsedRequest(
            grouped(messages, _MERGED), _tool_choice(body.get("tool_choice")), _tool_names(body.get("tools")),
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
        chunks = _chunks_per_item(updates, output)
        events: list[dict[str, Any]] = [{"type": "response.created",
                                         "response": _response_body(response_id, [], step.response, "in_progress")}]
        for index, item in enumerate(output):
            events.extend(_item_events(index, item, chunks[index]))
        events.append({"type": "response.completed",
                       "response": _response_body(response_id, output, step.response, "completed")})
        return [json.dumps({**event, "sequence_number": number}) for number, event in enumerate(events)]

    def error_body(self, rejection: Rejection) -> dict[str, Any]:
        return {"error": {"message": rejection.message, "type": "invalid_request_error", "param": rejection.param,
                          "code": None}}


# --- parsing -------------------------------------------------------------------------------------------------------


def _approval_calls(messages: Sequence[Message]) -> dict[str, FunctionCall]:
    return {c.id: c.function_call for m in messages for c in m.contents if isinstance(c, ApprovalRequest)}


def _item_message(item: Mapping[str, Any], known: dict[str, FunctionCall]) -> Message | None:
    kind = item.get("type", "message")
    if kind == "message":
        role = str(item.get("role", "user"))
        texts = _texts(item.get("content"))
        if role in ("system", "developer"):
            return Message("system", texts)
        return Message("assistant" if role == "assistant" else "user", texts)
    if kind == "function_call":
        return Message("assistant", (FunctionCall(str(item.get("call_id")), str(item.get("name")),
                                                  arguments_from_wire(item.get("arguments"))),))
    if kind == "function_call_output":
        return Message("tool", (FunctionResult(str(item.get("call_id")), result_from_wire(item.get("output"))),))
    if kind == "reasoning":
        summary = "".join(str(as_mapping(p).get("text", "")) for p in as_list(item.get("summary")))
        encrypted = item.get("encrypted_content")
        return Message("assistant", (Reasoning(summary, str(encrypted) if encrypted else None,
                                               str(item["id"]) if item.get("id") else None),))
    if kind == "mcp_approval_request":
        call = _hosted_call(item)
        known[call.call_id] = call
        return Message("assistant", (ApprovalRequest(call.call_id, call),))
    if kind == "mcp_approval_response":
        request_id = str(item.get("approval_request_id"))
        call = known.get(request_id, FunctionCall(request_id, ""))
        return Message("user", (ApprovalResponse(request_id, bool(item.get("approve")), call),))
    if kind == "mcp_call":
        call = _hosted_call(item)
        contents: list[Content] = [call]
        if item.get("output") is not None:
            contents.append(FunctionResult(call.call_id, result_from_wire(item.get("output"))))
        return Message("assistant", tuple(contents))
    return None


def _hosted_call(item: Mapping[str, Any]) -> FunctionCall:
    return FunctionCall(str(item.get("id")), str(item.get("name")), arguments_from_wire(item.get("arguments")),
                        server_label=str(item.get("server_label") or "") or None)


def _texts(content: object) -> tuple[Content, ...]:
    if isinstance(content, str):
        return (Text(content),)
    return tuple(Text(str(as_mapping(p).get("text", as_mapping(p).get("refusal", "")))) for p in as_list(content))


def _tool_choice(choice: object) -> str | None:
    if choice is None or isinstance(choice, str):
        return choice
    mode = as_mapping(choice).get("mode")
    return str(mode) if mode is not None else "required"


def _tool_names(tools: object) -> tuple[str, ...]:
    names: list[str] = []
    for tool in as_list(tools):
        declared = as_mapping(tool)
        name = declared.get("name") or declared.get("server_label")
        if name is not None:
            names.append(str(name))
    return tuple(names)


# --- rendering -----------------------------------------------------------------------------------------------------


def _response_body(response_id: str, output: list[dict[str, Any]], response: Response,
                   status: str) -> dict[str, Any]:
    body: dict[str, Any] = {"id": response_id, "object": "response", "created_at": 0, "status": status,
                            "model": "scripted-model", "output": output, "parallel_tool_calls": True,
                            "tool_choice": "auto", "tools": []}
    usage = next((c for m in response.messages for c in m.contents if isinstance(c, Usage)), None)
    if usage is not None:
        body["usage"] = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
                         "total_tokens": usage.input_tokens + usage.output_tokens,
                         "input_tokens_details": {"cached_tokens": 0},
                         "output_tokens_details": {"reasoning_tokens": 0}}
    return body


def _output_items(response: Response, response_id: str, state: ServiceState) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    reasoning: str | None = None  # the reasoning item the next call is emitted with
    for message in response.messages:
        for content in message.contents:
            if isinstance(content, Text):
                if items and items[-1]["type"] == "message":
                    items[-1]["content"].append(_output_text(content.text))
                else:
                    items.append({"type": "message", "id": f"msg_{response_id}_{len(items)}", "role": "assistant",
                                  "status": "completed", "content": [_output_text(content.text)]})
            elif isinstance(content, Reasoning):
                item_id = content.item_id or f"rs_{response_id}_{len(items)}"
                item: dict[str, Any] = {"type": "reasoning", "id": item_id, "summary": (
                    [{"type": "summary_text", "text": content.text}] if content.text else [])}
                if content.signature:
                    item["encrypted_content"] = content.signature
                items.append(item)
                reasoning = item_id
            elif isinstance(content, FunctionCall) and content.server_label:
                items.append({"type": "mcp_call", "id": content.call_id, "server_label": content.server_label,
                              "name": content.name, "arguments": arguments_to_wire(content), "output": None})
            elif isinstance(content, FunctionCall):
                item_id = f"fc_{content.call_id}"
                items.append({"type": "function_call", "id": item_id, "call_id": content.call_id,
                              "name": content.name, "arguments": arguments_to_wire(content), "status": "completed"})
                if reasoning is not None:
                    state.reasoning_of_call[item_id] = reasoning
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


def _output_text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


def _chunks_per_item(updates: Sequence[Update], output: list[dict[str, Any]]) -> list[list[str]]:
    """The streamed pieces of each output item's text or arguments, in the script's own chunking.

    The script's updates fold into its response, whose items `output` renders in the same order; each text,
    reasoning or call chunk belongs to the item of its kind that is current when it arrives."""
    chunks: list[list[str]] = [[] for _ in output]
    index = -1

    def advance(kind: str, new: bool) -> int:
        nonlocal index
        if not new and 0 <= index < len(output) and output[index]["type"] == kind:
            return index
        following = next((i for i in range(index + 1, len(output)) if output[i]["type"] == kind), None)
        index = following if following is not None else index
        return index

    for update in updates:
        for content in update.contents:
            if isinstance(content, Text):
                at = advance("message", False)
                if at >= 0 and output[at]["type"] == "message":
                    chunks[at].append(content.text)
            elif isinstance(content, Reasoning):
                at = advance("reasoning", bool(content.item_id) and (
                    index < 0 or output[index].get("id") != content.item_id))
                if at >= 0 and output[at]["type"] == "reasoning":
                    chunks[at].append(content.text)
            elif isinstance(content, FunctionCall) and not content.server_label:
                at = advance("function_call", bool(content.call_id))
                if at >= 0 and output[at]["type"] == "function_call":
                    chunks[at].append(arguments_to_wire(content) if content.arguments != {} else "")
    return chunks


def _item_events(index: int, item: dict[str, Any], chunks: list[str]) -> list[dict[str, Any]]:
    kind = item["type"]
    events: list[dict[str, Any]] = []
    if kind == "message":
        text = "".join(str(p["text"]) for p in item["content"])
        pieces = [c for c in chunks if c] if "".join(chunks) == text else [text]
        events.append({"type": "response.output_item.added", "output_index": index,
                       "item": {**item, "status": "in_progress", "content": []}})
        events.append({"type": "response.content_part.added", "item_id": item["id"], "output_index": index,
                       "content_index": 0, "part": _output_text("")})
        events.extend({"type": "response.output_text.delta", "item_id": item["id"], "output_index": index,
                       "content_index": 0, "delta": piece, "logprobs": []} for piece in pieces)
        events.append({"type": "response.output_text.done", "item_id": item["id"], "output_index": index,
                       "content_index": 0, "text": text, "logprobs": []})
        events.append({"type": "response.content_part.done", "item_id": item["id"], "output_index": index,
                       "content_index": 0, "part": _output_text(text)})
    elif kind == "function_call":
        arguments = str(item["arguments"])
        pieces = [c for c in chunks if c] if "".join(chunks) == arguments else [arguments]
        events.append({"type": "response.output_item.added", "output_index": index,
                       "item": {**item, "arguments": "", "status": "in_progress"}})
        events.extend({"type": "response.function_call_arguments.delta", "item_id": item["id"],
                       "output_index": index, "delta": piece} for piece in pieces)
        events.append({"type": "response.function_call_arguments.done", "item_id": item["id"],
                       "output_index": index, "arguments": arguments})
    elif kind == "reasoning":
        text = "".join(str(p["text"]) for p in item["summary"])
        events.append({"type": "response.output_item.added", "output_index": index,
                       "item": {"type": "reasoning", "id": item["id"], "summary": []}})
        if text:
            pieces = [c for c in chunks if c] if "".join(chunks) == text else [text]
            part = {"type": "summary_text", "text": ""}
            events.append({"type": "response.reasoning_summary_part.added", "item_id": item["id"],
                           "output_index": index, "summary_index": 0, "part": part})
            events.extend({"type": "response.reasoning_summary_text.delta", "item_id": item["id"],
                           "output_index": index, "summary_index": 0, "delta": piece} for piece in pieces)
            events.append({"type": "response.reasoning_summary_text.done", "item_id": item["id"],
                           "output_index": index, "summary_index": 0, "text": text})
            events.append({"type": "response.reasoning_summary_part.done", "item_id": item["id"],
                           "output_index": index, "summary_index": 0, "part": {**part, "text": text}})
    else:
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
    events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    return events
