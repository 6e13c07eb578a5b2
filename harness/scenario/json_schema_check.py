"""Checking a tool's `parameters` against the JSON Schema meta-schema (draft 2020-12), structurally.

A tool's schema goes to every implementation and into checks that read it (`type`, `required`, `properties`); one
that is no schema (`type: true`, `required: 5`) would crash a check long after loading and be reported as a harness
bug. Here it is a located scenario error instead.

The meta-schema's constraints are few and structural (which keywords hold a schema, a list of schemas, a map of
schemas, a whole number, a list of unique names), so they are written out here rather than adding the
`jsonschema` package for one check: the keyword table below follows the 2020-12 meta-schema's vocabularies
(core, applicator, validation, meta-data, format-annotation, content, unevaluated). Unknown keywords are allowed,
as the meta-schema allows them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import cast

from harness.scenario.yaml_source import DataPath

SIMPLE_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")

_SCHEMA = ("additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else",
           "unevaluatedItems", "unevaluatedProperties", "contentSchema")
_SCHEMA_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_COUNT = ("maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties",
          "minProperties")
_NUMBER = ("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum")
_TEXT = ("format", "title", "description", "$comment", "$id", "$schema", "$anchor", "$ref", "$dynamicRef",
         "$dynamicAnchor", "contentEncoding", "contentMediaType", "pattern")
_FLAG = ("uniqueItems", "deprecated", "readOnly", "writeOnly")
_LIST = ("enum", "examples")


def json_schema_problems(schema: object, path: DataPath = ()) -> Iterator[tuple[DataPath, str]]:
    """(place, what is wrong) for each way `schema` is not a JSON Schema; nothing for a valid one."""
    if isinstance(schema, bool):
        return
    if not isinstance(schema, Mapping):
        yield path, f"a schema is a mapping (or true or false), not {_kind(schema)}"
        return
    for key, value in cast(Mapping[object, object], schema).items():
        if not isinstance(key, str):
            yield path, f"a schema's keys are text, not {_kind(key)}"
            continue
        yield from _keyword_problems(key, value, (*path, key))


def _keyword_problems(key: str, value: object, path: DataPath) -> Iterator[tuple[DataPath, str]]:
    if key in _SCHEMA:
        yield from json_schema_problems(value, path)
    elif key in _SCHEMA_LIST:
        if not isinstance(value, list) or not value:
            yield path, f"'{key}' is a non-empty list of schemas, not {_kind(cast(object, value))}"
            return
        for index, item in enumerate(cast(list[object], value)):
            yield from json_schema_problems(item, (*path, index))
    elif key in _SCHEMA_MAP:
        if not isinstance(value, Mapping):
            yield path, f"'{key}' maps names to schemas; it is not a mapping but {_kind(value)}"
            return
        for name, item in cast(Mapping[object, object], value).items():
            yield from json_schema_problems(item, (*path, cast(str, name)))
    elif key == "type":
        yield from _type_problems(value, path)
    elif key == "required":
        yield from _names_problems(key, value, path)
    elif key == "dependentRequired":
        if not isinstance(value, Mapping):
            yield path, f"'dependentRequired' maps names to lists of names, not {_kind(value)}"
            return
        for name, names in cast(Mapping[object, object], value).items():
            yield from _names_problems(key, names, (*path, cast(str, name)))
    else:
        yield from _scalar_problems(key, value, path)


def _scalar_problems(key: str, value: object, path: DataPath) -> Iterator[tuple[DataPath, str]]:
    if key in _COUNT and not _whole(value, least=0):
        yield path, f"'{key}' is a whole number of at least 0, not {_kind(value)}"
    elif key in _NUMBER and not _number(value):
        yield path, f"'{key}' is a number, not {_kind(value)}"
    elif key == "multipleOf" and not (_number(value) and cast(float, value) > 0):
        yield path, f"'multipleOf' is a number greater than 0, not {_kind(value)}"
    elif key in _TEXT and not isinstance(value, str):
        yield path, f"'{key}' is text, not {_kind(value)}"
    elif key in _FLAG and not isinstance(value, bool):
        yield path, f"'{key}' is true or false, not {_kind(value)}"
    elif key in _LIST and not isinstance(value, list):
        yield path, f"'{key}' is a list, not {_kind(value)}"
    elif key == "$vocabulary" and not (isinstance(value, Mapping) and all(
            isinstance(flag, bool) for flag in cast(Mapping[object, object], value).values())):
        yield path, "'$vocabulary' maps URIs to true or false"


def _type_problems(value: object, path: DataPath) -> Iterator[tuple[DataPath, str]]:
    names = cast(list[object], value) if isinstance(value, list) else [value]
    if isinstance(value, list) and not value:
        yield path, "'type' lists at least one type"
    for item in names:
        if not isinstance(item, str) or item not in SIMPLE_TYPES:
            yield path, f"'type' is one of {', '.join(SIMPLE_TYPES)} (or a list of them), not {_kind(item)}"
            return
    if len(set(cast(list[str], names))) != len(names):
        yield path, "'type' lists each type once"


def _names_problems(key: str, value: object, path: DataPath) -> Iterator[tuple[DataPath, str]]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in cast(list[object], value)):
        yield path, f"'{key}' is a list of property names (text), not {_kind(cast(object, value))}"
    elif len(set(cast(list[str], value))) != len(cast(list[str], value)):
        yield path, f"'{key}' names each property once"


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _whole(value: object, *, least: int) -> bool:
    if not _number(value):
        return False
    number = cast(float, value)
    return float(number).is_integer() and number >= least


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return f"'{str(value).lower()}'"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text '{value[:40]}'"
    if value is None:
        return "null"
    return "a list" if isinstance(value, list) else "a mapping" if isinstance(value, Mapping) else type(value).__name__
