"""A `BaseLlm` that answers every model call of the ADK flow from the harness's scripted provider.

What the provider records is what ADK put in the `LlmRequest`:

- messages: the request's contents (`convert.content_messages`), after the system instruction when there is one.
  ADK's identity processor appends ``You are an agent. Your internal name is "<name>".`` to every request's system
  instruction; that sentence is the framework introducing the agent to a Gemini model, not conversation, and the
  scenario configured no instruction, so it is not shown to the script (any other instruction text is);
- tools: the names of the function declarations the request offers, in order;
- tool choice: the request's ``tool_config.function_calling_config.mode`` (AUTO, NONE, ANY as auto, none,
  required), none when the request sets none.

Non-streaming calls yield one complete `LlmResponse`; streaming calls (``stream=True``, the runner's SSE mode) yield
a partial response per scripted update with its text and reasoning fragments, each function call as a partial once
it is complete (as Gemini streams calls whole), then the final response with the whole content, as `BaseLlm`
documents for SSE streaming. That is ADK's progressive SSE streaming, its default since the 1.2x releases (feature
``PROGRESSIVE_SSE_STREAMING``). Before it, the flow ran the function calls of partial responses too, and ADK's
Gemini model streamed only text as partial: on those releases the calls come in the final response alone.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, ClassVar, cast

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from harness.adapters.google_adk.convert import content_messages, model_parts
from harness.contents import FunctionCall, Message, Response, Text, Update, Usage, merge_contents
from harness.contract import ModelProvider

_CHOICES: dict[types.FunctionCallingConfigMode, str] = {
    types.FunctionCallingConfigMode.AUTO: "auto",
    types.FunctionCallingConfigMode.NONE: "none",
    types.FunctionCallingConfigMode.ANY: "required",
}
CHOICE_MODES: dict[str, types.FunctionCallingConfigMode] = {v: k for k, v in _CHOICES.items()}


def identity_instruction(agent_name: str) -> str:
    """The sentence ADK's identity processor adds to every request of an agent without a description."""
    return f'You are an agent. Your internal name is "{agent_name}".'


def offered_tools(request: LlmRequest) -> list[str]:
    tools = cast(list[object], getattr(request.config, "tools", None) or [])
    return [d.name or "" for tool in tools if isinstance(tool, types.Tool) for d in tool.function_declarations or []]


def tool_choice(request: LlmRequest) -> str | None:
    config = request.config.tool_config
    mode = config.function_calling_config.mode if config and config.function_calling_config else None
    return _CHOICES.get(mode) if mode is not None else None


def _instruction_text(instruction: object) -> str:
    if instruction is None:
        return ""
    if isinstance(instruction, str):
        return instruction
    if isinstance(instruction, types.Content):
        return "".join(part.text or "" for part in instruction.parts or [])
    return str(instruction)


def request_messages(request: LlmRequest, agent_name: str) -> list[Message]:
    """The history the request puts before the model, in neutral messages."""
    instruction = _instruction_text(getattr(request.config, "system_instruction", None))
    instruction = instruction.replace(identity_instruction(agent_name), "").strip()
    messages = [Message("system", (Text(instruction),))] if instruction else []
    for content in request.contents:
        messages.extend(content_messages(content))
    return messages


def _usage(messages: tuple[Message, ...]) -> types.GenerateContentResponseUsageMetadata | None:
    usages = [c for m in messages for c in m.contents if isinstance(c, Usage)]
    if not usages:
        return None
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=sum(u.input_tokens for u in usages),
        candidates_token_count=sum(u.output_tokens for u in usages))


def model_response(response: Response) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=model_parts(response.messages)),
                       usage_metadata=_usage(response.messages), partial=False)


def _partial(contents: tuple[Any, ...]) -> LlmResponse | None:
    parts = model_parts((Message("assistant", contents),))
    return LlmResponse(content=types.Content(role="model", parts=parts), partial=True) if parts else None


def progressive_streaming() -> bool:
    """Whether the installed ADK streams function calls as partial responses (and runs only the final's calls)."""
    try:
        from google.adk.features import _feature_registry as features  # pyright: ignore[reportPrivateUsage]
    except ImportError:
        return False
    feature = getattr(features.FeatureName, "PROGRESSIVE_SSE_STREAMING", None)
    return feature is not None and bool(features.is_feature_enabled(feature))


class ScriptedStream:
    """Turns scripted updates into ADK's partial responses, and keeps what the final response must hold."""

    def __init__(self, calls_as_partials: bool = True) -> None:
        self.contents: list[Any] = []
        self.pending_calls: list[Any] = []
        self.calls_as_partials = calls_as_partials

    def partials(self, update: Update) -> list[LlmResponse]:
        """The partial responses of one update, its contents in order: a run of text and reasoning fragments is one
        partial; call fragments are held until another content ends them (as it ends them in `merge_contents`),
        then go out as whole calls, before that content. An empty update ends nothing: a later fragment without
        id or name still continues the call before it."""
        self.contents.extend(update.contents)
        out: list[LlmResponse] = []
        fragments: list[Any] = []
        for content in update.contents:
            if isinstance(content, FunctionCall):
                out.extend(self._shown(fragments))
                fragments = []
                self.pending_calls.append(content)
                continue
            out.extend(self.flush_calls())
            if not isinstance(content, Usage):
                fragments.append(content)
        out.extend(self._shown(fragments))
        return out

    @staticmethod
    def _shown(fragments: list[Any]) -> list[LlmResponse]:
        partial = _partial(tuple(fragments)) if fragments else None
        return [partial] if partial is not None else []

    def flush_calls(self) -> list[LlmResponse]:
        calls = tuple(c for c in merge_contents(self.pending_calls) if isinstance(c, FunctionCall))
        self.pending_calls = []
        if not self.calls_as_partials:
            return []
        partial = _partial(calls)
        return [partial] if partial is not None else []

    def final(self) -> LlmResponse:
        merged = merge_contents(self.contents)
        return model_response(Response((Message("assistant", merged),)))


class ScriptedLlm(BaseLlm):
    """ADK's model: every call goes to the scripted provider (no network, no API key)."""

    provider: Any
    agent_name: str
    model: str = "scripted"
    # Not a Gemini model name, so ADK's name-based capability detection never applies.
    supported: ClassVar[list[str]] = []

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        provider: ModelProvider = self.provider
        messages = request_messages(llm_request, self.agent_name)
        options: dict[str, Any] = {"tool_choice": tool_choice(llm_request), "tools": offered_tools(llm_request)}
        if not stream:
            yield model_response(await provider.complete(messages, **options))
            return
        scripted = ScriptedStream(progressive_streaming())
        async for update in provider.stream(messages, **options):
            for partial in scripted.partials(update):
                yield partial
        for partial in scripted.flush_calls():
            yield partial
        yield scripted.final()
