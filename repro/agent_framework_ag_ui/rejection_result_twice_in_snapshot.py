"""A batch mixing a safe call with a gated one that the caller rejects: the snapshot holds the rejection twice.

What it shows
    The agent behind the AG-UI endpoint has two tools: read_status needs no approval, delete_file does. The model
    calls read_status (c1) then delete_file (c2) in one response; the run pauses with an interrupt for c2 (the safe
    call is held with the batch). The client resumes with c2 rejected, sending the snapshot back as its messages.
    read_status runs once and delete_file never, but the resumed run's MESSAGES_SNAPSHOT holds c2's rejection
    result twice, as two tool messages (one under the id `approval-response-<interrupt id>`): a client that keeps
    its thread from the snapshot shows the caller two results for one call, and its next run sends the model a
    call with two results (the second has no open call before it).

Spec rows violated (spec 004)
    "Mixed approved/rejected batch" (every call gets exactly one correctly correlated result) and "AG-UI
    rejection/mixed decision" (only the events and results defined for a rejected call, without duplicates), with
    the contract that model-bound history holds one function call/result pair per completed occurrence.

Affected releases
    agent-framework-ag-ui 1.4.0 ... 1.6.0 (over agent-framework-core 1.19.0 ... 1.22.0); 1.7.0 keeps one.

Run
    <venv with agent-framework-ag-ui>/bin/python \
        repro/agent_framework_ag_ui/rejection_result_twice_in_snapshot.py
    Exit status 1: the defect is present. Exit status 0: the snapshot holds one result for c2.
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
    """Answers with a safe and a gated call, then with text; records every conversation it is sent."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        if len(SEEN) == 1:
            contents = [Content.from_function_call("c1", "read_status", arguments='{"path": "/tmp/a.txt"}'),
                        Content.from_function_call("c2", "delete_file", arguments='{"path": "/tmp/a.txt"}')]
        else:
            contents = [Content.from_text("I read the status and left the file.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(SEEN)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()



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


RAN: list[str] = []


async def main() -> int:
    async def read_status(path: str) -> str:
        RAN.append(f"read_status {path}")
        return "present"

    async def delete_file(path: str) -> str:
        RAN.append(f"delete_file {path}")
        return "deleted"

    tools = [FunctionTool(name="read_status", description="Read a file's status", func=read_status),
             FunctionTool(name="delete_file", description="Delete a file", func=delete_file,
                          approval_mode="always_require")]
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), tools=tools), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        first = await run(http, {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
                                 "messages": [{"id": "u1", "role": "user", "content": "Check a.txt, then delete it"}]})
        snapshot = next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
        interrupts = interrupts_of(first)
        resume = resume_of([(i, False) for i in interrupts])
        print("rejected:", [i["toolCallId"] for i in interrupts])
        second = await run(http, {"threadId": "t", "runId": "r2", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": snapshot, "resume": resume})
    kept = next((e for e in second if e["type"] == "MESSAGES_SNAPSHOT"), {}).get("messages", [])
    rejections = [(m.get("id"), m.get("content")) for m in kept
                  if m.get("role") == "tool" and m.get("toolCallId") == "c2"]
    print("tools run:", RAN, "the snapshot's results for c2 (id, content):", rejections)
    if len(rejections) > 1:
        print("DEFECT: the snapshot holds the rejected call's result more than once")
        return 1
    print("fixed: the snapshot holds one result for the rejected call")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
