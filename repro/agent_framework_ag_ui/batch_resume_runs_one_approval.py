"""AG-UI endpoint: a resume approving two paused calls runs only one of them and keeps the other pending.

Spec rows "AG-UI approval result event" (each approved result emits once and persists in the snapshot), "Approved
non-streaming resume"/"Approved streaming resume" (an approved tool executes exactly once) and "AG-UI
rejection/mixed decision" (the transport carries out the decisions it was given).

A model asks for two approval-required calls in one response; the run pauses with an interrupt for each. The
client resumes with a resume entry approving each interrupt, sending the snapshot back as its messages, as AG-UI
clients do. Only one of the two approved tools runs; the model is called without the other call's result (it is
answered by a synthetic control result instead), and the endpoint keeps the other approval pending: the thread's
next run is refused with APPROVAL_RESUME_REQUIRED, though the client answered every interrupt it was given.

On 1.0.0rc7 (core 1.10.0) the decisions each become a message of their own; when the first arrives the endpoint
answers every other call of the batch itself with "Tool execution skipped - user provided follow-up message", ahead
of the first call's result: only the first decision's tool runs, and the model receives the batch's results in
another order than its calls (the synthetic ones first), while the thread's next run is accepted.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.0.1'   # 1.0.0rc7 ... 1.0.1 are affected
    python repro/agent_framework_ag_ui/batch_resume_runs_one_approval.py; echo "exit $?"

Exits 1 while the defect is present (an approved call of the resume does not run), 0 once both run.
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
    """Answers with two calls, then with text; records every conversation it is sent."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        if len(SEEN) == 1:
            contents = [Content.from_function_call("c1", "delete_file", arguments='{"path": "/tmp/a.txt"}'),
                        Content.from_function_call("c2", "delete_file", arguments='{"path": "/tmp/b.txt"}')]
        else:
            contents = [Content.from_text("Both files are deleted.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(SEEN)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


RAN: list[str] = []


async def delete_file(path: str) -> str:
    RAN.append(path)
    return "deleted"



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
    tool = FunctionTool(name="delete_file", description="Delete a file", func=delete_file,
                        approval_mode="always_require")
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        first = await run(http, {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
                                 "messages": [{"id": "u1", "role": "user", "content": "Delete both files"}]})
        snapshot = next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
        interrupts = interrupts_of(first)
        print("interrupts:", [(i["id"], i["toolCallId"]) for i in interrupts])
        resume = resume_of([(i, True) for i in interrupts])
        second = await run(http, {"threadId": "t", "runId": "r2", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": snapshot, "resume": resume})
        held = next((e for e in second if e["type"] == "MESSAGES_SNAPSHOT"), {}).get("messages", snapshot)
        third = await run(http, {"threadId": "t", "runId": "r3", "tools": [], "context": [], "forwardedProps": {},
                                 "messages": [*held, {"id": "u2", "role": "user", "content": "Thanks"}]})
    got = [(c.call_id, c.result) for m in (SEEN[1] if len(SEEN) > 1 else []) for c in m.contents
           if c.type == "function_result" and c.call_id in ("c1", "c2")]
    print("tools run on the resume:", RAN)
    print("results the model received on the resume, in order:", got)
    print("the thread's next run:", [(e["type"], e.get("code")) for e in third if e["type"].startswith("RUN_")])
    if sorted(RAN) != ["/tmp/a.txt", "/tmp/b.txt"]:
        print("DEFECT: the resume approved both calls, but not both ran")
        return 1
    print("fixed: both approved calls ran once")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
