"""Negative controls for the rows of "Errors, control flow, and limits": each breaks one rule of the section in the
reference loop, and at least one bundled scenario of `scenarios/errors/` or `scenarios/limits/` must fail on it.

These hook the reference loop's policy helpers directly: the rules live there, and a control that broke them from
outside would have to re-implement the loop.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.adapters.reference import approvals
from harness.adapters.reference.loop import (
    LoopTool,
    ReferenceLoop,
    UnknownToolError,
    _RunState,  # pyright: ignore[reportPrivateUsage]
    result_text,
)
from harness.adapters.reference.session import LoopSession
from harness.contents import Content, FunctionCall, FunctionResult, Message, Update

BUNDLED = Path(__file__).resolve().parent.parent / "scenarios"


class IgnoresErrorCap(ReferenceLoop):
    """Never stops for consecutive errors: a failing tool is called for as long as the model asks."""

    def _limit_reached(self, state: _RunState) -> bool:
        saved, state.errors_in_row = state.errors_in_row, 0
        try:
            return super()._limit_reached(state)
        finally:
            state.errors_in_row = saved


class NeverResetsErrorCount(ReferenceLoop):
    """Counts every failed round of the turn instead of consecutive ones: a success does not reset the count."""

    async def _process_calls(self, calls: list[FunctionCall], state: _RunState) -> ReferenceLoop._Outcome:
        before = state.errors_in_row
        outcome = await super()._process_calls(calls, state)
        state.errors_in_row = max(state.errors_in_row, before)
        return outcome


class RaisesOnRejection(ReferenceLoop):
    """Treats a rejection as a failure of the turn and raises it to the caller."""

    async def _resolve_approvals(self, state: _RunState) -> tuple[list[Message], bool]:
        resumed, stop = await super()._resolve_approvals(state)
        rejected = [c for m in resumed for c in m.contents
                    if isinstance(c, FunctionResult) and "reject" in str(c.result).lower()]
        if rejected:
            raise PermissionError("the user rejected the call")
        return resumed, stop


class AlwaysDetailedErrors(ReferenceLoop):
    """Sends the exception's text to the model although detailed errors are off."""

    def _error_text(self, error: Exception) -> str:
        return f"Error: {type(error).__name__}: {error}"


class NeverDetailedErrors(ReferenceLoop):
    """Hides the exception's text from the model although detailed errors are on."""

    def _error_text(self, error: Exception) -> str:
        return "Error: the function failed."


class KeepsToolsOnFinalCall(ReferenceLoop):
    """Makes the final call after a limit with the caller's tool choice instead of disabling tools."""

    async def _model_turn(self, state: _RunState, streaming: bool, *, tool_choice: str | None):  # type: ignore[override]
        async for item in super()._model_turn(state, streaming, tool_choice=state.tool_choice):
            yield item


class NoFallbackText(ReferenceLoop):
    """Returns whatever the final call after a limit gave, even when it is blank."""

    @staticmethod
    def _has_visible_content(messages: Sequence[Message]) -> bool:
        return True


class IgnoresUnknownCallTermination(ReferenceLoop):
    """Answers an unknown call with an error result even when told to stop on unknown calls."""

    def refuse_unknown_calls(self, calls: Sequence[FunctionCall], state: _RunState) -> None:
        return None

    async def _execute(self, call: FunctionCall, tool: LoopTool | None, state: _RunState) -> list[Content]:
        if tool is None:
            return [FunctionResult(call.call_id, f"Error: requested function '{call.name}' not found.", error=True)]
        return await super()._execute(call, tool, state)


class IgnoresMiddlewareTermination(ReferenceLoop):
    """Calls the model again after tool middleware asked the loop to stop."""

    async def _process_calls(self, calls: list[FunctionCall], state: _RunState) -> ReferenceLoop._Outcome:
        outcome = await super()._process_calls(calls, state)
        state.terminated = False
        return replace(outcome, stop=False) if outcome.messages and not outcome.pause else outcome


class IgnoresFunctionCallLimit(ReferenceLoop):
    """Keeps offering tools after max_function_calls is spent."""

    def _limit_reached(self, state: _RunState) -> bool:
        saved, state.function_calls = state.function_calls, 0
        try:
            return super()._limit_reached(state)
        finally:
            state.function_calls = saved


class DropsEverythingAfterLimit(ReferenceLoop):
    """Removes all tool content returned after a limit, provider-executed pairs and hosted approvals included."""

    def _keep_after_limit(self, messages: Sequence[Message], tool_choice: str | None) -> list[Message]:
        if tool_choice != "none":
            return list(messages)
        kept = [Message(m.role, tuple(c for c in m.contents if type(c).__name__ == "Text")) for m in messages]
        return [m for m in kept if m.contents]

    def _keep_update_after_limit(self, update: Update, tool_choice: str | None) -> Update | None:
        if tool_choice != "none":
            return update
        contents = tuple(c for c in update.contents if type(c).__name__ == "Text")
        return Update(update.role, contents, update.message_id, update.finish_reason) if contents else None


class KeepsLocalCallsAfterLimit(ReferenceLoop):
    """Keeps local calls the provider returned despite tool_choice "none" (they can never run or be answered)."""

    def _keep_after_limit(self, messages: Sequence[Message], tool_choice: str | None) -> list[Message]:
        return list(messages)

    def _keep_update_after_limit(self, update: Update, tool_choice: str | None) -> Update | None:
        return update


class SkipsArgumentValidation(ReferenceLoop):
    """Runs the tool body with whatever arguments the model sent, declared or not."""

    async def _execute(self, call: FunctionCall, tool: LoopTool | None, state: _RunState) -> list[Content]:
        unchecked = replace(tool, parameters={"type": "object"}) if tool is not None else None
        return await super()._execute(call, unchecked, state)


class KeepsFirstConversationId(ReferenceLoop):
    """Continues every model call of a turn from the id the turn started with, ignoring the ids responses issue."""

    async def _model_turn(self, state: _RunState, streaming: bool, *,
                          tool_choice: str | None) -> AsyncIterator[tuple[Update | None, Message | None]]:
        first = state.__dict__.setdefault("first_conversation_id", state.continuation.current)
        async for item in super()._model_turn(state, streaming, tool_choice=tool_choice):
            yield item
        state.continuation.current = first


class ReturnsFirstConversationId(ReferenceLoop):
    """Hands the caller the first conversation id of the turn, even after a later call issued a newer one."""

    async def _model_turn(self, state: _RunState, streaming: bool, *,
                          tool_choice: str | None) -> AsyncIterator[tuple[Update | None, Message | None]]:
        earlier = state.continuation.returned
        async for item in super()._model_turn(state, streaming, tool_choice=tool_choice):
            yield item
        if earlier is not None:
            state.continuation.returned = earlier


class ResendsServiceHeldHistory(ReferenceLoop):
    """Sends the whole history with every continued conversation id, duplicating what the service holds."""

    async def _model_turn(self, state: _RunState, streaming: bool, *,
                          tool_choice: str | None) -> AsyncIterator[tuple[Update | None, Message | None]]:
        state.service_owned = 0
        async for item in super()._model_turn(state, streaming, tool_choice=tool_choice):
            yield item


class ReplaysTerminalApproval(ReferenceLoop):
    """Remembers approved calls and acts on them again on every later turn (framework issue #6851)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._approved: list[FunctionCall] = []

    async def _resolve_approvals(self, state: _RunState) -> tuple[list[Message], bool]:
        decided = approvals.normalise(state.history, restore_calls=False).pending
        if not decided and self._approved:
            await self._execute_grouped(list(self._approved), state)
        self._approved.extend(o.call for o in decided if o.decision is not None and o.decision.approved)
        return await super()._resolve_approvals(state)


class TreatsToolKeyErrorAsUnknownCall(ReferenceLoop):
    """Uses KeyError for its own unknown-tool control flow and mistakes a tool's KeyError for it."""

    async def _execute(self, call: FunctionCall, tool: LoopTool | None, state: _RunState) -> list[Content]:
        if tool is None or tool.run is None:
            return await super()._execute(call, tool, state)
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        try:
            returned = await tool.run(arguments, call.call_id)
        except KeyError:
            if self.config.terminate_on_unknown_calls:
                raise UnknownToolError(f"the model called unknown function '{call.name}'") from None
            return []
        except Exception as error:  # noqa: BLE001 - as the reference loop does
            return [FunctionResult(call.call_id, self._error_text(error), error=True)]
        return [FunctionResult(call.call_id, result_text(returned.value))]


class ResultsInCompletionOrder(ReferenceLoop):
    """Collects a parallel batch's results as the tools finish, not in the model's order."""

    async def _execute_grouped(self, calls: list[FunctionCall], state: _RunState) -> list[list[Content]]:
        finished: list[list[Content]] = []

        async def run(call: FunctionCall) -> None:
            finished.append(await self._execute(call, state.tools.get(call.name), state))

        await asyncio.gather(*(run(c) for c in calls))
        return finished


# --- recovery after an invalidated delivery (seed 003) -----------------------------------------------------------


class IgnoresOutbox(ReferenceLoop):
    """Keeps no undelivered batch: a retry runs the approved tool again."""

    async def _resolve_approvals(self, state: _RunState) -> tuple[list[Message], bool]:
        if state.session is not None:
            state.session.outbox = None
        return await super()._resolve_approvals(state)


class ForgetsOutboxWhenSaved(ReferenceLoop):
    """Keeps the undelivered batch in memory only: a saved and restored session has lost it."""

    def save_session(self, session: LoopSession) -> str:
        return super().save_session(LoopSession(session.history, session.conversation_id, None))


class ResetsBudgetsOnRetry(ReferenceLoop):
    """Replays the undelivered batch but starts its budgets afresh."""

    async def _resolve_approvals(self, state: _RunState) -> tuple[list[Message], bool]:
        if state.session is not None and state.session.outbox is not None:
            state.session.outbox.function_calls = state.session.outbox.errors_in_row = 0
        return await super()._resolve_approvals(state)


class ForwardsConflictingHostResult(ReferenceLoop):
    """Sends whatever host result the retry carries, even one contradicting the stored answer."""

    async def _resolve_approvals(self, state: _RunState) -> tuple[list[Message], bool]:
        if state.session is not None and state.session.outbox is not None:
            state.session.outbox.host_results.clear()
        return await super()._resolve_approvals(state)


class TrustsRestoredCounters(ReferenceLoop):
    """Restores whatever counter values the saved session holds (coercing them), instead of failing closed."""

    def load_session(self, saved: str) -> LoopSession:
        data = json.loads(saved)
        outbox = data.get("outbox")
        if outbox is not None:
            outbox["errors_in_row"] = max(0, int(outbox["errors_in_row"]))
        return super().load_session(json.dumps(data))


class KeepsFirstPartOnly(ReferenceLoop):
    """Keeps only the first of several contents a tool returned, as a loop expecting one value would."""

    async def _execute(self, call: FunctionCall, tool: LoopTool | None, state: _RunState) -> list[Content]:
        kept: list[Content] = []
        for content in await super()._execute(call, tool, state):
            if isinstance(content, FunctionResult) and isinstance(content.result, str):
                try:
                    parts = json.loads(content.result)
                except ValueError:
                    parts = None
                if isinstance(parts, list) and parts:
                    content = FunctionResult(content.call_id, str(parts[0]), content.error)  # noqa: PLW2901
            kept.append(content)
        return kept


class IgnoresNamedOccurrences(ReferenceLoop):
    """Matches host results to calls in the order they arrive, ignoring the occurrence a result names."""

    def normalise(self, history: Sequence[Message], *, restore_calls: bool) -> approvals.Normalised:
        anonymous = [Message(m.role, tuple(replace(c, occurrence_id=None) if isinstance(c, FunctionResult) else c
                                           for c in m.contents)) for m in history]
        return super().normalise(anonymous, restore_calls=restore_calls)


@dataclass(frozen=True)
class LimitControl:
    loop: type[ReferenceLoop]
    scenario: str  # a bundled scenario, relative to scenarios/
    check: str | None = None  # a universal check that must be among the failing ones, where one guards the rule

    @property
    def scenario_path(self) -> Path:
        return BUNDLED / self.scenario


LIMIT_CONTROLS: tuple[LimitControl, ...] = (
    LimitControl(IgnoresErrorCap, "errors/consecutive-errors-cap.yaml"),
    LimitControl(IgnoresErrorCap, "errors/consecutive-errors-approval.yaml"),
    LimitControl(NeverResetsErrorCount, "errors/consecutive-errors-reset.yaml"),
    LimitControl(RaisesOnRejection, "errors/rejected-execution.yaml"),
    LimitControl(AlwaysDetailedErrors, "errors/approved-exception-generic.yaml"),
    LimitControl(NeverDetailedErrors, "errors/approved-exception-detailed.yaml"),
    LimitControl(KeepsToolsOnFinalCall, "limits/max-iterations.yaml", "bounded"),
    LimitControl(KeepsToolsOnFinalCall, "limits/max-function-calls-parallel.yaml", "bounded"),
    LimitControl(KeepsToolsOnFinalCall, "errors/consecutive-errors-cap.yaml"),
    LimitControl(NoFallbackText, "limits/max-iterations-blank-final.yaml"),
    LimitControl(NoFallbackText, "limits/max-function-calls-blank-final.yaml"),
    LimitControl(IgnoresUnknownCallTermination, "errors/unknown-call-terminates.yaml"),
    LimitControl(IgnoresMiddlewareTermination, "errors/middleware-termination-one-call.yaml"),
    LimitControl(IgnoresMiddlewareTermination, "errors/middleware-termination-parallel.yaml"),
    LimitControl(KeepsFirstPartOnly, "errors/middleware-termination-parts.yaml", "expect.response"),
    LimitControl(IgnoresFunctionCallLimit, "limits/max-function-calls-parallel.yaml", "bounded"),
    LimitControl(DropsEverythingAfterLimit, "limits/post-limit-hosted-pair.yaml"),
    LimitControl(DropsEverythingAfterLimit, "limits/post-limit-hosted-approval.yaml"),
    LimitControl(KeepsLocalCallsAfterLimit, "limits/post-limit-approval-call.yaml"),
    LimitControl(SkipsArgumentValidation, "errors/approved-validation-error.yaml"),
    LimitControl(SkipsArgumentValidation, "errors/validation-error-unapproved.yaml"),
    LimitControl(KeepsFirstConversationId, "continuation/conversation-id-between-iterations.yaml", "expect.requests"),
    LimitControl(KeepsFirstConversationId, "continuation/conversation-id-stop.yaml", "expect.requests"),
    LimitControl(ReturnsFirstConversationId, "continuation/conversation-id-stop.yaml", "expect.conversation-id"),
    LimitControl(ResendsServiceHeldHistory, "continuation/conversation-id-between-iterations.yaml", "no-orphans"),
    LimitControl(ReplaysTerminalApproval, "continuation/service-owned-terminal-approval.yaml"),
    LimitControl(TreatsToolKeyErrorAsUnknownCall, "errors/tool-raises-key-error.yaml"),
    LimitControl(ResultsInCompletionOrder, "normal/parallel-calls-finish-out-of-order.yaml", "parallel-order"),
    LimitControl(IgnoresOutbox, "recovery/invalidated-delivery-same-session.yaml", "exactly-once"),
    LimitControl(IgnoresOutbox, "recovery/invalidated-delivery-restored-session.yaml", "exactly-once"),
    LimitControl(ForgetsOutboxWhenSaved, "recovery/invalidated-delivery-restored-session.yaml"),
    LimitControl(ResetsBudgetsOnRetry, "recovery/spent-function-call-budget.yaml"),
    LimitControl(ResetsBudgetsOnRetry, "recovery/spent-error-budget.yaml"),
    LimitControl(ForwardsConflictingHostResult, "recovery/conflicting-host-result.yaml"),
    LimitControl(IgnoresNamedOccurrences, "recovery/host-results-reused-call-id.yaml", "expect.requests"),
    *(LimitControl(TrustsRestoredCounters, f"recovery/malformed-error-counter-{kind}.yaml")
      for kind in ("negative", "boolean", "string", "float")),
)
