"""What any isolated run must pay, whatever the harness does: the floors `isolation_cost.py` sets the 1.15x target
against.

- `descendants_cpu`: CPU of the processes a pool keeps alive between passes (a template and its run process are
  not waited for until the pool closes, so `RUSAGE_CHILDREN` does not hold them yet).
- `round_trip_cpu`: one message each way between two Python processes over a socket, with nothing to read: what
  each message of the run protocol costs at the least.
- `ProtocolTally`: during one pass, how many messages the judge read and how much CPU it spent reading them
  strictly (JSON parsing and rebuilding the value model), the part of isolation that hostile input forbids
  skipping.
Linux only, as the isolation itself (process groups, `/proc`).
"""

from __future__ import annotations

import os
import resource
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from harness.run import codec
from harness.run.channel import Channel

_TICKS = os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    """CPU of this process and of every process it has waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def descendants_cpu(pid: int | None = None) -> float:
    """CPU of every live descendant of `pid` (default: this process), with what each has waited for."""
    total = 0.0
    for child in _children(os.getpid() if pid is None else pid):
        try:
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended meanwhile: its CPU reaches its parent's waited-for figures
            continue
        # utime, stime, cutime, cstime: fields 14-17 of proc(5), here 11-14 after the name.
        total += sum(int(f) for f in fields[11:15]) / _TICKS + descendants_cpu(child)
    return total


def all_cpu() -> float:
    return own_cpu() + descendants_cpu()


def _children(pid: int) -> list[int]:
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def round_trip_cpu(trips: int = 20_000) -> float:
    """CPU seconds, both sides, of one small length-prefixed message each way between two processes."""
    ours, theirs = socket.socketpair()
    before = own_cpu()
    pid = os.fork()
    if pid == 0:  # the echo side
        try:
            ours.close()
            while data := theirs.recv(64):
                theirs.sendall(data)
        finally:
            os._exit(0)
    theirs.close()
    message = b"\x00\x00\x00\x0c" + b'{"kind":"x"}'
    for _ in range(trips):
        ours.sendall(message)
        ours.recv(64)
    ours.close()
    os.waitpid(pid, 0)
    return (own_cpu() - before) / trips


class ProtocolTally:
    """Messages the judge read, and the CPU it spent reading them strictly, while `counting()` is on."""

    def __init__(self) -> None:
        self.messages = 0
        self.reading = 0.0

    @contextmanager
    def counting(self) -> Iterator[None]:
        original_receive, original_loads, original_decode = Channel.receive, codec.loads, codec.decode

        def receive(channel: Channel, deadline: float) -> dict[str, object]:
            self.messages += 1
            return original_receive(channel, deadline)

        Channel.receive = receive  # type: ignore[method-assign]
        codec.loads = self._timed(original_loads)
        codec.decode = self._timed(original_decode)
        try:
            yield
        finally:
            Channel.receive, codec.loads, codec.decode = original_receive, original_loads, original_decode  # type: ignore[method-assign]

    def _timed(self, read: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*arguments: Any) -> Any:
            started = time.thread_time()
            try:
                return read(*arguments)
            finally:
                self.reading += time.thread_time() - started

        return timed
