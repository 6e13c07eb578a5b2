"""The judge's end of one run's socket and output pipe: bounded frames, a hard deadline, a capped output tail.

The loop's process is not trusted to send whole frames, to stop printing, or to answer at all: every wait here ends
at the run's deadline, frames over `MAX_FRAME_BYTES` are refused, and its output is drained as it comes, keeping
only the last `TAIL_BYTES` (a marker says how much was cut), so a flooding loop costs neither disk nor memory.
"""

from __future__ import annotations

import os
import pickle
import selectors
import socket
import struct
import time
from typing import cast

from harness.run import codec

HEADER = struct.Struct("!I")
MAX_FRAME_BYTES = 256 * 1024 * 1024
TAIL_BYTES = 64 * 1024
RECEIVE_BYTES = 64 * 1024
TAIL_LINES = 20
TAIL_LINE_CHARACTERS = 300


class ChannelTimeoutError(Exception):
    """The run's deadline passed while waiting on its process."""


class ChannelClosedError(Exception):
    """The run's process closed its end: it exited or died."""


class ChannelProtocolError(Exception):
    """The run's process sent something that is no message of the protocol."""


class OutputTail:
    """The last `TAIL_BYTES` a run printed, and how many bytes before them were dropped."""

    def __init__(self) -> None:
        self._kept = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        self._kept += data
        excess = len(self._kept) - TAIL_BYTES
        if excess > 0:
            del self._kept[:excess]
            self.dropped += excess

    def lines(self) -> tuple[str, ...]:
        """The last lines, each cut to `TAIL_LINE_CHARACTERS`, after a marker when output was cut."""
        text = self._kept.decode("utf-8", errors="replace")
        lines = [line[:TAIL_LINE_CHARACTERS] for line in text.splitlines()]
        if self.dropped == 0:
            return tuple(lines[-TAIL_LINES:])
        marker = f"[… output cut here: {self.dropped} earlier bytes not kept …]"
        return (marker, *lines[-(TAIL_LINES - 1):])


class Channel:
    """Frames to and from one run's process. Sends are pickled (the loop's process trusts the judge); what it
    sends back is read as JSON only (`harness.run.codec`)."""

    def __init__(self, connection: socket.socket, output: int) -> None:
        self._socket = connection
        self._socket.setblocking(False)
        self._output: int | None = output
        os.set_blocking(output, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._socket, selectors.EVENT_READ)
        self._selector.register(output, selectors.EVENT_READ)
        self._buffer = bytearray()
        self.tail = OutputTail()

    def send(self, message: object, deadline: float) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(HEADER.pack(len(data)) + data)
        while view:
            try:
                view = view[self._socket.send(view):]
            except BlockingIOError:
                self._wait(deadline, writing=True)
            except OSError as error:
                raise ChannelClosedError(str(error)) from None

    def receive(self, deadline: float) -> dict[str, object]:
        """The next message, as a JSON object with a string `kind`."""
        while True:
            frame = self._frame()
            if frame is not None:
                try:
                    message = codec.loads(frame)
                except codec.CodecError as error:
                    raise ChannelProtocolError(str(error)) from None
                fields = cast(dict[str, object], message) if isinstance(message, dict) else {}
                if not isinstance(fields.get("kind"), str):
                    raise ChannelProtocolError("a message that is not an object with a kind")
                return fields
            self._wait(deadline)
            self._read_socket()

    def drain_output(self) -> None:
        """Read whatever output is already waiting (the run has ended: nothing more will come)."""
        while self._output is not None and self._read_output():
            pass

    def close(self) -> None:
        self._selector.close()
        self._socket.close()
        if self._output is not None:
            os.close(self._output)
            self._output = None

    def _frame(self) -> bytes | None:
        if len(self._buffer) < HEADER.size:
            return None
        (size,) = HEADER.unpack_from(self._buffer)
        if size > MAX_FRAME_BYTES:
            raise ChannelProtocolError(f"a message of {size} bytes (at most {MAX_FRAME_BYTES})")
        if len(self._buffer) < HEADER.size + size:
            return None
        frame = bytes(self._buffer[HEADER.size:HEADER.size + size])
        del self._buffer[:HEADER.size + size]
        return frame

    def _wait(self, deadline: float, writing: bool = False) -> None:
        """Until the socket is ready (draining output meanwhile); raises at the deadline."""
        if writing:
            self._selector.modify(self._socket, selectors.EVENT_WRITE)
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ChannelTimeoutError
                for key, _ in self._selector.select(remaining):
                    if key.fileobj is self._socket:
                        return
                    self._read_output()
        finally:
            if writing:
                self._selector.modify(self._socket, selectors.EVENT_READ)

    def _read_socket(self) -> None:
        try:
            # At most 64 KiB at a time: a larger request makes the allocator map and unmap that much on every read,
            # which cost more than the read itself for the small messages most runs send.
            data = self._socket.recv(RECEIVE_BYTES)
        except BlockingIOError:
            return
        except OSError as error:
            raise ChannelClosedError(str(error)) from None
        if not data:
            raise ChannelClosedError("end of stream")
        self._buffer += data

    def _read_output(self) -> bool:
        """Read one chunk of output; False once none is waiting or the pipe is closed."""
        assert self._output is not None
        try:
            data = os.read(self._output, 1 << 16)
        except BlockingIOError:
            return False
        if not data:
            self._selector.unregister(self._output)
            os.close(self._output)
            self._output = None
            return False
        self.tail.add(data)
        return True
