"""Comparing a turn with the scenario's own `expect` block; one `CheckResult` per stated expectation."""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from typing import Any, cast

from harness.contents import Message
from harness.records import TurnRecord
from harness.results import CheckResult
from harness.scenario.matchers import Mismatch, match
from harness.scenario.schema import ContentSpec, ExpectSpec, MessageExpect, RequestExpect
from harness.transcript import WRAPPERS, messages_form, stream_tokens


def expected_content(spec: ContentSpec) -> dict[str, Any]:
    """The expectation of one content in canonical form: defaults and script-only fields dropped."""
    kind = spec.kind()
    value: Any = getattr(spec, kind)
    if kind == "text":
        return {"text": value}
    if isinstance(value, str):  # reasoning shorthand
        return {kind: {"text": value}}
    body = value.model_dump(mode="python", by_alias=True, exclude_defaults=True, exclude={"label", "stream_chunks"})
    if kind == "function_result":
        body.setdefault("result", None)
    if kind in WRAPPERS and "function_call" in body:
        body["function_call"].pop("label", None)
        body["function_call"].pop("stream_chunks", None)
    return {kind: body}


def expected_messages(spec: list[MessageExpect] | dict[str, Any]) -> Any:
    if isinstance(spec, dict):  # a list matcher such as {$suffix: [...]}
        ((name, items),) = spec.items()
        messages = [MessageExpect.model_validate(item) for item in cast(list[Any], items)]
        return {name: expected_messages(messages)}
    return [
        {"role": m.role, "contents": m.contents if isinstance(m.contents, dict)
         else [expected_content(c) for c in m.contents]}
        for m in spec
    ]


def _prune_wrappers(expected: Any, actual: Any) -> Any:
    """Approval and user-input wrappers compare only the fields the expectation names (ids are generated)."""
    if isinstance(actual, list):
        items = cast(list[Any], actual)
        aligned = _aligned_expectations(expected, len(items))
        return [_prune_wrappers(e, a) for e, a in zip(aligned, items, strict=False)] + items[len(aligned):]
    if isinstance(expected, dict) and isinstance(actual, dict):
        wanted_body = cast(dict[str, Any], expected)
        pruned: dict[str, Any] = {}
        for key, value in cast(dict[str, Any], actual).items():
            want = wanted_body.get(key)
            if key in WRAPPERS and isinstance(value, dict) and isinstance(want, dict):
                names = cast(dict[str, Any], want)
                pruned[key] = {k: v for k, v in cast(dict[str, Any], value).items() if k in names}
            else:
                pruned[key] = _prune_wrappers(want, value)
        return pruned
    return actual


def _aligned_expectations(expected: Any, length: int) -> list[Any]:
    """The expectation for each actual list item, by position; `$prefix`/`$suffix` lists are aligned."""
    if isinstance(expected, list):
        return cast(list[Any], expected)
    if isinstance(expected, dict) and len(cast(dict[str, Any], expected)) == 1:
        ((name, items),) = cast(dict[str, Any], expected).items()
        if name in ("$prefix", "$suffix") and isinstance(items, list):
            wanted = cast(list[Any], items)
            offset = 0 if name == "$prefix" else max(length - len(wanted), 0)
            return [None] * offset + wanted
    return []


def compare_messages(expected_spec: list[MessageExpect] | dict[str, Any], actual: Sequence[Message]) -> list[Mismatch]:
    expected = expected_messages(expected_spec)
    actual_form = _prune_wrappers(expected, messages_form(actual))
    return match(expected, actual_form)


def check_turn(expect: ExpectSpec, turn: TurnRecord, tool_names: Sequence[str], streaming: bool) -> list[CheckResult]:
    results: list[CheckResult] = []
    number = turn.index + 1
    if expect.error is not None or turn.view.error is not None:
        results.append(_error_check(expect, turn))
    if expect.response is not None and turn.view.response is not None:
        mismatches = compare_messages(expect.response, turn.response_messages())
        results.append(_verdict("expect.response", number, mismatches, expected_messages(expect.response),
                                messages_form(turn.response_messages())))
    if expect.executions is not None:
        results.append(_executions_check(expect.executions, turn, tool_names))
    if expect.model_calls is not None:
        count = len(turn.requests)
        ok = count == expect.model_calls
        results.append(CheckResult("expect.model-calls", "pass" if ok else "fail",
                                   "" if ok else f"{count} model calls, expected {expect.model_calls}", number,
                                   str(expect.model_calls), str(count)))
    for request_expect in expect.requests or []:
        results.append(_request_check(request_expect, turn))
    if expect.stream_order is not None and streaming:
        tokens = stream_tokens(turn.view.updates)
        ok = tokens == expect.stream_order
        results.append(CheckResult("expect.stream-order", "pass" if ok else "fail",
                                   "" if ok else "streamed contents appear in another order", number,
                                   "\n".join(expect.stream_order), "\n".join(tokens)))
    return results


def _error_check(expect: ExpectSpec, turn: TurnRecord) -> CheckResult:
    number = turn.index + 1
    raised = turn.view.error
    if expect.error is None:
        assert raised is not None
        return CheckResult("expect.error", "fail", f"the caller got {raised.type_name}: {raised.message}", number,
                           "no error", f"{raised.type_name}: {raised.message}")
    if raised is None:
        return CheckResult("expect.error", "fail", "the caller got no error", number,
                           json.dumps(expect.error.model_dump(exclude_none=True)), "no error")
    mismatches: list[Mismatch] = []
    if expect.error.message is not None:
        mismatches.extend(match(expect.error.message, raised.message, "message"))
    if expect.error.kind is not None and expect.error.kind != raised.kind:
        mismatches.append(Mismatch("kind", expect.error.kind, raised.kind, "differs"))
    return _verdict("expect.error", number, mismatches, expect.error.model_dump(exclude_none=True),
                    {"kind": raised.kind, "message": raised.message, "type": raised.type_name})


def _executions_check(expected: dict[str, int | list[dict[str, Any]]], turn: TurnRecord,
                      tool_names: Sequence[str]) -> CheckResult:
    actual: dict[str, list[Any]] = {name: [] for name in tool_names}
    for execution in turn.executions:
        actual.setdefault(execution.tool, []).append(dict(execution.arguments))
    mismatches: list[Mismatch] = []
    for name, runs in actual.items():
        want = expected.get(name, 0)
        if isinstance(want, int):
            if len(runs) != want:
                mismatches.append(Mismatch(name, f"{want} executions", f"{len(runs)} executions", "count differs"))
        else:
            mismatches.extend(match(want, runs, name))
    return _verdict("expect.executions", turn.index + 1, mismatches, expected, actual)


def _request_check(request_expect: RequestExpect, turn: TurnRecord) -> CheckResult:
    number = turn.index + 1
    position = request_expect.call
    requests = [r for r in turn.requests if r.number == position]
    if not requests:
        return CheckResult("expect.requests", "fail", f"model call #{position} never happened", number)
    request = requests[0]
    mismatches: list[Mismatch] = []
    prefix = f"call #{position}"
    if request_expect.tool_choice is not None:
        mismatches.extend(match(request_expect.tool_choice, request.tool_choice, f"{prefix}.tool_choice"))
    if request_expect.tools is not None:
        tools: Any = request_expect.tools
        wanted = sorted(cast(list[str], tools)) if isinstance(tools, list) else tools
        mismatches.extend(match(wanted, sorted(request.tools), f"{prefix}.tools"))
    if request_expect.kwargs is not None:
        named = {key: request.kwargs.get(key) for key in request_expect.kwargs}
        mismatches.extend(match(request_expect.kwargs, named, f"{prefix}.kwargs"))
    if request_expect.messages is not None:
        mismatches.extend(_prefixed(compare_messages(request_expect.messages, request.messages), f"{prefix}.messages"))
    actual = {"tool_choice": request.tool_choice, "tools": sorted(request.tools),
              "messages": messages_form(request.messages)}
    return _verdict("expect.requests", number, mismatches, "see scenario", actual)


def _prefixed(mismatches: list[Mismatch], prefix: str) -> list[Mismatch]:
    return [Mismatch(f"{prefix}{'' if m.path.startswith('[') else '.'}{m.path}", m.expected, m.actual, m.reason)
            for m in mismatches]


def _verdict(check: str, turn: int, mismatches: list[Mismatch], expected: Any, actual: Any) -> CheckResult:
    if not mismatches:
        return CheckResult(check, "pass", "", turn)
    lines = tuple(f"{m.path or '(top)'}: {m.reason}: expected {_j(m.expected)}, got {_j(m.actual)}"
                  for m in mismatches)
    expected_text, actual_text = _pretty(expected), _pretty(actual)
    diff = tuple(difflib.unified_diff(expected_text.splitlines(), actual_text.splitlines(), "expected", "actual",
                                      lineterm=""))
    return CheckResult(check, "fail", lines[0] + (f" (+{len(lines) - 1} more)" if len(lines) > 1 else ""), turn,
                       expected_text, actual_text, diff, lines)


def _j(value: Any) -> str:
    return json.dumps(value, default=str, sort_keys=True)


def _pretty(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str, indent=2, sort_keys=True)
