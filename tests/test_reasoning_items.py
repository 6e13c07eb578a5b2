"""Reasoning items: kept apart by id when streamed, and each bound to the call it precedes (check reasoning-bound)."""

from __future__ import annotations

from pathlib import Path

import pytest
from negative_controls import DropsEncryptedReasoning, adapter_for

from harness import MODES, Mode, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter
from harness.adapters.reference.session import LoopSession
from harness.contents import Message, Reasoning, merge_contents

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
