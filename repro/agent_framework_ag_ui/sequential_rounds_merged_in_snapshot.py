"""AG-UI endpoint: the snapshot folds the calls of a run's sequential model rounds into one assistant message.

Spec rows "Sequential rounds" (each round's call is followed by its result before the next model call) and "Calls
across messages" (the model's next call sees the history it made), with the event-level rule that the snapshot is
what the events fold to.

One run, no approvals: the model calls get_weather for Paris (c1); after its result it calls get_weather for London
(c2); after that result it answers. The run's events show this order (call c1, result c1, call c2, result c2, the
answer), but its MESSAGES_SNAPSHOT holds one assistant message with both calls, then both results, then the
answer: the second call appears before the first call's result, a history the model never produced. A client that
keeps its thread from snapshots (as AG-UI clients do) sends that history back on its next run. When the second round
reuses the id c1 (spec "Reused id after completion"), the snapshot holds one assistant message calling c1 twice,
followed by two results for c1.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.0.0'
    python repro/agent_framework_ag_ui/sequential_rounds_merged_in_snapshot.py; echo "exit $?"

Exits 1 while the defect is present, 0 once the snapshot keeps c1 and its result before c2.
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
    """Answers with a call, then another call (with id `second`), then text; records every conversation it is sent."""

    def __init__(self, second: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.second = second
        self.seen: list[list[Message]] = []

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        if len(self.seen) == 1:
            contents = [Content.from_function_call("c1", "get_weather", arguments='{"city": "Paris"}')]
        elif len(self.seen) == 2:
            contents = [Content.from_function_call(self.second, "get_weather", arguments='{"city": "London"}')]
        else:
            contents = [Content.from_text("Paris is sunny; London is rainy.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(self.seen)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


async def get_weather(city: str) -> str:
    return "sunny" if city == "Paris" else "rainy"


async def run(http: httpx.AsyncClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = await http.post("/", json=body)
    return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]


def shape(message: dict[str, Any]) -> str:
    if message["role"] == "tool":
        return f"result {message.get('toolCallId')}"
    calls = [c["id"] for c in message.get("toolCalls") or []]
    return f"{message['role']} " + (" ".join(f"call {c}" for c in calls) or repr(message.get("content")))


async def rounds(second: str) -> tuple[list[str], list[str]]:
    """One run of two rounds, the second call with id `second`: the streamed calls and results, and the snapshot."""
    tool = FunctionTool(name="get_weather", description="Weather of a city", func=get_weather)
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(second), tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        user = {"id": "u1", "role": "user", "content": "Weather in Paris, then London?"}
        events = await run(http, {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": [user]})
    streamed = [f"{e['type']} {e.get('toolCallId')}" for e in events
                if e["type"] in ("TOOL_CALL_START", "TOOL_CALL_RESULT")]
    return streamed, [shape(m) for m in next(e for e in events if e["type"] == "MESSAGES_SNAPSHOT")["messages"][1:]]


async def main() -> int:
    defects = []
    streamed, snapshot = await rounds("c2")
    print("(a) rounds c1, c2: streamed", streamed)
    print("    snapshot:", snapshot)
    if snapshot.index("result c1") > min(i for i, s in enumerate(snapshot) if "call c2" in s):
        defects.append("the snapshot puts the second round's call before the first round's result")
    # The model may reuse a call id once the earlier call completed (spec "Reused id after completion").
    streamed, snapshot = await rounds("c1")
    print("(b) rounds c1, c1 (id reused): streamed", streamed)
    print("    snapshot:", snapshot)
    if "call c1 call c1" in " | ".join(snapshot):
        defects.append("the snapshot folds both occurrences of the reused id into one assistant message")
    if defects:
        print("DEFECT:", "; ".join(defects))
        return 1
    print("fixed: the snapshot keeps each round in a message of its own, in the order the model made them")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
