"""Reasoning items: kept apart by id when streamed, and each bound to the call it precedes (check reasoning-bound)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from negative_controls import adapter_for

from harness import MODES, Mode, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter
from harness.adapters.reference.loop import ModelClient, ReferenceLoop
from harness.adapters.reference.session import LoopSession
from harness.contents import JSON, Message, Reasoning, Response, Update, merge_contents

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "normal" / "reasoning-items.yaml"


def test_streamed_fragments_of_different_items_stay_apart() -> None:
    fragments = [Reasoning("Plan ", None, "rs_1", "summary"), Reasoning("ahead.", None, "rs_1", "summary"),
                 Reasoning("", None, "rs_2", "encrypted", {"encrypted_content": "x"}), Reasoning("raw", None, "rs_3")]
    assert merge_contents(fragments) == (Reasoning("Plan ahead.", None, "rs_1", "summary"),
                                         Reasoning("", None, "rs_2", "encrypted", {"encrypted_content": "x"}),
                                         Reasoning("raw", None, "rs_3"))


def test_a_reasoning_item_round_trips_through_the_reference_session() -> None:
    item = Reasoning("", "sig", "rs_2", "encrypted", {"encrypted_content": "x"})
    session = LoopSession([Message("assistant", (item,))])
    assert LoopSession.from_json(session.to_json()).history == session.history


class _EncryptedBlindModel:
    """Forwards each request without the encrypted reasoning items, as a loop that keeps only readable text does."""

    def __init__(self, inner: ModelClient) -> None:
        self._inner = inner

    @staticmethod
    def _strip(messages: Sequence[Message]) -> list[Message]:
        kept = (Message(m.role, tuple(c for c in m.contents
                                      if not (isinstance(c, Reasoning) and c.kind == "encrypted")))
                for m in messages)
        return [m for m in kept if m.contents]

    async def complete(self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
                       kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None) -> Response:
        return await self._inner.complete(self._strip(messages), tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                          conversation_id=conversation_id)

    def stream(self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
               kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None) -> AsyncIterator[Update]:
        return self._inner.stream(self._strip(messages), tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                  conversation_id=conversation_id)


class DropsEncryptedReasoning(ReferenceLoop):
    """Replays only reasoning that has text: the encrypted item bound to the call never goes back."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.model = _EncryptedBlindModel(self.model)


@pytest.mark.parametrize("mode", MODES)
async def test_the_reference_passes_and_a_loop_dropping_encrypted_items_fails_reasoning_bound(mode: Mode) -> None:
    scenario = load_scenario(SCENARIO)
    assert (await run_scenario(scenario, ReferenceAdapter(), mode)).verdict == "pass"
    broken = await run_scenario(scenario, adapter_for(DropsEncryptedReasoning), mode)
    failing = [c for c in broken.checks if c.verdict == "fail"]
    assert broken.verdict == "fail"
    bound = [c for c in failing if c.id == "reasoning-bound"]
    assert bound
    assert "'rs_2'" in bound[0].message
