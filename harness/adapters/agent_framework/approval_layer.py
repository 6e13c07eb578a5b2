"""The framework's approval middleware as the harness's approval layer: `ToolApprovalMiddleware` with the scenario's
auto-approval rules as its callbacks, and the caller's standing decisions written as the framework's helpers write
them. The middleware keeps its state in the session, so a session save and restore carries it."""

from __future__ import annotations

from typing import Any

from agent_framework import Content as FwContent
from agent_framework import (
    ToolApprovalMiddleware,
    create_always_approve_tool_response,
    create_always_approve_tool_with_arguments_response,
)
from harness.adapters.agent_framework.convert import call_from_framework
from harness.contents import ApprovalResponse
from harness.contract import ApprovalPolicy, AutoApprovalRule


def approval_middleware(policy: ApprovalPolicy | None) -> list[Any] | None:
    if policy is None:
        return None
    return [ToolApprovalMiddleware(auto_approval_rules=[_callback(rule) for rule in policy.rules])]


def _callback(rule: AutoApprovalRule) -> Any:
    def approves(function_call: FwContent) -> bool:
        return rule.approves(call_from_framework(function_call))

    return approves


def decision_on(request: FwContent, decision: ApprovalResponse) -> FwContent:
    """The caller's decision made on the request object the framework returned, as its documentation shows."""
    if decision.approved and decision.standing == "tool":
        return create_always_approve_tool_response(request)
    if decision.approved and decision.standing == "arguments":
        return create_always_approve_tool_with_arguments_response(request)
    return request.to_function_approval_response(decision.approved)
