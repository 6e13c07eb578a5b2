"""At the request limit the run raises after the last round's calls ran: no final call without tools, no response.

What it shows
    `UsageLimits.request_limit` is pydantic-ai's only bound on the model calls of a run, the counterpart of the
    spec's `max_iterations`. With a limit of N and a model that keeps calling search, in both response modes: the N
    allowed model calls each return a call, each call runs, and before call N+1 pydantic-ai raises
    `UsageLimitExceeded` ("The next request would exceed the request_limit of N") to the caller. The last round's
    call has run, but its result never reaches the model, and the caller gets no response holding it (only
    `capture_run_messages()` recovers the messages, shown below). The spec's loop instead makes one final model call
    with tool_choice "none", sends it the last results, and returns its answer (or fallback text when that answer
    is blank). Shown for N = 2 and N = 1.

Spec rows violated (spec 004)
    "Maximum iterations | No orphan calls; a final no-tool response or deterministic fallback is returned."

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/request_limit_raises_after_calls_ran.py
    Exit status 1: the defect is present. Exit status 0: in both modes and for both limits the run returned a
    response whose last model call offered no tools (or tool_choice "none") and received the last call's result.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, RunContext, Tool, UsageLimits, capture_run_messages
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

executions: list[str] = []


async def search(ctx: RunContext[Any], query: str) -> str:
    executions.append(f"search({query})")
    return "a result"


class ScriptedModel:
    """Answers each model call with the next scripted response, in either mode, and records what it received."""

    def __init__(self, script: list[ModelResponse]) -> None:
        self.script = list(script)
        self.received: list[tuple[list[ModelMessage], AgentInfo]] = []

    def _next(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.received.append((list(messages), info))
        return self.script.pop(0) if self.script else ModelResponse(parts=[TextPart("(an extra model call)")])

    def complete(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return self._next(messages, info)

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        for index, part in enumerate(self._next(messages, info).parts):
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}


async def run(agent: Agent[None, str | DeferredToolRequests], streaming: bool, prompt: str, **options: Any) -> Any:
    if not streaming:
        return await agent.run(prompt, **options)
    async with agent.run_stream_events(prompt, **options) as events:
        async for _ in events:
            pass
    return events.result


def result_ids(messages: list[ModelMessage]) -> list[str]:
    return [p.tool_call_id for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, ToolReturnPart)]


async def scenario(streaming: bool, limit: int) -> bool:
    """True when the defect shows: the limit raised, or the final call offered tools or lacked the last result."""
    mode = f"{'streaming' if streaming else 'non-streaming'}, request_limit={limit}"
    executions.clear()
    rounds = [ModelResponse(parts=[ToolCallPart("search", {"query": f"query {n}"}, f"c{n}")])
              for n in range(1, limit + 1)]
    model = ScriptedModel([*rounds, ModelResponse(parts=[TextPart("Here is what I found.")])])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
        tools=[Tool(search)])
    last = f"c{limit}"
    with capture_run_messages() as captured:
        try:
            result = await run(agent, streaming, "Research this.", usage_limits=UsageLimits(request_limit=limit))
        except Exception as error:  # noqa: BLE001 - the raised limit is the evidence
            print(f"[{mode}] the caller got {type(error).__name__}: {str(error).split('. Consider')[0]}")
            print(f"[{mode}]   executions: {executions}; model calls: {len(model.received)}; {last}'s result reached "
                  f"the model: {last in result_ids(model.received[-1][0])}; "
                  f"capture_run_messages() holds the results {result_ids(captured)}")
            return True
    messages, info = model.received[-1]
    tools_off = not info.function_tools or (info.model_settings or {}).get("tool_choice") == "none"
    print(f"[{mode}] output {result.output!r}; last model call offered {[t.name for t in info.function_tools]} "
          f"with tool_choice {(info.model_settings or {}).get('tool_choice')!r}; got {result_ids(messages)}")
    return not tools_off or last not in result_ids(messages)


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(streaming, limit) for streaming in (False, True) for limit in (2, 1)]
    if any(present):
        print("DEFECT PRESENT: at the request limit the run raises after the last calls ran, without a final answer")
        return 1
    print("fixed: at the request limit a final model call without tools answered with the last results")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
