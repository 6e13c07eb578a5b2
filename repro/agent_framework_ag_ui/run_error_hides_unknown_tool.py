"""AG-UI endpoint: a loop error reaches the client only as a generic message, without what failed.

Spec row "Unknown call handling" (with `terminate_on_unknown_calls`, an unknown call ends the loop with an error
that names the tool). The endpoint reports every exception of a run as RUN_ERROR "An internal error has occurred
while streaming events.", so the client cannot tell an unknown tool from any other failure; the framework's own
error names it.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.7.0'
    python repro/agent_framework_ag_ui/run_error_hides_unknown_tool.py; echo "exit $?"

Exits 1 while the RUN_ERROR message does not name the unknown tool, 0 once it does.
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
SCRIPT: list[list[Content]] = [[Content.from_function_call("c1", "get_news", arguments="{}")]]


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


async def weather(city: str) -> str:
    return "sunny"


async def main() -> int:
    client = ScriptedClient(function_invocation_configuration={"terminate_on_unknown_calls": True})
    tool = FunctionTool(name="weather", description="Weather", func=weather)
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(client, tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        events = await run(http, {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": [{"id": "u1", "role": "user", "content": "News?"}]})
    errors = [e for e in events if e["type"] == "RUN_ERROR"]
    print("RUN_ERROR events:", errors)
    if not errors or "get_news" not in errors[0].get("message", ""):
        print("DEFECT: the client is not told which call ended the run")
        return 1
    print("fixed: the error names the unknown tool")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
