"""The scenario's context providers as Agent Framework `ContextProvider`s: each adds its instructions and messages
before every agent run, under its own source id, the way a user's provider does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_framework import ContextProvider
from agent_framework import Message as FwMessage
from harness.adapters.agent_framework.convert import to_framework
from harness.contract import ContextSource


class ScriptedContextProvider(ContextProvider):
    def __init__(self, source: ContextSource, tools: Sequence[Any] = ()) -> None:
        super().__init__(source.id)
        self.context = source
        self.tools = list(tools)  # the framework tools of `source.tools`

    async def before_run(self, *, agent: Any, session: Any, context: Any, state: Any) -> None:
        if self.context.instructions:
            context.extend_instructions(self.source_id, self.context.instructions)
        if self.tools:
            context.extend_tools(self.source_id, self.tools)
        if self.context.messages:
            # New objects each run: the framework may annotate what a provider adds, and the next run must not
            # find this run's marks.
            context.extend_messages(self.source_id, [
                FwMessage(m.role, [to_framework(c) for c in m.contents]) for m in self.context.messages])


def context_providers(sources: Sequence[ContextSource],
                      catalogue: Mapping[str, Any] | None = None) -> list[ContextProvider] | None:
    """`catalogue` holds the framework tools by name, for providers that add tools."""
    return [ScriptedContextProvider(source, [(catalogue or {})[name] for name in source.tools])
            for source in sources] or None
