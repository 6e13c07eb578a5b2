"""AG-UI endpoint: once a placeholder call is approved and run, the client's next run gives the model the placeholder.

Spec rows "Pending placeholder history" (an approval response remains replayable while its only result is
`[APPROVAL_PENDING]`; once carried out it is settled history) and the history rule "Model-bound history contains one
function call/result pair per completed logical occurrence", with the approval-control rule that a client-authored
result in an occurrence still registered as pending does not prove completion.

A model asks for one approval-required call; the run pauses on it. The client keeps the conversation itself, as a
caller that owns its history does: its thread holds, as a transport that stores one may, a tool message with the
placeholder result "[APPROVAL_PENDING]" for the paused call, and it resumes approving the call's interrupt. The
endpoint carries the approval out correctly: the tool runs once, the model receives the real result, and the run
adds that result (and the model's answer) to the snapshot. On the next run the client sends its conversation: its
own messages (the placeholder included, where it was) followed by the messages the run added (the real result, the
answer) and a new user message. The model is then sent the call with the placeholder as its result, and the real
result not at all: of the call's two results the stale placeholder is kept and the completed occurrence's result is
dropped.

(Replaying the resumed run's snapshot instead does not show it on the releases where that snapshot puts the real
result before the placeholder: the first of the two is kept either way.)

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.7.0'
    python repro/agent_framework_ag_ui/settled_placeholder_replaces_result.py; echo "exit $?"

Exits 1 while the defect is present (the later model call gets the placeholder, or no real result, for the call),
0 once it gets the call's real result only. Exits 2 when the resumed run adds no result for the call at all (the
earlier defect of placeholder_message_id_reused_for_result.py): this one cannot be judged there.
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
RAN: list[str] = []


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers with one call, then with text; records every conversation it is sent."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        if len(SEEN) == 1:
            contents = [Content.from_function_call("c1", "restart_service", arguments='{"service": "cache"}')]
        else:
            contents = [Content.from_text(f"Answer {len(SEEN)}.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(SEEN)}")

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


def results_for_c1(conversation: Sequence[Message]) -> list[Any]:
    return [c.result for m in conversation for c in m.contents if c.type == "function_result" and c.call_id == "c1"]


async def main() -> int:
    tool = FunctionTool(name="restart_service", description="Restart a service", func=restart_service,
                        approval_mode="always_require")
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        user = {"id": "u1", "role": "user", "content": "Restart the cache service."}
        first = await run(http, body("r1", [user]))
        call = next(m for m in next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
                    if m["role"] == "assistant")
        interrupts = interrupts_of(first)
        resume = resume_of([(i, True) for i in interrupts])
        placeholder = {"id": "placeholder-1", "role": "tool", "toolCallId": "c1", "content": "[APPROVAL_PENDING]"}
        conversation = [user, call, placeholder]
        second = await run(http, body("r2", conversation, resume=resume))
        snapshot = next((e for e in second if e["type"] == "MESSAGES_SNAPSHOT"), {}).get("messages", [])
        added = [m for m in snapshot if m.get("id") not in {m["id"] for m in conversation}]
        conversation += [*added, {"id": "u2", "role": "user", "content": "Is it healthy now?"}]
        await run(http, body("r3", conversation))
    print("tool runs:", RAN, "model calls:", len(SEEN))
    print("the resumed run added:", [(m.get("role"), m.get("toolCallId"), m.get("content")) for m in added])
    if not any(m.get("role") == "tool" and m.get("toolCallId") == "c1" for m in added):
        print("cannot judge: the resumed run added no result for c1")
        return 2
    resumed, later = (results_for_c1(SEEN[1]), results_for_c1(SEEN[2])) if len(SEEN) == 3 else ([], [])
    print("results for c1 the model received on the resume:", resumed, "and on the next run:", later)
    if later != ["restarted"]:
        print("DEFECT: on the run after the approval the model gets the placeholder, not the call's real result")
        return 1
    print("fixed: the model gets the call's real result once on the later run")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
