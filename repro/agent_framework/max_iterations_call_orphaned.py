"""A call returned despite tool_choice="none" after max_iterations reaches the caller and never gets a result.

What it shows
    `max_iterations` is 1. The model calls `search` (query "one"), which runs. The iteration budget is then spent,
    so the loop makes its final model call with `tool_choice="none"`; the provider ignores that and answers with
    only another call (c2, query "two") and no text. The loop rightly does not execute c2, but on affected releases
    it does not remove it either:
    - 1.10.0 returns the final answer as it came, in both response modes: the turn ends on call c2 with no result
      and no visible text;
    - 1.11.0 ... 1.12.1 fix the non-streaming response (the unanswered call is replaced by the limit's fallback
      text), but the streaming loop yields the provider's updates to the caller as they arrive and only then adds
      the fallback text, so the streamed updates and get_final_response() still hold call c2 without a result —
      the streaming and non-streaming responses disagree.
    This is the iteration-limit twin of post_limit_call_orphaned.py (the same orphan at the function-call limit).

Spec rows violated (spec 004, Errors, control flow, and limits)
    "Maximum iterations | No orphan calls; a final no-tool response or deterministic fallback is returned."
    "Provider tool content after an active limit | Locally actionable calls and local approval requests returned
    despite `tool_choice="none"` are removed in both response modes."
    Normative contract: "Every actionable local `function_call` produces exactly one terminal `function_result`,
    unless execution pauses for a new user-input request."

Affected releases
    agent-framework-core 1.10.0 (both response modes) and 1.11.0 ... 1.12.1 (streaming); fixed in 1.13.0, which
    drops the call before anything is streamed.

Run
    <venv>/bin/python repro/agent_framework/max_iterations_call_orphaned.py
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


def script() -> list[Message]:
    return [
        Message("assistant", [Content.from_function_call("c1", "search", arguments='{"query": "one"}')]),
        # Returned although the final request said tool_choice="none", with no text: a provider fault.
        Message("assistant", [Content.from_function_call("c2", "search", arguments='{"query": "two"}')]),
    ]


def orphans(contents: list[Any]) -> list[str]:
    """Call ids of function calls with no function_result among the same contents."""
    results = {c.call_id for c in contents if c.type == "function_result"}
    return [str(c.call_id) for c in contents if c.type == "function_call" and c.call_id not in results]


def kinds(contents: list[Any]) -> list[str]:
    return [f"{c.type} {c.call_id}" if c.call_id else c.type for c in contents]


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    messages = [Message("user", ["Research this"])]
    options: Any = {"tools": [search]}
    found: dict[str, list[str]] = {}

    client = ScriptedClient(script(), function_invocation_configuration={"max_iterations": 1})
    response = await client.get_response(messages, options=options)
    contents = [c for m in response.messages for c in m.contents]
    found["non-streaming response"] = orphans(contents)
    print(f"  non-streaming: response {[(str(m.role), kinds(m.contents)) for m in response.messages]}")
    print(f"  non-streaming: executions {executions}; model calls with tool_choice {client.tool_choices}")

    executions.clear()
    client = ScriptedClient(script(), function_invocation_configuration={"max_iterations": 1})
    response_stream = client.get_response(messages, stream=True, options=options)
    streamed = [content async for update in response_stream for content in update.contents]
    final = await response_stream.get_final_response()
    found["streamed updates"] = orphans(streamed)
    found["streaming final response"] = orphans([c for m in final.messages for c in m.contents])
    print(f"  streaming: updates {kinds(streamed)}")
    print(f"  streaming: final response {[(str(m.role), kinds(m.contents)) for m in final.messages]}")
    print(f"  streaming: executions {executions}; model calls with tool_choice {client.tool_choices}")

    defective = {where: ids for where, ids in found.items() if ids}
    if not defective:
        print("FIXED: no call reached the caller without its result")
        return 0
    print(f"DEFECT: the call the provider returned after max_iterations was neither executed nor removed; the "
          f"caller holds it without a result in: {defective}")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
