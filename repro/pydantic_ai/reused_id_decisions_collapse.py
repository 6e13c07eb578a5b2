"""Two approved rounds that reuse one call id collapse into one decision: the earlier approved call never runs.

What it shows
    A caller keeps its history in its own store and sends it back written by hand (`message_history=`), in both
    response modes: "Deploy the api.", the model's deploy_service(api) as c1, "And the web frontend too.", the
    model's deploy_service(web) as c1 again, and then the caller's approval of both rounds. pydantic-ai keys
    decisions by tool call id alone (`DeferredToolResults.approvals` is a dict of call id to decision), so the two
    approvals can only be sent as one, `approvals={'c1': True}`, and it resumes only the calls of the history's last
    model response. deploy_service(web) runs once; deploy_service(api), approved as well, never runs. pydantic-ai
    closes it with a synthesized `'interrupted'` result ("The tool call was interrupted before a result was
    produced."), which the model receives and `all_messages()` holds, but which is not among the run's
    `new_messages()`, so the caller's own transcript keeps the api call without a result. No error reaches the
    caller.

Spec rows violated (spec 004)
    "Multiple reused-id rounds | Approved and rejected rounds retain separate call/result occurrences." (with "an
    approved tool executes exactly once": here an approved call executes zero times).

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/reused_id_decisions_collapse.py
    Exit status 1: the defect is present. Exit status 0: in both modes deploy_service ran once for the api and once
    for the web frontend.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

executions: list[str] = []


async def deploy_service(ctx: RunContext[Any], service: str) -> str:
    executions.append(f"deploy_service({service})")
    return "deployed"


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


def handwritten_history() -> list[ModelMessage]:
    """Two rounds in which the model reused call id c1, as the caller's store keeps them."""
    return [
        ModelRequest(parts=[UserPromptPart("Deploy the api.")]),
        ModelResponse(parts=[ToolCallPart("deploy_service", {"service": "api"}, "c1")]),
        ModelRequest(parts=[UserPromptPart("And the web frontend too.")]),
        ModelResponse(parts=[ToolCallPart("deploy_service", {"service": "web"}, "c1")]),
    ]


async def run(agent: Agent[None, str | DeferredToolRequests], streaming: bool, **options: Any) -> Any:
    if not streaming:
        return await agent.run(**options)
    async with agent.run_stream_events(**options) as events:
        async for _ in events:
            pass
    return events.result


def results(messages: list[ModelMessage]) -> list[tuple[str, str, str]]:
    return [(p.tool_call_id, p.outcome, p.model_response_str()) for m in messages if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, ToolReturnPart)]


async def scenario(streaming: bool) -> bool:
    """True when the defect shows: an approved occurrence did not run once."""
    mode = "streaming" if streaming else "non-streaming"
    executions.clear()
    model = ScriptedModel([ModelResponse(parts=[TextPart("Both are deployed.")])])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
        tools=[Tool(deploy_service, requires_approval=True)])
    # Both rounds are approved; keyed by call id, the two approvals are one entry.
    decisions = DeferredToolResults(approvals={"c1": True})
    result = await run(agent, streaming, message_history=handwritten_history(), deferred_tool_results=decisions)
    print(f"[{mode}] executions: {executions}; output: {result.output!r}")
    print(f"[{mode}]   results the model got: {results(model.received[-1])}")
    print(f"[{mode}]   results among the run's new messages: {results(result.new_messages())}")
    return sorted(executions) != ["deploy_service(api)", "deploy_service(web)"]


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(streaming) for streaming in (False, True)]
    if any(present):
        print("DEFECT PRESENT: approving two rounds that reuse a call id runs only the last one")
        return 1
    print("fixed: each approved occurrence of the reused call id ran once")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
