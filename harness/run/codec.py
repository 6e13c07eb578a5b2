"""What crosses from a loop's process to the judge: JSON read back strictly into the value model, never pickle.

The process that runs a loop under test is not trusted: a pickle from it could run any code in the judge's
process. Everything it sends is plain JSON, and the judge rebuilds each value by the type hints of the value
model's frozen dataclasses (`harness.contents`, `CallerView` and what it holds): a value that is not what its field
declares is refused with the path to it. The encoder is lenient (a value of no JSON type becomes its `repr`), so a
loop that puts odd objects in its output is judged on what the checks can read, and the decoder strict.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields, is_dataclass
from functools import cache
from typing import Any, ForwardRef, Literal, Union, cast, get_args, get_origin

from harness.contents import (
    ApprovalRequest,
    ApprovalResponse,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Response,
    Text,
    Update,
    Usage,
    UserInputRequest,
)
from harness.contract import CallerView, RaisedError, TransportEvent, TransportExchange

# Every class a loop's process may send, by the tag its encoded form carries.
CLASSES: dict[str, type] = {cls.__name__: cls for cls in (
    Text, Reasoning, FunctionCall, FunctionResult, ApprovalRequest, ApprovalResponse, UserInputRequest, Usage,
    Message, Response, Update, CallerView, RaisedError, TransportExchange, TransportEvent)}
TAG = "$"
# `encode`'s fast path: the exact types it passes through, and each value-model class's field names.
_SCALARS = frozenset({str, int, float, bool, type(None)})
_FIELD_NAMES: dict[type, tuple[str, ...]] = {cls: tuple(f.name for f in fields(cls)) for cls in CLASSES.values()}
MAX_DEPTH = 200  # deeper JSON than any transcript needs; refused before it can exhaust the stack

Decoder = Callable[[object, str], Any]


class CodecError(Exception):
    """A value from a loop's process is not what the value model declares; the message says where."""


def encode(value: object) -> object:
    """`value` as JSON-ready data: value-model dataclasses tagged with their class name, tuples as lists."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list or kind is tuple:
        return [encode(item) for item in cast(list[object], value)]
    if kind is dict:
        return {key if type(key) is str else _key(key): encode(item)
                for key, item in cast(dict[object, object], value).items()}
    names = _FIELD_NAMES.get(kind)
    if names is not None:
        encoded: dict[str, object] = {TAG: kind.__name__}
        for name in names:
            encoded[name] = encode(getattr(value, name))
        return encoded
    return _encode_other(value)


def _encode_other(value: object) -> object:
    """What the fast path of `encode` leaves: subclasses of the JSON types, other mappings, anything else."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, tuple | list):
        return [encode(item) for item in cast(list[object], value)]
    if isinstance(value, Mapping):
        return {_key(key): encode(item) for key, item in cast(Mapping[object, object], value).items()}
    if type(value).__name__ in CLASSES and is_dataclass(value):
        encoded: dict[str, object] = {TAG: type(value).__name__}
        for item in fields(value):
            encoded[item.name] = encode(getattr(value, item.name))
        return encoded
    return repr(value)


def _key(key: object) -> str:
    """A mapping's key as JSON writes it (`true`, `null`, `1.5`, `Infinity`), or any other key as its `str`."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool | int | float):
        return json.dumps(key)
    return str(key)


def _tagged(value: object) -> object:
    """What `dumps` gives the JSON writer for a value it cannot write itself: a value-model dataclass as a tagged
    object of its fields (which the writer goes on into), anything else as `encode` has it."""
    names = _FIELD_NAMES.get(type(value))
    if names is None:
        return _encode_other(value)
    encoded: dict[str, object] = {TAG: type(value).__name__}
    for name in names:
        encoded[name] = getattr(value, name)
    return encoded


# The JSON writer, in C, walking the value itself and asking `_tagged` only for the dataclasses it meets.
_WRITER = json.JSONEncoder(separators=(",", ":"), default=_tagged)


def dumps(value: object) -> bytes:
    """`encode(value)` written as JSON."""
    try:
        return _WRITER.encode(value).encode()
    except (TypeError, ValueError):  # a key of no JSON type, or a cycle: `encode`'s own way, to the same end
        return json.dumps(encode(value), separators=(",", ":")).encode()


def loads(data: bytes) -> object:
    """Parse one message; refuses what is not JSON or nests deeper than `MAX_DEPTH`."""
    try:
        parsed: object = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise CodecError(f"not JSON: {str(error)[:200]}") from None
    _check_depth(parsed)
    return parsed


def decode(value: object, hint: object, path: str = "$") -> Any:
    """`value` rebuilt as `hint` (a value-model class or a type hint); raises `CodecError` naming the path."""
    try:
        return _decoder(hint, False)(value, path)
    except CodecError:
        # The quick decoders do not spell out where they are; the located ones, run again, say where the value is.
        return _decoder(hint, True)(value, path)


def _check_depth(value: object) -> None:
    """Level by level, containers only (JSON's own `dict` and `list`): what lies at depth `MAX_DEPTH` must be empty
    or a scalar."""
    level: list[object] = [value] if type(value) in _CONTAINERS else []
    for depth in range(MAX_DEPTH + 1):
        if not level:
            return
        inner: list[object] = []
        for item in level:
            children = cast(dict[str, object], item).values() if type(item) is dict else cast(list[object], item)
            if depth == MAX_DEPTH and children:
                raise CodecError(f"nested deeper than {MAX_DEPTH} levels")
            inner += [child for child in children if type(child) in _CONTAINERS]
        level = inner


_CONTAINERS = frozenset({dict, list})


@cache
def _decoder(hint: object, located: bool) -> Decoder:
    """The decoder of `hint`. A located one names the path to a refused value; the other (every value that is
    read well) spends nothing on paths, and says only that the value is refused."""
    if isinstance(hint, type) and hint.__name__ in CLASSES and is_dataclass(hint):
        return _dataclass_decoder(hint, located)
    if isinstance(hint, ForwardRef | str):  # the value model's only forward reference is its JSON alias
        return _json_value
    if hint is type(None) or hint is None:
        return _exact(type(None), "null")
    if hint in (str, bool):
        return _exact(cast(type, hint), cast(type, hint).__name__)
    if hint is int:
        return _integer
    if hint is float:
        return _number
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return _literal(args)
    if origin in (Union, types.UnionType):
        return _json_value if _is_json_alias(args) else _union(args, located)
    if origin is tuple:
        return _tuple(_decoder(args[0], located), located)
    if origin in (Mapping, dict, typing.Mapping):
        return _mapping(_decoder(args[1], located), located)
    if origin is list:
        return _list(_decoder(args[0], located), located)
    raise TypeError(f"no decoder for {hint!r}")  # a harness bug: the value model grew a kind of field


def _is_json_alias(args: tuple[object, ...]) -> bool:
    return any(isinstance(a, ForwardRef) for arg in args for a in get_args(arg))


def _dataclass_decoder(cls: type, located: bool) -> Decoder:
    hints = typing.get_type_hints(cls)
    declared = tuple((f.name, _decoder(hints[f.name], located), f.default is MISSING and f.default_factory is MISSING)
                     for f in fields(cls))
    allowed = frozenset({TAG, *(name for name, _, _ in declared)})
    name = cls.__name__

    def decode_instance(value: object, path: str) -> Any:
        given = _object(value)
        if given is None or given.get(TAG) != name:
            raise CodecError(f"{path}: expected a {name}, got {_kind(value)}")
        if not allowed.issuperset(given):
            raise CodecError(f"{path}: a {name} has no field '{sorted(set(given) - allowed)[0]}'")
        arguments: dict[str, object] = {}
        for field_name, field_decoder, required in declared:
            if field_name in given:
                arguments[field_name] = field_decoder(given[field_name], f"{path}.{field_name}" if located else path)
            elif required:
                raise CodecError(f"{path}: a {name} lacks its '{field_name}'")
        try:
            return cls(**arguments)
        except (TypeError, ValueError) as error:
            raise CodecError(f"{path}: {error}") from None

    return decode_instance


_KINDS: dict[type, str] = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
                           float: "a number", type(None): "null"}


def _object(value: object) -> dict[str, object] | None:
    return cast(dict[str, object], value) if isinstance(value, dict) else None


def _kind(value: object) -> str:
    given = _object(value)
    if given is not None and TAG in given:
        return f"a {str(given[TAG])[:40]}"
    kind: type = type(value)
    return _KINDS.get(kind, kind.__name__)


def _exact(kind: type, label: str) -> Decoder:
    def check(value: object, path: str) -> object:
        if type(value) is not kind:
            raise CodecError(f"{path}: expected {label}, got {_kind(value)}")
        return value
    return check


def _integer(value: object, path: str) -> int:
    if type(value) is not int:
        raise CodecError(f"{path}: expected an integer, got {_kind(value)}")
    return value


def _number(value: object, path: str) -> float:
    if type(value) not in (int, float):
        raise CodecError(f"{path}: expected a number, got {_kind(value)}")
    return cast(float, value)


def _literal(allowed: tuple[object, ...]) -> Decoder:
    def check(value: object, path: str) -> object:
        if not isinstance(value, str) or value not in allowed:
            raise CodecError(f"{path}: expected one of {', '.join(map(repr, allowed))}, got {str(value)[:60]!r}")
        return value
    return check


def _union(options: tuple[object, ...], located: bool) -> Decoder:
    """A tagged object goes to the class its tag names; any other value to the first option that takes it."""
    classes: list[object] = [o for o in options if isinstance(o, type) and is_dataclass(o)]
    by_tag = {cast(type, cls).__name__: _decoder(cls, located) for cls in classes}
    others = [_decoder(o, located) for o in options if o not in classes]
    # The exact JSON types some option takes as it is (`str | None`): no need to try the options one by one.
    plain = frozenset(kind for option in options for kind in _PLAIN.get(option, ()))

    def check(value: object, path: str) -> object:
        if type(value) in plain:
            return value
        given = _object(value)
        tag = None if given is None else given.get(TAG)
        if tag is not None:
            tagged = by_tag.get(str(tag))
            if tagged is None:
                raise CodecError(f"{path}: expected one of {', '.join(by_tag) or 'no object'}, got {_kind(value)}")
            return tagged(value, path)
        problem: CodecError | None = None
        for option_decoder in others:
            try:
                return option_decoder(value, path)
            except CodecError as refused:
                problem = refused
        raise problem or CodecError(f"{path}: expected one of {', '.join(by_tag)}, got {_kind(value)}")
    return check


# The scalar hints, and the exact types each takes unchanged (as `_exact`, `_integer` and `_number` do).
_PLAIN: dict[object, tuple[type, ...]] = {str: (str,), bool: (bool,), int: (int,), float: (int, float),
                                          type(None): (type(None),), None: (type(None),)}


def _tuple(item: Decoder, located: bool) -> Decoder:
    def check(value: object, path: str) -> tuple[object, ...]:
        if not isinstance(value, list):
            raise CodecError(f"{path}: expected an array, got {_kind(value)}")
        if not located:
            return tuple([item(element, path) for element in cast(list[object], value)])
        return tuple(item(element, f"{path}[{i}]") for i, element in enumerate(cast(list[object], value)))
    return check


def _list(item: Decoder, located: bool) -> Decoder:
    tupled = _tuple(item, located)
    return lambda value, path: list(tupled(value, path))


def _mapping(item: Decoder, located: bool) -> Decoder:
    def check(value: object, path: str) -> dict[str, object]:
        if not isinstance(value, dict):
            raise CodecError(f"{path}: expected an object, got {_kind(value)}")
        if not located:
            return {key: item(element, path) for key, element in cast(dict[str, object], value).items()}
        return {key: item(element, f"{path}.{key}") for key, element in cast(dict[str, object], value).items()}
    return check


def _json_value(value: object, path: str) -> object:
    """Any JSON value: `loads` already guarantees the types and bounds the depth."""
    return value
