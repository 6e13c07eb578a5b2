"""The runner has no function-call or consecutive-error budget: tools stay offered whatever ran or failed.

What it shows
    The SDK's only bound on a run is ``max_turns`` (model calls); Agent, RunConfig and Runner.run take no limit on
    function calls and none on consecutive tool errors (their limit-like settings are printed below). A caller that
    allows one function call cannot say so: the model asks for `get_weather` twice in a row, both run, and every
    model call is offered the tools (tool_choice unset), where the spec makes the call after the spent budget a
    final one with tool_choice "none". The same holds for a tool that keeps failing: nothing stops the failures.

Spec rows violated (spec 004)
    "Maximum function calls | Parallel overshoot is bounded after the batch; every executed result group counts even
    without a `function_result`; blank final responses get fallback content."
    "Consecutive error cap | Error threshold stops repeated failures, submits collected results, and makes only the
    required final no-tool model call."

Affected releases
    openai-agents 0.20.0 – 0.24.0, still present (checked on 0.20.0, 0.21.1, 0.22.3, 0.23.1 and 0.24.0).

Run
    <venv with openai-agents>/bin/python repro/openai_agents/no_function_call_budget.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the model call after the first
    executed call did not offer tools (a budget exists and was applied).
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


def tool() -> FunctionTool:
    async def invoke(context: Any, arguments: str) -> str:
        executions.append(arguments)
        return "sunny"

    return FunctionTool(name="get_weather", description="get_weather", on_invoke_tool=invoke,
                        strict_json_schema=False, params_json_schema={"type": "object", "properties": {}})


def limits() -> list[str]:
    import dataclasses
    import inspect

    from agents import RunConfig

    names = [*inspect.signature(Runner.run).parameters, *(f.name for f in dataclasses.fields(RunConfig)),
             *(f.name for f in dataclasses.fields(Agent))]
    return sorted({name for name in names if "max" in name or "limit" in name or "budget" in name})


async def run(streaming: bool) -> bool:
    executions.clear()
    model = ScriptedModel([[_call("c1", "get_weather", '{"city": "Paris"}')],
                           [_call("c2", "get_weather", '{"city": "Rome"}')], [_text("Sunny in both.")]])
    await drive(Agent(name="assistant", model=model, tools=[tool()]), "Weather in Paris?", streaming)
    label = "streaming" if streaming else "non-streaming"
    print(f"  {label}: executed {executions}; tool_choice per model call {model.tool_choices}"
          + ("   <- tools offered after the first call ran" if model.tool_choices[1] != "none" else ""))
    return model.tool_choices[1] == "none"


async def main() -> int:
    set_tracing_disabled(True)
    print(f"openai-agents {importlib.metadata.version('openai-agents')}")
    print(f"  limit-like settings of Runner.run, RunConfig and Agent: {limits()}")
    results = [await run(streaming) for streaming in (False, True)]
    if all(results):
        print("FIXED: the run bounded its function calls")
        return 0
    print("DEFECT: no setting bounds the function calls or consecutive errors of a run")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
