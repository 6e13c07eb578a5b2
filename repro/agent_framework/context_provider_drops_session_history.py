"""Adding a context provider that only adds instructions makes an agent's session forget the conversation.

What it shows
    An `Agent` run with an `AgentSession` keeps the conversation in the session: the framework adds an in-memory
    history provider itself. A user who attaches a context provider of their own (here one that only adds
    instructions, and keeps no history) loses that: the framework adds its history provider only when no context
    provider is registered at all, so the second turn reaches the model without the first turn's question, call,
    result and answer. Nothing warns; the model simply answers without the conversation.

Spec requirement broken (spec 004, History and continuation)
    "Framework-managed and service-managed continuation must preserve the same logical call/result transcript":
    the framework-managed (session) continuation drops the earlier turn's call/result pair and everything else.

Affected releases
    agent-framework-core 1.10.0; fixed in 1.11.0 (the history provider is added unless a history provider loads
    messages).

Run
    <venv>/bin/python repro/agent_framework/context_provider_drops_session_history.py
    Exit status 1: the defect is present. Exit status 0: the second turn's model call holds the first turn.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from typing import Any

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    Content,
    ContextProvider,
    FunctionInvocationLayer,
    Message,
    tool,
)


@tool(name="get_weather", approval_mode="never_require")
def get_weather(city: str) -> str:
    return "21 degrees"


class HouseStyle(ContextProvider):
    """Adds instructions before every run; keeps nothing."""

    async def before_run(self, *, agent: Any, session: Any, context: Any, state: Any) -> None:
        context.extend_instructions(self.source_id, "Answer in one short sentence.")


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted message and records the texts it was sent."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.received: list[list[str]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append([f"{m.role}: {m.text or [c.type for c in m.contents]}" for m in messages])
        reply = self.script.pop(0)

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply])

        return complete()


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    client = ScriptedClient([
        Message("assistant", [Content.from_function_call("c1", "get_weather", arguments='{"city": "Paris"}')]),
        Message("assistant", [Content.from_text("It is 21 degrees in Paris.")]),
        Message("assistant", [Content.from_text("It is 21 degrees in Rome too.")]),
    ])
    agent = Agent(client, tools=[get_weather], context_providers=[HouseStyle("house-style")])
    session = agent.create_session()
    await agent.run("Weather in Paris?", session=session)
    await agent.run("And in Rome?", session=session)
    second_turn = client.received[-1]
    print(f"  the second turn's model call received: {second_turn}")
    if any("Weather in Paris?" in item for item in second_turn):
        print("FIXED: the session kept the first turn")
        return 0
    print("DEFECT: with a context provider attached, the session forgot the first turn")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
