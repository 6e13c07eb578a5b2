"""An unknown tool's error output is placed after the batch's other results, out of the model's call order.

What it shows
    The model asks, in one response, for `get_news` (no such tool) and then `get_weather`. With
    ``tool_not_found_behavior="return_error_to_model"`` the runner answers the unknown call with "Tool 'get_news'
    not found." — but only after the known tools of the batch: the next model call holds c2's result before c1's,
    although the model called c1 first.

Spec rows violated (spec 004)
    "Parallel calls | Results retain the corresponding call ids and execution count." with the rule that the results
    of one response keep the model's call order; "Unknown call handling | Configured false returns an error result".

Affected releases
    openai-agents 0.20.0 – 0.24.0, still present (checked on 0.20.0, 0.21.1, 0.22.3, 0.23.1 and 0.24.0).

Run
    <venv with openai-agents>/bin/python repro/openai_agents/unknown_tool_result_out_of_order.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the results follow the call order.
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


def tool(name: str, output: str) -> FunctionTool:
    async def invoke(context: Any, arguments: str) -> str:
        executions.append(name)
        return output

    return FunctionTool(name=name, description=name, on_invoke_tool=invoke, strict_json_schema=False,
                        params_json_schema={"type": "object", "properties": {}})


async def run(streaming: bool) -> bool:
    from agents import RunConfig

    executions.clear()
    model = ScriptedModel([[_call("c1", "get_news", '{"city": "Paris"}'),
                            _call("c2", "get_weather", '{"city": "Paris"}')],
                           [_text("Sunny; no news.")]])
    agent = Agent(name="assistant", model=model, tools=[tool("get_weather", "sunny")])
    config = RunConfig(tool_not_found_behavior="return_error_to_model")
    await drive(agent, "Weather and news for Paris?", streaming, run_config=config)
    sent = outputs_sent(model, 2)
    order = [call_id for call_id, _ in sent]
    mark = "   <- c2 before c1" if order != ["c1", "c2"] else ""
    print(f"  {'streaming' if streaming else 'non-streaming'}: model call #2 received outputs {sent}{mark}")
    return order == ["c1", "c2"]


async def main() -> int:
    set_tracing_disabled(True)
    print(f"openai-agents {importlib.metadata.version('openai-agents')}")
    results = [await run(streaming) for streaming in (False, True)]
    if all(results):
        print("FIXED: the results kept the model's call order")
        return 0
    print("DEFECT: the unknown call's error output came after the result of the call the model made after it")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
