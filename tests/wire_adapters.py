"""An adapter declaring a wire dialect, for the tests of the provider dimension, and stand-ins for the wire fakes.

`WireIgnoringAdapter` is the reference loop declaring ``openai-chat``: it records the setup it was opened with and
then calls the neutral provider as always, ignoring the wire endpoint, so a wire run is produced and judged whatever
the wire fakes can do. Referenced as ``wire_adapters:adapter`` (a ``module:factory`` reference), it runs in the
harness's worker processes too; there the factory installs the stand-in endpoint that ``LC_TEST_WIRE`` names
(``trivial`` or ``missing``) in `fakes.wire`, since a test's monkeypatch does not reach another process. A test that
sets ``LC_TEST_WIRE`` and builds the adapter in its own process must let monkeypatch restore `fakes.wire`.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

import fakes.wire
from fakes.provider import ScriptedProvider
from harness.adapters.reference import ReferenceAdapter, ReferenceConversation
from harness.contents import Content
from harness.contract import ConversationSetup, Dialect, WireEndpoint


@dataclass(frozen=True)
class TrivialEndpoint:
    """An endpoint that serves nothing: enough for an adapter that ignores it."""

    dialect: Dialect
    base_url: str = "http://wire.invalid/v1"

    def http_client(self) -> object:
        return object()

    def shared_http_client(self) -> object:
        return object()

    def serving(self) -> AbstractContextManager[None]:
        return nullcontext()

    def as_scripted(self, content: Content) -> Content:
        return content


def trivial_wire_endpoint(dialect: Dialect, provider: ScriptedProvider) -> WireEndpoint:
    return TrivialEndpoint(dialect)


def missing_wire_endpoint(dialect: Dialect, provider: ScriptedProvider) -> WireEndpoint:
    raise ModuleNotFoundError("No module named 'openai'", name="openai")


STAND_INS = {"trivial": trivial_wire_endpoint, "missing": missing_wire_endpoint}


class WireIgnoringAdapter(ReferenceAdapter):
    """The reference loop, declaring the openai-chat dialect and calling the neutral provider whatever it is given."""

    dialects = frozenset({"openai-chat"})

    def __init__(self) -> None:
        super().__init__(name="wire_ignoring")
        self.opened: list[tuple[Dialect, WireEndpoint | None]] = []

    def open(self, setup: ConversationSetup) -> ReferenceConversation:
        self.opened.append((setup.dialect, setup.wire))
        return super().open(setup)


def adapter() -> WireIgnoringAdapter:
    stand_in = os.environ.get("LC_TEST_WIRE")
    if stand_in:
        fakes.wire.make_wire_endpoint = STAND_INS[stand_in]
    return WireIgnoringAdapter()
