"""After max_function_calls, the non-streaming fallback text replaces the final answer's contents; streaming keeps them.

What it shows
    `max_function_calls` is 1. The model calls `search` (the one allowed call), which runs, and the loop makes its
    final model call with `tool_choice="none"`. That final answer has no text the loop counts as visible:
    - case "hosted pair": the service answers with a call it executed itself (`web_search` on server "web",
      marked informational-only where the release knows the flag) and that call's result;
    - case "blank text": the model answers with two spaces.
    On affected releases the non-streaming loop puts the limit's fallback text in place of the final message's
    contents: the provider-executed call and its result disappear from the response (and, in the blank case, the
    model's own text is overwritten). The streaming loop yields the provider's contents as they arrive and adds the
    fallback text after them, so the streamed response keeps the hosted pair and the two modes disagree.

Spec rows violated (spec 004, Errors, control flow, and limits)
    "Provider tool content after an active limit | [...] Provider-executed informational call/result pairs, hosted
    approval requests, and metadata-only streaming updates remain visible; fallback text never replaces retained
    transcript content." (regression test `test_function_invocation_limit_appends_fallback_after_provider_executed_
    tool_pair`)
    Normative contract: "Streaming yields the same logical result content and ordering as non-streaming output and
    `ResponseStream.get_final_response()`."

Affected releases
    agent-framework-core 1.11.0 ... 1.12.1, non-streaming (the streaming response is right, so the modes
    disagree); fixed in 1.13.0, which appends the fallback text after the final message. 1.10.0 adds no fallback
    text at all (limit_blank_final_no_fallback.py), so it replaces nothing and this reproduction passes there.

Run
    <venv>/bin/python repro/agent_framework/limit_fallback_replaces_final_contents.py
    Exit status 1: the defect is present. Exit status 0: the final answer's contents are kept in both modes.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import inspect
import sys
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)

executions: list[str] = []


@tool(name="search", approval_mode="never_require")
def search(query: str) -> str:
    executions.append(query)
    return "a result"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers with the scripted messages in order (then plain text) and records the tool choice."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.tool_choices: list[Any] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.tool_choices.append(options.get("tool_choice"))
        reply = self.script.pop(0) if self.script else Message("assistant", ["(an extra model call)"])
        message_id = f"reply-{len(self.tool_choices)}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


def hosted_call() -> Content:
    """A call the service executed itself, marked the way the installed release marks one."""
    parameters = inspect.signature(Content.__init__).parameters
    extra: dict[str, Any] = {}
    additional: dict[str, Any] | None = None
    if "informational_only" in parameters:
        extra["informational_only"] = True
    if "hosted" in parameters:
        extra["hosted"] = True
        extra["server_name"] = "web"
    else:
        additional = {"server_label": "web"}
    return Content.from_function_call("h1", "web_search", arguments='{"query": "one"}',
                                      additional_properties=additional, **extra)


def script(case: str) -> list[Message]:
    final = ([hosted_call(), Content.from_function_result("h1", result="web results")] if case == "hosted pair"
             else [Content.from_text("  ")])
    return [
        Message("assistant", [Content.from_function_call("c1", "search", arguments='{"query": "one"}')]),
        Message("assistant", final),  # the final answer to the tool_choice="none" request
    ]


def flow(messages: Any) -> list[str]:
    """The contents after the executed round, adjacent texts joined, as a caller would read them."""
    contents = [c for m in messages for c in m.contents]
    start = next(i for i, c in enumerate(contents) if c.type == "function_result" and c.call_id == "c1") + 1
    items: list[tuple[str, str]] = []
    for content in contents[start:]:
        if content.type == "text" and items and items[-1][0] == "text":
            items[-1] = ("text", items[-1][1] + (content.text or ""))
        elif content.type == "text":
            items.append(("text", content.text or ""))
        else:
            items.append((content.type, str(content.call_id)))
    return [f"text {value!r}" if kind == "text" else f"{kind} {value}" for kind, value in items]


async def respond(case: str, stream: bool) -> list[str]:
    client = ScriptedClient(script(case), function_invocation_configuration={"max_function_calls": 1})
    messages = [Message("user", ["Search locally, then on the web"])]
    options: Any = {"tools": [search]}
    if not stream:
        return flow((await client.get_response(messages, options=options)).messages)
    response_stream = client.get_response(messages, stream=True, options=options)
    async for _ in response_stream:
        pass
    return flow((await response_stream.get_final_response()).messages)


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    problems: list[str] = []
    for case in ("hosted pair", "blank text"):
        plain, streamed = await respond(case, False), await respond(case, True)
        print(f"  {case}: non-streaming, after the search round: {plain}")
        print(f"  {case}: streaming, after the search round:     {streamed}")
        if case == "hosted pair" and not {"function_call h1", "function_result h1"} <= set(plain):
            problems.append("the non-streaming response lost the provider-executed call h1 and its result")
        if plain != streamed:
            problems.append(f"{case}: the non-streaming and streaming responses disagree")
    if not problems:
        print("FIXED: the final answer's contents are kept and the modes agree")
        return 0
    print(f"DEFECT: the limit's fallback text replaced the final answer's contents: {'; '.join(problems)}")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
