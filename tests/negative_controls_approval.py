"""Negative controls for the approval invariants: miniature, deliberately broken approval handling.

Each class breaks one approval promise in the smallest way that still looks like a real bug, and runs through the
ordinary adapter contract via `adapter_for`, like the controls in `negative_controls`. They hook only the loop's
public seams — `caller_history` (its private copy of the input, where it reads the decisions), `respond`/`stream`
(the tools it is given, what it returns) and the model client — never the approval resolution itself, so they keep
working while the reference loop's approval correlation evolves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from negative_controls import (
    SCENARIOS,
    RewritingModel,
    _StreamWrapper,  # pyright: ignore[reportPrivateUsage]
    adapter_for,
)

from harness.adapters.reference import ReferenceAdapter
from harness.adapters.reference.loop import (
    LoopMessage,
    LoopTool,
    ModelClient,
    ReferenceLoop,
    ReferenceStream,
    ToolReturn,
)
from harness.adapters.reference.session import LoopSession
from harness.contents import JSON, ApprovalResponse, Content, FunctionResult, Message, Response, Update
from harness.contract import LoopConfig, Mode


def _decisions(messages: Sequence[Message]) -> list[ApprovalResponse]:
    return [c for m in messages for c in m.contents if isinstance(c, ApprovalResponse)]


# --- rejected-never-runs ----------------------------------------------------------------------------------------


class RunsRejectedCalls(ReferenceLoop):
    """Reads every decision in its input as an approval, so a rejected call runs like an approved one."""

    def caller_history(self, messages: str | list[LoopMessage]) -> list[Message]:
        return [Message(m.role, tuple(replace(c, approved=True) if isinstance(c, ApprovalResponse) else c
                                      for c in m.contents))
                for m in super().caller_history(messages)]


# --- approved-once ----------------------------------------------------------------------------------------------


def _twice(tool: LoopTool) -> LoopTool:
    run = tool.run
    if run is None or not tool.approval_required:
        return tool

    async def retried(arguments: Mapping[str, JSON], call_id: str) -> ToolReturn:
        await run(arguments, call_id)
        return await run(arguments, call_id)

    return replace(tool, run=retried)


class RunsApprovedCallsTwice(ReferenceLoop):
    """Wraps every approval-gated tool in a retry that runs it twice per approved call, keeping the second result."""

    async def respond(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> Response:
        return await super().respond(messages, [_twice(t) for t in tools], tool_choice=tool_choice, kwargs=kwargs,
                                     conversation_id=conversation_id, session=session)

    def stream(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> ReferenceStream:
        return super().stream(messages, [_twice(t) for t in tools], tool_choice=tool_choice, kwargs=kwargs,
                                     conversation_id=conversation_id, session=session)


# --- rejection-call-id ------------------------------------------------------------------------------------------


def _renamed(messages: Sequence[Message], request_ids: Mapping[str, str]) -> list[Message]:
    return [Message(m.role, tuple(replace(c, call_id=request_ids[c.call_id])
                                  if isinstance(c, FunctionResult) and c.call_id in request_ids else c
                                  for c in m.contents))
            for m in messages]


class _RenamingStream(_StreamWrapper):
    def __init__(self, inner: ReferenceStream, request_ids: Mapping[str, str]) -> None:
        super().__init__(inner)
        self._request_ids = request_ids

    async def updates(self) -> AsyncIterator[Update]:
        async for update in self._inner:
            yield replace(update, contents=_renamed([Message(update.role, update.contents)], self._request_ids)[0]
                          .contents)


class RejectsWithApprovalId(ReferenceLoop):
    """Files a rejection's result under the approval request's id instead of the rejected call's id."""

    def __init__(self, model: ModelClient, config: LoopConfig, catalog: Mapping[str, LoopTool] | None = None) -> None:
        self.request_ids: dict[str, str] = {}  # rejected call id -> the id of the request the rejection answers
        super().__init__(RewritingModel(model, lambda messages: _renamed(messages, self.request_ids)), config,
                         catalog)

    def caller_history(self, messages: str | list[LoopMessage]) -> list[Message]:
        history = super().caller_history(messages)
        # Updated in place: the stream wrapper holds this mapping before the loop has read its input.
        self.request_ids.clear()
        self.request_ids.update({d.function_call.call_id: d.id for d in _decisions(history) if not d.approved})
        return history

    async def respond(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> Response:
        response = await super().respond(messages, tools, tool_choice=tool_choice, kwargs=kwargs,
                                 conversation_id=conversation_id, session=session)
        return replace(response, messages=tuple(_renamed(response.messages, self.request_ids)))

    def stream(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> ReferenceStream:
        inner = super().stream(messages, tools, tool_choice=tool_choice, kwargs=kwargs,
                                 conversation_id=conversation_id, session=session)
        return _RenamingStream(inner, self.request_ids)


# --- approval-inert ---------------------------------------------------------------------------------------------


class ReplaysTerminalDecisions(ReferenceLoop):
    """Judges a decision pending by the decision alone, dropping its call's earlier result, so replays run again."""

    def caller_history(self, messages: str | list[LoopMessage]) -> list[Message]:
        history = super().caller_history(messages)
        decided = {d.function_call.call_id for d in _decisions(history)}
        kept = (Message(m.role, tuple(c for c in m.contents
                                      if not (isinstance(c, FunctionResult) and c.call_id in decided)))
                for m in history)
        return [m for m in kept if m.contents]


# --- no-approval-wrappers-to-model ------------------------------------------------------------------------------


class SendsApprovalWrappersToModel(ReferenceLoop):
    """Forwards the caller's approval decisions to the model after the conversation, as a user message."""

    def __init__(self, model: ModelClient, config: LoopConfig, catalog: Mapping[str, LoopTool] | None = None) -> None:
        self.decisions: list[Content] = []
        super().__init__(RewritingModel(model, self._with_decisions), config, catalog)

    def _with_decisions(self, messages: Sequence[Message]) -> list[Message]:
        return [*messages, Message("user", tuple(self.decisions))] if self.decisions else list(messages)

    def caller_history(self, messages: str | list[LoopMessage]) -> list[Message]:
        history = super().caller_history(messages)
        self.decisions = list(_decisions(history))
        return history


# --- catalogue --------------------------------------------------------------------------------------------------

SCENARIO_FILES = ("approval-session-replay.yaml", "approval-caller-replay.yaml")


@dataclass(frozen=True)
class ApprovalControl:
    """A broken approval loop, the check that must catch it, and what the same break legitimately trips too.

    Every control runs on every approval control scenario, in both modes. `collateral` names the other run or
    invariant checks the break unavoidably fails as well (running a call twice also executes it more often than
    the model asked, say); every other such check must pass.
    """

    loop: type[ReferenceLoop]
    check: str
    collateral: frozenset[str] = frozenset()
    scenarios: tuple[str, ...] = SCENARIO_FILES
    modes: tuple[Mode, ...] = ("non-streaming", "streaming")

    @property
    def id(self) -> str:
        return self.adapter().name.removeprefix("control-")

    @property
    def scenario_paths(self) -> tuple[Path, ...]:
        return tuple(SCENARIOS / name for name in self.scenarios)

    def adapter(self) -> ReferenceAdapter:
        return adapter_for(self.loop)


APPROVAL_CONTROLS: tuple[ApprovalControl, ...] = (
    ApprovalControl(RunsRejectedCalls, "rejected-never-runs"),
    # A second run of an approved call is also one execution more than the model asked for.
    ApprovalControl(RunsApprovedCallsTwice, "approved-once", frozenset({"exactly-once"})),
    # A result under another id leaves the rejected call without a result and the result without a call.
    ApprovalControl(RejectsWithApprovalId, "rejection-call-id", frozenset({"no-orphans"})),
    # Running a replayed approval again is a second execution of the approved call (approved-once, exactly-once),
    # and every new result answers a call the caller's transcript already answered (no-orphans).
    ApprovalControl(ReplaysTerminalDecisions, "approval-inert",
                    frozenset({"approved-once", "exactly-once", "no-orphans"})),
    ApprovalControl(SendsApprovalWrappersToModel, "no-approval-wrappers-to-model"),
)
