"""Lossless conversion between the neutral vocabulary and Agent Framework's `Content` / `Message` classes.

What the spec cares about survives both ways: reasoning text and its opaque signature (`protected_data`),
informational-only and hosted markers, approval ids and their embedded calls, user-input flags, error results.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from itertools import groupby
from typing import Any, cast

from agent_framework import ChatResponse, ChatResponseUpdate
from agent_framework import Content as FwContent
from agent_framework import Message as FwMessage
from harness.adapters.agent_framework.features import FEATURES
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
    Standing,
    Text,
    Update,
    Usage,
    UserInputRequest,
    parse_arguments,
)

_ROLES: tuple[Role, ...] = ("system", "user", "assistant", "tool")


# --- neutral -> framework -------------------------------------------------------------------------------------


# Where a reasoning item's kind and opaque payload travel on the framework's reasoning content.
REASONING_KIND = "reasoning_kind"
REASONING_DATA = "reasoning_data"

# How the framework's approval middleware marks a standing decision on an approval response (its public helpers
# `create_always_approve_tool_response` and `..._with_arguments_response` write the same).
STANDING_PROPERTY = "tool_approval"
STANDING_SCOPE = "always_approve"
STANDING_SCOPES: dict[Standing, str] = {"tool": "tool", "arguments": "tool_with_arguments"}


def standing_of(content: Any) -> Standing | None:
    properties: Mapping[str, Any] = getattr(content, "additional_properties", None) or {}
    marked: Any = properties.get(STANDING_PROPERTY)
    scope: Any = cast(Mapping[str, Any], marked).get(STANDING_SCOPE) if isinstance(marked, Mapping) else None
    return next((ours for ours, theirs in STANDING_SCOPES.items() if theirs == scope), None)


def call_to_framework(call: FunctionCall) -> FwContent:
    # A streamed fragment whose client delivered a mapping stays one: the framework's call content takes a str or a
    # Mapping, and its update fold joins an empty start to either (`Content._add_function_call_content`).
    arguments: str | dict[str, JSON] = (
        dict(call.arguments) if call.arguments_as_mapping and isinstance(call.arguments, Mapping) else
        call.arguments if isinstance(call.arguments, str) else json.dumps(dict(call.arguments)))
    extra: dict[str, Any] = {}
    if call.informational_only and FEATURES.informational_only:
        extra["informational_only"] = True
    additional: dict[str, Any] | None = None
    if call.server_label is not None:
        if FEATURES.hosted_flag:
            extra["hosted"] = True
            extra["server_name"] = call.server_label
        else:
            additional = {"server_label": call.server_label}
    if call.item_id is not None and FEATURES.call_item_id:
        extra["id"] = call.item_id  # the service's item id, from which the layer mints approval request ids
    return FwContent.from_function_call(call.call_id, call.name, arguments=arguments,
                                        additional_properties=additional, **extra)


# Additional-properties key of a caller-written input request carried through the framework (see
# `_input_request_to_framework`).
CALLER_INPUT_REQUEST = "loop_conformance.caller_input_request"


def to_framework(content: Content) -> FwContent:
    if isinstance(content, Text):
        return FwContent.from_text(content.text)
    if isinstance(content, Reasoning):
        # The chat-client layer has no field for an item's kind or opaque payload: they ride in its additional
        # properties, which the framework must carry like the rest of the item.
        extra: dict[str, Any] = {}
        if content.kind != "text":
            extra[REASONING_KIND] = content.kind
        if content.data is not None:
            extra[REASONING_DATA] = content.data
        return FwContent.from_text_reasoning(id=content.item_id, text=content.text, protected_data=content.signature,
                                             additional_properties=extra or None)
    if isinstance(content, FunctionCall):
        return call_to_framework(content)
    if isinstance(content, FunctionResult):
        exception = str(content.result) if content.error else None
        named: dict[str, Any] = (
            {"id": content.occurrence_id} if content.occurrence_id is not None and FEATURES.result_occurrence_id
            else {})
        return FwContent.from_function_result(content.call_id, result=content.result, exception=exception, **named)
    if isinstance(content, ApprovalRequest):
        return FwContent.from_function_approval_request(content.id, call_to_framework(content.function_call))
    if isinstance(content, ApprovalResponse):
        response = FwContent.from_function_approval_response(content.approved, content.id,
                                                             call_to_framework(content.function_call))
        if content.standing is not None:
            response.additional_properties[STANDING_PROPERTY] = {STANDING_SCOPE: STANDING_SCOPES[content.standing]}
        return response
    if isinstance(content, UserInputRequest) and content.payload is not None:
        return _input_request_to_framework(content)
    if isinstance(content, Usage):
        usage: Any = {"input_token_count": content.input_tokens, "output_token_count": content.output_tokens}
        return FwContent.from_usage(usage)
    raise ValueError(f"no Agent Framework form for a {type(content).__name__} in caller input")


def _input_request_to_framework(request: UserInputRequest) -> FwContent:
    """A tool's request for more input that a caller keeping its own history sends back: the framework's consent
    request tied to the call that raised it, the inverse of `_consent_request`."""
    payload = request.payload
    # The framework's form has no room for the request's id or its call's name and arguments: the caller's own
    # request rides along, so that re-reading the caller's messages shows them as the caller wrote them.
    converted = FwContent.from_oauth_consent_request(
        payload if isinstance(payload, str) else json.dumps(payload, sort_keys=True),
        additional_properties={CALLER_INPUT_REQUEST: request})
    if request.function_call is not None:
        converted.call_id = request.function_call.call_id
    return converted


def message_to_framework(message: Message) -> FwMessage:
    return FwMessage(message.role, [to_framework(c) for c in message.contents])


# --- framework -> neutral -------------------------------------------------------------------------------------


def _server_label(content: Any) -> str | None:
    additional = cast(Mapping[str, Any], getattr(content, "additional_properties", None) or {})
    if "server_label" in additional:
        return str(additional["server_label"])
    if getattr(content, "hosted", None):
        return str(getattr(content, "server_name", None) or "hosted")
    return None


def call_from_framework(content: Any) -> FunctionCall:
    occurrence = getattr(content, "id", None)  # the framework's identity for this occurrence, where it gives one
    return FunctionCall(
        str(content.call_id), str(content.name or ""), parse_arguments(content.arguments),
        bool(getattr(content, "informational_only", False)), _server_label(content),
        str(occurrence) if isinstance(occurrence, str) else None,
    )


def _result_value(content: Any) -> JSON:
    result = getattr(content, "result", None)
    if isinstance(result, str | int | float | bool) or result is None:
        return result
    return str(result)


def from_framework(content: Any) -> list[Content]:
    """One framework content as zero or more neutral ones."""
    kind = str(content.type)
    if kind == "text":
        return [Text(str(content.text or ""))]
    if kind == "text_reasoning":
        properties: Mapping[str, Any] = getattr(content, "additional_properties", None) or {}
        kind = properties.get(REASONING_KIND, "text")
        item_id = getattr(content, "id", None)
        return [Reasoning(str(content.text or ""), getattr(content, "protected_data", None),
                          str(item_id) if isinstance(item_id, str) else None,
                          kind if kind in ("summary", "encrypted") else "text", properties.get(REASONING_DATA))]
    if kind == "function_call":
        return _call_contents(content)
    if kind == "function_result":
        return [FunctionResult(str(content.call_id), _result_value(content), content.exception is not None)]
    if kind == "function_approval_request":
        return [ApprovalRequest(str(content.id), call_from_framework(content.function_call))]
    if kind == "function_approval_response":
        return [ApprovalResponse(str(content.id), bool(content.approved), call_from_framework(content.function_call),
                                 standing_of(content))]
    if kind == "mcp_server_tool_call":
        # A provider client's hosted MCP call that the service ran: a hosted call, never the loop's to execute.
        server = getattr(content, "server_name", None)
        return [FunctionCall(str(content.call_id), str(getattr(content, "tool_name", "") or ""),
                             parse_arguments(getattr(content, "arguments", None)),
                             bool(getattr(content, "informational_only", True)), str(server or "hosted"))]
    if kind == "mcp_server_tool_result":
        return [FunctionResult(str(content.call_id), _hosted_output(getattr(content, "output", None)))]
    if kind == "usage":
        details = cast(Mapping[str, Any], content.usage_details or {})
        return [Usage(int(details.get("input_token_count") or 0), int(details.get("output_token_count") or 0))]
    if kind == "oauth_consent_request":
        return [_consent_request(content)]
    if getattr(content, "user_input_request", False):
        return [UserInputRequest(str(getattr(content, "id", "") or ""), None, {"type": kind})]
    return [Text(f"[unsupported {kind} content]")]


def _hosted_output(output: Any) -> JSON:
    """A hosted call's output as the service gave it: text parts joined, anything else as it is."""
    if isinstance(output, list):
        parts = cast(list[Any], output)
        if all(getattr(part, "type", None) == "text" for part in parts):
            return "".join(str(part.text or "") for part in parts)
    return cast(JSON, output)


def _consent_request(content: Any) -> UserInputRequest:
    """A tool's request for more input; the harness's tool adapter puts the scripted payload in its link."""
    written = cast(Mapping[str, Any], getattr(content, "additional_properties", None) or {}).get(CALLER_INPUT_REQUEST)
    if isinstance(written, UserInputRequest):
        return written
    link = str(getattr(content, "consent_link", "") or "")
    try:
        payload: JSON = json.loads(link) if link.startswith(("{", "[")) else link
    except ValueError:
        payload = link
    call_id = getattr(content, "call_id", None)
    call = FunctionCall(str(call_id), "") if call_id else None
    return UserInputRequest(str(getattr(content, "id", "") or ""), call, payload)


def _call_contents(content: Any) -> list[Content]:
    """A call the framework marks `user_input_request` is surfaced to the caller: call, then the pause."""
    call = call_from_framework(content)
    if not getattr(content, "user_input_request", False):
        return [call]
    # The pause carries the call as the framework finalised it (the spec's "finalized request metadata"): the
    # framework keeps one content for both, so the caller's request is the very call, arguments and all.
    pause = UserInputRequest(str(getattr(content, "id", None) or call.call_id), call)
    return [call, pause] if call.arguments not in ({}, "") else [pause]


def _role(raw: Any) -> Role:
    role = str(getattr(raw, "value", raw) or "assistant")
    for known in _ROLES:
        if known == role:
            return known
    return "assistant"


def contents_from_framework(contents: Iterable[Any]) -> tuple[Content, ...]:
    return tuple(neutral for content in contents for neutral in from_framework(content))


def pauses_after_batch(messages: Sequence[Message]) -> tuple[Message, ...]:
    """The pauses of flagged declaration-only calls after the batch of calls they are part of.

    The framework has no separate request content: it flags the call itself. Its stream sends the model's calls
    (in one assistant message or several), then the flagged copies after the whole batch, so a caller folding the
    stream sees the batch's calls, then its requests. Rendering each flagged call of a final response as
    call-then-pause instead would interleave them and make the two modes disagree over an order the framework
    never expressed. The pauses therefore follow the batch's last call (or a hosted service's approval request behind
    it, which the stream also sends before the flagged copies), in the assistant message holding it. A batch
    is a run of consecutive assistant messages, and only a pause naming one of the run's calls moves: a pause in a
    message of its own, answering a call of an earlier turn (a caller-kept follow-up), stays where it was written.
    """
    out: list[Message] = []
    for is_assistant, group in groupby(messages, key=lambda message: message.role == "assistant"):
        run = list(group)
        out.extend(_pauses_after_last_call(run) if is_assistant else run)
    return tuple(out)


def _pauses_after_last_call(run: Sequence[Message]) -> Sequence[Message]:
    calls = {c.call_id for m in run for c in m.contents if isinstance(c, FunctionCall)}

    def moves(content: Content) -> bool:
        # A declaration-only call's pause names its call; an approved tool's request for input names no tool.
        return (isinstance(content, UserInputRequest) and content.function_call is not None
                and bool(content.function_call.name) and content.function_call.call_id in calls)

    held = [c for m in run for c in m.contents if moves(c)]
    if not held:
        return run
    def batch_item(content: Content) -> bool:
        # A call, or a hosted service's approval request the model returned with the batch (the stream sends it
        # with the model's contents, before the flagged copies).
        return isinstance(content, FunctionCall) or (isinstance(content, ApprovalRequest)
                                                     and content.function_call.server_label is not None)

    last = max(i for i, m in enumerate(run) if any(batch_item(c) for c in m.contents))
    out: list[Message] = []
    for index, message in enumerate(run):
        kept = [c for c in message.contents if not moves(c)]
        if index == last:
            after = max(i for i, c in enumerate(kept) if batch_item(c)) + 1
            kept[after:after] = held
        if kept:
            out.append(Message(message.role, tuple(kept)))
    return out


def message_from_framework(message: FwMessage) -> Message:
    return Message(_role(message.role), contents_from_framework(message.contents))


def messages_from_framework(messages: Sequence[Any]) -> tuple[Message, ...]:
    """Messages as the model received them; a bare string item (some releases pass those) is a user text."""
    return pauses_after_batch([
        Message("user", (Text(m),)) if isinstance(m, str) else message_from_framework(cast(FwMessage, m))
        for m in messages
    ])


def response_from_framework(response: Any) -> Response:
    """A `ChatResponse`, or an agent's response, which has the same messages and finish reason."""
    finish = getattr(response.finish_reason, "value", response.finish_reason)
    # An agent's response has no conversation id: its session holds the continuation.
    conversation_id = getattr(response, "conversation_id", None)
    return Response(messages_from_framework(response.messages), str(finish) if finish else None,
                    str(conversation_id) if conversation_id else None)


def update_from_framework(update: Any, so_far: StreamedSoFar | None = None) -> Update:
    finish = getattr(update.finish_reason, "value", update.finish_reason)
    conversation_id = getattr(update, "conversation_id", None)
    contents: list[Content] = []
    for content in update.contents:
        converted = from_framework(content)
        if so_far is not None:
            converted = [so_far.finalised(c) for c in so_far.read(update.message_id, content, converted)]
        contents.extend(converted)
    return Update(_role(update.role), tuple(contents), update.message_id,
                  str(finish) if finish else None, str(conversation_id) if conversation_id else None)


class StreamedSoFar:
    """What a stream has carried, to read the framework's restatements as the deltas they stand for.

    Provider clients of newer releases stream a content twice: as deltas (`merge_mode="append"`), then once more in
    full when the provider says the part is done (`merge_mode="replace"`), and the framework's own folding keeps
    the last. The neutral stream only appends, so a restatement becomes the part not streamed yet (usually
    nothing); one that does not extend what was streamed is kept whole, so a provider or client that corrects
    itself mid-stream still shows as the disagreement it is.

    A provider client names the output item each call fragment belongs to, and repeats the call's name on every
    fragment: fragments of one item are one call (the neutral stream names a call once, on its first fragment),
    and a later item reusing the call id is another call."""

    def __init__(self) -> None:
        self._texts: dict[tuple[str, str], str] = {}
        self._whole: dict[str, Mapping[str, JSON]] = {}  # by call id: arguments a call arrived with in one piece
        self._names: dict[str, str] = {}  # by call id: the name its first fragment carried
        # The key of the last call fragment read: a fragment without a call id continues that call (some clients
        # send the id on a call's first fragment only), so its text joins the same call's arguments.
        self._last_call: tuple[str, str] | None = None

    def read(self, message_id: str | None, raw: Any, converted: list[Content]) -> list[Content]:
        replaces = getattr(raw, "merge_mode", None) == "replace"
        read: list[Content] = []
        for content in converted:
            key, value = self._keyed(message_id, content, raw)
            if key is None:
                read.append(content)
                continue
            before = self._texts.get(key, "")
            if key in self._texts and key[0] == "item":
                content = replace(cast(FunctionCall, content), name="")  # the same item's call, continued
            if not replaces or key not in self._texts:
                self._texts[key] = before + value
                read.append(content)
            elif value.startswith(before):
                self._texts[key] = value
                if value[len(before):]:
                    read.append(_with_value(content, value[len(before):]))
            else:
                self._texts[key] = value
                read.append(content)
        return read

    def finalised(self, content: Content) -> Content:
        """A declaration-only call's pause as the caller folds it: the framework streams the call's arguments,
        then marks the call as a user-input request in a metadata-only delta of the same call (arguments not
        repeated), which its own folding joins to the streamed arguments; the pause carries that joined call."""
        if isinstance(content, FunctionCall) and isinstance(content.arguments, Mapping) and content.arguments:
            self._whole[content.call_id] = content.arguments  # a provider that streams a call in one piece
        if isinstance(content, FunctionCall) and content.name:
            self._names.setdefault(content.call_id, content.name)
        if not isinstance(content, UserInputRequest) or content.function_call is None:
            return content
        call = content.function_call
        if not call.name and call.call_id in self._names:  # the metadata-only delta does not repeat the name either
            call = replace(call, name=self._names[call.call_id])
            content = replace(content, function_call=call)
        if call.arguments not in ({}, ""):
            return content
        streamed = [text for (kind, key), text in self._texts.items()
                    if (kind, key) == ("call", call.call_id) or (kind == "item" and key.split(" ")[0] == call.call_id)]
        arguments = parse_arguments(streamed[-1]) if streamed and streamed[-1] else self._whole.get(call.call_id)
        if not arguments:
            return content
        return replace(content, function_call=replace(call, arguments=arguments))

    def _keyed(self, message_id: str | None, content: Content, raw: Any) -> tuple[tuple[str, str] | None, str]:
        if isinstance(content, Text):
            return ("text", message_id or ""), content.text
        arguments = getattr(raw, "arguments", None)
        if isinstance(content, FunctionCall) and isinstance(arguments, str) and content.call_id:
            # Compared as sent: a chunk that happens to be a whole JSON object is read as one.
            item = _provider_item(raw)
            self._last_call = ("item", f"{content.call_id} {item}") if item else ("call", content.call_id)
            return self._last_call, arguments
        if isinstance(content, FunctionCall) and isinstance(arguments, str) and not content.name and self._last_call:
            return self._last_call, arguments
        if isinstance(content, Reasoning) and not content.signature:
            return ("reasoning", content.item_id or message_id or ""), content.text
        return None, ""


def _provider_item(raw: Any) -> str | None:
    """The provider's id of the output item a streamed call fragment belongs to, where its client names one."""
    properties = cast(Mapping[str, Any], getattr(raw, "additional_properties", None) or {})
    namespaced: Any = properties.get("openai")
    item: Any = cast(Mapping[str, Any], namespaced).get("item_id") if isinstance(namespaced, Mapping) else None
    item = item or properties.get("fc_id")
    return str(item) if item else None


def _with_value(content: Content, value: str) -> Content:
    if isinstance(content, Text):
        return Text(value)
    if isinstance(content, FunctionCall):
        return replace(content, arguments=_arguments_chunk(value))
    return replace(cast(Reasoning, content), text=value)


def _arguments_chunk(value: str) -> Mapping[str, JSON] | str:
    try:
        parsed: object = json.loads(value)
    except ValueError:
        return value
    return cast(Mapping[str, JSON], parsed) if isinstance(parsed, dict) else value


def update_to_framework(update: Update, response_id: str) -> ChatResponseUpdate:
    extra: dict[str, Any] = {} if update.conversation_id is None else {"conversation_id": update.conversation_id}
    return ChatResponseUpdate(role=update.role, contents=[to_framework(c) for c in update.contents],
                              message_id=update.message_id, response_id=response_id,
                              finish_reason=cast(Any, update.finish_reason), **extra)


def response_to_framework(response: Response, response_id: str) -> ChatResponse:
    extra: dict[str, Any] = {} if response.conversation_id is None else {"conversation_id": response.conversation_id}
    return ChatResponse(messages=[message_to_framework(m) for m in response.messages], response_id=response_id,
                        finish_reason=cast(Any, response.finish_reason), **extra)
