"""Reading the harness's own data files — results JSON, baseline and other YAML — bounded and located, as scenarios are.

`report`, `gate`, `diff` and `version-matrix` read results files written elsewhere, and every run reads a baseline:
a truncated download, a hand edit or a hostile file must give one line naming the file, the place in it, a stable
code and what to fix, never a traceback and never a hang. Whatever the bytes, the loaders here return plain data or
raise the caller's error type (a `HarnessError`) with that line:

* size: the file is read up to a cap, never whole when larger;
* encoding: invalid UTF-8 is refused at its byte, a lone surrogate (``"\\ud800"`` in JSON) at its string;
* depth: nesting beyond a cap is refused before any recursive parser sees it;
* numbers: ``NaN``, ``Infinity``, ``1e400`` (infinite as a float) and integers too long to print are refused;
* YAML: the scenario loader's bounded safe loader, so an alias bomb is refused in time proportional to the file.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ValidationError

from harness.errors import HarnessError
from harness.scenario.source_text import read_source
from harness.scenario.yaml_source import DataPath, Position, SourceError, YamlLimits, YamlSource, load_yaml, position_of

# Results files of a full sweep are about 14 MB; five times that is no results file the harness wrote.
MAX_JSON_BYTES = 64 * 1024 * 1024
# A results document nests six levels (results, a run, its checks, a check, its diff lines); a loop-coverage or
# version-matrix document a few more.
MAX_JSON_DEPTH = 64
# No number the harness writes (line numbers, counts) is longer; Python cannot print an int of 4,300 digits.
MAX_NUMBER_CHARS = 100
# The bundled known failures are about 0.5 MB and 18,000 values: thirty times that is no baseline.
MAX_YAML_BYTES = 16 * 1024 * 1024
MAX_YAML_VALUES = 500_000
MAX_YAML_CHARS = 32_000_000
MAX_YAML_DEPTH = 64

E = TypeVar("E", bound=HarnessError)
M = TypeVar("M", bound=BaseModel)

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{]|[\]}]')
_NUMBER_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?(?:NaN|Infinity)|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def located(path: Path, position: Position | None, code: str, message: str, hint: str | None = None) -> str:
    """One line: ``path:line:column: error[code]: message (hint: ...)``; `position` None for the file as a whole."""
    where = f"{path}:{position.line}:{position.column}" if position is not None else str(path)
    return f"{where}: error[{code}]: {message}" + (f" (hint: {hint})" if hint else "")


def data_path_text(path: DataPath) -> str:
    """``results[3].checks[0].verdict``: a place in parsed data, as the error messages name it."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "the document"


def read_bytes(path: Path, max_bytes: int, error: type[E]) -> bytes:
    """At most `max_bytes` of the file (more is refused without reading it all)."""
    try:
        with path.open("rb") as file:
            data = file.read(max_bytes + 1)
    except OSError as problem:
        raise error(located(path, None, "unreadable", problem.strerror or str(problem),
                            "check the path and its permissions")) from None
    if len(data) > max_bytes:
        raise error(located(path, None, "too-large", f"the file is larger than {max_bytes} bytes",
                            "check that this is the file you meant"))
    return data


def load_json_file(path: Path, error: type[E], max_bytes: int | None = None) -> object:
    """The JSON value the file holds, bounded (`MAX_JSON_BYTES` unless `max_bytes` says otherwise); raises `error`
    with one located line for anything else."""
    data = read_bytes(path, MAX_JSON_BYTES if max_bytes is None else max_bytes, error)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        before = problem.object[: problem.start].decode("utf-8", errors="replace")
        byte = problem.object[problem.start]
        raise error(located(path, position_of(before, len(before)), "not-utf8",
                            f"byte 0x{byte:02X} is not valid UTF-8 ({problem.reason})",
                            "JSON files are UTF-8 text")) from None
    return parse_json_text(path, text, error)


class _UnusableNumber(Exception):
    """Raised from inside `json.loads` by a number hook; located afterwards by scanning the text."""


def parse_json_text(path: Path, text: str, error: type[E]) -> object:
    """`text` parsed as JSON, refusing deep nesting, non-finite or overlong numbers and lone surrogates."""
    deep = _too_deep_at(text)
    if deep is not None:
        raise error(located(path, position_of(text, deep), "too-deep",
                            f"the document nests more than {MAX_JSON_DEPTH} levels deep",
                            "check for unclosed brackets"))
    try:
        value: object = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float,
                                   parse_int=_bounded_int)
    except json.JSONDecodeError as problem:
        raise error(located(path, Position(problem.lineno, problem.colno), "json-syntax", problem.msg)) from None
    except _UnusableNumber:
        index, token = _unusable_number(text)
        raise error(located(path, position_of(text, index), "invalid-number",
                            f"the number {token[:40]} is not a finite number of at most {MAX_NUMBER_CHARS} "
                            "characters", "JSON numbers are finite: write it as text, or fix the value")) from None
    except RecursionError:  # unreachable after the depth check; kept so no parser recursion ever escapes
        raise error(located(path, None, "too-deep", "the document nests too deeply")) from None
    if _SURROGATE_ESCAPE.search(text):
        lone = _lone_surrogate_at(text)
        if lone is not None:
            raise error(located(path, position_of(text, lone), "lone-surrogate",
                                "this string holds a lone surrogate escape (\\ud800-\\udfff without its pair), "
                                "which no UTF-8 text can hold", "remove the escape, or write the pair it halves"))
    return value


def _too_deep_at(text: str) -> int | None:
    """Where nesting first passes `MAX_JSON_DEPTH`, or None. Counted on the brackets outside strings, in C-speed
    passes; the slow scan runs only for a document that really is too deep."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if not brackets or max(accumulate(1 if c in "[{" else -1 for c in brackets)) <= MAX_JSON_DEPTH:
        return None
    depth = 0
    for match in _BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return match.start()
        elif token in "]}":
            depth -= 1
    return 0


def _refuse_constant(name: str) -> object:
    raise _UnusableNumber(name)


def _finite_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS or not math.isfinite(value := float(text)):
        raise _UnusableNumber(text)
    return value


def _bounded_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise _UnusableNumber(text)
    return int(text)


def _unusable_number(text: str) -> tuple[int, str]:
    for match in _NUMBER_TOKEN.finditer(text):
        token = match.group()
        if token.startswith('"'):
            continue
        if len(token) > MAX_NUMBER_CHARS or token.lstrip("-") in ("NaN", "Infinity") or (
                not token.lstrip("-").isdigit() and not math.isfinite(float(token))):
            return match.start(), token
    return 0, "?"


def _lone_surrogate_at(text: str) -> int | None:
    for match in _STRING.finditer(text):
        token = match.group()
        if _SURROGATE_ESCAPE.search(token) and _SURROGATE.search(str(json.loads(token))):
            return match.start()
    return None


def load_yaml_file(path: Path, error: type[E], noun: str) -> YamlSource:
    """A YAML data file (`noun`: "a baseline file", ...) parsed safely and bounded, duplicate keys refused."""
    limits = YamlLimits(MAX_YAML_DEPTH, MAX_YAML_VALUES, MAX_YAML_CHARS, noun, "a few levels")
    try:
        source = load_yaml(path, read_source(path, MAX_YAML_BYTES), limits)
    except SourceError as problem:
        raise error(located(path, problem.position, problem.code, problem.message, problem.hint)) from None
    if source.duplicate_keys:
        key_path, position = source.duplicate_keys[0]
        raise error(located(path, position, "duplicate-key", f"duplicate key '{key_path[-1]}'",
                            "each key appears once in a mapping"))
    return source


def load_yaml_model(path: Path, model: type[M], error: type[E], noun: str) -> M:
    """A YAML data file validated as `model` (an empty file is an empty mapping); the first problem, located."""
    source = load_yaml_file(path, error, noun)
    data: object = {} if source.data is None else source.data
    if not isinstance(data, dict):
        raise error(located(path, Position(1, 1), "wrong-type", f"{noun} must hold a mapping"))
    try:
        return model.model_validate(data)
    except ValidationError as problem:
        raise error(validation_line(source, problem.errors())) from None


def validation_line(source: YamlSource, errors: Sequence[Any]) -> str:
    """The first of pydantic's `errors` as one located line, with how many more there are."""
    first = errors[0]
    place = _data_path(source.data, tuple(first["loc"]))
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    message = str(first["msg"]).replace("\n", " ")
    if first["type"] == "missing":
        message = f"missing key '{first['loc'][-1]}'"
    return located(source.path, source.position(place), "invalid-value",
                   f"{data_path_text(place)}: {message}{more}")


def _data_path(data: object, loc: tuple[int | str, ...]) -> DataPath:
    """The part of pydantic's `loc` that names places in `data` (a union adds the member's name, which does not)."""
    path: list[int | str] = []
    current: object = data
    for part in loc:
        child = _child(current, part)
        if child is not _ABSENT:
            path.append(part)
            current = child
    return tuple(path)


_ABSENT = object()


def _child(container: object, part: int | str) -> object:
    if isinstance(container, dict):
        return cast(dict[object, object], container).get(part, _ABSENT)
    if isinstance(container, list) and isinstance(part, int):
        items = cast(list[object], container)
        return items[part] if 0 <= part < len(items) else _ABSENT
    return _ABSENT
