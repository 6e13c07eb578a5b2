"""An Agents SDK `Model` whose every call goes to the harness's scripted provider.

It is the one place a provider plugs into the SDK (`agents.models.interface.Model`): `get_response` and
`stream_response` receive the runner's input items, model settings and tools, hand the provider the history as
neutral messages, the tool choice the runner asked for and the names of the tools it offered, and give the SDK the
scripted answer as Responses-API output items (`harness.adapters.openai_agents.responses`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

from agents import ModelSettings
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
from agents.models.interface import Model, ModelTracing
from agents.tool import Tool
from openai.types.responses.response_prompt_param import ResponsePromptParam

from harness.adapters.openai_agents.convert import messages_from_items
from harness.adapters.openai_agents.responses import AnswerEncoder
from harness.contents import JSON, Message, Update
from harness.contract import ModelProvider


@dataclass(frozen=True)
class ProviderRequest:
    """What one model call hands the provider."""

    messages: tuple[Message, ...]
    tool_choice: str | None
    tools: tuple[str, ...]
    kwargs: Mapping[str, JSON]


def provider_request(instructions: str | None, items: str | list[TResponseInputItem], settings: ModelSettings,
                     tools: list[Tool]) -> ProviderRequest:
    """The neutral form of one model call: history, the tool choice in the settings, offered tool names and the
    settings' `extra_args` (where a caller's invocation keyword arguments go)."""
    choice = settings.tool_choice
    tool_choice = None if choice is None else str(getattr(choice, "name", choice))
    kwargs = cast(Mapping[str, JSON], dict(settings.extra_args or {}))
    return ProviderRequest(messages_from_items(items, instructions), tool_choice,
                           tuple(tool.name for tool in tools), kwargs)


class ProviderModel(Model):
    """Answers every model call of the runner from the scripted provider, in the mode the runner asks for."""

    def __init__(self, provider: ModelProvider) -> None:
        self.provider = provider
        self._calls = 0

    def _encoder(self) -> AnswerEncoder:
        self._calls += 1
        return AnswerEncoder(prefix=f"r{self._calls}", response_id=f"scripted-{self._calls}")

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],  # noqa: A002 - the SDK's parameter name
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        request = provider_request(system_instructions, input, model_settings, tools)
        response = await self.provider.complete(request.messages, tool_choice=request.tool_choice,
                                                tools=request.tools, kwargs=request.kwargs)
        encoder = self._encoder()
        for position, message in enumerate(response.messages):
            encoder.feed(Update(message.role, message.contents, f"m{position}"))
        _, final = encoder.finish()
        return ModelResponse(output=final.output, usage=encoder.usage, response_id=final.id)

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],  # noqa: A002 - the SDK's parameter name
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        request = provider_request(system_instructions, input, model_settings, tools)
        updates = self.provider.stream(request.messages, tool_choice=request.tool_choice, tools=request.tools,
                                       kwargs=request.kwargs)
        encoder = self._encoder()
        for event in encoder.start():
            yield event
        async for update in updates:
            for event in encoder.feed(update):
                yield event
        events, _ = encoder.finish()
        for event in events:
            yield event
