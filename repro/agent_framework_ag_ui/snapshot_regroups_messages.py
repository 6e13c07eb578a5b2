"""AG-UI endpoint: the snapshot regroups the model's contents into other messages, and the model is sent them so.

Spec rows "Calls across messages" (calls in several messages of one response each keep their place) and "Approved
non-streaming resume" (the model sees the history it made, with the results added). A model response's messages
are what the next model call must see again.

One model response holds text and a call in one assistant message; another holds two assistant messages, one call
each. In the endpoint's messages snapshot the first becomes two assistant messages (the text, then the call) and
the second one message holding both calls. A client that keeps its thread from snapshots sends them back, and the
model's next call receives the regrouped history, not the one it produced.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.7.0'
    python repro/agent_framework_ag_ui/snapshot_regroups_messages.py; echo "exit $?"

Exits 1 while the defect is present, 0 once the snapshot keeps the model's messages as they were.
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
SCRIPT: list[list[Message]] = [
    [Message("assistant", [Content.from_text("Checking."),
                           Content.from_function_call("c1", "weather", arguments='{"city": "Paris"}')])],
    [Message("assistant", [Content.from_function_call("c2", "weather", arguments='{"city": "Rome"}')]),
     Message("assistant", [Content.from_function_call("c3", "weather", arguments='{"city": "Oslo"}')])],
    [Message("assistant", [Content.from_text("Done.")])],
]


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Replays a fixed script of responses (non-streaming); records every conversation it is sent."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        response = SCRIPT[len(SEEN) - 1]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            for index, message in enumerate(response):
                yield ChatResponseUpdate(role="assistant", contents=message.contents,
                                         message_id=f"m{len(SEEN)}-{index}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=response)

        return complete()


async def run(http: httpx.AsyncClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = await http.post("/", json=body)
    return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]


async def weather(city: str) -> str:
    return "sunny"


def shape(messages: list[dict[str, Any]]) -> list[list[str]]:
    return [([m["content"]] if m.get("content") else []) + [c["id"] for c in m.get("toolCalls") or []]
            for m in messages if m.get("role") == "assistant"]


async def main() -> int:
    app = FastAPI()
    tool = FunctionTool(name="weather", description="Weather", func=weather)
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        events = await run(http, {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": [{"id": "u1", "role": "user", "content": "Weather?"}]})
    snapshot = next(e for e in events if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
    made = [["Checking.", "c1"], ["c2"], ["c3"], ["Done."]]
    print("assistant messages the model made:  ", made)
    print("assistant messages of the snapshot: ", shape(snapshot))
    if shape(snapshot) != made:
        print("DEFECT: the snapshot regroups the model's messages")
        return 1
    print("fixed: the snapshot keeps the model's messages")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
