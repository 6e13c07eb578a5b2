"""AG-UI endpoint: the results of a batch approved on one resume reach the chat client in the decisions' order.

Spec rows "Parallel calls retain model order" (results follow the model's call order in the transcript the model
receives), "Approved non-streaming resume"/"Approved streaming resume" (the resumed response carries the newly
resolved results) and "Calls across messages" (the model's next call sees the history it made, with the results
added).

A model asks for three approval-required calls in one response; the run pauses with an interrupt for each. The
client resumes approving all three, sending the snapshot back as its messages, as AG-UI clients do, with its resume
entries in the order the user decided (c3, c2, c1). All three tools run once, but the conversation the chat client
then receives holds their results in the order of the resume entries, not in the order the model called them.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.3.0'
    python repro/agent_framework_ag_ui/approved_batch_results_in_decision_order.py; echo "exit $?"

Exits 1 while the defect is present, 0 once the chat client receives c1's, c2's and c3's results in that order.
Exits 2 when not all three approved calls run (the earlier defect of batch_resume_runs_one_approval.py): the order
cannot be judged there.
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
    """Answers with three calls, then with text; records every conversation it is sent."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        if len(SEEN) == 1:
            contents = [Content.from_function_call(f"c{n}", "delete_file", arguments=f'{{"path": "/tmp/{n}.txt"}}')
                        for n in (1, 2, 3)]
        else:
            contents = [Content.from_text("The three files are deleted.")]

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
                                 "messages": [{"id": "u1", "role": "user", "content": "Delete the three files"}]})
        snapshot = next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
        interrupts = interrupts_of(first)
        print("interrupts:", [(i["id"], i["toolCallId"]) for i in interrupts])
        # The client answers the interrupts in another order than the model's (a UI lists decisions as the user
        # makes them): c3, c2, c1.
        resume = resume_of([(i, True) for i in sorted(interrupts, key=lambda i: i["toolCallId"], reverse=True)])
        await run(http, {"threadId": "t", "runId": "r2", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": snapshot, "resume": resume})
    received = [c.call_id for m in SEEN[-1] for c in m.contents if c.type == "function_result"
                and c.call_id in ("c1", "c2", "c3")] if len(SEEN) > 1 else []
    print("tools run on the resume:", RAN, "results the chat client received, in order:", received)
    if sorted(RAN) != ["/tmp/1.txt", "/tmp/2.txt", "/tmp/3.txt"]:
        print("cannot judge: not every approved call ran")
        return 2
    if received != ["c1", "c2", "c3"]:
        print("DEFECT: the chat client receives the approved batch's results out of the model's order")
        return 1
    print("fixed: the chat client receives the results in the order the model called them")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
