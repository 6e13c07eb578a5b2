"""Running a job in a forked child under a hard time limit, several at a time.

A mutant can make the loop spin forever without awaiting, call `sys.exit` or crash the interpreter; only a child
process can be stopped from outside in every case. Forking (rather than starting an interpreter) lets every child
share the parent's already loaded scenarios and harness, so a mutant costs only its own imports and runs. Linux and
macOS only, as the mutation commands say.
"""

from __future__ import annotations

import json
import os
import resource
import selectors
import signal
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, cast

from harness.contents import JSON

MEMORY_LIMIT_BYTES = 6 * 1024**3  # a mutant that allocates without end is stopped by the kernel


@dataclass(frozen=True)
class ForkJob:
    key: str
    work: Callable[[], JSON]  # runs in the child; its JSON-able result is sent back
    timeout: float


@dataclass(frozen=True)
class ForkOutcome:
    key: str
    status: Literal["done", "timeout", "crashed"]
    value: JSON = None
    detail: str = ""
    seconds: float = 0.0


def _child(job: ForkJob, write_fd: int) -> None:
    """The child's whole life: quiet output, a memory limit, the job, its result down the pipe, exit."""
    status = 0
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = MEMORY_LIMIT_BYTES if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT_BYTES, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        payload = json.dumps({"value": job.work()})
    except BaseException:  # noqa: BLE001 - whatever the job raised, the parent gets it as text
        payload = json.dumps({"error": traceback.format_exc()})
        status = 1
    data = payload.encode("utf-8")
    while data:
        written = os.write(write_fd, data)
        data = data[written:]
    os.close(write_fd)
    os._exit(status)  # no atexit handlers, no flushing of the parent's inherited buffers


@dataclass
class _Running:
    job: ForkJob
    pid: int
    fd: int
    started: float
    chunks: list[bytes]


def run_forked(jobs: Sequence[ForkJob], parallel: int = 1) -> Iterator[ForkOutcome]:
    """Run `jobs` in forked children, at most `parallel` at once; yields each outcome as it finishes."""
    pending = list(reversed(jobs))
    running: dict[int, _Running] = {}
    selector = selectors.DefaultSelector()
    try:
        while pending or running:
            while pending and len(running) < max(1, parallel):
                job = pending.pop()
                read_fd, write_fd = os.pipe()
                pid = os.fork()
                if pid == 0:  # pragma: no cover - the child never returns
                    os.close(read_fd)
                    _child(job, write_fd)
                os.close(write_fd)
                running[read_fd] = _Running(job, pid, read_fd, time.monotonic(), [])
                selector.register(read_fd, selectors.EVENT_READ)
            now = time.monotonic()
            wait = min(r.started + r.job.timeout for r in running.values()) - now
            for key, _ in selector.select(max(0.0, wait)):
                entry = running[int(key.fd)]
                chunk = os.read(entry.fd, 65536)
                if chunk:
                    entry.chunks.append(chunk)
                    continue
                yield _finish(entry, selector, running)
            now = time.monotonic()
            for entry in [r for r in running.values() if now >= r.started + r.job.timeout]:
                os.kill(entry.pid, signal.SIGKILL)
                yield _finish(entry, selector, running, timed_out=True)
    finally:
        for entry in list(running.values()):
            os.kill(entry.pid, signal.SIGKILL)
            _finish(entry, selector, running)
        selector.close()


def _finish(entry: _Running, selector: selectors.BaseSelector, running: dict[int, _Running],
            timed_out: bool = False) -> ForkOutcome:
    selector.unregister(entry.fd)
    os.close(entry.fd)
    del running[entry.fd]
    _, status = os.waitpid(entry.pid, 0)
    seconds = time.monotonic() - entry.started
    if timed_out:
        return ForkOutcome(entry.job.key, "timeout", detail=f"did not finish within {entry.job.timeout:.1f}s",
                           seconds=seconds)
    try:
        message = cast(object, json.loads(b"".join(entry.chunks).decode("utf-8")))
    except ValueError:
        message = None
    sent = cast(dict[str, JSON], message) if isinstance(message, dict) else {}
    if "value" in sent:
        return ForkOutcome(entry.job.key, "done", sent["value"], seconds=seconds)
    if "error" in sent:
        return ForkOutcome(entry.job.key, "crashed", detail=str(sent["error"]), seconds=seconds)
    how = (f"killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
           else f"exited with status {os.WEXITSTATUS(status)}")
    return ForkOutcome(entry.job.key, "crashed", detail=f"the child {how} without a result", seconds=seconds)
