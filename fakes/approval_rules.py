"""Scripted auto-approval rules: each answers by its scripted match and records every call it was asked about."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from harness.contents import FunctionCall
from harness.script import ApprovalRuleSpec, RuleAsked


class ScriptedApprovalRule:
    """One auto-approval rule of a conversation. The record keeps a deep copy of the call as received, so a loop
    that later changes the call it passed cannot change what the rule was asked."""

    def __init__(self, spec: ApprovalRuleSpec, asked: list[RuleAsked]) -> None:
        self.spec = spec
        self._asked = asked
        self.turn = 0

    @property
    def name(self) -> str:
        return self.spec.id

    def approves(self, call: FunctionCall) -> bool:
        answer = self.spec.approves(call)
        self._asked.append(RuleAsked(self.turn, self.name, copy.deepcopy(call), answer))
        return answer


class ScriptedApprovalRules:
    """Every auto-approval rule of a scenario, with one record of the questions they were asked, in order."""

    def __init__(self, specs: Sequence[ApprovalRuleSpec]) -> None:
        self.asked: list[RuleAsked] = []
        self.rules = tuple(ScriptedApprovalRule(spec, self.asked) for spec in specs)

    @property
    def turn(self) -> int:
        return self.rules[0].turn if self.rules else 0

    @turn.setter
    def turn(self, value: int) -> None:
        for rule in self.rules:
            rule.turn = value
