"""An approved call that fails on resume reaches the consecutive-error cap, yet the next model call still has tools.

What it shows
    `max_consecutive_errors_per_request` is 1, so a single failed execution reaches the cap.
    Turn 1: the model calls `fetch_page`, which requires approval; the loop pauses with an approval request.
    Turn 2: the caller replays the conversation and approves. The approved call runs on resume and raises. The
    layer counts the failure and logs that the maximum of consecutive errors is reached, but on affected releases
    the count is only logged: the resume carries on as if nothing happened and calls the model with the options
    the caller gave (`tool_choice` unset, tools offered), so the model may call tools again past the cap. When the
    same failure happens to a call the model has just made (no approval involved), the layer does make its next
    model call with `tool_choice="none"`; only the approval-resume path ignores the cap.

Spec row violated (spec 004, Errors, control flow, and limits)
    "Consecutive error cap | Error threshold stops repeated failures, submits collected results, and makes only the
    required final no-tool model call." (regression test `test_approval_resume_error_limit_forces_final_no_tool_
    response`.)

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1, both response modes; fixed in 1.13.0. (The same releases also rewrite
    the caller's messages on resume and leave the error result out of the resumed response, see
    approval_resume_mutates_input.py; this reproduction checks only the tool choice of the model call.)

Run
    <venv>/bin/python repro/agent_framework/approval_error_limit_keeps_tools.py
    Exit status 1: the defect is present. Exit status 0: the model call after the capped failure has tools off.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
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


@tool(name="fetch_page", approval_mode="always_require")
def fetch_page(url: str) -> str:
    executions.append(url)
    raise ConnectionError("connection reset")


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that calls fetch_page first and answers with text afterwards, recording each call's tool choice."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tool_choices: list[Any] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.tool_choices.append(options.get("tool_choice"))
        if len(self.tool_choices) == 1:
            reply = Message("assistant", [Content.from_function_call("c1", "fetch_page",
                                                                     arguments='{"url": "https://status.example"}')])
        else:
            reply = Message("assistant", [Content.from_text("The status page cannot be reached.")])
        message_id = f"reply-{len(self.tool_choices)}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


async def turn(client: ScriptedClient, messages: list[Message], session: AgentSession, stream: bool) -> Any:
    options: Any = {"tools": [fetch_page]}
    if not stream:
        return await client.get_response(messages, options=options, client_kwargs={"session": session})
    response_stream = client.get_response(messages, stream=True, options=options, client_kwargs={"session": session})
    async for _ in response_stream:
        pass
    return await response_stream.get_final_response()


async def run(stream: bool) -> bool:
    label = "streaming" if stream else "non-streaming"
    executions.clear()
    client = ScriptedClient(function_invocation_configuration={"max_consecutive_errors_per_request": 1})
    session = AgentSession()  # carried along so that releases binding approvals to a session accept the reply
    user = Message("user", ["Fetch the status page"])
    first = await turn(client, [user], session, stream)
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    decision = Message("user", [request.to_function_approval_response(True)])
    calls_before = len(client.tool_choices)
    await turn(client, [user, *first.messages, decision], session, stream)
    resume_choices = client.tool_choices[calls_before:]
    print(f"  {label}: executions {executions}; model calls during the resume with tool_choice {resume_choices}"
          f"{'' if resume_choices == ['none'] else '   <- expected one call with none'}")
    return resume_choices == ["none"] and len(executions) == 1


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: a failure of an approved call that reaches the error cap turns tools off for the model call")
        return 0
    print("DEFECT: the approved call's failure reached max_consecutive_errors_per_request=1, but the resume still "
          "offered the model its tools instead of making the final no-tool call")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
