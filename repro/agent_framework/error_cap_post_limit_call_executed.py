"""After the consecutive-error cap, a call returned despite tool_choice "none" runs and the model is asked again.

What it shows
    `max_consecutive_errors_per_request` 1. The model calls `fetch_page`, whose tool raises; the error result
    reaches the cap, and the loop makes its final model call with `tool_choice="none"`. The provider ignores that
    and answers with another `fetch_page` call and no text. On affected releases the loop runs that call (a second
    side effect, past the cap) and makes a third model call, in both response modes. After `max_function_calls`
    the same loop drops such a call (since 1.13.0, see post_limit_call_executed.py); the error cap's exit is left
    out until 1.18.0.

Spec rows violated (spec 004, Errors, control flow, and limits)
    "Provider tool content after an active limit | Locally actionable calls and local approval requests returned
    despite `tool_choice="none"` are removed in both response modes."
    "Consecutive error cap | Error threshold stops repeated failures, submits collected results, and makes only the
    required final no-tool model call."

Affected releases
    agent-framework-core 1.10.0 ... 1.17.0, both response modes; fixed in 1.18.0, which drops the call and ends
    the turn with its fallback text.

Run
    <venv>/bin/python repro/agent_framework/error_cap_post_limit_call_executed.py
    Exit status 1: the defect is present. Exit status 0: the call after the cap neither ran nor led to another
    model call.
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


@tool(name="fetch_page", approval_mode="never_require")
def fetch_page(url: str) -> str:
    executions.append(url)
    raise RuntimeError("connection reset")


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
        Message("assistant", [Content.from_function_call("c1", "fetch_page",
                                                         arguments='{"url": "https://status.example"}')]),
        # The provider ignores tool_choice "none" on the final call and asks for the tool again.
        Message("assistant", [Content.from_function_call("c2", "fetch_page",
                                                         arguments='{"url": "https://status.example/retry"}')]),
    ]


def kinds(messages: Any) -> list[tuple[str, list[str]]]:
    return [(str(m.role), [repr(c.text) if c.type == "text" else f"{c.type} {c.call_id}" for c in m.contents])
            for m in messages]



async def run(stream: bool) -> bool:
    executions.clear()
    client = ScriptedClient(script(), function_invocation_configuration={"max_consecutive_errors_per_request": 1})
    messages = [Message("user", ["Fetch the status page"])]
    options: Any = {"tools": [fetch_page]}
    if stream:
        response_stream = client.get_response(messages, stream=True, options=options)
        async for _ in response_stream:
            pass
        response = await response_stream.get_final_response()
    else:
        response = await client.get_response(messages, options=options)
    print(f"  {'streaming' if stream else 'non-streaming'}: response {kinds(response.messages)}; tool ran for "
          f"{executions}; model calls with tool_choice {client.tool_choices}")
    return executions == ["https://status.example"] and len(client.tool_choices) == 2


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: the call returned after the error cap neither ran nor led to another model call")
        return 0
    print("DEFECT: after the error cap the loop ran the call the provider returned despite tool_choice none and "
          "called the model again")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
