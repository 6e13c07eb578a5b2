"""A blank final answer after max_iterations or max_function_calls is returned as it is: the caller sees nothing.

What it shows
    Two limits, one call each. With `max_iterations` 1, and then with `max_function_calls` 1, the model calls
    `search` (which runs) and the loop makes its final model call with `tool_choice="none"`. The model answers that
    final call with a blank message: an empty text for the iteration limit, two spaces for the call limit. On
    affected releases the loop returns that blank message as the end of the turn, in both response modes: after
    the call and its result the caller gets no visible text at all, nothing that says the turn was cut short by a
    limit.

Spec rows violated (spec 004, Errors, control flow, and limits)
    "Maximum iterations | No orphan calls; a final no-tool response or deterministic fallback is returned."
    (regression test `test_max_iterations_blank_final_fallback_synthesizes_message`)
    "Maximum function calls | [...] blank final responses get fallback content." (regression test
    `test_max_function_calls_blank_final_fallback_synthesizes_message`)

Affected releases
    agent-framework-core 1.10.0, both response modes; fixed in 1.11.0, which adds a fallback text when the final
    answer after a limit has nothing visible.

Run
    <venv>/bin/python repro/agent_framework/limit_blank_final_no_fallback.py
    Exit status 1: the defect is present. Exit status 0: every blank final answer is followed by visible text.
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


@tool(name="search", approval_mode="never_require")
def search(query: str) -> str:
    executions.append(query)
    return "a result"


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


def script(blank: str) -> list[Message]:
    return [
        Message("assistant", [Content.from_function_call("c1", "search", arguments='{"query": "one"}')]),
        Message("assistant", [Content.from_text(blank)]),  # the final no-tool answer has nothing to show
    ]


def kinds(messages: Any) -> list[tuple[str, list[str]]]:
    return [(str(m.role), [repr(c.text) if c.type == "text" else f"{c.type} {c.call_id}" for c in m.contents])
            for m in messages]


def visible_text_after_result(messages: Any) -> str:
    """The text the caller gets after the last function_result of the turn."""
    contents = [c for m in messages for c in m.contents]
    last_result = max((i for i, c in enumerate(contents) if c.type == "function_result"), default=-1)
    return "".join(c.text or "" for c in contents[last_result + 1:] if c.type == "text")


async def run(limit: str, blank: str, stream: bool) -> bool:
    label = f"{limit}=1, final answer {blank!r}, {'streaming' if stream else 'non-streaming'}"
    executions.clear()
    client = ScriptedClient(script(blank), function_invocation_configuration={limit: 1})
    messages = [Message("user", ["Research this"])]
    options: Any = {"tools": [search]}
    if stream:
        response_stream = client.get_response(messages, stream=True, options=options)
        async for _ in response_stream:
            pass
        response = await response_stream.get_final_response()
    else:
        response = await client.get_response(messages, options=options)
    text = visible_text_after_result(response.messages)
    print(f"  {label}: response {kinds(response.messages)}; model calls with tool_choice {client.tool_choices}")
    return bool(text.strip()) and executions == ["one"]


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(limit, blank, stream)
               for limit, blank in (("max_iterations", ""), ("max_function_calls", "  "))
               for stream in (False, True)]
    if all(results):
        print("FIXED: a blank final answer after a limit is followed by visible fallback text")
        return 0
    print("DEFECT: the turn ends on the model's blank final answer; the caller gets no visible text after the limit")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
