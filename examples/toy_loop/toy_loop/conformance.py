"""The toy loop's loop-conformance adapter, registered as ``toy_loop`` in the ``loop_conformance.adapters`` group.

Per scenario and mode the harness calls `ToyAdapter.open` with the scripted model and tools, `run_turn` once per
turn, then `close`. The adapter drives the loop as a caller would and reports what that caller saw; what the model
received and which tools ran the fakes record themselves.
"""

from __future__ import annotations

import importlib.metadata

from harness.contents import Message, Response, Text, Update, fold_updates
from harness.contract import (
    CallerView,
    Capability,
    ConversationSetup,
    RaisedError,
    ScriptedProviderError,
    TurnInput,
)
from toy_loop.loop import ToyLoop, UnknownToolError

# Only what the loop really does: it keeps reasoning contents with their calls, untouched, and it sees each call's
# service item id, so a call a response shows twice under one item id runs once. No approvals, user
# input, sessions, declaration-only or hosted tools, invocation kwargs, runtime tool changes or middleware: the
# scenarios that need one of those report n/a for toy_loop, with the missing capability as the reason.
CAPABILITIES: frozenset[Capability] = frozenset({"reasoning", "call-item-ids"})

# Scenarios whose caller input has no form in the loop's own API, each with the reason: n/a, never a pass. The toy
# loop takes every input the core scenarios give, so it names none; a framework that cannot take some input names
# it here (harness/adapters/langchain/settings.py: limits LangChain has no setting for).
UNEXPRESSIBLE: dict[str, str] = {}


class ToyConversation:
    """One scenario run in one mode: one loop, the responses it returned so far."""

    def __init__(self, setup: ConversationSetup) -> None:
        self._setup = setup
        tools = {tool.name: tool for tool in setup.toolbox.offered()}
        self._loop = ToyLoop(setup.provider, tools, setup.config)
        self._returned: list[Response] = []

    async def run_turn(self, turn: TurnInput) -> CallerView:
        """Run the caller's turn; whatever the loop raises to its caller is reported, never raised.

        The response holds only this turn's new messages (the caller's input is not part of it), and streaming
        reports every update: their fold is the response the caller holds once the stream has ended.
        """
        messages = (Message.of("user", Text(turn.messages)),) if isinstance(turn.messages, str) else turn.messages
        updates: list[Update] = []
        error: RaisedError | None = None
        try:
            async for update in self._loop.run(messages, streaming=self._setup.mode == "streaming",
                                               tool_choice=self._setup.tool_choice):
                updates.append(update)
        except UnknownToolError as raised:
            error = RaisedError(type(raised).__name__, str(raised), "unknown-tool")
        except ScriptedProviderError as raised:
            error = RaisedError(type(raised).__name__, str(raised), "provider")
        except Exception as raised:
            error = RaisedError(type(raised).__name__, str(raised), "loop")
        response = None if error is not None else fold_updates(updates)
        view = CallerView(
            updates=tuple(updates) if self._setup.mode == "streaming" else (),
            response=response,
            error=error,
            # Neutral messages are frozen, so re-reading the caller's input gives it back unchanged. A framework
            # with mutable messages converts the caller's own objects again here, after the turn.
            inputs_after=turn.messages,
            earlier_responses_after=tuple(self._returned),
        )
        if response is not None:
            self._returned.append(response)
        return view

    async def close(self) -> None:
        return None


class ToyAdapter:
    """The toy loop, as loop-conformance sees it."""

    name = "toy_loop"
    capabilities = CAPABILITIES
    # Built to spec 004, so it owes its caller the spec's mechanisms too, not only safety: both profiles gate.
    profiles = frozenset({"safety", "contract"})
    modes = frozenset({"non-streaming", "streaming"})  # both, the default; a loop that cannot stream leaves it out
    unexpressible = UNEXPRESSIBLE
    response_shape = "messages"  # a model response's messages are kept as they came, several per call included
    approval_controls = "caller-history"  # the default; the toy loop has no approvals at all

    def __init__(self) -> None:
        try:
            self.version = importlib.metadata.version("loop-conformance-toy-loop")
        except importlib.metadata.PackageNotFoundError:  # imported from a checkout, not installed
            self.version = "0+unknown"

    def open(self, setup: ConversationSetup) -> ToyConversation:
        return ToyConversation(setup)


def adapter() -> ToyAdapter:
    """Entry point: a fresh adapter (``toy_loop = "toy_loop.conformance:adapter"``)."""
    return ToyAdapter()
