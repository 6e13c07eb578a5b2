"""Conversion between the neutral vocabulary and the OpenAI Agents SDK's Responses-style items, both ways.

The SDK keeps a conversation as a flat list of items — messages, `function_call`, `function_call_output`,
`reasoning` — where the neutral vocabulary has messages holding contents. Two rules bridge them:

* Every assistant-side item the adapter creates (from a scripted model answer or from the caller's history) gets
  an item id ``lc-<group>-<n>``, where the group names the neutral message it came from. The SDK carries item ids
  through unchanged, so items are regrouped into the same messages on the way back; items the SDK creates itself
  (tool outputs, approval interruptions) carry no group and join the message before them when the role matches.
* Approval requests and responses, user-input requests and usage have no SDK input-item form: local approvals
  live in the SDK's `RunState`, never in its input. They are kept aside when the caller's messages become items,
  and put back in place when those items are re-read after a turn.

Reasoning is a Responses reasoning item: its text is in ``content`` (``reasoning_text`` parts) or, for a summary,
in ``summary`` (``summary_text`` parts); ``encrypted_content`` holds the signature, as the SDK's own converters
store a signed thinking block, or an encrypted item's whole payload. A reasoning item with an id of its own keeps
it, so it carries no group and joins the message before it. A tool output is reported with
the string the model sees: the Responses API has no error flag on `function_call_output`, so results never carry
one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from agents import ToolApprovalItem
from agents.items import RunItem, TResponseInputItem

from harness.contents import (
    JSON,
    ApprovalRequest,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Role,
    Text,
    parse_arguments,
)

ITEM_ID_PREFIX = "lc-"
_ROLES: dict[str, Role] = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}
_TEXT_PARTS = ("input_text", "output_text", "text", "reasoning_text", "summary_text")


@dataclass(frozen=True)
class Entry:
    """One neutral content with the role it belongs to and the group of the neutral message it came from."""

    role: Role
    content: Content
    group: str | None = None


def item_id(group: str, position: int) -> str:
    """The id of the `position`-th item made from the neutral message named `group`."""
    return f"{ITEM_ID_PREFIX}{group}-{position}"


def group_of(raw_id: object) -> str | None:
    """The neutral message an item came from, or ``None`` for an item the adapter did not make."""
    if not isinstance(raw_id, str) or not raw_id.startswith(ITEM_ID_PREFIX):
        return None
    return raw_id[len(ITEM_ID_PREFIX):].rsplit("-", 1)[0]


def as_mapping(item: object) -> Mapping[str, Any]:
    """An input or output item as a mapping, whether the SDK holds it as a dict or as an openai model."""
    if isinstance(item, Mapping):
        return cast(Mapping[str, Any], item)
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return cast(Mapping[str, Any], dump(exclude_none=True))
    return {}


def arguments_json(call: FunctionCall) -> str:
    return call.arguments if isinstance(call.arguments, str) else json.dumps(dict(call.arguments))


def result_text(result: JSON) -> str:
    return result if isinstance(result, str) else json.dumps(result)


def _text_of(parts: object) -> str:
    if isinstance(parts, str):
        return parts
    return "".join(str(part.get("text", "")) for part in _mappings(parts) if part.get("type") in _TEXT_PARTS)


def _mappings(value: object) -> list[Mapping[str, Any]]:
    if not isinstance(value, list):
        return []
    return [as_mapping(part) for part in cast(list[object], value)]


# --- SDK items -> neutral ---------------------------------------------------------------------------------------


def item_entries(item: object, position: int = 0) -> list[Entry]:
    """One input item (or an output item as the SDK replays it) as neutral entries.

    `position` keeps user and system messages apart: each such item is a message of its own.
    """
    data = as_mapping(item)
    kind = data.get("type") or ("message" if "role" in data else None)
    group = group_of(data.get("id"))
    if kind == "message":
        return _message_entries(data, position, group)
    if kind == "function_call":
        call = FunctionCall(str(data.get("call_id", "")), str(data.get("name", "")),
                            parse_arguments(data.get("arguments")))
        return [Entry("assistant", call, group)]
    if kind == "function_call_output":
        return [Entry("tool", FunctionResult(str(data.get("call_id", "")), _output_value(data.get("output"))), group)]
    if kind == "reasoning":
        return [Entry("assistant", reasoning_of(data), group)]
    return [Entry("assistant", Text(f"[unsupported {kind} item]"), group)]


def reasoning_of(data: Mapping[str, Any]) -> Reasoning:
    """A reasoning item as neutral reasoning: its own id (not one the adapter made), its kind — ``summary`` when it
    has summary text, ``text`` when it has reasoning text, ``encrypted`` when it has neither, only an
    ``encrypted_content`` (the payload then travels as the item's data) — and ``encrypted_content`` as the
    signature of a reasoning with text."""
    raw_id = data.get("id")
    own_id = str(raw_id) if raw_id and group_of(raw_id) is None else None
    summary, text = _text_of(data.get("summary")), _text_of(data.get("content"))
    encrypted = str(data["encrypted_content"]) if data.get("encrypted_content") else None
    if summary:
        return Reasoning(summary, encrypted, own_id, "summary")
    if text or encrypted is None:
        return Reasoning(text, encrypted, own_id)
    return Reasoning("", None, own_id, "encrypted", {"encrypted_content": encrypted})


def reasoning_item(content: Reasoning, identifier: str) -> dict[str, Any]:
    """The Responses reasoning item of a neutral reasoning: its kind decides where the text goes; its signature, or
    the ``encrypted_content`` of its data, is the item's ``encrypted_content``."""
    parts = [{"type": "reasoning_text", "text": content.text}] if content.kind == "text" else []
    summary = [{"type": "summary_text", "text": content.text}] if content.kind == "summary" else []
    item: dict[str, Any] = {"type": "reasoning", "id": content.item_id or identifier, "summary": summary,
                            "content": parts}
    encrypted = content.signature or encrypted_payload(content)
    if encrypted is not None:
        item["encrypted_content"] = encrypted
    return item


def encrypted_payload(content: Reasoning) -> str | None:
    """The ``encrypted_content`` a reasoning's data carries: the only opaque payload a Responses item has."""
    if content.data is None:
        return None
    payload: Mapping[str, JSON] = cast(Mapping[str, JSON], content.data) if isinstance(content.data, Mapping) else {}
    value = payload.get("encrypted_content")
    if set(payload) != {"encrypted_content"} or not isinstance(value, str):
        raise ValueError(f"a Responses reasoning item carries only an encrypted_content string, not {content.data!r}")
    return value


def _message_entries(data: Mapping[str, Any], position: int, group: str | None) -> list[Entry]:
    role = _ROLES.get(str(data.get("role")), "assistant")
    content = data.get("content")
    texts = [content] if isinstance(content, str) else [_part_text(part) for part in _mappings(content)]
    own = group if role == "assistant" else f"#{position}"
    return [Entry(role, Text(text), own) for text in texts]


def _part_text(part: Mapping[str, Any]) -> str:
    if "text" in part:
        return str(part["text"])
    if "refusal" in part:
        return str(part["refusal"])
    return f"[unsupported {part.get('type')} part]"


def _output_value(output: object) -> JSON:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return _text_of(cast(list[object], output))
    return cast(JSON, output)


def group_entries(entries: Iterable[Entry]) -> tuple[Message, ...]:
    """Neutral messages from entries: a message runs while the role stays and no other group starts."""
    messages: list[tuple[Role, str | None, list[Content]]] = []
    for entry in entries:
        if messages and _continues(messages[-1][0], messages[-1][1], entry):
            role, group, contents = messages[-1]
            contents.append(entry.content)
            messages[-1] = (role, group or entry.group, contents)
        else:
            messages.append((entry.role, entry.group, [entry.content]))
    return tuple(Message(role, tuple(contents)) for role, _, contents in messages)


def _continues(role: Role, group: str | None, entry: Entry) -> bool:
    if entry.role != role:
        return False
    if role in ("user", "system"):
        return entry.group == group
    return entry.group is None or group is None or entry.group == group


def messages_from_items(items: str | Sequence[object], instructions: str | None = None) -> tuple[Message, ...]:
    """The history a model call received, as neutral messages: the agent's instructions first, if any."""
    system = [Message("system", (Text(instructions),))] if instructions else []
    if isinstance(items, str):
        return (*system, Message("user", (Text(items),)))
    entries = [entry for position, item in enumerate(items) for entry in item_entries(item, position)]
    return (*system, *group_entries(entries))


def run_item_entries(item: RunItem, approval_id: Callable[[ToolApprovalItem], str]) -> list[Entry]:
    """One item of a run result as neutral entries; an approval interruption becomes an approval request."""
    if isinstance(item, ToolApprovalItem):
        data = as_mapping(item.raw_item)
        call = FunctionCall(str(item.call_id or ""), str(item.name or ""), parse_arguments(data.get("arguments")))
        return [Entry("assistant", ApprovalRequest(approval_id(item), call))]
    return item_entries(item.to_input_item())


def messages_from_run_items(items: Sequence[RunItem],
                            approval_id: Callable[[ToolApprovalItem], str]) -> tuple[Message, ...]:
    return group_entries(entry for item in items for entry in run_item_entries(item, approval_id))


# --- neutral -> SDK input items ---------------------------------------------------------------------------------


Piece = dict[str, Any] | Content  # an input item handed to the SDK, or a content kept aside


@dataclass
class CallerInput:
    """The caller's messages as the SDK input items it hands to `Runner.run`, re-readable after the turn.

    Each message becomes pieces in order: input items, or contents that have no SDK input form (kept aside).
    """

    messages: tuple[Message, ...]
    turn: int
    pieces: list[list[Piece]] = field(default_factory=lambda: [])

    def __post_init__(self) -> None:
        self.pieces = [message_pieces(message, f"t{self.turn}i{index}") for index, message in
                       enumerate(self.messages)]

    @property
    def items(self) -> list[TResponseInputItem]:
        return [cast(TResponseInputItem, piece) for pieces in self.pieces for piece in pieces
                if isinstance(piece, dict)]

    def reread(self) -> tuple[Message, ...]:
        """The caller's messages as its input items hold them now (kept-aside contents where they were)."""
        return tuple(Message(message.role, tuple(_reread(pieces))) for message, pieces in
                     zip(self.messages, self.pieces, strict=True))


def _reread(pieces: Sequence[Piece]) -> list[Content]:
    contents: list[Content] = []
    for piece in pieces:
        if isinstance(piece, dict):
            contents.extend(entry.content for entry in item_entries(piece))
        else:
            contents.append(piece)
    return contents


def message_pieces(message: Message, group: str) -> list[Piece]:
    """One neutral message as input items; runs of text make one message item."""
    pieces: list[Piece] = []
    texts: list[str] = []
    for content in message.contents:
        if isinstance(content, Text) and message.role != "tool":
            texts.append(content.text)
            continue
        if texts:
            pieces.append(_text_item(message.role, texts, item_id(group, len(pieces))))
            texts = []
        pieces.append(content_item(content, item_id(group, len(pieces))) or content)
    if texts:
        pieces.append(_text_item(message.role, texts, item_id(group, len(pieces))))
    return pieces


def _text_item(role: Role, texts: list[str], identifier: str) -> dict[str, Any]:
    if role == "assistant":
        parts: list[dict[str, Any]] = [{"type": "output_text", "text": text, "annotations": []} for text in texts]
        return {"type": "message", "role": "assistant", "id": identifier, "status": "completed", "content": parts}
    if len(texts) == 1:
        return {"role": role, "content": texts[0]}
    return {"role": role, "content": [{"type": "input_text", "text": text} for text in texts]}


def content_item(content: Content, identifier: str) -> dict[str, Any] | None:
    """The input item of one non-text content, or ``None`` when the SDK has no input form for it."""
    if isinstance(content, FunctionCall) and content.server_label is None:
        return {"type": "function_call", "id": identifier, "call_id": content.call_id, "name": content.name,
                "arguments": arguments_json(content)}
    if isinstance(content, FunctionResult):
        return {"type": "function_call_output", "id": identifier, "call_id": content.call_id,
                "output": result_text(content.result)}
    if isinstance(content, Reasoning):
        return reasoning_item(content, identifier)
    return None
