"""The budget an implementation reports (`CallerView.function_calls_counted`, capability `budget-counts`): the
expectation that reads it needs the capability, and a count that is no integer is the adapter's fault."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loader_problems import problem_lines
from negative_controls import adapter_for

from harness import load_scenario, run_scenario
from harness.adapters.reference.loop import ReferenceLoop
from harness.contract import CallerView, Capability, ConversationSetup, TurnInput

BUDGET_UNIT = Path(__file__).resolve().parents[1] / "scenarios" / "approval" / "user-input-budget.yaml"


def test_the_expectation_needs_the_capability_named_where_it_is(tmp_path: Path) -> None:
    path = tmp_path / "budget.yaml"
    path.write_text(BUDGET_UNIT.read_text(encoding="utf-8").replace(
        "requires: [approval, user-input, budget-counts]", "requires: [approval, user-input]"), encoding="utf-8")
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "function_calls_counted" in text)
    assert problem_lines(path) == [f"{path}:{line}:31: error[missing-capability]: an 'expect.function_calls_counted' "
                                   "needs 'budget-counts' in 'requires'"]


@dataclass
class _Conversation:
    counted: object

    async def run_turn(self, turn: TurnInput) -> CallerView:
        return CallerView(function_calls_counted=self.counted)  # pyright: ignore[reportArgumentType]

    async def close(self) -> None:
        return None


@dataclass
class _Adapter:
    counted: object
    name: str = "miscounting"
    version: str = "0"
    capabilities: frozenset[Capability] = frozenset({"approval", "user-input", "budget-counts",
                                                     "function-call-budget"})

    def open(self, setup: ConversationSetup) -> _Conversation:
        return _Conversation(self.counted)


async def test_a_count_that_is_no_integer_breaks_the_contract() -> None:
    result = await run_scenario(load_scenario(BUDGET_UNIT), _Adapter("1"), "non-streaming")
    assert result.verdict == "error"
    completes = next(c for c in result.checks if c.id == "completes")
    assert completes.message == ("adapter contract broken: run_turn returned a CallerView whose "
                                 "function_calls_counted is a str")


class _ReportsNoCount(ReferenceLoop):
    @property
    def function_calls_counted(self) -> int | None:
        return None


async def test_a_declared_count_left_unreported_fails_the_expectation() -> None:
    result = await run_scenario(load_scenario(BUDGET_UNIT), adapter_for(_ReportsNoCount), "non-streaming")
    failed = {c.id: c.message for c in result.checks if c.verdict == "fail"}
    assert set(failed) == {"expect.function-calls-counted"}
    assert failed["expect.function-calls-counted"] == "the implementation reported no function-call count for this turn"
