"""The loopback server the AG-UI interop test runs the endpoint in: it serves at once and always shuts down."""

from __future__ import annotations

import importlib.util
import socket
import urllib.request
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import pytest
from requirements_helper import require

Message = MutableMapping[str, Any]


async def _hello(scope: MutableMapping[str, Any], receive: Callable[[], Awaitable[Message]],
                 send: Callable[[Message], Awaitable[None]]) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"hello"})


def _refuses(url: str) -> bool:
    host, port = url.removeprefix("http://").split(":")
    with socket.socket() as probe:
        return probe.connect_ex((host, int(port))) != 0


@pytest.fixture
def loopback_server() -> Any:
    require(importlib.util.find_spec("uvicorn") is not None,
            "uvicorn is not installed: pip install -e '.[ag-ui]' -c constraints/latest.txt")
    from agui_loopback import LoopbackServer

    return LoopbackServer


def test_serves_on_a_free_loopback_port_and_stops(loopback_server: Any) -> None:
    with loopback_server(_hello) as url:
        assert url.startswith("http://127.0.0.1:")
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback never goes through a proxy
        with direct.open(url, timeout=30) as response:
            assert response.read() == b"hello"
    assert _refuses(url)


def test_stops_when_the_block_fails(loopback_server: Any) -> None:
    served: list[str] = []

    def failing_client() -> None:
        with loopback_server(_hello) as url:
            served.append(url)
            raise RuntimeError("the client gave up")

    with pytest.raises(RuntimeError, match="the client gave up"):
        failing_client()
    assert len(served) == 1
    assert _refuses(served[0])
