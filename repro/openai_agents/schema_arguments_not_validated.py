"""A FunctionTool declared by JSON schema runs with arguments that break its schema, approved or not.

What it shows
    `get_weather` declares ``days`` as an integer (``params_json_schema``); the model sends ``{"days": "three"}``.
    The runner hands the raw argument text to ``on_invoke_tool`` without checking it against the schema, so the
    body runs with a string where an integer was declared and its output goes back as an ordinary result. The same
    happens when the tool needs approval and the caller approves the call: the approved body runs with arguments
    its declaration forbids. (``strict_json_schema`` only asks the provider for structured output; only
    ``function_tool``'s pydantic model of a Python signature validates.)

Spec rows violated (spec 004)
    "Approved validation error | Validation failure returns one result without invoking the function body."

Affected releases
    openai-agents 0.20.0 – 0.24.0, still present (checked on 0.20.0, 0.21.1, 0.22.3, 0.23.1 and 0.24.0).

Run
    <venv with openai-agents>/bin/python repro/openai_agents/schema_arguments_not_validated.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the body never ran with invalid
    arguments.
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


SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
          "required": ["city", "days"], "additionalProperties": False}


def tool(approval: bool) -> FunctionTool:
    async def invoke(context: Any, arguments: str) -> str:
        executions.append(arguments)
        return "sunny"

    return FunctionTool(name="get_weather", description="get_weather", on_invoke_tool=invoke,
                        params_json_schema=SCHEMA, strict_json_schema=True, needs_approval=approval)


async def case(approval: bool, streaming: bool) -> bool:
    executions.clear()
    model = ScriptedModel([[_call("c1", "get_weather", '{"city": "Paris", "days": "three"}')], [_text("Sunny.")]])
    agent = Agent(name="assistant", model=model, tools=[tool(approval)])
    result = await drive(agent, "Weather in Paris for three days?", streaming)
    if approval:
        state = result.to_state()
        state.approve(result.interruptions[0])
        await drive(agent, state, streaming)
    label = f"{'approved' if approval else 'plain'}, {'streaming' if streaming else 'non-streaming'}"
    mark = "   <- body ran with arguments its schema forbids" if executions else ""
    print(f"  {label}: body ran with {executions}; model call #2 got {outputs_sent(model, 2)}{mark}")
    return not executions


async def run(streaming: bool) -> bool:
    return all([await case(approval, streaming) for approval in (False, True)])


async def main() -> int:
    set_tracing_disabled(True)
    print(f"openai-agents {importlib.metadata.version('openai-agents')}")
    results = [await run(streaming) for streaming in (False, True)]
    if all(results):
        print("FIXED: arguments breaking the schema never reached the body")
        return 0
    print("DEFECT: the tool body ran with arguments that break its declared JSON schema")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
