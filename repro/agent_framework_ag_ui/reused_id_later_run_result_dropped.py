"""AG-UI endpoint: a call id the model reuses on a later run loses that run's result in the snapshot.

Spec rows "Reused id after completion" (a provider may reuse a call id once its earlier call completed; the
occurrences stay distinct, each with its own result) and "Result matching without placeholders" (every call the
model is sent has its result), with the event-level rule that the snapshot is what the events fold to.

Three runs on one thread, no approvals; the client keeps its thread from the endpoint's MESSAGES_SNAPSHOT, as AG-UI
clients do, and sends it back with each new user message. On the first run the model calls get_weather as `c1`,
gets its result and answers. On the second it calls get_weather again, reusing the id `c1` (the first call has
completed), gets its result and answers. The second run's snapshot keeps the second `c1` call but not its result,
so on the third run the chat client is sent a `c1` call with no result after it (a request the OpenAI APIs refuse).

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.7.0'
    python repro/agent_framework_ag_ui/reused_id_later_run_result_dropped.py; echo "exit $?"

Exits 1 while the defect is present, 0 once every `c1` call the third run sends the chat client has its result.
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


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """On each run: a call with the id c1 unless the last message is a tool result, then an answer; records every
    conversation it is sent."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seen: list[list[Message]] = []

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        if messages[-1].role == "user":
            contents = [Content.from_function_call("c1", "get_weather", arguments='{"city": "Paris"}')]
        else:
            contents = [Content.from_text("It is sunny.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(self.seen)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


async def get_weather(city: str) -> str:
    return "sunny"


async def run(http: httpx.AsyncClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = await http.post("/", json=body)
    return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]


def shape(message: Message) -> str:
    parts = [f"call {c.call_id}" if c.type == "function_call" else f"result {c.call_id}"
             if c.type == "function_result" else repr(c.text) for c in message.contents]
    return f"{message.role}: " + ", ".join(parts)


async def main() -> int:
    client = ScriptedClient()
    tool = FunctionTool(name="get_weather", description="Weather of a city", func=get_weather)
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(client, tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    thread: list[dict[str, Any]] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        for number in (1, 2, 3):
            thread.append({"id": f"u{number}", "role": "user", "content": f"Weather in Paris? ({number})"})
            events = await run(http, {"threadId": "t", "runId": f"r{number}", "tools": [], "context": [],
                                      "forwardedProps": {}, "messages": thread})
            snapshots = [e for e in events if e["type"] == "MESSAGES_SNAPSHOT"]
            if snapshots:
                thread = list(snapshots[-1]["messages"])
    third = [m for m in client.seen if sum(1 for x in m if x.role == "user") == 3]
    if not third:
        print("the third run made no model call")
        return 1
    print("the third run's model call was sent:")
    for message in third[0]:
        print("  ", shape(message))
    contents = [c for m in third[0] for c in m.contents]
    calls = sum(1 for c in contents if c.type == "function_call" and c.call_id == "c1")
    results = sum(1 for c in contents if c.type == "function_result" and c.call_id == "c1")
    if calls != 2 or results != 2:
        print(f"DEFECT: the model made two c1 calls and got two results; it is sent {calls} call(s) and "
              f"{results} result(s) for c1")
        return 1
    print("fixed: both c1 calls reach the model with their results")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
