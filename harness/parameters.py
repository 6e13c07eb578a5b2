"""Checking a call's arguments against its tool's parameter schema before the tool body runs.

The spec's "Approved validation error" row: arguments that fail the tool's parameters give one error result and
the function body never runs. This covers the part of JSON Schema that tool declarations use — types, required
and unknown properties, enums, array items, nested objects — which is what a loop must enforce; it is not a
general JSON Schema validator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from harness.contents import JSON

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


def argument_problems(schema: Mapping[str, JSON], arguments: JSON, where: str = "arguments") -> list[str]:
    """Every way `arguments` breaks `schema`, one line each; empty when they fit."""
    problems: list[str] = []
    expected = schema.get("type")
    names = [expected] if isinstance(expected, str) else [t for t in cast(list[JSON], expected or []) if
                                                          isinstance(t, str)]
    if names and not any(_is(arguments, name) for name in names):
        return [f"{where}: expected {' or '.join(names)}, got {_kind(arguments)}"]
    enum = schema.get("enum")
    if isinstance(enum, list) and arguments not in enum:
        problems.append(f"{where}: {arguments!r} is not one of {enum!r}")
    if isinstance(arguments, dict):
        problems.extend(_object_problems(schema, cast(dict[str, JSON], arguments), where))
    if isinstance(arguments, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for index, item in enumerate(cast(list[JSON], arguments)):
                problems.extend(argument_problems(cast(Mapping[str, JSON], items), item, f"{where}[{index}]"))
    return problems


def _object_problems(schema: Mapping[str, JSON], value: dict[str, JSON], where: str) -> list[str]:
    problems: list[str] = []
    properties = schema.get("properties")
    known = cast(dict[str, JSON], properties) if isinstance(properties, dict) else {}
    required = schema.get("required")
    missing = [name for name in cast(Sequence[JSON], required or []) if isinstance(name, str) and name not in value]
    if missing:
        problems.append(f"{where}: missing required {', '.join(missing)}")
    if schema.get("additionalProperties") is False:
        extra = sorted(name for name in value if name not in known)
        if extra:
            problems.append(f"{where}: unexpected {', '.join(extra)}")
    for name, item in value.items():
        declared = known.get(name)
        if isinstance(declared, dict):
            problems.extend(argument_problems(cast(Mapping[str, JSON], declared), item, f"{where}.{name}"))
    return problems


def _is(value: JSON, name: str) -> bool:
    kinds = _TYPES.get(name)
    if kinds is None:
        return True  # a type this checker does not know is not a reason to refuse a call
    if isinstance(value, bool) and name in ("integer", "number"):
        return False  # JSON booleans are not numbers, although Python's bool is an int
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, kinds)


def _kind(value: JSON) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is(value, name):
            return name
    return type(value).__name__
