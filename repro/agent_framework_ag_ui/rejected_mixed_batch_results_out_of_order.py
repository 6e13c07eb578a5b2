"""A batch mixing a safe call with a gated one that the caller rejects: the model gets the results out of order.

What it shows
    The agent behind the AG-UI endpoint has two tools: read_status needs no approval, delete_file does. The model
    calls read_status (c1) then delete_file (c2) in one response; the run pauses with an interrupt for c2 (the safe
    call is held with the batch). The client resumes with c2 rejected. read_status runs once and delete_file never
    does, but the conversation the chat client then receives holds c2's rejection result before c1's result: the
    results of one batch are not in the order the model called them. Found by loop-conformance fuzz.

Spec rows violated (spec 004)
    "Safe and approval-required calls in one batch" with the contract "Parallel calls retain model order in the
    returned transcript", and "Mixed approved/rejected batch" (every call gets one correctly correlated result).

Affected releases
    agent-framework-ag-ui 1.0.0rc8 ... 1.7.0, each over its own agent-framework-core release (1.11.0 ... 1.23.0).

Run
    <venv with agent-framework-ag-ui>/bin/python \
        repro/agent_framework_ag_ui/rejected_mixed_batch_results_out_of_order.py
    Exit status 1: the defect is present. Exit status 0: the chat client receives c1's result, then c2's.
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
        await run(http, {"threadId": "t", "runId": "r2", "tools": [], "context": [], "forwardedProps": {},
                         "messages": snapshot, "resume": resume})
    results = [c.call_id for m in (SEEN[-1] if len(SEEN) > 1 else []) for c in m.contents
               if c.type == "function_result" and c.call_id in ("c1", "c2")]
    print("tools run:", RAN, "model calls:", len(SEEN), "results the model received, in order:", results)
    if RAN != ["read_status /tmp/a.txt"] or results != ["c1", "c2"]:
        print("DEFECT: the model receives the batch's results out of the order it called them")
        return 1
    print("fixed: the safe call ran once, the rejected one never, and the model received c1's result, then c2's")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
