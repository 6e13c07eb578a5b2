"""The scenario's tools as ADK `FunctionTool`s.

A tool declared by a JSON schema is a `FunctionTool` over a function with one keyword parameter per declared
property (and ADK's ``tool_context``), whose declaration is the scenario's schema verbatim (``parameters_json_schema``)
rather than the one ADK would derive from the function. So the model sees exactly the scenario's parameters, while
ADK treats the body as it treats any user function: it passes only the declared parameters, checks that the required
ones are present (an error result for the model otherwise; the body does not run) and, when its experimental
``FUNCTION_TOOL_ARG_VALIDATION`` feature is on, their types. A property the model leaves out is not passed on, so
the tool records exactly the arguments the model sent.

A tool declared by a Python signature (``signature:``) is a `FunctionTool` over that function, declared by ADK from it.

A declaration-only tool (no local body) is a `LongRunningFunctionTool`, ADK's tool whose result the client sends
later: its function only starts the operation and returns nothing, so ADK writes no result, ends the run with the call
among the model event's ``long_running_tool_ids``, and takes the caller's function response for it as the next run's
new message. The scenario tool is never run.

``approval: required`` is ``FunctionTool(..., require_confirmation=True)``: ADK's boolean tool confirmation. The call
then pauses with an ``adk_request_confirmation`` function call and resumes when the caller answers it with a function
response carrying ``{"confirmed": ...}``.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, cast

from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.long_running_tool import LongRunningFunctionTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from harness.contents import JSON
from harness.contract import Tool as ScenarioTool
from harness.signatures import python_function

_JSON_TYPES: dict[str, Any] = {
    "string": str, "integer": int, "number": float, "boolean": bool, "array": list[Any], "object": dict[str, Any],
}


class _Absent:
    """The default of an optional parameter the model left out (never passed to the tool)."""

    def __repr__(self) -> str:
        return "<absent>"


ABSENT: Any = _Absent()


def _parameters(schema: Mapping[str, JSON]) -> list[inspect.Parameter]:
    properties = cast(Mapping[str, Mapping[str, JSON]], schema.get("properties") or {})
    required = set(cast(list[str], schema.get("required") or []))
    ordered = [k for k in properties if k in required] + [k for k in properties if k not in required]
    return [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY,
                              annotation=_JSON_TYPES.get(str(properties[key].get("type")), Any),
                              default=inspect.Parameter.empty if key in required else ABSENT)
            for key in ordered]


def outcome_value(tool: ScenarioTool, arguments: dict[str, JSON], call_id: str | None) -> Any:
    """What the function returns for one run (a coroutine)."""

    async def run() -> Any:
        outcome = await tool.run(arguments, call_id)
        return list[JSON](outcome.parts) if outcome.parts else outcome.value

    return run()


def schema_function(tool: ScenarioTool) -> Any:
    """An async function with one keyword parameter per declared property, plus ADK's ``tool_context``."""

    async def function(tool_context: ToolContext, **arguments: Any) -> Any:
        given = {k: cast(JSON, v) for k, v in arguments.items() if v is not ABSENT}
        return await outcome_value(tool, given, tool_context.function_call_id)

    context = inspect.Parameter("tool_context", inspect.Parameter.KEYWORD_ONLY, annotation=ToolContext)
    function.__name__ = function.__qualname__ = tool.name
    function.__doc__ = tool.spec.description or tool.name
    function.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*_parameters(tool.spec.parameters), context])
    return function


class SchemaFunctionTool(FunctionTool):
    """A `FunctionTool` declared to the model with the scenario's JSON schema."""

    def __init__(self, tool: ScenarioTool) -> None:
        super().__init__(schema_function(tool), require_confirmation=tool.spec.approval_required)
        self.scenario_tool = tool

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return _declaration(self.scenario_tool)


def _declaration(tool: ScenarioTool) -> types.FunctionDeclaration:
    spec = tool.spec
    return types.FunctionDeclaration(name=spec.name, description=spec.description or spec.name,
                                     parameters_json_schema=dict(spec.parameters))


class CallerAnsweredTool(LongRunningFunctionTool):
    """A declaration-only tool: a long-running tool whose start does nothing; the caller sends its result."""

    def __init__(self, tool: ScenarioTool) -> None:
        async def start(tool_context: ToolContext, **arguments: Any) -> None:
            return None  # the caller runs the tool and answers with a function response

        context = inspect.Parameter("tool_context", inspect.Parameter.KEYWORD_ONLY, annotation=ToolContext)
        start.__name__ = start.__qualname__ = tool.name
        start.__doc__ = tool.spec.description or tool.name
        start.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [*_parameters(tool.spec.parameters), context])
        super().__init__(start)
        self.scenario_tool = tool

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return _declaration(self.scenario_tool)


def signature_tool(tool: ScenarioTool) -> FunctionTool:
    spec = tool.spec
    assert spec.signature is not None

    async def body(arguments: dict[str, JSON]) -> Any:
        return await outcome_value(tool, arguments, None)

    function = python_function(spec.name, spec.signature, body)
    function.__doc__ = spec.description or spec.name
    return FunctionTool(function, require_confirmation=spec.approval_required)


def build_tools(offered: list[ScenarioTool]) -> list[FunctionTool]:
    """The tools the agent offers: every tool the caller offers at the start of a turn."""
    return [CallerAnsweredTool(t) if t.spec.declaration_only else signature_tool(t) if t.spec.signature is not None
            else SchemaFunctionTool(t) for t in offered]
