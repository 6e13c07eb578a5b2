"""The reference loop's session keeps the budgets a run spent before it paused for the caller's own calls, and a
saved session carries them: restored in another process, the resumed batch still runs on the spent budget. A
malformed count fails closed, as the other persisted counters do."""

from __future__ import annotations

import json

import pytest

from harness.adapters.reference.session import InvalidSessionState, LoopSession, PausedBudget


def test_a_saved_session_keeps_the_paused_runs_spent_budgets() -> None:
    session = LoopSession(paused_budget=PausedBudget(function_calls=2, iterations=1, waiting=("c3",)))
    assert LoopSession.from_json(session.to_json()).paused_budget == session.paused_budget


def test_a_session_saved_before_paused_budgets_existed_restores_without_one() -> None:
    saved = json.loads(LoopSession().to_json())
    del saved["paused_budget"]
    assert LoopSession.from_json(json.dumps(saved)).paused_budget is None


@pytest.mark.parametrize("value", [-1, 1.5, "2", True])
def test_a_malformed_spent_count_fails_closed(value: object) -> None:
    saved = json.loads(LoopSession(paused_budget=PausedBudget(1, 1, ("c3",))).to_json())
    saved["paused_budget"]["function_calls"] = value
    with pytest.raises(InvalidSessionState, match="function_calls"):
        LoopSession.from_json(json.dumps(saved))
