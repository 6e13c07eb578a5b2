"""Cross-reference checks of a validated scenario: spec rows, tool names, call ids, labels, matchers."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, cast

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from harness.errors import ScenarioProblem
from harness.scenario.json_schema_check import json_schema_problems
from harness.scenario.matchers import MATCHERS, InvalidPatternError, compile_pattern, is_matcher
from harness.scenario.model import mapping_fragment, mapping_fragment_problems, stream_problem
from harness.scenario.schema import (
    CONTENT_KEYS,
    STANDING_DECISIONS,
    ApprovalRequestSpec,
    ApprovalResponseSpec,
    ContentSpec,
    FunctionCallSpec,
    InputItemSpec,
    MessageExpect,
    ModelStepSpec,
    ScenarioSpec,
    TurnSpec,
)
from harness.scenario.schema_errors import describe, problem_at, schema_problems, short_value, value_at
from harness.scenario.yaml_source import DataPath, YamlSource


def reference_problems(source: YamlSource, spec: ScenarioSpec, known_rows: set[str]) -> Iterator[ScenarioProblem]:
    for index, row in enumerate(spec.spec):
        if row not in known_rows:
            close = difflib.get_close_matches(row, sorted(known_rows), n=1, cutoff=0.5)
            hint = f"did you mean '{close[0]}'?" if close else "rows are named as in the spec's Scenario column"
            yield problem_at(source, ("spec", index), "unknown-spec-row", f"'{row}' is not a row of the spec matrix",
                           hint)
    yield from _capability_problems(source, spec)
    tool_names = {tool.name for tool in spec.tools}
    for p, provider in enumerate(spec.context_providers or []):
        for a, name in enumerate(provider.tools):
            if name not in tool_names:
                yield _dangling(source, ("context_providers", p, "tools", a), "tool", name, tool_names)
    for t, tool in enumerate(spec.tools):
        for place, message in json_schema_problems(tool.parameters if tool.parameters is not None else {}):
            yield problem_at(source, ("tools", t, "parameters", *place), "invalid-schema", message,
                             "'parameters' is a JSON Schema (draft 2020-12), as the model sees it")
        for b, behaviour in enumerate(tool.behaviour or []):
            for a, name in enumerate(behaviour.add_tools):
                if name not in tool_names:
                    yield _dangling(source, ("tools", t, "behaviour", b, "add_tools", a), "tool", name, tool_names)
    references: set[str] = set()
    call_ids: set[str] = set()
    labels: dict[str, str] = {}
    for t, turn in enumerate(spec.turns):
        yield from _input_references(source, t, turn.input, references)
        yield from _script_references(source, t, turn.model, references)
        yield from _expectation_problems(source, t, tool_names)
        _collect_calls(turn, call_ids, labels)
        for i, item in enumerate(turn.expect.stream_order or []):
            yield from _stream_item_problems(source, ("turns", t, "expect", "stream_order", i), item, call_ids, labels)
        for name in (turn.expect.executions or {}):
            if name not in tool_names:
                yield _dangling(source, ("turns", t, "expect", "executions", name), "tool", name, tool_names,
                                key=True)
        rule_ids = {rule.id for rule in spec.approval_policy.auto_approve} if spec.approval_policy else set[str]()
        for name in (turn.expect.rules_asked or {}):
            if name not in rule_ids:
                yield _dangling(source, ("turns", t, "expect", "rules_asked", name), "auto-approval rule", name,
                                rule_ids, key=True)
        for r, request in enumerate(turn.expect.requests or []):
            if request.call > len(turn.model):
                yield problem_at(source, ("turns", t, "expect", "requests", r, "call"), "dangling-reference",
                               f"request expectation names model call #{request.call}, but turn {t + 1} scripts "
                               f"{len(turn.model)}")


# Format features that only implementations with a capability can run, so the scenario must say it needs it.
_FEATURE_CAPABILITIES = {
    "restore_session": ("session-serialization", "a turn with 'restore_session'"),
    "session_changes": ("persisted-budgets", "a turn that changes persisted counters"),
    "conversation_id": ("service-continuation", "a model step with 'conversation_id'"),
    "approval_policy": ("approval-policy", "'approval_policy'"),
    "signature": ("signature-tools", "a tool declared by 'signature'"),
    "context_providers": ("context-providers", "'context_providers'"),
    "history_provider": ("history-providers", "'history_provider'"),
    "standing": ("approval-policy", "a standing approval decision"),
    "compaction": ("compaction", "'compaction'"),
    "host": ("hosting-server", "'host'"),
    "context_tools": ("context-tools", "a context provider that adds 'tools'"),
    "transport_message": ("ag-ui", "a 'transport_message' input (a message in the AG-UI wire form)"),
    "function_calls_counted": ("budget-counts", "an 'expect.function_calls_counted'"),
    "options": ("caller-options", "a turn with caller 'options'"),
    "mapping_arguments": ("streamed-mapping-arguments", "a streamed call fragment whose 'arguments' are a mapping"),
}


# Scenario-level features that live in a session, and why.
_SESSION_FEATURES = {
    "history_provider": "it keeps a session's conversation",
    "approval_policy": "the layer keeps its state in the session",
    "host": "the server keeps the conversation between requests",
}


def _capability_problems(source: YamlSource, spec: ScenarioSpec) -> Iterator[ScenarioProblem]:
    def missing(feature: str, path: DataPath) -> Iterator[ScenarioProblem]:
        capability, what = _FEATURE_CAPABILITIES[feature]
        if capability not in spec.requires:
            yield problem_at(source, path, "missing-capability", f"{what} needs '{capability}' in 'requires'",
                             f"add it: requires: [{', '.join([*spec.requires, capability])}]")

    for t, tool in enumerate(spec.tools):
        if tool.signature is not None:
            yield from missing("signature", ("tools", t, "signature"))
    if spec.compaction is not None:
        yield from missing("compaction", ("compaction",))
    if spec.context_providers is not None:
        yield from missing("context_providers", ("context_providers",))
    for p, provider in enumerate(spec.context_providers or []):
        if provider.tools:
            yield from missing("context_tools", ("context_providers", p, "tools"))
    for key, why in _SESSION_FEATURES.items():
        if getattr(spec, key) is None:
            continue
        yield from missing(key, (key,))
        if not spec.session:
            yield problem_at(source, (key,), "missing-capability", f"'{key}' needs 'session: true': {why}",
                             "add 'session: true' and 'sessions' to 'requires'")
    for t, turn in enumerate(spec.turns):
        for i, item in enumerate(turn.input if isinstance(turn.input, list) else []):
            if item.transport_message is not None:
                yield from missing("transport_message", ("turns", t, "input", i, "transport_message"))
            if spec.host is not None and item.user is None and item.system is None:
                # A hosted caller sends text: the server keeps the rest of the conversation itself.
                yield problem_at(source, ("turns", t, "input", i), "invalid-value",
                                 "a turn of a scenario with 'host' takes text input only ('user' or 'system' items)",
                                 "the server keeps the conversation: write only this turn's new text")
            for ref, decision in (item.approvals or {}).items():
                if decision in STANDING_DECISIONS:
                    yield from missing("standing", ("turns", t, "input", i, "approvals", ref))
            for c, content in enumerate(item.message.contents if item.message is not None else []):
                if content.approval_response is not None and content.approval_response.standing is not None:
                    yield from missing("standing", ("turns", t, "input", i, "message", "contents", c))
        if turn.restore_session is not False:
            yield from missing("restore_session", ("turns", t, "restore_session"))
            if not isinstance(turn.restore_session, bool):
                yield from missing("session_changes", ("turns", t, "restore_session"))
        for n, step in enumerate(turn.model):
            if step.conversation_id is not None:
                yield from missing("conversation_id", ("turns", t, "model", n, "conversation_id"))
            for u, update in enumerate(step.stream or []):
                for k, content in enumerate(update):
                    if content.function_call is not None and mapping_fragment(content.function_call):
                        yield from missing("mapping_arguments",
                                           ("turns", t, "model", n, "stream", u, k, "function_call", "arguments"))
        if turn.options is not None:
            yield from missing("options", ("turns", t, "options"))
        if turn.expect.function_calls_counted is not None:
            yield from missing("function_calls_counted", ("turns", t, "expect", "function_calls_counted"))


def _script_references(source: YamlSource, t: int, steps: Sequence[ModelStepSpec],
                       references: set[str]) -> Iterator[ScenarioProblem]:
    for n, step in enumerate(steps):
        mixed = mapping_fragment_problems(step)
        for u, k, why in mixed:
            at: DataPath = ("turns", t, "model", n, "stream", u, k, "function_call", "arguments")
            named = ("turns", t, "model", n, "stream", u, "contents", k, "function_call", "arguments")
            yield problem_at(source, at, "invalid-value", f"{describe(named)}: {why}",
                             "give the whole arguments in one mapping fragment, or all of them as JSON text")
        # A mixed call cannot add up: the fold starts another call there, which the error above already explains.
        problem = None if mixed else stream_problem(step)
        if problem is not None:
            where: DataPath = ("turns", t, "model", n, "stream")
            yield problem_at(source, where, "invalid-value", f"{describe(where)}: {problem}")
        groups: list[tuple[DataPath, list[ContentSpec]]]
        if step.messages is not None:
            groups = [(("turns", t, "model", n, "messages", m, "contents"), message.contents)
                      for m, message in enumerate(step.messages)]
        else:
            groups = [(("turns", t, "model", n, "contents"), step.contents or [])]
        for base, contents in groups:
            # `build_step` registers a message's calls once the whole message is built, so a wrapper can refer
            # only to calls of earlier messages.
            known = set(references)
            for c, content in enumerate(contents):
                yield from _content_problems(source, (*base, c), content, known)
                request = content.approval_request
                if request is not None and request.function_call is not None:
                    # A provider's own (hosted) approval request: the caller may decide on it by its call id.
                    references.add(str(request.function_call.call_id))
                call = content.function_call
                if call is None:
                    continue
                if call.label and call.label in references:
                    yield problem_at(source, (*base, c, "function_call", "label"), "duplicate-label",
                                   f"label '{call.label}' is already used")
                if call.stream_chunks is not None:
                    problem = _chunks_problem(call.stream_chunks, call.arguments)
                    if problem:
                        yield problem_at(source, (*base, c, "function_call", "stream_chunks"), "invalid-value", problem)
                references.add(str(call.call_id))
                if call.label:
                    references.add(call.label)


def _chunks_problem(chunks: list[str], arguments: Any) -> str | None:
    """Why streamed argument fragments cannot stand for the call's arguments, if they cannot."""
    text = "".join(chunks)
    joined: Any
    try:
        joined = json.loads(text) if text.strip() else {}
    except ValueError:
        joined = None
    if arguments:
        return None if joined == arguments else "stream_chunks do not join to the JSON of 'arguments'"
    return None if isinstance(joined, dict) else "stream_chunks do not join to a JSON object"


def _content_problems(source: YamlSource, path: DataPath, content: ContentSpec,
                      known: set[str]) -> Iterator[ScenarioProblem]:
    """A scripted or hand-written content the fakes will replay: its calls concrete, its wrappers resolvable.

    Approval wrappers without their own `function_call` name an earlier call by call id or label.
    """
    if content.function_call is not None:
        yield from _call_shape_problems(source, (*path, "function_call"), content.function_call)
    for kind in ("approval_request", "approval_response"):
        wrapper: ApprovalRequestSpec | ApprovalResponseSpec | None = getattr(content, kind)
        if wrapper is None:
            continue
        if wrapper.function_call is not None:
            yield from _call_shape_problems(source, (*path, kind, "function_call"), wrapper.function_call)
            continue
        ref = str(wrapper.label or wrapper.call_id)
        if ref not in known:
            field = "label" if wrapper.label else "call_id"
            yield _dangling(source, (*path, kind, field), "call id or label", ref, known)


def _call_shape_problems(source: YamlSource, path: DataPath, call: FunctionCallSpec) -> Iterator[ScenarioProblem]:
    """Matchers and placeholders belong in expectations; a call that is replayed needs real values."""
    for key in ("call_id", "name"):
        value: Any = getattr(call, key)
        if value is None:
            yield problem_at(source, path, "missing-key", f"{describe(path)} is missing required key '{key}'")
        elif isinstance(value, bool) or not isinstance(value, str | int):
            yield problem_at(source, (*path, key), "wrong-type",
                           f"{describe((*path, key))}: a replayed call needs a plain string (got {short_value(value)})")
    if not isinstance(call.arguments, dict | str):
        yield problem_at(source, (*path, "arguments"), "wrong-type", f"{describe((*path, 'arguments'))}: a replayed "
                       f"call's arguments are a mapping, or raw JSON text (got {short_value(call.arguments)})")


def _input_references(source: YamlSource, t: int, items: str | list[InputItemSpec],
                      references: set[str]) -> Iterator[ScenarioProblem]:
    if isinstance(items, str):
        return
    for i, item in enumerate(items):
        for ref in item.approvals or {}:
            if ref not in references:
                yield _dangling(source, ("turns", t, "input", i, "approvals", ref), "call id or label", ref,
                                references, key=True)
        if item.message is not None:
            for c, content in enumerate(item.message.contents):
                if content.function_call is not None:
                    references.add(str(content.function_call.call_id))
                named = content.function_result.occurrence if content.function_result is not None else None
                if named is not None and named not in references:
                    yield _dangling(source, ("turns", t, "input", i, "message", "contents", c, "function_result",
                                             "occurrence"), "call label", named, references)
                yield from _content_problems(source, ("turns", t, "input", i, "message", "contents", c), content,
                                             references)


def _expectation_problems(source: YamlSource, t: int, tool_names: set[str]) -> Iterator[ScenarioProblem]:
    """Matchers in a turn's `expect` block that would not mean what they say, or would break the comparison."""
    base: DataPath = ("turns", t, "expect")
    found: Any = value_at(source.data, base)
    if not isinstance(found, dict):
        return
    expect = cast(dict[str, Any], found)
    yield from _matcher_problems(source, base, expect)
    yield from _script_only_problems(source, base, expect)
    requests: Any = expect.get("requests")
    count = len(cast(list[Any], requests)) if isinstance(requests, list) else 0
    lists: list[DataPath] = [(*base, "response")]
    lists.extend((*base, "requests", r, "messages") for r in range(count))
    for path in lists:
        value: Any = value_at(source.data, path)
        if isinstance(value, dict):
            yield from _message_list_problems(source, path, cast(dict[Any, Any], value))
    yield from _events_problems(source, (*base, "events"))
    for r in range(count):
        tools: Any = value_at(source.data, (*base, "requests", r, "tools"))
        for i, name in enumerate(cast(list[Any], tools) if isinstance(tools, list) else []):
            where = (*base, "requests", r, "tools", i)
            if not isinstance(name, str):
                yield problem_at(source, where, "wrong-type", f"{describe(where)}: a list of tools names them as "
                               f"strings (got {short_value(name)})")
            elif name not in tool_names:
                yield _dangling(source, where, "tool", name, tool_names)


# Keys of a function_call that say how the scripted service sends a call, not what a loop returns: no expectation
# can compare them, since the neutral form of a call has no such field.
_SCRIPT_ONLY_CALL_KEYS = ("item_id", "stream_chunks")


def _script_only_problems(source: YamlSource, path: DataPath, value: Any) -> Iterator[ScenarioProblem]:
    if isinstance(value, list):
        for index, item in enumerate(cast(list[Any], value)):
            yield from _script_only_problems(source, (*path, index), item)
        return
    if not isinstance(value, dict):
        return
    mapping = cast(dict[Any, Any], value)
    call: Any = mapping.get("function_call")
    for key in _SCRIPT_ONLY_CALL_KEYS if isinstance(call, dict) else ():
        if key in call:
            where: DataPath = (*path, "function_call", key)
            yield problem_at(source, where, "invalid-value", f"{describe(where)}: '{key}' says how the scripted "
                             "service sends a call; an expectation cannot compare it",
                             f"remove '{key}' here; keep it on the call in the turn's 'model' script")
    for key, item in mapping.items():
        yield from _script_only_problems(source, (*path, key), item)


def _events_problems(source: YamlSource, path: DataPath) -> Iterator[ScenarioProblem]:
    """An `events` sequence may name only the types it judges: another could never be matched."""
    judged: Any = value_at(source.data, (*path, "judged"))
    sequence: Any = value_at(source.data, (*path, "sequence"))
    if not isinstance(judged, list) or not isinstance(sequence, list):
        return
    for index, item in enumerate(cast(list[Any], sequence)):
        kind: Any = cast(dict[str, Any], item).get("type") if isinstance(item, dict) else None
        if isinstance(kind, str) and kind not in cast(list[Any], judged):
            yield problem_at(source, (*path, "sequence", index, "type"), "dangling-reference",
                             f"{describe((*path, 'sequence', index))}: event type '{kind}' is not among the judged "
                             f"types ({', '.join(map(str, cast(list[Any], judged)))})",
                             "add it to `judged`, or leave `judged` out to judge the types the sequence names")


def _matcher_problems(source: YamlSource, path: DataPath, value: Any) -> Iterator[ScenarioProblem]:
    if isinstance(value, list):
        for index, item in enumerate(value):  # pyright: ignore[reportUnknownVariableType,reportUnknownArgumentType]
            yield from _matcher_problems(source, (*path, index), item)
        return
    if not isinstance(value, dict):
        return
    keys = [key for key in value if isinstance(key, str)]  # pyright: ignore[reportUnknownVariableType]
    dollars = [key for key in keys if key.startswith("$")]
    for key in dollars:
        if key not in MATCHERS:
            close = difflib.get_close_matches(key, MATCHERS, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"matchers are {', '.join(MATCHERS)}"
            yield problem_at(source, (*path, key), "unknown-matcher", f"{describe(path)} uses unknown matcher '{key}'",
                           hint, key=True)
    if dollars and len(value) > 1:  # pyright: ignore[reportUnknownArgumentType]
        yield problem_at(source, path, "invalid-value", f"{describe(path)}: a matcher is a mapping with exactly one "
                       f"'$' key, got keys {', '.join(map(str, value))}")  # pyright: ignore[reportUnknownArgumentType]
    if is_matcher(value):
        (name, argument), = value.items()  # pyright: ignore[reportUnknownVariableType]
        if name == "$regex":
            yield from _pattern_problems(source, (*path, name), argument)
        if name in ("$prefix", "$suffix") and not isinstance(argument, list):
            yield problem_at(source, (*path, name), "invalid-value",
                           f"{describe(path)}: {name} takes a list (got {short_value(argument)})")
    for key, item in value.items():  # pyright: ignore[reportUnknownVariableType]
        yield from _matcher_problems(source, (*path, key), item)  # pyright: ignore[reportUnknownArgumentType]


def _pattern_problems(source: YamlSource, path: DataPath, pattern: Any) -> Iterator[ScenarioProblem]:
    """A `$regex` pattern is compiled here, at load time, so a bad one never reaches a run."""
    if not isinstance(pattern, str):
        yield problem_at(source, path, "wrong-type", f"{describe(path[:-1])}: $regex takes a string pattern (got "
                         f"{short_value(pattern)})", "quote the pattern")
        return
    try:
        compile_pattern(pattern)
    except InvalidPatternError as error:
        yield problem_at(source, path, "invalid-value", f"{describe(path[:-1])}: $regex pattern {error}",
                         error.hint)


# What `stream_order` can name: the kinds of content a stream shows (usage never appears in it), and which of them
# carry the id of their call.
_STREAM_KINDS = tuple(kind for kind in CONTENT_KEYS if kind != "usage")
_WITHOUT_CALL = ("text", "reasoning")


def _stream_item_problems(source: YamlSource, path: DataPath, item: str, call_ids: set[str],
                          labels: dict[str, str]) -> Iterator[ScenarioProblem]:
    """One `stream_order` item, `KIND` or `KIND CALL_ID`, checked like the decisions in `approvals`."""
    kind, separator, call_id = item.partition(" ")
    where = f"{describe(path[:-1])} item {int(path[-1]) + 1}"
    if kind not in _STREAM_KINDS:
        close = difflib.get_close_matches(kind, _STREAM_KINDS, n=1)
        hint = f"did you mean '{close[0]}'?" if close else (
            f"an item is a content kind ({', '.join(_STREAM_KINDS)}), then the call id for calls, results and "
            "approval wrappers, e.g. 'function_result c1'")
        yield problem_at(source, path, "invalid-value", f"{where}: '{item}' does not start with a streamed content "
                         "kind", hint)
    elif kind in _WITHOUT_CALL:
        if separator:
            yield problem_at(source, path, "invalid-value", f"{where}: '{kind}' takes no call id (got '{item}')",
                             f"write '{kind}'")
    elif not call_id:
        if separator or kind != "user_input_request":
            yield problem_at(source, path, "invalid-value", f"{where}: '{kind}' needs the id of its call, e.g. "
                             f"'{kind} c1'")
    elif call_id not in call_ids:
        if call_id in labels:
            yield problem_at(source, path, "dangling-reference", f"{describe(path[:-1])} refers to label '{call_id}' "
                             "where a call id belongs", f"a stream shows call ids: write '{kind} {labels[call_id]}'")
        else:
            yield _dangling(source, path, "call id", call_id, call_ids)


def _collect_calls(turn: TurnSpec, call_ids: set[str], labels: dict[str, str]) -> None:
    """Add the call ids that a turn's input and script bring into the conversation, and the labels of its calls."""
    contents: list[ContentSpec] = []
    for item in [] if isinstance(turn.input, str) else turn.input:
        contents.extend(item.message.contents if item.message is not None else [])
    for step in turn.model:
        contents.extend(step.contents or [c for m in (step.messages or []) for c in m.contents])
    for content in contents:
        calls = [content.function_call]
        calls.extend(wrapper.function_call for wrapper in (content.approval_request, content.approval_response)
                     if wrapper is not None)
        for call in calls:
            if call is not None and call.call_id is not None:
                call_ids.add(str(call.call_id))
                if call.label:
                    labels.setdefault(call.label, str(call.call_id))
        for holder in (content.function_result, content.user_input_request):
            if holder is not None and holder.call_id is not None:
                call_ids.add(str(holder.call_id))


def _message_list_problems(source: YamlSource, path: DataPath, value: dict[Any, Any]) -> Iterator[ScenarioProblem]:
    """Where a message list is expected, a mapping must be `{$prefix: [...]}` or `{$suffix: [...]}` of messages, or
    `{$contains: message}` / `{$not_contains: message}` of one."""
    if len(value) != 1 or next(iter(value)) not in ("$prefix", "$suffix", "$contains", "$not_contains"):
        yield problem_at(source, path, "invalid-value", f"{describe(path)}: expected a list of messages, "
                       "{$prefix: [...]} / {$suffix: [...]} of messages, or {$contains: ...} / {$not_contains: ...} "
                       "of one message")
        return
    (name, items), = value.items()
    single = name in ("$contains", "$not_contains")
    if single:
        if not isinstance(items, dict):
            yield problem_at(source, (*path, name), "invalid-value",
                             f"{describe((*path, name))}: expected one message ({{role, contents}})")
            return
        items = [cast(dict[Any, Any], items)]
    if not isinstance(items, list):
        return  # reported with the matchers
    errors: list[ErrorDetails] = []
    for index, item in enumerate(items):  # pyright: ignore[reportUnknownVariableType,reportUnknownArgumentType]
        try:
            MessageExpect.model_validate(item)
        except ValidationError as error:
            for detail in error.errors():
                detail["loc"] = (*path, name, *detail["loc"]) if single else (*path, name, index, *detail["loc"])
                errors.append(detail)
    yield from schema_problems(source, errors)


def _dangling(source: YamlSource, path: DataPath, what: str, name: str, known: Iterable[str],
              *, key: bool = False) -> ScenarioProblem:
    close = difflib.get_close_matches(name, sorted(known), n=1)
    hint = f"did you mean '{close[0]}'?" if close else f"no earlier {what} is named so"
    return problem_at(source, path, "dangling-reference", f"{describe(path[:-1])} refers to unknown {what} '{name}'",
                    hint, key=key)
