"""A provider that reuses a call id in a later round of one run makes the runner fail the whole run.

What it shows
    The provider numbers call ids per response, as some do, so the second round of one run reuses `c1`: first a
    call to `list_files`, which runs and completes, then a call to `delete_files`. The runner refuses the second
    call with `ModelBehaviorError` ("Model reused a completed tool call ID for a different invocation") and the run
    ends with that exception: the caller gets no response, the first round's completed call/result pair included,
    and the second call is neither executed nor answered. Nothing runs twice — the refusal is fail-closed — but a
    valid conversation is rejected. The `Model` interface documents the restriction ("A call ID must identify one
    canonical invocation for the lifetime of the run"); the spec requires the loop to handle it.

Spec rows violated (spec 004)
    "Reused id after completion | A later round with the same id creates a second valid pair."
    Function calls and results: "Reused `call_id` values are correlated by logical occurrence, not one global value
    per id."

Affected releases
    openai-agents 0.20.0 – 0.24.0, still present (checked on 0.20.0, 0.21.1, 0.22.3, 0.23.1 and 0.24.0).

Run
    <venv with openai-agents>/bin/python repro/openai_agents/reused_call_id_rejects_run.py
    Exit status 1: the defect is present. Exit status 0: in both response modes each call ran once and the run
    returned both call/result pairs.
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


def _call(name: str, arguments: str, item_id: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(id=item_id, type="function_call", call_id="c1", name=name, arguments=arguments,
                                    status="completed")


def tool(name: str, output: str) -> FunctionTool:
    async def invoke(context: Any, arguments: str) -> str:
        executions.append(name)
        return output

    return FunctionTool(name=name, description=name, on_invoke_tool=invoke, strict_json_schema=False,
                        params_json_schema={"type": "object", "properties": {}})


async def run(streaming: bool) -> bool:
    executions.clear()
    model = ScriptedModel([[_call("list_files", '{"path": "/tmp"}', "fc-1")],
                           [_call("delete_files", '{"pattern": "/tmp/*.log"}', "fc-2")],
                           [_text("Deleted the two logs.")]])
    the_agent = Agent(name="assistant", model=model,
                      tools=[tool("list_files", "a.log, b.log"), tool("delete_files", "2 files deleted")])
    label = "streaming" if streaming else "non-streaming"
    try:
        if streaming:
            result: Any = Runner.run_streamed(the_agent, "Clean up the logs in /tmp.")
            async for _ in result.stream_events():
                pass
        else:
            result = await Runner.run(the_agent, "Clean up the logs in /tmp.")
    except Exception as raised:  # noqa: BLE001 - the exception is the evidence
        print(f"  {label}: executions {executions}; after {model.calls} model calls the run raised "
              f"{type(raised).__name__}: {raised}   <- run rejected")
        return False
    outputs = [item.output for item in result.new_items if item.type == "tool_call_output_item"]
    print(f"  {label}: executions {executions}; outputs {outputs}; final output {result.final_output!r}")
    return executions == ["list_files", "delete_files"] and len(outputs) == 2


async def main() -> int:
    set_tracing_disabled(True)
    print(f"openai-agents {importlib.metadata.version('openai-agents')}")
    results = [await run(streaming) for streaming in (False, True)]
    if all(results):
        print("FIXED: both rounds ran once and kept their own call/result pair")
        return 0
    print("DEFECT: a call id reused after its first call completed makes the runner fail the run")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
