"""Reasoning and text as LangChain content blocks, both ways.

LangChain's standard reasoning block is ``{"type": "reasoning", "reasoning": text, "id": item id, "extras": {...}}``;
the neutral fields it has no key for (the opaque `signature`, a `kind` other than raw text, the provider's `data`)
travel in its `extras`. An `AIMessage` holds its content blocks apart from its tool calls, so reasoning stands before
every call of its message: reasoning between two calls of one response has no place of its own.
"""

from __future__ import annotations

import copy
from typing import Any, cast

from harness.contents import JSON, Content, Reasoning, ReasoningKind, Text

_KINDS: tuple[ReasoningKind, ...] = ("text", "summary", "encrypted")


def reasoning_block(reasoning: Reasoning, index: int | None = None, first: bool = True) -> dict[str, Any]:
    """The block of one reasoning item (or, streaming, of one fragment: `first` says whether it opens the item, and
    only the opening fragment names the item and its extras, since LangChain joins repeated strings when it merges
    chunks)."""
    block: dict[str, Any] = {"type": "reasoning", "reasoning": reasoning.text}
    if index is not None:
        block["index"] = index
    extras: dict[str, Any] = {}
    if reasoning.signature is not None:
        extras["signature"] = reasoning.signature
    if reasoning.data is not None:
        extras["data"] = copy.deepcopy(reasoning.data)
    if first:
        if reasoning.item_id is not None:
            block["id"] = reasoning.item_id
        if reasoning.kind != "text":
            extras["kind"] = reasoning.kind
    if extras:
        block["extras"] = extras
    return block


def text_block(text: Text, index: int | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text.text}
    if index is not None:
        block["index"] = index
    return block


def block_content(block: object, opened: dict[str, Any] | None = None) -> Content | None:
    """The neutral content of one block (None for blocks without one). `opened` is the opening fragment of the
    item a streamed fragment continues, whose id and kind the fragment does not repeat."""
    if isinstance(block, str):
        return Text(block) if block else None
    if not isinstance(block, dict):
        return None
    fields = cast(dict[str, Any], block)
    if fields.get("type") == "text":
        return Text(str(fields.get("text", "")))
    if fields.get("type") != "reasoning":
        return None
    start = opened if opened is not None else fields
    extras = cast(dict[str, Any], fields.get("extras") or {})
    first_extras = cast(dict[str, Any], start.get("extras") or {})
    named = first_extras.get("kind", "text")
    kind: ReasoningKind = "text"
    for known in _KINDS:
        if known == named:
            kind = known
    item_id = start.get("id")
    return Reasoning(str(fields.get("reasoning", "")), extras.get("signature"),
                     str(item_id) if item_id is not None else None, kind,
                     cast(JSON, copy.deepcopy(extras.get("data"))))
