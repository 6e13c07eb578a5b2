"""A call the model returns despite tool_choice="none" after max_function_calls is reached is executed anyway.

What it shows
    `max_function_calls` is 1. The model calls `get_weather` for Paris (the one allowed call). The loop then asks
    for a final answer with `tool_choice="none"`, but the provider ignores that (as some do) and answers with
    another call, for Rome — once with narration text before it ("narrated"), once alone ("bare"). That call must
    be dropped: not executed, not shown to the caller. On affected releases the loop executes it past the limit
    and calls the model a third time, in both response modes. On 1.10.0 that happens for both the narrated and
    the bare call; on 1.11.0 ... 1.12.1 for the narrated call only (the bare one is then orphaned while streaming:
    see post_limit_call_orphaned.py).

Spec rows violated (spec 004, Errors, control flow, and limits)
    "Provider tool content after an active limit | Locally actionable calls and local approval requests returned
    despite `tool_choice="none"` are removed in both response modes. [...] fallback text never replaces retained
    transcript content."
    "Maximum function calls | Parallel overshoot is bounded after the batch; [...]" — here the loop keeps
    executing after the limit was reached and the final tool-less call was made.

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1 (bare call: 1.10.0 only); fixed in 1.13.0.

Run
    <venv>/bin/python repro/agent_framework/post_limit_call_executed.py
    Exit status 1: the defect is present. Exit status 0: in every case the tool ran once and the model twice.
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

executions: list[str] = []


@tool(name="get_weather", approval_mode="never_require")
def get_weather(city: str) -> str:
    executions.append(city)
    return "sunny"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers with the scripted messages in order (then plain text) and records the tool choice."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.tool_choices: list[Any] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.tool_choices.append(options.get("tool_choice"))
        reply = self.script.pop(0) if self.script else Message("assistant", ["(an extra model call)"])
        message_id = f"reply-{len(self.tool_choices)}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


def script(narrated: bool) -> list[Message]:
    rome = Content.from_function_call("c2", "get_weather", arguments='{"city": "Rome"}')
    return [
        Message("assistant", [Content.from_function_call("c1", "get_weather", arguments='{"city": "Paris"}')]),
        # Returned although the request said tool_choice="none": a provider fault the loop must absorb.
        Message("assistant", [Content.from_text("Let me also check Rome."), rome] if narrated else [rome]),
    ]


def shape(response: ChatResponse) -> list[tuple[str, list[str]]]:
    return [(str(m.role), [f"{c.type} {c.call_id}" if c.call_id else c.type for c in m.contents])
            for m in response.messages]


async def run(narrated: bool, stream: bool) -> bool:
    executions.clear()
    client = ScriptedClient(script(narrated), function_invocation_configuration={"max_function_calls": 1})
    messages = [Message("user", ["Weather in Paris, then Rome?"])]
    options: Any = {"tools": [get_weather]}
    if stream:
        response_stream = client.get_response(messages, stream=True, options=options)
        async for _ in response_stream:
            pass
        response = await response_stream.get_final_response()
    else:
        response = await client.get_response(messages, options=options)
    ok = executions == ["Paris"] and len(client.tool_choices) == 2
    label = f"{'narrated' if narrated else 'bare'} call, {'streaming' if stream else 'non-streaming'}"
    print(f"  {label}: executions {executions}; model calls with tool_choice {client.tool_choices}"
          f"{'' if ok else '   <- executed past the limit'}")
    print(f"  {label}: response {shape(response)}")
    return ok


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(narrated, stream) for narrated in (True, False) for stream in (False, True)]
    if all(results):
        print("FIXED: the post-limit call was never executed and the model was called twice")
        return 0
    print("DEFECT: a call returned despite tool_choice='none' after the limit was executed, "
          "followed by another model call")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
