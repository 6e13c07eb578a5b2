"""AG-UI endpoint: a decision on a call whose only result is a pending placeholder adds no result to the snapshot.

Spec rows "Pending placeholder history" (an approval response remains replayable while its only result is
`[APPROVAL_PENDING]`) and "AG-UI approval result event" (the approved result persists in the snapshot), with the
approval-control rule that a client-authored result of an occurrence still registered as pending does not prove
completion: AG-UI removes that result and keeps the response for local execution.

A model asks for one approval-required call; the run pauses on it. The client's thread holds, as a transport that
stores one may, a tool message with the placeholder result "[APPROVAL_PENDING]" for the paused call, and it resumes
with a decision for the call's interrupt (case a: approved; case b: rejected). The decision is carried out (the tool
runs once on approval, and the model receives the real result, or the rejection), but the run's MESSAGES_SNAPSHOT
files that result under the message id of the client's placeholder message and keeps the placeholder as well (once
or twice), under the same id: several messages share one id, and no message the run added (by id, as AG-UI clients
merge snapshots) holds the call's result. A client keeping its thread by message id keeps a placeholder for the
call, and its next run sends the model the placeholder as the call's result. (agent-framework-ag-ui 1.0.0 also sends
the model the placeholder, before the rejection, on the run that rejects the call.)

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.4.0'
    python repro/agent_framework_ag_ui/placeholder_message_id_reused_for_result.py; echo "exit $?"

Exits 1 while the defect is present (in either case the snapshot adds no message with the call's result under an id
of its own, or the model is sent the placeholder), 0 once it does. (Later releases still keep the placeholder in the
snapshot beside the result; the script prints that but does not judge it.)
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

RAN: list[str] = []


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers with one call, then with text; records every conversation it is sent."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seen: list[list[Message]] = []

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        if len(self.seen) == 1:
            contents = [Content.from_function_call("c1", "restart_service", arguments='{"service": "cache"}')]
        else:
            contents = [Content.from_text("Done.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(self.seen)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


async def restart_service(service: str) -> str:
    RAN.append(service)
    return "restarted"



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


def body(run_id: str, messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"threadId": "t", "runId": run_id, "tools": [], "context": [], "forwardedProps": {}, "messages": messages,
            **extra}


async def decide(approved: bool) -> bool:
    """One case; True when the defect shows."""
    RAN.clear()
    client = ScriptedClient()
    tool = FunctionTool(name="restart_service", description="Restart a service", func=restart_service,
                        approval_mode="always_require")
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(client, tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        user = {"id": "u1", "role": "user", "content": "Restart the cache service."}
        first = await run(http, body("r1", [user]))
        call = next(m for m in next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
                    if m["role"] == "assistant")
        interrupts = interrupts_of(first)
        resume = resume_of([(i, approved) for i in interrupts])
        placeholder = {"id": "placeholder-1", "role": "tool", "toolCallId": "c1", "content": "[APPROVAL_PENDING]"}
        sent = [user, call, placeholder]
        second = await run(http, body("r2", sent, resume=resume))
    snapshot = next((e for e in second if e["type"] == "MESSAGES_SNAPSHOT"), {}).get("messages", [])
    results = [(m.get("id"), m.get("content")) for m in snapshot if m.get("role") == "tool"
               and m.get("toolCallId") == "c1"]
    added = [m for m in snapshot if m.get("id") not in {s["id"] for s in sent}]
    added_results = [m.get("content") for m in added if m.get("role") == "tool" and m.get("toolCallId") == "c1"]
    received = [c.result for conversation in client.seen[1:] for m in conversation for c in m.contents
                if c.type == "function_result" and c.call_id == "c1"]
    print(f"({'a' if approved else 'b'}) {'approved' if approved else 'rejected'}: tool runs {RAN}, the model "
          f"received for c1 {received}")
    print("    snapshot's messages for c1 (id, content):", results)
    print("    results the run added under new ids:", added_results)
    shown = not added_results
    forwarded = "[APPROVAL_PENDING]" in received
    if forwarded:
        print("    the model was sent the placeholder as a result of c1 as well")
    return shown or forwarded


async def main() -> int:
    defects = [name for name, approved in (("approved", True), ("rejected", False)) if await decide(approved)]
    if defects:
        print("DEFECT: the run adds no message with the decided call's result (it is filed under the placeholder's "
              "id), or the model is sent the placeholder, when", " and ".join(defects))
        return 1
    print("fixed: the run adds the decided call's result as a message of its own; the model never gets the "
          "placeholder")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
