"""The framework's own provider clients (agent-framework-openai, agent-framework-gemini), unmodified, talking to
the harness's wire fakes.

Only the HTTP client is ours: the provider SDK (`openai`, `google-genai`) is given one whose transport answers
in-process from the script, so the function invocation layer and the provider client's serialisation are exactly
what users run.

The SDK clients are built once per process, over the endpoint's shared HTTP client, and reused by every
conversation (each sends from inside its own endpoint's `serving()`): building them is what a wire run cost most,
and they hold nothing of a conversation's. The framework's client is still built per conversation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.contract import ConversationSetup, Dialect, WireEndpoint

DIALECTS: frozenset[Dialect] = frozenset({"openai-responses", "openai-chat", "gemini"})
# The packages the clients come from, numbered apart from agent-framework-core; results record their releases.
PROVIDER_PACKAGES: dict[Dialect, str] = {"openai-responses": "agent-framework-openai",
                                         "openai-chat": "agent-framework-openai",
                                         "gemini": "agent-framework-gemini"}

# (dialect, base URL) -> the shared HTTP client an SDK client was built over, and that SDK client
_SDK_CLIENTS: dict[tuple[Dialect, str], tuple[object, Any]] = {}


def wire_client(setup: ConversationSetup, **client_kwargs: Any) -> Any:
    """The framework's client for `setup.dialect`, built over the endpoint; raises ImportError when the provider
    package is not installed (the run is then n/a, never a pass)."""
    endpoint = setup.wire
    if endpoint is None:
        raise ValueError(f"dialect {setup.dialect} without a wire endpoint")
    if setup.dialect == "gemini":
        return _gemini_client(endpoint, **client_kwargs)
    try:
        from agent_framework_openai import OpenAIChatClient, OpenAIChatCompletionClient
        from openai import AsyncOpenAI
    except ImportError as missing:
        raise ImportError(f"agent-framework-openai is not installed ({missing})") from missing
    # No retries: a rejected or failed request is reported once, as the service answered it.
    sdk = _sdk_client(endpoint, lambda http: AsyncOpenAI(api_key="scripted", base_url=endpoint.base_url,
                                                         http_client=http, max_retries=0))
    if setup.dialect == "openai-responses":
        return OpenAIChatClient(model="scripted-model", async_client=sdk, **client_kwargs)
    if setup.dialect == "openai-chat":
        return OpenAIChatCompletionClient(model="scripted-model", async_client=sdk, **client_kwargs)
    raise ImportError(f"the agent_framework adapter has no client for the {setup.dialect} dialect")


def wire_options(setup: ConversationSetup) -> dict[str, Any]:
    """Per-call options: the Responses API stores responses unless told not to; a scenario without service-kept
    history replays the whole conversation, as the neutral provider expects."""
    if setup.dialect == "openai-responses" and not setup.service_stores_history:
        return {"store": False}
    return {}


def _gemini_client(endpoint: WireEndpoint, **client_kwargs: Any) -> Any:
    try:
        from agent_framework_gemini import GeminiChatClient
        from google import genai
        from google.genai import types
    except ImportError as missing:
        raise ImportError(f"agent-framework-gemini is not installed ({missing})") from missing
    sdk = _sdk_client(endpoint, lambda http: genai.Client(api_key="scripted", http_options=types.HttpOptions(
        base_url=endpoint.base_url, httpx_async_client=http)))
    return GeminiChatClient(model="scripted-model", client=sdk, **client_kwargs)


def _sdk_client(endpoint: WireEndpoint, build: Callable[[Any], Any]) -> Any:
    """The process's SDK client for the endpoint's dialect, built over its shared HTTP client (again if that
    client was replaced, having been closed)."""
    http = endpoint.shared_http_client()
    key = (endpoint.dialect, endpoint.base_url)
    cached = _SDK_CLIENTS.get(key)
    if cached is None or cached[0] is not http:
        cached = _SDK_CLIENTS[key] = (http, build(http))
    return cached[1]


def wire_provider_errors(setup: ConversationSetup) -> tuple[type[Exception], ...]:
    """What the caller gets when the service refuses or fails a request: the framework's client errors."""
    if setup.dialect == "neutral":
        return ()
    from agent_framework.exceptions import ChatClientException

    if setup.dialect == "gemini":
        # The Gemini client lets the SDK's own API errors through.
        from google.genai.errors import APIError

        return (ChatClientException, APIError)
    return (ChatClientException,)
