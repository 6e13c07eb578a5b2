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
from harness.scenario.matchers import Mismatch, is_matcher, match
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
        mismatches = match_named(expect.body, dict(exchange.body), f"request #{expect.call}.body") \
            if "body" in expect.model_fields_set else []
        if expect.status is not None and expect.status != exchange.status:
            mismatches += match(expect.status, exchange.status, f"request #{expect.call}.status")
        if not mismatches:
            results.append(CheckResult(WIRE_EXPECT, "pass", "", number))
            continue
        results.append(failed(WIRE_EXPECT, number, mismatches, json.dumps(expect.body, indent=2, sort_keys=True),
                              json.dumps(exchange.body, indent=2, sort_keys=True), ()))
    return results


def match_named(expected: Any, actual: Any, path: str = "") -> list[Mismatch]:
    """`match`, except that a mapping is compared on the keys its expectation names only: a request body carries
    far more than a row is about (model, tools, options), so a wire expectation names what it asserts."""
    if is_matcher(expected):
        ((name, argument),) = cast(dict[str, Any], expected).items()
        if name == "$all" and isinstance(argument, list):
            return [m for want in cast(list[Any], argument) for m in match_named(want, actual, path)]
        if name == "$not":
            if not match_named(argument, actual, path):
                return [Mismatch(path, expected, actual, "matches what $not excludes")]
            return []
        if name in ("$contains", "$not_contains") and isinstance(actual, list):
            contained = any(not match_named(argument, item) for item in cast(list[Any], actual))
            if contained == (name == "$contains"):
                return []
            return [Mismatch(path, expected, actual, f"does not satisfy {name}")]
        if name in ("$prefix", "$suffix") and isinstance(actual, list) and isinstance(argument, list):
            items, wanted = cast(list[Any], actual), cast(list[Any], argument)
            if len(wanted) > len(items):
                return [Mismatch(path, expected, items, "too few items")]
            offset = 0 if name == "$prefix" else len(items) - len(wanted)
            return [m for index, want in enumerate(wanted)
                    for m in match_named(want, items[offset + index], f"{path}[{offset + index}]")]
        return match(expected, actual, path)
    if isinstance(expected, dict) and isinstance(actual, dict):
        wanted_keys = cast(dict[str, Any], expected)
        present = cast(dict[str, Any], actual)
        found: list[Mismatch] = []
        for key, want in wanted_keys.items():
            where = f"{path}.{key}" if path else key
            if key not in present:
                found.append(Mismatch(where, want, None, "missing"))
            else:
                found.extend(match_named(want, present[key], where))
        return found
    if isinstance(expected, list) and isinstance(actual, list):
        wanted_items, items = cast(list[Any], expected), cast(list[Any], actual)
        found = [m for index, (want, got) in enumerate(zip(wanted_items, items, strict=False))
                 for m in match_named(want, got, f"{path}[{index}]")]
        if len(wanted_items) != len(items):
            found.append(Mismatch(path, f"{len(wanted_items)} items", f"{len(items)} items", "length differs"))
        return found
    return match(expected, actual, path)
