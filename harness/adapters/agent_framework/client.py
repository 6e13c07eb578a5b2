"""A real Agent Framework chat client whose model is the harness's scripted provider.

It is built the way the framework's own clients are: the function invocation layer over the base client. Only
`_inner_get_response` — the one place a provider plugs in — is ours.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from typing import Any, cast

from agent_framework import BaseChatClient, ChatResponse, ChatResponseUpdate, FunctionInvocationLayer, ResponseStream
from agent_framework import Message as FwMessage
from harness.adapters.agent_framework.convert import (
    messages_from_framework,
    response_to_framework,
    update_to_framework,
)
from harness.contents import JSON, Message, Text
from harness.contract import ModelProvider, ScriptedProviderError, ScriptedResponseInvalidated


def _invalidation_errors() -> tuple[type[Exception], ...]:
    try:  # releases from 1.19.0 know that a provider can invalidate a request it accepted
        from agent_framework.exceptions import ResponseInvalidatedException
    except ImportError:  # older releases see the fault as the provider error it is
        return ()
    return (ResponseInvalidatedException,)


INVALIDATION_ERRORS = _invalidation_errors()


def _provider_fault(fault: ScriptedProviderError) -> Exception:
    """The exception a real client of this release raises for the scripted fault."""
    if isinstance(fault, ScriptedResponseInvalidated) and INVALIDATION_ERRORS:
        return INVALIDATION_ERRORS[0](str(fault))
    return fault


# Keyword arguments the framework adds for its own bookkeeping; they are not the caller's invocation kwargs.
# (An agent host such as the AG-UI endpoint passes its run middleware the same way.)
_FRAMEWORK_KWARGS = frozenset({"session", "conversation_id", "chat_options", "middleware"})


def _conversation_id(options: Mapping[str, Any], kwargs: Mapping[str, Any]) -> str | None:
    """The continuation the layer asks for: releases put it in the options, some also in the call's kwargs."""
    value = options.get("conversation_id") or kwargs.get("conversation_id")
    return str(value) if value else None


def _tool_choice(options: Mapping[str, Any]) -> str | None:
    choice = options.get("tool_choice")
    if isinstance(choice, Mapping):
        return str(cast(Mapping[str, Any], choice).get("mode"))
    return None if choice is None else str(choice)


def _tool_names(options: Mapping[str, Any]) -> list[str]:
    tools = cast(Sequence[Any], options.get("tools") or [])
    return [str(getattr(tool, "name", tool)) for tool in tools]


class ScriptedChatClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Agent Framework's function invocation layer over a model that replays the scenario's script."""

    OTEL_PROVIDER_NAME = "loop-conformance-scripted"

    def __init__(self, provider: ModelProvider, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.provider = provider
        self._responses = 0

    # Deliberately not `async def`: some releases require the stream to be returned synchronously.
    def _inner_get_response(
        self, *, messages: Sequence[FwMessage], stream: bool, options: Mapping[str, Any], **kwargs: Any,
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        self._responses += 1
        response_id = f"scripted-{self._responses}"
        neutral = messages_from_framework(messages)
        instructions = options.get("instructions")
        if isinstance(instructions, str) and instructions:
            # A provider client sends the run's instructions ahead of the conversation, as a system message.
            neutral = [Message("system", (Text(instructions),)), *neutral]
        choice = _tool_choice(options)
        names = _tool_names(options)
        forwarded = cast(dict[str, JSON], {k: v for k, v in kwargs.items() if k not in _FRAMEWORK_KWARGS})
        conversation_id = _conversation_id(options, kwargs)
        if stream:
            async def updates() -> AsyncIterator[ChatResponseUpdate]:
                try:
                    async for update in self.provider.stream(neutral, tool_choice=choice, tools=names,
                                                             kwargs=forwarded, conversation_id=conversation_id):
                        yield update_to_framework(update, response_id)
                except ScriptedProviderError as fault:
                    raise _provider_fault(fault) from None

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            try:
                response = await self.provider.complete(neutral, tool_choice=choice, tools=names, kwargs=forwarded,
                                                        conversation_id=conversation_id)
            except ScriptedProviderError as fault:
                raise _provider_fault(fault) from None
            return response_to_framework(response, response_id)

        return complete()


class ScriptedStoringChatClient(ScriptedChatClient):
    """The same over a provider that stores conversations (it issues conversation ids), declared so as the
    framework's own Responses clients are: an agent then relies on the service for history instead of keeping it."""

    STORES_BY_DEFAULT = True
