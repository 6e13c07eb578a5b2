"""What a provider's service made of the loop's requests: whether it accepted them, and the bodies it received.

Judged only on runs over a wire provider; the neutral provider has no wire and no validation rules.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from harness.checks.expectations import failed
from harness.records import RunRecord, TurnRecord
from harness.results import CheckResult
from harness.scenario.matchers import is_matcher, match
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
        mismatches = [*match(expect.body, named_keys(expect.body, dict(exchange.body)),
                             f"request #{expect.call}.body")] if "body" in expect.model_fields_set else []
        if expect.status is not None and expect.status != exchange.status:
            mismatches += match(expect.status, exchange.status, f"request #{expect.call}.status")
        if not mismatches:
            results.append(CheckResult(WIRE_EXPECT, "pass", "", number))
            continue
        results.append(failed(WIRE_EXPECT, number, mismatches, json.dumps(expect.body, indent=2, sort_keys=True),
                              json.dumps(exchange.body, indent=2, sort_keys=True), ()))
    return results


def named_keys(expected: Any, actual: Any) -> Any:
    """`actual` with, in every mapping, only the keys its expectation names: a request body carries far more than a
    row is about (model, tools, options), so a wire expectation names what it asserts and nothing else."""
    if is_matcher(expected):
        ((name, argument),) = cast(dict[str, Any], expected).items()
        if name in ("$contains", "$not_contains", "$not") and isinstance(actual, list):
            return [named_keys(argument, item) for item in cast(list[Any], actual)]
        if name == "$not":
            return named_keys(argument, actual)
        if name == "$all" and isinstance(argument, list):
            kept: set[str] = set()
            for want in cast(list[Any], argument):
                if isinstance(want, dict) and not is_matcher(want):
                    kept.update(cast(dict[str, Any], want))
            if kept and isinstance(actual, dict):
                return {k: v for k, v in cast(dict[str, Any], actual).items() if k in kept}
        return actual
    if isinstance(expected, dict) and isinstance(actual, dict):
        wanted = cast(dict[str, Any], expected)
        return {k: named_keys(wanted[k], v) for k, v in cast(dict[str, Any], actual).items() if k in wanted}
    if isinstance(expected, list) and isinstance(actual, list):
        items = cast(list[Any], actual)
        return [named_keys(e, a) for e, a in zip(cast(list[Any], expected), items, strict=False)] + items[
            len(cast(list[Any], expected)):]
    return actual
