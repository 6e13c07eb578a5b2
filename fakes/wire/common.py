"""What the wire dialects share: routing by URL path, reading JSON bodies (texts, tool names, tool choice, argument
strings), regrouping items into messages, and the pieces of an answer every format carries (usage, OpenAI's error
body)."""

from __future__ import annotations

import functools
import importlib.metadata
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from harness.contents import JSON, Content, FunctionCall, Message, Response, Role, Text, Usage
from harness.script import Rejection


@functools.cache
def openai_http_library() -> str:
    """The HTTP library the installed `openai` SDK is built on, whose client it must be given: httpx2 from its 3.0
    on, httpx before (the releases that older agent-framework-openai releases allow). Raises ImportError when the
    SDK is not installed. Cached: every request asks, and reading the installed version takes milliseconds."""
    try:
        version = importlib.metadata.version("openai")
    except importlib.metadata.PackageNotFoundError as missing:
        raise ImportError("the openai SDK is not installed") from missing
    major = version.split(".", 1)[0]
    return "httpx2" if major.isdigit() and int(major) >= 3 else "httpx"


class ServedPaths:
    """A dialect whose model calls go to the URL paths ending with one of `paths`."""

    paths: tuple[str, ...] = ()

    def serves(self, path: str) -> bool:
        return path.endswith(self.paths)


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


def texts(content: object, text_of: Callable[[Mapping[str, Any]], str | None], *,
          keep_empty: bool = True) -> tuple[Content, ...]:
    """The texts of a message's content: a plain string is one text (an empty one kept only with `keep_empty`); a
    list of parts gives the text `text_of` reads from each part, skipping the parts it reads none from."""
    if isinstance(content, str):
        return (Text(content),) if content or keep_empty else ()
    return tuple(Text(text) for part in as_list(content) if (text := text_of(as_mapping(part))) is not None)


def tool_names(tools: object, names_of: Callable[[Mapping[str, Any]], Iterable[str]]) -> tuple[str, ...]:
    """The names of the tools a request declares, each tool's as `names_of` reads them."""
    return tuple(name for tool in as_list(tools) for name in names_of(as_mapping(tool)))


def tool_choice(choice: object) -> str | None:
    """An OpenAI `tool_choice` in the neutral vocabulary: a mode string as sent; an object is a named function
    (``required``) unless it carries a mode of its own (Responses' allowed tools)."""
    if choice is None or isinstance(choice, str):
        return choice
    mode = as_mapping(choice).get("mode")
    return str(mode) if mode is not None else "required"


def usage_of(response: Response) -> Usage | None:
    """The token usage a scripted answer reports, if any."""
    return next((c for m in response.messages for c in m.contents if isinstance(c, Usage)), None)
