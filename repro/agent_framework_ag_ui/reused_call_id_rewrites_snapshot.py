"""AG-UI endpoint: a call id the model reuses in a later round rewrites the completed round in the snapshot.

Spec rows "Reused id after completion" (a provider may reuse a call id after its earlier call completed; the
occurrences stay distinct) and "AG-UI approval result event" (results persist in the snapshot); the spec's AG-UI
provider boundary tests pair reused call ids by occurrence.

In one run the model calls `list_files` as `c1`, gets its result, then calls the approval-required `delete_files`,
reusing the id `c1`. The endpoint pauses for approval correctly, but its messages snapshot rewrites the first round:
the first assistant message's `c1` now names `delete_files` with the second call's arguments, and the first
round's result appears twice, the second time as if it answered the paused call. A client that keeps its thread
from snapshots sends that history back, and the model sees a call it never made.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.7.0'
    python repro/agent_framework_ag_ui/reused_call_id_rewrites_snapshot.py; echo "exit $?"

Exits 1 while the defect is present, 0 once the snapshot keeps both rounds as the model made them.
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
SCRIPT: list[list[Content]] = [
    [Content.from_function_call("c1", "list_files", arguments='{"path": "/tmp"}')],
    [Content.from_function_call("c1", "delete_files", arguments='{"pattern": "/tmp/*.log"}')],
]


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Replays a fixed script of responses; records every conversation it is sent."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        contents = SCRIPT[len(SEEN) - 1]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(SEEN)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


async def run(http: httpx.AsyncClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = await http.post("/", json=body)
    return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]


async def list_files(path: str) -> str:
    return "a.log, b.log"


async def delete_files(pattern: str) -> str:
    return "2 files deleted"


async def main() -> int:
    tools = [FunctionTool(name="list_files", description="List files", func=list_files),
             FunctionTool(name="delete_files", description="Delete files", func=delete_files,
                          approval_mode="always_require")]
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), tools=tools), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        events = await run(http, {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": [{"id": "u1", "role": "user", "content": "Clean up the logs"}]})
    snapshot = next(e for e in events if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
    rounds = [(call["function"]["name"], call["function"]["arguments"]) for m in snapshot
              for call in m.get("toolCalls") or [] if call["function"]["name"] != "confirm_changes"]
    results = [m["content"] for m in snapshot if m.get("role") == "tool"]
    print("calls in the snapshot:", rounds)
    print("tool results in the snapshot:", results)
    made = [("list_files", '{"path": "/tmp"}'), ("delete_files", '{"pattern": "/tmp/*.log"}')]
    if rounds != made or results != ["a.log, b.log"]:
        print("DEFECT: the snapshot does not hold the two rounds as the model made them")
        return 1
    print("fixed: the snapshot keeps both rounds")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
