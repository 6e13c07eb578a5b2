"""A call that needs no approval runs at once when the same model response holds a call that does.

What it shows
    The model asks, in one response, for `read_status` (no approval) and `restart_service` (needs approval). The
    runner pauses the run with one interruption, for `restart_service`, but has already executed `read_status`: the
    paused result holds its output beside the interruption. The caller then walks away from the batch (it never
    decides), yet the safe call's side effect has happened. The spec's design holds the safe call back, without a
    request of its own, and runs it with the batch once the caller approves.

Spec rows violated (spec 004)
    "Safe and approval-required calls in one batch | Hidden safe calls replay only with the matching visible
    approval."
    "Unrelated turn before approval | Hidden calls do not execute on an unrelated turn."
    "Multiple abandoned batches | Hidden calls replay only for the matching batch."

Affected releases
    openai-agents 0.20.0 – 0.24.0, still present (checked on 0.20.0, 0.21.1, 0.22.3, 0.23.1 and 0.24.0).

Run
    <venv with openai-agents>/bin/python repro/openai_agents/mixed_batch_safe_call_runs_early.py
    Exit status 1: the defect is present. Exit status 0: in both response modes nothing ran before the decision.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, FunctionTool, ModelResponse, Runner, Usage, set_tracing_disabled
from agents.models.interface import Model
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

executions: list[str] = []


class ScriptedModel(Model):
    """A model that answers with the scripted output items in order."""

    def __init__(self, script: list[list[Any]]) -> None:
        self.script = list(script)
        self.calls = 0

    def _next(self) -> list[Any]:
        self.calls += 1
        return self.script.pop(0) if self.script else [_text("(an extra model call)")]

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return ModelResponse(output=self._next(), usage=Usage(requests=1), response_id=f"resp-{self.calls}")

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        response = Response(id=f"resp-{self.calls}", created_at=0, model="scripted", object="response",
                            output=self._next(), tool_choice="auto", tools=[], parallel_tool_calls=True,
                            status="completed")
        yield ResponseCompletedEvent(type="response.completed", response=response, sequence_number=0)


def _text(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id="msg-1", type="message", role="assistant", status="completed",
                                 content=[ResponseOutputText(type="output_text", text=text, annotations=[])])


def _call(call_id: str, name: str, arguments: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(id=f"fc-{call_id}", type="function_call", call_id=call_id, name=name,
                                    arguments=arguments, status="completed")


def tool(name: str, output: str, approval: bool) -> FunctionTool:
    async def invoke(context: Any, arguments: str) -> str:
        executions.append(name)
        return output

    return FunctionTool(name=name, description=name, on_invoke_tool=invoke, strict_json_schema=False,
                        params_json_schema={"type": "object", "properties": {}}, needs_approval=approval)


async def run(streaming: bool) -> bool:
    executions.clear()
    model = ScriptedModel([[_call("c1", "read_status", '{"service": "billing"}'),
                            _call("c2", "restart_service", '{"service": "billing"}')]])
    agent = Agent(name="assistant", model=model,
                  tools=[tool("read_status", "healthy", approval=False),
                         tool("restart_service", "restarted", approval=True)])
    prompt = "Check billing and restart it."
    if streaming:
        result: Any = Runner.run_streamed(agent, prompt)
        async for _ in result.stream_events():
            pass
    else:
        result = await Runner.run(agent, prompt)
    label = "streaming" if streaming else "non-streaming"
    waiting = [item.name for item in result.interruptions]
    outputs = [item.output for item in result.new_items if item.type == "tool_call_output_item"]
    mark = "   <- ran before the caller decided on its batch" if executions else ""
    print(f"  {label}: paused for {waiting}; executed so far {executions}; outputs {outputs}{mark}")
    return not executions


async def main() -> int:
    set_tracing_disabled(True)
    print(f"openai-agents {importlib.metadata.version('openai-agents')}")
    results = [await run(streaming) for streaming in (False, True)]
    if all(results):
        print("FIXED: no call of the batch ran before the caller's decision")
        return 0
    print("DEFECT: the call needing no approval ran while its batch waited for the caller's decision")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
