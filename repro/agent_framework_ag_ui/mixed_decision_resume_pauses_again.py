"""AG-UI endpoint: a resume that approves one call of a batch and rejects another runs neither and pauses again.

Spec rows "AG-UI rejection/mixed decision" (the transport emits only the events defined for approved and rejected
calls, without duplicates) and "Approved non-streaming resume" / "Rejected resume" (an approved call runs once, a
rejected one never, and the model then sees both terminal results).

A model asks for two approval-required calls in one response; the endpoint pauses with an interrupt for each. The
client answers both in one complete resume: the first approved, the second rejected (`approved: false`, as the
interrupt's response schema asks). The endpoint runs nothing, never calls the model, and finishes with a new
interrupt for the rejected call; its stream also ends a tool call (TOOL_CALL_END) it never started in that run.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.7.0'
    python repro/agent_framework_ag_ui/mixed_decision_resume_pauses_again.py; echo "exit $?"

Exits 1 while the defect is present, 0 once the approved call runs and the run finishes without an interrupt.
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
    async def delete_file(path: str) -> str:
        RAN.append(path)
        return "deleted"

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
        decisions = {"c1": True, "c2": False}
        resume = resume_of([(i, decisions[i["toolCallId"]]) for i in interrupts])
        print("resume:", [(i["toolCallId"], decisions[i["toolCallId"]]) for i in interrupts])
        second = await run(http, {"threadId": "t", "runId": "r2", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": snapshot, "resume": resume})
    print("events of the resumed run:", [e["type"] for e in second])
    paused = [i.get("toolCallId") for i in interrupts_of(second)]
    print("tools run:", RAN, "model calls:", len(SEEN), "interrupts after the resume:", paused)
    if RAN != ["/tmp/a.txt"] or paused:
        print("DEFECT: the approved call did not run, and the run paused again")
        return 1
    print("fixed: the approved call ran once and the run finished")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
