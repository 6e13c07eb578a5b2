"""Retrying a resumed run whose model call failed runs the approved tool a second time.

What it shows
    Turn 1: the model calls the approval-required deploy_release(4.2) as c1; the run ends with
    `DeferredToolRequests` (one approval). Turn 2: the caller approves c1 the documented way
    (`conversation.deferred_tool_requests.build_results(approvals=...)` with `conversation=`, or
    `DeferredToolResults` with `message_history=`), in both response modes. The approved tool runs, then the model
    call that delivers its result fails (the provider answers with an error) and the run raises to the caller. A run
    that raises returns no result, so the caller holds no `conversation` or message history newer than turn 1's,
    and pydantic-ai's own `Conversation` is left as it was: nothing records that c1 already ran. Turn 3: the caller
    retries the failed turn with the same input and decision; pydantic-ai accepts the approval again and runs
    deploy_release a second time, then the model gets the second result. One approved call, two side effects.

Spec rows violated (spec 004)
    "Approved result replayed without re-execution" and "Recovered results delivered once" (framework PR
    "preserve mixed-pause recovery invariants": a retry after the provider invalidated the request delivering an
    approved call's result must not run the approved tool again), and the contract that approved tools cannot
    execute twice. Scenarios: `recovery.invalidated-delivery.same-session`, `recovery.host-results.conflicting-retry`,
    `recovery.spent-budgets.consecutive-errors`.

Affected releases
    pydantic-ai-slim 2.60.0 – 2.68.0, still present (checked on every release from 2.60.0).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/retry_reruns_approved_tool.py
    Exit status 1: the defect is present. Exit status 0: in every mode and history form the retry either ran
    nothing (delivering the stored result) or was refused, and deploy_release ran exactly once.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

executions: list[str] = []


async def deploy_release(ctx: RunContext[Any], version: str) -> str:
    executions.append(f"deploy_release({version})")
    return "deployed"


class ScriptedModel:
    """Answers each model call with the next scripted step, in either mode; a step that is an error is raised."""

    def __init__(self, script: list[ModelResponse | Exception]) -> None:
        self.script = list(script)

    def _next(self) -> ModelResponse:
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        return step

    def complete(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return self._next()

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        for index, part in enumerate(self._next().parts):
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}


async def run(agent: Agent[None, str | DeferredToolRequests], streaming: bool, **options: Any) -> Any:
    if not streaming:
        return await agent.run(**options)
    async with agent.run_stream_events(**options) as events:
        async for _ in events:
            pass
    return events.result


def decide(previous: Any, session: bool) -> dict[str, Any]:
    if session:
        conversation = previous.conversation
        return {"conversation": conversation,
                "deferred_tool_results": conversation.deferred_tool_requests.build_results(approvals={"c1": True})}
    return {"message_history": previous.all_messages(),
            "deferred_tool_results": DeferredToolResults(approvals={"c1": True})}


async def scenario(streaming: bool, session: bool) -> bool:
    """True when the defect shows: the retry runs the approved tool again."""
    mode = f"{'streaming' if streaming else 'non-streaming'}, {'conversation=' if session else 'message_history='}"
    executions.clear()
    model = ScriptedModel([
        ModelResponse(parts=[ToolCallPart("deploy_release", {"version": "4.2"}, "c1")]),
        ModelHTTPError(503, "scripted", "the provider invalidated this response"),
        ModelResponse(parts=[TextPart("Release 4.2 is deployed.")]),
    ])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
        tools=[Tool(deploy_release, requires_approval=True)])
    first = await run(agent, streaming, user_prompt="Deploy 4.2.")
    assert isinstance(first.output, DeferredToolRequests)
    try:
        await run(agent, streaming, **decide(first, session))
        print(f"[{mode}] the failing model call did not raise; the scenario did not run as scripted")
        return False
    except ModelHTTPError as error:
        print(f"[{mode}] approved resume raised {type(error).__name__}; executions so far: {executions}")
    try:
        retried = await run(agent, streaming, **decide(first, session))
    except Exception as error:  # noqa: BLE001 - a refusal would be a fix
        print(f"[{mode}] the retry was refused: {type(error).__name__}: {error}; executions: {executions}")
        return executions != ["deploy_release(4.2)"]
    print(f"[{mode}] the retry answered {retried.output!r}; executions: {executions}")
    return executions != ["deploy_release(4.2)"]


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(streaming, session) for streaming in (False, True) for session in (False, True)]
    if any(present):
        print("DEFECT PRESENT: retrying a failed resumed run executes the approved tool again")
        return 1
    print("fixed: the approved tool ran once across the failed run and its retry")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
