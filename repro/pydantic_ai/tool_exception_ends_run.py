"""An exception raised by a tool ends the run and reaches the caller: the failed call gets no error result.

What it shows
    In both response modes:
    - a batch: the model calls fetch_page twice (c1, c3) and read_cache once (c2) in one response; fetch_page raises
      `ConnectionResetError`. All three calls run, then the run raises `ConnectionResetError` to the caller: the
      failed calls get no error result, read_cache's result is never delivered, and the model is not called again;
    - an approved call: read_setting needs approval and raises `KeyError('timeout_seconds')`; turn 1 pauses, turn 2
      approves c1 (`message_history=` plus `deferred_tool_results=`). The tool runs once and the run raises
      `KeyError` to the caller, with no result for c1 and no model call.
    Only `ModelRetry` and `ToolFailed` raised by a tool (and a `ToolFailed` answer to a deferred call) become a
    result the model sees. Any other exception propagates, so there is no consecutive-error count either: the first
    failing round ends the turn. Each tool ran once; nothing ran twice. A caller can opt in to error results with a
    capability whose `on_tool_execute_error` hook turns the exception into `ToolFailed`; the script shows, as
    evidence only, that the same batch then reaches the model with two failed results. A default agent has none.

Spec rows violated (spec 004)
    "Approved tool exception | Generic and detailed error modes preserve one result and one execution."
    "Consecutive error cap | Error threshold stops repeated failures, submits collected results, and makes only the
    required final no-tool model call."

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/tool_exception_ends_run.py
    Exit status 1: the defect is present. Exit status 0: in both modes no exception reached the caller, every failed
    call got one error result, read_cache's result was delivered, and the model was called again.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool, ToolFailed
from pydantic_ai.capabilities import Hooks
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

executions: list[str] = []


async def fetch_page(ctx: RunContext[Any], url: str) -> str:
    executions.append(f"fetch_page({url})")
    raise ConnectionResetError("connection reset")


async def read_cache(ctx: RunContext[Any], key: str) -> str:
    executions.append(f"read_cache({key})")
    return "cached status"


async def read_setting(ctx: RunContext[Any], key: str) -> str:
    executions.append(f"read_setting({key})")
    raise KeyError(key)


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


def agent_for(model: ScriptedModel, tools: list[Tool[Any]], **options: Any) -> Agent[None, str | DeferredToolRequests]:
    return Agent(FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
                 tools=tools, **options)


async def run(agent: Agent[None, str | DeferredToolRequests], streaming: bool, prompt: str | None,
              **options: Any) -> Any:
    if not streaming:
        return await agent.run(prompt, **options)
    async with agent.run_stream_events(prompt, **options) as events:
        async for _ in events:
            pass
    return events.result


def results_sent(received: list[ModelMessage]) -> list[tuple[str, str]]:
    """(call id, outcome) of each tool result one model call received after the last model response."""
    last = max(i for i, m in enumerate(received) if isinstance(m, ModelResponse))
    return [(p.tool_call_id, p.outcome) for m in received[last + 1:] if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, ToolReturnPart)]


def batch() -> list[ModelResponse]:
    return [ModelResponse(parts=[
        ToolCallPart("fetch_page", {"url": "https://status.example"}, "c1"),
        ToolCallPart("read_cache", {"key": "status"}, "c2"),
        ToolCallPart("fetch_page", {"url": "https://status.example/v2"}, "c3"),
    ]), ModelResponse(parts=[TextPart("Only the cached status is available.")])]


async def failing_batch(streaming: bool, mode: str) -> bool:
    """True when the defect shows: the batch's exception reached the caller."""
    executions.clear()
    model = ScriptedModel(batch())
    agent = agent_for(model, [Tool(fetch_page), Tool(read_cache)])
    try:
        await run(agent, streaming, "Get the status, live and cached.")
    except Exception as error:  # noqa: BLE001 - the raised exception is the evidence
        print(f"[{mode}] batch: the caller got {type(error).__name__}: {error}; executions: {executions}; "
              f"model calls: {len(model.received)}")
        return True
    sent = results_sent(model.received[-1])
    print(f"[{mode}] batch: the model got the results {sent}")
    failed = {call_id for call_id, outcome in sent if outcome != "success"}
    return failed != {"c1", "c3"} or dict(sent).get("c2") != "success"


async def opt_in_evidence(streaming: bool, mode: str) -> None:
    """The same batch with a hook turning tool exceptions into `ToolFailed`: the failures reach the model."""
    hooks = Hooks[Any]()

    @hooks.on.tool_execute_error
    async def as_failed_result(ctx: RunContext[Any], *, call: Any, tool_def: Any, args: Any, error: Exception) -> Any:
        raise ToolFailed(f"{type(error).__name__}: {error}")

    model = ScriptedModel(batch())
    await run(agent_for(model, [Tool(fetch_page), Tool(read_cache)], capabilities=[hooks]), streaming,
              "Get the status, live and cached.")
    print(f"[{mode}]   with an on_tool_execute_error hook the model got the results {results_sent(model.received[-1])}")


async def approved_call(streaming: bool, mode: str) -> bool:
    """True when the defect shows: the approved call's exception reached the caller."""
    executions.clear()
    model = ScriptedModel([ModelResponse(parts=[ToolCallPart("read_setting", {"key": "timeout_seconds"}, "c1")]),
                           ModelResponse(parts=[TextPart("The timeout setting is not defined.")])])
    agent = agent_for(model, [Tool(read_setting, requires_approval=True)])
    first = await run(agent, streaming, "What is the timeout setting?")
    assert isinstance(first.output, DeferredToolRequests)
    try:
        await run(agent, streaming, None, message_history=first.all_messages(),
                  deferred_tool_results=DeferredToolResults(approvals={"c1": True}))
    except Exception as error:  # noqa: BLE001
        print(f"[{mode}] approved call: the caller got {type(error).__name__}: {error}; executions: {executions}; "
              f"model calls after the approval: {len(model.received) - 1}")
        return True
    sent = results_sent(model.received[-1])
    print(f"[{mode}] approved call: the model got the results {sent}; executions: {executions}")
    failed_once = len(sent) == 1 and sent[0][0] == "c1" and sent[0][1] != "success"
    return not failed_once or executions != ["read_setting(timeout_seconds)"]


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present: list[bool] = []
    for streaming in (False, True):
        mode = "streaming" if streaming else "non-streaming"
        present.append(await failing_batch(streaming, mode))
        await opt_in_evidence(streaming, mode)
        present.append(await approved_call(streaming, mode))
    if any(present):
        print("DEFECT PRESENT: an exception raised by a tool ends the run instead of becoming the call's error result")
        return 1
    print("fixed: every failed call got an error result and the loop went on")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
