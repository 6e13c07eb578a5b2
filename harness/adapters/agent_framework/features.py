"""What the installed Agent Framework release supports, detected from its API rather than its version string."""

from __future__ import annotations

import importlib.metadata
import inspect
from dataclasses import dataclass

import agent_framework
import agent_framework._tools as agent_framework_tools  # pyright: ignore[reportPrivateUsage]
from agent_framework import Content, FunctionInvocationContext


@dataclass(frozen=True)
class Features:
    version: str
    informational_only: bool  # Content.informational_only exists
    hosted_flag: bool  # Content.hosted exists; older releases mark hosted calls by server_label only
    context_add_tools: bool  # tools can add tools for the next iteration through their invocation context
    approval_binding: bool  # approvals are bound to the session that issued them
    result_occurrence_id: bool  # a function result can name the call occurrence it answers
    call_item_id: bool  # a function call carries the service's item id (from which approval request ids are minted)
    sliding_window: bool  # the client takes a compaction strategy, and a sliding window by groups exists
    # The client keyword under which the function invocation layer takes the dict it counts a run's budget in (a
    # private name the framework's own tests pass); "" when the release has none.
    budget_state_key: str
    config_keys: frozenset[str]


def _detect() -> Features:
    content_parameters = inspect.signature(Content.__init__).parameters
    config_keys = frozenset(agent_framework.FunctionInvocationConfiguration.__annotations__)
    return Features(
        version=importlib.metadata.version("agent-framework-core"),
        informational_only="informational_only" in content_parameters,
        hosted_flag="hosted" in content_parameters,
        context_add_tools=hasattr(FunctionInvocationContext, "add_tools"),
        approval_binding="disable_approval_response_binding" in config_keys,
        result_occurrence_id="id" in inspect.signature(Content.from_function_result).parameters,
        call_item_id="id" in inspect.signature(Content.from_function_call).parameters,
        sliding_window=hasattr(agent_framework, "SlidingWindowStrategy")
        and "compaction_strategy" in inspect.signature(agent_framework.BaseChatClient.__init__).parameters,
        budget_state_key=str(getattr(agent_framework_tools, "_FUNCTION_INVOCATION_BUDGET_STATE_KEY", "")),
        config_keys=config_keys,
    )


FEATURES = _detect()
