"""An approval-required call returned despite tool_choice="none" after max_function_calls asks the caller to approve.

What it shows
    `max_function_calls` is 1. The model calls `search` (the one allowed call), which runs. The loop then asks for
    a final answer with `tool_choice="none"`, but the provider ignores that and answers with narration text plus a
    call of `delete_file`, a tool that requires approval. The call can never run in this turn: the budget is spent
    and tools are off. On affected releases the loop nevertheless hands that call to its normal call processing,
    which pauses the turn: the caller receives call c2 and a local function_approval_request for it, in both
    response modes, instead of the narration alone. A caller that approves is invited to authorise a call the
    loop was told not to make. (The non-streaming response of that pause also lacks the executed search round —
    the separate defect of approval_pause_drops_earlier_rounds.py.)

Spec row violated (spec 004, Errors, control flow, and limits)
    "Provider tool content after an active limit | Locally actionable calls and local approval requests returned
    despite `tool_choice="none"` are removed in both response modes. [...] fallback text never replaces retained
    transcript content."

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1, both response modes; fixed in 1.13.0, which removes the call, keeps the
    narration and asks for nothing.

Run
    <venv>/bin/python repro/agent_framework/post_limit_approval_request_surfaced.py
    Exit status 1: the defect is present. Exit status 0: the caller is asked nothing and receives no call c2.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from typing import Any

from agent_framework import (
    AgentSession,
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
    executions.append(f"search {query}")
    return "a result"


@tool(name="delete_file", approval_mode="always_require")
def delete_file(path: str) -> str:
    executions.append(f"delete_file {path}")
    return "deleted"


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
        # Returned although the request said tool_choice="none": a provider fault.
        Message("assistant", [
            Content.from_text("Cleaning up next."),
            Content.from_function_call("c2", "delete_file", arguments='{"path": "/tmp/x"}'),
        ]),
    ]


def kinds(contents: list[Any]) -> list[str]:
    return [f"{c.type} {c.call_id}" if c.call_id else c.type for c in contents]


def unexecutable(contents: list[Any]) -> list[str]:
    """The post-limit call c2 and any local approval request the caller was handed."""
    return [f"{c.type} {c.call_id}" if c.call_id else c.type for c in contents
            if c.type == "function_approval_request" or (c.type == "function_call" and c.call_id == "c2")]


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    messages = [Message("user", ["Search, then clean up"])]
    options: Any = {"tools": [search, delete_file]}
    found: dict[str, list[str]] = {}

    client = ScriptedClient(script(), function_invocation_configuration={"max_function_calls": 1})
    response = await client.get_response(messages, options=options, client_kwargs={"session": AgentSession()})
    contents = [c for m in response.messages for c in m.contents]
    found["non-streaming response"] = unexecutable(contents)
    print(f"  non-streaming: response {[(str(m.role), kinds(m.contents)) for m in response.messages]}")
    print(f"  non-streaming: executions {executions}; model calls with tool_choice {client.tool_choices}")

    executions.clear()
    client = ScriptedClient(script(), function_invocation_configuration={"max_function_calls": 1})
    response_stream = client.get_response(messages, stream=True, options=options,
                                          client_kwargs={"session": AgentSession()})
    streamed = [content async for update in response_stream for content in update.contents]
    final = await response_stream.get_final_response()
    found["streamed updates"] = unexecutable(streamed)
    found["streaming final response"] = unexecutable([c for m in final.messages for c in m.contents])
    print(f"  streaming: updates {kinds(streamed)}")
    print(f"  streaming: final response {[(str(m.role), kinds(m.contents)) for m in final.messages]}")
    print(f"  streaming: executions {executions}; model calls with tool_choice {client.tool_choices}")

    defective = {where: items for where, items in found.items() if items}
    if not defective:
        print("FIXED: the call returned after the limit was removed and the caller was asked nothing")
        return 0
    print(f"DEFECT: after max_function_calls the loop surfaced the unexecutable call c2 and asked the caller to "
          f"approve it: {defective}")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
