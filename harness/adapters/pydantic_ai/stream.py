"""Streaming, both ways: a scripted response's updates as `FunctionModel` stream items, and the agent run's events
as the caller's neutral updates.

`FunctionModel` builds one streamed part per vendor part id: all text goes to its single ``'content'`` part, every
other content gets a part index of its own, and argument chunks of one call continue that call's index. On the way
back, each model response's events share one message id (a response starts with the event for its part 0), and
the tool results of the batch that follows share another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias, cast

from harness.adapters.pydantic_ai.convert import (
    UnsupportedContentError,
    arguments_json,
    call_part,
    part_content,
    result_from_part,
)
from harness.contents import JSON, Content, FunctionCall, Reasoning, Text, Update, Usage
from pydantic_ai.messages import (
    AgentStreamEvent,
    BaseToolCallPart,
    FunctionToolResultEvent,
    ModelResponsePart,
    NativeToolCallPart,
    PartDeltaEvent,
    PartStartEvent,
    TextPartDelta,
    ThinkingPartDelta,
    ToolCallPartDelta,
)
from pydantic_ai.models.function import (
    BuiltinToolCallsReturns,
    DeltaThinkingCalls,
    DeltaThinkingPart,
    DeltaToolCall,
    DeltaToolCalls,
)

StreamItem: TypeAlias = str | DeltaToolCalls | DeltaThinkingCalls | BuiltinToolCallsReturns


@dataclass
class ScriptedStream:
    """The stream items of one scripted response, fed update by update."""

    _next_index: int = 0
    _last: tuple[str, str | None] | None = None  # kind and call id of the previous content
    _named: bool = False  # whether the call being streamed has brought its name yet

    def _index(self, continues: bool) -> int:
        if not continues:
            self._next_index += 1
        return self._next_index

    def items(self, update: Update) -> list[StreamItem]:
        return [item for content in update.contents for item in self._item(content)]

    def _item(self, content: Content) -> list[StreamItem]:
        if isinstance(content, Usage):
            return []
        if isinstance(content, Text):
            self._last = ("text", None)
            return [content.text]
        if isinstance(content, Reasoning):
            if not content.text and not content.signature:
                # An empty fragment (a provider may open an item with one) carries nothing a thinking delta can: it
                # would start a part with no content, which pydantic-ai refuses. The next fragment starts the part.
                return []
            index = self._index(self._last == ("reasoning", None))
            self._last = ("reasoning", None)
            return [{index: DeltaThinkingPart(content=content.text or None, signature=content.signature)}]
        if isinstance(content, FunctionCall):
            return [self._call(content)]
        raise UnsupportedContentError(f"pydantic-ai's FunctionModel cannot stream a {type(content).__name__}")

    def _call(self, call: FunctionCall) -> StreamItem:
        if call.informational_only or call.server_label is not None:
            index = self._index(False)
            self._last = ("native", call.call_id)
            native = call_part(call)
            assert isinstance(native, NativeToolCallPart)
            return {index: native}
        # A fragment continues the call before it when it repeats that call's id or has none, and does not bring a
        # second name (a provider may send the name on a later delta than the id).
        previous = self._last[1] if self._last is not None and self._last[0] == "call" else None
        continues = previous is not None and call.call_id in ("", previous) and not (call.name and self._named)
        index = self._index(continues)
        self._named = bool(call.name) or (continues and self._named)
        self._last = ("call", call.call_id or previous)
        return {index: DeltaToolCall(call.name or None, arguments_json(call), tool_call_id=call.call_id or None)}


def _streamed_content(part: ModelResponsePart) -> Content | None:
    """A part as it starts streaming: a call keeps its raw argument text, so later chunks can join it."""
    if isinstance(part, BaseToolCallPart) and isinstance(part.args, str):
        call = part_content(part)
        assert isinstance(call, FunctionCall)
        return FunctionCall(call.call_id, call.name, part.args, call.informational_only, call.server_label)
    return part_content(part)


@dataclass
class RunUpdates:
    """The caller's updates from one agent run's event stream."""

    answered: set[str] = field(default_factory=lambda: set[str]())  # the caller's answers: not echoed back
    responses: int = 0
    _call_ids: dict[int, str] = field(default_factory=lambda: {})

    def update(self, event: AgentStreamEvent) -> Update | None:
        content: Content | None = None
        if isinstance(event, PartStartEvent):
            if event.index == 0:
                self.responses += 1
                self._call_ids.clear()
            if isinstance(event.part, BaseToolCallPart):
                self._call_ids[event.index] = event.part.tool_call_id
            content = _streamed_content(event.part)
        elif isinstance(event, PartDeltaEvent):
            content = self._delta(event)
        elif isinstance(event, FunctionToolResultEvent):
            if self.responses == 0 and event.part.tool_call_id in self.answered:
                self.answered.discard(event.part.tool_call_id)
                return None
            return Update("tool", (result_from_part(event.part),), f"results-{self.responses}")
        if content is None:
            return None
        return Update("assistant", (content,), f"response-{self.responses}")

    def _delta(self, event: PartDeltaEvent) -> Content | None:
        delta = event.delta
        if isinstance(delta, TextPartDelta):
            return Text(delta.content_delta)
        if isinstance(delta, ThinkingPartDelta):
            return Reasoning(delta.content_delta or "", delta.signature_delta)
        if isinstance(delta, ToolCallPartDelta):
            call_id = delta.tool_call_id or self._call_ids.get(event.index, "")
            args = delta.args_delta
            arguments = args if isinstance(args, str) else cast(dict[str, JSON], dict(args or {}))
            return FunctionCall(call_id, delta.tool_name_delta or "", arguments)
        return None
