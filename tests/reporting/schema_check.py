"""A tiny JSON Schema validator for the keywords coverage.schema.json uses.

jsonschema is not a dependency of the project and is not added for one test. Any keyword the schema uses that this
validator does not know is an error, so the schema cannot silently grow beyond what the test really checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

_IGNORED = {"$schema", "$id", "$defs", "title", "description"}
_KNOWN = _IGNORED | {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "$ref",
                     "minimum"}
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,), "null": (type(None),),
    "integer": (int,), "number": (int, float),
}


def validate(instance: Any, schema: Mapping[str, Any]) -> list[str]:
    """Every violation, as `path: problem`; empty when the instance is valid."""
    errors: list[str] = []
    _check(instance, schema, schema, "$", errors)
    return errors


def _is_type(value: Any, name: str) -> bool:
    if name in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[name])


def _check(value: Any, schema: Mapping[str, Any], root: Mapping[str, Any], path: str, errors: list[str]) -> None:
    unknown = set(schema) - _KNOWN
    if unknown:
        errors.append(f"{path}: schema uses unsupported keywords {sorted(unknown)}")
    if "$ref" in schema:
        ref = cast(str, schema["$ref"])
        assert ref.startswith("#/$defs/"), ref
        _check(value, root["$defs"][ref.removeprefix("#/$defs/")], root, path, errors)
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(value, n) for n in cast(list[str], names)):
            errors.append(f"{path}: {value!r:.60} is not of type {names}")
            return
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: {value!r:.60} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r:.60} is not one of {schema['enum']}")
    if "minimum" in schema and isinstance(value, int | float) and not isinstance(value, bool) \
            and value < schema["minimum"]:
        errors.append(f"{path}: {value} < {schema['minimum']}")
    if isinstance(value, dict):
        obj = cast(dict[str, Any], value)
        for name in schema.get("required", []):
            if name not in obj:
                errors.append(f"{path}: missing required {name!r}")
        properties = cast(Mapping[str, Any], schema.get("properties", {}))
        extra = schema.get("additionalProperties", True)
        for name, item in obj.items():
            if name in properties:
                _check(item, properties[name], root, f"{path}.{name}", errors)
            elif extra is False:
                errors.append(f"{path}: unexpected property {name!r}")
            elif isinstance(extra, dict):
                _check(item, cast(Mapping[str, Any], extra), root, f"{path}.{name}", errors)
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(cast(list[Any], value)):
            _check(item, schema["items"], root, f"{path}[{index}]", errors)
