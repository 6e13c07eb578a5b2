"""In a mixed batch, the held safe call's result is placed after the approved call's result, not in the model's order.

What it shows
    Turn 1: the model asks, in one response, first for read_status(api) (s1, needs no approval) and then for
    restart_service(api) (a1, approval required). Every release tested follows the spec's mixed-batch design here:
    nothing runs, s1 is held back without an approval request of its own, and the turn pauses with one approval
    request, for a1. Turn 2: the caller approves a1. Both tools then run once, s1 only now, with the batch's
    approval. But on affected releases the loop executes the approved call first and the held call after it, and
    keeps that order: the model receives a1's result before s1's (each in a tool message of its own), and the
    resumed response and its stream list a1's result before s1's, against the model's order s1, a1. (On 1.10.0 ...
    1.12.1 the resumed response carries no result at all — a separate defect, see approval_resume_mutates_input.py —
    so the order shows in what the model receives.) Run with the caller keeping and replaying the history, with an
    Agent keeping it in its session, and with that session saved to JSON and restored into a new one before the
    approval, each in both response modes.

Spec rows violated (spec 004)
    Normative contract, Function calls and results: "Parallel calls retain model order in the returned
    transcript." What the mixed-batch rows themselves promise holds — "Safe and approval-required calls in one
    batch | Hidden safe calls replay only with the matching visible approval." and "Restored approval state |
    Serialized `ToolApprovalState` restores mixed-batch behavior." — only the order of the two results is wrong.

Affected releases
    agent-framework-core 1.10.0 ... 1.18.0; fixed in 1.19.0 (both results in the model's order, in one tool
    message).

Run
    <venv>/bin/python repro/agent_framework/held_call_result_out_of_order.py
    Exit status 1: the defect is present. Exit status 0: the results follow the model's call order everywhere and
    each tool ran once.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import sys
from typing import Any

from agent_framework import (
    Agent,
    AgentSession,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)

executions: list[str] = []


@tool(name="read_status")
def read_status(service: str) -> str:
    executions.append(f"read_status({service})")
    return "healthy"


@tool(name="restart_service", approval_mode="always_require")
def restart_service(service: str) -> str:
    executions.append(f"restart_service({service})")
    return "restarted"


TOOLS = [read_status, restart_service]
MODEL_ORDER = ["s1", "a1"]


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted assistant message and records what it received."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.script.pop(0) if self.script else Message("assistant", ["(an extra model call)"])
        message_id = f"reply-{len(self.received)}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


def script() -> list[Message]:
    return [
        Message("assistant", [
            Content.from_function_call("s1", "read_status", arguments='{"service": "api"}'),
            Content.from_function_call("a1", "restart_service", arguments='{"service": "api"}'),
        ]),
        Message("assistant", [Content.from_text("The api service was healthy and has been restarted.")]),
    ]


def result_order(messages: list[Any]) -> list[str]:
    return [str(c.call_id) for m in messages for c in m.contents if c.type == "function_result"]


async def turn(send: Any, messages: list[Message], stream: bool) -> tuple[Any, list[str]]:
    """One turn; returns the final response and the result order of the streamed updates."""
    if not stream:
        return await send(messages, False), []
    response_stream = send(messages, True)
    streamed = [str(c.call_id) async for update in response_stream for c in update.contents
                if c.type == "function_result"]
    return await response_stream.get_final_response(), streamed


async def run(history: str, stream: bool) -> bool:
    label = f"{history}, {'streaming' if stream else 'non-streaming'}"
    executions.clear()
    client = ScriptedClient(script())
    agent = Agent(client, tools=TOOLS)
    holder: dict[str, AgentSession] = {"session": agent.create_session() if history != "caller-kept history"
                                       else AgentSession()}

    def send(messages: list[Message], streaming: bool) -> Any:
        if history == "caller-kept history":
            return client.get_response(messages, stream=streaming, options={"tools": TOOLS},
                                       client_kwargs={"session": holder["session"]})
        return agent.run(messages, stream=streaming, session=holder["session"])

    user = Message("user", ["Check the api service, then restart it."])
    first, _ = await turn(send, [user], stream)
    paused = [c.function_call.call_id for m in first.messages for c in m.contents
              if c.type == "function_approval_request"]
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    ran_before = list(executions)
    if history == "restored session":
        holder["session"] = AgentSession.from_dict(json.loads(json.dumps(holder["session"].to_dict())))
    approval = Message("user", [request.to_function_approval_response(True)])
    resume = [user, *first.messages, approval] if history == "caller-kept history" else [approval]
    second, streamed = await turn(send, resume, stream)

    to_model = result_order(client.received[-1])
    in_response = result_order(list(second.messages))
    order_ok = to_model == MODEL_ORDER and in_response in ([], MODEL_ORDER) and streamed in ([], MODEL_ORDER)
    runs_ok = not ran_before and sorted(executions) == ["read_status(api)", "restart_service(api)"]
    print(f"  {label}: turn 1 paused for {paused}, ran {ran_before}; turn 2 ran {executions}")
    print(f"      results sent to the model {to_model}, in the resumed response {in_response}"
          + (f", streamed {streamed}" if stream else "")
          + ("" if order_ok else "   <- not the model's order s1, a1") + ("" if runs_ok else "   <- wrong executions"))
    return order_ok and runs_ok


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(history, stream)
               for history in ("caller-kept history", "session-kept history", "restored session")
               for stream in (False, True)]
    if all(results):
        print("FIXED: the held safe call and the approved call run once each and their results keep the model's "
              "order")
        return 0
    print("DEFECT: the held safe call's result follows the approved call's result instead of the model's order")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
