"""A plain string passed to `get_response` reaches the model as single characters, not as one user message.

What it shows
    The caller hands the function-calling client a bare string, the way the spec's "String input" row allows. The
    function invocation layer forwards it to the model unconverted: the model is sent `list(the string)`, one
    one-character `str` per "message", and no user message at all. A provider that reads `message.role` on what it
    is sent fails with `AttributeError: 'str' object has no attribute 'role'` (that is how the conformance harness
    sees it); the scripted model below records what it was sent instead, so the evidence is the request itself.
    A list holding one user `Message` with the same text works on every release (scenario normal.single-call), so
    the string path is not "the same loop behavior".

Spec row violated (spec 004, Normal function invocation)
    "String input | Flexible string input follows the same loop behavior."

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1; fixed in 1.13.0 (the caller's input is normalised before the loop).

Run
    <venv>/bin/python repro/agent_framework/string_input.py
    Exit status 1: the defect is present. Exit status 0: every model call received the prompt as one user message.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)

PROMPT = "What is the weather in Paris?"


@tool(name="get_weather", approval_mode="never_require")
def get_weather(city: str) -> str:
    return "sunny"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted assistant message and records what it was sent."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.script.pop(0)
        message_id = f"reply-{len(self.received)}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


def script() -> list[Message]:
    return [
        Message("assistant", [Content.from_function_call("c1", "get_weather", arguments='{"city": "Paris"}')]),
        Message("assistant", [Content.from_text("It is sunny in Paris.")]),
    ]


def describe(item: Any) -> str:
    return f"{item.role} message {item.text!r}" if isinstance(item, Message) else f"{type(item).__name__} {item!r}"


def first_item(items: list[Any]) -> bool:
    """Whether the model's first input item is the prompt as one user message."""
    item = items[0] if items else None
    return isinstance(item, Message) and item.role == "user" and item.text == PROMPT


async def run(stream: bool) -> bool:
    client = ScriptedClient(script())
    options: Any = {"tools": [get_weather]}
    if stream:
        response_stream = client.get_response(PROMPT, stream=True, options=options)
        async for _ in response_stream:
            pass
        response = await response_stream.get_final_response()
    else:
        response = await client.get_response(PROMPT, options=options)
    mode = "streaming" if stream else "non-streaming"
    good = True
    for number, items in enumerate(client.received, start=1):
        print(f"  {mode}: model call #{number} received {len(items)} item(s), first: {describe(items[0])}")
        good = good and first_item(items)
    shape = [(m.role, [c.type for c in m.contents]) for m in response.messages]
    print(f"  {mode}: response {shape}")
    return good


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: the string reached the model as one user message in both modes")
        return 0
    print("DEFECT: the model was sent the string's characters instead of a user message "
          "(a provider reading message.role gets AttributeError: 'str' object has no attribute 'role')")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
