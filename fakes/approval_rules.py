"""Scripted auto-approval rules: each answers by its scripted match and records every call it was asked about."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from harness.contents import FunctionCall
from harness.script import ApprovalRuleSpec, RuleAsked


class ScriptedApprovalRule:
    """One auto-approval rule of a conversation. The record keeps a deep copy of the call as received, so a loop
    that later changes the call it passed cannot change what the rule was asked."""

    def __init__(self, spec: ApprovalRuleSpec, rules: ScriptedApprovalRules) -> None:
        self.spec = spec
        self._rules = rules

    @property
    def name(self) -> str:
        return self.spec.id

    def approves(self, call: FunctionCall) -> bool:
        answer = self.spec.approves(call)
        self._rules.asked.append(RuleAsked(self._rules.turn, self.name, copy.deepcopy(call), answer))
        return answer


class ScriptedApprovalRules:
    """Every auto-approval rule of a scenario, with one record of the questions they were asked, in order; the
    runner sets `turn` before each turn, as it does the toolbox's."""

    def __init__(self, specs: Sequence[ApprovalRuleSpec]) -> None:
        self.asked: list[RuleAsked] = []
        self.turn = 0
        self.rules = tuple(ScriptedApprovalRule(spec, self) for spec in specs)
