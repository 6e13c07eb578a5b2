"""An ASGI app served on a free loopback port from a background thread, for a client running in another process.

The scripted fakes stay in the test's process, so the test reads what they recorded directly. The listening socket
is bound before the server starts, so the port is known at once and a client that connects early waits in the
backlog; the server's own startup is awaited all the same, so a server that cannot start fails the test instead of
leaving the client to hang.
"""

from __future__ import annotations

import socket
import threading
from types import TracebackType
from typing import Any

import uvicorn

# Generous bounds against a wedged server; a healthy one starts and stops in well under a second.
STARTUP_TIMEOUT_SECONDS = 30.0
SHUTDOWN_TIMEOUT_SECONDS = 30.0


class _SignallingServer(uvicorn.Server):
    """A uvicorn server that says when its startup is over, however it ended."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.settled = threading.Event()
        self.failure: BaseException | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets)
        finally:
            self.settled.set()

    def serve_in_thread(self, sockets: list[socket.socket]) -> None:
        try:
            self.run(sockets=sockets)
        except BaseException as error:  # a thread's exception would otherwise only be printed
            self.failure = error
        finally:
            self.settled.set()


class LoopbackServer:
    """`with LoopbackServer(app) as url:` serves `app` at `url` (http://127.0.0.1:<free port>) until the block ends."""

    def __init__(self, app: Any) -> None:
        self._app = app
        self._socket: socket.socket | None = None
        self._server: _SignallingServer | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> str:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))  # port 0: the kernel picks a free port, so parallel workers never clash
        listener.listen()
        self._socket = listener
        # Plain asyncio and h11, no websockets and no lifespan: the endpoint needs none of them.
        config = uvicorn.Config(self._app, lifespan="off", loop="asyncio", http="h11", ws="none",
                                log_level="warning", timeout_graceful_shutdown=5)
        server = self._server = _SignallingServer(config)
        self._thread = threading.Thread(target=server.serve_in_thread, args=([listener],),
                                        name="agui-loopback-server", daemon=True)
        self._thread.start()
        if not server.settled.wait(STARTUP_TIMEOUT_SECONDS) or not server.started:
            self._stop()
            raise RuntimeError(f"the loopback AG-UI server did not start: {server.failure!r}")
        return f"http://127.0.0.1:{listener.getsockname()[1]}"

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._stop()

    def _stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(SHUTDOWN_TIMEOUT_SECONDS)
            if self._thread.is_alive():
                raise RuntimeError("the loopback AG-UI server did not shut down")
        if self._socket is not None:
            self._socket.close()
        if self._server is not None and self._server.failure is not None:
            raise RuntimeError(f"the loopback AG-UI server failed: {self._server.failure!r}")
