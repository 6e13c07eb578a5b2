"""`grouping: any` on a request expectation: consecutive messages of one role compare as one, so a batch's results
may reach the model in one tool message or in one each; `exact` (the default) keeps the grouping significant."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from harness.checks.expectations import check_turn
from harness.contents import FunctionCall, FunctionResult, Message, Text
from harness.contract import CallerView
from harness.scenario.schema import ExpectSpec
from harness.script import ModelRequest

CALLS = Message("assistant", (FunctionCall("c1", "wire_money", {}), FunctionCall("c2", "wire_money", {})))
SPLIT = (Message("user", (Text("Send it"),)), CALLS,
         Message("tool", (FunctionResult("c1", "refused", error=True),)),
         Message("tool", (FunctionResult("c2", "refused", error=True),)))


def _verdict(grouping: str | None, seen: tuple[Message, ...]) -> str:
    request: dict[str, Any] = {"call": 1, "messages": {"$suffix": [{"role": "tool", "contents": [
        {"function_result": {"call_id": "c1", "result": "refused", "error": True}},
        {"function_result": {"call_id": "c2", "result": "refused", "error": True}}]}]}}
    if grouping is not None:
        request["grouping"] = grouping
    expect = ExpectSpec.model_validate({"requests": [request], "cites": ["Parallel calls"]})
    request_seen = ModelRequest(0, 1, seen, "auto", ("wire_money",))
    turn: Any = SimpleNamespace(index=0, view=CallerView(), requests=[request_seen], violations=())
    (result,) = check_turn(expect, turn, ["wire_money"], streaming=False)
    return result.verdict


def test_results_one_message_each_meet_a_grouping_any_expectation_and_fail_an_exact_one() -> None:
    assert _verdict("any", SPLIT) == "pass"
    assert _verdict(None, SPLIT) == "fail"
    assert _verdict("exact", SPLIT) == "fail"


def test_grouping_any_still_judges_the_contents_and_their_order() -> None:
    swapped = (*SPLIT[:2], SPLIT[3], SPLIT[2])
    assert _verdict("any", swapped) == "fail"
    joined = (*SPLIT[:2], Message("tool", SPLIT[2].contents + SPLIT[3].contents))
    assert _verdict("any", joined) == "pass"
    assert _verdict("exact", joined) == "pass"
