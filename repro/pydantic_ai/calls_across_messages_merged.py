"""A model answer made of several assistant messages becomes one: pydantic-ai has one response message per call.

What it shows
    The provider answers one model call with two assistant messages, get_weather(Paris) as c1 in the first and
    get_weather(London) as c2 in the second. A pydantic-ai model returns exactly one `ModelResponse` per model call
    (a `FunctionModel` function's return type, `Model.request`'s, and what a streamed response builds), so the two
    messages can only reach the agent as one, holding both calls; the script does what any pydantic-ai model does
    and puts their parts into one response, in order. In both response modes both calls then run once and each gets
    its own result, as the row requires; but the run's messages, and the history the next model call receives, hold
    one assistant message with both calls where the provider sent two. A difference of form, not a lost call.

Spec rows violated (spec 004)
    "Calls across response messages | Every actionable call is executed once." (holds; the scenario also expects
    the response's two messages back as two).

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/calls_across_messages_merged.py
    Exit status 1: the defect is present. Exit status 0: in both modes the answer came back, and reached the next
    model call, as two assistant messages, and each call ran once.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

executions: list[str] = []
WEATHER = {"Paris": "sunny", "London": "rainy"}


async def get_weather(ctx: RunContext[Any], city: str) -> str:
    executions.append(f"get_weather({city})")
    return WEATHER[city]


class ScriptedModel:
    """Answers each model call with the next scripted answer, a list of assistant messages, in either mode.

    A model call returns one `ModelResponse`, so the parts of the answer's messages go into one, in order.
    """

    def __init__(self, script: list[list[ModelResponse]]) -> None:
        self.script = list(script)
        self.received: list[list[ModelMessage]] = []

    def _next(self, messages: list[ModelMessage]) -> ModelResponse:
        self.received.append(list(messages))
        answer = self.script.pop(0) if self.script else [ModelResponse(parts=[TextPart("(an extra model call)")])]
        return ModelResponse(parts=[part for message in answer for part in message.parts])

    def complete(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return self._next(messages)

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        for index, part in enumerate(self._next(messages).parts):
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}


async def run(agent: Agent[None, str | DeferredToolRequests], streaming: bool, prompt: str) -> Any:
    if not streaming:
        return await agent.run(prompt)
    async with agent.run_stream_events(prompt) as events:
        async for _ in events:
            pass
    return events.result


def shape(messages: list[ModelMessage]) -> list[str]:
    """Each message as its kind and the call ids (or 'text') of its parts."""
    def ids(message: ModelMessage) -> str:
        return ",".join(getattr(p, "tool_call_id", None) or type(p).__name__ for p in message.parts)
    return [f"{'assistant' if isinstance(m, ModelResponse) else 'request'}[{ids(m)}]" for m in messages]


def assistant_messages_before_results(messages: list[ModelMessage]) -> int:
    """How many assistant messages hold the calls: those after the first request and before the next one."""
    first_results = next(i for i, m in enumerate(messages) if i > 0 and isinstance(m, ModelRequest))
    return sum(isinstance(m, ModelResponse) for m in messages[1:first_results])


async def scenario(streaming: bool) -> bool:
    """True when the defect shows: the two messages came back as one (or a call did not run once)."""
    mode = "streaming" if streaming else "non-streaming"
    executions.clear()
    answer = [ModelResponse(parts=[ToolCallPart("get_weather", {"city": "Paris"}, "c1")]),
              ModelResponse(parts=[ToolCallPart("get_weather", {"city": "London"}, "c2")])]
    model = ScriptedModel([answer, [ModelResponse(parts=[TextPart("Paris is sunny; London is rainy.")])]])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
        tools=[Tool(get_weather)])
    result = await run(agent, streaming, "What is the weather in Paris and in London?")
    print(f"[{mode}] the provider sent {shape(list[ModelMessage](answer))}")
    print(f"[{mode}]   the run's messages: {shape(result.all_messages())}")
    print(f"[{mode}]   the second model call got: {shape(model.received[-1])}; executions: {executions}")
    split = (assistant_messages_before_results(result.all_messages()) == 2
             and assistant_messages_before_results(model.received[-1]) == 2)
    return not split or sorted(executions) != ["get_weather(London)", "get_weather(Paris)"]


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(streaming) for streaming in (False, True)]
    if any(present):
        print("DEFECT PRESENT: one model call's answer of two assistant messages is one message in pydantic-ai")
        return 1
    print("fixed: the answer's two assistant messages stayed two")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
