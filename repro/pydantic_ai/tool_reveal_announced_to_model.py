"""A tool revealed at run time is announced to the model in a message of its own, which the history never had.

What it shows
    factorial is declared with `defer_loading=True` (not offered at first); load_math reveals it by returning
    `ToolReturn(..., tools=["factorial"])`. In both response modes factorial is offered from the next model call on,
    as required, and runs when called. But pydantic-ai records the reveal in the history (a
    `ToolAvailabilityDeltaPart` beside load_math's result) and, for a model whose profile claims no way to add tools
    natively (`tool_addition_mode`: the default `FunctionModel` profile here, and any provider API without such a
    channel), renders it as text: the second model call receives, after load_math's result, a user message
    "<system>The following tool(s) are now available: `factorial`</system>". The model's input therefore holds a
    message that is neither the caller's nor the model's nor a tool result. As evidence only, the script shows
    that a profile claiming `tool_addition_mode='with_definitions'` gets the delta part instead of the text.

Spec rows violated (spec 004)
    "Runtime tool changes | Added tools become available on the next iteration and retain approval behavior." (the
    tool is available; the scenario's next model input is the history alone).

Affected releases
    pydantic-ai-slim 2.68.0 (the release tested).

Run
    <venv with pydantic-ai-slim>/bin/python repro/pydantic_ai/tool_reveal_announced_to_model.py
    Exit status 1: the defect is present. Exit status 0: in both modes, with the default profile, the second model
    call received only the user's prompt, load_math's call and its result, and factorial ran once.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, RunContext, Tool, ToolReturn
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.profiles import ModelProfile

executions: list[str] = []


async def load_math(ctx: RunContext[Any]) -> ToolReturn:
    executions.append("load_math()")
    return ToolReturn("math tools loaded", tools=["factorial"])


async def factorial(ctx: RunContext[Any], n: int) -> int:
    executions.append(f"factorial({n})")
    return 120


class ScriptedModel:
    """Answers each model call with the next scripted response, in either mode, and records what it received."""

    def __init__(self, script: list[ModelResponse]) -> None:
        self.script = list(script)
        self.received: list[tuple[list[ModelMessage], list[str]]] = []

    def _next(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.received.append((list(messages), [t.name for t in info.function_tools]))
        return self.script.pop(0) if self.script else ModelResponse(parts=[TextPart("(an extra model call)")])

    def complete(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return self._next(messages, info)

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        for index, part in enumerate(self._next(messages, info).parts):
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}


async def second_call(streaming: bool, profile: ModelProfile | None = None) -> tuple[list[str], list[str]]:
    """Each part of the input of the run's second model call, and the tools that call was offered."""
    model = ScriptedModel([ModelResponse(parts=[ToolCallPart("load_math", {}, "c1")]),
                           ModelResponse(parts=[ToolCallPart("factorial", {"n": 5}, "c2")]),
                           ModelResponse(parts=[TextPart("5! is 120.")])])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(model.complete, stream_function=model.stream, profile=profile),
        output_type=[str, DeferredToolRequests], tools=[Tool(load_math), Tool(factorial, defer_loading=True)])
    if streaming:
        async with agent.run_stream_events("Compute 5!") as events:
            async for _ in events:
                pass
    else:
        await agent.run("Compute 5!")
    messages, offered = model.received[1]
    return [describe(message, part) for message in messages for part in message.parts], offered


def describe(message: ModelMessage, part: Any) -> str:
    text = part.content if isinstance(getattr(part, "content", None), str) else ""
    return f"{'request' if isinstance(message, ModelRequest) else 'response'}:{type(part).__name__}({text})"


async def scenario(streaming: bool) -> bool:
    """True when the defect shows: the second model call got more than the history."""
    mode = "streaming" if streaming else "non-streaming"
    executions.clear()
    parts, offered = await second_call(streaming)
    print(f"[{mode}] second model call offered {offered}; executions {executions}; it received:")
    for part in parts:
        print(f"[{mode}]   {part}")
    native, _ = await second_call(streaming, ModelProfile(tool_addition_mode="with_definitions"))
    print(f"[{mode}]   with tool_addition_mode='with_definitions' the reveal reaches it as {native[-1]}")
    history_only = len(parts) == 3 and parts[0].startswith("request:UserPromptPart")
    return not history_only or "factorial(5)" not in executions


async def main() -> int:
    print(f"pydantic-ai-slim {importlib.metadata.version('pydantic-ai-slim')}")
    present = [await scenario(streaming) for streaming in (False, True)]
    if any(present):
        print("DEFECT PRESENT: the revealed tool is announced to the model in a message the history does not have")
        return 1
    print("fixed: the next model call received the history alone")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
