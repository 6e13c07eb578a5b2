"""`no-orphans` and a call shown twice: copies that the loop itself identifies as one occurrence (the same occurrence
id, in one model response) need one result; without that identity every function_call needs its own."""

from __future__ import annotations

from harness.checks.invariants import orphans
from harness.contents import FunctionCall, FunctionResult, Message, Text


def _call(occurrence_id: str | None) -> FunctionCall:
    return FunctionCall("c1", "get_weather", {"city": "Paris"}, occurrence_id=occurrence_id)


def _transcript(first: str | None, second: str | None) -> list[Message]:
    return [
        Message.of("user", Text("What is the weather in Paris?")),
        Message.of("assistant", _call(first)),
        Message.of("assistant", _call(second)),
        Message.of("tool", FunctionResult("c1", "sunny")),
    ]


def test_one_result_answers_a_call_the_loop_shows_twice_as_one_occurrence() -> None:
    assert orphans(_transcript("fc_1", "fc_1"), allow_pauses=False) == []


def test_copies_without_a_shared_identity_each_need_a_result() -> None:
    assert orphans(_transcript(None, None), allow_pauses=False) == ["call 'c1' (get_weather) has no result"]
    assert orphans(_transcript("fc_1", "fc_2"), allow_pauses=False) == ["call 'c1' (get_weather) has no result"]


def test_a_repeat_in_a_later_response_is_a_new_occurrence() -> None:
    later = [*_transcript("fc_1", "fc_1"), Message.of("assistant", _call("fc_1"))]
    assert orphans(later, allow_pauses=False) == ["call 'c1' (get_weather) has no result"]


def test_a_second_result_for_the_one_occurrence_is_an_orphan() -> None:
    doubled = [*_transcript("fc_1", "fc_1"), Message.of("tool", FunctionResult("c1", "rainy"))]
    assert orphans(doubled, allow_pauses=False) == ["result for 'c1' has no open call before it"]
