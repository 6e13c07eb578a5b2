"""agent-framework-ag-ui 1.0.0rc7 predates the protocol's interrupt outcome: it lists a paused run's interrupts in an
`interrupt` field of RUN_FINISHED and reads decisions only as its own resume form. The adapter answers such a run
in that form and every later release with the protocol's resume entries, so the endpoint gets the caller's decision
on every release (before this, rc7 never got one and every approval run failed for the adapter's reason)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("agent_framework_ag_ui", reason="the adapter imports agent-framework-ag-ui")

from harness.adapters.agent_framework_ag_ui.conversation import (  # noqa: E402
    AgUiConversation,
    legacy_interrupts,
)
from harness.contents import ApprovalResponse, FunctionCall, Message, Text  # noqa: E402
from harness.contract import TransportEvent, TurnInput  # noqa: E402

CALL = FunctionCall("c1", "delete_file", {"path": "/tmp/a.txt"})
LEGACY_FINISH = TransportEvent("RUN_FINISHED", {"threadId": "t", "runId": "r", "interrupt": [
    {"id": "c1", "value": {"type": "function_approval_request", "function_call": {"call_id": "c1"}}}]})
CANONICAL_FINISH = TransportEvent("RUN_FINISHED", {"threadId": "t", "runId": "r", "outcome": {
    "type": "interrupt", "interrupts": [{"id": "i1", "reason": "tool_call", "toolCallId": "c1"}]}})


def test_the_legacy_interrupt_list_is_read_only_without_the_protocols_outcome() -> None:
    assert legacy_interrupts([LEGACY_FINISH]) == ["c1"]
    assert legacy_interrupts([CANONICAL_FINISH]) == []
    assert legacy_interrupts([TransportEvent("RUN_FINISHED", {"threadId": "t", "runId": "r"})]) == []
    both = TransportEvent("RUN_FINISHED", {**CANONICAL_FINISH.fields, "interrupt": LEGACY_FINISH.fields["interrupt"]})
    assert legacy_interrupts([both]) == []


def _conversation(open_interrupts: set[str], legacy: set[str]) -> Any:
    conversation: Any = object.__new__(AgUiConversation)
    conversation.setup = type("Setup", (), {"use_session": False})()
    conversation.thread, conversation.originals, conversation._ids = [], {}, 0
    conversation.open_interrupts, conversation.legacy_interrupts = open_interrupts, legacy
    return conversation


def _turn(approval_id: str, approved: bool) -> TurnInput:
    return TurnInput(1, (Message("user", (Text("Delete it"),)), Message("assistant", (CALL,)),
                         Message("user", (ApprovalResponse(approval_id, approved, CALL),))))


@pytest.mark.parametrize("approved", [True, False])
def test_a_legacy_interrupt_is_answered_in_the_endpoints_own_form(approved: bool) -> None:
    conversation = _conversation({"c1"}, {"c1"})
    request = conversation._request(_turn("c1", approved))
    assert request["resume"] == {"interrupts": [{"id": "c1", "value": {"accepted": approved}}]}
    assert conversation.resumed == (["c1"] if approved else [])


def test_a_canonical_interrupt_is_answered_with_a_resume_entry() -> None:
    conversation = _conversation({"i1"}, set())
    request = conversation._request(_turn("i1", True))
    assert request["resume"] == [{"interruptId": "i1", "status": "resolved", "payload": {"approved": True}}]
    assert conversation.resumed == ["i1"]
