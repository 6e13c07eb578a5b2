"""Noting the provider faults of a run: the endpoint turns every exception into a RUN_ERROR event, so whether the
caller's error came from the model is known only here."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence

from harness.contents import JSON, Message, Response, Update
from harness.contract import ModelProvider, ScriptedProviderError


class FaultNotingProvider:
    def __init__(self, inner: ModelProvider) -> None:
        self.inner = inner
        self.faults: list[ScriptedProviderError] = []

    async def complete(self, messages: Sequence[Message], *, tool_choice: str | None = None,
                       tools: Sequence[str] = (), kwargs: Mapping[str, JSON] | None = None,
                       conversation_id: str | None = None) -> Response:
        try:
            return await self.inner.complete(messages, tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                             conversation_id=conversation_id)
        except ScriptedProviderError as fault:
            self.faults.append(fault)
            raise

    async def stream(self, messages: Sequence[Message], *, tool_choice: str | None = None,
                     tools: Sequence[str] = (), kwargs: Mapping[str, JSON] | None = None,
                     conversation_id: str | None = None) -> AsyncIterator[Update]:
        try:
            async for update in self.inner.stream(messages, tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                                  conversation_id=conversation_id):
                yield update
        except ScriptedProviderError as fault:
            self.faults.append(fault)
            raise
