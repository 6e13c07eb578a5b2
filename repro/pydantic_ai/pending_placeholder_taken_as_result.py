"""A caller's "[APPROVAL_PENDING]" placeholder result counts as the paused call's result, and the decision is refused.

What it shows
    A caller whose transport stores a placeholder result for every call paused for approval sends that history back
    with its decision (`message_history=` plus `deferred_tool_results=`), in both response modes. pydantic-ai has no
    notion of a pending placeholder: a `ToolReturnPart` in the history is the call's result, whatever it says. So
    every run below raises `UserError` ("Tool call 'c1' was already executed and its result cannot be overridden")
    before anything runs and before any model call:
    - rejected: transfer_funds(500, Bob) as c1, placeholder for c1, the caller rejects c1 — no rejection result
      replaces the placeholder;
    - reordered: read_config as c1 and read_secret as c2, placeholders for both, the caller approves c2 then c1 —
      neither approved tool runs;
    - reused id: list_files as c1 completes, then delete_files reuses c1 and pauses; placeholder for the open c1,
      the caller approves it — delete_files never runs.
    Fail-closed: nothing runs and nothing reaches the model, but each decision is dropped with the refused run.

Spec rows violated (spec 004)
    "Rejected placeholder | Rejection replaces the pending placeholder instead of adding a second result."
    "Results reordered with placeholders | Results still match the correct call ids."
    "Reused-id placeholders | Placeholder results consume approved results by occurrence."

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/pending_placeholder_taken_as_result.py
    Exit status 1: the defect is present. Exit status 0: in both modes every decision was accepted, each approved
    tool ran once, the rejected one never ran, and the model got exactly one result per call and no placeholder.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

PLACEHOLDER = "[APPROVAL_PENDING]"
executions: list[str] = []


async def transfer_funds(ctx: RunContext[Any], amount: int, to: str) -> str:
    executions.append(f"transfer_funds({amount}, {to})")
    return "transferred"


async def read_config(ctx: RunContext[Any], path: str) -> str:
    executions.append(f"read_config({path})")
    return "retries: 3"


async def read_secret(ctx: RunContext[Any], name: str) -> str:
    executions.append(f"read_secret({name})")
    return "s3cr3t"


async def list_files(ctx: RunContext[Any], path: str) -> str:
    executions.append(f"list_files({path})")
    return "a.log, b.log"


async def delete_files(ctx: RunContext[Any], pattern: str) -> str:
    executions.append(f"delete_files({pattern})")
    return "2 files deleted"


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


@dataclass(frozen=True)
class Case:
    name: str
    tools: list[Tool[Any]]
    pause: list[ModelResponse]  # the model's answers up to the pause
    placeholders: list[tuple[str, str]]  # (tool name, call id) of each placeholder the transport stores
    decisions: dict[str, bool]  # in the caller's order
    expected: list[str]  # the executions the decisions call for


CASES = [
    Case("rejected", [Tool(transfer_funds, requires_approval=True)],
         [ModelResponse(parts=[ToolCallPart("transfer_funds", {"amount": 500, "to": "Bob"}, "c1")])],
         [("transfer_funds", "c1")], {"c1": False}, []),
    Case("reordered", [Tool(read_config, requires_approval=True), Tool(read_secret, requires_approval=True)],
         [ModelResponse(parts=[ToolCallPart("read_config", {"path": "/etc/app.yaml"}, "c1"),
                               ToolCallPart("read_secret", {"name": "deploy-token"}, "c2")])],
         [("read_config", "c1"), ("read_secret", "c2")], {"c2": True, "c1": True},
         ["read_config(/etc/app.yaml)", "read_secret(deploy-token)"]),
    Case("reused id", [Tool(list_files), Tool(delete_files, requires_approval=True)],
         [ModelResponse(parts=[ToolCallPart("list_files", {"path": "/tmp"}, "c1")]),
          ModelResponse(parts=[ToolCallPart("delete_files", {"pattern": "/tmp/*.log"}, "c1")])],
         [("delete_files", "c1")], {"c1": True}, ["delete_files(/tmp/*.log)"]),
]


async def run(agent: Agent[None, str | DeferredToolRequests], streaming: bool, prompt: str | None,
              **options: Any) -> Any:
    if not streaming:
        return await agent.run(prompt, **options)
    async with agent.run_stream_events(prompt, **options) as events:
        async for _ in events:
            pass
    return events.result


def results_sent(received: list[ModelMessage]) -> list[tuple[str, str]]:
    """(call id, result text) of every tool result in one model call's input, after the last model response."""
    last = max(i for i, m in enumerate(received) if isinstance(m, ModelResponse))
    return [(p.tool_call_id, p.model_response_str()) for m in received[last + 1:] if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, ToolReturnPart)]


async def scenario(case: Case, streaming: bool) -> bool:
    """True when the defect shows: the decision is refused, or it does not replace the placeholders."""
    mode = f"{'streaming' if streaming else 'non-streaming'}, {case.name}"
    executions.clear()
    model = ScriptedModel([*case.pause, ModelResponse(parts=[TextPart("Done.")])])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
        tools=case.tools)
    first = await run(agent, streaming, "Go ahead.")
    assert isinstance(first.output, DeferredToolRequests)
    before = list(executions)
    stored = ModelRequest(parts=[ToolReturnPart(name, PLACEHOLDER, call_id) for name, call_id in case.placeholders])
    calls = len(model.received)
    try:
        await run(agent, streaming, None, message_history=[*first.all_messages(), stored],
                  deferred_tool_results=DeferredToolResults(approvals=dict[str, Any](case.decisions)))
    except Exception as error:  # noqa: BLE001 - the refusal is the evidence
        print(f"[{mode}] decisions {case.decisions} refused: {type(error).__name__}: {error}")
        print(f"[{mode}]   model calls on that turn: {len(model.received) - calls}; "
              f"executions: {executions[len(before):]}")
        return True
    sent = results_sent(model.received[-1])
    ran = executions[len(before):]
    print(f"[{mode}] accepted; executions {ran}; the model got the results {sent}")
    one_each = sorted(call_id for call_id, _ in sent) == sorted(case.decisions)
    return sorted(ran) != sorted(case.expected) or not one_each or any(text == PLACEHOLDER for _, text in sent)


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(case, streaming) for case in CASES for streaming in (False, True)]
    if any(present):
        print("DEFECT PRESENT: a placeholder result counts as the call's result and the caller's decision is lost")
        return 1
    print("fixed: each decision replaced its call's placeholder")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
