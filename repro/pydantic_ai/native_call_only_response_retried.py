"""A response holding only a call the provider ran itself is taken for an empty answer and retried.

What it shows
    pydantic-ai's form of a call the provider made and ran on its own side (informational for the loop) is a
    `NativeToolCallPart`; the agent never executes or approves one. The model answers with only such a call,
    get_weather(Paris) as c1, while the agent offers a local get_weather, plain and, in a second case, requiring
    approval. In both response modes get_weather never runs and no approval is asked, as the row requires; but a
    response with neither text nor a call the agent acts on counts as an empty answer: pydantic-ai adds a retry
    prompt ("Please return text or call a tool.") and calls the model again in the same run, where the spec's loop
    returns the response, call included, after one model call.

Spec rows violated (spec 004)
    "Informational-only call | The call is returned but not executed or approved."

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/native_call_only_response_retried.py
    Exit status 1: the defect is present. Exit status 0: in both modes and both cases the run ended after one model
    call with the call in its response, get_weather never ran and no approval was asked.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, RunContext, Tool
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

executions: list[str] = []


async def get_weather(ctx: RunContext[Any], city: str) -> str:
    executions.append(f"get_weather({city})")
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
            elif isinstance(part, NativeToolCallPart):
                yield {index: part}
            elif isinstance(part, ToolCallPart):
                yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}


async def run(agent: Agent[None, str | DeferredToolRequests], streaming: bool, prompt: str) -> Any:
    if not streaming:
        return await agent.run(prompt)
    async with agent.run_stream_events(prompt) as events:
        async for _ in events:
            pass
    return events.result


async def scenario(streaming: bool, approval: bool) -> bool:
    """True when the defect shows: the model was called again, or the call ran or was put up for approval."""
    mode = f"{'streaming' if streaming else 'non-streaming'}, {'approval-required' if approval else 'plain'} tool"
    executions.clear()
    model = ScriptedModel([ModelResponse(parts=[NativeToolCallPart("get_weather", {"city": "Paris"}, "c1")])])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
        tools=[Tool(get_weather, requires_approval=approval)])
    result = await run(agent, streaming, "What is the weather in Paris?")
    print(f"[{mode}] model calls: {len(model.received)}; output: {result.output!r}; executions: {executions}")
    if len(model.received) > 1 and isinstance(added := model.received[1][-1], ModelRequest):
        contents = [getattr(p, "content", p) for p in added.parts]
        print(f"[{mode}]   the second model call got, after the call: {contents}")
    returned = any(isinstance(p, NativeToolCallPart) for m in result.new_messages() if isinstance(m, ModelResponse)
                   for p in m.parts)
    asked = isinstance(result.output, DeferredToolRequests)
    return len(model.received) != 1 or not returned or bool(executions) or asked


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(streaming, approval) for streaming in (False, True) for approval in (False, True)]
    if any(present):
        print("DEFECT PRESENT: a response holding only a provider-run call is retried as an empty answer")
        return 1
    print("fixed: the response with the provider-run call was returned after one model call")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
