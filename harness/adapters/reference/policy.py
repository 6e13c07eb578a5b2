"""The reference loop's approval layer: standing decisions, auto-approval rules and the queue of unsurfaced requests.

A conversation may run behind an approval layer (`ApprovalPolicy`). The layer decides, for each call that needs
approval, whether a person must be asked:

* a standing decision the caller gave with an earlier approval covers later calls of the same tool within the same
  hosted server; an argument-scoped one only calls with exactly the same arguments (empty arguments match only a
  call without arguments, never "any");
* otherwise each auto-approval rule is asked, in order, with the call exactly as the model made it; the first that
  approves decides.

A call the layer approves runs like a call that needs no approval: at once when nothing else in its batch waits for
the caller, else held with its batch. Of the calls it cannot approve, one request is surfaced per run and the others
queue in the session; none of the batch runs before the caller has answered them all.

The state lives in the session and round-trips through its JSON form with it (`session`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.contents import ApprovalRequest, ApprovalResponse, FunctionCall, Message
from harness.contract import ApprovalPolicy
from harness.script import ApprovalScope

# A caller's standing approval is the scope of calls it covers from now on (`ApprovalScope.of_decision`).
StandingRule = ApprovalScope


@dataclass
class ApprovalState:
    """What the layer keeps between runs."""

    standing: list[StandingRule] = field(default_factory=lambda: [])
    queued: list[ApprovalRequest] = field(default_factory=lambda: [])  # requests not surfaced yet, model's order

    def learn(self, history: Sequence[Message]) -> None:
        """Standing decisions among the caller's approvals become rules (once each)."""
        for message in history:
            for content in message.contents:
                rule = ApprovalScope.of_decision(content) if isinstance(content, ApprovalResponse) else None
                if rule is not None and rule not in self.standing:
                    self.standing.append(rule)

    def queued_ids(self) -> dict[str, str]:
        """Call id -> request id of every queued request."""
        return {request.function_call.call_id: request.id for request in self.queued}


class ApprovalLayer:
    """Decides which calls needing approval the conversation's policy approves without a person."""

    def __init__(self, policy: ApprovalPolicy) -> None:
        self.policy = policy

    def approves(self, state: ApprovalState, call: FunctionCall) -> bool:
        if any(rule.covers(call) for rule in state.standing):
            return True
        return any(rule.approves(call) for rule in self.policy.rules)

