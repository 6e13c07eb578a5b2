"""A history provider that keeps approval controls for audit hands them back to the model on a later turn.

What it shows
    An agent keeps its session's conversation in the caller's own `HistoryProvider`: an append-only audit store
    that saves every message verbatim, the approval request and the caller's approval response included, and loads
    them all back before each run. Turn 1 pauses for approval; turn 2 approves, the tool runs once and the model
    answers. On turn 3 (an unrelated question) the loaded history goes to the model as it was stored: the assistant
    message still holds the approval request next to the call, and the approval response is there too.

Spec requirement broken (spec 004, History and provider serialization)
    "Append-only history replay | Resolved approval wrappers do not reach a later model call; one call/result pair
    remains." and "History providers may retain approval control contents in their backing store for audit, but
    base history replay filters them before later model calls."

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1; fixed in 1.13.0 (history providers filter approval controls when they
    load messages).

Run
    <venv>/bin/python repro/agent_framework/history_provider_wrappers_to_model.py
    Exit status 1: the defect is present. Exit status 0: the third turn's model call held no approval content.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.metadata
import sys
from collections.abc import Sequence
from typing import Any

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    HistoryProvider,
    Message,
    tool,
)


@tool(name="delete_file", approval_mode="always_require")
def delete_file(path: str) -> str:
    return "deleted"


class AuditStore(HistoryProvider):
    """Keeps every message verbatim, in its own list, and loads them all back."""

    def __init__(self) -> None:
        super().__init__("audit-log")
        self.stored: list[Message] = []

    async def get_messages(self, session_id: str | None, *, state: Any = None, **kwargs: Any) -> list[Message]:
        return [copy.deepcopy(m) for m in self.stored]

    async def save_messages(self, session_id: str | None, messages: Sequence[Message], *, state: Any = None,
                            **kwargs: Any) -> None:
        self.stored.extend(copy.deepcopy(list(messages)))


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted message and records the content types it was sent."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.received: list[list[str]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append([c.type for m in messages for c in m.contents])
        reply = self.script.pop(0)

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply])

        return complete()


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    client = ScriptedClient([
        Message("assistant", [Content.from_function_call("c1", "delete_file", arguments='{"path": "/tmp/a.txt"}')]),
        Message("assistant", [Content.from_text("Deleted /tmp/a.txt.")]),
        Message("assistant", [Content.from_text("Nothing else.")]),
    ])
    agent = Agent(client, tools=[delete_file], context_providers=[AuditStore()])
    session = agent.create_session()
    paused = await agent.run("Delete /tmp/a.txt.", session=session)
    request = next(c for m in paused.messages for c in m.contents if c.type == "function_approval_request")
    await agent.run(Message("user", [request.to_function_approval_response(True)]), session=session)
    await agent.run("Thanks. Anything else to clean up?", session=session)
    third = client.received[-1]
    print(f"  turn 3's model call received contents: {third}")
    leaked = [t for t in third if t.startswith("function_approval")]
    if not leaked:
        print("FIXED: the stored approval controls stayed in the store")
        return 0
    print(f"DEFECT: the model was sent the stored approval controls {leaked}")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
