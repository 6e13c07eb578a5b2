"""Approval rounds that reuse one call id lose results in the session's history; a rejected round can even run.

What it shows
    An Agent keeps the history in its session. The provider reuses call id c1 in every round:
    Turn 1: check_release (safe) runs as c1, then deploy(staging) as c1 needs approval; the loop pauses.
    Turn 2: the caller approves; staging deploys; the model calls deploy(production), again as c1; the loop pauses.
    Turn 3: the caller rejects production.
    Each round must keep its own call and exactly one result: the model on turn 3 should see three c1 pairs
    (ready, deployed, the rejection) and no approval wrappers, and production must never deploy. On affected
    releases the non-streaming responses of turns 1 and 2 leave out what completed before the pause (see
    approval_pause_drops_earlier_rounds.py), so the session's history loses the check_release round and, on
    1.13.0 ... 1.18.0, the staging result too. On turn 3 the loop correlates on that broken history: the model
    receives fewer than three rounds and, on 1.13.0 ... 1.18.0, a c1 call without its result (1.13.0 and 1.14.0
    also the stale staging approval response); on 1.15.0 and 1.16.0 the still-open staging approval is applied to
    the production call, which deploys although the caller rejected it, and gets no rejection result. The
    streaming runs keep every round and behave.

Spec rows violated (spec 004)
    Approval correlation and replay: "Multiple reused-id rounds | Approved and rejected rounds retain separate
    call/result occurrences." and "Reused id after completion | A later round with the same id creates a second
    valid pair." Normative contract: "A rejected tool executes zero times and produces one synthetic rejection
    `function_result` using the original function `call_id`.", "Reused `call_id` values are correlated by logical
    occurrence, not one global value per id." and "Model-bound history contains one function call/result pair per
    completed logical occurrence."

Affected releases
    agent-framework-core 1.10.0 ... 1.18.0; fixed in 1.19.0. The rejected production deployment runs on 1.15.0
    and 1.16.0 only.

Run
    <venv>/bin/python repro/agent_framework/reused_id_rounds_lose_results.py
    Exit status 1: the defect is present. Exit status 0: three intact rounds, production never deployed.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import sys
from typing import Any

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)

executions: list[str] = []
WRAPPERS = ("function_approval_request", "function_approval_response")


@tool(name="check_release")
def check_release(version: str) -> str:
    executions.append(f"check_release({version})")
    return "ready"


@tool(name="deploy", approval_mode="always_require")
def deploy(env: str) -> str:
    executions.append(f"deploy({env})")
    return "deployed"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted assistant message and records what it received."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.script.pop(0)
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
    def call(name: str, arguments: str) -> Message:
        return Message("assistant", [Content.from_function_call("c1", name, arguments=arguments)])

    return [
        call("check_release", '{"version": "2.1"}'),
        call("deploy", '{"env": "staging"}'),
        call("deploy", '{"env": "production"}'),
        Message("assistant", [Content.from_text("Staging is deployed; production was not approved.")]),
    ]


def pairs(messages: list[Any]) -> list[str]:
    """The model's view of c1, in order: each call's tool and arguments, and each result."""
    seen: list[str] = []
    for message in messages:
        for content in [] if isinstance(message, str) else message.contents:
            if content.type == "function_call":
                seen.append(f"call {content.name}{content.arguments}")
            elif content.type == "function_result":
                seen.append(f"result {str(content.result)[:30]!r}")
            elif content.type in WRAPPERS:
                seen.append(str(content.type))
    return seen


async def turn(agent: Agent, messages: list[Message], session: Any, stream: bool) -> Any:
    if not stream:
        return await agent.run(messages, session=session)
    response_stream = agent.run(messages, stream=True, session=session)
    async for _ in response_stream:
        pass
    return await response_stream.get_final_response()


def request_in(response: Any) -> Any:
    return next(c for m in response.messages for c in m.contents if c.type == "function_approval_request")


async def run(stream: bool) -> bool:
    label = "streaming" if stream else "non-streaming"
    executions.clear()
    client = ScriptedClient(script())
    agent = Agent(client, tools=[check_release, deploy])
    session = agent.create_session()
    first = await turn(agent, [Message("user", ["Check release 2.1, then deploy it to staging and production."])],
                       session, stream)
    second = await turn(agent, [Message("user", [request_in(first).to_function_approval_response(True)])],
                        session, stream)
    await turn(agent, [Message("user", [request_in(second).to_function_approval_response(False)])], session, stream)

    seen = pairs(client.received[-1])
    wanted = ["call check_release", "result 'ready'", "call deploy", "result 'deployed'", "call deploy", "result"]
    intact = len(seen) == len(wanted) and all(item.startswith(w) for item, w in zip(seen, wanted, strict=True))
    rejected_ran = "deploy(production)" in executions
    print(f"  {label}: turn 3 sent to the model {seen}" + ("" if intact else "   <- not three intact c1 rounds"))
    print(f"  {label}: executions {executions}" + ("   <- the rejected production deployment ran" if rejected_ran
                                                   else ""))
    return intact and executions == ["check_release(2.1)", "deploy(staging)"]


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)  # releases log the approvals they ignore
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: every reused-id round keeps its own call and result, and the rejected call never ran")
        return 0
    print("DEFECT: reused-id rounds lose their results in the session's history (a rejected call may even run)")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
