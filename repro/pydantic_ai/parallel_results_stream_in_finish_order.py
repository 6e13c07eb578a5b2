"""Streamed results of parallel calls arrive in the order the calls finish, not in the model's call order.

What it shows
    The model calls fetch_report for A, B and C (c1, c2, c3) in one response; A takes longest and C is quickest.
    Under pydantic-ai's default tool execution mode ('parallel'), `run_stream_events` emits each call's
    `FunctionToolResultEvent` as the call finishes: c3, c2, c1. The run's final messages, and the non-streaming
    run, keep the model's order c1, c2, c3, so the stream also disagrees with the response it folds into. Ordered
    events are opt-in: inside `Agent.parallel_tool_call_execution_mode('parallel_ordered_events')` the stream gives
    c1, c2, c3 (shown as evidence only); a caller with the defaults gets finish order.

Spec rows violated (spec 004)
    "Parallel calls | Results retain the corresponding call ids and execution count.", with the contract's
    "Parallel calls retain model order in the returned transcript" and "Streaming yields the same logical result
    content and ordering as non-streaming output".

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/parallel_results_stream_in_finish_order.py
    Exit status 1: the defect is present. Exit status 0: with the default execution mode the streamed results came
    in the model's call order.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, RunContext, Tool
from pydantic_ai.messages import (
    FunctionToolResultEvent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

DURATION = {"A": 0.12, "B": 0.06, "C": 0.0}


async def fetch_report(ctx: RunContext[Any], name: str) -> str:
    await asyncio.sleep(DURATION[name])
    return f"report {name}"


class ScriptedModel:
    """Answers each model call with the next scripted response, in either mode."""

    def __init__(self, script: list[ModelResponse]) -> None:
        self.script = list(script)

    def _next(self) -> ModelResponse:
        return self.script.pop(0) if self.script else ModelResponse(parts=[TextPart("(an extra model call)")])

    def complete(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return self._next()

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        for index, part in enumerate(self._next().parts):
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}


def agent() -> Agent[None, str | DeferredToolRequests]:
    model = ScriptedModel([
        ModelResponse(parts=[ToolCallPart("fetch_report", {"name": name}, f"c{n}") for n, name in enumerate("ABC", 1)]),
        ModelResponse(parts=[TextPart("Here are reports A, B and C.")]),
    ])
    return Agent(FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
                 tools=[Tool(fetch_report)])


def result_order(messages: list[ModelMessage]) -> list[str]:
    return [p.tool_call_id for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, ToolReturnPart)]


async def streamed() -> tuple[list[str], list[str]]:
    """The result events' call ids in stream order, and the results' order in the run's final messages."""
    order: list[str] = []
    async with agent().run_stream_events("Fetch reports A, B and C.") as events:
        async for event in events:
            if isinstance(event, FunctionToolResultEvent):
                order.append(event.part.tool_call_id)
    return order, result_order(events.result.all_messages())


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    order, final = await streamed()
    print(f"[streaming] result events: {order}; final messages: {final}")
    plain = await agent().run("Fetch reports A, B and C.")
    print(f"[non-streaming] final messages: {result_order(plain.all_messages())}")
    with Agent.parallel_tool_call_execution_mode("parallel_ordered_events"):
        ordered, _ = await streamed()
    print(f"[streaming, parallel_ordered_events] result events: {ordered}")
    if order != ["c1", "c2", "c3"]:
        print("DEFECT PRESENT: streamed parallel results come in finish order, not the model's call order")
        return 1
    print("fixed: streamed parallel results come in the model's call order")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
