"""Deliberately broken wrappers around the AG-UI endpoint: the interop test must fail each of them.

Each is plain ASGI middleware, so the framework's endpoint itself is untouched and the break is exactly the named one.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def _frames(body: bytes) -> list[bytes]:
    return [frame + b"\n\n" for frame in body.split(b"\n\n") if frame.strip()]


def _event_type(frame: bytes) -> str | None:
    data = b"".join(line[len(b"data:"):] for line in frame.splitlines() if line.startswith(b"data:"))
    try:
        event = json.loads(data) if data else None
    except ValueError:
        return None
    return str(event.get("type")) if isinstance(event, dict) else None


def duplicating_result_events(app: App) -> App:
    """Sends every TOOL_CALL_RESULT event of the SSE stream twice, as an endpoint that emits a result per replay."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        async def send_twice(message: Message) -> None:
            if message.get("type") == "http.response.body" and message.get("body"):
                frames = _frames(bytes(message["body"]))
                doubled = [copy for frame in frames
                           for copy in ([frame, frame] if _event_type(frame) == "TOOL_CALL_RESULT" else [frame])]
                message = {**message, "body": b"".join(doubled)}
            await send(message)

        await app(scope, receive, send_twice)

    return wrapped


def history_dropping_on_resume(app: App) -> App:
    """Drops the conversation the client sends with a resume request, as an endpoint that resumes from the decision
    alone: the model's next call then gets the approved result without the call it answers."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += bytes(message.get("body", b""))
            more = bool(message.get("more_body"))
        request = json.loads(body) if body else {}
        if isinstance(request, dict) and request.get("resume"):
            request["messages"] = []
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()  # after the body, the server only listens for the client's disconnect
            delivered = True
            return {"type": "http.request", "body": json.dumps(request).encode(), "more_body": False}

        await app(scope, replay, send)

    return wrapped


def approval_forwarding_client(provider: Any) -> Any:
    """A chat client that also hands the model the approval it resolved, as a loop that forwards its resolved
    approval controls to the provider; built on demand, since only these tests need the framework imported."""
    from agent_framework import Content
    from agent_framework import Message as FwMessage

    from harness.adapters.agent_framework.client import ScriptedChatClient

    class ApprovalForwardingChatClient(ScriptedChatClient):
        def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
            calls = [c for m in messages for c in m.contents if c.type == "function_call"]
            answered = {c.call_id for m in messages for c in m.contents if c.type == "function_result"}
            resolved = [Content.from_function_approval_response(True, f"approval-{c.call_id}", c)
                        for c in calls if c.call_id in answered]
            forwarded = [*messages, FwMessage("user", resolved)] if resolved else list(messages)
            return super()._inner_get_response(messages=forwarded, stream=stream, options=options, **kwargs)

    return ApprovalForwardingChatClient(provider)
