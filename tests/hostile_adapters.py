"""Adapters that hand the harness hostile values: identities no report should show, and caller views whose contents
break the vocabulary. Referenced as ``hostile_adapters:NAME`` (a ``module:factory`` implementation reference)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.adapters.reference import adapter as reference_adapter
from harness.contents import ApprovalRequest, FunctionCall, Message, Response, Text, Update
from harness.contract import CallerView, Capability, ConversationSetup, LoopAdapter, TurnInput


@dataclass
class _Renamed:
    """The reference loop under another name and version."""

    name: str
    version: str
    inner: LoopAdapter = field(default_factory=reference_adapter)

    @property
    def capabilities(self) -> frozenset[Capability]:
        return self.inner.capabilities

    def open(self, setup: ConversationSetup) -> Any:
        return self.inner.open(setup)


def superscript_version() -> _Renamed:
    return _Renamed("superscript_version", "1.\u00b2")


def markup_name() -> _Renamed:
    return _Renamed("x<script>", "1.0")


def _streamed_approval(arguments: Any) -> CallerView:
    call = FunctionCall("call-1", "get_weather", arguments)
    update = Update("assistant", (ApprovalRequest("approval-1", call),))
    return CallerView(updates=(update,), response=Response((Message("assistant", (Text("ok"),)),)))


_VIEWS = {
    # A streamed approval request whose call's arguments are a list, not a mapping or their text.
    "list-arguments": lambda: _streamed_approval([1, 2, 3]),
    # A response whose message holds something that is no content at all.
    "foreign-content": lambda: CallerView(response=Response((Message("assistant", ({"text": "hi"},)),))),  # pyright: ignore[reportArgumentType]
    # A function result whose value is no JSON value.
    "object-result": lambda: _streamed_approval({"city": object()}),
    # A message whose role is a number.
    "numeric-role": lambda: CallerView(response=Response((Message(7, (Text("hi"),)),))),  # pyright: ignore[reportArgumentType]
}


@dataclass
class _Conversation:
    breach: str

    async def run_turn(self, turn: TurnInput) -> CallerView:
        return _VIEWS[self.breach]()

    async def close(self) -> None:
        return None


@dataclass
class BreachingAdapter:
    """Returns a caller view that breaks the contract in the named way, whatever the scenario."""

    breach: str
    name: str = "breaching"
    version: str = "0"
    capabilities: frozenset[Capability] = frozenset()

    def open(self, setup: ConversationSetup) -> _Conversation:
        return _Conversation(self.breach)


BREACHES = tuple(_VIEWS)


def factory_segfaults() -> LoopAdapter:
    """Kills its own process the hard way, as a broken native extension would."""
    import os
    import signal

    os.kill(os.getpid(), signal.SIGSEGV)
    raise AssertionError("unreachable")


def factory_sleeps() -> LoopAdapter:
    import time

    time.sleep(3600)
    raise AssertionError("unreachable")
