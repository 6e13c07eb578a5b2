"""While an approval batch is pending, pydantic-ai refuses every run that asks something else.

What it shows
    Turn 1: the model reasons (with a signature) and calls two approval-required tools in one response,
    delete_file(/tmp/a.txt) as c1 and move_file(/tmp/b.txt) as c2; the run ends with `DeferredToolRequests` (two
    approvals). Turn 2: the caller does not decide yet; it asks an unrelated question ("Before that: how much space
    is free?") on the same conversation — with caller-kept history (`message_history=result.all_messages()`) and with
    the conversation pydantic-ai hands back (`conversation=result.conversation`), in both response modes (`run` and
    `run_stream_events`). Every such run raises `UserError` ("Cannot provide a new user prompt when the message
    history contains unprocessed tool calls ...") before calling the model: the conversation cannot go on until the
    batch is decided. The error's only other remedy, `pydantic_ai.messages.repair_messages()`, closes both calls
    with synthesized `'interrupted'` results; the model then sees them as finished and a later approval can no
    longer resume them (the resume is refused too) — shown as evidence, not part of the verdict.

    Nothing executes and nothing invalid reaches the model: the refusal is fail-closed. But a conversation the spec
    says must go on is rejected.

Spec rows violated (spec 004)
    "Pending history turn | An unresolved approval batch is omitted atomically from unrelated model input while a
    later decision can still resume it once."

Affected releases
    pydantic-ai-slim 2.60.0 – 2.68.0, still present (checked on every release from 2.60.0).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/pending_approval_blocks_unrelated_turn.py
    Exit status 1: the defect is present. Exit status 0: in every mode and history form the unrelated turn was
    answered, the model saw neither pending call, and a later approval of both ran each tool exactly once.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    repair_messages,
)
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel

executions: list[str] = []


async def delete_file(ctx: RunContext[Any], path: str) -> str:
    executions.append(f"delete_file({path})")
    return "deleted"


async def move_file(ctx: RunContext[Any], path: str) -> str:
    executions.append(f"move_file({path})")
    return "moved"


class ScriptedModel:
    """Answers each model call with the next scripted response, in either mode, and records what it received."""

    def __init__(self, script: list[ModelResponse]) -> None:
        self.script = list(script)
        self.received: list[list[ModelMessage]] = []

    def complete(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.received.append(list(messages))
        return self.script.pop(0)

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        self.received.append(list(messages))
        for index, part in enumerate(self.script.pop(0).parts):
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ThinkingPart):
                yield {index: DeltaThinkingPart(content=part.content, signature=part.signature)}
            elif isinstance(part, ToolCallPart):
                yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}


def pending_batch() -> ModelResponse:
    return ModelResponse(parts=[
        ThinkingPart("One file goes, one moves.", signature="sig-tidy"),
        ToolCallPart("delete_file", {"path": "/tmp/a.txt"}, "c1"),
        ToolCallPart("move_file", {"path": "/tmp/b.txt"}, "c2"),
    ])


def agent_for(model: ScriptedModel) -> Agent[None, str | DeferredToolRequests]:
    return Agent(
        FunctionModel(model.complete, stream_function=model.stream),
        output_type=[str, DeferredToolRequests],
        tools=[Tool(delete_file, requires_approval=True), Tool(move_file, requires_approval=True)],
    )


async def run(agent: Agent[None, str | DeferredToolRequests], streaming: bool, prompt: str | None,
              **options: Any) -> Any:
    if not streaming:
        return await agent.run(prompt, **options)
    async with agent.run_stream_events(prompt, **options) as events:
        async for _ in events:
            pass
    return events.result


def model_saw_pending_calls(received: list[ModelMessage]) -> bool:
    calls = {p.tool_call_id for m in received if isinstance(m, ModelResponse) for p in m.parts
             if isinstance(p, ToolCallPart)}
    results = {p.tool_call_id for m in received if isinstance(m, ModelRequest) for p in m.parts
               if isinstance(p, ToolReturnPart)}
    return bool({"c1", "c2"} & calls) or bool({"c1", "c2"} & results)


async def scenario(streaming: bool, session: bool) -> bool:
    """True when the defect shows: the unrelated turn (or the later resume) is refused or goes wrong."""
    mode = f"{'streaming' if streaming else 'non-streaming'}, {'conversation=' if session else 'message_history='}"
    executions.clear()
    model = ScriptedModel([pending_batch(), ModelResponse(parts=[TextPart("About 12 GB.")]),
                           ModelResponse(parts=[TextPart("Done.")])])
    agent = agent_for(model)
    first = await run(agent, streaming, "Tidy up /tmp.")
    assert isinstance(first.output, DeferredToolRequests)
    carry: dict[str, Any] = ({"conversation": first.conversation} if session
                             else {"message_history": first.all_messages()})
    try:
        second = await run(agent, streaming, "Before that: how much space is free?", **carry)
    except Exception as error:  # noqa: BLE001 - the refusal is the evidence
        print(f"[{mode}] unrelated turn refused: {type(error).__name__}: {str(error)[:110]}...")
        print(f"[{mode}]   model calls on that turn: {len(model.received) - 1}; executions: {executions}")
        await show_repair_remedy(streaming)
        return True
    unrelated_input = model.received[-1]
    bad = model_saw_pending_calls(unrelated_input)
    print(f"[{mode}] unrelated turn answered {second.output!r}; model saw the pending calls: {bad}")
    carry = ({"conversation": second.conversation} if session else {"message_history": second.all_messages()})
    try:
        await run(agent, streaming, None, deferred_tool_results=DeferredToolResults(
            approvals={"c1": True, "c2": True}), **carry)
    except Exception as error:  # noqa: BLE001
        print(f"[{mode}] resuming the batch afterwards refused: {type(error).__name__}: {error}")
        return True
    print(f"[{mode}] resumed; executions: {executions}")
    return bad or sorted(executions) != ["delete_file(/tmp/a.txt)", "move_file(/tmp/b.txt)"]


async def show_repair_remedy(streaming: bool) -> None:
    """The error's suggested remedy closes the pending calls for good (evidence only)."""
    model = ScriptedModel([pending_batch(), ModelResponse(parts=[TextPart("About 12 GB.")])])
    agent = agent_for(model)
    first = await run(agent, streaming, "Tidy up /tmp.")
    repaired = repair_messages(first.all_messages())
    second = await run(agent, streaming, "Before that: how much space is free?", message_history=repaired)
    outcomes = [(p.tool_call_id, p.outcome) for m in model.received[-1] if isinstance(m, ModelRequest)
                for p in m.parts if isinstance(p, ToolReturnPart)]
    print(f"      with repair_messages(): the model got synthesized results {outcomes}")
    try:
        await run(agent, streaming, None, message_history=second.all_messages(),
                  deferred_tool_results=DeferredToolResults(approvals={"c1": True, "c2": True}))
        print("      a later approval resumed the batch")
    except Exception as error:  # noqa: BLE001
        print(f"      and a later approval is refused: {type(error).__name__}: {str(error)[:90]}")


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(streaming, session) for streaming in (False, True) for session in (False, True)]
    if any(present):
        print("DEFECT PRESENT: a conversation with a pending approval batch cannot take an unrelated turn")
        return 1
    print("fixed: the unrelated turn left the pending batch out, and the batch resumed once later")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
