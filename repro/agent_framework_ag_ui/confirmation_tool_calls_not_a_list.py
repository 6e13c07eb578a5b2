"""AG-UI endpoint: a confirmation message whose tool calls are not a list fails the run after the model answered.

Spec row "AG-UI malformed `confirm_changes` metadata" (non-list tool-call metadata and malformed argument JSON are
ignored without guessing a target call).

A model calls `apply_changes` (c1), which runs; the client keeps the thread from the snapshot. The UI then sends a
confirmation message whose `toolCalls` is a mapping instead of a list, an accepted answer to it, and a user
message. The endpoint takes the request, calls the model, and then ends the run with RUN_ERROR ("An internal error
has occurred while streaming events.", code ValidationError) instead of ignoring the malformed metadata: the model's
answer and the snapshot never reach the client. (Malformed `confirm_changes` argument JSON, sent the same way, is
ignored as the row says.)

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.7.0'
    python repro/agent_framework_ag_ui/confirmation_tool_calls_not_a_list.py; echo "exit $?"

Exits 1 while the defect is present, 0 once the run finishes with the malformed answer left as written.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    FunctionTool,
    Message,
)
from agent_framework_ag_ui import add_agent_framework_fastapi_endpoint
from fastapi import FastAPI

SEEN: list[list[Message]] = []  # what the chat client received, call by call


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers with one call, then with text; records every conversation it is sent."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        if len(SEEN) == 1:
            contents = [Content.from_function_call("c1", "apply_changes", arguments="{}")]
        else:
            contents = [Content.from_text("Done.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(SEEN)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


async def run(http: httpx.AsyncClient, run_id: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    body = {"threadId": "t", "runId": run_id, "tools": [], "context": [], "forwardedProps": {}, "messages": messages}
    response = await http.post("/", json=body)
    return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]


def apply_changes() -> str:
    return "applied"


async def main() -> int:
    app = FastAPI()
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    agent = Agent(ScriptedClient(), tools=[FunctionTool(name="apply_changes", description="Apply the changes",
                                                         func=apply_changes)])
    add_agent_framework_fastapi_endpoint(app, agent, "/", **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        first = await run(http, "r1", [{"id": "u1", "role": "user", "content": "Apply the changes"}])
        thread = next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
        confirmation = [
            {"id": "ui-confirm", "role": "assistant", "toolCalls": {"id": "confirm-1"}},
            {"id": "ui-answer", "role": "tool", "toolCallId": "confirm-1",
             "content": json.dumps({"accepted": True, "steps": []})},
            {"id": "u2", "role": "user", "content": "Thanks"},
        ]
        second = await run(http, "r2", [*thread, *confirmation])
    print("events of the run:", [e["type"] for e in second], "model calls:", len(SEEN))
    errors = [e for e in second if e["type"] == "RUN_ERROR"]
    if errors:
        print("DEFECT: the malformed confirmation metadata fails the run:", errors[0])
        return 1
    snapshot = next((e for e in second if e["type"] == "MESSAGES_SNAPSHOT"), {"messages": []})["messages"]
    answer = next((m.get("content") for m in snapshot if m.get("id") == "ui-answer"), None)
    print(f"fixed: the run finishes; the malformed confirmation's answer in the snapshot: {answer!r}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
