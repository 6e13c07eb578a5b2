"""Context providers: their context reaches every model call of each turn and never becomes conversation; a
caller's audit history store: what it keeps for audit never reaches the model."""

from __future__ import annotations

from pathlib import Path

import pytest
from negative_controls import adapter_for
from negative_controls_approval import SendsApprovalWrappersToModel

from harness import MODES, Mode, ScenarioFileError, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter, ReferenceConversation
from harness.contract import CallerView, ConversationSetup, TurnInput

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "normal" / "context-providers.yaml"


class _PersistingConversation(ReferenceConversation):
    async def run_turn(self, turn: TurnInput) -> CallerView:
        view = await super().run_turn(turn)
        self.session.history[:0] = [m.frozen() for m in self._context()]  # pyright: ignore[reportPrivateUsage]
        return view


class PersistsContext(ReferenceAdapter):
    """Keeps the providers' context in the session's history, so it piles up turn after turn."""

    name = "control-persists-context"

    def open(self, setup: ConversationSetup) -> ReferenceConversation:
        plain = super().open(setup)
        return _PersistingConversation(plain.setup, plain.loop, plain.offered)


@pytest.mark.parametrize("mode", MODES)
async def test_the_reference_passes_and_a_loop_persisting_context_fails(mode: Mode) -> None:
    scenario = load_scenario(SCENARIO)
    assert (await run_scenario(scenario, ReferenceAdapter(), mode)).verdict == "pass"
    broken = await run_scenario(scenario, PersistsContext(), mode)
    failing = [c for c in broken.checks if c.verdict == "fail"]
    assert broken.verdict == "fail"
    assert [c.turn for c in failing if c.id == "expect.requests"] == [2, 4]  # the context piles up from turn 2 on


@pytest.mark.parametrize(("change", "message"), [
    (("requires: [approval, sessions, context-providers]", "requires: [approval, sessions]"),
     "'context_providers' needs 'context-providers' in 'requires'"),
    (("    instructions: Answer in one short sentence.\n", ""),
     "a context provider adds 'instructions', 'messages', 'tools' or several"),
])
def test_mistakes_are_located(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    text = SCENARIO.read_text(encoding="utf-8")
    assert change[0] in text
    path = tmp_path / "scenario.yaml"
    path.write_text(text.replace(*change), encoding="utf-8")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    assert message in str(caught.value)
    assert str(caught.value).startswith(f"{path}:")


AUDIT = Path(__file__).resolve().parent.parent / "scenarios" / "approval" / "audit-history-provider.yaml"


@pytest.mark.parametrize("mode", MODES)
async def test_an_audit_store_passes_on_the_reference_and_catches_a_loop_forwarding_its_wrappers(mode: Mode) -> None:
    scenario = load_scenario(AUDIT)
    assert (await run_scenario(scenario, ReferenceAdapter(), mode)).verdict == "pass"
    broken = await run_scenario(scenario, adapter_for(SendsApprovalWrappersToModel), mode)
    failing = {c.id for c in broken.checks if c.verdict == "fail"}
    assert "no-approval-wrappers-to-model" in failing


def test_a_history_provider_needs_a_session_and_the_capability(tmp_path: Path) -> None:
    text = AUDIT.read_text(encoding="utf-8")
    path = tmp_path / "scenario.yaml"
    path.write_text(text.replace("session: true\n", "").replace(
        "requires: [approval, sessions, history-providers]", "requires: [approval, sessions]"), encoding="utf-8")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert "'history_provider' needs 'history-providers' in 'requires'" in message
    assert "'history_provider' needs 'session: true'" in message
