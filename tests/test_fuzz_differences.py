"""The differential oracle's accepted differences accept only what they name: a rejection's error flag (not a failed
call's), and where input requests sit among a resumed batch's results (not the results' own order)."""

from __future__ import annotations

from typing import Any

from harness.fuzz.differences import Known, normalised_items


def _turn(*contents: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"response": [{"role": "tool" if "function_result" in c else "assistant", "contents": [c]}
                          for c in contents]}]


def _result(call_id: str, error: bool = False) -> dict[str, Any]:
    return {"function_result": {"call_id": call_id, "result": "no", **({"error": True} if error else {})}}


REQUEST = {"user_input_request": {"id": "r1", "call_id": "c1", "function_call": {"call_id": "c1"}, "payload": 1}}


def test_a_rejections_error_flag_is_the_loops_choice_a_failures_is_not() -> None:
    rejected = Known(set(), frozenset({"c2"}))
    assert normalised_items(_turn(_result("c2", error=True)), rejected) == normalised_items(
        _turn(_result("c2")), rejected)
    failed = Known(set())
    assert normalised_items(_turn(_result("c2", error=True)), failed) != normalised_items(_turn(_result("c2")), failed)


def test_input_requests_may_sit_anywhere_among_results_but_results_keep_their_order() -> None:
    known = Known(set())
    assert normalised_items(_turn(REQUEST, _result("c2")), known) == normalised_items(
        _turn(_result("c2"), REQUEST), known)
    assert normalised_items(_turn(_result("c2"), _result("c3")), known) != normalised_items(
        _turn(_result("c3"), _result("c2")), known)


HOSTED_CALL = {"function_call": {"call_id": "h1", "name": "web_search", "arguments": {}, "server_label": "web"}}
LOCAL_CALL = {"function_call": {"call_id": "c1", "name": "get_weather", "arguments": {}}}
FALLBACK = {"text": "I could not finish."}


def test_a_fallback_text_after_the_services_own_content_is_the_loops_choice_elsewhere_it_is_compared() -> None:
    known = Known(set())
    after_hosted = {"function_result": {"call_id": "h1", "result": "web results"}}
    assert normalised_items(_turn(HOSTED_CALL, after_hosted, FALLBACK), known) == normalised_items(
        _turn(HOSTED_CALL, after_hosted), known)
    after_local = {"function_result": {"call_id": "c1", "result": "sunny"}}
    assert normalised_items(_turn(LOCAL_CALL, after_local, FALLBACK), known) != normalised_items(
        _turn(LOCAL_CALL, after_local), known)
    scripted = Known({"I could not finish."})  # the model's own words are never the loop's to drop
    assert normalised_items(_turn(HOSTED_CALL, after_hosted, FALLBACK), scripted) != normalised_items(
        _turn(HOSTED_CALL, after_hosted), scripted)


def test_the_text_of_an_optional_model_response_may_be_absent_a_required_ones_may_not() -> None:
    waiting = {"text": "Waiting for your decision on the restart."}
    result = _result("c1")
    optional = Known({"Waiting for your decision on the restart."}, optional=frozenset({waiting["text"]}))
    assert normalised_items(_turn(result, waiting), optional) == normalised_items(_turn(result), optional)
    required = Known({"Waiting for your decision on the restart."})
    assert normalised_items(_turn(result, waiting), required) != normalised_items(_turn(result), required)
