"""pydantic-ai's own `FunctionModel`, answering every model call from the harness's scripted provider.

What the provider records is what the loop asked for, read from the request pydantic-ai hands its model:

- messages: the history the model receives (`convert.model_bound_messages`);
- tools: every function and output tool the request puts before the model (all but those withheld until revealed);
- tool choice: the one pydantic-ai's own provider adapters send, from `resolve_tool_choice` over the request and
  its `tool_choice` setting (``'auto'`` when text output is allowed, ``'required'`` when it is not, ``'none'`` when
  the caller's setting disables tools), and none at all when the request has no tools, as those adapters do;
- kwargs: the caller's invocation keyword arguments, which a pydantic-ai caller passes per run as the
  `extra_body` model setting (merged into the provider request body).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import cast

from harness.adapters.pydantic_ai.convert import model_bound_messages, response_to_model
from harness.adapters.pydantic_ai.stream import ScriptedStream, StreamItem
from harness.contents import JSON
from harness.contract import ModelProvider
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models._tool_choice import resolve_tool_choice  # pyright: ignore[reportPrivateUsage]
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.settings import ModelSettings


def offered_tools(parameters: ModelRequestParameters) -> list[str]:
    """Names of the tools the request puts before the model, in its order."""
    functions = [t.name for t in parameters.function_tools if parameters.visibility_of(t.name) != "withheld"]
    return functions + [t.name for t in parameters.output_tools]


def tool_choice(settings: ModelSettings | None, parameters: ModelRequestParameters) -> str | None:
    """The tool choice pydantic-ai's provider adapters would send; `None` when there are no tools to choose."""
    if not offered_tools(parameters):
        return None
    resolved = resolve_tool_choice(settings, parameters)
    return resolved if isinstance(resolved, str) else resolved[0]


def forwarded_kwargs(settings: ModelSettings | None) -> dict[str, JSON]:
    extra = settings["extra_body"] if settings is not None and "extra_body" in settings else None
    return dict(cast(Mapping[str, JSON], extra)) if isinstance(extra, Mapping) else {}


class ScriptedFunctions:
    """The function and stream function of a `FunctionModel` whose answers come from `provider`."""

    def __init__(self, provider: ModelProvider) -> None:
        self.provider = provider

    async def complete(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        parameters = info.model_request_parameters
        response = await self.provider.complete(
            model_bound_messages(messages), tool_choice=tool_choice(info.model_settings, parameters),
            tools=offered_tools(parameters), kwargs=forwarded_kwargs(info.model_settings))
        return response_to_model(response)

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[StreamItem]:
        parameters = info.model_request_parameters
        scripted = ScriptedStream()
        async for update in self.provider.stream(
            model_bound_messages(messages), tool_choice=tool_choice(info.model_settings, parameters),
            tools=offered_tools(parameters), kwargs=forwarded_kwargs(info.model_settings),
        ):
            for item in scripted.items(update):
                yield item


def scripted_model(provider: ModelProvider) -> FunctionModel:
    functions = ScriptedFunctions(provider)
    return FunctionModel(functions.complete, stream_function=functions.stream, model_name="scripted")
