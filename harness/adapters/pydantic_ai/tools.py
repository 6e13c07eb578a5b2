"""The scenario's tools as pydantic-ai tools.

- A tool with a body is a `Tool.from_schema` with the scenario's JSON schema, whose arguments pydantic validates
  against the parameters' declared types, as it does a tool's typed signature (`argument_model`, run as the tool's
  `args_validator`: a failure takes pydantic-ai's own path for invalid arguments, a retry result for the model, and
  the body never runs; a valid call reaches the body with the arguments the model sent), `requires_approval` for
  ``approval: required`` (its call then ends the run in `DeferredToolRequests.approvals`), and `defer_loading` for a
  tool that is not offered at first (``offered: false``): hidden until another tool reveals it by returning
  `ToolReturn(..., tools=[name])`, pydantic-ai's way for a tool to make tools available to the next model call.
- A declaration-only tool is an `ExternalToolset` tool: its calls end the run in `DeferredToolRequests.calls`, for
  the caller to answer.
- A tool asking the caller for more input raises `CallDeferred(kind='question')` after it ran, with the scripted
  requests as the call's metadata (`INPUT_REQUESTS`); the answer comes back as that call's deferred result.
  Releases whose `CallDeferred` has no `kind` defer the same call unlabelled: the label only feeds
  `DeferredToolRequests.kind()`, which the adapter does not read, so the run is the same.
- A tool that raises does so into pydantic-ai, which lets an exception from a tool end the run with that exception
  (only `ModelRetry` and `ToolFailed` become results the model sees).

pydantic-ai has no tool middleware that ends a run after a tool returns, so a scripted ``terminate`` has no effect
here (the adapter does not claim the ``middleware-termination`` capability).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, create_model

from harness.adapters.pydantic_ai.features import FEATURES
from harness.contents import JSON
from harness.contract import Tool as ScenarioTool
from harness.signatures import python_function
from pydantic_ai import CallDeferred, RunContext, Tool, ToolReturn
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import ExternalToolset

# The key of a deferred call's metadata under which a tool's scripted input requests travel.
INPUT_REQUESTS = "loop_conformance_input_requests"


_JSON_TYPES: dict[str, Any] = {
    "string": str, "integer": int, "number": float, "boolean": bool, "array": list[Any], "object": dict[str, Any],
    "null": type(None),
}


def argument_model(name: str, parameters: Mapping[str, JSON]) -> type[BaseModel]:
    """A pydantic model of a JSON-schema object's properties: their types, which are required, extra keys."""
    properties = cast(Mapping[str, Mapping[str, JSON]], parameters.get("properties") or {})
    required = set(cast(list[str], parameters.get("required") or []))
    fields: dict[str, Any] = {}
    for key, schema in properties.items():
        annotation = _JSON_TYPES.get(str(schema.get("type")), Any)
        fields[key] = (annotation, ...) if key in required else (annotation | None, None)
    extra = "forbid" if parameters.get("additionalProperties") is False else "allow"
    return create_model(f"{name}_arguments", __config__=ConfigDict(extra=extra), **fields)


def ask_caller(input_requests: Sequence[JSON]) -> CallDeferred:
    """The deferral of a call that asks the caller for input, labelled a question where the release can."""
    metadata: dict[str, Any] = {INPUT_REQUESTS: list(input_requests)}
    return CallDeferred(metadata, kind="question") if FEATURES.question_kind else CallDeferred(metadata)


def _validator(model: type[BaseModel]) -> Callable[..., None]:
    def validate(ctx: RunContext[Any], **arguments: Any) -> None:
        model.model_validate(arguments)  # a ValidationError is pydantic-ai's invalid-arguments path

    return validate


def _body(tool: ScenarioTool) -> Any:
    async def run(ctx: RunContext[Any], **arguments: JSON) -> Any:
        outcome = await tool.run(arguments, ctx.tool_call_id)
        if outcome.input_requests:
            raise ask_caller(outcome.input_requests)
        if outcome.add_tools:
            return ToolReturn(list[JSON](outcome.parts) if outcome.parts else outcome.value,
                              tools=list(outcome.add_tools))
        return list[JSON](outcome.parts) if outcome.parts else outcome.value

    return run


def _user_body(tool: ScenarioTool) -> Callable[[dict[str, JSON]], Any]:
    async def body(arguments: dict[str, JSON]) -> Any:
        outcome = await tool.run(arguments)
        if outcome.input_requests:
            raise ask_caller(outcome.input_requests)
        return list[JSON](outcome.parts) if outcome.parts else outcome.value

    return body


def function_tool(tool: ScenarioTool) -> Tool[Any]:
    spec = tool.spec
    if spec.signature is not None:
        # Declared as users declare pydantic-ai tools: a typed function, whose signature pydantic-ai turns into the
        # tool's schema and validator.
        typed: Tool[Any] = Tool(python_function(spec.name, spec.signature, _user_body(tool)), takes_ctx=False,
                                name=spec.name, description=spec.description or spec.name,
                                requires_approval=spec.approval_required)
        typed.defer_loading = not spec.offered
        return typed
    built: Tool[Any] = Tool.from_schema(
        _body(tool), spec.name, spec.description or spec.name, dict(spec.parameters), takes_ctx=True,
        args_validator=_validator(argument_model(spec.name, spec.parameters)))
    built.requires_approval = spec.approval_required
    built.defer_loading = not spec.offered
    return built


def external_tool(tool: ScenarioTool) -> ToolDefinition:
    spec = tool.spec
    return ToolDefinition(name=spec.name, description=spec.description or spec.name,
                          parameters_json_schema=dict(spec.parameters), defer_loading=not spec.offered)


def build_tools(scripted: Mapping[str, ScenarioTool]) -> tuple[list[Tool[Any]], list[ExternalToolset[Any]]]:
    """The function tools and the external toolset (empty when no tool is declaration-only) of a scenario."""
    tools = [function_tool(t) for t in scripted.values() if not t.spec.declaration_only]
    external = [external_tool(t) for t in scripted.values() if t.spec.declaration_only]
    return tools, [ExternalToolset[Any](external)] if external else []


def tool_definitions(scripted: Mapping[str, ScenarioTool], offered: list[str]) -> list[ToolDefinition]:
    """The offered tools' definitions, for a model call made without the agent loop."""
    return [external_tool(scripted[name]) for name in offered]
