"""A decision on a reused call id is bound to the earlier call with that id: the approved tool never runs.

What it shows
    The agent behind the AG-UI endpoint has list_files (no approval) and delete_files (approval required). The
    model calls list_files as c1, which runs; in its next round it calls delete_files reusing the id c1, and the run
    pauses for approval. The client resumes approving that call, sending the snapshot back as AG-UI clients do. The
    endpoint binds the decision to the first call it finds with the id c1, list_files: the decision no longer matches
    the pending request (delete_files) and is dropped, so delete_files never runs, and the earlier round's result
    ("a.log, b.log") is removed as if the approved call were to run again. The chat client is sent both calls with
    no result for either.

Spec rows violated (spec 004)
    "Reused id after completion" (a later round with the same id creates a second valid pair) with the contract
    "Reused call_id values are correlated by logical occurrence", and "Approved non-streaming resume"/"Approved
    streaming resume" (an approved tool executes exactly once).

Affected releases
    agent-framework-ag-ui 1.0.0rc7 (core 1.10.0); from 1.0.0rc8 the approved call runs (the snapshot mishandles the
    reused id in other ways: sequential_rounds_merged_in_snapshot.py, reused_call_id_rewrites_snapshot.py).

Run
    <venv with agent-framework-ag-ui>/bin/python repro/agent_framework_ag_ui/reused_id_decision_bound_to_earlier_call.py
    Exit status 1: the defect is present. Exit status 0: delete_files ran once and the model got its result. (Whether
    the model also gets the earlier round's result is printed, not judged: 1.1.0 ... 1.6.0 drop it for another
    reason, reused_call_id_rewrites_snapshot.py.)
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
    """Answers with list_files as c1, then delete_files as c1 again, then text; records every conversation."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        if len(SEEN) == 1:
            contents = [Content.from_function_call("c1", "list_files", arguments='{"path": "/tmp"}')]
        elif len(SEEN) == 2:
            contents = [Content.from_function_call("c1", "delete_files", arguments='{"pattern": "/tmp/*.log"}')]
        else:
            contents = [Content.from_text("I deleted a.log and b.log.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(SEEN)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


RAN: list[str] = []


async def list_files(path: str) -> str:
    RAN.append(f"list_files {path}")
    return "a.log, b.log"


async def delete_files(pattern: str) -> str:
    RAN.append(f"delete_files {pattern}")
    return "2 files deleted"



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
    tools = [FunctionTool(name="list_files", description="List files", func=list_files),
             FunctionTool(name="delete_files", description="Delete files", func=delete_files,
                          approval_mode="always_require")]
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), tools=tools), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        first = await run(http, {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
                                 "messages": [{"id": "u1", "role": "user", "content": "Clean up the logs in /tmp"}]})
        snapshot = next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
        interrupts = interrupts_of(first)
        print("interrupts:", [(i["id"], i["toolCallId"]) for i in interrupts])
        await run(http, {"threadId": "t", "runId": "r2", "tools": [], "context": [], "forwardedProps": {},
                         "messages": snapshot, "resume": resume_of([(i, True) for i in interrupts])})
    got = [(c.call_id, c.result) for m in (SEEN[-1] if len(SEEN) > 2 else []) for c in m.contents
           if c.type == "function_result"]
    print("tool runs:", RAN, "- model calls:", len(SEEN))
    print("results the model received on the resume:", got if len(SEEN) > 2 else "(not called)")
    if RAN.count("delete_files /tmp/*.log") != 1 or ("c1", "2 files deleted") not in got:
        print("DEFECT: the approved call with the reused id did not run, and the model never got its result")
        return 1
    print("fixed: the approved call ran once and the model got its result")
    return 0

if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
