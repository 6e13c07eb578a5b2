"""AG-UI endpoint: an approval-required tool that a context provider adds is not resolved in-run on the resume.

Spec rows "Provider-injected approval tool" (a tool a context provider adds during setup, approved on the resume,
executes exactly once and its one result reaches the model) and "AG-UI approval result event" (the approved result
emits once with content and persists in the snapshot, before the model's answer).

The agent offers no tools of its own; a context provider adds an approval-required tool (rotate_key) to every run,
as a provider that gives tools by context does. The model calls it, the run pauses with an interrupt. The client
keeps the thread from the snapshot, as AG-UI clients do, and resumes approving the interrupt. The resume must find
the tool again (the provider adds it again), run it once, emit one TOOL_CALL_RESULT "rotated", and its snapshot must
hold the call, its result, then the model's answer. What the affected releases do instead (the script prints it):

- the approved call is answered "Error: Tool call invocation failed." without running (agent-framework-ag-ui 1.0.0);
- the call never runs and the model is sent it without a result (1.1.0);
- the call runs once, but the snapshot puts its result after the model's answer, and the stream ends the call
  (TOOL_CALL_END) without having started it in that run (1.0.1, 1.2.0 ... 1.3.0).

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.3.0'
    python repro/agent_framework_ag_ui/provider_injected_tool_resume.py; echo "exit $?"

Exits 1 while any of these shows, 0 once the tool runs once, its one result event says "rotated" and the snapshot
holds the result before the answer. (The snapshot's id for the result is not judged here: that is
approval_result_renamed_in_snapshot.py.)
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
    ContextProvider,
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
            contents = [Content.from_function_call("c1", "rotate_key", arguments='{"service": "billing"}')]
        else:
            contents = [Content.from_text("The billing key is rotated.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(SEEN)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


async def rotate_key(service: str) -> str:
    RAN.append(service)
    return "rotated"


class KeyTools(ContextProvider):
    """Adds the approval-required rotate_key tool to every run."""

    def __init__(self) -> None:
        super().__init__("key-tools")
        self.tool = FunctionTool(name="rotate_key", description="Rotate a service's key", func=rotate_key,
                                 approval_mode="always_require")

    async def before_run(self, *, agent: Any, session: Any, context: Any, state: Any) -> None:
        context.extend_tools(self.source_id, [self.tool])



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


async def main() -> int:
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), context_providers=[KeyTools()]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        first = await run(http, body("r1", [{"id": "u1", "role": "user", "content": "Rotate the billing key"}]))
        snapshot = next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
        interrupts = interrupts_of(first)
        resume = resume_of([(i, True) for i in interrupts])
        second = await run(http, body("r2", snapshot, resume=resume))
    started = {e["toolCallId"] for e in second if e["type"] == "TOOL_CALL_START"}
    unstarted_ends = [e["toolCallId"] for e in second
                      if e["type"] == "TOOL_CALL_END" and e["toolCallId"] not in started]
    result_events = [e.get("content") for e in second if e["type"] == "TOOL_CALL_RESULT" and e["toolCallId"] == "c1"]
    kept = next((e for e in second if e["type"] == "MESSAGES_SNAPSHOT"), {}).get("messages", [])
    order = [f"{m['role']}:{m.get('toolCallId') or m.get('content')}" for m in kept
             if m["role"] == "tool" or (m["role"] == "assistant" and m.get("content"))]
    sent = [c.result for m in (SEEN[-1] if len(SEEN) > 1 else []) for c in m.contents
            if c.type == "function_result" and c.call_id == "c1"]
    print("tool runs:", RAN, "result events for c1:", result_events, "the model received for c1:", sent)
    print("the resumed snapshot's results and answers, in order:", order, "calls ended unstarted:", unstarted_ends)
    defects = []
    if RAN != ["billing"] or result_events != ["rotated"] or sent != ["rotated"]:
        defects.append("the approved provider-added call does not run once with its one result")
    if order != ["tool:c1", "assistant:The billing key is rotated."]:
        defects.append("the snapshot does not hold the result before the answer")
    if unstarted_ends:
        defects.append("the stream ends a tool call it did not start")
    if defects:
        print("DEFECT:", "; ".join(defects))
        return 1
    print("fixed: the provider-added tool ran once on the resume, and its result precedes the answer")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
