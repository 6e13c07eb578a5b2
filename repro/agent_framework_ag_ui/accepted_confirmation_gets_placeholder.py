"""AG-UI endpoint: an accepted `confirm_changes` answer is replaced by a placeholder, not its call's real result.

Spec row "AG-UI `confirm_changes` snapshot" (an accepted synthetic confirmation is replaced only when its original
function call has a real result; rejection is cleaned explicitly, and missing accepted results remain inert).

A model calls `apply_changes` (c1), which runs and returns "applied"; the client keeps the thread from the snapshot.
The UI then sends its synthetic confirmation of c1, a `confirm_changes` call whose arguments name c1
(`function_call_id`), answered `{"accepted": true}`, followed by a user message. The original call has a real
result in the thread, so the answer in the run's snapshot must become that result. Instead it becomes the
endpoint's placeholder for a call the assistant went past ("Tool execution skipped - ..."): a synthetic result the
client then replays as history. (A rejected answer, sent the same way, is cleaned to "Changes declined.", and an
accepted answer for a call without a result stays as written: both as the row says.)

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.7.0'
    python repro/agent_framework_ag_ui/accepted_confirmation_gets_placeholder.py; echo "exit $?"

Exits 1 while the defect is present, 0 once the accepted answer is replaced by the call's real result.
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
            {"id": "ui-confirm", "role": "assistant", "toolCalls": [
                {"id": "confirm-1", "type": "function",
                 "function": {"name": "confirm_changes", "arguments": json.dumps({"function_call_id": "c1"})}}]},
            {"id": "ui-answer", "role": "tool", "toolCallId": "confirm-1",
             "content": json.dumps({"accepted": True, "steps": []})},
            {"id": "u2", "role": "user", "content": "Thanks"},
        ]
        second = await run(http, "r2", [*thread, *confirmation])
    real = next(m["content"] for m in thread if m.get("role") == "tool" and m.get("toolCallId") == "c1")
    snapshot = next(e for e in second if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
    answer = next(m["content"] for m in snapshot if m.get("id") == "ui-answer")
    print(f"c1's real result: {real!r}; the accepted confirmation's answer in the snapshot: {answer!r}")
    if answer != real:
        print("DEFECT: the accepted confirmation of a call with a real result is not replaced by that result")
        return 1
    print("fixed: the accepted confirmation is replaced by its call's real result")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
