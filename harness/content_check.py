"""Checking what an adapter hands back, all the way down: a `CallerView` whose contents are not the vocabulary's.

An adapter is code under test. Python lets it put anything in a frozen dataclass field: an approval request whose
call has a list for arguments, a message whose role is a number, a result that is a socket. The checks read those
values as the vocabulary declares them, so one that is not would crash a check and read as a harness bug. This
module finds it first and says where, so the runner reports it as the adapter's breach of the contract. Part of
the value model: imports only the vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import cast

from harness.contents import (
    ROLES,
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

# Deeper JSON than this in a view is no model or tool output; every check that walks it recurses once per level.
MAX_JSON_DEPTH = 64


class Breach(Exception):
    """Where a value of the view is not what the contract declares, and what it is instead."""

    def __init__(self, place: str, problem: str) -> None:
        super().__init__(f"{place} {problem}")


def view_breach(view: CallerView) -> str | None:
    """Where `view` (a `CallerView` whose own fields have the right types) holds a value the vocabulary does not
    allow, or None: e.g. ``updates[2].contents[0] (approval_request).function_call.arguments is a list, not a
    mapping or text``."""
    try:
        _sequence(view.updates, "updates", _update)
        if view.response is not None:
            _response(view.response, "response")
        inputs = cast(object, view.inputs_after)
        if not isinstance(inputs, str):
            _sequence(inputs, "inputs_after", _message)
        _sequence(view.earlier_responses_after, "earlier_responses_after", _response)
        if view.error is not None:
            _error(view.error, "error")
        if view.transport is not None:
            _transport(view.transport, "transport")
    except Breach as breach:
        return str(breach)
    except RecursionError:
        return "holds values nested too deeply to read"
    return None


def _sequence(value: object, place: str, check: Callable[[object, str], None]) -> None:
    if not isinstance(value, tuple | list):
        raise Breach(place, f"is a {type(value).__name__}, not a tuple")
    for index, item in enumerate(cast(Sequence[object], value)):
        check(item, f"{place}[{index}]")


def _text(value: object, place: str, *, optional: bool = False) -> None:
    if not isinstance(value, str) and not (optional and value is None):
        raise Breach(place, f"is a {type(value).__name__}, not text")


def _flag(value: object, place: str) -> None:
    if not isinstance(value, bool):
        raise Breach(place, f"is a {type(value).__name__}, not true or false")


def _role(value: object, place: str) -> None:
    if not isinstance(value, str) or value not in ROLES:
        raise Breach(place, f"is {_shown(value)}, not one of the roles {', '.join(ROLES)}")


def _update(value: object, place: str) -> None:
    if not isinstance(value, Update):
        raise Breach(place, f"is a {type(value).__name__}, not an Update")
    _role(cast(object, value.role), f"{place}.role")
    _sequence(value.contents, f"{place}.contents", _content)
    for name in ("message_id", "finish_reason", "conversation_id"):
        _text(getattr(value, name), f"{place}.{name}", optional=True)


def _message(value: object, place: str) -> None:
    if not isinstance(value, Message):
        raise Breach(place, f"is a {type(value).__name__}, not a Message")
    _role(cast(object, value.role), f"{place}.role")
    _sequence(value.contents, f"{place}.contents", _content)


def _response(value: object, place: str) -> None:
    if not isinstance(value, Response):
        raise Breach(place, f"is a {type(value).__name__}, not a Response")
    _sequence(value.messages, f"{place}.messages", _message)
    _text(cast(object, value.finish_reason), f"{place}.finish_reason", optional=True)
    _text(cast(object, value.conversation_id), f"{place}.conversation_id", optional=True)


def _content(value: object, place: str) -> None:
    if isinstance(value, Text):
        _text(cast(object, value.text), f"{place} (text).text")
    elif isinstance(value, Reasoning):
        _reasoning(value, f"{place} (reasoning)")
    elif isinstance(value, FunctionCall):
        _call(value, f"{place} (function_call)")
    elif isinstance(value, FunctionResult):
        here = f"{place} (function_result)"
        _text(cast(object, value.call_id), f"{here}.call_id")
        _json(cast(object, value.result), f"{here}.result", 0)
        _flag(cast(object, value.error), f"{here}.error")
        _text(cast(object, value.occurrence_id), f"{here}.occurrence_id", optional=True)
    elif isinstance(value, ApprovalRequest | ApprovalResponse):
        _approval(value, place)
    elif isinstance(value, UserInputRequest):
        here = f"{place} (user_input_request)"
        _text(cast(object, value.id), f"{here}.id")
        if value.function_call is not None:
            _call(cast(object, value.function_call), f"{here}.function_call")
        _json(cast(object, value.payload), f"{here}.payload", 0)
    elif isinstance(value, Usage):
        for name in ("input_tokens", "output_tokens"):
            count = cast(object, getattr(value, name))
            if not isinstance(count, int) or isinstance(count, bool):
                raise Breach(f"{place} (usage).{name}", f"is a {type(count).__name__}, not a whole number")
    else:
        raise Breach(place, f"is a {type(value).__name__}, not a content of the neutral vocabulary")


def _reasoning(value: Reasoning, place: str) -> None:
    _text(cast(object, value.text), f"{place}.text")
    for name in ("signature", "item_id"):
        _text(getattr(value, name), f"{place}.{name}", optional=True)
    if value.kind not in ("text", "summary", "encrypted"):
        raise Breach(f"{place}.kind", f"is {_shown(value.kind)}, not text, summary or encrypted")
    _json(cast(object, value.data), f"{place}.data", 0)


def _approval(value: ApprovalRequest | ApprovalResponse, place: str) -> None:
    here = f"{place} ({'approval_request' if isinstance(value, ApprovalRequest) else 'approval_response'})"
    _text(cast(object, value.id), f"{here}.id")
    _call(cast(object, value.function_call), f"{here}.function_call")
    if isinstance(value, ApprovalResponse):
        _flag(cast(object, value.approved), f"{here}.approved")
        if value.standing not in (None, "tool", "arguments"):
            raise Breach(f"{here}.standing", f"is {_shown(value.standing)}, not tool, arguments or absent")


def _call(value: object, place: str) -> None:
    if not isinstance(value, FunctionCall):
        raise Breach(place, f"is a {type(value).__name__}, not a FunctionCall")
    _text(cast(object, value.call_id), f"{place}.call_id")
    _text(cast(object, value.name), f"{place}.name")
    arguments = cast(object, value.arguments)
    if isinstance(arguments, Mapping):
        _json(cast(object, arguments), f"{place}.arguments", 0)
    elif not isinstance(arguments, str):
        raise Breach(f"{place}.arguments", f"is a {type(arguments).__name__}, not a mapping or text")
    _flag(cast(object, value.informational_only), f"{place}.informational_only")
    _text(cast(object, value.server_label), f"{place}.server_label", optional=True)
    _text(cast(object, value.occurrence_id), f"{place}.occurrence_id", optional=True)


def _json(value: object, place: str, depth: int) -> None:
    """A JSON value: None, bool, number, text, a list (or tuple) of them, a mapping with text keys of them."""
    if depth > MAX_JSON_DEPTH:
        raise Breach(place, f"nests more than {MAX_JSON_DEPTH} levels deep")
    if value is None or isinstance(value, str | bool | int | float):
        return
    if isinstance(value, list | tuple):
        for index, item in enumerate(cast(Sequence[object], value)):
            _json(item, f"{place}[{index}]", depth + 1)
        return
    if isinstance(value, Mapping):
        for key, item in cast(Mapping[object, object], value).items():
            if not isinstance(key, str):
                raise Breach(place, f"has a key that is a {type(key).__name__}, not text")
            _json(item, f"{place}.{key[:40]}", depth + 1)
        return
    raise Breach(place, f"holds a {type(value).__name__}, which is no JSON value")


def _error(value: RaisedError, place: str) -> None:
    _text(cast(object, value.type_name), f"{place}.type_name")
    _text(cast(object, value.message), f"{place}.message")
    if value.kind not in ("provider", "unknown-tool", "loop"):
        raise Breach(f"{place}.kind", f"is {_shown(value.kind)}, not provider, unknown-tool or loop")


def _transport(value: TransportExchange, place: str) -> None:
    request = cast(object, value.request)
    if not isinstance(request, Mapping):
        raise Breach(f"{place}.request", f"is a {type(request).__name__}, not a mapping")
    _json(cast(object, request), f"{place}.request", 0)
    _sequence(value.events, f"{place}.events", _event)


def _event(value: object, place: str) -> None:
    if not isinstance(value, TransportEvent):
        raise Breach(place, f"is a {type(value).__name__}, not a TransportEvent")
    _text(cast(object, value.type), f"{place}.type")
    fields = cast(object, value.fields)
    if not isinstance(fields, Mapping):
        raise Breach(f"{place}.fields", f"is a {type(fields).__name__}, not a mapping")
    _json(cast(object, fields), f"{place}.fields", 0)


def _shown(value: object) -> str:
    return ascii(value)[:40]
