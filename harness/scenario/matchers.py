"""Comparing expected values (which may hold matchers) with actual ones; returns data, never text.

A matcher is a mapping with exactly one ``$``-prefixed key:

- ``{$any: true}`` — any value, including a missing one;
- ``{$regex: PATTERN}`` — a string that the pattern matches somewhere (a search), within `REGEX_TIMEOUT`, and
  within what is left of the run's budget (`regex_budget`) for all its matches together;
- ``{$contains: X}`` — a string containing X, or a list with an element equal to X;
- ``{$not_contains: X}`` — the opposite;
- ``{$prefix: [...]}`` / ``{$suffix: [...]}`` — a list that starts / ends with these elements (each may match);
- ``{$not: X}`` — anything (including a missing value) that does not match X;
- ``{$all: [X, Y, ...]}`` — a value that matches every one of them (e.g. several ``$contains``).
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Generator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

# `regex` rather than `re`: its matches take a timeout, so a pattern that backtracks catastrophically on what a loop
# returned fails its check instead of stalling the run. No static test of a pattern can promise that.
import regex

from harness.errors import HarnessError

MATCHERS = ("$any", "$regex", "$contains", "$not_contains", "$prefix", "$suffix", "$not", "$all")

# Seconds one `$regex` match may take. A sane pattern matches a reply in microseconds.
REGEX_TIMEOUT = 1.0
# Seconds all `$regex` matches of one run may take together: a file of many backtracking patterns would otherwise
# cost `REGEX_TIMEOUT` each (200 of them, 200 s) on every run.
REGEX_RUN_BUDGET = 2.0
# `regex` compiles a counted repeat such as `(ab){100}` into that many copies, so nested counts multiply and
# `(?:(?:a{100}){100}){100}` alone would take gigabytes: patterns whose copies would pass this bound are refused.
MAX_PATTERN_SIZE = 10_000
# Its parser recurses once per group: deeper nesting than this is a typo, not a pattern.
MAX_PATTERN_DEPTH = 100


@dataclass(frozen=True)
class Mismatch:
    path: str  # e.g. "[2].contents[0].function_result.result"
    expected: Any
    actual: Any
    reason: str


@dataclass
class _Budget:
    seconds: float  # what is left


_BUDGET: ContextVar[_Budget | None] = ContextVar("regex_budget", default=None)


@contextmanager
def regex_budget(seconds: float = REGEX_RUN_BUDGET) -> Generator[None]:
    """Within this block, `$regex` matches share `seconds` between them; once spent, a `$regex` fails unmatched.

    The runner opens one per run around its judging, so a scenario's patterns cost at most that much per run,
    however many there are and whatever the loop returned."""
    token = _BUDGET.set(_Budget(seconds))
    try:
        yield
    finally:
        _BUDGET.reset(token)


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
    if name == "$all":
        if not isinstance(argument, list):
            return [Mismatch(path, dict(matcher), _shown(actual), "$all takes a list of expectations")]
        return [m for want in argument for m in match(want, actual, path)]  # pyright: ignore[reportUnknownVariableType]
    if name == "$not":
        if actual is not _MISSING and not match(argument, actual):
            return [Mismatch(path, dict(matcher), actual, "matches what $not excludes")]
        return []
    if actual is _MISSING:
        return [Mismatch(path, dict(matcher), None, "missing")]
    if name == "$regex":
        return _match_regex(matcher, actual, path)
    ok: bool
    if name in ("$contains", "$not_contains"):
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


def _match_regex(matcher: Mapping[str, Any], actual: Any, path: str) -> list[Mismatch]:
    pattern: Any = matcher["$regex"]
    if not isinstance(pattern, str):
        return [Mismatch(path, dict(matcher), actual, "$regex takes a string pattern")]
    budget = _BUDGET.get()
    if budget is not None and budget.seconds <= 0:
        return [Mismatch(path, dict(matcher), actual, "$regex not tried: this run's patterns have spent their "
                         "budget of matching time; they backtrack too much on the values the loop returned")]
    limit = REGEX_TIMEOUT if budget is None else min(REGEX_TIMEOUT, budget.seconds)
    started = time.monotonic()
    try:
        found = isinstance(actual, str) and compile_pattern(pattern).search(actual, timeout=limit) is not None
    except InvalidPatternError as error:
        return [Mismatch(path, dict(matcher), actual, f"$regex pattern {error}")]
    except TimeoutError:
        return [Mismatch(path, dict(matcher), actual, f"$regex gave up after {limit:g} s: the pattern "
                         "backtracks too much on this value")]
    finally:
        if budget is not None:
            budget.seconds -= time.monotonic() - started
    return [] if found else [Mismatch(path, dict(matcher), actual, "does not satisfy $regex")]


class InvalidPatternError(HarnessError):
    """A `$regex` pattern that does not compile, or would compile into too large a program."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> regex.Pattern[str]:
    """The compiled `$regex` pattern; raises `InvalidPatternError` saying why it cannot be used.

    The loader compiles every pattern of a scenario, so a bad one is a load error and matching reuses the result.
    """
    size, depth = pattern_shape(pattern)
    if size > MAX_PATTERN_SIZE:
        raise InvalidPatternError(f"is too large: its counted repeats ({{n}}, {{n,m}}) would compile into more than "
                                  f"{MAX_PATTERN_SIZE} items", "repeat with '+' or '*', or with a smaller count")
    if depth > MAX_PATTERN_DEPTH:
        raise InvalidPatternError(f"nests groups more than {MAX_PATTERN_DEPTH} deep",
                                  "check the parentheses; escape a literal '(' as '\\('")
    try:
        return regex.compile(pattern)
    except (regex.error, ValueError, OverflowError, RecursionError) as error:
        raise InvalidPatternError(f"does not compile: {error}", "patterns use Python's regular-expression syntax: "
                                  "escape a literal '(', '[', '{', '*', '+' or '?' with a backslash") from None


_COUNT = re.compile(r"\{(\d{0,12})(?:,(\d{0,12}))?\}")


def pattern_shape(pattern: str) -> tuple[int, int]:
    """An upper bound on the items `regex` compiles `pattern` into (each atom once per copy of every counted repeat
    around it), and how deep its groups nest; it stops counting once either passes its limit."""
    groups = [0]  # size of each open group so far, innermost last
    last = 0  # size of the atom or group a quantifier would repeat
    size = depth = index = 0
    while index < len(pattern) and size <= MAX_PATTERN_SIZE and depth <= MAX_PATTERN_DEPTH:
        char = pattern[index]
        counted = _COUNT.match(pattern, index) if char == "{" else None
        if counted and (counted.group(1) or counted.group(2)):
            extra = last * (max(int(counted.group(1) or 0), int(counted.group(2) or 0), 1) - 1)
            groups[-1] += extra
            size += extra
            last += extra
            index = counted.end()
        elif char == "(":
            groups.append(0)
            depth = max(depth, len(groups) - 1)
            last, index = 0, index + 1
        elif char == ")" and len(groups) > 1:
            last = groups.pop()
            groups[-1] += last
            index += 1
        else:
            index = _class_end(pattern, index) if char == "[" else index + (2 if char == "\\" else 1)
            groups[-1] += 1
            size += 1
            last = 1
    return size, depth


def _class_end(pattern: str, start: int) -> int:
    """The index after the character class that opens at `start`."""
    index = start + 1
    if pattern[index:index + 1] == "^":
        index += 1
    if pattern[index:index + 1] == "]":
        index += 1
    while index < len(pattern) and pattern[index] != "]":
        index += 2 if pattern[index] == "\\" else 1
    return index + 1


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
