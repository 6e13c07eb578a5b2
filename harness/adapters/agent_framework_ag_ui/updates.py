"""The updates a streaming caller sees. AG-UI interleaves the events of several messages (a result may arrive
before the next call of the same message ends), a UI assembles them by message id, and the run's messages snapshot
then replaces what it assembled (the spec sends a rejected call's result in the snapshot only, never as an event).
The updates are what the UI shows at the end of the run, message by message, one content per update; whether the
events agree with the snapshot is the event-level checks' business (`harness.checks.events`)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.contents import Message, Update


def updates_from_messages(messages: Sequence[Message]) -> tuple[Update, ...]:
    return tuple(Update(message.role, (content,), f"message-{index}")
                 for index, message in enumerate(messages) for content in message.contents)
