"""Comparing a turn with the scenario's own `expect` block; one `CheckResult` per stated expectation."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import yaml

from harness.contents import FunctionCall, Message
from harness.records import TurnRecord
from harness.results import CheckResult
from harness.scenario.matchers import Mismatch, match
from harness.scenario.schema import ContentSpec, ExpectSpec, Grouping, MessageExpect, RequestExpect
from harness.script import ModelRequest
from harness.transcript import WRAPPERS, call_form, messages_form, stream_tokens


def expected_content(spec: ContentSpec) -> dict[str, Any]:
    """The expectation of one content in canonical form: defaults and script-only fields dropped."""
    kind = spec.kind()
    value: Any = getattr(spec, kind)
    if kind == "text":
        return {"text": value}
    if isinstance(value, str):  # reasoning shorthand
        return {kind: {"text": value}}
    body = value.model_dump(mode="python", by_alias=True, exclude_defaults=True,
                            exclude={"label", "stream_chunks", "occurrence"})
    if kind == "function_result":
        body.setdefault("result", None)
    if kind == "reasoning":
        body.setdefault("text", "")  # an encrypted item has no text: the transcript shows it empty
    if kind in WRAPPERS and "function_call" in body:
        body["function_call"].pop("label", None)
        body["function_call"].pop("stream_chunks", None)
    return {kind: body}


def expected_messages(spec: list[MessageExpect] | dict[str, Any]) -> Any:
    if isinstance(spec, dict):  # a list matcher such as {$suffix: [...]} or {$contains: message}
        ((name, items),) = spec.items()
        if name in ("$contains", "$not_contains"):
            return {name: expected_messages([MessageExpect.model_validate(items)])[0]}
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


def compare_messages(expected_spec: list[MessageExpect] | dict[str, Any], actual: Sequence[Message],
                     grouping: Grouping = "exact", joined: bool = False) -> list[Mismatch]:
    """What differs between the expected and actual messages, compared as `grouping` says; `joined` first joins
    consecutive assistant messages on both sides (a loop that represents one assistant message per model call)."""
    expected = _expected_form(expected_spec, grouping, joined)
    actual_form = _prune_wrappers(expected, messages_form(_actual_messages(actual, grouping, joined)))
    return match(expected, actual_form)


def _expected_form(spec: list[MessageExpect] | dict[str, Any], grouping: Grouping, joined: bool) -> Any:
    expected = expected_messages(spec)
    return regrouped_form(_assistant_runs_joined_form(expected) if joined else expected, grouping)


def _actual_messages(messages: Sequence[Message], grouping: Grouping, joined: bool) -> list[Message]:
    return regrouped(_assistant_runs_joined(messages) if joined else messages, grouping)


def _assistant_runs_joined(messages: Sequence[Message]) -> list[Message]:
    """Consecutive assistant messages as one holding their contents in order."""
    joined: list[Message] = []
    for message in messages:
        if joined and message.role == "assistant" and joined[-1].role == "assistant":
            joined[-1] = Message("assistant", joined[-1].contents + message.contents)
        else:
            joined.append(message)
    return joined


def _assistant_runs_joined_form(expected: Any) -> Any:
    """The same joining over an expected message list (also inside `$prefix`/`$suffix`); matchers over a whole
    message, or over a message's contents, are left as they are."""
    unchanged: Any = expected
    if isinstance(expected, dict) and len(cast(dict[str, Any], expected)) == 1:
        ((name, items),) = cast(dict[str, Any], expected).items()
        if name in ("$prefix", "$suffix") and isinstance(items, list):
            return {name: _assistant_runs_joined_form(items)}
        return unchanged
    if not isinstance(expected, list):
        return unchanged
    joined: list[Any] = []
    for item in cast(list[Any], expected):
        if joined and _assistant_form(joined[-1]) is not None and (contents := _assistant_form(item)) is not None:
            joined[-1] = {"role": "assistant", "contents": [*cast(list[Any], _assistant_form(joined[-1])), *contents]}
        else:
            joined.append(item)
    return joined


def _assistant_form(item: Any) -> list[Any] | None:
    """The contents of an expected assistant message written as a list; None for anything else."""
    if not isinstance(item, dict):
        return None
    form = cast(dict[str, Any], item)
    contents = form.get("contents")
    return cast(list[Any], contents) if form.get("role") == "assistant" and isinstance(contents, list) else None


def check_turn(expect: ExpectSpec, turn: TurnRecord, tool_names: Sequence[str], streaming: bool,
               joined: bool = False) -> list[CheckResult]:
    """The turn's `expect` checks; `joined` when the loop represents one assistant message per model call."""
    results: list[CheckResult] = []
    number = turn.index + 1
    # A model call beyond the script is reported once, by the `script` check: the error the provider raised for it
    # and the extra call it counts are not the loop's to answer for here.
    unforeseen = sum(1 for v in turn.violations if v.unforeseen)
    if expect.error is not None or (turn.view.error is not None and not unforeseen):
        results.append(_error_check(expect, turn))
    if expect.response is not None and turn.view.response is not None:
        shown = _actual_messages(turn.response_messages(), expect.grouping, joined)
        mismatches = compare_messages(expect.response, turn.response_messages(), expect.grouping, joined)
        results.append(_verdict("expect.response", number, mismatches,
                                _expected_form(expect.response, expect.grouping, joined), messages_form(shown)))
    if "conversation_id" in expect.model_fields_set and turn.view.response is not None:
        actual_id = turn.view.response.conversation_id
        mismatches = match(expect.conversation_id, actual_id, "conversation_id")
        results.append(_verdict("expect.conversation-id", number, mismatches, expect.conversation_id, actual_id))
    if expect.executions is not None:
        results.append(_executions_check(expect.executions, turn, tool_names))
    if expect.rules_asked is not None:
        results.append(_rules_asked_check(expect.rules_asked, turn))
    if expect.model_calls is not None:
        count = len(turn.requests) - unforeseen
        ok = count == expect.model_calls
        results.append(CheckResult("expect.model-calls", "pass" if ok else "fail",
                                   "" if ok else f"{count} model calls, expected {expect.model_calls}", number,
                                   str(expect.model_calls), str(count)))
    if expect.function_calls_counted is not None:
        results.append(_budget_check(expect.function_calls_counted, turn))
    for request_expect in expect.requests or []:
        results.append(_request_check(request_expect, turn, joined))
    if expect.events is not None:
        from harness.checks.event_expectations import check_events  # it builds on this module's helpers

        results.append(check_events(expect.events, turn))
    if expect.stream_order is not None and streaming:
        tokens = stream_tokens(turn.view.updates)
        ok = tokens == expect.stream_order
        results.append(CheckResult("expect.stream-order", "pass" if ok else "fail",
                                   "" if ok else "streamed contents appear in another order", number,
                                   "\n".join(expect.stream_order), "\n".join(tokens)))
    return results


def _budget_check(expected: int, turn: TurnRecord) -> CheckResult:
    number = turn.index + 1
    counted = turn.view.function_calls_counted
    if counted is None:
        # The scenario requires `budget-counts`, so an implementation that runs it promised the count.
        return CheckResult("expect.function-calls-counted", "fail",
                           "the implementation reported no function-call count for this turn", number,
                           str(expected), "not reported")
    ok = counted == expected
    return CheckResult("expect.function-calls-counted", "pass" if ok else "fail",
                       "" if ok else f"the loop counted {counted} function calls against its budget, expected "
                                     f"{expected}", number, str(expected), str(counted))


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


def _rules_asked_check(expected: dict[str, Any], turn: TurnRecord) -> CheckResult:
    """Each named auto-approval rule was asked about exactly these calls, in order, as the model made them."""
    actual = {name: [call_form(asked.call) for asked in turn.rules_asked if asked.rule == name] for name in expected}
    mismatches: list[Mismatch] = []
    for name, want in expected.items():
        mismatches.extend(match(want, actual[name], name))
    return _verdict("expect.rules-asked", turn.index + 1, mismatches, expected, actual)


def _request_check(request_expect: RequestExpect, turn: TurnRecord, joined: bool = False) -> CheckResult:
    number = turn.index + 1
    position = request_expect.call
    requests = [r for r in turn.requests if r.number == position]
    if not requests:
        return CheckResult("expect.requests", "fail", f"model call #{position} never happened", number,
                           f"model call #{position}", f"{len(turn.requests)} model call(s)")
    fields = _request_fields(request_expect, requests[0], joined)
    mismatches = [m for f in fields for m in f.mismatches]
    if not mismatches:
        return CheckResult("expect.requests", "pass", "", number)
    expected_lines = [line for f in fields for line in f.expected_lines()]
    actual_lines = [line for f in fields for line in f.actual_lines()]
    # No `diff` here: the forms are one message per line, and a renderer diffs them (harness.reporting.text).
    return failed("expect.requests", number, mismatches, "\n".join(expected_lines), "\n".join(actual_lines), ())


@dataclass(frozen=True)
class RequestField:
    """One named part of a model request expectation, compared: the expected and actual forms and what differs.

    `expected` holds, where the expectation is satisfied (a matched message, a matcher that holds), the actual form,
    so that the expected and actual forms differ exactly where the comparison found a mismatch.
    """

    name: str
    expected: Any
    actual: Any
    mismatches: tuple[Mismatch, ...]
    per_item: bool = False  # a message list: one form per message
    label: str = ""  # the list matcher the expected messages sit under, e.g. "$suffix"

    def expected_lines(self) -> list[str]:
        return self._lines(self.expected, f"{self.name} ({self.label})" if self.label else self.name)

    def actual_lines(self) -> list[str]:
        return self._lines(self.actual, self.name)

    def _lines(self, value: Any, title: str) -> list[str]:
        if self.per_item and isinstance(value, list):
            return [f"{title}:", *(f"  - {flow_form(item)}" for item in cast(list[Any], value))]
        return [f"{title}: {flow_form(value)}"]


def _request_fields(request_expect: RequestExpect, request: ModelRequest, joined: bool = False) -> list[RequestField]:
    prefix = f"call #{request.number}"
    fields: list[RequestField] = []
    if request_expect.tool_choice is not None:
        fields.append(_field("tool_choice", request_expect.tool_choice, request.tool_choice, prefix))
    if request_expect.tools is not None:
        tools: Any = request_expect.tools
        wanted = sorted(cast(list[str], tools)) if isinstance(tools, list) else tools
        fields.append(_field("tools", wanted, sorted(request.tools), prefix))
    if request_expect.kwargs is not None:
        named = {key: request.kwargs.get(key) for key in request_expect.kwargs}
        fields.append(_field("kwargs", request_expect.kwargs, named, prefix))
    if request_expect.messages is not None:
        # What the model answered: with service-managed continuation, the stored conversation and the new items.
        fields.append(_messages_field(request_expect.messages,
                                      _actual_messages(request.seen, request_expect.grouping, joined),
                                      prefix, request_expect.grouping, joined))
    if "conversation_id" in request_expect.model_fields_set:
        fields.append(_field("conversation_id", request_expect.conversation_id, request.conversation_id, prefix))
    return fields


def regrouped(messages: Sequence[Message], grouping: Grouping) -> list[Message]:
    """`messages` as a `grouping` compares them (see `harness.scenario.schema.Grouping`)."""
    if grouping == "exact":
        return list(messages)
    joined = _role_runs_joined(messages)
    if grouping == "any":
        return joined
    return [Message(m.role, (*[c for c in m.contents if not isinstance(c, FunctionCall)],
                             *[c for c in m.contents if isinstance(c, FunctionCall)]))
            if m.role == "assistant" else m for m in joined]


def regrouped_form(expected: Any, grouping: Grouping) -> Any:
    """An expected message list regrouped as `regrouped` does the actual one; matchers are left as written."""
    unchanged: Any = expected
    if grouping == "exact" or not isinstance(expected, list):
        return unchanged
    joined: list[dict[str, Any]] = []
    for item in cast(list[Any], expected):
        if not isinstance(item, dict):
            return unchanged  # a message matcher: its grouping is the scenario's own
        message = cast(dict[str, Any], item)
        if not isinstance(message.get("contents"), list):
            return unchanged
        if joined and joined[-1]["role"] == message["role"]:
            joined[-1] = {**joined[-1], "contents": [*joined[-1]["contents"], *message["contents"]]}
        else:
            joined.append(dict(message))
    if grouping == "logical":
        for message in joined:
            if message["role"] == "assistant":
                contents = cast(list[Any], message["contents"])
                calls: list[Any] = [c for c in contents if _is_call_form(c)]
                message["contents"] = [c for c in contents if not _is_call_form(c)] + calls
    return joined


def _is_call_form(content: object) -> bool:
    return isinstance(content, dict) and "function_call" in cast(dict[str, Any], content)


def _role_runs_joined(messages: Sequence[Message]) -> list[Message]:
    """Consecutive messages of one role as one message holding their contents in order."""
    joined: list[Message] = []
    for message in messages:
        if joined and joined[-1].role == message.role:
            joined[-1] = Message(message.role, joined[-1].contents + message.contents)
        else:
            joined.append(message)
    return joined


def _field(name: str, expected: Any, actual: Any, prefix: str) -> RequestField:
    mismatches = tuple(match(expected, actual, f"{prefix}.{name}"))
    return RequestField(name, expected if mismatches else actual, actual, mismatches)


def _messages_field(spec: list[MessageExpect] | dict[str, Any], messages: Sequence[Message],
                    prefix: str, grouping: Grouping = "exact", joined: bool = False) -> RequestField:
    expected = _expected_form(spec, grouping, joined)
    actual = _prune_wrappers(expected, messages_form(messages))
    mismatches = tuple(_prefixed(match(expected, actual), f"{prefix}.messages"))
    aligned = _aligned_expectations(expected, len(actual))
    if not aligned and not isinstance(expected, list):  # a matcher over the whole list, e.g. {$contains: ...}
        return RequestField("messages", expected if mismatches else actual, actual, mismatches, per_item=True)
    label = "" if isinstance(expected, list) else next(iter(cast(dict[str, Any], expected)))
    shown: list[Any] = []
    for index, want in enumerate(aligned):
        got = actual[index] if index < len(actual) else None
        if want is None or (index < len(actual) and not match(want, got)):
            shown.append(got)  # satisfied, or outside a $prefix/$suffix window: shown as it is
        else:
            shown.append(want)
    if label == "$prefix":
        shown += actual[len(aligned):]
    return RequestField("messages", shown, actual, mismatches, per_item=True, label=label)


def flow_form(value: Any) -> str:
    """A value on one line, in the YAML flow style scenarios are written in, e.g. ``{role: user, contents: [...]}``."""
    text = yaml.dump(value, Dumper=_FlowDumper, default_flow_style=True, width=_NO_WRAP, sort_keys=False,
                     allow_unicode=True)
    return text.removesuffix("\n").removesuffix("\n...").strip()


_NO_WRAP = 2**31 - 1


class _FlowDumper(yaml.SafeDumper):
    """One line per value: strings with line breaks quoted with escapes, values YAML does not know as text."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = '"' if any(ord(ch) < 32 or ch in "\x85\u2028\u2029" for ch in value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)  # pyright: ignore[reportUnknownMemberType]


def _represent_other(dumper: yaml.SafeDumper, value: object) -> yaml.Node:
    if isinstance(value, Mapping):
        return dumper.represent_dict(dict(cast(Mapping[Any, Any], value)))
    if isinstance(value, tuple | list):
        return dumper.represent_list(list(cast(Sequence[Any], value)))
    return _represent_str(dumper, str(value))


_FlowDumper.add_representer(str, _represent_str)
_FlowDumper.add_multi_representer(object, _represent_other)


def _prefixed(mismatches: list[Mismatch], prefix: str) -> list[Mismatch]:
    return [Mismatch(f"{prefix}{'' if m.path.startswith('[') else '.'}{m.path}", m.expected, m.actual, m.reason)
            for m in mismatches]


def _verdict(check: str, turn: int, mismatches: list[Mismatch], expected: Any, actual: Any) -> CheckResult:
    if not mismatches:
        return CheckResult(check, "pass", "", turn)
    expected_text, actual_text = _pretty(expected), _pretty(actual)
    diff = tuple(difflib.unified_diff(expected_text.splitlines(), actual_text.splitlines(), "expected", "actual",
                                      lineterm=""))
    return failed(check, turn, mismatches, expected_text, actual_text, diff)


def failed(check: str, turn: int, mismatches: Sequence[Mismatch], expected: str, actual: str,
            diff: tuple[str, ...]) -> CheckResult:
    lines = tuple(f"{m.path or '(top)'}: {m.reason}: expected {_j(m.expected)}, got {_j(m.actual)}"
                  for m in mismatches)
    return CheckResult(check, "fail", lines[0] + (f" (+{len(lines) - 1} more)" if len(lines) > 1 else ""), turn,
                       expected, actual, diff, lines)


def _j(value: Any) -> str:
    return json.dumps(value, default=str, sort_keys=True)


def _pretty(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str, indent=2, sort_keys=True)
