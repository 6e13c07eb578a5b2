"""The loop under test as a UI reaches it: an Agent Framework `Agent` over the scripted chat client, served by the
AG-UI package's own FastAPI endpoint, and an HTTP client whose transport calls that app in-process (no sockets)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, cast

import httpx
from agent_framework import Agent
from fastapi import FastAPI

from agent_framework_ag_ui import add_agent_framework_fastapi_endpoint
from harness.adapters.agent_framework.approval_layer import approval_middleware
from harness.adapters.agent_framework.client import ScriptedChatClient
from harness.adapters.agent_framework.context import context_providers
from harness.adapters.agent_framework.conversation import invocation_configuration
from harness.adapters.agent_framework.tools import TerminateOnRequest, build_tools
from harness.contract import ConversationSetup, ModelProvider

# An ASGI application, as Starlette types it (a callable of scope, receive and send).
AsgiApp = Callable[..., Any]
AppWrapper = Callable[[AsgiApp], AsgiApp]
ProviderWrapper = Callable[[ModelProvider], ModelProvider]
PATH = "/agent"
BASE_URL = "http://ag-ui.invalid"  # never resolved: the transport answers in-process


def build_agent(setup: ConversationSetup, provider: ModelProvider) -> Agent[Any]:
    # The middleware also tells each tool body which call it runs for, so executions carry their call ids.
    client = ScriptedChatClient(provider, function_invocation_configuration=invocation_configuration(setup.config),
                                middleware=[TerminateOnRequest()])
    catalogue = build_tools(setup.toolbox.tools)
    options: dict[str, Any] = {} if setup.tool_choice is None else {"tool_choice": setup.tool_choice}
    return Agent(client, tools=[catalogue[t.name] for t in setup.toolbox.offered()],
                 middleware=approval_middleware(setup.approval_policy),
                 context_providers=context_providers(setup.context, catalogue),
                 default_options=cast(Any, options or None))


def build_app(agent: Agent[Any]) -> FastAPI:
    app = FastAPI()
    # One principal per conversation; no keepalive comments, which only matter to a slow real socket. Releases
    # before these options served one anonymous principal and sent no keepalives, which is the same endpoint.
    wanted: dict[str, Any] = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, agent, PATH, **{k: v for k, v in wanted.items() if k in accepted})
    return app


def http_client(app: AsgiApp) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL, timeout=None)
