"""A placeholder written after the approval is sent to the model beside the call's real result on a later turn.

What it shows
    The shape the framework's own test of the spec row "Pending placeholder history" uses
    (test_filter_approval_controls_keeps_response_for_pending_placeholder): the approval response, *then* the
    call's "[APPROVAL_PENDING]" placeholder result. Turn 1: the model calls an approval-required tool
    (restart_service as c1); the loop pauses with an approval request. Turn 2: the user approves, and the caller's
    transport records the placeholder for c1 after the approval; the tool runs once and the model gets c1's real
    result (releases 1.17.0 and 1.18.0 already send it the placeholder beside the result there). Turn
    3: an unrelated question, with the conversation so far. The model is sent c1's placeholder *and* its real
    result: two results for one call, one of them the placeholder the model must never see (OpenAI Chat
    Completions and Gemini refuse such a request with HTTP 400). Shown for a caller that keeps the conversation
    and sends it back whole, and for an append-only history provider that keeps it (approval controls included)
    and loads it back. Control: the same three turns without the placeholder send the model c1's real result
    only; if the control fails, the script says so and exits 2.

Spec rows violated (spec 004)
    History and provider serialization: "Pending placeholder history | An approval response remains replayable
    while its only result is [APPROVAL_PENDING]" (once the call has its real result, the placeholder is spent);
    the approval-correlation flow ("Replace placeholder and remove response wrapper"); "Model-bound history
    contains one function call/result pair per completed logical occurrence".

Affected releases
    agent-framework-core 1.17.0 ... 1.23.0 (not fixed; 1.13.0 ... 1.16.x not run). On 1.10.0 ... 1.12.1 the
    control fails too (approval_resume_mutates_input.py): the script exits 2 there. The placeholder before the
    approval is settled_placeholder_sent_to_model.py.

Run
    <venv>/bin/python repro/agent_framework/late_placeholder_sent_to_model.py
    Exit status 1: the defect is present. Exit status 0: the model calls of turns 2 and 3 got c1's real result only.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.metadata
import logging
import sys
from collections.abc import Sequence
from typing import Any

from agent_framework import (
    Agent,
    AgentSession,
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    HistoryProvider,
    Message,
    tool,
)

PLACEHOLDER = "[APPROVAL_PENDING]"
executions: list[str] = []


@tool(name="restart_service", approval_mode="always_require")
def restart_service(service: str) -> str:
    executions.append(service)
    return "restarted"


class AuditStore(HistoryProvider):
    """Keeps every message verbatim, approval controls included, and loads them all back."""

    def __init__(self) -> None:
        super().__init__("audit-log")
        self.stored: list[Message] = []

    async def get_messages(self, session_id: str | None, *, state: Any = None, **kwargs: Any) -> list[Message]:
        return [copy.deepcopy(m) for m in self.stored]

    async def save_messages(self, session_id: str | None, messages: Sequence[Message], *, state: Any = None,
                            **kwargs: Any) -> None:
        self.stored.extend(copy.deepcopy(list(messages)))


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted message and records what it was sent."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = [
            Message("assistant", [
                Content.from_function_call("c1", "restart_service", arguments='{"service": "cache"}'),
            ]),
            Message("assistant", [Content.from_text("The cache service was restarted.")]),
            Message("assistant", [Content.from_text("Yes, it restarted cleanly.")]),
        ]
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.script.pop(0)

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply])

        return complete()


def placeholder_message() -> Message:
    return Message("tool", [Content.from_function_result("c1", result=PLACEHOLDER)])


def report(label: str, client: ScriptedClient) -> bool:
    # The model calls of turns 2 and 3 (turn 1's is the first); wrappers the caller replays itself are
    # stale_approval_wrappers_to_model.py's defect, not judged here.
    seen = [[str(c.result) for m in call for c in m.contents if c.type == "function_result" and c.call_id == "c1"]
            for call in client.received[1:]]
    ok = len(seen) == 2 and all(results == ["restarted"] for results in seen)
    print(f"  {label}: tool ran {len(executions)} time(s); the model calls of turns 2 and 3 got c1 results {seen}"
          + ("" if ok else "   <- wrong"))
    return ok


async def caller_keeps_history(*, placeholder: bool) -> bool:
    executions.clear()
    client = ScriptedClient()
    session = AgentSession()  # releases that bind approvals to a session accept the decision with it
    options: Any = {"tools": [restart_service]}
    user = Message("user", ["Restart the cache service."])
    first = await client.get_response([user], options=options, client_kwargs={"session": session})
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    history = [user, *copy.deepcopy(first.messages), Message("user", [request.to_function_approval_response(True)]),
               *([placeholder_message()] if placeholder else [])]
    second = await client.get_response(copy.deepcopy(history), options=options, client_kwargs={"session": session})
    history += [*copy.deepcopy(second.messages), Message("user", ["Is it healthy now?"])]
    await client.get_response(history, options=options, client_kwargs={"session": session})
    label = "caller keeps the history" + ("" if placeholder else " (control: no placeholder)")
    return report(label, client) and len(executions) == 1


async def history_provider_keeps_it(*, placeholder: bool) -> bool:
    executions.clear()
    client = ScriptedClient()
    agent = Agent(client, tools=[restart_service], context_providers=[AuditStore()])
    session = agent.create_session()
    paused = await agent.run("Restart the cache service.", session=session)
    request = next(c for m in paused.messages for c in m.contents if c.type == "function_approval_request")
    await agent.run([Message("user", [request.to_function_approval_response(True)]),
                     *([placeholder_message()] if placeholder else [])], session=session)
    await agent.run("Is it healthy now?", session=session)
    label = "history provider keeps it" + ("" if placeholder else " (control: no placeholder)")
    return report(label, client) and len(executions) == 1


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    print("  expected: the tool runs once, and the model calls of turns 2 and 3 get c1's real result only")
    controls = [await caller_keeps_history(placeholder=False), await history_provider_keeps_it(placeholder=False)]
    if not all(controls):
        print("INCONCLUSIVE: the control without a placeholder fails too")
        return 2
    outcomes = [await caller_keeps_history(placeholder=True), await history_provider_keeps_it(placeholder=True)]
    if all(outcomes):
        print("NOT PRESENT: the placeholder written after the approval stays away from the model")
        return 0
    print("DEFECT: a later model call gets the placeholder written after the approval beside the real result")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
