"""A LangChain chat model whose every answer comes from the harness's scripted provider.

It is a `BaseChatModel` like any provider's: the agent binds its tools with `bind_tools` (their names, the tool
choice and the caller's model settings travel to each call as keyword arguments, as they do to a provider's
request), `_agenerate` answers a non-streaming call and `_astream` a streaming one; LangChain itself decides which
(it streams when the caller streams the agent's messages). What the provider records is read from what the model
receives: the messages (`convert.neutral_messages`), the offered tool names, the tool choice in the provider's words
(LangChain's ``"any"`` is ``"required"``, as its OpenAI integration sends it; none when the caller set none) and
the caller's model settings as invocation kwargs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, cast

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import ConfigDict

from harness.adapters.langchain.chunks import BlockIndexes, CallIndexes, chunks_of
from harness.adapters.langchain.convert import ai_message, neutral_messages
from harness.contents import JSON, Response
from harness.contract import ModelProvider

_TOOL_CHOICES = {"any": "required", "auto": "auto", "none": "none", "required": "required"}


def tool_names(tools: Sequence[object]) -> list[str]:
    """The names of the tools `bind_tools` was given (LangChain tools or provider-format dicts)."""
    names: list[str] = []
    for tool in tools:
        if isinstance(tool, BaseTool):
            names.append(tool.name)
        elif isinstance(tool, Mapping):
            described = cast(Mapping[str, Any], tool)
            function = described.get("function")
            named = cast(Mapping[str, Any], function) if isinstance(function, Mapping) else described
            names.append(str(named.get("name")))
    return names


def _request(kwargs: Mapping[str, Any]) -> tuple[str | None, list[str], dict[str, JSON]]:
    """The tool choice, offered tool names and forwarded settings of one call's keyword arguments."""
    rest = {k: v for k, v in kwargs.items() if k not in ("tools", "tool_choice")}
    choice = kwargs.get("tool_choice")
    named = _TOOL_CHOICES.get(choice, choice) if isinstance(choice, str) else None
    return named, [str(n) for n in kwargs.get("tools", ())], cast(dict[str, JSON], rest)


def response_message(response: Response) -> AIMessage:
    """A scripted response as the one `AIMessage` a chat model returns for one call."""
    message = ai_message(c for m in response.messages if m.role == "assistant" for c in m.contents)
    if response.finish_reason:
        message.response_metadata["finish_reason"] = response.finish_reason
    return message


class ScriptedChatModel(BaseChatModel):
    """A chat model answering from `provider`, in both of LangChain's call modes."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    provider: Any  # a `ModelProvider`; pydantic cannot validate a protocol

    @property
    def _llm_type(self) -> str:
        return "loop-conformance-scripted"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None,
                   **kwargs: Any) -> Runnable[LanguageModelInput, AIMessage]:
        return self.bind(tools=tool_names(tools), tool_choice=tool_choice, **kwargs)

    def _scripted(self) -> ModelProvider:
        return cast(ModelProvider, self.provider)

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        choice, tools, forwarded = _request(kwargs)
        response = await self._scripted().complete(neutral_messages(messages), tool_choice=choice, tools=tools,
                                                   kwargs=forwarded)
        return ChatResult(generations=[ChatGeneration(message=response_message(response))])

    async def _astream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                       run_manager: AsyncCallbackManagerForLLMRun | None = None,
                       **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        choice, tools, forwarded = _request(kwargs)
        indexes, blocks = CallIndexes(), BlockIndexes()
        async for update in self._scripted().stream(neutral_messages(messages), tool_choice=choice, tools=tools,
                                                    kwargs=forwarded):
            if update.role == "assistant":
                for chunk in chunks_of(update, indexes, blocks):
                    yield ChatGenerationChunk(message=chunk)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        raise NotImplementedError("the scripted model answers asynchronously only; the agent is run with ainvoke")

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        raise NotImplementedError("the scripted model answers asynchronously only; the agent is run with astream")
