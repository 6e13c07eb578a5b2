"""The in-process HTTP transport: a provider SDK's own HTTP client whose requests the wire service answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakes.wire.service import WireService


def async_http_client(service: WireService, library: str) -> Any:
    """An asynchronous client of the HTTP library `library` (``httpx2``, what the `openai` SDK is built on, or
    ``httpx``, what `google-genai` takes) answering from `service`: no socket is opened. Both libraries share the
    mock-transport interface, so one answering function serves both."""
    import importlib

    http: Any = importlib.import_module(library)

    async def answer(request: Any) -> Any:
        reply = await service.handle(request.method, request.url.path, request.content)
        return http.Response(reply.status, content=reply.body, headers={"content-type": reply.content_type})

    return http.AsyncClient(transport=http.MockTransport(answer), base_url=service.base_url)
