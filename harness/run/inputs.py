"""Building a turn's caller input, including decisions on approval requests that earlier turns returned."""

from __future__ import annotations

from collections.abc import Sequence

from harness.contents import ApprovalRequest, ApprovalResponse, Content, FunctionCall, FunctionResult, Message, Text
from harness.records import TurnRecord
from harness.scenario.model import Turn, build_content
from harness.scenario.schema import STANDING_DECISIONS


class TurnInputError(Exception):
    """A turn refers to something the implementation did not return on an earlier turn."""


def build_input(turn: Turn, earlier: Sequence[TurnRecord], labels: dict[str, tuple[str, int]],
                calls: dict[str, FunctionCall]) -> str | tuple[Message, ...]:
    """The caller's input for `turn`. `labels` maps a label to (call id, occurrence number from 1)."""
    if isinstance(turn.spec.input, str):
        return turn.spec.input
    messages: list[Message] = []
    for item in turn.spec.input:
        if item.user is not None:
            messages.append(Message("user", (Text(item.user),)))
        elif item.system is not None:
            messages.append(Message("system", (Text(item.system),)))
        elif item.message is not None:
            contents = tuple(
                _naming_occurrence(build_content(c, calls), c.function_result.occurrence, earlier, labels)
                if c.function_result is not None and c.function_result.occurrence is not None
                else build_content(c, calls)
                for c in item.message.contents)
            messages.append(Message(item.message.role, contents))
        elif item.history is not None:
            messages.extend(conversation_so_far(earlier))
        elif item.approvals is not None:
            decisions: list[Content] = []
            for ref, decision in item.approvals.items():
                request = _find_request(ref, earlier, labels)
                decisions.append(ApprovalResponse(request.id, decision != "reject", request.function_call,
                                                  STANDING_DECISIONS.get(decision)))
            messages.append(Message("user", tuple(decisions)))
    return tuple(messages)


def conversation_so_far(earlier: Sequence[TurnRecord]) -> list[Message]:
    """What a caller keeping its own history holds after the earlier turns: every input and response, once.

    A turn whose input already replayed the conversation restarts the transcript from that input.
    """
    transcript: list[Message] = []
    for record in earlier:
        inputs = list(record.input_messages())
        transcript = inputs if record.replays_history else [*transcript, *inputs]
        transcript.extend(record.response_messages())
    return transcript


def _naming_occurrence(content: Content, label: str, earlier: Sequence[TurnRecord],
                       labels: dict[str, tuple[str, int]]) -> Content:
    """A result that names the call occurrence it answers by the identity the loop returned for it."""
    assert isinstance(content, FunctionResult)
    call_id, occurrence = labels.get(label, (label, 0))
    returned = [c for record in earlier for m in record.response_messages() for c in m.contents
                if isinstance(c, FunctionCall) and c.call_id == call_id]
    if not returned or occurrence > len(returned):
        raise TurnInputError(f"the result names occurrence '{label}' of call id '{call_id}', but earlier responses "
                             f"hold {len(returned)} call(s) with that id")
    named = returned[max(occurrence, 1) - 1].occurrence_id
    return FunctionResult(content.call_id, content.result, content.error, named)


def _find_request(ref: str, earlier: Sequence[TurnRecord], labels: dict[str, tuple[str, int]]) -> ApprovalRequest:
    call_id, occurrence = labels.get(ref, (ref, 0))
    requests = [c for record in earlier for m in record.response_messages() for c in m.contents
                if isinstance(c, ApprovalRequest) and c.function_call.call_id == call_id]
    if not requests:
        raise TurnInputError(f"the input decides on the approval request for '{ref}', but no earlier response "
                             f"holds an approval request for call id '{call_id}'")
    if occurrence:
        if occurrence > len(requests):
            raise TurnInputError(f"'{ref}' is occurrence {occurrence} of call id '{call_id}', but earlier "
                                 f"responses hold {len(requests)} approval requests for it")
        return requests[occurrence - 1]
    return requests[-1]
