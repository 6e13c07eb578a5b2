"""Without a session, a safe call batched with an approval-required one needs a decision of its own, or is lost.

What it shows
    The caller keeps the conversation itself and passes no AgentSession. Turn 1: the model asks, in one response,
    for read_status(api) (s1, needs no approval) and restart_service(api) (a1, approval required). With a session
    the loop holds s1 back without an approval request of its own, as the spec's mixed-batch design does, and
    runs it with the batch once a1 is approved. Without one, the loop returns an approval request for s1 as well
    as for a1, on every release tested.
    Turn 2: the caller replays turn 1 and approves a1, the one call whose tool asks for approval. On 1.10.0 ...
    1.19.0 the loop runs a1 and calls the model at once with s1's call and no result for it: s1 never runs, and
    the provider receives a tool call without a result. From 1.20.0 the approval of a1 is dropped as well
    (stateless_approval_ignored_without_session.py): neither call runs and the model receives the user's request
    alone. Shown last, not counted in the exit status: a caller that also approves s1 gets both run on 1.10.0 ...
    1.19.0 (neither from 1.20.0), and the same two turns with an AgentSession passed on both run both calls after
    the one approval of a1, on every release.

Spec rows violated (spec 004)
    Mixed batches and approval middleware: "Safe and approval-required calls in one batch | Hidden safe calls
    replay only with the matching visible approval."; Approval correlation and replay: "Pending history turn | An
    unresolved approval batch is omitted atomically from unrelated model input while a later decision can still
    resume it once."; and the normative rule "Every actionable local `function_call` produces exactly one terminal
    `function_result`, unless execution pauses for a new user-input request." The caller's replayed history
    holds s1's call, so nothing beyond it is needed to run s1 with the batch.

Affected releases
    agent-framework-core 1.10.0 ... 1.23.0 (still present in the latest release): the approval request for s1
    on every release; s1 sent to the model without a result on 1.10.0 ... 1.19.0.

Run
    <venv>/bin/python repro/agent_framework/stateless_safe_call_needs_approval.py
    Exit status 1: the defect is present. Exit status 0: without a session, the safe call gets no approval request
    and runs once with the approved batch.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import sys
from typing import Any

from agent_framework import (
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


@tool(name="read_status", approval_mode="never_require")
def read_status(service: str) -> str:
    executions.append("read_status")
    return "healthy"


@tool(name="restart_service", approval_mode="always_require")
def restart_service(service: str) -> str:
    executions.append("restart_service")
    return "restarted"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that first asks for both tools in one response, then answers in text, recording every history."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.replies = [
            Message("assistant", [Content.from_function_call("s1", "read_status", arguments='{"service": "api"}'),
                                  Content.from_function_call("a1", "restart_service",
                                                             arguments='{"service": "api"}')]),
            Message("assistant", [Content.from_text("The api service was healthy and has been restarted.")]),
        ]
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.replies[min(len(self.received), len(self.replies)) - 1]
        message_id = f"reply-{len(self.received)}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


def shape(messages: Any) -> list[tuple[str, list[str]]]:
    def one(content: Any) -> str:
        if content.type == "function_approval_request":
            return f"approval_request {content.function_call.call_id}"
        return f"{content.type} {content.call_id}" if content.call_id else str(content.type)

    return [(str(m.role), [one(c) for c in m.contents]) for m in messages if not isinstance(m, str)]


async def ask(client: ScriptedClient, messages: list[Message], stream: bool, session: AgentSession | None) -> Any:
    kwargs: Any = {"options": {"tools": [read_status, restart_service]}}
    if session is not None:
        kwargs["client_kwargs"] = {"session": session}
    if not stream:
        return await client.get_response(messages, **kwargs)
    response_stream = client.get_response(messages, stream=True, **kwargs)
    async for _ in response_stream:
        pass
    return await response_stream.get_final_response()


async def run(stream: bool, approve: tuple[str, ...] = ("a1",), *, with_session: bool = False) -> bool:
    executions.clear()
    client = ScriptedClient()
    session = AgentSession() if with_session else None
    user = Message("user", ["Check the api service, then restart it."])
    first = await ask(client, [user], stream, session)
    first_shape = shape(first.messages)  # before turn 2: releases up to 1.12.1 rewrite the returned response
    requests = {c.function_call.call_id: c for m in first.messages for c in m.contents
                if c.type == "function_approval_request"}
    decision = Message("user", [requests[call_id].to_function_approval_response(True)
                                for call_id in approve if call_id in requests])
    await ask(client, [user, *first.messages, decision], stream, session)

    to_model = shape(client.received[-1]) if len(client.received) > 1 else []
    calls = [k.split()[1] for _, kinds in to_model for k in kinds if k.startswith("function_call ")]
    results = [k.split()[1] for _, kinds in to_model for k in kinds if k.startswith("function_result ")]
    orphans = sorted(set(calls) - set(results))
    label = f"{'streaming' if stream else 'non-streaming'}, " \
            f"{'with an AgentSession' if with_session else 'no session'}, approving {' and '.join(approve)}"
    print(f"  {label}: turn 1 response {first_shape}"
          + ("   <- the safe call s1 has an approval request" if "s1" in requests else ""))
    print(f"      turn 2: executions {executions}; history sent to the model {to_model}"
          + (f"   <- {orphans} without a result" if orphans else ""))
    return "s1" not in requests and sorted(executions) == ["read_status", "restart_service"] and not orphans


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)  # later releases log each ignored decision
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(stream) for stream in (False, True)]
    print("  for comparison (not counted in the exit status):")
    await run(False, ("s1", "a1"))
    await run(False, with_session=True)
    if all(results):
        print("FIXED: without a session the safe call is held back and runs once with the approved batch")
        return 0
    print("DEFECT: without a session the safe call needs its own approval, and is lost when only a1 is approved")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
