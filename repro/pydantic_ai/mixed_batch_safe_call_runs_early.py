"""A call that needs no approval runs at once when the same model response holds a call that does.

What it shows
    Turn 1: the model calls read_status(api) as s1 (no approval) and restart_service(api) as a1 (approval
    required) in one response. pydantic-ai runs read_status at once and ends the run with `DeferredToolRequests`
    for a1 only: the safe call's side effect happens, and its result is in the paused run's messages, before the
    caller decides. Then, with caller-kept history (`message_history=`) and with pydantic-ai's `Conversation`
    (`conversation=`), in both response modes:
    - approving a1 runs restart_service only; read_status does not run with the approval (it ran already);
    - asking something else first ("Before that, what time is it?") is accepted: pydantic-ai closes the pending a1
      with a synthesized 'interrupted' result that the model receives beside s1's result, and the caller's later
      approval of a1 is refused with `UserError` ("Tool call results were provided, but the message history does
      not contain any unprocessed tool calls"). So an abandoned batch's safe call has run, and its gated call can
      no longer be approved.
    No call runs twice and no unapproved gated call runs; what differs is when the safe call runs. The spec's loop
    holds the safe call back with its batch and runs it only with the matching approval.

Spec rows violated (spec 004)
    "Safe and approval-required calls in one batch | Hidden safe calls replay only with the matching visible
    approval."
    "Unrelated turn before approval | Hidden calls do not execute on an unrelated turn."
    "Multiple abandoned batches | Hidden calls replay only for the matching batch."

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/mixed_batch_safe_call_runs_early.py
    Exit status 1: the defect is present. Exit status 0: in every mode and history form nothing ran before the
    decision, the unrelated turn ran nothing, and the approval, given directly or after the unrelated turn, ran
    read_status and restart_service once each.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

executions: list[str] = []


async def read_status(ctx: RunContext[Any], service: str) -> str:
    executions.append(f"read_status({service})")
    return "healthy"


async def restart_service(ctx: RunContext[Any], service: str) -> str:
    executions.append(f"restart_service({service})")
    return "restarted"


class ScriptedModel:
    """Answers each model call with the next scripted response, in either mode, and records what it received."""

    def __init__(self, script: list[ModelResponse]) -> None:
        self.script = list(script)
        self.received: list[list[ModelMessage]] = []

    def _next(self, messages: list[ModelMessage]) -> ModelResponse:
        self.received.append(list(messages))
        return self.script.pop(0) if self.script else ModelResponse(parts=[TextPart("(an extra model call)")])

    def complete(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return self._next(messages)

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        for index, part in enumerate(self._next(messages).parts):
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}


def mixed_batch() -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart("read_status", {"service": "api"}, "s1"),
                                ToolCallPart("restart_service", {"service": "api"}, "a1")])


async def run(agent: Agent[None, str | DeferredToolRequests], streaming: bool, prompt: str | None,
              **options: Any) -> Any:
    if not streaming:
        return await agent.run(prompt, **options)
    async with agent.run_stream_events(prompt, **options) as events:
        async for _ in events:
            pass
    return events.result


def carry(result: Any, session: bool) -> dict[str, Any]:
    return {"conversation": result.conversation} if session else {"message_history": result.all_messages()}


def approve(result: Any, session: bool) -> DeferredToolResults:
    """The decision as the caller builds it: from the conversation's pending requests while it holds some."""
    pending = result.conversation.deferred_tool_requests if session else None
    if pending is not None:
        return pending.build_results(approvals={"a1": True})
    return DeferredToolResults(approvals={"a1": True})


def results_sent(received: list[ModelMessage]) -> list[tuple[str, str]]:
    return [(p.tool_call_id, p.outcome) for m in received if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, ToolReturnPart)]


async def scenario(streaming: bool, session: bool, unrelated_first: bool) -> bool:
    """True when the defect shows: a call ran before the decision, or the batch did not run once with it."""
    history = "conversation=" if session else "message_history="
    path = "unrelated turn, then approval" if unrelated_first else "approval"
    mode = f"{'streaming' if streaming else 'non-streaming'}, {history}, {path}"
    executions.clear()
    model = ScriptedModel([mixed_batch(), ModelResponse(parts=[TextPart("It is 14:05.")]),
                           ModelResponse(parts=[TextPart("The api service was healthy and has been restarted.")])])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
        tools=[Tool(read_status), Tool(restart_service, requires_approval=True)])
    paused = await run(agent, streaming, "Check the api service, then restart it.")
    assert isinstance(paused.output, DeferredToolRequests)
    early = list(executions)
    print(f"[{mode}] paused for {[c.tool_call_id for c in paused.output.approvals]}; ran before the decision: {early}")
    if unrelated_first:
        executions.clear()
        paused = await run(agent, streaming, "Before that, what time is it?", **carry(paused, session))
        print(f"[{mode}]   unrelated turn ran {executions}; the model got the results "
              f"{results_sent(model.received[-1])}")
        if session:
            print(f"[{mode}]   the conversation's pending requests now: {paused.conversation.deferred_tool_requests}")
    executions.clear()
    try:
        await run(agent, streaming, None, deferred_tool_results=approve(paused, session), **carry(paused, session))
    except Exception as error:  # noqa: BLE001 - the refusal is evidence too
        print(f"[{mode}]   the approval of a1 was refused: {type(error).__name__}: {error}")
        return True
    print(f"[{mode}]   the approval ran {executions}")
    return bool(early) or sorted(executions) != ["read_status(api)", "restart_service(api)"]


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(streaming, session, unrelated_first)
               for streaming in (False, True) for session in (False, True) for unrelated_first in (False, True)]
    if any(present):
        print("DEFECT PRESENT: the call needing no approval ran while its batch waited for the caller's decision")
        return 1
    print("fixed: no call of the batch ran before the caller's decision")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
