"""A bare call returned despite tool_choice="none" after max_function_calls is reached is streamed, then dropped.

What it shows
    `max_function_calls` is 1. The model calls `get_weather` for Paris (the one allowed call). The loop then asks
    for a final answer with `tool_choice="none"`, but the provider ignores that and answers with only another
    call, for Rome, and no text. On affected releases the streaming loop yields that call to the caller before it
    decides what to do with the response, then decides not to execute it and appends the limit fallback text. The
    caller is left holding call c2 with no result — in the streamed updates and in `get_final_response()`, which
    folds them — while the non-streaming response of the same script correctly contains only the fallback text.
    This is the orphaned streamed call of the bug report on post-limit tool content (streamed as
    TOOL_CALL_START with no TOOL_CALL_RESULT by a UI transport).

Spec row violated (spec 004, Errors, control flow, and limits)
    "Provider tool content after an active limit | Locally actionable calls and local approval requests returned
    despite `tool_choice="none"` are removed in both response modes. [...] metadata-only streaming updates remain
    visible; fallback text never replaces retained transcript content."
    Normative contract: "Every actionable local `function_call` produces exactly one terminal `function_result`,
    unless execution pauses for a new user-input request."

Affected releases
    agent-framework-core 1.11.0 ... 1.12.1, streaming; fixed in 1.13.0. (1.10.0 streams the call too but then
    executes it past the limit, so it is not orphaned there: see post_limit_call_executed.py.)

Run
    <venv>/bin/python repro/agent_framework/post_limit_call_orphaned.py
    Exit status 1: the defect is present. Exit status 0: no call reaches the caller without its result.
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


def script() -> list[Message]:
    return [
        Message("assistant", [Content.from_function_call("c1", "get_weather", arguments='{"city": "Paris"}')]),
        # Returned although the request said tool_choice="none", with no text: a provider fault.
        Message("assistant", [Content.from_function_call("c2", "get_weather", arguments='{"city": "Rome"}')]),
    ]


def orphans(contents: list[Any]) -> list[str]:
    """Call ids of function calls with no function_result among the same contents."""
    results = {c.call_id for c in contents if c.type == "function_result"}
    return [str(c.call_id) for c in contents if c.type == "function_call" and c.call_id not in results]


def kinds(contents: list[Any]) -> list[str]:
    return [f"{c.type} {c.call_id}" if c.call_id else c.type for c in contents]


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    messages = [Message("user", ["Weather in Paris, then Rome?"])]
    options: Any = {"tools": [get_weather]}

    client = ScriptedClient(script(), function_invocation_configuration={"max_function_calls": 1})
    response_stream = client.get_response(messages, stream=True, options=options)
    streamed = [content async for update in response_stream for content in update.contents]
    final = await response_stream.get_final_response()
    final_contents = [c for m in final.messages for c in m.contents]
    print(f"  streaming: updates {kinds(streamed)}")
    print(f"  streaming: final response {[(str(m.role), kinds(m.contents)) for m in final.messages]}")
    print(f"  streaming: executions {executions}; model calls with tool_choice {client.tool_choices}")

    executions.clear()
    client = ScriptedClient(script(), function_invocation_configuration={"max_function_calls": 1})
    response = await client.get_response(messages, options=options)
    print(f"  non-streaming: response {[(str(m.role), kinds(m.contents)) for m in response.messages]}")

    stream_orphans, final_orphans = orphans(streamed), orphans(final_contents)
    if not stream_orphans and not final_orphans:
        print("FIXED: no call reached the caller without its result")
        return 0
    print(f"DEFECT: call(s) {sorted(set(stream_orphans + final_orphans))} streamed to the caller but never "
          f"executed and never given a result (streamed updates: {stream_orphans}, final response: {final_orphans})")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
