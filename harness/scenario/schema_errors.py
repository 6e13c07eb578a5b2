"""Turning pydantic validation errors into located, readable scenario problems."""

from __future__ import annotations

import difflib
from typing import Any, cast, get_args

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from harness.errors import ScenarioProblem
from harness.scenario.schema import (
    ScenarioSpec,
)
from harness.scenario.yaml_source import DataPath, YamlSource

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


def schema_problems(source: YamlSource, errors: list[ErrorDetails]) -> list[ScenarioProblem]:
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
        return problem_at(source, path, code, f"{where} has unknown key '{key}'", hint, key=True)
    if kind == "missing":
        return problem_at(source, path[:-1], code, f"{where} is missing required key '{path[-1]}'")
    value = value_at(source.data, path)
    message = error["msg"].removeprefix("Value error, ")
    return problem_at(source, path, code, f"{describe(path)}: {message} (got {short_value(value)})")


def _allowed_keys(data: Any, path: DataPath) -> list[str]:
    model: Any = ScenarioSpec
    for part in path[:-1]:
        if isinstance(part, int) or part.startswith("$"):
            continue
        field = model.model_fields.get(part) or next(
            (f for f in model.model_fields.values() if f.alias == part), None
        )
        if field is None:
            return []
        model = _model_in(field.annotation)
        if model is None:
            return []
    return [f.alias or name for name, f in model.model_fields.items()]


def _model_in(annotation: Any) -> Any:
    """The pydantic model an annotation holds, looking inside unions and containers."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
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


def value_at(data: Any, path: DataPath) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def short_value(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def describe(path: DataPath) -> str:
    """A reader's name for a data path: ``turn 2 › model step 1 › content 1``."""
    names = {"turns": "turn", "model": "model step", "contents": "content", "tools": "tool", "input": "input item",
             "messages": "message", "behaviour": "behaviour", "requests": "request", "response": "response message",
             "signature": "parameter", "auto_approve": "rule", "stream": "update"}
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


def problem_at(
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
