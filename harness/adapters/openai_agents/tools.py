"""Scripted tools presented as Agents SDK `FunctionTool`s, and the SDK settings that carry their behaviours.

* Each tool is a `FunctionTool` with the scenario's JSON schema (strict only where the schema already is strict:
  every property required, no additional properties), whose `on_invoke_tool` parses the model's JSON arguments and
  invokes the scripted tool with the call id from its `ToolContext`. It is wrapped in the SDK's own failure
  handling (`with_function_tool_failure_error_handler`, as `@function_tool` does), so a scripted ``raise`` reaches the
  model through the tool's `failure_error_function` — the SDK default, or a detailed message when the scenario sets
  `include_detailed_errors` — and never ends the run.
  The runner does not check the model's arguments against `params_json_schema` (`@function_tool` checks them
  against its Python signature, which a tool declared by JSON schema does not have), so the body gets them as sent.
* ``approval: required`` is ``needs_approval=True``.
* A tool added at run time (``add_tools``) is a tool whose `is_enabled` callable turns true once added; the runner
  evaluates it before every model call, so it is offered from the next one. Additions last for the run, across a
  pause for approval.
* A behaviour with ``terminate: true`` ends the run through the agent's `tool_use_behavior`: a
  `ToolsToFinalOutputFunction` that makes the terminating call's output the final output, so no further model call
  is made. That is the SDK's hook for ending a run after a tool ran. A tool declared as a typed function
  (`signature:`) learns its call id from a wrapper around the SDK's invoker, since the user's function is not told.
* A tool asking the caller for input, and a declaration-only tool (one the caller implements), have no SDK form;
  such an invocation fails through the tool-error path (a declaration-only tool's body never runs).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, cast

from agents import FunctionTool, RunContextWrapper, ToolsToFinalOutputResult
from agents import function_tool as typed_function_tool
from agents.agent import AgentBase
from agents.tool import (
    FunctionToolResult,
    set_function_tool_failure_error_function,
    with_function_tool_failure_error_handler,
)
from agents.tool_context import ToolContext

from harness.contents import JSON
from harness.contract import LoopConfig, Tool
from harness.signatures import python_function


@dataclass
class ToolState:
    """What the tools of one conversation share with its agent: added tools, terminating calls, handled errors."""

    added: set[str] = field(default_factory=lambda: set[str]())
    terminating: set[str] = field(default_factory=lambda: set[str]())
    log: list[str] = field(default_factory=lambda: [])

    def begin_turn(self, resuming: bool) -> None:
        """The caller offers its tools afresh at the start of every run; a resumed run keeps what it added."""
        if not resuming:
            self.added.clear()
        self.terminating.clear()


def strict_compatible(schema: object) -> bool:
    """Whether the SDK's strict mode leaves `schema` as it is: every object lists all its properties as required
    and allows no others."""
    if isinstance(schema, list):
        return all(strict_compatible(item) for item in cast(list[object], schema))
    if not isinstance(schema, Mapping):
        return True
    node = cast(Mapping[str, object], schema)
    properties = cast(Mapping[str, object], node.get("properties") or {})
    if node.get("type") == "object" or properties:
        required = cast(list[object], node.get("required") or [])
        if set(properties) != set(required) or node.get("additionalProperties") not in (None, False):
            return False
    return all(strict_compatible(value) for value in node.values())


def build_tools(scripted: Mapping[str, Tool], config: LoopConfig, state: ToolState) -> list[FunctionTool]:
    """One `FunctionTool` per scripted tool, in the toolbox's order; tools not offered wait to be added."""
    return [_function_tool(tool, config, state) for tool in scripted.values()]


def _function_tool(tool: Tool, config: LoopConfig, state: ToolState) -> FunctionTool:
    spec = tool.spec
    if spec.signature is not None:
        # Declared as users declare Agents SDK tools: a typed function given to `function_tool`.
        typed = typed_function_tool(python_function(spec.name, spec.signature, _user_body(tool, state)),
                              name_override=spec.name, description_override=spec.description or spec.name,
                              is_enabled=True if spec.offered else _added(spec.name, state),
                              needs_approval=spec.approval_required)
        if config.include_detailed_errors:
            set_function_tool_failure_error_function(typed, _detailed_error)
        typed.on_invoke_tool = _telling_call_id(typed.on_invoke_tool)
        return typed
    schema = cast(dict[str, Any], json.loads(json.dumps(dict(spec.parameters))))
    function_tool = FunctionTool(
        name=spec.name,
        description=spec.description or spec.name,
        params_json_schema=schema,
        on_invoke_tool=with_function_tool_failure_error_handler(_invoker(tool, state), _handled(state)),
        strict_json_schema=strict_compatible(schema),
        is_enabled=True if spec.offered else _added(spec.name, state),
        needs_approval=spec.approval_required,
    )
    if config.include_detailed_errors:
        set_function_tool_failure_error_function(function_tool, _detailed_error)
    return function_tool


def _invoker(tool: Tool, state: ToolState) -> Any:
    async def invoke(context: ToolContext[Any], raw_arguments: str) -> JSON:
        if tool.spec.declaration_only:
            raise NotImplementedError(f"{tool.name} is implemented by the caller; the Agents SDK cannot pause for it")
        arguments: object = json.loads(raw_arguments) if raw_arguments.strip() else {}
        if not isinstance(arguments, dict):
            raise ValueError(f"arguments of {tool.name} are not a JSON object: {raw_arguments}")
        outcome = await tool.run(cast(dict[str, JSON], arguments), context.tool_call_id)
        if outcome.input_requests:
            raise NotImplementedError(f"{tool.name} asked the caller for input; the Agents SDK has no such pause")
        if outcome.terminate:
            state.terminating.add(context.tool_call_id)
        state.added.update(outcome.add_tools)
        return list[JSON](outcome.parts) if outcome.parts else outcome.value

    return invoke


# The call a typed function runs for: its body (the user's function) is not told, so the SDK's invoker is wrapped
# to say it, as middleware would; the function's signature stays the user's.
_CALL_ID: ContextVar[str] = ContextVar("openai_agents_call_id", default="")


def _telling_call_id(invoke: Any) -> Any:
    async def invoke_for_call(context: ToolContext[Any], raw_arguments: str) -> Any:
        token = _CALL_ID.set(context.tool_call_id)
        try:
            return await invoke(context, raw_arguments)
        finally:
            _CALL_ID.reset(token)

    return invoke_for_call


def _user_body(tool: Tool, state: ToolState) -> Any:
    async def body(arguments: dict[str, JSON]) -> JSON:
        outcome = await tool.run(arguments)
        if outcome.input_requests:
            raise NotImplementedError(f"{tool.name} asked the caller for input; the Agents SDK has no such pause")
        if outcome.terminate:
            state.terminating.add(_CALL_ID.get())
        state.added.update(outcome.add_tools)
        return list[JSON](outcome.parts) if outcome.parts else outcome.value

    return body


def _handled(state: ToolState) -> Any:
    def record(function_tool: FunctionTool, error: Exception, raw_arguments: str) -> None:
        state.log.append(f"tool {function_tool.name} raised {type(error).__name__}: {error}; the SDK's "
                         "failure_error_function answered the model")

    return record


def _added(name: str, state: ToolState) -> Any:
    def is_enabled(context: RunContextWrapper[Any], agent: AgentBase[Any]) -> bool:
        return name in state.added

    return is_enabled


def _detailed_error(context: RunContextWrapper[Any], error: Exception) -> str:
    return f"Error: {error}"


def stop_on_request(state: ToolState) -> Any:
    """The agent's `tool_use_behavior`: stop with the output of a call whose behaviour asked to terminate."""

    def behaviour(context: RunContextWrapper[Any], results: list[FunctionToolResult]) -> ToolsToFinalOutputResult:
        for result in results:
            call_id = getattr(result.run_item, "call_id", None)
            if call_id is None and isinstance(raw := getattr(result.run_item, "raw_item", None), dict):
                call_id = cast(dict[str, Any], raw).get("call_id")
            if call_id is not None and call_id in state.terminating:
                return ToolsToFinalOutputResult(is_final_output=True, final_output=result.output)
        return ToolsToFinalOutputResult(is_final_output=False)

    return behaviour


def needs_termination(scripted: Mapping[str, Tool]) -> bool:
    return any(behaviour.terminate for tool in scripted.values() for behaviour in tool.spec.behaviours)

