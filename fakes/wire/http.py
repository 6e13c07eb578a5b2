"""The in-process HTTP transport: a provider SDK's own HTTP client whose requests a wire service answers.

Two kinds of client: one per service (`async_http_client`), and one per process and HTTP library
(`shared_async_http_client`) that answers from whichever service the calling context is `serving`. The shared one
lets an adapter build a provider SDK's client once per process: building one per conversation costs far more than
the conversation itself (`google-genai` loads two SSL contexts per client, `openai` looks the platform up in a
thread per client).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Generator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakes.wire.service import WireReply, WireService

# A context variable, not a global: each asyncio task (and thread) sees the service its own run bound, so runs in
# one process never answer each other's requests, whatever runs beside them.
_SERVING: ContextVar[WireService | None] = ContextVar("wire_service_serving", default=None)
_SHARED: dict[str, Any] = {}  # HTTP library name -> its process-wide client


def async_http_client(service: WireService, library: str) -> Any:
    """An asynchronous client of the HTTP library `library` (``httpx2``, what the `openai` SDK is built on, or
    ``httpx``, what `google-genai` takes) answering from `service`: no socket is opened. Both libraries share the
    mock-transport interface, so one answering function serves both."""
    return _client(library, lambda: service, service.base_url)


def shared_async_http_client(library: str) -> Any:
    """The process-wide client of `library`, answering from the service the calling context is `serving`, and
    with a located error (HTTP 500) when it serves none or one of another library. Rebuilt if someone closed it."""
    client = _SHARED.get(library)
    if client is None or client.is_closed:
        from fakes.wire.service import BASE_URL

        client = _SHARED[library] = _client(library, _SERVING.get, BASE_URL)
    return client


@contextmanager
def serving(service: WireService) -> Generator[None]:
    """Within the block (and in every task it starts), the shared clients answer from `service`."""
    token = _SERVING.set(service)
    try:
        yield
    finally:
        _SERVING.reset(token)


def _client(library: str, current: Callable[[], WireService | None], base_url: str) -> Any:
    import importlib

    http: Any = importlib.import_module(library)

    async def answer(request: Any) -> Any:
        reply = await _reply(current(), library, request.method, request.url.path, request.content)
        return http.Response(reply.status, content=reply.body, headers={"content-type": reply.content_type})

    return http.AsyncClient(transport=http.MockTransport(answer), base_url=base_url)


def _reply(service: WireService | None, library: str, method: str, path: str, body: bytes) -> Awaitable[WireReply]:
    if service is not None and service.http_library == library:
        return service.handle(method, path, body)
    problem = (f"no wire service is serving this context: the adapter sent {method} {path} outside "
               "WireEndpoint.serving()") if service is None else (
        f"the wire service serving this context speaks {service.dialect} over {service.http_library}, not {library}")
    return _refused(problem)


async def _refused(problem: str) -> WireReply:
    from fakes.wire.service import WireReply

    body = {"error": {"message": problem, "type": "harness_error", "code": None}}
    return WireReply(500, json.dumps(body).encode(), "application/json")
