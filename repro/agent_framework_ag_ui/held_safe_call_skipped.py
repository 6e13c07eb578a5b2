"""A safe call held with a gated one is never run on the resume: the model gets a "skipped" result for it.

What it shows
    The agent behind the AG-UI endpoint has two tools: read_status needs no approval, delete_file does. The model
    calls read_status (c1) then delete_file (c2) in one response; the run pauses with an interrupt for c2 (the safe
    call is held with the batch). The client resumes with its decision on c2, approving it (run again with
    --reject to reject it). The endpoint turns the decision into a message of its own and, finding c1 still without
    a result when that message arrives, answers c1 itself with the synthetic result "Tool execution skipped - user
    provided follow-up message": read_status never runs, the chat client is sent that synthetic result as c1's,
    and the client is never shown a result for c1 (its snapshot and events hold none).

Spec rows violated (spec 004)
    "Safe and approval-required calls in one batch" (hidden safe calls replay with the matching visible approval)
    with the contract "Every actionable local function_call produces exactly one terminal function_result".

Affected releases
    agent-framework-ag-ui 1.0.0rc7 (core 1.10.0); from 1.0.0rc8 the held call runs (on 1.0.0rc8 ... 1.3.0 its
    result comes after the approved call's: approved_mixed_batch_results_out_of_order.py).

Run
    <venv with agent-framework-ag-ui>/bin/python repro/agent_framework_ag_ui/held_safe_call_skipped.py [--reject]
    Exit status 1: the defect is present. Exit status 0: read_status ran once and the model got its result.
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
            contents = [Content.from_text("I read the status and deleted the file.")]

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
        approve = "--reject" not in sys.argv[1:]
        resume = resume_of([(i, approve) for i in interrupts])
        print("approved:" if approve else "rejected:", [i["toolCallId"] for i in interrupts])
        second = await run(http, {"threadId": "t", "runId": "r2", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": snapshot, "resume": resume})
    held = next((e for e in second if e["type"] == "MESSAGES_SNAPSHOT"), {}).get("messages", [])
    shown = [m.get("content") for m in held if m.get("role") == "tool" and m.get("toolCallId") == "c1"]
    shown += [e.get("content") for e in second if e["type"] == "TOOL_CALL_RESULT" and e.get("toolCallId") == "c1"]
    sent = {c.call_id: c.result for m in (SEEN[-1] if len(SEEN) > 1 else []) for c in m.contents
            if c.type == "function_result" and c.call_id in ("c1", "c2")}
    print("tools run:", RAN, "model calls:", len(SEEN))
    print("the model got as c1's result:", sent.get("c1"), "- the client was shown for c1:", shown)
    if RAN.count("read_status /tmp/a.txt") != 1 or sent.get("c1") != "present":
        print("DEFECT: the held safe call did not run; the model got another result for it")
        return 1
    print("fixed: the held safe call ran once and the model got its result")
    return 0

if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
