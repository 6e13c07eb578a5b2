"""A model response holding two approval-required calls under one call id fails the run: neither is asked about.

What it shows
    The model answers "Restart the api and the web frontend." with one response holding two calls of the
    approval-required `restart_service`, both under call id c1 (api, then web), as a provider that reuses ids
    within a response does. pydantic-ai keys deferred calls by tool call id (`DeferredToolRequests.approvals` are
    answered through `DeferredToolResults.approvals`, a dict of call id to decision), so instead of pausing with
    two requests the run raises `UnexpectedModelBehavior` ("Deferred tool calls must have unique tool_call_id
    values"): the caller gets nothing to decide on, no response and no result. Nothing runs, so the refusal is
    fail-closed, but a valid response is rejected. For control, the same two calls under c1 and c2 pause with two
    approval requests.

Spec rows violated (spec 004)
    Function calls and results: "Reused `call_id` values are correlated by logical occurrence, not one global value
    per id."; "Initial approval request" (each approval-required call of the batch is surfaced for a decision).
    Harness scenario `correlation.reused-id.one-paused-batch` fails (`completes`: the turn that decides has no
    request to answer).

Affected releases
    Checked with pydantic-ai-slim 2.68.0 (the release tested); other releases not checked.

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/reused_id_in_one_response_refused.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the run paused with one approval
    request for each of the two calls.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

executions: list[str] = []


async def restart_service(ctx: RunContext[Any], service: str) -> str:
    executions.append(service)
    return "restarted"


def model_for(call_ids: tuple[str, str]) -> FunctionModel:
    parts = [ToolCallPart("restart_service", {"service": service}, call_id)
             for call_id, service in zip(call_ids, ("api", "web"), strict=True)]

    def complete(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=list(parts))

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        for index, part in enumerate(parts):
            yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}

    return FunctionModel(complete, stream_function=stream)


async def run(call_ids: tuple[str, str], streaming: bool) -> list[str] | None:
    """The services the run asked approval for, in order; None when the run raised."""
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        model_for(call_ids), output_type=[str, DeferredToolRequests],
        tools=[Tool(restart_service, requires_approval=True)])
    label = f"ids {call_ids}, {'streaming' if streaming else 'non-streaming'}"
    prompt = "Restart the api and the web frontend."
    try:
        if streaming:
            async with agent.run_stream_events(prompt) as events:
                async for _ in events:
                    pass
            result: Any = events.result
        else:
            result = await agent.run(prompt)
    except Exception as raised:  # noqa: BLE001 - the exception is the evidence
        print(f"  {label}: the run raised {type(raised).__name__}: {raised}   <- run rejected")
        return None
    output = result.output
    asked = [str(call.args_as_dict().get("service")) for call in output.approvals] if isinstance(
        output, DeferredToolRequests) else []
    print(f"  {label}: approval requests for {asked}; executions {executions}")
    return asked


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    for streaming in (False, True):
        if await run(("c1", "c2"), streaming) != ["api", "web"]:
            print("UNEXPECTED: the control (distinct ids) did not pause with two approval requests")
            return 2
    results = [await run(("c1", "c1"), streaming) for streaming in (False, True)]
    if executions:
        print("UNEXPECTED: a call ran before any approval")
        return 2
    if all(r == ["api", "web"] for r in results):
        print("FIXED: each call under the reused id was surfaced for its own decision")
        return 0
    print("DEFECT: two approval-required calls under one call id in one response fail the run")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
