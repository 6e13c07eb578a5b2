"""A follow-up input request does not spend its approval: the approved call runs again on the next turn.

What it shows
    The caller keeps the conversation in its own store and sends it back written by hand: the model called deploy
    (call id c1, env "staging"), the caller approved it (request r1), and the approved run asked for more input:
    the tool raised a consent request for c1, which is in the history as the assistant's follow-up and which the
    caller has not answered. The model then reused c1 for env "production" (request r2), and the caller approves
    that in the same message. The tool asks for input on every run, so no result exists anywhere. The history is
    sent once without a session, non-streaming.
    On affected releases the follow-up request does not close the staging occurrence: its approval still counts as
    pending, so staging runs a second time, next to production.

Spec rows violated (spec 004)
    Approval correlation and replay: "Follow-up request closes one occurrence | A user-input follow-up consumes
    only the preceding approval authority and leaves a later reused-id response pending."; Approval request and
    resume: "An approved tool executes exactly once."

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1. Fixed in 1.13.0, whose approval collection lets a follow-up request
    consume the approval before it (only production runs). From 1.15.0 (with a session) and 1.20.0 (without) the
    hand-written approvals are ignored altogether: handwritten_reused_id_approvals_ignored.py.

Run
    <venv>/bin/python repro/agent_framework/follow_up_request_leaves_approval_open.py
    Exit status 1: the defect is present. Exit status 0: staging does not run again (whatever else happens).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import sys
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)
from agent_framework.exceptions import UserInputRequiredException

ran: list[str] = []


@tool(name="deploy", approval_mode="always_require")
def deploy(env: str) -> str:
    ran.append(env)
    raise UserInputRequiredException(contents=[Content.from_oauth_consent_request(f"https://example.com/{env}")])


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers any call with text (a correct loop never calls it here)."""

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", ["Done."])], response_id="reply")

        return complete()


def handwritten_history() -> list[Message]:
    staging = Content.from_function_call("c1", "deploy", arguments=json.dumps({"env": "staging"}))
    production = Content.from_function_call("c1", "deploy", arguments=json.dumps({"env": "production"}))
    r1 = Content.from_function_approval_request(id="r1", function_call=staging)
    r2 = Content.from_function_approval_request(id="r2", function_call=production)
    follow_up = Content.from_oauth_consent_request("https://example.com/staging")
    follow_up.call_id = "c1"
    return [
        Message("user", ["Deploy to staging."]),
        Message("assistant", [staging, r1]),
        Message("user", [r1.to_function_approval_response(True)]),
        Message("assistant", [follow_up]),
        Message("user", ["Skip that, deploy to production instead."]),
        Message("assistant", [production, r2]),
        Message("user", [r2.to_function_approval_response(True)]),
    ]


async def main() -> int:
    version = importlib.metadata.version("agent-framework-core")
    client = ScriptedClient()
    try:
        await client.get_response(handwritten_history(), options={"tools": [deploy]})
    except Exception as error:  # noqa: BLE001 - what matters is which runs happened before any failure
        print(f"the turn raised {type(error).__name__}: {error}")
    print(f"agent-framework-core {version}: the tool ran for {ran}")
    if "staging" in ran:
        print("DEFECT: the follow-up request did not spend the staging approval; staging ran again")
        return 1
    print("OK: staging did not run again")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
