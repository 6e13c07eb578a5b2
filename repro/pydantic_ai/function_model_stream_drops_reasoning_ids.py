"""FunctionModel's stream protocol cannot carry a reasoning item's id or provider details; streamed items lose them.

What it shows
    The model answers with three reasoning items and two calls: a summary (id rs_1, kind "summary"), an encrypted
    item with no text (id rs_2, its opaque payload in `provider_details`), search as c1, raw reasoning (id rs_3),
    fetch_page as c2. Returned by a `FunctionModel` function (non-streaming), every `ThinkingPart` keeps its `id` and
    `provider_details`, in the run's messages and in the history the next model call receives. Streamed by a
    `FunctionModel` stream function, the only thinking delta it takes, `DeltaThinkingPart`, has fields for content
    and signature alone: the streamed parts have no id and no provider details, so the response, and the history
    the next model call gets, hold reasoning no provider could match to its items, and the encrypted item is an
    empty thinking part without its payload. The streamed run also disagrees with the non-streamed one.

    This is a limit of `FunctionModel`, pydantic-ai's model for scripted answers (which the conformance adapter
    uses), not of the agent loop: pydantic-ai's parts manager takes an id and provider details for a streamed
    thinking part, and provider models that stream them keep them.

Spec rows violated (spec 004)
    "Reasoning-bound call | Finalized output retains reasoning, function call, function result, and final text."
    (with "Streaming yields the same logical result content and ordering as non-streaming output").

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/function_model_stream_drops_reasoning_ids.py
    Exit status 1: the defect is present. Exit status 0: the streamed run's reasoning items kept their ids and
    provider details, in its messages and in the next model call's history, as the non-streamed run's did.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ThinkingPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel


async def search(ctx: RunContext[Any], query: str) -> str:
    return "3 results"


async def fetch_page(ctx: RunContext[Any], url: str) -> str:
    return "page text"


def reasoning_then_calls() -> ModelResponse:
    return ModelResponse(parts=[
        ThinkingPart("Search first, then open the best hit.", id="rs_1", provider_name="function",
                     provider_details={"kind": "summary"}),
        ThinkingPart("", id="rs_2", provider_name="function",
                     provider_details={"kind": "encrypted", "data": {"encrypted_content": "gAAAAB-opaque-1"}}),
        ToolCallPart("search", {"query": "release notes"}, "c1"),
        ThinkingPart("The first hit is the changelog page.", id="rs_3", provider_name="function"),
        ToolCallPart("fetch_page", {"url": "https://example.com/changelog"}, "c2"),
    ])


class ScriptedModel:
    """Answers each model call with the next scripted response, in either mode, and records what it received.

    Streamed, each part is one item: text, a `DeltaToolCall`, or a `DeltaThinkingPart` with all it can hold.
    """

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
            elif isinstance(part, ThinkingPart):
                yield {index: DeltaThinkingPart(content=part.content, signature=part.signature)}
            elif isinstance(part, ToolCallPart):
                yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}


def reasoning_items(messages: list[ModelMessage]) -> list[tuple[str | None, str, dict[str, Any] | None]]:
    """(id, text, provider details) of each thinking part of the first model response in `messages`."""
    response = next(m for m in messages if isinstance(m, ModelResponse))
    return [(p.id, p.content[:20], p.provider_details) for p in response.parts if isinstance(p, ThinkingPart)]


async def items(streaming: bool) -> tuple[list[Any], list[Any]]:
    """The reasoning items of the run's first response, and of the history the second model call received."""
    model = ScriptedModel([reasoning_then_calls(), ModelResponse(parts=[TextPart("Here are the release notes.")])])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream), output_type=[str, DeferredToolRequests],
        tools=[Tool(search), Tool(fetch_page)])
    if streaming:
        async with agent.run_stream_events("Find the release notes and open them.") as events:
            async for _ in events:
                pass
        result = events.result
    else:
        result = await agent.run("Find the release notes and open them.")
    return reasoning_items(result.all_messages()), reasoning_items(model.received[-1])


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    plain, plain_sent = await items(streaming=False)
    streamed, streamed_sent = await items(streaming=True)
    for label, returned, sent in (("non-streaming", plain, plain_sent), ("streaming", streamed, streamed_sent)):
        print(f"[{label}] reasoning in the run's messages: {returned}")
        print(f"[{label}]   in the history of the second model call: {sent}")
    if streamed != plain or streamed_sent != plain_sent:
        print("DEFECT PRESENT: reasoning streamed through FunctionModel loses its item ids and provider details")
        return 1
    print("fixed: streamed reasoning items kept their ids and provider details")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
