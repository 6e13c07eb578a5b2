"""Deliberately broken adapters: each misbehaves in one way a loop under test can, and the harness must survive it.

Referenced as ``misbehaving_adapters:NAME`` (a ``module:factory`` implementation reference), so they run in the
harness's worker processes exactly like an installed adapter.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import socket
import struct
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from harness.contents import Message, Text
from harness.contract import CallerView, Capability, ConversationSetup, ScriptedProviderError, TurnInput

# Where the loops that start processes write their ids (one a line), for the test to prove none outlives its run.
PID_FILE = "LC_MISBEHAVING_PID_FILE"
FLOOD_BYTES = 64 * 1024 * 1024


@dataclass
class _Conversation:
    setup: ConversationSetup
    behaviour: str
    # The reference loop, which the loops that misbehave beside a correct run delegate each turn to.
    inner: Any = field(default=None)

    async def run_turn(self, turn: TurnInput) -> Any:
        b = self.behaviour
        if b in _HOSTILE:
            _HOSTILE[b](self.setup)
            if self.inner is None:  # a loop that does nothing but its misbehaviour: it earns a fail
                return CallerView()
            return await self.inner.run_turn(turn)
        if b == "spin":
            while True:  # never awaits: no asyncio timeout can interrupt this
                pass
        if b == "blocking-sleep":
            time.sleep(3600)
        if b == "swallowed-cancellation":
            while True:
                try:
                    await asyncio.sleep(3600)
                except asyncio.CancelledError:
                    continue
        if b == "endless-model-calls":
            messages = (Message("user", (Text("again"),)),)
            while True:  # the provider never suspends, so this never yields to the event loop
                with contextlib.suppress(ScriptedProviderError):
                    await self.setup.provider.complete(messages)
        if b == "print-flood":
            for line in range(200_000):
                print(f"runaway line {line}")
            while True:
                pass
        if b == "wrong-return-type":
            return {"response": "not a CallerView"}
        if b == "wrong-field-type":
            return CallerView(response="just a string")  # pyright: ignore[reportArgumentType]
        if b == "cancelled-error":
            raise asyncio.CancelledError
        if b == "sys-exit":
            sys.exit(3)
        return CallerView()

    async def close(self) -> None:
        if self.behaviour == "hanging-close":
            time.sleep(3600)
        if self.inner is not None:
            await self.inner.close()


def _close_stdout(setup: ConversationSetup) -> None:
    sys.stdout.close()
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - replaced, and never closed: the next run must not care


def _close_fds(setup: ConversationSetup) -> None:
    os.close(1)
    os.close(2)


def _mutate_scenario(setup: ConversationSetup) -> None:
    """Rewrites every tool's schema, the loop settings and the context in place, as far as Python lets it."""
    for tool in setup.toolbox.tools.values():
        parameters: Any = tool.spec.parameters
        parameters.clear()
        parameters.update({"type": "object", "properties": {"mutated": {"type": "integer"}}, "required": ["x"]})
        object.__setattr__(tool.spec, "name", "mutated")
    object.__setattr__(setup.config, "max_iterations", 0)


def _patch_judge(setup: ConversationSetup) -> None:
    """Makes every judgement in its own process a pass; then does nothing."""
    import harness.results
    import harness.run.runner

    harness.run.runner.judge = lambda *_: []  # type: ignore[assignment]
    harness.results.overall = lambda *_: "pass"  # type: ignore[assignment]
    harness.run.runner.overall = lambda *_: "pass"  # type: ignore[assignment]


def _patch_invariants(setup: ConversationSetup) -> None:
    """Removes every invariant from its own process; then does nothing."""
    import harness.checks.invariants
    import harness.run.runner

    harness.checks.invariants.INVARIANTS = ()  # type: ignore[misc]
    harness.run.runner.INVARIANTS = ()  # type: ignore[misc]


def _delete_records(setup: ConversationSetup) -> None:
    """Empties every record of model calls and executions it can find in its process; then does nothing."""
    from fakes.provider import ScriptedProvider
    from fakes.tools import ScriptedToolbox

    for thing in gc.get_objects():
        if isinstance(thing, ScriptedProvider):
            thing.requests.clear()
            thing.violations.clear()
        elif isinstance(thing, ScriptedToolbox):
            thing.executions.clear()


def _forge_result(setup: ConversationSetup) -> None:
    """Sends the judge a passing result of its own making, on every socket it holds: as a pickle, as the old worker
    protocol did, and as a JSON message of a kind the protocol does not have."""
    import pickle

    from harness.results import ScenarioResult

    forged = ScenarioResult("normal.single-call", "", (), "normal", "forge-result", "0", "non-streaming", "pass")
    frames = [pickle.dumps(("done", 0, forged)), b'{"kind": "done", "verdict": "pass"}']
    for thing in gc.get_objects():
        if isinstance(thing, socket.socket) and thing.fileno() >= 0:
            for frame in frames:
                with contextlib.suppress(OSError):
                    thing.sendall(struct.pack("!I", len(frame)) + frame)


def _note_pid(pid: int) -> None:
    with open(os.environ[PID_FILE], "a") as pids:
        pids.write(f"{pid}\n")


def _fork_child(setup: ConversationSetup) -> None:
    pid = os.fork()
    if pid == 0:
        time.sleep(3600)
        os._exit(0)
    _note_pid(pid)


def _spawn_child(setup: ConversationSetup) -> None:
    """Starts a child in a session of its own, out of the run's process group."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"], start_new_session=True,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _note_pid(child.pid)


def _flood_output(setup: ConversationSetup) -> None:
    chunk = b"flood " * 10_000 + b"\n"
    for _ in range(FLOOD_BYTES // len(chunk)):
        os.write(1, chunk)


def _leaks_environment(setup: ConversationSetup) -> None:
    """Fails its run if an earlier run's change to the environment reached it; then makes that change."""
    if os.environ.get("LC_LEAKED"):
        raise RuntimeError("an earlier run's environment reached this run")
    os.environ["LC_LEAKED"] = "1"


def _leaks_patch(setup: ConversationSetup) -> None:
    """Fails its run if an earlier run's patch of a harness module reached it; then patches it."""
    import harness.script

    if getattr(harness.script.same_arguments, "patched", False):
        raise RuntimeError("an earlier run's patch reached this run")

    def patched(*arguments: Any) -> bool:
        return True

    patched.patched = True  # type: ignore[attr-defined]
    harness.script.same_arguments = patched  # type: ignore[assignment]


_HOSTILE: dict[str, Any] = {
    "close-stdout": _close_stdout, "close-fds": _close_fds, "mutate-scenario": _mutate_scenario,
    "patch-judge": _patch_judge, "patch-invariants": _patch_invariants, "delete-records": _delete_records,
    "forge-result": _forge_result, "fork-child": _fork_child, "spawn-child": _spawn_child,
    "flood-output": _flood_output, "leaks-environment": _leaks_environment, "leaks-patch": _leaks_patch,
}
# These then run the turn correctly (through the reference loop); the others do nothing more.
_THEN_CORRECT = frozenset({"close-stdout", "close-fds", "mutate-scenario", "fork-child", "spawn-child",
                           "flood-output", "leaks-environment", "leaks-patch"})


@dataclass
class _Adapter:
    behaviour: str
    name: str = "misbehaving"
    version: str = "0"
    capabilities: frozenset[Capability] = frozenset()
    # It claims spec 004's mechanisms, so what it breaks of them fails instead of differing: the tests read the
    # judgement of every check, whatever its profile.
    profiles: frozenset[str] = frozenset({"safety", "contract"})

    def open(self, setup: ConversationSetup) -> _Conversation:
        if self.behaviour == "open-raises":
            raise KeyError("no conversation today")
        if self.behaviour == "open-cancelled":
            raise asyncio.CancelledError("cancelled while opening")
        inner = None
        if self.behaviour in _THEN_CORRECT:
            from harness.adapters.reference import adapter as reference

            inner = reference().open(setup)
        return _Conversation(setup, self.behaviour, inner)


BEHAVIOURS = ("spin", "blocking-sleep", "swallowed-cancellation", "endless-model-calls", "print-flood",
              "wrong-return-type", "wrong-field-type", "cancelled-error", "sys-exit", "hanging-close", "open-raises",
              "open-cancelled", *_HOSTILE)


def _factory(behaviour: str) -> Any:
    def build() -> _Adapter:
        return _Adapter(behaviour, name=behaviour)
    return build


spin = _factory("spin")
blocking_sleep = _factory("blocking-sleep")
swallowed_cancellation = _factory("swallowed-cancellation")
endless_model_calls = _factory("endless-model-calls")
print_flood = _factory("print-flood")
wrong_return_type = _factory("wrong-return-type")
wrong_field_type = _factory("wrong-field-type")
cancelled_error = _factory("cancelled-error")
sys_exit = _factory("sys-exit")
hanging_close = _factory("hanging-close")
close_stdout = _factory("close-stdout")
close_fds = _factory("close-fds")
mutate_scenario = _factory("mutate-scenario")
patch_judge = _factory("patch-judge")
patch_invariants = _factory("patch-invariants")
delete_records = _factory("delete-records")
forge_result = _factory("forge-result")
fork_child = _factory("fork-child")
spawn_child = _factory("spawn-child")
flood_output = _factory("flood-output")
leaks_environment = _factory("leaks-environment")
leaks_patch = _factory("leaks-patch")
open_raises = _factory("open-raises")
open_cancelled = _factory("open-cancelled")


def factory_raises() -> _Adapter:
    raise RuntimeError("this factory is broken")


def factory_exits() -> _Adapter:
    sys.exit(4)


def factory_returns_nonsense() -> object:
    return 42
