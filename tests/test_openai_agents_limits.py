"""The bundled scenarios the Agents SDK has no caller form for are n/a for its adapter, with the reason."""

from __future__ import annotations

from harness import run_scenario
from harness.adapters.openai_agents import conversation
from harness.run.suite import BUNDLED_SCENARIOS, load_all


def test_every_unexpressible_scenario_is_bundled() -> None:
    scenarios = {s.id for s in load_all([BUNDLED_SCENARIOS])[0]}
    assert set(conversation.UNEXPRESSIBLE) <= scenarios


async def test_a_scenario_built_on_handwritten_decisions_is_not_applicable() -> None:
    scenario = next(s for s in load_all([BUNDLED_SCENARIOS])[0]
                    if s.id == "correlation.multi-content.reused-id-same-turn")
    result = await run_scenario(scenario, conversation.OpenAIAgentsAdapter(), "non-streaming")
    assert result.verdict == "n/a"
    assert "state.approve" in result.reason
