"""`no-orphans` and a call shown twice. When a model response itself repeats one output item (the same call id and
service item id in two of its messages), a loop that passes the repeat on under its one identity for the
occurrence shows one call twice, which needs one result. A copy the loop made itself (say, restored from an
approval request beside the original) is never excused, and without a shared identity every function_call needs
its own result."""

from __future__ import annotations

import pytest

from harness.checks.invariants import orphans
from harness.contents import FunctionCall, FunctionResult, Message, Text

REPEATED = {"c1"}  # the model's response repeated call c1's item


def _call(occurrence_id: str | None) -> FunctionCall:
    return FunctionCall("c1", "get_weather", {"city": "Paris"}, occurrence_id=occurrence_id)


def _transcript(first: str | None, second: str | None) -> list[Message]:
    return [
        Message.of("user", Text("What is the weather in Paris?")),
        Message.of("assistant", _call(first)),
        Message.of("assistant", _call(second)),
        Message.of("tool", FunctionResult("c1", "sunny")),
    ]


@pytest.mark.parametrize("allow_pauses", [True, False], ids=["caller-side", "model-bound"])
def test_one_result_answers_the_models_repeat_shown_under_one_identity(allow_pauses: bool) -> None:
    assert orphans(_transcript("fc_1", "fc_1"), allow_pauses=allow_pauses, repeated=REPEATED) == []


def test_a_copy_the_model_did_not_repeat_needs_its_own_result() -> None:
    assert orphans(_transcript("fc_1", "fc_1"), allow_pauses=False) == ["call 'c1' (get_weather) has no result"]


def test_copies_without_a_shared_identity_each_need_a_result() -> None:
    missing = ["call 'c1' (get_weather) has no result"]
    assert orphans(_transcript(None, None), allow_pauses=False, repeated=REPEATED) == missing
    assert orphans(_transcript("fc_1", "fc_2"), allow_pauses=False, repeated=REPEATED) == missing


def test_a_repeat_in_a_later_response_is_a_new_occurrence() -> None:
    later = [*_transcript("fc_1", "fc_1"), Message.of("assistant", _call("fc_1"))]
    assert orphans(later, allow_pauses=False, repeated=REPEATED) == ["call 'c1' (get_weather) has no result"]


def test_a_second_result_for_the_one_occurrence_is_an_orphan() -> None:
    doubled = [*_transcript("fc_1", "fc_1"), Message.of("tool", FunctionResult("c1", "rainy"))]
    assert orphans(doubled, allow_pauses=False, repeated=REPEATED) == ["result for 'c1' has no open call before it"]
