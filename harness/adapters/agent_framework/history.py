"""A caller's audit history store as an Agent Framework `HistoryProvider`: it keeps every message of every run,
verbatim and in its own store (outside the session's state), and loads them all back before each run."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from agent_framework import HistoryProvider
from agent_framework import Message as FwMessage


class AuditHistoryProvider(HistoryProvider):
    def __init__(self, source_id: str) -> None:
        super().__init__(source_id)
        self.stored: list[FwMessage] = []

    async def get_messages(self, session_id: str | None, *, state: Any = None, **kwargs: Any) -> list[FwMessage]:
        # Copies: what the loop does to the history it loads must not rewrite the store.
        return [copy.deepcopy(message) for message in self.stored]

    async def save_messages(self, session_id: str | None, messages: Sequence[FwMessage], *, state: Any = None,
                            **kwargs: Any) -> None:
        self.stored.extend(copy.deepcopy(list(messages)))
