"""The in-process HTTP transport: a provider SDK's own HTTP client whose requests the wire service answers."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx2

if TYPE_CHECKING:
    from fakes.wire.service import WireService


def async_http_client(service: WireService) -> httpx2.AsyncClient:
    """An `httpx2.AsyncClient` (what the `openai` SDK is built on) answering from `service`: no socket is opened."""

    async def answer(request: httpx2.Request) -> httpx2.Response:
        reply = await service.handle(request.method, request.url.path, request.content)
        return httpx2.Response(reply.status, content=reply.body, headers={"content-type": reply.content_type})

    return httpx2.AsyncClient(transport=httpx2.MockTransport(answer), base_url=service.base_url)
