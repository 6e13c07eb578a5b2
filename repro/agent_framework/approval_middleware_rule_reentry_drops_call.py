"""Behind ToolApprovalMiddleware, a call approved by rule is missing from the non-streaming response.

What it shows
    An Agent runs with `ToolApprovalMiddleware` and keeps its history in a session. The model asks for an
    approval-required call that a rule covers, so the caller is not asked: the middleware answers the approval
    request itself and runs the agent once more to resume the call, then the model answers with text. Two ways
    to have a rule are shown:

    - a standing rule: on turn 1 the caller approves deploy_service(api) with "approve always"
      (`create_always_approve_tool_response`); on turn 2 the model calls deploy_service(web), d2;
    - an auto-approval callback (`auto_approval_rules=[...]`) approving run_step; the model calls run_step, r1.

    Each runs once without streaming and once streaming, on fresh agents with the same script. The streamed run
    yields the model's call, then (from 1.13.0) its result, then the text. The non-streaming response holds only
    what the last inner run returned: from 1.13.0 the call's result and the text, so the caller gets a result
    whose call it never saw; on 1.10.0 ... 1.12.1, where a resumed response lacks its result anyway
    (approval_resume_mutates_input.py), only the text. The model itself receives the call and its result, and the
    session keeps both: only the caller's response loses the call. Approving the same call explicitly, as the
    caller, does not lose it (the control run at the end).

Spec requirements broken (spec 004)
    "Streaming yields the same logical result content and ordering as non-streaming output and
    `ResponseStream.get_final_response()`." and the review checklist's "no call or result becomes orphaned or
    duplicated" and "streaming updates and final response agree with non-streaming output". The middleware rows
    themselves ("Standing tool rule", "Auto-approval callback", "Argument-scoped rule", "Shared call budget")
    hold: the right calls run once, without asking the caller, within the run's budget.

Affected releases
    agent-framework-core 1.10.0 ... 1.23.0 (still present), non-streaming; streaming runs disagree with it.

Run
    <venv>/bin/python repro/agent_framework/approval_middleware_rule_reentry_drops_call.py
    Exit status 1: the defect is present. Exit status 0: every non-streaming response holds the calls the streamed
    run of the same script returned, and no result without its call.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
import warnings
from typing import Any

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    ToolApprovalMiddleware,
    create_always_approve_tool_response,
    tool,
)

warnings.simplefilter("ignore")  # some releases flag the middleware as experimental

executions: list[str] = []


@tool(name="deploy_service", approval_mode="always_require")
def deploy_service(service: str) -> str:
    executions.append(f"deploy_service({service})")
    return "deployed"


@tool(name="run_step", approval_mode="always_require")
def run_step(step: str) -> str:
    executions.append(f"run_step({step})")
    return "done"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted assistant message and records what it received."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.received: list[list[Message]] = []

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


def call(call_id: str, name: str, arguments: str) -> Message:
    return Message("assistant", [Content.from_function_call(call_id, name, arguments=arguments)])


def says(text: str) -> Message:
    return Message("assistant", [Content.from_text(text)])


def items(messages: list[Message]) -> list[str]:
    """Each content as kind:call_id (text as text), in order."""
    out: list[str] = []
    for message in messages:
        for content in message.contents:
            if content.type == "function_call":
                out.append(f"call:{content.call_id}")
            elif content.type == "function_result":
                out.append(f"result:{content.call_id}")
            elif content.type == "function_approval_request":
                out.append(f"approval_request:{content.function_call.call_id}")
            elif content.type == "text":
                out.append("text")
    return out


def orphan_results(found: list[str]) -> list[str]:
    seen: set[str] = set()
    orphans: list[str] = []
    for item in found:
        kind, _, call_id = item.partition(":")
        if kind == "call":
            seen.add(call_id)
        elif kind == "result" and call_id not in seen:
            orphans.append(call_id)
    return orphans


async def turn(agent: Agent, session: Any, messages: list[Message], stream: bool) -> Any:
    if not stream:
        return await agent.run(messages, session=session)
    response_stream = agent.run(messages, stream=True, session=session)
    async for _ in response_stream:
        pass
    return await response_stream.get_final_response()


async def standing_rule(stream: bool, *, standing: bool = True) -> tuple[list[str], list[str]]:
    """Turn 1 approves deploy_service (always, or just once for the control); the response of turn 2."""
    client = ScriptedClient([
        call("d1", "deploy_service", '{"service": "api"}'), says("The api is deployed."),
        call("d2", "deploy_service", '{"service": "web"}'), says("The web frontend is deployed."),
    ])
    agent = Agent(client, tools=[deploy_service], middleware=[ToolApprovalMiddleware()])
    session = agent.create_session()
    first = await turn(agent, session, [Message("user", ["Deploy the api."])], stream)
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    decision = create_always_approve_tool_response(request) if standing else request.to_function_approval_response(True)
    await turn(agent, session, [Message("user", [decision])], stream)
    second = await turn(agent, session, [Message("user", ["Now deploy the web frontend."])], stream)
    if not standing:  # the control: the caller approves d2 itself
        request = next(c for m in second.messages for c in m.contents if c.type == "function_approval_request")
        resumed = await turn(agent, session, [Message("user", [request.to_function_approval_response(True)])], stream)
        return items([*second.messages, *resumed.messages]), items(client.received[-1])
    return items(second.messages), items(client.received[-1])


async def auto_approval_callback(stream: bool) -> tuple[list[str], list[str]]:
    client = ScriptedClient([call("r1", "run_step", '{"step": "first"}'), says("The first step is done.")])
    middleware = ToolApprovalMiddleware(auto_approval_rules=[lambda function_call: function_call.name == "run_step"])
    agent = Agent(client, tools=[run_step], middleware=[middleware])
    session = agent.create_session()
    response = await turn(agent, session, [Message("user", ["Run the first step."])], stream)
    return items(response.messages), items(client.received[-1])


async def compare(label: str, scenario: Any) -> bool:
    executions.clear()
    plain, plain_model = await scenario(False)
    plain_runs = list(executions)
    executions.clear()
    streamed, _ = await scenario(True)
    streamed_calls = [i for i in streamed if i.startswith("call:")]
    missing = [i for i in streamed_calls if i not in plain]
    orphans = orphan_results(plain)
    print(f"  {label}:")
    print(f"      streaming response      {streamed}")
    print(f"      non-streaming response  {plain}"
          + (f"   <- lacks {', '.join(missing)}" if missing else "")
          + (f"   <- result without its call: {', '.join(orphans)}" if orphans else ""))
    print(f"      the model's last input  {plain_model}   (non-streaming run; tools ran: {plain_runs})")
    return not missing and not orphans


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    ok_standing = await compare("standing 'approve always' rule, turn 2", standing_rule)
    ok_callback = await compare("auto-approval callback", auto_approval_callback)

    async def explicit(stream: bool) -> tuple[list[str], list[str]]:
        return await standing_rule(stream, standing=False)

    print("control (not part of the verdict): the caller approves d2 itself instead of a rule")
    await compare("explicit approval, turn 2 and its resume", explicit)
    if ok_standing and ok_callback:
        print("FIXED: a call approved by rule stays in the non-streaming response, as in the streamed one")
        return 0
    print("DEFECT: the non-streaming response of a rule-approved call lacks the model's function_call "
          "(only the last inner run of the middleware is returned)")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
