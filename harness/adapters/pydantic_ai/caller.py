"""What a pydantic-ai caller holds: the input of a run, built from the scenario's neutral messages, and the
responses runs return — both re-readable afterwards from the very objects pydantic-ai was given or gave back, so a
run that mutates them shows.

A run takes a `message_history` of `ModelRequest` / `ModelResponse` objects, a `user_prompt` and
`deferred_tool_results` (decisions on the approvals and answers to the deferred calls a paused run asked for,
keyed by tool call id). The caller's neutral messages map onto them so:

- every message becomes one history message (pydantic-ai itself merges adjacent requests); one this conversation
  returned is handed back as the same objects (the `ModelResponse`, the result parts), as a caller keeping
  `all_messages()` does;
- a final user message of plain text is the run's `user_prompt`;
- approval requests and user-input requests are not history in pydantic-ai (they are the `DeferredToolRequests` a
  run returned), so they never reach it;
- decisions and answers are read from the caller's trailing messages, after its last assistant message: there an
  approval response becomes `deferred_tool_results.approvals[call id]` and a result for a pending deferred call (a
  declaration-only or input-requesting tool) `deferred_tool_results.calls[call id]`. A decision further back is part
  of the caller's stored transcript, which pydantic-ai's history has no form for: it is not sent (see `notes`);
- any other result is a `ToolReturnPart` of the history, the pending-approval placeholder included.

A run's response is its `new_messages()` without what the caller sent (its prompt parts, and the results of its
answers to deferred calls, which pydantic-ai records as the calls' results), each `ModelResponse` one assistant
message and each request's tool results one tool message, followed by its pause when it ended in
`DeferredToolRequests`: one approval request per approval, one user-input request per deferred call (per input
request for a tool asking several), appended to the last message when that is the assistant's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, cast

from harness.adapters.pydantic_ai.convert import (
    call_from_part,
    json_value,
    part_content,
    part_role,
    request_part,
    response_part,
)
from harness.adapters.pydantic_ai.tools import INPUT_REQUESTS
from harness.contents import (
    JSON,
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Response,
    Role,
    Text,
    Usage,
    UserInputRequest,
)
from harness.transcript import message_form
from pydantic_ai import DeferredToolRequests, DeferredToolResults, ToolApproved, ToolFailed
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    SystemPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

Original = ModelResponse | tuple[ModelRequestPart, ...]
ResultsFactory = Callable[[dict[str, bool], dict[str, object]], DeferredToolResults]


def message_key(message: Message) -> str:
    return json.dumps(message_form(message), sort_keys=True, default=str)


class Source(Protocol):
    def read(self) -> Content: ...


@dataclass(frozen=True)
class Fixed:
    """A content pydantic-ai never receives (a wrapper, a decision it is not sent): nothing it could change."""

    content: Content

    def read(self) -> Content:
        return self.content


@dataclass(frozen=True)
class PartOf:
    """Part `index` of a message object, read as it is now."""

    holder: ModelRequest | ModelResponse
    index: int
    raw: bool = False  # a result the caller wrote: read back as the value it holds, not as the model's text

    def read(self) -> Content:
        parts = self.holder.parts
        if self.index >= len(parts):
            return Text(f"[part {self.index} removed from the {type(self.holder).__name__}]")
        part = parts[self.index]
        return part_content(part, raw=self.raw) or Text(f"[{type(part).__name__}]")


@dataclass(frozen=True)
class PauseOf:
    """An approval request or a user-input request, read from the call a run's `DeferredToolRequests` holds."""

    call: ToolCallPart
    kind: Literal["approval", "input"]
    payload: JSON = None

    def read(self) -> Content:
        call = call_from_part(self.call)
        if self.kind == "approval":
            return ApprovalRequest(call.call_id, call)
        return UserInputRequest(call.call_id, call, self.payload)


@dataclass
class ResultsBox:
    """The `deferred_tool_results` of one run, once made."""

    results: DeferredToolResults | None = None


@dataclass(frozen=True)
class DecisionIn:
    """A decision, read from the `deferred_tool_results` it was sent in (as written when none were made)."""

    box: ResultsBox
    written: ApprovalResponse

    def read(self) -> Content:
        if self.box.results is None:
            return self.written
        call = self.written.function_call
        decision = self.box.results.approvals.get(call.call_id)
        return ApprovalResponse(self.written.id, decision is True or isinstance(decision, ToolApproved), call)


@dataclass(frozen=True)
class AnswerIn:
    """An answer to a deferred call, read from the `deferred_tool_results` it was sent in."""

    box: ResultsBox
    written: FunctionResult

    def read(self) -> Content:
        if self.box.results is None:
            return self.written
        answer = self.box.results.calls.get(self.written.call_id)
        if isinstance(answer, ToolFailed):
            return FunctionResult(self.written.call_id, answer.message, True)
        return FunctionResult(self.written.call_id, json_value(answer))


@dataclass(frozen=True)
class SourcedMessage:
    role: Role
    sources: tuple[Source, ...]

    def read(self) -> Message:
        return Message(self.role, tuple(s.read() for s in self.sources))


def read_messages(messages: Sequence[SourcedMessage]) -> tuple[Message, ...]:
    return tuple(m.read() for m in messages)


# --- the caller's input ---------------------------------------------------------------------------------------


@dataclass
class CallerInput:
    """One run's input, and how to re-read the caller's neutral messages from it."""

    history: list[ModelMessage]
    prompt: str | list[str] | None
    layout: str | tuple[SourcedMessage, ...]
    approvals: dict[str, bool] = field(default_factory=lambda: {})
    answers: dict[str, object] = field(default_factory=lambda: {})
    box: ResultsBox = field(default_factory=ResultsBox)
    notes: list[str] = field(default_factory=lambda: [])

    def __post_init__(self) -> None:
        self.seal()

    def seal(self) -> None:
        """Record the history list as it is sent, to notice a run that changes the list itself."""
        self._sent = tuple(self.history)

    def deferred_results(self, factory: ResultsFactory) -> DeferredToolResults | None:
        """The run's `deferred_tool_results`, made by `factory` (which may refuse them) when there are any."""
        if self.approvals or self.answers:
            self.box.results = factory(dict(self.approvals), dict(self.answers))
        return self.box.results

    def reread(self) -> str | tuple[Message, ...]:
        if isinstance(self.layout, str):
            return self.layout
        messages = read_messages(self.layout)
        same = len(self.history) == len(self._sent) and all(
            a is b for a, b in zip(self.history, self._sent, strict=True))
        if not same:
            messages += (Message("user", (Text("[the message_history list changed during the run]"),)),)
        return messages


def plain_results(approvals: dict[str, bool], answers: dict[str, object]) -> DeferredToolResults:
    return DeferredToolResults(approvals=dict(approvals), calls=dict(answers))


@dataclass
class _Builder:
    originals: Mapping[str, Original]
    answerable: set[str]
    built: CallerInput
    tool_names: dict[str, str] = field(default_factory=lambda: {})
    layout: list[SourcedMessage] = field(default_factory=lambda: [])

    def add(self, message: Message, trailing: bool) -> None:
        original = self.originals.get(message_key(message))
        if isinstance(original, ModelResponse) and message.role == "assistant":
            self._original_response(message, original)
        elif isinstance(original, tuple) and message.role != "assistant":
            self._original_request(message, original)
        elif message.role == "assistant":
            self._response(message)
        else:
            self._request(message, trailing)

    def _remember_calls(self, contents: Sequence[Content]) -> None:
        for content in contents:
            if isinstance(content, FunctionCall):
                self.tool_names[content.call_id] = content.name

    def _original_response(self, message: Message, response: ModelResponse) -> None:
        self.built.history.append(response)
        sources: list[Source] = [PartOf(response, i) for i, p in enumerate(response.parts)
                                 if part_content(p) is not None]
        sources += [Fixed(c) for c in message.contents[len(sources):]]
        self._remember_calls(message.contents)
        self.layout.append(SourcedMessage("assistant", tuple(sources)))

    def _original_request(self, message: Message, parts: tuple[ModelRequestPart, ...]) -> None:
        request = ModelRequest(parts=list(parts))
        self.built.history.append(request)
        self.layout.append(SourcedMessage(message.role, tuple(PartOf(request, i) for i in range(len(parts)))))

    def _response(self, message: Message) -> None:
        parts: list[ModelResponsePart] = []
        slots: list[int | Content] = []
        for content in message.contents:
            if isinstance(content, ApprovalRequest | UserInputRequest | Usage):
                slots.append(content)
            else:
                slots.append(len(parts))
                parts.append(response_part(content))
        response = ModelResponse(parts=parts)
        if parts:
            self.built.history.append(response)
        self._remember_calls(message.contents)
        self.layout.append(SourcedMessage("assistant", tuple(
            PartOf(response, s) if isinstance(s, int) else Fixed(s) for s in slots)))

    def _request(self, message: Message, trailing: bool) -> None:
        parts: list[ModelRequestPart] = []
        sources: list[Source | int] = []
        for content in message.contents:
            if isinstance(content, ApprovalResponse) and trailing:
                self.built.approvals[content.function_call.call_id] = content.approved
                sources.append(DecisionIn(self.built.box, content))
            elif isinstance(content, ApprovalResponse):
                self.built.notes.append(f"a decision on '{content.function_call.call_id}' further back than the "
                                        "caller's latest messages is transcript only: pydantic-ai has no history "
                                        "form for it, so it is not sent")
                sources.append(Fixed(content))
            elif isinstance(content, FunctionResult) and trailing and content.call_id in self.answerable:
                self.built.answers[content.call_id] = (
                    ToolFailed(str(content.result)) if content.error else content.result)
                sources.append(AnswerIn(self.built.box, content))
            elif isinstance(content, ApprovalRequest | UserInputRequest | Usage):
                sources.append(Fixed(content))
            else:
                sources.append(len(parts))
                parts.append(request_part(content, message.role, self.tool_names))
        request = ModelRequest(parts=parts)
        if parts:
            self.built.history.append(request)
        self.layout.append(SourcedMessage(message.role, tuple(
            PartOf(request, s, raw=True) if isinstance(s, int) else s for s in sources)))


def _prompt(message: Message) -> str | list[str] | None:
    texts = [c.text for c in message.contents if isinstance(c, Text)]
    if message.role != "user" or not texts or len(texts) != len(message.contents):
        return None
    return texts[0] if len(texts) == 1 else texts


def build_input(messages: str | tuple[Message, ...], originals: Mapping[str, Original],
                answerable: set[str]) -> CallerInput:
    """The run input for the caller's `messages`; `answerable` holds the ids of deferred calls still pending."""
    if isinstance(messages, str):
        return CallerInput([], messages, messages)
    built = CallerInput([], None, ())
    builder = _Builder(originals, answerable, built)
    last_assistant = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=-1)
    for index, message in enumerate(messages):
        prompt = _prompt(message) if index == len(messages) - 1 and index > last_assistant else None
        if prompt is not None:
            built.prompt = prompt
            builder.layout.append(SourcedMessage("user", tuple(Fixed(c) for c in message.contents)))
        else:
            builder.add(message, trailing=index > last_assistant)
    built.layout = tuple(builder.layout)
    built.seal()
    return built


# --- what a run returns ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Returned:
    """A run's response as sourced messages, and the objects a caller replaying each message hands back."""

    messages: tuple[SourcedMessage, ...]
    originals: tuple[Original | None, ...]
    finish_reason: str | None = None

    def read(self) -> Response:
        return Response(read_messages(self.messages), self.finish_reason)


def _caller_prompt(part: ModelRequestPart) -> bool:
    return isinstance(part, UserPromptPart | SystemPromptPart)


def _request_groups(request: ModelRequest, answered: set[str]) -> list[tuple[SourcedMessage, Original]]:
    groups: list[tuple[Role, list[int]]] = []
    for index, part in enumerate(request.parts):
        role = part_role(part)
        if role is None or _caller_prompt(part) or part_content(part) is None:
            continue
        if isinstance(part, ToolReturnPart) and part.tool_call_id in answered:
            answered.discard(part.tool_call_id)  # the caller's own answer, sent as a deferred result
            continue
        if groups and groups[-1][0] == role:
            groups[-1][1].append(index)
        else:
            groups.append((role, [index]))
    return [(SourcedMessage(role, tuple(PartOf(request, i) for i in indices)),
             tuple(request.parts[i] for i in indices)) for role, indices in groups]


def pause_sources(output: object) -> list[Source]:
    """The pause of a run that ended in `DeferredToolRequests`: approvals, then deferred calls, in model order."""
    if not isinstance(output, DeferredToolRequests):
        return []
    sources: list[Source] = [PauseOf(call, "approval") for call in output.approvals]
    for call in output.calls:
        metadata = output.metadata.get(call.tool_call_id) or {}
        payloads = metadata.get(INPUT_REQUESTS)
        if isinstance(payloads, list):
            sources.extend(PauseOf(call, "input", json_value(p)) for p in cast(list[object], payloads))
        else:
            sources.append(PauseOf(call, "input"))
    return sources


def returned(new_messages: Sequence[ModelMessage], output: object, answered: Iterable[str] = ()) -> Returned:
    """A run's response; `answered` names the deferred calls the caller answered, whose results it already has."""
    messages: list[tuple[SourcedMessage, Original | None]] = []
    finish: str | None = None
    echoes = set(answered)
    for message in new_messages:
        if isinstance(message, ModelRequest):
            messages.extend(_request_groups(message, echoes))
            continue
        finish = message.finish_reason or finish
        sources = tuple(PartOf(message, i) for i, p in enumerate(message.parts) if part_content(p) is not None)
        if sources:
            messages.append((SourcedMessage("assistant", sources), message))
    pauses = tuple(pause_sources(output))
    if pauses and messages and messages[-1][0].role == "assistant":
        last, original = messages[-1]
        messages[-1] = (SourcedMessage("assistant", last.sources + pauses), original)
    elif pauses:
        messages.append((SourcedMessage("assistant", pauses), None))
    return Returned(tuple(m for m, _ in messages), tuple(o for _, o in messages), finish)


def register_originals(response: Returned, originals: dict[str, Original]) -> None:
    """Remember the objects behind each returned message, for a caller that replays it."""
    for message, original in zip(response.messages, response.originals, strict=True):
        if original is not None:
            originals[message_key(message.read())] = original
