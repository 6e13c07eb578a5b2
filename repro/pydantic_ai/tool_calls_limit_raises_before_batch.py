"""The tool-call limit refuses a whole batch by raising, and reaching it leaves the next model call its tools.

What it shows
    `UsageLimits.tool_calls_limit` is pydantic-ai's bound on the function calls of a run, the counterpart of the
    spec's `max_function_calls`. pydantic-ai checks it before a batch runs, and nothing else changes at the limit.
    In both response modes:
    - overshoot: limit 2, the model calls search three times in one response. The run raises
      `UsageLimitExceeded` ("The next tool call(s) would exceed the tool_calls_limit of 2 (tool_calls=3)") before
      any of the three runs; the spec's loop runs the batch and then makes a final call without tools;
    - at the limit: limit 1, the model calls search once and it runs. The next model call is still offered the
      tools, with tool_choice unset (the provider's "auto"), where the spec's is a final call with tool_choice
      "none". What the model answers then goes through unfiltered: a blank text ("  ") is the run's output as it
      is, without fallback text; a call to search, bare or after some text, raises `UsageLimitExceeded`; a call to
      the approval-required delete_file after some text ends the run in `DeferredToolRequests` with its approval
      request. The spec's loop removes such calls and requests and adds fallback text to a blank answer.

Spec rows violated (spec 004)
    "Maximum function calls | Parallel overshoot is bounded after the batch; every executed result group counts even
    without a `function_result`; blank final responses get fallback content."
    "Provider tool content after an active limit | Locally actionable calls and local approval requests returned
    despite `tool_choice="none"` are removed in both response modes. ... fallback text never replaces retained
    transcript content."

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/tool_calls_limit_raises_before_batch.py
    Exit status 1: the defect is present. Exit status 0: in both modes the overshooting batch ran whole, and in
    every case the model call after the spent limit offered no tools (or tool_choice "none"), nothing raised, no
    approval was asked, and the run ended with visible text.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, RunContext, Tool, UsageLimits
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

executions: list[str] = []


async def search(ctx: RunContext[Any], query: str) -> str:
    executions.append(f"search({query})")
    return "a result"


async def delete_file(ctx: RunContext[Any], path: str) -> str:
    executions.append(f"delete_file({path})")
    return "deleted"


class ScriptedModel:
    """Answers each model call with the next scripted response, in either mode, and records what it was offered."""

    def __init__(self, script: list[ModelResponse]) -> None:
        self.script = list(script)
        self.offered: list[tuple[list[str], Any]] = []  # (function tools, tool_choice setting) of each model call

    def _next(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.offered.append(([t.name for t in info.function_tools], (info.model_settings or {}).get("tool_choice")))
        return self.script.pop(0) if self.script else ModelResponse(parts=[TextPart("(an extra model call)")])

    def complete(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return self._next(messages, info)

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        for index, part in enumerate(self._next(messages, info).parts):
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}


def search_call(call_id: str, query: str) -> ToolCallPart:
    return ToolCallPart("search", {"query": query}, call_id)


# (case, tool_calls_limit, the model's answers)
CASES: list[tuple[str, int, list[ModelResponse]]] = [
    ("overshoot", 2, [ModelResponse(parts=[search_call("c1", "one"), search_call("c2", "two"),
                                           search_call("c3", "three")]),
                      ModelResponse(parts=[TextPart("Here is what I found.")])]),
    ("blank answer", 1, [ModelResponse(parts=[search_call("c1", "one")]), ModelResponse(parts=[TextPart("  ")])]),
    ("bare call", 1, [ModelResponse(parts=[search_call("c1", "one")]),
                      ModelResponse(parts=[search_call("c2", "two")])]),
    ("narrated call", 1, [ModelResponse(parts=[search_call("c1", "one")]),
                          ModelResponse(parts=[TextPart("One more search."), search_call("c2", "two")])]),
    ("approval-required call", 1, [
        ModelResponse(parts=[search_call("c1", "one")]),
        ModelResponse(parts=[TextPart("Cleaning up next."), ToolCallPart("delete_file", {"path": "/tmp/x"}, "c2")])]),
]


async def run(agent: Agent[None, str | DeferredToolRequests], streaming: bool, prompt: str, **options: Any) -> Any:
    if not streaming:
        return await agent.run(prompt, **options)
    async with agent.run_stream_events(prompt, **options) as events:
        async for _ in events:
            pass
    return events.result


async def scenario(streaming: bool, case: str, limit: int, script: list[ModelResponse]) -> bool:
    """True when the defect shows: the batch was refused, or the limit did not end the loop with a final answer."""
    mode = f"{'streaming' if streaming else 'non-streaming'}, {case}"
    executions.clear()
    model = ScriptedModel(script)
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
        tools=[Tool(search), Tool(delete_file, requires_approval=True)])
    try:
        result = await run(agent, streaming, "Research this.", usage_limits=UsageLimits(tool_calls_limit=limit))
    except Exception as error:  # noqa: BLE001 - the raised limit is the evidence
        ending, output = f"raised {type(error).__name__}: {str(error).split('. Consider')[0]}", None
    else:
        output = result.output
        ending = f"output {output!r}"
    print(f"[{mode}] tool_calls_limit={limit}: {ending}; executions {executions}")
    after = model.offered[1:]
    print(f"[{mode}]   model calls after the first offered (tools, tool_choice): {after}")
    tools_kept = any(tools and choice != "none" for tools, choice in after)
    answered = isinstance(output, str) and bool(output.strip())
    return tools_kept or not answered or (case == "overshoot" and len(executions) != 3)


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(streaming, case, limit, list(script))
               for streaming in (False, True) for case, limit, script in CASES]
    if any(present):
        print("DEFECT PRESENT: the tool-call limit raises before a batch and never makes the next call a final one")
        return 1
    print("fixed: the limit bounded the batch after it ran and the next model call was a final one without tools")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
