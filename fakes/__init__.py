"""Scripted fakes: a model provider and tools that replay a scenario's script and record what they were given."""

# The fakes speak the harness's neutral vocabulary; initialise the harness package first so that either package
# can be imported first without a circular-import failure.
import harness  # noqa: F401  # isort: skip  # pyright: ignore[reportUnusedImport]

from fakes.provider import ModelRequest, ModelStep, ScriptedProvider, ScriptedProviderError, ScriptViolation
from fakes.tools import (
    ScriptedTool,
    ScriptedToolbox,
    ScriptedToolError,
    ToolBehaviour,
    ToolExecution,
    ToolOutcome,
    ToolSpec,
)

__all__ = [
    "ModelRequest",
    "ModelStep",
    "ScriptViolation",
    "ScriptedProvider",
    "ScriptedProviderError",
    "ScriptedTool",
    "ScriptedToolError",
    "ScriptedToolbox",
    "ToolBehaviour",
    "ToolExecution",
    "ToolOutcome",
    "ToolSpec",
]
