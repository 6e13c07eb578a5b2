"""Negative controls for rows issue #15 found only partly checked, each failing the scenario that now checks it:

* `FilesResultsByCallId` keeps one outcome per call id when the approved occurrences of a reused id run in one
  turn (the last wins): the first occurrence's contents are replaced by the next round's, as a loop that keys an
  execution's contents by call id alone does ("Multi-content result with reused id",
  `correlation.multi-content.reused-id-same-turn`).
* `AccumulatesResultsByCallId` gives each occurrence every content produced so far for its call id, so the first
  execution's contents bleed into the next round's result (same row and scenario).
* `IgnoresFollowUpRequests` reads a history without the follow-up input requests an approved run raised, so the
  approval before one stays open and runs again; `FollowUpClosesEveryOccurrence` lets a follow-up spend every
  approval of its call id, the later reused-id one included, which then never runs ("Follow-up request closes
  one occurrence", `correlation.follow-up.only-the-follow-up-closes`: no result anywhere closes an occurrence,
  so only the follow-up can).
* `JudgesWholeResponseAfterLimit` decides per response instead of per content after a limit: a response holding
  any content of the service's own keeps everything, local calls included; any other loses its tool content
  ("Provider tool content after an active limit", `limits.post-limit-tool-content.mixed-local-and-hosted`). Each
  older scenario of the row holds only one kind of content, so none could tell.
* `EndsStreamAtDroppedCall` stops reading the stream at the first update whose local call it drops after a
  limit, losing the service's content and the metadata-only update that follow (same row and scenario).
* `SpendsNothingOnPausedExecutions` leaves an approved execution that paused for input out of the function-call
  budget; `SpendsOnePerInputRequest` charges one unit per input request instead of one per execution
  ("Approval-time user input", `approval.user-input.budget-unit`, which reads the loop's own count: the run ends
  at the pause, so no later decision of it shows the unit).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.adapters.reference import approvals
from harness.adapters.reference.loop import ReferenceLoop, _RunState  # pyright: ignore[reportPrivateUsage]
from harness.contents import ApprovalResponse, Content, FunctionCall, Message, Text, Update, UserInputRequest

BUNDLED = Path(__file__).resolve().parents[1] / "scenarios"
USER_INPUT_BUDGET = BUNDLED / "approval" / "user-input-budget.yaml"
USER_INPUT_BUDGET_SESSION = BUNDLED / "approval" / "user-input-budget-session.yaml"
MULTI_CONTENT_SAME_TURN = BUNDLED / "correlation" / "multi-content-reused-id-same-turn.yaml"
MIXED_AFTER_LIMIT = BUNDLED / "limits" / "post-limit-mixed-provider-content.yaml"
ONLY_THE_FOLLOW_UP_CLOSES = BUNDLED / "correlation" / "follow-up-handwritten.yaml"


def _by_call_id(calls: Sequence[FunctionCall], outcomes: Sequence[list[Content]], *,
                accumulate: bool) -> list[list[Content]]:
    filed: dict[str, list[Content]] = {}
    seen: list[list[Content]] = []
    for call, outcome in zip(calls, outcomes, strict=True):
        filed[call.call_id] = [*filed.get(call.call_id, []), *outcome] if accumulate else list(outcome)
        seen.append(list(filed[call.call_id]))
    return seen if accumulate else [filed[call.call_id] for call in calls]


class FilesResultsByCallId(ReferenceLoop):
    """One outcome per call id: a later execution of a reused id overwrites the earlier one's contents."""

    async def _execute_grouped(self, calls: list[FunctionCall], state: _RunState) -> list[list[Content]]:
        return _by_call_id(calls, await super()._execute_grouped(calls, state), accumulate=False)


class AccumulatesResultsByCallId(ReferenceLoop):
    """Each occurrence gets every content produced so far for its call id: the earlier execution's bleed on."""

    async def _execute_grouped(self, calls: list[FunctionCall], state: _RunState) -> list[list[Content]]:
        return _by_call_id(calls, await super()._execute_grouped(calls, state), accumulate=True)


def _follow_up_call_ids(history: Sequence[Message]) -> set[str]:
    return {c.function_call.call_id for m in history for c in m.contents
            if isinstance(c, UserInputRequest) and c.function_call is not None}


class IgnoresFollowUpRequests(ReferenceLoop):
    """Takes no notice of follow-up requests in the history: an approval they spent still counts as open."""

    def normalise(self, history: Sequence[Message], *, restore_calls: bool) -> approvals.Normalised:
        kept = [Message(m.role, tuple(c for c in m.contents if not isinstance(c, UserInputRequest))) for m in history]
        return super().normalise([m for m in kept if m.contents], restore_calls=restore_calls)


class FollowUpClosesEveryOccurrence(ReferenceLoop):
    """A follow-up request for a call id spends every approval of that id, later reused-id ones included."""

    def normalise(self, history: Sequence[Message], *, restore_calls: bool) -> approvals.Normalised:
        spent = _follow_up_call_ids(history)
        kept = [Message(m.role, tuple(c for c in m.contents if not (
            isinstance(c, ApprovalResponse) and c.function_call.call_id in spent))) for m in history]
        return super().normalise([m for m in kept if m.contents], restore_calls=restore_calls)


def _service_owned(content: Content) -> bool:
    return not isinstance(content, Text) and not ReferenceLoop._actionable(content)  # pyright: ignore[reportPrivateUsage]


def _holds_local_call(contents: Sequence[Content]) -> bool:
    return any(ReferenceLoop._actionable(c) for c in contents)  # pyright: ignore[reportPrivateUsage]


class JudgesWholeResponseAfterLimit(ReferenceLoop):
    """After a limit, keeps a whole response that holds any of the service's own tool content, local calls with
    it; from any other response it drops every tool content. Streamed, it must judge by the first update, which
    in the mixed scenario holds the local call: there it drops the service's content too."""

    judged_keep: bool | None = None  # streaming: the verdict on the response, from its first update

    def _keep_after_limit(self, messages: Sequence[Message], tool_choice: str | None) -> list[Message]:
        if tool_choice != "none" or any(_service_owned(c) for m in messages for c in m.contents):
            return list(messages)
        kept = [Message(m.role, tuple(c for c in m.contents if isinstance(c, Text))) for m in messages]
        return [m for m in kept if m.contents]

    def _keep_update_after_limit(self, update: Update, tool_choice: str | None) -> Update | None:
        if tool_choice != "none":
            return update
        if self.judged_keep is None:
            self.judged_keep = not _holds_local_call(update.contents)
        if self.judged_keep:
            return update
        contents = tuple(c for c in update.contents if isinstance(c, Text))
        return Update(update.role, contents, update.message_id, update.finish_reason) if contents else None


class EndsStreamAtDroppedCall(ReferenceLoop):
    """After a limit, ignores every update from the first one whose local call it drops."""

    ended = False

    def _keep_update_after_limit(self, update: Update, tool_choice: str | None) -> Update | None:
        if tool_choice == "none" and (self.ended or _holds_local_call(update.contents)):
            self.ended = True
            return None
        return super()._keep_update_after_limit(update, tool_choice)



def _input_requests(outcome: Sequence[Content]) -> int:
    return sum(1 for c in outcome if isinstance(c, UserInputRequest))


class SpendsNothingOnPausedExecutions(ReferenceLoop):
    """Counts an approved execution against the budget only once it produced a result: one that asks for input
    is left out."""

    async def _execute_grouped(self, calls: list[FunctionCall], state: _RunState) -> list[list[Content]]:
        outcomes = await super()._execute_grouped(calls, state)
        state.function_calls -= sum(1 for outcome in outcomes if _input_requests(outcome))
        return outcomes


class SpendsOnePerInputRequest(ReferenceLoop):
    """Counts each input request an approved execution raised as a call of its own."""

    async def _execute_grouped(self, calls: list[FunctionCall], state: _RunState) -> list[list[Content]]:
        outcomes = await super()._execute_grouped(calls, state)
        state.function_calls += sum(max(_input_requests(outcome) - 1, 0) for outcome in outcomes)
        return outcomes
