"""A decision on part of an approval batch is refused, and the decision is lost with the refused run.

What it shows
    Turn 1: the model calls two approval-required tools in one response, rotate_key(billing) as c1 and
    restart_service(billing) as c2; the run ends with `DeferredToolRequests` (two approvals). Turn 2: the caller
    approves c1 only, built the documented way (`conversation.deferred_tool_requests.build_results(approvals=...)`
    with `conversation=`, or `DeferredToolResults` with `message_history=`), in both response modes. The run raises
    `UserError` ("Tool call results need to be provided for all deferred tool calls. Expected: {'c1', 'c2'}, got:
    {'c1'}") before anything runs. The conversation is left as it was, so the decision on c1 is gone: turn 3,
    approving c2, is refused the same way (now missing c1). The caller must re-send every decision of the batch at
    once. Nothing executes and nothing reaches the model — the refusal is fail-closed — but a decision the caller
    gave is dropped and a valid conversation is rejected twice.

Spec rows violated (spec 004)
    "Replayed approval wrapper | A duplicated wrapper does not restore another function call." as exercised by the
    scenario `correlation.replayed-wrapper.resurfaced-request` (a batch decided over two turns must not lose the
    first decision), and "Pending history turn | ... a later decision can still resume it once."

Affected releases
    pydantic-ai-slim 2.60.0 – 2.68.0, still present (checked on every release from 2.60.0).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/partial_approval_decision_rejected.py
    Exit status 1: the defect is present. Exit status 0: in every mode and history form the partial decision was
    accepted (c1 ran once, c2 stayed pending) and deciding c2 on the next turn ran it once.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

executions: list[str] = []


async def rotate_key(ctx: RunContext[Any], service: str) -> str:
    executions.append(f"rotate_key({service})")
    return "key rotated"


async def restart_service(ctx: RunContext[Any], service: str) -> str:
    executions.append(f"restart_service({service})")
    return "restarted"


class ScriptedModel:
    """Answers each model call with the next scripted response, in either mode; text when the script runs out."""

    def __init__(self, script: list[ModelResponse]) -> None:
        self.script = list(script)

    def _next(self) -> ModelResponse:
        return self.script.pop(0) if self.script else ModelResponse(parts=[TextPart("Done.")])

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


def decide(previous: Any, session: bool, approvals: dict[str, bool]) -> dict[str, Any]:
    if session:
        conversation = previous.conversation
        return {"conversation": conversation,
                "deferred_tool_results": conversation.deferred_tool_requests.build_results(approvals=approvals)}
    return {"message_history": previous.all_messages(),
            "deferred_tool_results": DeferredToolResults(approvals=dict[str, Any](approvals))}


async def scenario(streaming: bool, session: bool) -> bool:
    """True when the defect shows: a partial decision is refused."""
    mode = f"{'streaming' if streaming else 'non-streaming'}, {'conversation=' if session else 'message_history='}"
    executions.clear()
    model = ScriptedModel([ModelResponse(parts=[
        ToolCallPart("rotate_key", {"service": "billing"}, "c1"),
        ToolCallPart("restart_service", {"service": "billing"}, "c2"),
    ])])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
        tools=[Tool(rotate_key, requires_approval=True), Tool(restart_service, requires_approval=True)])
    first = await run(agent, streaming, user_prompt="Rotate the API key of billing and restart it.")
    assert isinstance(first.output, DeferredToolRequests)
    try:
        second = await run(agent, streaming, **decide(first, session, {"c1": True}))
    except Exception as error:  # noqa: BLE001 - the refusal is the evidence
        print(f"[{mode}] approving c1 only refused: {type(error).__name__}: {error}")
        try:
            await run(agent, streaming, **decide(first, session, {"c2": True}))
            print(f"[{mode}]   approving c2 on the next turn was accepted; executions: {executions}")
        except Exception as again:  # noqa: BLE001
            print(f"[{mode}]   approving c2 on the next turn refused too: {again}")
        return True
    print(f"[{mode}] partial decision accepted; executions so far: {executions}; output: {second.output!r}")
    try:
        await run(agent, streaming, **decide(second, session, {"c2": True}))
    except Exception as error:  # noqa: BLE001
        print(f"[{mode}] deciding c2 afterwards refused: {type(error).__name__}: {error}")
        return True
    print(f"[{mode}] executions: {executions}")
    return executions != ["rotate_key(billing)", "restart_service(billing)"]


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(streaming, session) for streaming in (False, True) for session in (False, True)]
    if any(present):
        print("DEFECT PRESENT: a decision on part of an approval batch is refused and lost")
        return 1
    print("fixed: a batch can be decided over several turns, each call running once")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
