"""What a provider's service made of the loop's requests: whether it accepted them, and the bodies it received.

Judged only on runs over a wire provider; the neutral provider has no wire and no validation rules.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from harness.checks.expectations import failed
from harness.records import RunRecord, TurnRecord
from harness.results import CheckResult
from harness.scenario.matchers import match
from harness.scenario.schema import WireExpect

PROVIDER_ACCEPTS = "provider-accepts"
WIRE_EXPECT = "expect.wire"


def check_provider_accepts(run: RunRecord) -> list[CheckResult]:
    """Every request the loop sent is one the real service accepts; a refusal names the service's rule."""
    if run.dialect == "neutral":
        return []
    failures: list[CheckResult] = []
    for turn in run.turns:
        for exchange in turn.exchanges:
            for rejection in exchange.rejections:
                failures.append(CheckResult(
                    PROVIDER_ACCEPTS, "fail",
                    f"model request #{exchange.number} refused by the {run.dialect} service (HTTP {rejection.status}, "
                    f"rule {rejection.rule}): {rejection.message}", turn.index + 1,
                    actual=json.dumps(exchange.body, indent=2, sort_keys=True)))
    return failures or [CheckResult(PROVIDER_ACCEPTS, "pass")]


def check_wire(expects: Sequence[WireExpect], turn: TurnRecord, dialect: str) -> list[CheckResult]:
    """The turn's `wire:` expectations for the run's dialect, one result each."""
    results: list[CheckResult] = []
    number = turn.index + 1
    for expect in expects:
        if expect.dialect != dialect:
            continue
        exchange = next((e for e in turn.exchanges if e.number == expect.call), None)
        if exchange is None:
            results.append(CheckResult(WIRE_EXPECT, "fail", f"model request #{expect.call} never reached the "
                                       "service", number, f"request #{expect.call}",
                                       f"{len(turn.exchanges)} request(s)"))
            continue
        mismatches = [*match(expect.body, dict(exchange.body), f"request #{expect.call}.body")] \
            if "body" in expect.model_fields_set else []
        if expect.status is not None and expect.status != exchange.status:
            mismatches += match(expect.status, exchange.status, f"request #{expect.call}.status")
        if not mismatches:
            results.append(CheckResult(WIRE_EXPECT, "pass", "", number))
            continue
        results.append(failed(WIRE_EXPECT, number, mismatches, json.dumps(expect.body, indent=2, sort_keys=True),
                              json.dumps(exchange.body, indent=2, sort_keys=True), ()))
    return results
