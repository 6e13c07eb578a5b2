"""Deliberately broken adapters: each misbehaves in one way a loop under test can, and the harness must survive it.

Referenced as ``misbehaving_adapters:NAME`` (a ``module:factory`` implementation reference), so they run in the
harness's worker processes exactly like an installed adapter.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from dataclasses import dataclass
from typing import Any

from harness.contents import Message, Text
from harness.contract import CallerView, Capability, ConversationSetup, ScriptedProviderError, TurnInput


@dataclass
class _Conversation:
    setup: ConversationSetup
    behaviour: str

    async def run_turn(self, turn: TurnInput) -> Any:
        b = self.behaviour
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


@dataclass
class _Adapter:
    behaviour: str
    name: str = "misbehaving"
    version: str = "0"
    capabilities: frozenset[Capability] = frozenset()

    def open(self, setup: ConversationSetup) -> _Conversation:
        return _Conversation(setup, self.behaviour)


BEHAVIOURS = ("spin", "blocking-sleep", "swallowed-cancellation", "endless-model-calls", "print-flood",
              "wrong-return-type", "wrong-field-type", "cancelled-error", "sys-exit", "hanging-close")


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


def factory_raises() -> _Adapter:
    raise RuntimeError("this factory is broken")


def factory_exits() -> _Adapter:
    sys.exit(4)


def factory_returns_nonsense() -> object:
    return 42
