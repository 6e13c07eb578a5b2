"""A caller that replays its own history without a session has its approval decisions silently ignored.

What it shows
    The caller keeps the conversation itself and passes no AgentSession, as a manual-history caller does.
    Turn 1: the model calls an approval-required tool (c1); the loop pauses with the call and its approval request.
    Turn 2: the caller replays turn 1 (its user message and the very response objects it got back) followed by its
    decision, built from the request with `to_function_approval_response`. Three decisions are tried, each in both
    response modes: an approval (delete_file), a rejection (delete_file), and an approval of a tool that, when it
    runs, asks the caller for more input (deploy_service).
    On affected releases every decision is removed before the loop looks at it. Nothing runs, no rejection result
    is made, no error is raised: the loop logs one warning and calls the model with the user's request alone (the
    paused call and its request are left out), and the model's answer is returned as if the decision had been
    handled. For the tool that needs input, the spec's answer is its user-input request with no model call; here
    the model is called instead. The same two turns with an AgentSession passed on both run normally, as they do
    without one on earlier releases.

Spec rows violated (spec 004)
    Approval pause and resume: "Approved non-streaming resume | Result precedes final text; tool executes once",
    "Rejected non-streaming resume | Rejection result precedes final text; tool executes zero times", their
    streaming twins, "Approval-time user input | ... no extra model call" and the normative rules "An approved tool
    executes exactly once" and "A rejected tool ... produces one synthetic rejection `function_result` using the
    original function `call_id`". The contract addresses callers that own and replay their history ("Callers that
    manually own and replay message history without a loading `HistoryProvider`"). The framework chose, from
    1.20.0, to take approval authority only from a request recorded in a session it holds
    (`disable_approval_response_binding`, default False), the direction of the spec's follow-up "#7383 — bind
    approval responses to framework-issued requests". The matrix rows still require a caller's decision to be
    honoured or refused visibly; a decision dropped with a log line is neither.

Affected releases
    agent-framework-core 1.20.0 ... 1.23.0 (still present in the latest release). 1.10.0 ... 1.19.0 honour the
    replayed decision: the approved tool runs once, the rejection result reaches the model (1.10.0 ... 1.12.1 with
    defects of their own, see approval_resume_mutates_input.py and approval_time_user_input_calls_model.py).

Run
    <venv>/bin/python repro/agent_framework/stateless_approval_ignored_without_session.py
    Exit status 1: the defect is present. Exit status 0: every stateless decision runs the tool or records the
    rejection.
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
    UserInputRequiredException,
    tool,
)

executions: list[str] = []


@tool(name="delete_file", approval_mode="always_require")
def delete_file(path: str) -> str:
    executions.append(f"delete_file {path}")
    return "deleted"


@tool(name="deploy_service", approval_mode="always_require")
def deploy_service(service: str) -> str:
    executions.append(f"deploy_service {service}")
    raise UserInputRequiredException([Content.from_oauth_consent_request("https://example.com/consent")])


class Warnings(logging.Handler):
    """Collects the framework's warning records, the only trace an ignored decision leaves."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that first calls the given tool, then answers in text, and records the history of every call."""

    def __init__(self, name: str, arguments: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.replies = [Message("assistant", [Content.from_function_call("c1", name, arguments=arguments)]),
                        Message("assistant", [Content.from_text("Done.")])]
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
    return [(str(m.role), [f"{c.type} {c.call_id}" if c.call_id else str(c.type) for c in m.contents])
            for m in messages if not isinstance(m, str)]


async def ask(client: ScriptedClient, tools: list[Any], messages: list[Message], stream: bool,
              session: AgentSession | None) -> Any:
    kwargs: Any = {"options": {"tools": tools}}
    if session is not None:
        kwargs["client_kwargs"] = {"session": session}
    if not stream:
        return await client.get_response(messages, **kwargs)
    response_stream = client.get_response(messages, stream=True, **kwargs)
    async for _ in response_stream:
        pass
    return await response_stream.get_final_response()


async def run(decision: str, stream: bool, *, with_session: bool = False) -> bool:
    executions.clear()
    tool_fn, arguments = (deploy_service, '{"service": "billing"}') if decision == "approve, needs input" \
        else (delete_file, '{"path": "/tmp/report.txt"}')
    client = ScriptedClient(str(tool_fn.name), arguments)
    session = AgentSession() if with_session else None
    user = Message("user", ["Please do it."])
    first = await ask(client, [tool_fn], [user], stream, session)
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    answer = Message("user", [request.to_function_approval_response(decision != "reject")])
    warnings = Warnings()
    logging.getLogger("agent_framework").addHandler(warnings)
    try:
        second = await ask(client, [tool_fn], [user, *first.messages, answer], stream, session)
    finally:
        logging.getLogger("agent_framework").removeHandler(warnings)

    model_calls = len(client.received) - 1
    to_model = shape(client.received[-1]) if model_calls else []
    result_to_model = any("function_result c1" in kinds for _, kinds in to_model)
    if decision == "reject":
        honoured = not executions and result_to_model
    else:
        honoured = len(executions) == 1 and (result_to_model or decision == "approve, needs input")
    label = f"{decision}, {'streaming' if stream else 'non-streaming'}, " \
            f"{'with an AgentSession' if with_session else 'no session'}"
    print(f"  {label}: executions {executions}; model calls on turn 2: {model_calls}"
          + ("" if honoured else "   <- the decision was ignored"))
    if model_calls:
        print(f"      history sent to the model: {to_model}")
    print(f"      response: {shape(second.messages)}")
    for line in warnings.lines if not with_session else []:
        if "approval" in line:
            print(f"      logged: {line[:110]}...")
    return honoured


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.WARNING)
    logging.getLogger("agent_framework").propagate = False
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(decision, stream)
               for decision in ("approve", "reject", "approve, needs input") for stream in (False, True)]
    print("  the same approval with an AgentSession passed on both turns, for comparison:")
    await run("approve", False, with_session=True)
    if all(results):
        print("FIXED: a caller replaying its history without a session has its decisions honoured")
        return 0
    print("DEFECT: without a session the caller's approval decisions are dropped with only a logged warning")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
