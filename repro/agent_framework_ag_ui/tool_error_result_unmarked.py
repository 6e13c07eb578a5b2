"""AG-UI endpoint: a tool that fails is reported as a plain result, without the protocol's error marker.

Spec rows "Approved tool exception" and "Unknown call handling" (a failed execution becomes one error result for
the call). AG-UI's tool message has an `error` field for exactly this; the endpoint leaves it empty.

A model asks for a tool that raises. The loop answers the call with an error result (the framework's
`function_result` carries an exception), but over AG-UI the TOOL_CALL_RESULT event and the snapshot's tool
message carry only text ("Error: Function failed."), the same as a tool that returned that text: a UI, and any
client that rebuilds the conversation from the snapshot, cannot tell the failure from a result.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.7.0'
    python repro/agent_framework_ag_ui/tool_error_result_unmarked.py; echo "exit $?"

Exits 1 while the defect is present, 0 once the snapshot's tool message for the failed call carries `error`.
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
            contents = [Content.from_function_call("c1", "delete_file", arguments='{"path": "/tmp/a.txt"}')]
        else:
            contents = [Content.from_text("Done.")]

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


async def delete_file(path: str) -> str:
    raise PermissionError("read-only file system")


async def main() -> int:
    tool = FunctionTool(name="delete_file", description="Delete a file", func=delete_file)
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        events = await run(http, {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": [{"id": "u1", "role": "user", "content": "Delete the file"}]})
    sent = [c for m in SEEN[-1] for c in m.contents if c.type == "function_result"]
    print("the chat client got an error result:", [(c.call_id, c.exception is not None) for c in sent])
    print("TOOL_CALL_RESULT events:", [e for e in events if e["type"] == "TOOL_CALL_RESULT"])
    snapshot = next(e for e in events if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
    tool_messages = [m for m in snapshot if m.get("role") == "tool"]
    print("snapshot tool messages:", tool_messages)
    if not tool_messages or any(not m.get("error") for m in tool_messages):
        print("DEFECT: the failed call's tool message carries no error marker")
        return 1
    print("fixed: the failed call's tool message is marked as an error")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
