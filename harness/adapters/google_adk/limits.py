"""Loop settings with an ADK counterpart, and the bundled scenarios whose settings have none (n/a for this adapter,
never a pass: `harness.contract.adapter_unexpressible`).

`max_iterations` is ``RunConfig.max_llm_calls``: ADK's bound on the model calls of one invocation (it raises
`LlmCallsLimitExceededError` when a call would pass it). ADK has no bound on function calls, no count of consecutive
tool errors, and no setting that chooses between a tool exception's details and a generic error text.
"""

from __future__ import annotations

from google.adk.agents.run_config import RunConfig, StreamingMode  # pyright: ignore[reportPrivateImportUsage]

from harness.contract import LoopConfig, Mode

_NO_CALL_BUDGET = ("the scenario sets max_function_calls; ADK has no bound on function calls (RunConfig.max_llm_calls "
                   "bounds model calls only)")
_NO_ERROR_CAP = ("the scenario sets max_consecutive_errors; ADK keeps no count of consecutive tool errors and has no "
                 "setting that stops on one")
_NO_TERMINATION = ("the scenario sets terminate_on_unknown_calls: true; ADK answers a call to an unknown tool with an "
                   "error result for the model and has no setting that ends the run on one")
# Response shapes a genai Content cannot hold (one content per model call, thought parts of text and a signature).
_SEVERAL_MESSAGES = ("the scripted model response is several assistant messages; ADK's BaseLlm answers a model call "
                     "with one LlmResponse holding one Content, so the messages cannot be kept apart")
_REASONING_ITEMS = ("the scripted model response holds reasoning items with ids, a summary kind and an encrypted "
                    "payload (OpenAI Responses items); a genai thought part carries only text and a thought signature")
_NO_DETAIL_SETTING = ("the scenario sets include_detailed_errors: true; ADK has no setting that chooses between a tool "
                      "exception's details and a generic error text")

UNEXPRESSIBLE: dict[str, str] = {
    "limits.post-limit-tool-content.approval-required-call": _NO_CALL_BUDGET,
    "limits.post-limit-tool-content.bare-call": _NO_CALL_BUDGET,
    "limits.post-limit-tool-content.bare-call-metadata-update": _NO_CALL_BUDGET,
    "limits.post-limit-tool-content.narrated-call": _NO_CALL_BUDGET,
    "limits.max-function-calls.blank-final-fallback": _NO_CALL_BUDGET,
    "limits.max-function-calls.parallel-overshoot": _NO_CALL_BUDGET,
    "recovery.spent-budgets.function-calls": _NO_CALL_BUDGET,
    "limits.post-limit-tool-content.after-error-cap": _NO_ERROR_CAP,
    "recovery.spent-budgets.consecutive-errors": _NO_ERROR_CAP,
    "errors.consecutive-errors.parallel-batch": _NO_ERROR_CAP,
    "errors.consecutive-errors.cap-reached": _NO_ERROR_CAP,
    "errors.consecutive-errors.blank-final-fallback": _NO_ERROR_CAP,
    "errors.consecutive-errors.approval-resume": _NO_ERROR_CAP,
    "errors.consecutive-errors.reset-on-success": _NO_ERROR_CAP,
    "errors.approved-exception.detailed": _NO_DETAIL_SETTING,
    "errors.unknown-call.terminates": _NO_TERMINATION,
    "normal.calls-across-messages": _SEVERAL_MESSAGES,
    "normal.reasoning-bound-call.several-items": _REASONING_ITEMS,
}


def run_config(config: LoopConfig, mode: Mode) -> RunConfig:
    """The run's configuration: the response mode and the model-call bound."""
    options: dict[str, object] = {
        "streaming_mode": StreamingMode.SSE if mode == "streaming" else StreamingMode.NONE,
    }
    if config.max_iterations is not None:
        options["max_llm_calls"] = config.max_iterations
    return RunConfig.model_validate(options)


def unmapped_settings(config: LoopConfig) -> list[str]:
    """Log lines for settings applied as ADK's defaults (no counterpart, and no scenario n/a for them)."""
    lines: list[str] = []
    if not config.enabled:
        lines.append("enabled=false: ADK's runner cannot be told not to run tools; ignored")
    if config.terminate_on_unknown_calls:
        lines.append("terminate_on_unknown_calls=true: ADK has no such setting (an unknown tool gets an error result)"
                     "; ignored")
    return lines
