"""The scenario-format reference, read off the JSON Schema `loop-conformance schema` prints.

One section per object of the schema (the top-level scenario first, then each definition by name) with a table of
its keys: type, whether it is required, its default and its description. Types link to the section of the object
they hold, so the page reads like the format itself.
"""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

from markdown_text import cell, code, table

import harness.cli

TOP = "Scenario"


def schema() -> dict[str, Any]:
    """The JSON Schema exactly as `loop-conformance schema` prints it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = harness.cli.main(["schema"])
    if status not in (0, None):
        raise RuntimeError(f"loop-conformance schema exited {status}")
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


def _anchor(name: str) -> str:
    return name.lower()


def type_text(node: dict[str, Any]) -> str:
    """A JSON Schema node as a short type expression, with links to the objects it refers to."""
    if "$ref" in node:
        name = str(node["$ref"]).rsplit("/", 1)[-1]
        return f"[{name}](#{_anchor(name)})"
    if "const" in node:
        return code(json.dumps(node["const"]))
    if "enum" in node:
        return " \\| ".join(code(json.dumps(value) if not isinstance(value, str) else value) for value in node["enum"])
    for combinator in ("anyOf", "oneOf", "allOf"):
        if combinator in node:
            joiner = " & " if combinator == "allOf" else " \\| "
            return joiner.join(type_text(option) for option in node[combinator])
    kind = node.get("type")
    if isinstance(kind, list):
        return " \\| ".join(type_text({**node, "type": one}) for one in kind)  # pyright: ignore[reportUnknownVariableType]
    if kind == "array":
        items = node.get("items")
        return f"list of {type_text(items)}" if isinstance(items, dict) else "list"
    if kind == "object":
        values = node.get("additionalProperties")
        if isinstance(values, dict) and values:
            return f"mapping of {type_text(values)}"  # pyright: ignore[reportUnknownArgumentType]
        return "mapping"
    if isinstance(kind, str):
        return kind
    return "any"


def _constraints(node: dict[str, Any]) -> str:
    words = {"minItems": "at least {} item(s)", "maxItems": "at most {} item(s)",
             "minLength": "at least {} character(s)", "minimum": "≥ {}", "maximum": "≤ {}",
             "exclusiveMinimum": "> {}", "pattern": "matches {}"}
    found = [template.format(code(node[key]) if key == "pattern" else node[key])
             for key, template in words.items() if key in node]
    return "; ".join(found)


def _row(name: str, node: dict[str, Any], required: bool) -> list[str]:
    default = code(json.dumps(node["default"])) if "default" in node and node["default"] not in (None, [], {}) else ""
    notes = " ".join(part for part in (node.get("description", ""), _constraints(node)) if part)
    return [code(name), type_text(node), "yes" if required else "", default, cell(notes)]


def object_section(name: str, node: dict[str, Any]) -> str:
    heading = f"### {name}\n"
    description = f"\n{node['description']}\n" if node.get("description") else ""
    properties: dict[str, Any] = node.get("properties", {})
    if not properties:
        return f"{heading}{description}\nType: {type_text(node)}\n"
    required = set(node.get("required", []))
    rows = [_row(key, value, key in required) for key, value in properties.items()]
    closed = "\nUnknown keys are errors.\n" if node.get("additionalProperties") is False else ""
    return f"{heading}{description}\n" + table(["key", "type", "required", "default", "notes"], rows) + closed


def schema_reference() -> str:
    """The generated part of the scenario-schema page."""
    document = schema()
    definitions: dict[str, Any] = document.get("$defs", {})
    identity = f"Schema id: {code(document['$id'])}\n\n" if "$id" in document else ""
    top = {key: value for key, value in document.items() if key != "$defs"}
    sections = [object_section(TOP, top)] + [object_section(key, definitions[key]) for key in sorted(definitions)]
    return identity + "\n".join(sections)


# The baseline files' formats, each read off the pydantic model that loads it: (heading, file, module, model).
BASELINE_MODELS: tuple[tuple[str, str, str, str], ...] = (
    ("known_failures", "baselines/known-failures.yaml (and any run --baseline / gate --baseline file)",
     "harness.reporting.baseline", "KnownFailure"),
    ("check_failures", "any gate --baseline file", "harness.reporting.gate", "CheckBaselineEntry"),
    ("allowances", "baselines/fuzz-allowances.yaml", "harness.fuzz.allowances", "Allowance"),
    ("design_differences", "baselines/design-differences.yaml", "harness.reporting.design", "DesignDifference"),
)


def baseline_formats_reference() -> str:
    """One table per baseline entry format, from the model its loader validates entries with."""
    import importlib

    sections: list[str] = []
    for key, where, module_name, model_name in BASELINE_MODELS:
        try:
            model = getattr(importlib.import_module(module_name), model_name)
        except (ImportError, AttributeError):  # a format this release of the harness does not have yet
            continue
        document: dict[str, Any] = model.model_json_schema()
        document.pop("title", None)
        section = object_section(f"`{key}:` entries", document).replace("\n", f"\n\nIn {code(where)}.\n", 1)
        sections.append(section.replace("### ", "## ", 1))
    return "\n".join(sections)
