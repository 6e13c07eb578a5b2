"""The `events:` expectation of a scenario turn: exactly the turn's AG-UI events of the judged types, in order,
each with the fields it names matched as a `wire:` body is (mappings: only the keys named; lists exact unless
matchers say otherwise)."""

from __future__ import annotations

from typing import Any

from harness.checks.expectations import failed, flow_form
from harness.checks.wire import match_named
from harness.records import TurnRecord
from harness.results import CheckResult
from harness.scenario.matchers import Mismatch
from harness.scenario.schema import EventsExpect

EXPECT_EVENTS = "expect.events"


def check_events(expect: EventsExpect, turn: TurnRecord) -> CheckResult:
    number = turn.index + 1
    exchange = turn.view.transport
    if exchange is None:
        return CheckResult(EXPECT_EVENTS, "fail", "the implementation recorded no event stream for this turn "
                           "(an `events` expectation needs capability ag-ui)", number)
    judged = set(expect.judged if expect.judged is not None else [e.type for e in expect.sequence])
    actual: list[dict[str, Any]] = [{"type": e.type, "fields": dict(e.fields)} for e in exchange.events
                                    if e.type in judged]
    wanted: list[dict[str, Any]] = [{"type": e.type, "fields": e.fields or {}} for e in expect.sequence]
    mismatches: list[Mismatch] = []
    for index, (want, got) in enumerate(zip(wanted, actual, strict=False)):
        if want["type"] != got["type"]:
            mismatches.append(Mismatch(f"events[{index}].type", want["type"], got["type"], "differs"))
        else:
            mismatches.extend(match_named(want["fields"], got["fields"], f"events[{index}].fields"))
    if len(wanted) != len(actual):
        mismatches.append(Mismatch("events", f"{len(wanted)} events", f"{len(actual)} events", "length differs"))
    if not mismatches:
        return CheckResult(EXPECT_EVENTS, "pass", "", number)
    expected_text = "\n".join(_line(e) for e in wanted)
    actual_text = "\n".join(_line(e) for e in actual)
    return failed(EXPECT_EVENTS, number, mismatches, expected_text, actual_text, ())


def _line(event: dict[str, Any]) -> str:
    return f"{event['type']} {flow_form(event['fields'])}" if event["fields"] else str(event["type"])
