"""A model response holding two calls under one call id makes the runner fail the run: neither call is asked about.

What it shows
    The model answers "Restart the api and the web frontend." with one response holding two calls of the
    approval-required `restart_service`, both under call id c1 (api, then web), as a provider that reuses ids within
    a response does. The runner refuses the response with `ModelBehaviorError` ("Model reused a tool call ID for a
    different invocation in one response") and the run ends with that exception: the caller gets no interruption to
    decide on, no response and no result. Nothing runs, so the refusal is fail-closed, but a valid response is
    rejected. For control, the same two calls under c1 and c2 pause with one interruption each.

Spec rows violated (spec 004)
    Function calls and results: "Reused `call_id` values are correlated by logical occurrence, not one global value
    per id."; "Initial approval request" (each approval-required call of the batch is surfaced for a decision).
    Harness scenario `correlation.reused-id.one-paused-batch` fails (`completes`: the turn that decides has no
    request to answer); `normal.streaming.reused-id-calls` shows the same refusal (a contract difference there).

Affected releases
    Checked with openai-agents 0.24.0; other releases not checked.

Run
    <venv with openai-agents>/bin/python repro/openai_agents/reused_call_id_in_one_response_rejects_run.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the run paused with one
    interruption for each of the two calls, each with its own arguments.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, FunctionTool, ModelResponse, Runner, Usage, set_tracing_disabled
from agents.models.interface import Model
from openai.types.responses import Response, ResponseCompletedEvent, ResponseFunctionToolCall

executions: list[str] = []


class ScriptedModel(Model):
    """A model whose one response holds the two calls."""

    def __init__(self, call_ids: tuple[str, str]) -> None:
        self.output = [ResponseFunctionToolCall(id=f"fc-{n}", type="function_call", call_id=call_id,
                                                name="restart_service", arguments=json.dumps({"service": service}),
                                                status="completed")
                       for n, (call_id, service) in enumerate(zip(call_ids, ("api", "web"), strict=True))]

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return ModelResponse(output=list(self.output), usage=Usage(requests=1), response_id="resp-1")

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        response = Response(id="resp-1", created_at=0, model="scripted", object="response", output=list(self.output),
                            tool_choice="auto", tools=[], parallel_tool_calls=True, status="completed")
        yield ResponseCompletedEvent(type="response.completed", response=response, sequence_number=0)


async def invoke(context: Any, arguments: str) -> str:
    executions.append(arguments)
    return "restarted"


RESTART = FunctionTool(name="restart_service", description="restart a service", on_invoke_tool=invoke,
                       strict_json_schema=False, needs_approval=True,
                       params_json_schema={"type": "object", "properties": {"service": {"type": "string"}}})


async def run(call_ids: tuple[str, str], streaming: bool) -> list[str] | None:
    """The arguments of the interruptions the run paused with; None when the run raised."""
    agent = Agent(name="assistant", model=ScriptedModel(call_ids), tools=[RESTART])
    label = f"ids {call_ids}, {'streaming' if streaming else 'non-streaming'}"
    try:
        if streaming:
            result: Any = Runner.run_streamed(agent, "Restart the api and the web frontend.")
            async for _ in result.stream_events():
                pass
        else:
            result = await Runner.run(agent, "Restart the api and the web frontend.")
    except Exception as raised:  # noqa: BLE001 - the exception is the evidence
        print(f"  {label}: the run raised {type(raised).__name__}: {raised}   <- run rejected")
        return None
    asked = sorted(str(getattr(i, "arguments", "")) for i in result.interruptions)
    print(f"  {label}: interruptions {asked}; executions {executions}")
    return asked


async def main() -> int:
    set_tracing_disabled(True)
    print(f"openai-agents {importlib.metadata.version('openai-agents')}")
    both = sorted(json.dumps({"service": s}) for s in ("api", "web"))
    for streaming in (False, True):
        if await run(("c1", "c2"), streaming) != both:
            print("UNEXPECTED: the control (distinct ids) did not pause with two interruptions")
            return 2
    results = [await run(("c1", "c1"), streaming) for streaming in (False, True)]
    if executions:
        print("UNEXPECTED: a call ran before any approval")
        return 2
    if all(r == both for r in results):
        print("FIXED: each call under the reused id was surfaced for its own decision")
        return 0
    print("DEFECT: two calls under one call id in one response make the runner fail the run")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
