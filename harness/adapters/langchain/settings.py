"""The scenario's loop settings and the caller's per-call options as LangChain middleware, and the scenarios whose
settings have no LangChain counterpart.

- `max_iterations` is `ModelCallLimitMiddleware(run_limit=...)` and `max_function_calls` is
  `ToolCallLimitMiddleware(run_limit=...)`, both with ``exit_behavior="end"``, LangChain's own way to stop an
  agent at a budget (it ends the run with a message saying the limit was reached). Run limits count per
  invocation, as the spec's budgets count per turn.
- `include_detailed_errors` is whether the caller's tool-error handling shows the exception (`tools.ToolErrors`).
- `max_consecutive_errors` and `terminate_on_unknown_calls` have no counterpart in LangChain's agent or its
  middleware: the scenarios that set them are n/a (`UNEXPRESSIBLE`).
- The caller's tool choice and invocation kwargs are the model request's `tool_choice` and `model_settings`, set
  by a `wrap_model_call` middleware (`CallerOptions`), LangChain's documented way to change a model request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from harness.contents import JSON
from harness.contract import LoopConfig
from langchain.agents.middleware import AgentMiddleware, ModelCallLimitMiddleware, ToolCallLimitMiddleware

# LangChain's name for the neutral tool choice, as `bind_tools` takes it.
_TOOL_CHOICES = {"required": "any"}


def limit_middleware(config: LoopConfig) -> list[AgentMiddleware[Any, Any]]:
    limits: list[AgentMiddleware[Any, Any]] = []
    if config.max_iterations is not None:
        limits.append(ModelCallLimitMiddleware(run_limit=config.max_iterations, exit_behavior="end"))
    if config.max_function_calls is not None:
        limits.append(ToolCallLimitMiddleware(run_limit=config.max_function_calls, exit_behavior="end"))
    return limits


class CallerOptions(AgentMiddleware[Any, Any]):
    """The caller's tool choice and the current turn's invocation kwargs on every model request."""

    def __init__(self, tool_choice: str | None) -> None:
        super().__init__()
        self.tool_choice = _TOOL_CHOICES.get(tool_choice, tool_choice) if tool_choice else None
        self.kwargs: Mapping[str, JSON] = {}

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        changes: dict[str, Any] = {}
        if self.tool_choice is not None:
            changes["tool_choice"] = self.tool_choice
        if self.kwargs:
            changes["model_settings"] = {**request.model_settings, **self.kwargs}
        return await handler(request.override(**changes) if changes else request)


_NO_ERROR_CAP = ("the scenario sets max_consecutive_errors; LangChain's agent has no cap on consecutive tool "
                 "errors (neither create_agent nor its middleware count failures in a row)")
_NO_UNKNOWN_STOP = ("the scenario sets terminate_on_unknown_calls; LangChain's tool node always answers a call to "
                    "an unknown tool with an error result, and no setting ends the run instead")

_PARTIAL_ANSWER = ("the caller decides only some of a pause's approvals and leaves the rest pending; "
                   "HumanInTheLoopMiddleware's interrupt takes one decision for every gated call of the pause at "
                   "once (fewer raise ValueError), so a partial answer has no form")

UNEXPRESSIBLE: dict[str, str] = {
    "correlation.replayed-wrapper.resurfaced-request": _PARTIAL_ANSWER,
    "continuation.conversation-id.on-stop": _NO_ERROR_CAP,
    "errors.consecutive-errors.approval-resume": _NO_ERROR_CAP,
    "errors.consecutive-errors.blank-final-fallback": _NO_ERROR_CAP,
    "errors.consecutive-errors.cap-reached": _NO_ERROR_CAP,
    "errors.consecutive-errors.parallel-batch": _NO_ERROR_CAP,
    "errors.consecutive-errors.reset-on-success": _NO_ERROR_CAP,
    "limits.post-limit-tool-content.after-error-cap": _NO_ERROR_CAP,
    "recovery.malformed-state.error-counter-boolean": _NO_ERROR_CAP,
    "recovery.malformed-state.error-counter-float": _NO_ERROR_CAP,
    "recovery.malformed-state.error-counter-negative": _NO_ERROR_CAP,
    "recovery.malformed-state.error-counter-string": _NO_ERROR_CAP,
    "recovery.spent-budgets.consecutive-errors": _NO_ERROR_CAP,
    "errors.tool-exception.key-error": _NO_UNKNOWN_STOP,
    "errors.unknown-call.terminates": _NO_UNKNOWN_STOP,
    "errors.unknown-call.beside-approval": _NO_UNKNOWN_STOP,
}


def settings_handled(config: LoopConfig) -> list[str]:
    """Log notes for settings that reach LangChain in another form than the spec's."""
    notes: list[str] = []
    if config.max_iterations is not None:
        notes.append(f"max_iterations={config.max_iterations} as ModelCallLimitMiddleware(run_limit=..., "
                     "exit_behavior='end')")
    if config.max_function_calls is not None:
        notes.append(f"max_function_calls={config.max_function_calls} as ToolCallLimitMiddleware(run_limit=..., "
                     "exit_behavior='end')")
    return notes

