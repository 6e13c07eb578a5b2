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

The state lives in the session and round-trips through its JSON form with it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from harness.contents import JSON, ApprovalRequest, ApprovalResponse, FunctionCall, Message
from harness.contract import ApprovalPolicy
from harness.script import same_arguments


@dataclass(frozen=True)
class StandingRule:
    """A caller's standing approval: `tool` within hosted server `server`, with exactly `arguments` if given."""

    tool: str
    server: str | None = None
    arguments: Mapping[str, JSON] | None = None

    def covers(self, call: FunctionCall) -> bool:
        if call.name != self.tool or call.server_label != self.server:
            return False
        return self.arguments is None or same_arguments(self.arguments, call.arguments)

    @staticmethod
    def from_decision(decision: ApprovalResponse) -> StandingRule:
        call = decision.function_call
        if decision.standing == "tool":
            return StandingRule(call.name, call.server_label)
        arguments = call.arguments
        parsed = cast(Mapping[str, JSON], json.loads(arguments or "{}")) if isinstance(arguments, str) else arguments
        return StandingRule(call.name, call.server_label, dict(parsed))


@dataclass
class ApprovalState:
    """What the layer keeps between runs."""

    standing: list[StandingRule] = field(default_factory=lambda: [])
    queued: list[ApprovalRequest] = field(default_factory=lambda: [])  # requests not surfaced yet, model's order

    def learn(self, history: Sequence[Message]) -> None:
        """Standing decisions among the caller's approvals become rules (once each)."""
        for message in history:
            for content in message.contents:
                if isinstance(content, ApprovalResponse) and content.approved and content.standing is not None:
                    rule = StandingRule.from_decision(content)
                    if rule not in self.standing:
                        self.standing.append(rule)

    def queued_ids(self) -> dict[str, str]:
        """Call id -> request id of every queued request."""
        return {request.function_call.call_id: request.id for request in self.queued}

    def to_json(self) -> dict[str, JSON]:
        return {
            "standing": [{"tool": r.tool, "server": r.server,
                          "arguments": None if r.arguments is None else dict(r.arguments)} for r in self.standing],
            "queued": [{"id": q.id, "call": _call_json(q.function_call)} for q in self.queued],
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ApprovalState:
        standing = [StandingRule(str(r["tool"]), r["server"], r["arguments"]) for r in data["standing"]]
        queued = [ApprovalRequest(str(q["id"]), _call_from(q["call"])) for q in data["queued"]]
        return ApprovalState(standing, queued)


class ApprovalLayer:
    """Decides which calls needing approval the conversation's policy approves without a person."""

    def __init__(self, policy: ApprovalPolicy) -> None:
        self.policy = policy

    def approves(self, state: ApprovalState, call: FunctionCall) -> bool:
        if any(rule.covers(call) for rule in state.standing):
            return True
        return any(rule.approves(call) for rule in self.policy.rules)


def _call_json(call: FunctionCall) -> dict[str, JSON]:
    return {"call_id": call.call_id, "name": call.name, "arguments": cast(JSON, call.arguments),
            "server_label": call.server_label, "occurrence_id": call.occurrence_id}


def _call_from(data: Mapping[str, Any]) -> FunctionCall:
    return FunctionCall(str(data["call_id"]), str(data["name"]), data["arguments"], False, data["server_label"],
                        data["occurrence_id"])
