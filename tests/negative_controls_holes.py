"""Negative controls for the holes issue #15 found: breaks that once passed every check.

Each control here broke one rule without any scenario failing before the check it names was tightened:

* `ResultTampering` wraps any adapter, the real framework's included, and changes only what the caller is shown:
  it repeats one executed call together with its result, or hides one call with its result. No orphan appears
  either way, so only `exactly-once`'s "each execution has exactly one result" can tell, and that needs every
  execution's call id, which the framework's executions did not carry.
* `StreamShowsOneInputRequest` streams only the first of several input requests a tool raised for one call; the
  expected stream order used to fold repeated items into one, so a stream showing one of three read as correct.
* `HandsOverBareDeclarationRequest` surfaces a declaration-only call's input request without the call's
  arguments; the request's call was never compared, only its id.
* `RestoresReplayedWrappers` takes a request replayed a second time for a request of its own, restores its call
  and carries the decision out on both; the reference loop never met a duplicated wrapper (it holds a partly
  decided batch back), so no scenario could tell.
* `TagsCallerMessagesInPlace` on a session-kept conversation: the reference adapter used to hand the loop copies
  of the caller's messages there, so writing into them could never be seen.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from negative_controls import SCENARIOS, _StreamWrapper  # pyright: ignore[reportPrivateUsage]

from harness.adapters.reference import approvals
from harness.adapters.reference.loop import LoopMessage, LoopTool, ReferenceLoop, ReferenceStream
from harness.adapters.reference.session import LoopSession
from harness.contents import (
    JSON,
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Response,
    Update,
    UserInputRequest,
)
from harness.contract import CallerView, Capability, Conversation, ConversationSetup, LoopAdapter, TurnInput

Tampering = Literal["duplicate", "drop"]

# The control scenarios of tests/scenarios/ these controls bring (the others run on bundled scenarios or on those of
# `negative_controls`).
SESSION_SCENARIO = SCENARIOS / "single-call-session.yaml"
HOLES_SCENARIOS = (SESSION_SCENARIO,)


def _first_pair(messages: Sequence[Message]) -> tuple[FunctionCall, FunctionResult] | None:
    """The first result in the response and the call it answers."""
    for message in messages:
        for content in message.contents:
            if isinstance(content, FunctionResult):
                call = next((c for m in messages for c in m.contents
                             if isinstance(c, FunctionCall) and c.call_id == content.call_id), None)
                if call is not None:
                    return call, content
    return None


def tampered(messages: Sequence[Message], how: Tampering) -> tuple[Message, ...]:
    """`messages` with the first call and its result shown twice, or not at all."""
    pair = _first_pair(messages)
    if pair is None:
        return tuple(messages)
    call, result = pair
    out: list[Message] = []
    for message in messages:
        if how == "drop":
            kept = tuple(c for c in message.contents if c is not call and c is not result)
            if kept:
                out.append(Message(message.role, kept))
            continue
        out.append(message)
        if any(c is result for c in message.contents):
            # The repeat comes as its own call-then-result pair, so no call or result is left without the other.
            out.extend((Message("assistant", (call,)), Message("tool", (result,))))
    return tuple(out)


def _as_updates(messages: Sequence[Message], finish_reason: str | None) -> tuple[Update, ...]:
    last = len(messages) - 1
    return tuple(Update(m.role, m.contents, f"tampered-{i}", finish_reason if i == last else None)
                 for i, m in enumerate(messages))


@dataclass
class _TamperingConversation:
    inner: Conversation
    how: Tampering

    async def run_turn(self, turn: TurnInput) -> CallerView:
        view = await self.inner.run_turn(turn)
        if view.response is None:
            return view
        messages = tampered(view.response.messages, self.how)
        response = replace(view.response, messages=messages)
        # The stream tells the same story as the final response, so only the result count can give it away.
        updates = _as_updates(messages, view.response.finish_reason) if view.updates else ()
        return replace(view, response=response, updates=updates)

    async def close(self) -> None:
        await self.inner.close()


class ResultTampering:
    """Any adapter, with one executed call and its result repeated (`duplicate`) or hidden (`drop`) from the
    caller."""

    def __init__(self, inner: LoopAdapter, how: Tampering) -> None:
        self.inner = inner
        self.how: Tampering = how
        self.name = f"control-{how}-result-{inner.name}"
        self.version = inner.version
        self.capabilities: frozenset[Capability] = inner.capabilities

    def open(self, setup: ConversationSetup) -> _TamperingConversation:
        return _TamperingConversation(self.inner.open(setup), self.how)


# --- expect.stream-order ----------------------------------------------------------------------------------------


class _OneInputRequestStream(_StreamWrapper):
    async def updates(self) -> AsyncIterator[Update]:
        shown: set[str] = set()
        async for update in self._inner:
            kept: list[Content] = []
            for content in update.contents:
                if isinstance(content, UserInputRequest) and content.function_call is not None:
                    if content.function_call.call_id in shown:
                        continue
                    shown.add(content.function_call.call_id)
                kept.append(content)
            if kept:
                yield replace(update, contents=tuple(kept))


class StreamShowsOneInputRequest(ReferenceLoop):
    """Streams only the first input request of each call; the final response still holds them all."""

    def stream(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> ReferenceStream:
        return _OneInputRequestStream(super().stream(messages, tools, tool_choice=tool_choice, kwargs=kwargs,
                                                     conversation_id=conversation_id, session=session))


# --- Declaration-only call: the finalised request --------------------------------------------------------------


def _bare(content: Content) -> Content:
    if isinstance(content, UserInputRequest) and content.function_call is not None:
        return replace(content, function_call=FunctionCall(content.function_call.call_id,
                                                           content.function_call.name))
    return content


class _BareRequestStream(_StreamWrapper):
    async def updates(self) -> AsyncIterator[Update]:
        async for update in self._inner:
            yield replace(update, contents=tuple(_bare(c) for c in update.contents))


class HandsOverBareDeclarationRequest(ReferenceLoop):
    """Surfaces a declaration-only call's input request with the call's name but without its arguments, so the
    caller cannot carry the call out from the request it holds."""

    async def respond(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> Response:
        response = await super().respond(messages, tools, tool_choice=tool_choice, kwargs=kwargs,
                                         conversation_id=conversation_id, session=session)
        return replace(response, messages=tuple(Message(m.role, tuple(_bare(c) for c in m.contents))
                                                for m in response.messages))

    def stream(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> ReferenceStream:
        return _BareRequestStream(super().stream(messages, tools, tool_choice=tool_choice, kwargs=kwargs,
                                                 conversation_id=conversation_id, session=session))


# --- Replayed approval wrapper -------------------------------------------------------------------------------------


class RestoresReplayedWrappers(ReferenceLoop):
    """Takes each copy of a replayed approval request for a request of its own, restores the call it embeds and
    applies the caller's decision on the request to every copy: the duplicated wrapper brings back another function
    call, which then runs."""

    def normalise(self, history: Sequence[Message], *, restore_calls: bool) -> approvals.Normalised:
        copies: dict[str, list[str]] = {}
        renamed: list[Message] = []
        for message in history:
            contents: list[Content] = []
            for content in message.contents:
                if isinstance(content, ApprovalRequest):
                    ids = copies.setdefault(content.id, [])
                    ids.append(content.id if not ids else f"{content.id}-copy-{len(ids)}")
                    content = replace(content, id=ids[-1])
                elif isinstance(content, ApprovalResponse):
                    contents.extend(replace(content, id=copy) for copy in copies.get(content.id, [])[1:])
                contents.append(content)
            renamed.append(Message(message.role, tuple(contents)))
        return super().normalise(renamed, restore_calls=restore_calls)
