"""A template process (fork server): one implementation's adapter built once, and a fresh fork of it per run.

Started by the judge as ``python -m harness.run.worker IMPLEMENTATION FD``. It builds the adapter, describes it
(JSON) on the control socket FD, then forks one process per run on request. Each run's process starts from the
same state, whatever earlier runs did to theirs (closed stdout, patched modules, changed the environment or the
scenario), has its own process group, stdout and stderr (a pipe the judge drains), and the run's socket.

When a run ends, the template kills the run's process group, then every process that escaped it (a new session,
a double fork): the template is their subreaper on Linux, so orphans come back to it, and it kills and reaps its
children until none is left. Nothing a run starts outlives the run.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import re
import signal
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from harness.contract import (
    Dialect,
    LoopAdapter,
    Mode,
    adapter_approval_controls,
    adapter_dialects,
    adapter_loop_modules,
    adapter_modes,
    adapter_profiles,
    adapter_provider_package,
    adapter_response_shape,
)
from harness.run.turns import one_line

if TYPE_CHECKING:  # not imported here: a template process needs no scenario model, and its import is costly
    from harness.scenario.model import Scenario

# A loop that allocates without end is stopped by the kernel rather than the machine.
MEMORY_LIMIT_BYTES = 6 * 1024**3
CONTROL_BYTES = 1 << 17  # a control message's limit (a socket of packets: below its buffer's size)
LEARNED_AT_ONCE = 1000  # module names one learn message carries
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
# Modules whose import does something beyond defining names; never imported ahead for a run.
_NEVER_AHEAD = frozenset({"__main__", "antigravity", "this"})
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class ProbeJob:
    """Build the adapter once, to learn whether it is installed, its version and whether it works at all."""

    index: int
    implementation: str


@dataclass(frozen=True)
class RunJob:
    index: int
    implementation: str
    scenario: Scenario
    mode: Mode
    turn_timeout: float
    dialect: Dialect = "neutral"


@dataclass(frozen=True)
class ProbeOutcome:
    implementation: str
    version: str = ""
    name: str = ""  # the adapter's own name, which results carry
    dialects: tuple[Dialect, ...] = ("neutral",)  # the providers it runs over, neutral first
    unavailable: str | None = None  # the extra is not installed (ImportError)
    broken: str | None = None  # the factory failed otherwise


@dataclass(frozen=True)
class Crashed:
    """Something escaped the job itself (`sys.exit` in the loop)."""

    message: str
    detail: str


def describe(adapter: LoopAdapter) -> dict[str, object]:
    """Everything the judge reads of an adapter, as plain JSON values."""
    dialects = adapter_dialects(adapter)
    modes, reason = adapter_modes(adapter)
    unexpressible = cast(object, getattr(adapter, "unexpressible", {}))
    return {
        "name": str(adapter.name), "version": str(adapter.version),
        "capabilities": sorted(str(c) for c in cast(frozenset[object], adapter.capabilities)),
        "dialects": list(dialects), "modes": list(modes), "modes_reason": str(reason),
        "unexpressible": {str(k): str(v) for k, v in cast(dict[object, object], unexpressible).items()},
        "provider_packages": {d: adapter_provider_package(adapter, d) for d in dialects if d != "neutral"},
        "profiles": sorted(adapter_profiles(adapter)), "loop_modules": list(adapter_loop_modules(adapter)),
        "response_shape": adapter_response_shape(adapter), "approval_controls": adapter_approval_controls(adapter),
    }


def serve(implementation: str, control: socket.socket) -> None:
    """The template's life: describe the adapter, then fork runs and end them until the judge goes away."""
    from harness.run.registry import load_adapter

    try:
        adapter = load_adapter(implementation)
    except ImportError as error:
        _tell(control, {"kind": "unavailable", "message": f"not available ({error})"})
        return
    except BaseException as error:  # noqa: BLE001 - sys.exit and KeyboardInterrupt in a factory are its fault too
        _tell(control, {"kind": "broken", "message": f"its factory raised {one_line(error)}"})
        return
    try:
        description = describe(adapter)
    except Exception as error:  # noqa: BLE001 - declarations that are no sets of names break this adapter only
        _tell(control, {"kind": "broken", "message": f"its declarations could not be read: {one_line(error)}"})
        return
    _import_ahead(description)
    _tell(control, {"kind": "ready", "adapter": description})
    _fork_runs(control, adapter)


def _fork_runs(control: socket.socket, adapter: LoopAdapter) -> None:
    running: int | None = None
    while True:
        # Everything alive now is the forks' shared state: frozen, no collection in a run walks (and so copies) it.
        # O(1); a collection here instead would cost more than a run.
        gc.freeze()
        try:
            data = control.recv(CONTROL_BYTES)
        except OSError:
            data = b""
        if not data:
            break
        try:
            command = cast(dict[str, Any], json.loads(data))
        except ValueError:  # cut at CONTROL_BYTES: the judge keeps its messages shorter, so none is
            continue
        if command["kind"] == "fork" and running is None:
            running = _fork(control, adapter)
        elif command["kind"] == "end" and running is not None:
            code = _end(running)
            running = None
            _tell(control, {"kind": "ended", "code": code})
        elif command["kind"] == "learn":
            _learn(cast(list[str], command["modules"]))
    if running is not None:
        _end(running)


def _fork(control: socket.socket, adapter: LoopAdapter) -> int:
    ours, theirs = socket.socketpair()
    output_read, output_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the run's process
        try:
            os.setpgid(0, 0)
            _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # the template gone (killed), the run goes too
            _prctl(_PR_SET_CHILD_SUBREAPER, 1)  # what a run starts stays its own, even in a new session
            control.close()
            ours.close()
            os.close(output_read)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            from harness.run.child import own_output, serve_run

            own_output(output_write)
            serve_run(theirs, adapter)
        finally:
            os._exit(0)
    with contextlib.suppress(OSError):  # the child may already have done it, or already be gone
        os.setpgid(pid, pid)
    theirs.close()
    os.close(output_write)
    socket.send_fds(control, [json.dumps({"kind": "forked", "pid": pid}).encode()], [ours.fileno(), output_read])
    ours.close()
    os.close(output_read)
    return pid


def _end(pid: int) -> int | None:
    """Kill the run's process group and everything that escaped it; the run's exit code (negative: a signal)."""
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    code: int | None = None
    with contextlib.suppress(ChildProcessError):
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    _reap_escaped()
    return code


def _reap_escaped() -> None:
    """Kill and reap every child (the template runs one run process at a time, and it has just ended)."""
    own_group = os.getpgrp()
    while children := _children():
        for child in children:
            with contextlib.suppress(OSError):
                group = os.getpgid(child)
                if group != own_group:
                    os.killpg(group, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
        for child in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child, 0)


def _children() -> list[int]:
    """This process's children (orphans of a run included, once it is their subreaper)."""
    found: list[int] = []
    try:
        for task in Path("/proc/self/task").iterdir():
            found.extend(int(pid) for pid in (task / "children").read_text().split())
    except OSError:  # no /proc: reap what waitpid finds
        with contextlib.suppress(ChildProcessError):
            while (reaped := os.waitpid(-1, os.WNOHANG))[0]:
                found.append(reaped[0])
    return sorted(set(found))


def _import_ahead(description: dict[str, object]) -> None:
    """Import what every run over the adapter's dialects needs, once, here rather than in every fork."""
    importlib.import_module("harness.run.child")  # the run's side of the protocol
    import asyncio

    # asyncio makes its loop policy on first use: made here, so that every run finds it as the one before did.
    asyncio.run(asyncio.sleep(0))

    for dialect in cast(list[str], description["dialects"]):
        if dialect != "neutral":
            with contextlib.suppress(Exception):
                from fakes.wire import wire_dialect
                from fakes.wire.http import shared_async_http_client

                shared_async_http_client(wire_dialect(cast(Dialect, dialect)).http_library)


def _learn(modules: list[str]) -> None:
    """Import ahead the modules a finished run imported, so later forks need not (errors are the run's, later)."""
    for name in modules:
        if _MODULE_NAME.fullmatch(str(name)) and name.split(".")[0] not in _NEVER_AHEAD:
            with contextlib.suppress(BaseException):
                importlib.import_module(name)


def _tell(control: socket.socket, message: dict[str, object]) -> None:
    with contextlib.suppress(OSError):
        control.send(json.dumps(message).encode())



def _prctl(option: int, value: int) -> None:
    """Linux's process controls; elsewhere nothing (runs are then ended by their process group only)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def _limit_memory() -> None:
    try:
        import resource
    except ImportError:  # not on this platform: the judge's wall-clock limit still applies
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = MEMORY_LIMIT_BYTES if hard == resource.RLIM_INFINITY else min(hard, MEMORY_LIMIT_BYTES)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def main(argv: list[str]) -> None:
    """`python -m harness.run.worker IMPLEMENTATION FD`: serve forks of IMPLEMENTATION on the control socket FD."""
    control = socket.socket(fileno=int(argv[1]))
    _limit_memory()
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    # Interrupting is the judge's to do: it closes the control socket, and the template ends its run and exits.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(argv[0], control)


if __name__ == "__main__":
    # Run the importable copy of this module, so that the classes the runs use are the ones the judge pickles.
    import harness.run.worker

    harness.run.worker.main(sys.argv[1:])
