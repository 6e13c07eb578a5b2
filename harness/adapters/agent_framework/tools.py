"""Scripted tools presented as Agent Framework `FunctionTool`s, and the middleware that ends a loop on request."""

from __future__ import annotations

import contextvars
import json
import warnings
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agent_framework import (
    Content,
    FunctionInvocationContext,
    FunctionMiddleware,
    FunctionTool,
    MiddlewareTermination,
    UserInputRequiredException,
)
from harness.adapters.agent_framework.features import FEATURES
from harness.contents import JSON
from harness.contract import Tool
from harness.signatures import python_function


@dataclass
class _CallScope:
    call_id: str | None = None
    terminate: bool = False


# Set by the middleware around each invocation; read by the tool body running inside it.
_SCOPE: contextvars.ContextVar[_CallScope | None] = contextvars.ContextVar("loop_conformance_call", default=None)
# The call id the framework itself names when it invokes a tool, with or without middleware: the execution is
# recorded under it, so `exactly-once` can hold every execution to exactly one result of that call in the response.
_INVOKED_CALL: contextvars.ContextVar[str | None] = contextvars.ContextVar("loop_conformance_invoked", default=None)


class _CallRecordingTool(FunctionTool):
    """A `FunctionTool` that notes the call id the loop invokes it for; it changes nothing else.

    The loop passes each execution's call id to `invoke` (as `tool_call_id`, for its telemetry) on both of its
    paths, through middleware or straight to the tool, so the id comes from the loop's own dispatch and not from
    anything the harness guesses. A release that passes none leaves the execution without one, as before.
    """

    async def invoke(self, **kwargs: Any) -> Any:  # pyright: ignore[reportIncompatibleMethodOverride]
        call_id = kwargs.get("tool_call_id")
        token = _INVOKED_CALL.set(str(call_id) if call_id is not None else None)
        try:
            return await super().invoke(**kwargs)
        finally:
            _INVOKED_CALL.reset(token)


class TerminateOnRequest(FunctionMiddleware):
    """Function middleware that ends the loop after a tool whose scripted behaviour says `terminate`."""

    async def process(self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]) -> None:
        call_id = context.metadata.get("call_id")
        scope = _CallScope(str(call_id) if call_id is not None else None)
        token = _SCOPE.set(scope)
        try:
            await call_next()
        finally:
            _SCOPE.reset(token)
        if scope.terminate:
            raise MiddlewareTermination("scripted tool asked the loop to stop", result=context.result)


def build_tools(scripted: Mapping[str, Tool]) -> dict[str, FunctionTool]:
    """One `FunctionTool` per scripted tool; tools may add others, so each knows the whole catalogue."""
    catalogue: dict[str, FunctionTool] = {}
    for name, tool in scripted.items():
        catalogue[name] = _function_tool(tool, catalogue)
    return catalogue


def _function_tool(tool: Tool, catalogue: Mapping[str, FunctionTool]) -> FunctionTool:
    spec = tool.spec
    approval_mode = "always_require" if spec.approval_required else "never_require"
    if spec.signature is not None:
        # Declared the way users declare tools: a Python function, whose signature the framework turns into its
        # own argument model. It takes no invocation context, so it cannot add tools.
        run = _runner(tool, catalogue)

        async def call_body(arguments: dict[str, JSON]) -> JSON | list[Content]:
            return await run(arguments, None)

        user_function = python_function(spec.name, spec.signature, call_body)
        return _CallRecordingTool(name=spec.name, description=spec.description or spec.name,
                                  approval_mode=approval_mode, func=user_function)
    body = None if spec.declaration_only else _body(tool, catalogue)
    return _CallRecordingTool(
        name=spec.name,
        description=spec.description or spec.name,
        approval_mode=approval_mode,
        func=body,
        input_model=dict(spec.parameters),
    )


def _input_request(payload: JSON) -> Content:
    link = payload if isinstance(payload, str) else json.dumps(payload, sort_keys=True)
    return Content.from_oauth_consent_request(link)


def _runner(tool: Tool, catalogue: Mapping[str, FunctionTool]) -> Callable[[dict[str, JSON], Any],
                                                                          Awaitable[JSON | list[Content]]]:
    """The scripted body: runs the tool once and plays its outcome into the framework (`context` may be None)."""

    async def run(arguments: dict[str, JSON], context: Any) -> JSON | list[Content]:
        scope = _SCOPE.get()
        outcome = await tool.run(arguments, _INVOKED_CALL.get() or (scope.call_id if scope else None))
        if outcome.input_requests:
            # The framework pauses only for contents that are user-input requests; a consent request is the
            # generic one it offers, and its link carries the scripted payload.
            raise UserInputRequiredException([_input_request(p) for p in outcome.input_requests])
        if scope is not None and outcome.terminate:
            scope.terminate = True
        if outcome.add_tools and context is not None:
            with warnings.catch_warnings():
                # The framework flags progressive tool exposure as experimental; that is not the scenario's concern.
                warnings.simplefilter("ignore")
                context.add_tools([catalogue[name] for name in outcome.add_tools])
        if outcome.parts:  # several contents: the framework's own multi-part result
            return [Content.from_text(part) for part in outcome.parts]
        return outcome.value

    return run


def _body(tool: Tool, catalogue: Mapping[str, FunctionTool]) -> Callable[..., Awaitable[Any]]:
    run = _runner(tool, catalogue)

    if FEATURES.context_add_tools:
        async def with_context(ctx: FunctionInvocationContext, **arguments: JSON) -> JSON | list[Content]:
            return await run(arguments, ctx)

        return with_context

    async def plain(**arguments: JSON) -> JSON | list[Content]:
        return await run(arguments, None)

    return plain
