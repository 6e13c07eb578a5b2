"""Scripted fakes: a model provider and tools that replay a scenario's script and record what they were given.

They speak the harness's value model (`harness.contents`, `harness.script`) and know no loop implementation.
"""

from fakes.approval_rules import ScriptedApprovalRule, ScriptedApprovalRules
from fakes.provider import ScriptedProvider
from fakes.tools import ScriptedTool, ScriptedToolbox
from harness.script import (
    ModelRequest,
    ModelStep,
    ScriptedProviderError,
    ScriptedResponseInvalidated,
    ScriptedToolError,
    ScriptViolation,
    ToolBehaviour,
    ToolExecution,
    ToolOutcome,
    ToolSpec,
)

__all__ = [
    "ModelRequest",
    "ModelStep",
    "ScriptViolation",
    "ScriptedApprovalRule",
    "ScriptedApprovalRules",
    "ScriptedProvider",
    "ScriptedProviderError",
    "ScriptedResponseInvalidated",
    "ScriptedTool",
    "ScriptedToolError",
    "ScriptedToolbox",
    "ToolBehaviour",
    "ToolExecution",
    "ToolOutcome",
    "ToolSpec",
]
