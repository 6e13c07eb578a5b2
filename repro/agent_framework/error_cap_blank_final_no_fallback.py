"""A blank final answer after the consecutive-error cap is returned as it is: the caller sees only the error.

What it shows
    `max_consecutive_errors_per_request` 1. The model calls `fetch_page`, whose tool raises; the error result
    reaches the cap, and the loop makes its one final model call with `tool_choice="none"`. The model answers that
    final call with an empty text. On affected releases the loop ends the turn on that blank message, in both
    response modes: after the failed call and its error result the caller gets no visible text at all. The same
    loop adds its fallback text after a blank final answer at max_iterations and max_function_calls (since 1.11.0,
    see limit_blank_final_no_fallback.py); the error cap's exit is left out until 1.18.0.

Spec rows violated (spec 004, Errors, control flow, and limits)
    "Consecutive error cap | Error threshold stops repeated failures, submits collected results, and makes only the
    required final no-tool model call." That call is the loop's one limit exit, drawn in the spec's flow as "Final
    model call with tool_choice = none and deterministic fallback if needed"; rows "Maximum iterations" and
    "Maximum function calls" spell out the fallback for a blank answer on the same exit.

Affected releases
    agent-framework-core 1.10.0 ... 1.17.0, both response modes; fixed in 1.18.0, which adds "Function invocation
    limit reached before a final answer could be produced." after the blank answer.

Run
    <venv>/bin/python repro/agent_framework/error_cap_blank_final_no_fallback.py
    Exit status 1: the defect is present. Exit status 0: the blank final answer is followed by visible text.
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
        Message("assistant", [Content.from_text("")]),  # the final no-tool answer has nothing to show
    ]


def kinds(messages: Any) -> list[tuple[str, list[str]]]:
    return [(str(m.role), [repr(c.text) if c.type == "text" else f"{c.type} {c.call_id}" for c in m.contents])
            for m in messages]


def visible_text_after_result(messages: Any) -> str:
    """The text the caller gets after the last function_result of the turn."""
    contents = [c for m in messages for c in m.contents]
    last_result = max((i for i, c in enumerate(contents) if c.type == "function_result"), default=-1)
    return "".join(c.text or "" for c in contents[last_result + 1:] if c.type == "text")


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
    text = visible_text_after_result(response.messages)
    print(f"  {'streaming' if stream else 'non-streaming'}: response {kinds(response.messages)}; "
          f"model calls with tool_choice {client.tool_choices}")
    # Only a run that did reach the cap's final no-tool call says anything about its fallback.
    reached_cap = executions == ["https://status.example"] and client.tool_choices[-1:] == ["none"]
    if not reached_cap:
        print("  (the run did not end at the error cap's final call: this release behaves otherwise)")
    return not reached_cap or bool(text.strip())


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: a blank final answer after the error cap is followed by visible fallback text")
        return 0
    print("DEFECT: the turn ends on the model's blank final answer after the error cap; the caller sees only the "
          "error result")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
