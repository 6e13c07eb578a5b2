"""The agent behind the framework's Responses hosting server (agent-framework-foundry-hosting), driven by a caller
over in-process HTTP.

The server (`ResponsesHostServer`) runs unmodified: it is an ASGI application, and the caller's HTTP client is
given a transport that calls it directly, so no socket opens. Inside it, the agent runs the framework's function
invocation layer over the same client a direct caller's agent gets (the scripted provider, or a provider client
over the wire endpoint), so what each model call receives is recorded as always. The caller is what a Responses
API client is: each turn one ``POST /responses`` with the turn's text, continuing the previous response by its id,
reading back output items (or, streaming, server-sent events). The server keeps the transcript in its response
store and hands it to the agent on every request; the agent's session, which the server saves per response, must
not keep a second copy.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Mapping
from typing import Any, cast

from agent_framework import Agent, SessionStore
from harness.adapters.agent_framework.approval_layer import approval_middleware
from harness.adapters.agent_framework.context import context_providers
from harness.adapters.agent_framework.conversation import (
    captured_logs,
    compaction_strategy,
    framework_client,
    wire_serving,
)
from harness.adapters.agent_framework.history import AuditHistoryProvider
from harness.adapters.agent_framework.responses_output import (
    UnreadableOutputError,
    response_from_output,
    streamed_response,
)
from harness.adapters.agent_framework.tools import build_tools
from harness.contents import Message, Response, Text, Update
from harness.contract import CallerView, ConversationSetup, RaisedError, TurnInput

try:
    import httpx
    from agent_framework_foundry_hosting import ResponsesHostServer
    from agent_framework_foundry_hosting._state_store import StoreProvider
    from azure.ai.agentserver.responses import InMemoryResponseProvider
except ImportError as missing:  # the run is n/a, naming what is missing
    raise ImportError(f"agent-framework-foundry-hosting is not installed ({missing})") from missing

_BASE_URL = "http://hosted-agent.invalid"
_HOST_LOGGER = "agent_framework_foundry_hosting"
_PER_SERVICE_CALL = "require_per_service_call_history_persistence"


def hosted_agent(setup: ConversationSetup) -> Agent[Any]:
    """The agent a developer hands the server: the scenario's tools, layers and providers over the loop's client."""
    host = setup.host
    settings: dict[str, Any] = {}
    if host is not None and host.persistence == "per-service-call":
        if _PER_SERVICE_CALL not in inspect.signature(Agent.__init__).parameters:
            # This release cannot persist per model call: the row cannot be run on it.
            raise ImportError(f"agent-framework-core {_core_version()} has no {_PER_SERVICE_CALL}")
        settings[_PER_SERVICE_CALL] = True
    catalogue = build_tools(setup.toolbox.tools)
    providers: list[Any] = list(context_providers(setup.context) or [])
    if setup.history_store is not None:
        providers.append(AuditHistoryProvider(setup.history_store))
    return Agent(framework_client(setup), tools=[catalogue[t.name] for t in setup.toolbox.offered()],
                 middleware=approval_middleware(setup.approval_policy), context_providers=providers or None,
                 compaction_strategy=compaction_strategy(setup), **settings)


def _core_version() -> str:
    from harness.adapters.agent_framework.features import FEATURES

    return FEATURES.version


class _ConversationSessions(StoreProvider[SessionStore]):
    """One in-memory agent-session store per conversation. The server's default keeps sessions in one file under the
    user's home, shared by every process and every run: parallel runs overwrite each other's sessions there, and a
    run would read what an earlier one left."""

    def __init__(self) -> None:
        with warnings.catch_warnings():
            # The framework marks its session store experimental; the server's own default is built on it too.
            warnings.simplefilter("ignore")
            self.store = SessionStore()

    def get_store(self, *, config: Any, platform_context: Any) -> SessionStore:
        return self.store


def hosting_server(agent: Agent[Any]) -> ResponsesHostServer:
    """The server as a developer starts it, with in-memory response and session stores; its telemetry setup is left
    out, as it would export to the platform (a test must not reach the network)."""
    store: dict[str, Any] = {_response_store_keyword(): InMemoryResponseProvider()}
    return ResponsesHostServer(agent, **store, configure_observability=None,
                               agent_session_store_provider=_ConversationSessions())


def _response_store_keyword() -> str:
    """The server's keyword for its response store: `response_store`, or `store` in the releases before it (paired
    with core 1.14.0 ... 1.19.0), which hand any keyword they do not know on to Starlette."""
    parameters = inspect.signature(ResponsesHostServer.__init__).parameters
    return "response_store" if "response_store" in parameters else "store"


def request_input(messages: str | tuple[Message, ...]) -> str | list[dict[str, Any]]:
    """The turn's text as Responses input: a string, or input messages (the loader allows text only)."""
    if isinstance(messages, str):
        return messages
    items: list[dict[str, Any]] = []
    for message in messages:
        parts = [{"type": "input_text", "text": c.text} for c in message.contents if isinstance(c, Text)]
        items.append({"type": "message", "role": message.role, "content": parts})
    return items


class HostedResponsesConversation:
    """One conversation with the hosted agent: the chain of responses the caller continues, turn by turn."""

    def __init__(self, setup: ConversationSetup, server: ResponsesHostServer | None = None) -> None:
        self.setup = setup
        self.server = server if server is not None else hosting_server(hosted_agent(setup))
        self._http = httpx.AsyncClient(transport=httpx.ASGITransport(app=self.server), base_url=_BASE_URL)
        self._previous_response_id: str | None = None
        self._returned: list[Response] = []

    def _body(self, turn: TurnInput) -> dict[str, Any]:
        body: dict[str, Any] = {"model": "scripted-model", "input": request_input(turn.messages),
                                "stream": self.setup.mode == "streaming"}
        if self._previous_response_id is not None:
            body["previous_response_id"] = self._previous_response_id
        if self.setup.tool_choice is not None:
            body["tool_choice"] = self.setup.tool_choice
        return body

    async def run_turn(self, turn: TurnInput) -> CallerView:
        updates: tuple[Update, ...] = ()
        # The server runs the agent inside this request, so the wire endpoint bound here answers its model calls.
        with captured_logs(_HOST_LOGGER) as logs, wire_serving(self.setup):
            reply = await self._http.post("/responses", json=self._body(turn))
        earlier = tuple(self._returned)
        try:
            if reply.status_code != 200:
                return self._view(turn, earlier, logs.lines,
                                  error=RaisedError("HTTPStatusError", f"{reply.status_code}: {reply.text}"))
            if self.setup.mode == "streaming":
                streamed = streamed_response(reply.text)
                updates, final = self._scripted_updates(streamed.updates), streamed.response
            else:
                final = cast(Mapping[str, Any], reply.json())
            if final.get("status") not in ("completed", "incomplete"):
                error = cast(Mapping[str, Any], final.get("error") or {})
                return self._view(turn, earlier, logs.lines, updates, error=RaisedError(
                    "ResponseFailed", f"response {final.get('status')}: {error.get('message', '')}"))
            response = self._scripted(response_from_output(cast(Any, final.get("output") or [])))
        except (UnreadableOutputError, ValueError) as unreadable:
            return self._view(turn, earlier, logs.lines, updates,
                              error=RaisedError(type(unreadable).__name__, str(unreadable)))
        self._previous_response_id = str(final.get("id"))
        self._returned.append(response)
        return self._view(turn, earlier, logs.lines, updates, response=response)

    def _scripted(self, response: Response) -> Response:
        """Over a wire, without what the service generated itself (`WireEndpoint.as_scripted`)."""
        wire = self.setup.wire
        if wire is None:
            return response
        return Response(tuple(Message(m.role, tuple(wire.as_scripted(c) for c in m.contents))
                              for m in response.messages), response.finish_reason, response.conversation_id)

    def _scripted_updates(self, updates: tuple[Update, ...]) -> tuple[Update, ...]:
        wire = self.setup.wire
        if wire is None:
            return updates
        return tuple(Update(u.role, tuple(wire.as_scripted(c) for c in u.contents), u.message_id) for u in updates)

    @staticmethod
    def _view(turn: TurnInput, earlier: tuple[Response, ...], log: list[str], updates: tuple[Update, ...] = (),
              response: Response | None = None, error: RaisedError | None = None) -> CallerView:
        # The caller's input and the responses it holds are its own parsed copies: nothing the server does can
        # change them, so they are reported as they are.
        return CallerView(updates, response, error, turn.messages, earlier, tuple(log))

    async def close(self) -> None:
        await self._http.aclose()
