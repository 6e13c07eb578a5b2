"""Driving the SDK's `Runner` as a caller does: one agent per conversation, `Runner.run` or `Runner.run_streamed`.

Approvals. The SDK pauses a run for a tool with ``needs_approval`` by ending it with *interruptions*
(`ToolApprovalItem`s); the caller decides on them on the run's state (``result.to_state()``,
``state.approve(item)`` / ``state.reject(item)``) and resumes with ``Runner.run(agent, state)``. Approval requests
and decisions are never input items. So this conversation keeps the state of every interrupted run, and reports
each interruption as a neutral `ApprovalRequest` with an id of its own. A later turn whose input holds decisions on
such requests resumes that state with them, whatever else the caller replays: the SDK continues the run from its
own history, and the caller's replayed messages (the history a caller keeps itself, or its session's) are not
passed. Decisions that match no kept interruption (hand-written, or already used) have no SDK form and are dropped
with the other approval wrappers when the caller's messages become input items. A resumed result lists the items of
the whole run; the turn's response is what follows the items returned when it paused.

History. A caller keeping its own history passes its messages as input items (`convert.CallerInput`); a scenario
with a session uses the SDK's `SQLiteSession` (in memory), which is how SDK users keep history between runs.

Settings. `max_iterations` is ``max_turns`` (both bound the model calls of one run; the SDK raises
`MaxTurnsExceeded` where the spec asks for a final call without tools). `terminate_on_unknown_calls` is
``tool_not_found_behavior`` (``raise_error`` / ``return_error_to_model``), the caller's `tool_choice` is the agent's
``ModelSettings.tool_choice`` and the caller's keyword arguments are the run's ``ModelSettings.extra_args``.
`enabled`, `max_function_calls` and `max_consecutive_errors` have no SDK setting: they are ignored and the log says
so. Tracing is disabled; nothing leaves the process.

Capabilities. Declared: approvals, sessions, reasoning (items with their ids, text or summary, and
``encrypted_content``), middleware termination (`tool_use_behavior`, see `tools`) and run-time tool changes
(`is_enabled`). Not declared, so their
scenarios are n/a: hosted tools (a hosted MCP approval needs a `HostedMCPTool` declared up front, and the contract
names no hosted tools), user input and declaration-only tools (the SDK has no pause but approval),
informational-only calls (no such marker on Responses items) and invocation kwargs — the kwargs do reach the model
as ``extra_args``, but every scenario that needs them also turns invocation off (``enabled: false``), which the SDK
cannot do.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents import (
    Agent,
    ModelBehaviorError,
    ModelSettings,
    RunConfig,
    Runner,
    RunState,
    SQLiteSession,
    ToolApprovalItem,
    set_tracing_disabled,
)
from agents.items import RunItem

from harness.adapters.openai_agents.convert import CallerInput, messages_from_run_items
from harness.adapters.openai_agents.events import StreamDecoder
from harness.adapters.openai_agents.model import ProviderModel
from harness.adapters.openai_agents.tools import ToolState, build_tools, needs_termination, stop_on_request
from harness.contents import ApprovalResponse, Message, Response, Update
from harness.contract import (
    CallerView,
    Capability,
    ConversationSetup,
    LoopConfig,
    RaisedError,
    ScriptedProviderError,
    TurnInput,
)
from harness.log_capture import captured_logs

CAPABILITIES: frozenset[Capability] = frozenset(
    {"approval", "sessions", "reasoning", "middleware-termination", "runtime-tool-changes", "signature-tools",
     # max_turns, tool_not_found_behavior and the error function's text; the SDK has no function-call budget,
     # no consecutive-error cap and no way to run without invoking tools.
     "iteration-budget", "unknown-call-switch", "detailed-errors"})

# The SDK takes an approval decision only on a RunState's interruption (state.approve / state.reject): a decision
# the caller writes into its own input items has no form, so a scenario built on one is n/a, never a defect.
_HANDWRITTEN = ("the caller decides on approval requests it wrote into its own history; the Agents SDK takes "
                "decisions only on a RunState's interruptions (state.approve, state.reject)")
UNEXPRESSIBLE: dict[str, str] = {
    "correlation.multi-content.reused-id-same-turn": _HANDWRITTEN,
    "correlation.reused-id.handwritten-history": _HANDWRITTEN,
    "correlation.replayed-wrapper.duplicated-request": _HANDWRITTEN,
    # Scripted model output with no form in the Responses stream events a `Model` yields.
    "normal.streaming-call.name-after-id": (
        "a function call's name arriving on a later streamed delta than its id: a Responses function_call item "
        "is announced with its name (response.output_item.added) and no event carries a name later, so a "
        "caller folding the stream sees the call nameless until its done event"),
}


@dataclass
class PausedRun:
    """A run that ended with interruptions: its state, the items it returned, its requests by neutral id."""

    state: RunState[Any]
    items: list[RunItem]
    requests: dict[str, ToolApprovalItem]


def unmapped_settings(config: LoopConfig) -> list[str]:
    """Log lines for the scenario's settings that the SDK has no setting for."""
    lines: list[str] = []
    if not config.enabled:
        lines.append("enabled=false: the SDK's runner cannot be told not to invoke tools; ignored")
    for name in ("max_function_calls", "max_consecutive_errors"):
        if getattr(config, name) is not None:
            lines.append(f"{name}={getattr(config, name)}: the SDK has no such limit; ignored")
    return lines


def raised_error(error: BaseException) -> RaisedError:
    """An exception the runner raised, classified: the provider's fault, an unknown tool, or the loop's own."""
    chain: list[BaseException] = []
    cause: BaseException | None = error
    while cause is not None and cause not in chain:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    if any(isinstance(link, ScriptedProviderError) for link in chain):
        return RaisedError(type(error).__name__, str(error), "provider")
    if isinstance(error, ModelBehaviorError) and "not found in agent" in str(error):
        return RaisedError(type(error).__name__, str(error), "unknown-tool")
    return RaisedError(type(error).__name__, str(error), "loop")


class OpenAIAgentsConversation:
    def __init__(self, setup: ConversationSetup) -> None:
        self.setup = setup
        self.tool_state = ToolState()
        scripted = setup.toolbox.tools
        self.agent: Agent[Any] = Agent(
            name="loop-conformance",
            model=ProviderModel(setup.provider),
            tools=list(build_tools(scripted, setup.config, self.tool_state)),
            model_settings=ModelSettings(tool_choice=setup.tool_choice),
            tool_use_behavior=stop_on_request(self.tool_state) if needs_termination(scripted) else "run_llm_again",
        )
        self.session = SQLiteSession(f"loop-conformance-{setup.scenario_id}") if setup.use_session else None
        self._paused: list[PausedRun] = []
        self._approval_ids: dict[int, str] = {}
        self._approvals: list[ToolApprovalItem] = []  # kept alive, so their ids stay theirs
        self._returned: list[list[RunItem]] = []  # the items of every response returned, re-read after each turn

    def approval_id(self, item: ToolApprovalItem) -> str:
        """The neutral id of an interruption: generated once per `ToolApprovalItem` object."""
        known = self._approval_ids.get(id(item))
        if known is None:
            known = f"oa-approval-{len(self._approvals) + 1}"
            self._approval_ids[id(item)] = known
            self._approvals.append(item)
        return known

    async def run_turn(self, turn: TurnInput) -> CallerView:
        log = unmapped_settings(self.setup.config)
        caller = None if isinstance(turn.messages, str) else CallerInput(turn.messages, turn.index)
        paused = self._resume(caller.messages if caller else (), log)
        self.tool_state.begin_turn(resuming=paused is not None)
        run_input: Any = paused.state if paused else (turn.messages if caller is None else caller.items)
        earlier = tuple(self._response(items) for items in self._returned)
        updates: list[Update] = []
        response: Response | None = None
        error: RaisedError | None = None
        with captured_logs("openai.agents", lines=log):
            try:
                result = await self._run(run_input, turn, updates, paused.items if paused else [])
                items = self._new_items(list(result.new_items), paused.items if paused else [], log)
                self._keep(result, items)
                response = self._response(items)
            except Exception as raised:  # noqa: BLE001 - whatever the caller gets is an observation
                error = raised_error(raised)
        log.extend(self.tool_state.log)
        self.tool_state.log.clear()
        inputs_after = turn.messages if caller is None else caller.reread()
        return CallerView(tuple(updates), response, error, inputs_after, earlier, tuple(log))

    def _resume(self, messages: Sequence[Message], log: list[str]) -> PausedRun | None:
        """The paused run the caller's decisions are for, with the decisions applied to its state."""
        decisions = [c for m in messages for c in m.contents if isinstance(c, ApprovalResponse)]
        paused = next((run for d in decisions for run in self._paused if d.id in run.requests), None)
        for decision in decisions:
            item = paused.requests.pop(decision.id, None) if paused else None
            if paused is None or item is None:
                log.append(f"decision on {decision.id} ({decision.function_call.call_id}) matches no pending "
                           "interruption; approval wrappers have no SDK input form, so it is not passed")
            elif decision.approved:
                paused.state.approve(item)
            else:
                paused.state.reject(item)
        if paused is not None:
            self._paused.remove(paused)
            log.append("resuming the paused run from its RunState; the caller's other messages are not passed")
        return paused

    async def _run(self, run_input: Any, turn: TurnInput, updates: list[Update], returned: list[RunItem]) -> Any:
        config = self.setup.config
        settings = ModelSettings(extra_args=dict(turn.kwargs)) if turn.kwargs else None
        run_config = RunConfig(
            tracing_disabled=True, model_settings=settings,
            tool_not_found_behavior="raise_error" if config.terminate_on_unknown_calls else "return_error_to_model")
        limits: dict[str, Any] = {} if config.max_iterations is None else {"max_turns": config.max_iterations}
        if self.setup.mode == "non-streaming":
            return await Runner.run(self.agent, run_input, run_config=run_config, session=self.session, **limits)
        streamed = Runner.run_streamed(self.agent, run_input, run_config=run_config, session=self.session, **limits)
        decoder = StreamDecoder(self.approval_id)
        async for event in streamed.stream_events():
            updates.extend(decoder.updates(event))
        # A resumed run that pauses again lists the interruptions the caller already holds; only new ones are news.
        fresh = [item for item in streamed.interruptions if not any(item is old for old in returned)]
        updates.extend(decoder.pause(fresh, updates))
        return streamed

    def _new_items(self, items: list[RunItem], returned: list[RunItem], log: list[str]) -> list[RunItem]:
        """The items of a result the caller has not had: a resumed run lists those it returned when it paused."""
        kept = 0
        while kept < min(len(items), len(returned)) and items[kept] is returned[kept]:
            kept += 1
        if kept < len(returned):
            log.append(f"the resumed result does not begin with the {len(returned)} items returned at the pause")
        return items[kept:]

    def _keep(self, result: Any, items: list[RunItem]) -> None:
        self._returned.append(items)
        interruptions: list[ToolApprovalItem] = list(result.interruptions)
        if interruptions:
            requests = {self.approval_id(item): item for item in interruptions}
            self._paused.append(PausedRun(result.to_state(), list(result.new_items), requests))

    def _response(self, items: list[RunItem]) -> Response:
        return Response(messages_from_run_items(items, self.approval_id))

    async def close(self) -> None:
        if self.session is not None:
            self.session.close()


class OpenAIAgentsAdapter:
    """The `Runner` of the installed openai-agents release, over a `Model` that answers from the script."""

    name = "openai_agents"
    capabilities = CAPABILITIES
    unexpressible = UNEXPRESSIBLE

    def __init__(self) -> None:
        self.version = importlib.metadata.version("openai-agents")
        set_tracing_disabled(True)  # no trace export, ever: runs also disable tracing in their RunConfig

    def open(self, setup: ConversationSetup) -> OpenAIAgentsConversation:
        return OpenAIAgentsConversation(setup)
