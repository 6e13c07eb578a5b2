"""A call's "[APPROVAL_PENDING]" placeholder is sent to the model again after the call has its real result.

What it shows
    Turn 1: the model calls an approval-required tool (restart_service as c1); the loop pauses with an approval
    request. While the user decides, the caller's transport records an "[APPROVAL_PENDING]" placeholder result for
    c1, as the spec's approval-correlation flow describes. Turn 2: the user approves; the tool runs once and the
    model gets c1's real result (on 1.13.0 and later). Turn 3: an unrelated question, with the conversation so far.
    The model is sent c1's placeholder *and* its real result: two results for one call, one of them the placeholder
    the model must never see. OpenAI Chat Completions and Gemini refuse such a request with HTTP 400. Shown for both
    ways of keeping the conversation:
    - the caller keeps it and sends it back whole (here the turn-3 model call also gets the approval request and
      response wrappers of the settled call);
    - an append-only history provider keeps it (approval controls included, for audit) and loads it back; here the
      wrappers are filtered on 1.13.0 and later, but the stored placeholder is not.

Spec rows violated (spec 004)
    History and provider serialization: "Pending placeholder history | An approval response remains replayable
    while its only result is [APPROVAL_PENDING]" (once the call has its real result, the placeholder is spent), and
    the approval-correlation flow: "occurrence has placeholder? -> Replace placeholder and remove response wrapper";
    "Model-bound history contains one function call/result pair per completed logical occurrence".

Affected releases
    agent-framework-core 1.13.0 ... 1.23.0 (not fixed). Releases 1.10.0 ... 1.12.1 replace the placeholder in the
    caller's own messages instead (approval_resume_mutates_input.py), and their history providers hand the stored
    wrappers back (history_provider_wrappers_to_model.py); releases from 1.20.0 also drop the approval of a caller
    without a session (stateless_approval_ignored_without_session.py).

Run
    <venv>/bin/python repro/agent_framework/settled_placeholder_sent_to_model.py
    Exit status 1: the defect is present. Exit status 0: turn 3's model call got c1's real result only, no wrapper.
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


def report(label: str, client: ScriptedClient, *, judge_wrappers: bool) -> bool:
    sent = [c for m in client.received[-1] for c in m.contents]
    results = [str(c.result) for c in sent if c.type == "function_result" and c.call_id == "c1"]
    wrappers = [c.type for c in sent if c.type.startswith("function_approval")]
    # Wrappers from a history provider on 1.10.0 ... 1.12.1 are history_provider_wrappers_to_model.py's defect.
    ok = PLACEHOLDER not in results and not (judge_wrappers and wrappers)
    print(f"  {label}: tool ran {len(executions)} time(s); turn 3's model call got c1 results {results}"
          f" and wrappers {wrappers}" + ("" if ok else "   <- wrong"))
    return ok


async def caller_keeps_history() -> bool:
    executions.clear()
    client = ScriptedClient()
    session = AgentSession()  # releases that bind approvals to a session accept the decision with it
    options: Any = {"tools": [restart_service]}
    user = Message("user", ["Restart the cache service."])
    first = await client.get_response([user], options=options, client_kwargs={"session": session})
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    history = [user, *copy.deepcopy(first.messages), placeholder_message(),
               Message("user", [request.to_function_approval_response(True)])]
    second = await client.get_response(copy.deepcopy(history), options=options, client_kwargs={"session": session})
    history += [*copy.deepcopy(second.messages), Message("user", ["Is it healthy now?"])]
    await client.get_response(history, options=options, client_kwargs={"session": session})
    return report("caller keeps the history", client, judge_wrappers=True)


async def history_provider_keeps_it() -> bool:
    executions.clear()
    client = ScriptedClient()
    agent = Agent(client, tools=[restart_service], context_providers=[AuditStore()])
    session = agent.create_session()
    paused = await agent.run("Restart the cache service.", session=session)
    request = next(c for m in paused.messages for c in m.contents if c.type == "function_approval_request")
    await agent.run([placeholder_message(), Message("user", [request.to_function_approval_response(True)])],
                    session=session)
    await agent.run("Is it healthy now?", session=session)
    return report("history provider keeps it", client, judge_wrappers=False)


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    print("  expected: turn 3's model call gets c1's real result only, and no approval wrapper")
    outcomes = [await caller_keeps_history(), await history_provider_keeps_it()]
    if all(outcomes):
        print("NOT PRESENT: the spent placeholder stays away from the model")
        return 0
    print("DEFECT: a later model call gets the call's spent placeholder (and, from the caller's history, wrappers)")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
