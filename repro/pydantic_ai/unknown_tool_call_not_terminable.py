"""No setting ends a run on a call to an unknown tool: the call always goes back to the model as a retry.

What it shows
    The agent offers get_weather; the model calls get_news, which does not exist. In both response modes
    pydantic-ai answers the call with a retry result ("Unknown tool name: 'get_news'. Available tools:
    'get_weather'") and calls the model again. Agent and run take no setting like the spec's
    `terminate_on_unknown_calls`; the only way to end the run at that call is `retries=0`, which raises
    `UnexpectedModelBehavior` ("Tool 'get_news' exceeded max retries count of 0") but is a retry budget for every
    tool: with it a known tool's invalid arguments end the run too (get_weather called with a list for its city),
    where the spec's setting leaves them an error result. The caller who asks for unknown calls to end the turn has
    no way to say so.

Spec rows violated (spec 004)
    "Unknown call handling | Configured false returns an error result; configured true raises." (the "configured
    true" half).

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/unknown_tool_call_not_terminable.py
    Exit status 1: the defect is present. Exit status 0: in both modes either the default run ended at the unknown
    call with an error naming get_news, or `retries=0` ended it there while a known tool's invalid call still got a
    result and the run went on.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel


async def get_weather(ctx: RunContext[Any], city: str) -> str:
    return "sunny"


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


async def attempt(streaming: bool, call: ToolCallPart, **agent_options: Any) -> tuple[str, int]:
    """How one run ends when the model makes `call`: its output or error, and the number of model calls."""
    model = ScriptedModel([ModelResponse(parts=[call]),
                           ModelResponse(parts=[TextPart("I can only tell the weather.")])])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
        tools=[Tool(get_weather)], **agent_options)
    try:
        if streaming:
            async with agent.run_stream_events("Weather and news for Paris?") as events:
                async for _ in events:
                    pass
            output = repr(events.result.output)
        else:
            output = repr((await agent.run("Weather and news for Paris?")).output)
    except Exception as error:  # noqa: BLE001 - how the run ends is the evidence
        return f"raised {type(error).__name__}: {str(error).split('. Consider')[0]}", len(model.received)
    last = model.received[-1][-1]
    parts = last.parts if isinstance(last, ModelRequest) else []
    told = [p.model_response_str() for p in parts if isinstance(p, ToolReturnPart)]
    return f"output {output}; the model was told {told}", len(model.received)


async def scenario(streaming: bool) -> bool:
    """True when the defect shows: no setting ends the run at an unknown call alone."""
    mode = "streaming" if streaming else "non-streaming"
    unknown = ToolCallPart("get_news", {"city": "Paris"}, "c1")
    invalid = ToolCallPart("get_weather", {"city": ["Paris"]}, "c1")
    ending, calls = await attempt(streaming, unknown)
    print(f"[{mode}] default: {ending} ({calls} model calls)")
    default_ends = ending.startswith("raised") and "get_news" in ending and calls == 1
    ending, calls = await attempt(streaming, unknown, retries=0)
    print(f"[{mode}] retries=0, unknown tool: {ending} ({calls} model calls)")
    zero_ends = ending.startswith("raised") and "get_news" in ending and calls == 1
    ending, calls = await attempt(streaming, invalid, retries=0)
    print(f"[{mode}] retries=0, known tool with an invalid argument: {ending} ({calls} model calls)")
    zero_keeps_invalid = not ending.startswith("raised")
    return not (default_ends or (zero_ends and zero_keeps_invalid))


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(streaming) for streaming in (False, True)]
    if any(present):
        print("DEFECT PRESENT: no setting ends a run on a call to an unknown tool alone")
        return 1
    print("fixed: a run can be made to end at a call to an unknown tool")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
