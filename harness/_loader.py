"""Loading scenario files: safe YAML, strict schema, cross-references; every problem of a file at once."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from harness._scenario import Scenario, Turn, build_call, build_step, build_tool
from harness._schema import (
    ApprovalRequestSpec,
    ApprovalResponseSpec,
    ContentSpec,
    FunctionCallSpec,
    InputItemSpec,
    ModelStepSpec,
    ScenarioSpec,
)
from harness._yaml_source import DataPath, YamlSource, YamlSyntaxError, load_yaml
from harness.contents import FunctionCall
from harness.contract import LoopConfig
from harness.errors import ScenarioFileError, ScenarioProblem
from harness.spec_rows import SPEC_ROWS

SCENARIO_SUFFIXES = (".yaml", ".yml")

_CODES = {
    "extra_forbidden": "unknown-key",
    "missing": "missing-key",
    "literal_error": "invalid-value",
    "value_error": "invalid-value",
    "string_pattern_mismatch": "invalid-value",
    "greater_than_equal": "invalid-value",
    "greater_than": "invalid-value",
    "less_than_equal": "invalid-value",
    "less_than": "invalid-value",
    "too_short": "invalid-value",
    "too_long": "invalid-value",
    "string_too_short": "invalid-value",
    "string_too_long": "invalid-value",
}


def discover(paths: Iterable[Path]) -> list[Path]:
    """Scenario files under `paths` (files or folders), sorted for a stable order."""
    found: set[Path] = set()
    for path in paths:
        if path.is_dir():
            found.update(p for p in path.rglob("*") if p.suffix in SCENARIO_SUFFIXES and p.is_file())
        else:
            found.add(path)
    return sorted(found)


def load_scenario(path: Path, known_rows: Iterable[str] | None = None) -> Scenario:
    """Load one scenario file; raises `ScenarioFileError` listing every problem it has."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioFileError(path, [ScenarioProblem(path, 1, 1, "unreadable", str(error))]) from None
    try:
        source = load_yaml(path, text)
    except YamlSyntaxError as error:
        problem = ScenarioProblem(path, error.position.line, error.position.column, "yaml-syntax", str(error))
        raise ScenarioFileError(path, [problem], text) from None
    problems = [_problem(source, p, "duplicate-key", f"duplicate key '{p[-1]}'", key=True)
                for p, _ in source.duplicate_keys]
    data: object = source.data
    if not isinstance(data, dict):
        problems.append(_problem(source, (), "wrong-type", "a scenario file must hold a mapping"))
        raise ScenarioFileError(path, problems, text)
    try:
        spec = ScenarioSpec.model_validate(data)
    except ValidationError as error:
        problems.extend(_schema_problems(source, error.errors()))
        raise ScenarioFileError(path, problems, text) from None
    problems.extend(_reference_problems(source, spec, set(known_rows or (r.name for r in SPEC_ROWS))))
    if problems:
        raise ScenarioFileError(path, problems, text)
    return _build(spec, source)


def _build(spec: ScenarioSpec, source: YamlSource) -> Scenario:
    calls: dict[str, FunctionCall] = {}
    turns: list[Turn] = []
    for t, turn in enumerate(spec.turns):
        for item in turn.input if not isinstance(turn.input, str) else []:
            for content in item.message.contents if item.message is not None else []:
                if content.function_call is not None:
                    call = build_call(content.function_call)
                    calls.setdefault(call.call_id, call)
        steps = tuple(
            build_step(step, t, n + 1, calls, source.position(("turns", t, "model", n)).line)
            for n, step in enumerate(turn.model)
        )
        turns.append(Turn(t, turn, steps, source.position(("turns", t)).line))
    config = LoopConfig(**spec.config.model_dump())
    tools = tuple(build_tool(t) for t in spec.tools)
    return Scenario(spec, source.path, 1, tools, config, tuple(turns), calls, _labels(spec))


def _labels(spec: ScenarioSpec) -> dict[str, tuple[str, int]]:
    seen: dict[str, int] = {}
    labels: dict[str, tuple[str, int]] = {}
    for turn in spec.turns:
        for step in turn.model:
            contents = step.contents or [c for m in (step.messages or []) for c in m.contents]
            for content in contents:
                call = content.function_call
                if call is not None:
                    seen[str(call.call_id)] = seen.get(str(call.call_id), 0) + 1
                    if call.label:
                        labels[call.label] = (str(call.call_id), seen[str(call.call_id)])
    return labels


# --- schema errors --------------------------------------------------------------------------------------------


def _schema_problems(source: YamlSource, errors: list[ErrorDetails]) -> list[ScenarioProblem]:
    located = [(_data_path(source.data, error["loc"]), error) for error in errors]
    # A union reports one error per member; keep only those of the member the data is shaped like.
    deepest: dict[DataPath, int] = {}
    for path, _ in located:
        for depth in range(len(path) + 1):
            deepest[path[:depth]] = max(deepest.get(path[:depth], 0), len(path))
    chosen: list[tuple[DataPath, ErrorDetails]] = []
    seen: set[tuple[DataPath, str]] = set()
    # A value that fits no member of a union at all: one problem that names every shape the union accepts.
    alternatives: dict[DataPath, list[str]] = {}
    for path, error in located:
        kind = error["type"]
        if kind.endswith("_type") and deepest.get(path, 0) > len(path):
            continue
        if (path, kind) in seen:
            continue
        seen.add((path, kind))
        if kind.endswith("_type"):
            if path in alternatives:
                alternatives[path].append(error["msg"])
                continue
            alternatives[path] = [error["msg"]]
        chosen.append((path, error))
    problems: list[ScenarioProblem] = []
    for path, error in chosen:
        shapes = alternatives.get(path, []) if error["type"].endswith("_type") else []
        if len(shapes) > 1:
            error = error.copy()
            error["msg"] = _either(shapes)
        problems.append(_schema_problem(source, path, error))
    return problems


def _either(messages: list[str]) -> str:
    prefix = "Input should be "
    if all(m.startswith(prefix) for m in messages):
        return prefix + " or ".join(m.removeprefix(prefix) for m in messages)
    return "; or ".join(messages)


def _schema_problem(source: YamlSource, path: DataPath, error: ErrorDetails) -> ScenarioProblem:
    kind = error["type"]
    code = _CODES.get(kind, "wrong-type")
    where = describe(path[:-1]) if path else "the scenario"
    if kind == "extra_forbidden":
        key = str(path[-1])
        allowed = _allowed_keys(source.data, path)
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = f"did you mean '{close[0]}'?" if close else (f"allowed keys: {', '.join(allowed)}" if allowed else None)
        return _problem(source, path, code, f"{where} has unknown key '{key}'", hint, key=True)
    if kind == "missing":
        return _problem(source, path[:-1], code, f"{where} is missing required key '{path[-1]}'")
    value = _value_at(source.data, path)
    message = error["msg"].removeprefix("Value error, ")
    return _problem(source, path, code, f"{describe(path)}: {message} (got {_short(value)})")


def _allowed_keys(data: Any, path: DataPath) -> list[str]:
    from harness import _schema

    model: Any = ScenarioSpec
    for part in path[:-1]:
        if isinstance(part, int) or part.startswith("$"):
            continue
        field = model.model_fields.get(part) or next(
            (f for f in model.model_fields.values() if f.alias == part), None
        )
        if field is None:
            return []
        model = _model_in(field.annotation, _schema)
        if model is None:
            return []
    return [f.alias or name for name, f in model.model_fields.items()]


def _model_in(annotation: Any, module: Any) -> Any:
    from typing import get_args

    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg, module)
        if found is not None:
            return found
    return None


def _child(container: Any, part: int | str) -> Any:
    return container[part]


def _contains(container: Any, part: int | str) -> bool:
    if isinstance(container, dict):
        return part in container
    if isinstance(container, list):
        return isinstance(part, int) and part < len(cast(list[Any], container))
    return False


def _data_path(data: Any, loc: tuple[int | str, ...]) -> DataPath:
    """Map a pydantic location onto the data, dropping union-member tags that are not keys."""
    path: list[str | int] = []
    current: Any = data
    for part in loc:
        if _contains(current, part):
            path.append(part)
            current = _child(current, part)
        elif isinstance(current, dict) and isinstance(part, str) and not _is_union_tag(part):
            path.append(part)  # a missing or unknown key
            current = None
    return tuple(path)


def _is_union_tag(part: str) -> bool:
    return any(ch in part for ch in "[]()") or part in {"str", "int", "float", "bool", "dict", "list"} or (
        part[:1].isupper()
    )


def _value_at(data: Any, path: DataPath) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def describe(path: DataPath) -> str:
    """A reader's name for a data path: ``turn 2 › model step 1 › content 1``."""
    names = {"turns": "turn", "model": "model step", "contents": "content", "tools": "tool", "input": "input item",
             "messages": "message", "behaviour": "behaviour", "requests": "request", "response": "response message"}
    words: list[str] = []
    items = list(path)
    i = 0
    while i < len(items):
        part = items[i]
        nxt = items[i + 1] if i + 1 < len(items) else None
        if isinstance(part, str) and isinstance(nxt, int) and part in names:
            words.append(f"{names[part]} {nxt + 1}")
            i += 2
            continue
        words.append(str(part))
        i += 1
    return " › ".join(words) if words else "the scenario"


def _problem(
    source: YamlSource,
    path: DataPath,
    code: str,
    message: str,
    hint: str | None = None,
    *,
    key: bool = False,
) -> ScenarioProblem:
    position = source.position(path, key=key)
    return ScenarioProblem(source.path, position.line, position.column, code, message, hint)


# --- cross-references -----------------------------------------------------------------------------------------


def _reference_problems(source: YamlSource, spec: ScenarioSpec, known_rows: set[str]) -> Iterator[ScenarioProblem]:
    for index, row in enumerate(spec.spec):
        if row not in known_rows:
            close = difflib.get_close_matches(row, sorted(known_rows), n=1, cutoff=0.5)
            hint = f"did you mean '{close[0]}'?" if close else "rows are named as in the spec's Scenario column"
            yield _problem(source, ("spec", index), "unknown-spec-row", f"'{row}' is not a row of the spec matrix",
                           hint)
    tool_names = {tool.name for tool in spec.tools}
    for t, tool in enumerate(spec.tools):
        for b, behaviour in enumerate(tool.behaviour or []):
            for a, name in enumerate(behaviour.add_tools):
                if name not in tool_names:
                    yield _dangling(source, ("tools", t, "behaviour", b, "add_tools", a), "tool", name, tool_names)
    references: set[str] = set()
    for t, turn in enumerate(spec.turns):
        yield from _input_references(source, t, turn.input, references)
        yield from _script_references(source, t, turn.model, references)
        yield from _expectation_problems(source, t, tool_names)
        for name in (turn.expect.executions or {}):
            if name not in tool_names:
                yield _dangling(source, ("turns", t, "expect", "executions", name), "tool", name, tool_names,
                                key=True)
        for r, request in enumerate(turn.expect.requests or []):
            if request.call > len(turn.model):
                yield _problem(source, ("turns", t, "expect", "requests", r, "call"), "dangling-reference",
                               f"request expectation names model call #{request.call}, but turn {t + 1} scripts "
                               f"{len(turn.model)}")


def _script_references(source: YamlSource, t: int, steps: Sequence[ModelStepSpec],
                       references: set[str]) -> Iterator[ScenarioProblem]:
    for n, step in enumerate(steps):
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
                call = content.function_call
                if call is None:
                    continue
                if call.label and call.label in references:
                    yield _problem(source, (*base, c, "function_call", "label"), "duplicate-label",
                                   f"label '{call.label}' is already used")
                if call.stream_chunks is not None:
                    problem = _chunks_problem(call.stream_chunks, call.arguments)
                    if problem:
                        yield _problem(source, (*base, c, "function_call", "stream_chunks"), "invalid-value", problem)
                references.add(str(call.call_id))
                if call.label:
                    references.add(call.label)


def _chunks_problem(chunks: list[str], arguments: Any) -> str | None:
    """Why streamed argument fragments cannot stand for the call's arguments, if they cannot."""
    import json

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
            yield _problem(source, path, "missing-key", f"{describe(path)} is missing required key '{key}'")
        elif isinstance(value, bool) or not isinstance(value, str | int):
            yield _problem(source, (*path, key), "wrong-type",
                           f"{describe((*path, key))}: a replayed call needs a plain string (got {_short(value)})")
    if not isinstance(call.arguments, dict | str):
        yield _problem(source, (*path, "arguments"), "wrong-type", f"{describe((*path, 'arguments'))}: a replayed "
                       f"call's arguments are a mapping, or raw JSON text (got {_short(call.arguments)})")


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
                yield from _content_problems(source, ("turns", t, "input", i, "message", "contents", c), content,
                                             references)


def _expectation_problems(source: YamlSource, t: int, tool_names: set[str]) -> Iterator[ScenarioProblem]:
    """Matchers in a turn's `expect` block that would not mean what they say, or would break the comparison."""
    base: DataPath = ("turns", t, "expect")
    found: Any = _value_at(source.data, base)
    if not isinstance(found, dict):
        return
    expect = cast(dict[str, Any], found)
    yield from _matcher_problems(source, base, expect)
    requests: Any = expect.get("requests")
    count = len(cast(list[Any], requests)) if isinstance(requests, list) else 0
    lists: list[DataPath] = [(*base, "response")]
    lists.extend((*base, "requests", r, "messages") for r in range(count))
    for path in lists:
        value: Any = _value_at(source.data, path)
        if isinstance(value, dict):
            yield from _message_list_problems(source, path, cast(dict[Any, Any], value))
    for r in range(count):
        tools: Any = _value_at(source.data, (*base, "requests", r, "tools"))
        for i, name in enumerate(cast(list[Any], tools) if isinstance(tools, list) else []):
            where = (*base, "requests", r, "tools", i)
            if not isinstance(name, str):
                yield _problem(source, where, "wrong-type", f"{describe(where)}: a list of tools names them as "
                               f"strings (got {_short(name)})")
            elif name not in tool_names:
                yield _dangling(source, where, "tool", name, tool_names)


def _matcher_problems(source: YamlSource, path: DataPath, value: Any) -> Iterator[ScenarioProblem]:
    import re

    from harness._matchers import MATCHERS, is_matcher

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
            yield _problem(source, (*path, key), "unknown-matcher", f"{describe(path)} uses unknown matcher '{key}'",
                           hint, key=True)
    if dollars and len(value) > 1:  # pyright: ignore[reportUnknownArgumentType]
        yield _problem(source, path, "invalid-value", f"{describe(path)}: a matcher is a mapping with exactly one "
                       f"'$' key, got keys {', '.join(map(str, value))}")  # pyright: ignore[reportUnknownArgumentType]
    if is_matcher(value):
        (name, argument), = value.items()  # pyright: ignore[reportUnknownVariableType]
        if name == "$regex":
            try:
                re.compile(str(argument))  # pyright: ignore[reportUnknownArgumentType]
            except re.error as error:
                yield _problem(source, (*path, name), "invalid-value",
                               f"{describe(path)}: $regex pattern does not compile: {error}")
        if name in ("$prefix", "$suffix") and not isinstance(argument, list):
            yield _problem(source, (*path, name), "invalid-value",
                           f"{describe(path)}: {name} takes a list (got {_short(argument)})")
    for key, item in value.items():  # pyright: ignore[reportUnknownVariableType]
        yield from _matcher_problems(source, (*path, key), item)  # pyright: ignore[reportUnknownArgumentType]


def _message_list_problems(source: YamlSource, path: DataPath, value: dict[Any, Any]) -> Iterator[ScenarioProblem]:
    """Where a message list is expected, a mapping must be `{$prefix: [...]}` or `{$suffix: [...]}` of messages."""
    from harness._schema import MessageExpect

    if len(value) != 1 or next(iter(value)) not in ("$prefix", "$suffix"):
        yield _problem(source, path, "invalid-value", f"{describe(path)}: expected a list of messages, or "
                       "{$prefix: [...]} / {$suffix: [...]} of messages")
        return
    (name, items), = value.items()
    if not isinstance(items, list):
        return  # reported with the matchers
    errors: list[ErrorDetails] = []
    for index, item in enumerate(items):  # pyright: ignore[reportUnknownVariableType,reportUnknownArgumentType]
        try:
            MessageExpect.model_validate(item)
        except ValidationError as error:
            for detail in error.errors():
                detail["loc"] = (*path, name, index, *detail["loc"])
                errors.append(detail)
    yield from _schema_problems(source, errors)


def _dangling(source: YamlSource, path: DataPath, what: str, name: str, known: Iterable[str],
              *, key: bool = False) -> ScenarioProblem:
    close = difflib.get_close_matches(name, sorted(known), n=1)
    hint = f"did you mean '{close[0]}'?" if close else f"no earlier {what} is named so"
    return _problem(source, path, "dangling-reference", f"{describe(path[:-1])} refers to unknown {what} '{name}'",
                    hint, key=key)

