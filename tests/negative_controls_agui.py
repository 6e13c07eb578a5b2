"""Negative controls for the event-level checks: the real AG-UI endpoint behind a deliberately broken wrapper.

Each control wraps either the endpoint's ASGI app (rewriting the server-sent event stream it writes) or the chat
client's model (changing what it is sent), and names the event-level check that must fail on it and the bundled
scenario that shows it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.adapters.agent_framework_ag_ui.conversation import AgUiAdapter
from harness.adapters.agent_framework_ag_ui.endpoint import AsgiApp
from harness.contents import JSON, FunctionCall, FunctionResult, Message, Response, Update
from harness.contract import ModelProvider

SCENARIOS = Path(__file__).parent.parent / "scenarios"
APPROVED_RESUME = SCENARIOS / "approval" / "approved-resume.yaml"
# Plain calls, no resume: the endpoint as it is streams every result under the id its snapshot gives it (a resumed
# result is renamed in the snapshot, a known failure, so a control of the snapshot cannot use a resume).
PLAIN_CALLS = SCENARIOS / "agui" / "no-approval-path.yaml"

# Rewrites the stream's events, each given as its SSE block ("data: {...}"), into the events to send instead.
Rewrite = Callable[[list[str]], list[str]]


def _type(block: str) -> str:
    data = "".join(line[5:].strip() for line in block.splitlines() if line.startswith("data:"))
    try:
        parsed: Any = json.loads(data)
    except ValueError:
        return ""
    return str(parsed.get("type", "")) if isinstance(parsed, dict) else ""


def rewriting(rewrite: Rewrite) -> Callable[[AsgiApp], AsgiApp]:
    """An ASGI wrapper that holds the endpoint's response body until it is complete, then sends it rewritten."""

    def wrap(app: AsgiApp) -> AsgiApp:
        async def wrapped(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            body: list[bytes] = []

            async def sending(message: Any) -> None:
                if message["type"] != "http.response.body":
                    await send(message)
                    return
                body.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                blocks = [b for b in b"".join(body).decode().split("\n\n") if b.strip()]
                text = "".join(f"{block}\n\n" for block in rewrite(blocks))
                await send({"type": "http.response.body", "body": text.encode(), "more_body": False})

            await app(scope, receive, sending)

        return wrapped

    return wrap


def duplicate_results(blocks: list[str]) -> list[str]:
    """Sends every TOOL_CALL_RESULT event twice."""
    return [copy for block in blocks for copy in ([block, block] if _type(block) == "TOOL_CALL_RESULT" else [block])]


def drop_first_end(blocks: list[str]) -> list[str]:
    """Leaves out the first TOOL_CALL_END event."""
    ends = [i for i, block in enumerate(blocks) if _type(block) == "TOOL_CALL_END"]
    return [block for i, block in enumerate(blocks) if not ends or i != ends[0]]


def drop_results(blocks: list[str]) -> list[str]:
    """Leaves out every TOOL_CALL_RESULT event, though the snapshot keeps the results."""
    return [block for block in blocks if _type(block) != "TOOL_CALL_RESULT"]


class ForwardsResolvedControl:
    """A chat client model that is also sent the endpoint's resolved `confirm_changes` control: once a call has a
    result, its confirmation call and the accepted answer to it are put before the results."""

    def __init__(self, inner: ModelProvider) -> None:
        self.inner = inner

    def _with_control(self, messages: Sequence[Message]) -> list[Message]:
        results = [c for m in messages for c in m.contents if isinstance(c, FunctionResult)]
        if not results:
            return list(messages)
        arguments: dict[str, JSON] = {"function_call_id": results[0].call_id}
        control = [Message("assistant", (FunctionCall("confirm-1", "confirm_changes", arguments),)),
                   Message("tool", (FunctionResult("confirm-1", '{"accepted": true}'),))]
        at = next(i for i, m in enumerate(messages) if any(isinstance(c, FunctionResult) for c in m.contents))
        return [*messages[:at], *control, *messages[at:]]

    async def complete(self, messages: Sequence[Message], *, tool_choice: str | None = None,
                       tools: Sequence[str] = (), kwargs: Mapping[str, JSON] | None = None,
                       conversation_id: str | None = None) -> Response:
        return await self.inner.complete(self._with_control(messages), tool_choice=tool_choice, tools=tools,
                                         kwargs=kwargs, conversation_id=conversation_id)

    def stream(self, messages: Sequence[Message], *, tool_choice: str | None = None, tools: Sequence[str] = (),
               kwargs: Mapping[str, JSON] | None = None, conversation_id: str | None = None) -> AsyncIterator[Update]:
        return self.inner.stream(self._with_control(messages), tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                 conversation_id=conversation_id)


@dataclass(frozen=True)
class EventControl:
    id: str
    check: str  # the event-level check that must fail
    scenario_path: Path
    app_wrapper: Callable[[AsgiApp], AsgiApp] | None = None
    provider_wrapper: Callable[[ModelProvider], ModelProvider] | None = None

    def adapter(self) -> AgUiAdapter:
        return AgUiAdapter(self.app_wrapper, self.provider_wrapper, name=f"control-{self.id}")


EVENT_CONTROLS = (
    EventControl("duplicate-result-event", "result-events-once", APPROVED_RESUME,
                 app_wrapper=rewriting(duplicate_results)),
    EventControl("drop-end-event", "events-well-formed", APPROVED_RESUME, app_wrapper=rewriting(drop_first_end)),
    EventControl("drop-result-events", "snapshot-agrees", PLAIN_CALLS, app_wrapper=rewriting(drop_results)),
    EventControl("forward-resolved-control", "no-approval-controls-to-model", APPROVED_RESUME,
                 provider_wrapper=ForwardsResolvedControl),
)
