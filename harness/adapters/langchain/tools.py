"""The scenario's tools as LangChain tools, and the caller's tool-error handling.

- A tool declared by a JSON schema is a `StructuredTool` over a pydantic model of that schema (the parameters'
  types, which are required, whether extra keys are allowed), so LangChain validates a call's arguments as it
  does a typed function's: an invalid call becomes LangChain's own error result for the model and the body never
  runs. A tool declared by a Python signature is that function (`harness.signatures.python_function`), from which
  LangChain derives its schema. Either way the call id reaches the body through LangChain's
  `InjectedToolCallId`, a parameter the model never sees.
- LangChain's tool node re-raises an exception from a tool body (only invalid arguments become a result), and
  documents a `wrap_tool_call` middleware as the way to turn failures into results the model sees. A caller that
  wants the loop to go on after a failing tool adds one, so the adapter does (`ToolErrors`): the failure becomes
  an error `ToolMessage`, with the exception's text only when the scenario asks for detailed errors.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, cast

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool
from langgraph.errors import GraphBubbleUp
from langgraph.types import Command
from pydantic import BaseModel, ConfigDict, create_model

from harness.adapters.langchain.convert import result_text
from harness.contents import JSON
from harness.contract import Tool as ScenarioTool
from harness.contract import ToolOutcome
from harness.signatures import python_function
from langchain.agents.middleware import AgentMiddleware

# The parameter LangChain fills with the call id; the model never sees it.
CALL_ID = "loop_conformance_call_id"
_INJECTED: dict[str, Any] = {CALL_ID: Annotated[str, InjectedToolCallId]}

_JSON_TYPES: dict[str, Any] = {
    "string": str, "integer": int, "number": float, "boolean": bool, "array": list[Any], "object": dict[str, Any],
    "null": type(None),
}


def argument_model(name: str, parameters: Mapping[str, JSON]) -> type[BaseModel]:
    """A pydantic model of a JSON-schema object's properties, with the injected call id beside them."""
    properties = cast(Mapping[str, Mapping[str, JSON]], parameters.get("properties") or {})
    required = set(cast(list[str], parameters.get("required") or []))
    fields: dict[str, Any] = {CALL_ID: (_INJECTED[CALL_ID], ...)}
    for key, schema in properties.items():
        annotation = _JSON_TYPES.get(str(schema.get("type")), Any)
        fields[key] = (annotation, ...) if key in required else (annotation | None, None)
    extra = "forbid" if parameters.get("additionalProperties") is False else "allow"
    return create_model(f"{name}_arguments", __config__=ConfigDict(extra=extra), **fields)


def tool_output(outcome: ToolOutcome) -> Any:
    """What the tool returns to LangChain: its value, or its several text parts as content blocks."""
    return list(outcome.parts) if outcome.parts else outcome.value


def _schema_body(tool: ScenarioTool) -> Callable[..., Awaitable[Any]]:
    async def run(**arguments: Any) -> Any:
        call_id = arguments.pop(CALL_ID, None)
        return tool_output(await tool.run(arguments, call_id))

    return run


def _signature_body(tool: ScenarioTool) -> Callable[..., Awaitable[Any]]:
    async def run(arguments: dict[str, JSON], **injected: Any) -> Any:
        return tool_output(await tool.run(arguments, injected.get(CALL_ID)))

    return run


def langchain_tool(tool: ScenarioTool) -> BaseTool:
    spec = tool.spec
    description = spec.description or spec.name
    if spec.signature is not None:
        function = python_function(spec.name, spec.signature, _signature_body(tool), injected=_INJECTED)
        return StructuredTool.from_function(coroutine=function, name=spec.name, description=description)
    return StructuredTool(name=spec.name, description=description, coroutine=_schema_body(tool),
                          args_schema=argument_model(spec.name, spec.parameters))


def build_tools(scripted: Mapping[str, ScenarioTool]) -> list[BaseTool]:
    """Every tool of the scenario the agent offers (declaration-only tools have no LangChain form)."""
    return [langchain_tool(t) for t in scripted.values() if not t.spec.declaration_only and t.spec.offered]


class ToolErrors(AgentMiddleware[Any, Any]):
    """A failing tool's exception as an error result the model sees, as LangChain documents for `wrap_tool_call`."""

    def __init__(self, detailed: bool) -> None:
        super().__init__()
        self.detailed = detailed

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[ToolMessage | Command[Any]]],
                              ) -> ToolMessage | Command[Any]:
        try:
            return await handler(request)
        except GraphBubbleUp:  # an interrupt (a pause for the caller) is control flow, not a failure
            raise
        except Exception as error:  # noqa: BLE001 - any tool failure becomes the call's error result
            detail = f" ({type(error).__name__}: {error})" if self.detailed else ""
            return ToolMessage(content=result_text(f"Tool error: Please check your input and try again.{detail}"),
                               tool_call_id=request.tool_call["id"], name=request.tool_call["name"], status="error")
