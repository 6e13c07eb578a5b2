"""A tool whose real output contains "[APPROVAL_PENDING]" has its approval carried out again on every later turn.

What it shows
    The caller keeps the conversation and replays, on every turn, the messages it sent and the very response
    objects it got back. Turn 1: the model calls an approval-required tool (fetch_status_page, call id c1); the
    loop pauses. Turn 2: the caller approves; the tool runs once and really returns a page whose text contains
    "[APPROVAL_PENDING]"; the model answers. Turns 3 and 4: unrelated questions, the whole history replayed.
    The same four turns run once with that output and once, for control, with an output that does not contain
    the marker; each with an AgentSession passed on every turn and without one, in both response modes.
    On affected releases the loop decides whether a replayed approval is still pending by looking for a later
    result of the call that does not contain "[APPROVAL_PENDING]" (a substring test on the result text, wherever
    the result stands and whoever wrote it). The tool's own output, returned by the loop itself after the
    approval, is taken for the pending-approval placeholder, so the old approval counts as undecided and is
    carried out again on each later turn: the tool runs on turn 3 and again on turn 4, and on 1.13.0 ... 1.18.0
    the model receives two results for c1. The control output runs the tool once. With a session the replayed
    approval is refused from 1.15.0 (it no longer matches a request recorded in the session), so only the caller
    without a session meets the defect on 1.15.0 ... 1.19.0.

Spec rows violated (spec 004)
    Approval request and resume: "An approved tool executes exactly once."; Approval correlation and replay:
    "Later stateless turn | A prior terminal approval response cannot execute again."; Function calls and
    results: "A completed function call/result pair is inert on later turns."; review checklist: "approved tools
    cannot execute twice", "history replay does not reintroduce approval authority". Note the spec's own row
    "Pending placeholder history | An approval response remains replayable while its only result is
    `[APPROVAL_PENDING]`", whose regression test places the placeholder after the approval response, as here:
    read by the text alone, that row describes this very transcript as pending, so the spec does not say how a
    loop tells a tool's real output from a caller's placeholder. The defect shown is the consequence, a second
    and third execution of an approved tool, which no row allows.

Affected releases
    agent-framework-core 1.13.0 ... 1.19.0: with a session 1.13.0 and 1.14.0, without one 1.13.0 ... 1.19.0.
    1.10.0 ... 1.12.1 rewrite the caller's messages on resume (approval_resume_mutates_input.py), so the replayed
    history no longer holds the approval and nothing runs again. 1.20.0 removed the placeholder test: the text is
    inert there, and the replayed approval stays inert (a caller without a session has its turn-2 approval
    dropped instead, see stateless_approval_ignored_without_session.py).

Run
    <venv>/bin/python repro/agent_framework/placeholder_lookalike_result_reruns_approval.py
    Exit status 1: the defect is present. Exit status 0: a tool's output never makes its approval run again.
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

LOOKALIKE = "Status page: deploys are [APPROVAL_PENDING] until 17:00."
CONTROL = "Status page: all systems operational."
page = {"text": CONTROL}
executions: list[str] = []


@tool(name="fetch_status_page", approval_mode="always_require")
def fetch_status_page() -> str:
    executions.append("fetch_status_page")
    return page["text"]


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that calls fetch_status_page once, then answers in text; it records every history it receives."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.replies = [Message("assistant", [Content.from_function_call("c1", "fetch_status_page", arguments="{}")])]
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.replies.pop(0) if self.replies else Message("assistant", ["The page says what it says."])
        message_id = f"reply-{len(self.received)}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


async def ask(client: ScriptedClient, history: list[Any], stream: bool, session: AgentSession | None) -> Any:
    kwargs: Any = {"options": {"tools": [fetch_status_page]}}
    if session is not None:
        kwargs["client_kwargs"] = {"session": session}
    if not stream:
        return await client.get_response(list(history), **kwargs)
    response_stream = client.get_response(list(history), stream=True, **kwargs)
    async for _ in response_stream:
        pass
    return await response_stream.get_final_response()


def c1_results(messages: list[Any]) -> int:
    return sum(1 for m in messages for c in m.contents if c.type == "function_result" and c.call_id == "c1")


async def executions_over_four_turns(output: str, stream: bool, with_session: bool) -> tuple[list[int], int]:
    """Executions counted after each turn, and how many c1 results the model received on turn 3."""
    page["text"] = output
    executions.clear()
    client = ScriptedClient()
    session = AgentSession() if with_session else None
    history: list[Any] = [Message("user", ["What does the status page say?"])]
    counts: list[int] = []
    results_on_turn_3 = 0
    for turn in (1, 2, 3, 4):
        if turn == 2:
            request = next(c for m in history for c in m.contents if c.type == "function_approval_request")
            history.append(Message("user", [request.to_function_approval_response(True)]))
        elif turn > 2:
            history.append(Message("user", [f"Question {turn}: is that text literal?"]))
        response = await ask(client, history, stream, session)
        history.extend(response.messages)
        counts.append(len(executions))
        if turn == 3:
            results_on_turn_3 = c1_results(client.received[-1])
    return counts, results_on_turn_3


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)  # releases log each replayed approval they refuse
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    defect = False
    for with_session in (True, False):
        for stream in (False, True):
            label = f"{'with an AgentSession' if with_session else 'no session'}, " \
                    f"{'streaming' if stream else 'non-streaming'}"
            control, _ = await executions_over_four_turns(CONTROL, stream, with_session)
            lookalike, results = await executions_over_four_turns(LOOKALIKE, stream, with_session)
            reran = lookalike[-1] > 1 and control[-1] == 1
            defect = defect or reran
            print(f"  {label}: executions after turns 1-4: control output {control}, "
                  f"output containing the marker {lookalike}" + ("   <- the approval ran again" if reran else ""))
            if lookalike[1] == 0:
                print("      (the turn-2 approval never ran: a different defect, not counted here)")
            if results > 1:
                print(f"      turn 3: the model received {results} results for c1")
    if defect:
        print("DEFECT: a tool's output containing [APPROVAL_PENDING] makes its old approval run again on later turns")
        return 1
    print("FIXED: the approved tool runs once whatever its output says")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
