"""Tools declared as users declare them: a Python signature (names, types, defaults) instead of a JSON schema.

A scenario tool may give `signature:`; adapters then build a real Python function with that signature, the way a
user writes one, and hand it to their loop (a framework derives its own argument model from it). The function's
body records the arguments it was called with after Python's own binding, so defaults and `None` show in the
executions exactly as the user's function would see them. Loops that take a JSON schema get the one the signature
implies.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, cast

from harness.contents import JSON
from harness.script import ToolParameter

# The annotation each signature type stands for, and the JSON schema a loop taking schemas gets for it.
_TYPES: dict[str, tuple[Any, dict[str, JSON]]] = {
    "str": (str, {"type": "string"}),
    "int": (int, {"type": "integer"}),
    "float": (float, {"type": "number"}),
    "bool": (bool, {"type": "boolean"}),
    "list[str]": (list[str], {"type": "array", "items": {"type": "string"}}),
    "list[int]": (list[int], {"type": "array", "items": {"type": "integer"}}),
    "dict": (dict[str, Any], {"type": "object"}),
}
SIGNATURE_TYPES = tuple(_TYPES) + tuple(f"{name} | None" for name in _TYPES)


def _split(type_text: str) -> tuple[str, bool]:
    """The base type of a signature type, and whether it admits None."""
    parts = [part.strip() for part in type_text.split("|")]
    nullable = "None" in parts
    base = [part for part in parts if part != "None"]
    if len(base) != 1 or base[0] not in _TYPES:
        raise ValueError(f"unsupported parameter type {type_text!r}; use one of {', '.join(SIGNATURE_TYPES)}")
    return base[0], nullable


def annotation(type_text: str) -> Any:
    base, nullable = _split(type_text)
    python_type = _TYPES[base][0]
    return python_type | None if nullable else python_type


def json_schema(parameters: Sequence[ToolParameter]) -> dict[str, JSON]:
    properties: dict[str, JSON] = {}
    for parameter in parameters:
        base, nullable = _split(parameter.type)
        schema = dict(_TYPES[base][1])
        properties[parameter.name] = {"anyOf": [schema, {"type": "null"}]} if nullable else schema
        if parameter.has_default:
            properties[parameter.name] = {**properties[parameter.name], "default": parameter.default}  # type: ignore[dict-item]
    required: list[JSON] = [p.name for p in parameters if not p.has_default]
    return {"type": "object", "properties": properties, "required": required}


def python_signature(parameters: Sequence[ToolParameter]) -> inspect.Signature:
    return inspect.Signature([
        inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation(p.type),
                          default=p.default if p.has_default else inspect.Parameter.empty)
        for p in parameters
    ])


def bind(parameters: Sequence[ToolParameter], arguments: Mapping[str, JSON]) -> dict[str, JSON]:
    """The arguments as the user's function receives them: Python binds them and fills in the defaults. Raises
    `TypeError` for a missing or unknown argument, as the call itself would."""
    bound = python_signature(parameters).bind(**arguments)
    bound.apply_defaults()
    return dict(bound.arguments)


def as_received(parameters: Sequence[ToolParameter] | None, arguments: Any) -> Any:
    """A call's arguments as the tool's function receives them (defaults filled in), for matching an execution to
    the call it ran for; unchanged for a schema-declared tool or arguments that do not bind."""
    if parameters is None or not isinstance(arguments, Mapping):
        return arguments
    given = cast(Mapping[str, JSON], arguments)
    try:
        return bind(parameters, given)
    except TypeError:
        return given


def python_function(name: str, parameters: Sequence[ToolParameter], body: Callable[..., Awaitable[Any]], *,
                    injected: Mapping[str, Any] | None = None) -> Callable[..., Awaitable[Any]]:
    """An async function named `name` with the declared signature; it calls `body` with its bound arguments.

    `injected` adds keyword-only parameters the loop fills in itself rather than the model, each name with the
    annotation that asks for it (LangChain's ``Annotated[str, InjectedToolCallId]`` carries the call id): they
    stay out of the declared signature's binding and reach `body` as keyword arguments, ``body(arguments,
    **injected_values)``, so a tool body can learn the call id its loop runs it for.
    """
    extra = dict(injected or {})
    clash = sorted(set(extra) & {p.name for p in parameters})
    if clash:
        raise ValueError(f"injected parameter {clash[0]!r} is also a declared parameter of {name!r}")

    async def function(**arguments: Any) -> Any:
        values = {key: arguments.pop(key) for key in extra if key in arguments}
        return await body(bind(parameters, arguments), **values)

    declared = python_signature(parameters)
    added = [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, annotation=hint) for key, hint in extra.items()]
    function.__name__ = function.__qualname__ = name
    function.__signature__ = declared.replace(parameters=[*declared.parameters.values(), *added])  # type: ignore[attr-defined]
    function.__annotations__ = {p.name: annotation(p.type) for p in parameters} | extra | {"return": Any}
    return function
