"""The event-level checks and the `events:` expectation on hand-built AG-UI runs (no framework needed), and the
loader's located errors for `events:`."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from harness import ScenarioFileError, load_scenario
from harness.checks.event_expectations import check_events
from harness.checks.events import (
    check_events_well_formed,
    check_no_approval_controls_to_model,
    check_result_events_once,
    check_snapshot_agrees,
    stream_problems,
)
from harness.contents import ApprovalRequest, ApprovalResponse, FunctionCall, FunctionResult, Message, Text
from harness.contract import CallerView, LoopConfig, TransportEvent, TransportExchange
from harness.records import RunRecord, RunSubject, TurnRecord
from harness.scenario.schema import EventsExpect
from harness.script import ModelRequest, ToolExecution

CALL = FunctionCall("c1", "delete_file", {"path": "/tmp/a"})
USER: dict[str, Any] = {"id": "u1", "role": "user", "content": "Delete /tmp/a"}


def _event(kind: str, **fields: Any) -> TransportEvent:
    return TransportEvent(kind, fields)


def _resumed_run(*middle: TransportEvent, snapshot_tail: list[dict[str, Any]] | None = None) -> list[TransportEvent]:
    tail = snapshot_tail if snapshot_tail is not None else [
        {"id": "r1", "role": "tool", "toolCallId": "c1", "content": "deleted"},
        {"id": "m2", "role": "assistant", "content": "Done."}]
    return [_event("RUN_STARTED", threadId="t", runId="r2"), *middle,
            _event("MESSAGES_SNAPSHOT", messages=[USER, *tail]), _event("RUN_FINISHED", threadId="t", runId="r2")]


GOOD = _resumed_run(
    _event("TOOL_CALL_RESULT", messageId="r1", toolCallId="c1", content="deleted", role="tool"),
    _event("TEXT_MESSAGE_START", messageId="m2", role="assistant"),
    _event("TEXT_MESSAGE_CONTENT", messageId="m2", delta="Done."),
    _event("TEXT_MESSAGE_END", messageId="m2"))


def _run(events: list[TransportEvent], *, decision: bool | None = True, executed: bool = True,
         model_saw: tuple[Message, ...] = ()) -> RunRecord:
    caller: tuple[Message, ...] = (Message("user", (Text("Delete /tmp/a"),)),)
    if decision is not None:
        caller = (*caller, Message("user", (ApprovalResponse("a1", decision, CALL),)))
    exchange = TransportExchange({"messages": [USER]}, tuple(events))
    executions = (ToolExecution(0, "delete_file", {"path": "/tmp/a"}, "c1"),) if executed else ()
    requests = (ModelRequest(0, 1, model_saw, "auto", ("delete_file",)),) if model_saw else ()
    turn = TurnRecord(0, caller, (), CallerView(transport=exchange), requests, executions, (), (), ())
    return RunRecord(RunSubject("t", LoopConfig(), ()), "agui", "streaming", [turn])


def _verdicts(results: list[Any]) -> list[str]:
    return [r.verdict for r in results]


def test_a_well_formed_resume_passes_every_event_check() -> None:
    run = _run(GOOD)
    assert stream_problems(GOOD) == []
    for check in (check_events_well_formed, check_result_events_once, check_snapshot_agrees,
                  check_no_approval_controls_to_model):
        assert _verdicts(check(run)) == ["pass"], check.__name__


def test_runs_without_a_transport_get_no_event_check() -> None:
    run = _run(GOOD)
    run.turns[0] = TurnRecord(0, "hi", (), CallerView(), (), (), (), (), ())
    assert check_events_well_formed(run) == []
    assert check_snapshot_agrees(run) == []


@pytest.mark.parametrize(("events", "problem"), [
    (GOOD[1:], "does not begin with RUN_STARTED"),
    (GOOD[:-1], "0 terminal events"),
    ([*GOOD, _event("RUN_ERROR", message="late")], "2 terminal events"),
    ([GOOD[0], _event("TOOL_CALL_END", toolCallId="c2"), *GOOD[1:]], "ends without having started"),
    ([GOOD[0], _event("TOOL_CALL_START", toolCallId="c2", toolCallName="x"), *GOOD[1:]], "never ends"),
    ([GOOD[0], _event("TOOL_CALL_ARGS", toolCallId="c2", delta="{}"), *GOOD[1:]], "which is not open"),
    ([GOOD[0], _event("TEXT_MESSAGE_CONTENT", messageId="m9", delta="x"), *GOOD[1:]], "which is not open"),
    ([GOOD[0], _event("UNPARSEABLE", data="{", error="bad"), *GOOD[1:]], "refuse it"),
])
def test_ill_formed_streams_are_named(events: list[TransportEvent], problem: str) -> None:
    assert any(problem in p for p in stream_problems(events)), stream_problems(events)
    failed = check_events_well_formed(_run(events))
    assert _verdicts(failed) == ["fail"]
    assert failed[0].turn == 1


def test_a_result_event_twice_or_for_a_rejected_call_or_missing_fails() -> None:
    twice = _resumed_run(*GOOD[1:2], *GOOD[1:-2])
    assert "2 TOOL_CALL_RESULT events" in check_result_events_once(_run(twice))[0].message
    rejected = check_result_events_once(_run(GOOD, decision=False, executed=False))
    assert "which the caller rejected" in rejected[0].message
    missing = _resumed_run(*GOOD[2:-2])
    assert "no TOOL_CALL_RESULT event reported it" in check_result_events_once(_run(missing))[0].message


def test_a_rejection_result_in_the_snapshot_only_is_what_the_spec_defines() -> None:
    events = _resumed_run(*GOOD[2:-2], snapshot_tail=[
        {"id": "r1", "role": "tool", "toolCallId": "c1", "content": "Error: rejected"},
        {"id": "m2", "role": "assistant", "content": "Done."}])
    run = _run(events, decision=False, executed=False)
    assert _verdicts(check_snapshot_agrees(run)) == ["pass"]
    assert _verdicts(check_result_events_once(run)) == ["pass"]


def test_a_snapshot_that_differs_from_the_events_or_is_missing_fails() -> None:
    lost = _resumed_run(*GOOD[1:-2], snapshot_tail=[{"id": "m2", "role": "assistant", "content": "Done."}])
    assert "the events fold to" in check_snapshot_agrees(_run(lost))[0].message
    none = [e for e in GOOD if e.type != "MESSAGES_SNAPSHOT"]
    assert "without a MESSAGES_SNAPSHOT" in check_snapshot_agrees(_run(none))[0].message
    result_only = [e for e in _resumed_run(GOOD[1]) if e.type != "MESSAGES_SNAPSHOT"]
    assert "without a MESSAGES_SNAPSHOT" in check_snapshot_agrees(_run(result_only))[0].message


def test_a_run_that_adds_nothing_owes_no_snapshot() -> None:
    # The model answered with a blank text: the events add no message, so a client keeping its thread from
    # snapshots loses nothing without one (the framework's endpoint sends none then).
    blank = [_event("RUN_STARTED", threadId="t", runId="r1"), _event("RUN_FINISHED", threadId="t", runId="r1")]
    assert _verdicts(check_snapshot_agrees(_run(blank, decision=None, executed=False))) == ["pass"]


def test_a_run_that_paused_for_input_owes_the_snapshot_that_keeps_the_pause() -> None:
    # No event of an input pause folds into a message, but the pause stays in the message history (row "AG-UI
    # approval-time follow-up"): a run that ends there without a snapshot leaves the client's thread without it.
    paused = [_event("RUN_STARTED", threadId="t", runId="r2"),
              _event("CUSTOM", name="oauth_consent_request", value={"consent_link": "https://example.com/1"}),
              _event("RUN_FINISHED", threadId="t", runId="r2")]
    assert "without a MESSAGES_SNAPSHOT" in check_snapshot_agrees(_run(paused))[0].message


@pytest.mark.parametrize("forwarded", [
    Message("assistant", (FunctionCall("k1", "confirm_changes", {"function_call_id": "c1"}),)),
    Message("tool", (FunctionResult("a1", '{"accepted": true}'),)),
    Message("user", (ApprovalResponse("a1", True, CALL),)),
    Message("assistant", (ApprovalRequest("a1", CALL),)),
])
def test_approval_controls_sent_to_the_model_fail(forwarded: Message) -> None:
    events = [GOOD[0], _event("CUSTOM", name="function_approval_request",
                              value={"id": "a1", "function_call": {"call_id": "c1"}}), *GOOD[1:]]
    run = _run(events, model_saw=(Message("user", (Text("Delete /tmp/a"),)), forwarded))
    assert _verdicts(check_no_approval_controls_to_model(run)) == ["fail"]


def _interrupt_named_after_the_call() -> list[TransportEvent]:
    # Releases of the endpoint before 1.7.0 name an approval's interrupt after the call it holds.
    return [GOOD[0], _event("CUSTOM", name="function_approval_request",
                            value={"id": "c1", "function_call": {"call_id": "c1"}}), *GOOD[1:]]


def test_a_calls_own_result_passes_where_its_interrupt_has_the_calls_id() -> None:
    saw = (Message("user", (Text("Delete /tmp/a"),)), Message("assistant", (CALL,)),
           Message("tool", (FunctionResult("c1", "deleted"),)))
    assert _verdicts(check_no_approval_controls_to_model(_run(_interrupt_named_after_the_call(),
                                                              model_saw=saw))) == ["pass"]


def test_a_result_for_an_interrupt_no_call_has_fails_even_then() -> None:
    # The approval's answer sent as a result of its own, without the call it would answer: a forwarded control.
    saw = (Message("user", (Text("Delete /tmp/a"),)), Message("tool", (FunctionResult("c1", '{"accepted": true}'),)))
    run = _run(_interrupt_named_after_the_call(), model_saw=saw)
    assert _verdicts(check_no_approval_controls_to_model(run)) == ["fail"]


def test_a_hosted_approval_is_the_providers_and_passes() -> None:
    hosted = FunctionCall("h1", "search", {}, server_label="docs")
    run = _run(GOOD, model_saw=(Message("assistant", (ApprovalRequest("h", hosted),)),))
    assert _verdicts(check_no_approval_controls_to_model(run)) == ["pass"]


def _expect(**spec: Any) -> EventsExpect:
    return EventsExpect.model_validate(spec)


def test_the_events_expectation_matches_the_judged_types_in_order() -> None:
    turn = _run(GOOD).turns[0]
    ok = _expect(sequence=[{"type": "TOOL_CALL_RESULT", "fields": {"toolCallId": "c1", "content": "deleted"}},
                           {"type": "RUN_FINISHED"}])
    assert check_events(ok, turn).verdict == "pass"
    wrong = check_events(_expect(sequence=[{"type": "TOOL_CALL_RESULT", "fields": {"content": "kept"}}]), turn)
    assert wrong.verdict == "fail"
    assert "events[0].fields.content" in wrong.message
    absent = check_events(_expect(judged=["TOOL_CALL_RESULT"], sequence=[]), turn)
    assert absent.verdict == "fail"
    assert "length differs" in absent.message
    pattern = _expect(sequence=[{"type": "MESSAGES_SNAPSHOT", "fields": {
        "messages": {"$contains": {"role": "tool", "toolCallId": "c1"}}}}])
    assert check_events(pattern, turn).verdict == "pass"


def test_the_events_expectation_without_a_transport_fails_with_the_reason() -> None:
    turn = TurnRecord(0, "hi", (), CallerView(), (), (), (), (), ())
    result = check_events(_expect(sequence=[]), turn)
    assert result.verdict == "fail"
    assert "capability ag-ui" in result.message


SCENARIO = textwrap.dedent("""\
    id: t.events
    title: Events
    spec: [AG-UI no-approval path]
    requires: [ag-ui]
    tools:
      - name: get_weather
        returns: sunny
    turns:
      - input:
          - user: Weather?
        model:
          - contents:
              - text: Sunny.
        expect:
          events:
            judged: [TOOL_CALL_RESULT]
            sequence:
              - type: TOOL_CALL_RESULT
          cites: ["AG-UI no-approval path"]
    """)


def _load_error(tmp_path: Path, text: str) -> ScenarioFileError:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    return caught.value


def test_a_valid_events_expectation_loads(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    assert load_scenario(path).turns[0].spec.expect.events is not None


def test_a_misspelt_event_type_is_a_located_error(tmp_path: Path) -> None:
    error = _load_error(tmp_path, SCENARIO.replace("- type: TOOL_CALL_RESULT", "- type: TOOL_CALL_RESLUT"))
    rendered = str(error)
    assert ":19:" in rendered.splitlines()[0]
    assert "TOOL_CALL_RESLUT" in rendered


def test_a_sequence_type_that_is_not_judged_is_a_located_error(tmp_path: Path) -> None:
    error = _load_error(tmp_path, SCENARIO.replace("- type: TOOL_CALL_RESULT", "- type: RUN_FINISHED"))
    head = str(error).splitlines()[0]
    assert ":19:" in head
    assert "'RUN_FINISHED' is not among the judged types" in head


def test_an_unknown_matcher_in_event_fields_is_a_located_error(tmp_path: Path) -> None:
    with_fields = "- type: TOOL_CALL_RESULT\n            fields: {content: {$regx: x}}"
    text = SCENARIO.replace("- type: TOOL_CALL_RESULT", with_fields)
    assert "unknown matcher '$regx'" in str(_load_error(tmp_path, text))


PROVIDER_TOOLS = textwrap.dedent("""\
    id: t.provider-tools
    title: Provider tools
    spec: [Provider-injected approval tool]
    requires: [ag-ui, sessions, context-providers, context-tools]
    session: true
    context_providers:
      - id: keys
        tools: [rotate_key]
    tools:
      - name: rotate_key
        offered: false
        returns: rotated
    turns:
      - input:
          - user: Rotate
        model:
          - contents:
              - text: Done.
    """)


def test_a_provider_that_adds_tools_loads_and_reaches_the_adapter(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(PROVIDER_TOOLS, encoding="utf-8")
    assert load_scenario(path).context[0].tools == ("rotate_key",)


def test_a_provider_tool_needs_its_capability_and_a_known_name(tmp_path: Path) -> None:
    missing = str(_load_error(tmp_path, PROVIDER_TOOLS.replace(", context-tools]", "]")))
    assert "needs 'context-tools' in 'requires'" in missing
    assert ":8:" in missing.splitlines()[0]
    unknown = str(_load_error(tmp_path, PROVIDER_TOOLS.replace("tools: [rotate_key]", "tools: [rotate_keys]")))
    assert "rotate_keys" in unknown.splitlines()[0]
    assert ":8:" in unknown.splitlines()[0]
