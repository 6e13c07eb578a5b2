"""A call paused beside the model's text is answered "skipped" when the client sends the snapshot back.

What it shows
    The agent behind the AG-UI endpoint has one approval-required tool, book_room. The model answers with text and a
    call to book_room in one assistant message; the run pauses for approval. The messages snapshot splits that
    message in two, the call first and the text after it (snapshot_regroups_messages.py). The client resumes with
    the call approved, sending the snapshot back as AG-UI clients do. Finding an assistant message (the text) after
    a call that has no result yet, the endpoint answers the call itself with the synthetic result "Tool execution
    skipped - assistant continued before the tool result was available."; the approved call then runs and its real
    result follows the text. The chat client is sent two results for one call, the second with no open call before
    it (an orphan, which a real provider refuses).

Spec rows violated (spec 004)
    "Approved non-streaming resume"/"Approved streaming resume" (the approved result follows its call) with the
    contract "Every actionable local function_call produces exactly one terminal function_result", and "Duplicate
    function-call prevention".

Affected releases
    agent-framework-ag-ui 1.0.0rc7 (core 1.10.0). Later releases regroup the snapshot too (to 1.7.0) but send the
    model one result for the call.

Run
    <venv with agent-framework-ag-ui>/bin/python repro/agent_framework_ag_ui/regrouped_call_answered_skipped.py
    Exit status 1: the defect is present. Exit status 0: the model is sent one result for the call, "booked".
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
    """Answers with text and a call, then with text; records every conversation it is sent."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        if len(SEEN) == 1:
            contents = [Content.from_text("I'll book it once you confirm."),
                        Content.from_function_call("c1", "book_room", arguments='{"room": "4"}')]
        else:
            contents = [Content.from_text("Room 4 is booked.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(SEEN)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


RAN: list[str] = []


async def book_room(room: str) -> str:
    RAN.append(room)
    return "booked"



def interrupts_of(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The interrupts the run finished with, each with its id and toolCallId. 1.0.0rc7 predates the protocol's
    interrupt outcome: it lists them in an `interrupt` field of RUN_FINISHED, naming the call in each value."""
    finished = next(e for e in events if e["type"] == "RUN_FINISHED")
    if "outcome" in finished or "interrupt" not in finished:
        return (finished.get("outcome") or {}).get("interrupts") or []
    return [{"id": i["id"], "toolCallId": i["value"]["function_call"]["call_id"], "legacy": True}
            for i in finished["interrupt"]]


def resume_of(decisions: list[tuple[dict[str, Any], bool]]) -> Any:
    """The resume answering each interrupt; 1.0.0rc7 reads a decision only in its own form, its confirmation
    dialog's answer ({"accepted": ...}) as the interrupt's value."""
    if any(interrupt.get("legacy") for interrupt, _ in decisions):
        return {"interrupts": [{"id": i["id"], "value": {"accepted": approved}} for i, approved in decisions]}
    return [{"interruptId": i["id"], "status": "resolved", "payload": {"approved": approved}}
            for i, approved in decisions]

async def run(http: httpx.AsyncClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = await http.post("/", json=body)
    return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]


async def main() -> int:
    tool = FunctionTool(name="book_room", description="Book a room", func=book_room,
                        approval_mode="always_require")
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        first = await run(http, {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
                                 "messages": [{"id": "u1", "role": "user", "content": "Book room 4"}]})
        snapshot = next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
        print("the snapshot's assistant messages:",
              [[c["id"] for c in m.get("toolCalls") or []] or m.get("content") for m in snapshot
               if m["role"] == "assistant"])
        resume = resume_of([(i, True) for i in interrupts_of(first)])
        await run(http, {"threadId": "t", "runId": "r2", "tools": [], "context": [], "forwardedProps": {},
                         "messages": snapshot, "resume": resume})
    got = [c.result for m in (SEEN[1] if len(SEEN) > 1 else []) for c in m.contents
           if c.type == "function_result" and c.call_id == "c1"]
    print("tool runs:", RAN, "- results for c1 the model received on the resume:", got)
    if got != ["booked"]:
        print("DEFECT: the model is sent another result for the approved call than its one real result")
        return 1
    print("fixed: the model is sent the approved call's one result")
    return 0

if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
