"""Comparing expected values (which may hold matchers) with actual ones; returns data, never text.

A matcher is a mapping with exactly one ``$``-prefixed key:

- ``{$any: true}`` — any value, including a missing one;
- ``{$regex: PATTERN}`` — a string that `re.search` matches;
- ``{$contains: X}`` — a string containing X, or a list with an element equal to X;
- ``{$not_contains: X}`` — the opposite;
- ``{$prefix: [...]}`` / ``{$suffix: [...]}`` — a list that starts / ends with these elements (each may match);
- ``{$not: X}`` — anything (including a missing value) that does not match X.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MATCHERS = ("$any", "$regex", "$contains", "$not_contains", "$prefix", "$suffix", "$not")


@dataclass(frozen=True)
class Mismatch:
    path: str  # e.g. "[2].contents[0].function_result.result"
    expected: Any
    actual: Any
    reason: str


def is_matcher(value: Any) -> bool:
    return isinstance(value, Mapping) and len(value) == 1 and next(iter(value)) in MATCHERS  # pyright: ignore[reportUnknownArgumentType]


_MISSING = object()


def match(expected: Any, actual: Any, path: str = "") -> list[Mismatch]:
    """Every place where `actual` does not satisfy `expected`."""
    if is_matcher(expected):
        return _match_matcher(expected, actual, path)
    if actual is _MISSING:
        return [Mismatch(path, expected, None, "missing")]
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [Mismatch(path, expected, _shown(actual), "expected a mapping")]
        return _match_mapping(expected, actual, path)  # pyright: ignore[reportUnknownArgumentType]
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [Mismatch(path, expected, _shown(actual), "expected a list")]
        return _match_list(expected, actual, path)  # pyright: ignore[reportUnknownArgumentType]
    # JSON keeps booleans apart from numbers, although Python's `True == 1`.
    if expected != actual or (type(expected) is bool) != (type(actual) is bool):
        return [Mismatch(path, expected, actual, "differs")]
    return []


def _match_mapping(expected: Mapping[str, Any], actual: Mapping[str, Any], path: str) -> list[Mismatch]:
    found: list[Mismatch] = []
    for key, value in expected.items():
        found.extend(match(value, actual.get(key, _MISSING), f"{path}.{key}" if path else key))
    for key in actual:
        if key not in expected:
            found.append(Mismatch(f"{path}.{key}" if path else key, None, actual[key], "unexpected"))
    return found


def _match_list(expected: Sequence[Any], actual: Sequence[Any], path: str) -> list[Mismatch]:
    found: list[Mismatch] = []
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        found.extend(match(want, got, f"{path}[{index}]"))
    if len(expected) != len(actual):
        found.append(Mismatch(path, f"{len(expected)} items", f"{len(actual)} items", "length differs"))
    return found


def _match_matcher(matcher: Mapping[str, Any], actual: Any, path: str) -> list[Mismatch]:
    (name, argument), = matcher.items()
    if name == "$any":
        return []
    if name == "$not":
        if actual is not _MISSING and not match(argument, actual):
            return [Mismatch(path, dict(matcher), actual, "matches what $not excludes")]
        return []
    if actual is _MISSING:
        return [Mismatch(path, dict(matcher), None, "missing")]
    ok: bool
    if name == "$regex":
        ok = isinstance(actual, str) and re.search(str(argument), actual) is not None
    elif name in ("$contains", "$not_contains"):
        if isinstance(actual, str):
            contained = isinstance(argument, str) and argument in actual
        elif isinstance(actual, list):
            contained = any(not match(argument, item) for item in actual)  # pyright: ignore[reportUnknownVariableType]
        else:
            contained = False
        ok = contained if name == "$contains" else not contained
    else:
        if not isinstance(actual, list) or not isinstance(argument, list):
            return [Mismatch(path, dict(matcher), _shown(actual), "expected a list")]
        items: list[Any] = list(actual)  # pyright: ignore[reportUnknownArgumentType]
        wanted: list[Any] = list(argument)  # pyright: ignore[reportUnknownArgumentType]
        if len(wanted) > len(items):
            return [Mismatch(path, dict(matcher), items, "too few items")]
        window = items[: len(wanted)] if name == "$prefix" else items[len(items) - len(wanted):]
        offset = 0 if name == "$prefix" else len(items) - len(wanted)
        found: list[Mismatch] = []
        for index, (want, got) in enumerate(zip(wanted, window, strict=True)):
            found.extend(match(want, got, f"{path}[{index + offset}]"))
        return found
    return [] if ok else [Mismatch(path, dict(matcher), actual, f"does not satisfy {name}")]


def _shown(value: Any) -> Any:
    return None if value is _MISSING else value


def matcher_problems(value: Any, path: str = "") -> list[str]:
    """Unknown ``$`` keys in an expectation: a typo there would otherwise compare as a literal mapping."""
    problems: list[str] = []
    if isinstance(value, Mapping):
        for key, item in value.items():  # pyright: ignore[reportUnknownVariableType]
            if isinstance(key, str) and key.startswith("$") and key not in MATCHERS:
                problems.append(f"{path}: unknown matcher '{key}' (known: {', '.join(MATCHERS)})")
            problems.extend(matcher_problems(item, f"{path}.{key}"))
    elif isinstance(value, list):
        for index, item in enumerate(value):  # pyright: ignore[reportUnknownVariableType,reportUnknownArgumentType]
            problems.extend(matcher_problems(item, f"{path}[{index}]"))
    return problems
