"""Calls to an approval-required tool with invalid arguments are sent back to the model before any approval.

What it shows
    wire_money(amount: int, to: str) needs approval. In one response the model calls it three times with arguments
    that break its parameters: amount "one hundred" (c1), amount missing (c2), an extra memo argument (c3). In both
    response modes pydantic-ai validates the arguments before it considers approval: each call gets a retry result
    (outcome 'retried') holding the validation errors, and the model is called again within the same run. The run
    never pauses with approval requests for these calls, so a caller who would approve them is never asked, and the
    model gets a second call in the turn. The body never runs and each call gets one result, as the row requires;
    what differs is the flow: the spec's loop asks for approval first and answers each approved invalid call with
    one error result when it tries to run it.

Spec rows violated (spec 004)
    "Approved validation error | Validation failure returns one result without invoking the function body." (its
    flow: the calls are approved before validation fails; the body-never-runs invariant holds).

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/invalid_arguments_retried_before_approval.py
    Exit status 1: the defect is present. Exit status 0: in both modes the run paused for approval of the three
    calls without a second model call, and after the caller approved them each got one error result and the body
    never ran.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

executions: list[str] = []


async def wire_money(ctx: RunContext[Any], amount: int, to: str) -> str:
    executions.append(f"wire_money({amount}, {to})")
    return "sent"


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


async def run(agent: Agent[None, str | DeferredToolRequests], streaming: bool, prompt: str | None,
              **options: Any) -> Any:
    if not streaming:
        return await agent.run(prompt, **options)
    async with agent.run_stream_events(prompt, **options) as events:
        async for _ in events:
            pass
    return events.result


def results_sent(received: list[ModelMessage]) -> list[tuple[str, str, str]]:
    """(call id, outcome, text) of each tool result one model call received after the last model response."""
    last = max(i for i, m in enumerate(received) if isinstance(m, ModelResponse))
    return [(p.tool_call_id, p.outcome, p.model_response_str()[:70]) for m in received[last + 1:]
            if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


async def scenario(streaming: bool) -> bool:
    """True when the defect shows: the invalid calls were answered without the approval being asked."""
    mode = "streaming" if streaming else "non-streaming"
    executions.clear()
    model = ScriptedModel([
        ModelResponse(parts=[
            ToolCallPart("wire_money", {"amount": "one hundred", "to": "Bob"}, "c1"),
            ToolCallPart("wire_money", {"to": "Bob"}, "c2"),
            ToolCallPart("wire_money", {"amount": 100, "to": "Bob", "memo": "rent"}, "c3"),
        ]),
        ModelResponse(parts=[TextPart("None of the transfers went through.")]),
    ])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
        tools=[Tool(wire_money, requires_approval=True)])
    first = await run(agent, streaming, "Send 100 to Bob, twice, and once to nobody.")
    if not isinstance(first.output, DeferredToolRequests):
        print(f"[{mode}] no approval asked; model calls in the run: {len(model.received)}; "
              f"output: {first.output!r}; executions: {executions}")
        for sent in results_sent(model.received[-1]):
            print(f"[{mode}]   the second model call got {sent}")
        return True
    asked = sorted(call.tool_call_id for call in first.output.approvals)
    print(f"[{mode}] paused for approval of {asked} after {len(model.received)} model call(s)")
    await run(agent, streaming, None, message_history=first.all_messages(),
              deferred_tool_results=DeferredToolResults(approvals={call_id: True for call_id in asked}))
    sent = results_sent(model.received[-1])
    print(f"[{mode}] after the approval the model got {sent}; executions: {executions}")
    one_error_each = sorted(c for c, outcome, _ in sent if outcome != "success") == ["c1", "c2", "c3"]
    return len(model.received) != 2 or asked != ["c1", "c2", "c3"] or not one_error_each or bool(executions)


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(streaming) for streaming in (False, True)]
    if any(present):
        print("DEFECT PRESENT: invalid calls of an approval-required tool go back to the model before any approval")
        return 1
    print("fixed: the invalid calls were approved first and then answered with one error result each")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
