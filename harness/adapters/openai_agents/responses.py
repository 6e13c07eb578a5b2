"""A scripted answer as the SDK's models deliver one: Responses-API output items and the stream events behind them.

`AnswerEncoder` takes the provider's neutral updates (a non-streaming answer is fed as one update per message) and
builds, item by item, what the SDK's `Model.stream_response` must yield — ``response.created``, then per output item
``output_item.added``, its deltas (``output_text``, ``function_call_arguments``, ``reasoning_text``) and
``output_item.done``, and finally ``response.completed`` holding every item — so both response modes hand the SDK
the very same items. Consecutive text of one message is one message item; argument chunks of one call are deltas of
one function-call item. Contents the SDK has no model-output form for (results, approval or user-input wrappers,
hosted or informational-only calls) raise `UnsupportedContentError`, which fails the model call.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

from agents.items import TResponseOutputItem, TResponseStreamEvent
from agents.usage import Usage as SdkUsage
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseInProgressEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseReasoningSummaryTextDoneEvent,
    ResponseReasoningTextDeltaEvent,
    ResponseReasoningTextDoneEvent,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
    ResponseUsage,
)
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

from harness.adapters.openai_agents.convert import arguments_json, item_id, reasoning_item
from harness.contents import Content, FunctionCall, Reasoning, Text, Update, Usage

ItemKind = Literal["message", "function_call", "reasoning"]


class UnsupportedContentError(ValueError):
    """A scripted model answer holds a content the SDK's model output has no item for."""


@dataclass
class _OpenItem:
    kind: ItemKind
    id: str
    index: int
    message_key: str | None
    text: str = ""  # message text, call arguments or reasoning text
    call_id: str = ""
    name: str = ""
    reasoning: Reasoning | None = None  # the reasoning item's id, kind and payload; its text accumulates in `text`


@dataclass
class AnswerEncoder:
    """Builds the output items and stream events of one model call; `prefix` names its messages' groups."""

    prefix: str
    response_id: str
    items: list[TResponseOutputItem] = field(default_factory=lambda: [])
    usage: SdkUsage = field(default_factory=lambda: SdkUsage(requests=1))
    _open: _OpenItem | None = None
    _groups: dict[str | None, str] = field(default_factory=lambda: {})
    _sequence: int = 0

    def start(self) -> list[TResponseStreamEvent]:
        pending = self._response([], "in_progress")
        return [ResponseCreatedEvent(type="response.created", response=pending, sequence_number=self._next()),
                ResponseInProgressEvent(type="response.in_progress", response=pending,
                                        sequence_number=self._next())]

    def feed(self, update: Update) -> list[TResponseStreamEvent]:
        """The events that deliver one neutral update."""
        if update.role != "assistant":
            raise UnsupportedContentError(f"a model answer with a {update.role} message has no SDK output form")
        events: list[TResponseStreamEvent] = []
        for content in update.contents:
            events += self._content(content, update.message_id)
        return events

    def finish(self) -> tuple[list[TResponseStreamEvent], Response]:
        events = self._close()
        response = self._response(list(self.items), "completed")
        events.append(ResponseCompletedEvent(type="response.completed", response=response,
                                             sequence_number=self._next()))
        return events, response

    def _content(self, content: Content, key: str | None) -> list[TResponseStreamEvent]:
        if isinstance(content, Usage):
            self.usage = SdkUsage(requests=1, input_tokens=content.input_tokens, output_tokens=content.output_tokens,
                                  total_tokens=content.input_tokens + content.output_tokens)
            return []
        if isinstance(content, Text):
            return self._text(content.text, key)
        if isinstance(content, Reasoning):
            return self._reasoning(content, key)
        if isinstance(content, FunctionCall) and content.server_label is None and not content.informational_only:
            return self._call(content, key)
        raise UnsupportedContentError(f"no Agents SDK model-output item for {content!r}")

    def _text(self, text: str, key: str | None) -> list[TResponseStreamEvent]:
        events: list[TResponseStreamEvent] = []
        item = self._open
        if item is None or item.kind != "message" or item.message_key != key:
            events += self._close()
            item = self._begin("message", key)
            added = ResponseOutputMessage(id=item.id, type="message", role="assistant", status="in_progress",
                                          content=[])
            events += [self._added(added), ResponseContentPartAddedEvent(
                type="response.content_part.added", item_id=item.id, output_index=item.index, content_index=0,
                part=_output_text(""), sequence_number=self._next())]
        item.text += text
        events.append(ResponseTextDeltaEvent(type="response.output_text.delta", item_id=item.id,
                                             output_index=item.index, content_index=0, delta=text, logprobs=[],
                                             sequence_number=self._next()))
        return events

    def _reasoning(self, reasoning: Reasoning, key: str | None) -> list[TResponseStreamEvent]:
        events: list[TResponseStreamEvent] = []
        item = self._open
        if item is None or item.reasoning is None or item.message_key != key or not _continues(item.reasoning,
                                                                                                 reasoning):
            events += self._close()
            item = self._begin("reasoning", key, reasoning.item_id)
            events.append(self._added(ResponseReasoningItem(id=item.id, type="reasoning", summary=[], content=[],
                                                            status="in_progress")))
        item.reasoning = _joined(item.reasoning, reasoning)
        if reasoning.text:
            item.text += reasoning.text
            events.append(self._reasoning_delta(item, reasoning.text))
        return events

    def _reasoning_delta(self, item: _OpenItem, delta: str) -> TResponseStreamEvent:
        if item.reasoning is not None and item.reasoning.kind == "summary":
            return ResponseReasoningSummaryTextDeltaEvent(
                type="response.reasoning_summary_text.delta", item_id=item.id, output_index=item.index,
                summary_index=0, delta=delta, sequence_number=self._next())
        return ResponseReasoningTextDeltaEvent(
            type="response.reasoning_text.delta", item_id=item.id, output_index=item.index, content_index=0,
            delta=delta, sequence_number=self._next())

    def _call(self, call: FunctionCall, key: str | None) -> list[TResponseStreamEvent]:
        events: list[TResponseStreamEvent] = []
        item = self._open
        # A fragment continues the open call when it repeats that call's id or has none, and brings no second name.
        # A name that arrives after the id has no delta event in this protocol: the item's done event carries it.
        continues = (isinstance(call.arguments, str) and not (call.name and item is not None and item.name)
                     and call.call_id in ("", item and item.call_id))
        if item is not None and continues and call.name:
            item.name = call.name
        if item is None or item.kind != "function_call" or not continues:
            events += self._close()
            item = self._begin("function_call", key)
            item.call_id, item.name = call.call_id, call.name
            events.append(self._added(ResponseFunctionToolCall(id=item.id, type="function_call", call_id=call.call_id,
                                                               name=call.name, arguments="", status="in_progress")))
        delta = arguments_json(call)
        item.text += delta
        events.append(ResponseFunctionCallArgumentsDeltaEvent(
            type="response.function_call_arguments.delta", item_id=item.id, output_index=item.index, delta=delta,
            sequence_number=self._next()))
        return events

    def _begin(self, kind: ItemKind, key: str | None, own_id: str | None = None) -> _OpenItem:
        group = self._groups.setdefault(key, f"{self.prefix}m{len(self._groups)}")
        self._open = _OpenItem(kind, own_id or item_id(group, len(self.items)), len(self.items), key)
        return self._open

    def _added(self, item: TResponseOutputItem) -> TResponseStreamEvent:
        return ResponseOutputItemAddedEvent(type="response.output_item.added", item=item,
                                            output_index=len(self.items), sequence_number=self._next())

    def _close(self) -> list[TResponseStreamEvent]:
        item, self._open = self._open, None
        if item is None:
            return []
        done = _done_item(item)
        events = self._done_events(item, done)
        self.items.append(done)
        events.append(ResponseOutputItemDoneEvent(type="response.output_item.done", item=done,
                                                  output_index=item.index, sequence_number=self._next()))
        return events

    def _done_events(self, item: _OpenItem, done: TResponseOutputItem) -> list[TResponseStreamEvent]:
        common: dict[str, Any] = {"item_id": item.id, "output_index": item.index}
        if item.kind == "function_call":
            if "name" in ResponseFunctionCallArgumentsDoneEvent.model_fields:
                common["name"] = item.name  # openai before 3.x requires the function's name on this event
            return [ResponseFunctionCallArgumentsDoneEvent(type="response.function_call_arguments.done",
                                                           arguments=item.text, sequence_number=self._next(),
                                                           **common)]
        if item.reasoning is not None and item.reasoning.kind == "summary":
            return [ResponseReasoningSummaryTextDoneEvent(type="response.reasoning_summary_text.done",
                                                          summary_index=0, text=item.text,
                                                          sequence_number=self._next(), **common)]
        if item.kind == "reasoning":
            return [ResponseReasoningTextDoneEvent(type="response.reasoning_text.done", content_index=0,
                                                   text=item.text, sequence_number=self._next(), **common)]
        part = cast(ResponseOutputMessage, done).content[0]
        return [ResponseTextDoneEvent(type="response.output_text.done", content_index=0, text=item.text, logprobs=[],
                                      sequence_number=self._next(), **common),
                ResponseContentPartDoneEvent(type="response.content_part.done", content_index=0, part=part,
                                             sequence_number=self._next(), **common)]

    def _response(self, output: list[TResponseOutputItem], status: Literal["in_progress", "completed"]) -> Response:
        usage = ResponseUsage(
            input_tokens=self.usage.input_tokens, output_tokens=self.usage.output_tokens,
            total_tokens=self.usage.total_tokens,
            input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
            output_tokens_details=OutputTokensDetails(reasoning_tokens=0))
        return Response(id=self.response_id, created_at=0, model="loop-conformance-scripted", object="response",
                        output=output, tool_choice="auto", tools=[], parallel_tool_calls=True, status=status,
                        usage=usage if status == "completed" else None)

    def _next(self) -> int:
        self._sequence += 1
        return self._sequence - 1


def _continues(open_reasoning: Reasoning, fragment: Reasoning) -> bool:
    """Whether a reasoning fragment adds to the open reasoning item: the same item and kind, no second payload."""
    return (fragment.item_id in (None, open_reasoning.item_id) and fragment.kind == open_reasoning.kind
            and open_reasoning.signature is None and open_reasoning.data is None)


def _joined(open_reasoning: Reasoning | None, fragment: Reasoning) -> Reasoning:
    """The open item's id, kind and payload once `fragment` is added (its text is kept apart)."""
    if open_reasoning is None:
        return replace(fragment, text="")
    return replace(open_reasoning, signature=open_reasoning.signature or fragment.signature,
                   data=open_reasoning.data if open_reasoning.data is not None else fragment.data)


def _output_text(text: str) -> ResponseOutputText:
    return ResponseOutputText(type="output_text", text=text, annotations=[], logprobs=[])


def _done_item(item: _OpenItem) -> TResponseOutputItem:
    if item.kind == "function_call":
        return ResponseFunctionToolCall(id=item.id, type="function_call", call_id=item.call_id, name=item.name,
                                        arguments=item.text, status="completed")
    if item.reasoning is not None:
        done = reasoning_item(replace(item.reasoning, text=item.text), item.id)
        return ResponseReasoningItem.model_validate({**done, "status": "completed"})
    return ResponseOutputMessage(id=item.id, type="message", role="assistant", status="completed",
                                 content=[_output_text(item.text)])
