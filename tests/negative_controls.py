"""Negative controls: miniature, deliberately broken variants of the reference loop.

Each class below breaks exactly one promise of the spec in the smallest way that still looks like a real bug. The
harness must catch every one of them with the check named in `CONTROLS`; if a check stops failing on its control,
the check has gone blind. Each variant subclasses `ReferenceLoop` and runs through the ordinary adapter contract via
`adapter_for`, so the harness judges it exactly as it would judge a third-party implementation.

The variants hook only the loop's stable seams (its public `respond`/`stream`/`execute_batch`/`caller_history`, the
model client it is given, its config, and the outcome of `_process_calls`), so they keep working while the
reference loop's internals evolve.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.adapters.reference import ReferenceAdapter
from harness.adapters.reference.loop import (
    LoopMessage,
    LoopTool,
    ModelClient,
    ReferenceLoop,
    ReferenceStream,
    _RunState,  # pyright: ignore[reportPrivateUsage]
)
from harness.adapters.reference.session import LoopSession
from harness.contents import (
    JSON,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Response,
    Text,
    Update,
    fold_updates,
)
from harness.contract import ConversationSetup, LoopConfig, Mode

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


class _StreamWrapper(ReferenceStream):
    """Base for streams that tamper with what a correct stream delivers; by default it passes everything on."""

    def __init__(self, inner: ReferenceStream) -> None:  # pyright: ignore[reportMissingSuperCall]
        self._inner = inner
        self._delivered: list[Update] = []
        self._stream = self._deliver()

    def __aiter__(self) -> AsyncIterator[Update]:
        return self._stream

    async def _deliver(self) -> AsyncIterator[Update]:
        async for update in self.updates():
            self._delivered.append(update)
            yield update

    async def updates(self) -> AsyncIterator[Update]:
        """The updates this stream delivers, read once from the correct stream."""
        async for update in self._inner:
            yield update

    async def final_response(self) -> Response:
        async for _ in self._stream:
            pass
        return fold_updates(self._delivered)


# --- exactly-once -----------------------------------------------------------------------------------------------


class RunsEachCallTwice(ReferenceLoop):
    """Executes every batch of calls twice (a retry wrapper gone wrong) and reports only the second results."""

    async def execute_batch(self, calls: list[FunctionCall], state: _RunState) -> list[Content]:
        await super().execute_batch(calls, state)
        return await super().execute_batch(calls, state)


# --- no-orphans -------------------------------------------------------------------------------------------------


def _without_results(contents: Sequence[Content]) -> tuple[Content, ...]:
    return tuple(c for c in contents if not isinstance(c, FunctionResult))


class _ResultlessStream(_StreamWrapper):
    async def updates(self) -> AsyncIterator[Update]:
        async for update in self._inner:
            if kept := _without_results(update.contents):
                yield replace(update, contents=kept)


class DropsResultsFromResponse(ReferenceLoop):
    """Hides function results from the caller (both modes), so the returned calls have no results."""

    async def respond(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> Response:
        response = await super().respond(messages, tools, tool_choice=tool_choice, kwargs=kwargs,
                                 conversation_id=conversation_id, session=session)
        kept = (Message(m.role, _without_results(m.contents)) for m in response.messages)
        return Response(tuple(m for m in kept if m.contents), response.finish_reason)

    def stream(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> ReferenceStream:
        return _ResultlessStream(super().stream(messages, tools, tool_choice=tool_choice, kwargs=kwargs,
                                 conversation_id=conversation_id, session=session))


Rewrite = Callable[[Sequence[Message]], list[Message]]


class RewritingModel:
    """A model client that forwards every request with its history rewritten first."""

    def __init__(self, inner: ModelClient, rewrite: Rewrite) -> None:
        self._inner = inner
        self._rewrite = rewrite

    async def complete(
        self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
        kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None,
    ) -> Response:
        return await self._inner.complete(self._rewrite(messages), tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                          conversation_id=conversation_id)

    def stream(
        self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
        kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None,
    ) -> AsyncIterator[Update]:
        return self._inner.stream(self._rewrite(messages), tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                  conversation_id=conversation_id)


def _keeping(keep: Callable[[Content], bool]) -> Rewrite:
    """A rewrite that keeps only the contents `keep` accepts (and the messages left with any)."""

    def rewrite(messages: Sequence[Message]) -> list[Message]:
        kept = (Message(m.role, tuple(c for c in m.contents if keep(c))) for m in messages)
        return [m for m in kept if m.contents]

    return rewrite


class SendsCallsWithoutResults(ReferenceLoop):
    """Serialises history for the model without function results, so the model sees calls left open."""

    def __init__(self, model: ModelClient, config: LoopConfig, catalog: Mapping[str, LoopTool] | None = None) -> None:
        super().__init__(RewritingModel(model, _keeping(lambda c: not isinstance(c, FunctionResult))), config,
                         catalog)


# --- inputs-unmutated -------------------------------------------------------------------------------------------


class TagsCallerMessagesInPlace(ReferenceLoop):
    """Appends a hint to the caller's own last input message object instead of its private copy."""

    def caller_history(self, messages: str | list[LoopMessage]) -> list[Message]:
        if not isinstance(messages, str) and messages:
            messages[-1].contents.append(Text(" (answer with tools)"))
        return super().caller_history(messages)


# --- stream-agreement -------------------------------------------------------------------------------------------


class _GhostCallStream(_StreamWrapper):
    async def updates(self) -> AsyncIterator[Update]:
        yield Update("assistant", (FunctionCall("ghost-1", "search", {"query": "speculative"}),), "ghost")
        async for update in self._inner:
            yield update


class StreamsGhostCall(ReferenceLoop):
    """In streaming mode first emits a speculative function call update that is never executed or retracted."""

    def stream(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> ReferenceStream:
        return _GhostCallStream(super().stream(messages, tools, tool_choice=tool_choice, kwargs=kwargs,
                                 conversation_id=conversation_id, session=session))


class _TruncatedFinalStream(_StreamWrapper):
    async def final_response(self) -> Response:
        folded = await super().final_response()
        return Response(folded.messages[:-1], folded.finish_reason)


class FinalResponseDisagreesWithStream(ReferenceLoop):
    """The stream's finalised response drops the last message that the updates delivered."""

    def stream(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> ReferenceStream:
        return _TruncatedFinalStream(super().stream(messages, tools, tool_choice=tool_choice, kwargs=kwargs,
                                 conversation_id=conversation_id, session=session))


class _BreakingStream(_StreamWrapper):
    async def updates(self) -> AsyncIterator[Update]:
        inner = aiter(self._inner)
        try:
            async for update in inner:
                yield update
                if update.role == "tool":
                    raise ConnectionResetError("the event stream was closed")
        finally:
            await inner.aclose()  # type: ignore[attr-defined]  # pyright: ignore[reportAttributeAccessIssue]


class StreamBreaksAfterTools(ReferenceLoop):
    """In streaming mode raises to the caller once the tools ran; non-streaming mode answers normally."""

    def stream(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> ReferenceStream:
        return _BreakingStream(super().stream(messages, tools, tool_choice=tool_choice, kwargs=kwargs,
                                 conversation_id=conversation_id, session=session))


# --- parallel-order ---------------------------------------------------------------------------------------------


class ReversesParallelResults(ReferenceLoop):
    """Returns the results of one batch of parallel calls in reverse order (last finished first)."""

    async def execute_batch(self, calls: list[FunctionCall], state: _RunState) -> list[Content]:
        return list(reversed(await super().execute_batch(calls, state)))


# --- bounded ----------------------------------------------------------------------------------------------------


class IgnoresMaxIterations(ReferenceLoop):
    """Ignores the configured max_iterations and keeps calling the model while it asks for tools."""

    def __init__(self, model: ModelClient, config: LoopConfig, catalog: Mapping[str, LoopTool] | None = None) -> None:
        super().__init__(model, replace(config, max_iterations=None), catalog)


# --- script -----------------------------------------------------------------------------------------------------


class SkipsFinalModelCall(ReferenceLoop):
    """Stops right after the tools ran, never asking the model to answer with the results."""

    async def _process_calls(self, calls: list[FunctionCall], state: _RunState) -> ReferenceLoop._Outcome:
        return replace(await super()._process_calls(calls, state), stop=True)


# --- catalogue --------------------------------------------------------------------------------------------------


def adapter_for(loop_class: type[ReferenceLoop], name: str | None = None) -> ReferenceAdapter:
    """A `ReferenceAdapter` that drives `loop_class` instead of the reference loop, named after the class."""

    def factory(setup: ConversationSetup, catalog: Mapping[str, LoopTool]) -> ReferenceLoop:
        if setup.approval_policy is None:  # controls that predate the approval layer take three arguments
            return loop_class(setup.provider, setup.config, catalog)
        return loop_class(setup.provider, setup.config, catalog, setup.approval_policy)

    return ReferenceAdapter(factory=factory, name=name or f"control-{_kebab(loop_class.__name__)}")


def _kebab(name: str) -> str:
    return "".join(f"-{ch.lower()}" if ch.isupper() and i else ch.lower() for i, ch in enumerate(name))


class DropsEncryptedReasoning(ReferenceLoop):
    """Replays only reasoning that has text: the encrypted item bound to the call never goes back."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.model = RewritingModel(self.model, _keeping(
            lambda c: not (isinstance(c, Reasoning) and c.kind == "encrypted")))


@dataclass(frozen=True)
class NegativeControl:
    """A broken loop, the check that must catch it, and the scenario and modes that show the break.

    `collateral` names the other run or invariant checks the same break legitimately trips (a dropped result also
    leaves an execution without its result, say); every other such check must still pass, so a control also proves
    the harness does not blame the wrong promise. `expect.*` checks are the scenario's own and may fail freely.
    """

    loop: type[ReferenceLoop]
    check: str
    scenario: str  # a file under tests/scenarios/
    modes: tuple[Mode, ...] = ("non-streaming", "streaming")
    collateral: frozenset[str] = frozenset()

    @property
    def id(self) -> str:
        return _kebab(self.loop.__name__)

    @property
    def scenario_path(self) -> Path:
        return SCENARIOS / self.scenario

    def adapter(self) -> ReferenceAdapter:
        return adapter_for(self.loop)


CONTROLS: tuple[NegativeControl, ...] = (
    NegativeControl(RunsEachCallTwice, "exactly-once", "single-call.yaml"),
    NegativeControl(DropsResultsFromResponse, "no-orphans", "single-call.yaml", collateral=frozenset({"exactly-once"})),
    NegativeControl(SendsCallsWithoutResults, "no-orphans", "single-call.yaml"),
    NegativeControl(TagsCallerMessagesInPlace, "inputs-unmutated", "single-call.yaml"),
    NegativeControl(StreamsGhostCall, "stream-agreement", "streamed-arguments.yaml", ("streaming",),
                    frozenset({"no-orphans"})),
    NegativeControl(FinalResponseDisagreesWithStream, "stream-agreement", "streamed-arguments.yaml", ("streaming",)),
    NegativeControl(StreamBreaksAfterTools, "stream-agreement", "streamed-arguments.yaml", ("streaming",),
                    frozenset({"script"})),
    NegativeControl(ReversesParallelResults, "parallel-order", "parallel-calls.yaml"),
    NegativeControl(IgnoresMaxIterations, "bounded", "max-iterations.yaml"),
    NegativeControl(SkipsFinalModelCall, "script", "single-call.yaml"),
    NegativeControl(DropsEncryptedReasoning, "reasoning-bound", "reasoning-items.yaml"),
)
