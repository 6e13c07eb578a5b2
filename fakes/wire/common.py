"""What the wire dialects share: reading JSON bodies, argument strings, and regrouping items into messages."""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Iterable, Mapping
from typing import Any, cast

from harness.contents import JSON, Content, FunctionCall, Message, Role
from harness.script import Rejection


def openai_http_library() -> str:
    """The HTTP library the installed `openai` SDK is built on, whose client it must be given: httpx2 from its 3.0
    on, httpx before (the releases that older agent-framework-openai releases allow). Raises ImportError when the
    SDK is not installed."""
    try:
        version = importlib.metadata.version("openai")
    except importlib.metadata.PackageNotFoundError as missing:
        raise ImportError("the openai SDK is not installed") from missing
    major = version.split(".", 1)[0]
    return "httpx2" if major.isdigit() and int(major) >= 3 else "httpx"


def as_mapping(value: object) -> Mapping[str, Any]:
    return cast(Mapping[str, Any], value) if isinstance(value, Mapping) else {}


def as_list(value: object) -> list[Any]:
    return cast(list[Any], value) if isinstance(value, list) else []


def arguments_from_wire(raw: object) -> Mapping[str, JSON] | str:
    """A call's arguments as the wire carries them (a JSON string): an object when it parses as one, else the raw
    text, so a malformed argument string is seen as sent."""
    if isinstance(raw, Mapping):
        return cast(Mapping[str, JSON], raw)
    if not isinstance(raw, str):
        return ""
    try:
        parsed: object = json.loads(raw) if raw else {}
    except ValueError:
        return raw
    return cast(Mapping[str, JSON], parsed) if isinstance(parsed, dict) else raw


def arguments_to_wire(call: FunctionCall) -> str:
    return call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments, separators=(",", ":"))


def result_from_wire(output: object) -> JSON:
    """A tool output as sent: a string stays a string; content parts become their texts."""
    if isinstance(output, str):
        return output
    texts = [str(as_mapping(part).get("text", "")) for part in as_list(output)]
    return texts[0] if len(texts) == 1 else cast(JSON, texts)


def grouped(items: Iterable[Message], merged_roles: frozenset[Role]) -> tuple[Message, ...]:
    """Messages from the wire's items (one message each), adjacent items of a role in `merged_roles` joined.

    A wire format that sends calls and results as separate items (or one tool message per result) does not carry
    the boundaries of the loop's own messages; joining adjacent items of one role is the one reading of it that
    does not depend on which loop wrote it."""
    messages: list[tuple[Role, list[Content]]] = []
    for item in items:
        if messages and messages[-1][0] == item.role and item.role in merged_roles:
            messages[-1][1].extend(item.contents)
        else:
            messages.append((item.role, list(item.contents)))
    return tuple(Message(role, tuple(contents)) for role, contents in messages)


def openai_error_body(rejection: Rejection) -> dict[str, Any]:
    """The error body both OpenAI APIs send for a request they refuse."""
    return {"error": {"message": rejection.message, "type": "invalid_request_error", "param": rejection.param,
                      "code": None}}
