"""A tool that raises is answered with a plain output: nothing marks the result as an error.

What it shows
    `read_setting` raises `KeyError`. The SDK's default failure_error_function answers the model with "An error
    occurred while running the tool. Please try again." (before 0.23 followed by "Error: " and the exception) as an
    ordinary `function_call_output` item — the very item a tool that returned that text produces. The item type
    has no error field (neither in the SDK nor in the Responses API), so neither the caller nor the model can tell
    the failed call from a successful one. One execution and one result, as required; the error marker is what is
    missing.

Spec rows violated (spec 004)
    "Approved tool exception | Generic and detailed error modes preserve one result and one execution." and
    "Unknown call handling | Configured false returns an error result." (an error result, not a plain one).

Affected releases
    openai-agents 0.20.0 – 0.24.0, still present (checked on 0.20.0, 0.21.1, 0.22.3, 0.23.1 and 0.24.0).

Run
    <venv with openai-agents>/bin/python repro/openai_agents/tool_error_output_unflagged.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the failed call's output item
    differs from the output item of a tool that returned the same text.
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
    """A model that answers with the scripted output items in order and keeps the input of every call."""

    def __init__(self, script: list[list[Any]]) -> None:
        self.script = list(script)
        self.calls = 0
        self.inputs: list[Any] = []
        self.tool_choices: list[Any] = []

    def _next(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        self.calls += 1
        self.inputs.append(kwargs["input"] if "input" in kwargs else args[1])
        self.tool_choices.append((kwargs["model_settings"] if "model_settings" in kwargs else args[2]).tool_choice)
        return self.script.pop(0) if self.script else [_text("(an extra model call)")]

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return ModelResponse(output=self._next(args, kwargs), usage=Usage(requests=1), response_id=f"resp-{self.calls}")

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        response = Response(id=f"resp-{self.calls}", created_at=0, model="scripted", object="response",
                            output=self._next(args, kwargs), tool_choice="auto", tools=[], parallel_tool_calls=True,
                            status="completed")
        yield ResponseCompletedEvent(type="response.completed", response=response, sequence_number=0)


def _text(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id="msg-1", type="message", role="assistant", status="completed",
                                 content=[ResponseOutputText(type="output_text", text=text, annotations=[])])


def _call(call_id: str, name: str, arguments: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(id=f"fc-{call_id}", type="function_call", call_id=call_id, name=name,
                                    arguments=arguments, status="completed")


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def outputs_sent(model: ScriptedModel, call: int) -> list[tuple[str, Any]]:
    """The (call id, output) pairs of every function_call_output item model call `call` received."""
    return [(_field(item, "call_id"), _field(item, "output")) for item in model.inputs[call - 1]
            if _field(item, "type") == "function_call_output"]


async def drive(agent: Agent[Any], run_input: Any, streaming: bool, **options: Any) -> Any:
    if not streaming:
        return await Runner.run(agent, run_input, **options)
    result = Runner.run_streamed(agent, run_input, **options)
    async for _ in result.stream_events():
        pass
    return result


def raising_tool() -> FunctionTool:
    from agents import function_tool

    def read_setting(key: str) -> str:
        """Read a setting."""
        executions.append("read_setting")
        raise KeyError(key)

    return function_tool(read_setting)


def returning_tool(text: str) -> FunctionTool:
    from agents import function_tool

    def read_setting(key: str) -> str:
        """Read a setting."""
        executions.append("read_setting")
        return text

    return function_tool(read_setting)


async def item_sent(the_tool: FunctionTool, streaming: bool) -> dict[str, Any]:
    model = ScriptedModel([[_call("c1", "read_setting", '{"key": "timeout_seconds"}')], [_text("Sorry.")]])
    await drive(Agent(name="assistant", model=model, tools=[the_tool]), "What is the timeout?", streaming)
    return dict(next(item for item in model.inputs[1] if _field(item, "type") == "function_call_output"))


async def run(streaming: bool) -> bool:
    executions.clear()
    failed = await item_sent(raising_tool(), streaming)
    # The text the failed call's output holds: releases before 0.23 append the exception to the sentence.
    returned = await item_sent(returning_tool(str(failed["output"])), streaming)
    label = "streaming" if streaming else "non-streaming"
    same = failed == returned
    print(f"  {label}: after KeyError the model got {failed}")
    print(f"  {label}: a tool returning that text gives {returned}" + ("   <- identical" if same else ""))
    return not same


async def main() -> int:
    set_tracing_disabled(True)
    print(f"openai-agents {importlib.metadata.version('openai-agents')}")
    results = [await run(streaming) for streaming in (False, True)]
    if all(results):
        print("FIXED: a failed call's output is marked as an error")
        return 0
    print("DEFECT: a failed call's output is indistinguishable from a tool that returned the same text")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
