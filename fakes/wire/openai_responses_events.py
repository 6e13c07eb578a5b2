"""The Responses API's streaming events for one scripted answer, in the order the service sends them.

`response.created` and `response.in_progress` open the stream; each output item is announced
(`response.output_item.added`), its text, reasoning or arguments streamed as deltas in the script's own chunking,
then closed (`response.output_item.done`, carrying the whole item: a reasoning item's `encrypted_content` comes only
here); `response.completed` ends it with the whole response.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from fakes.wire.common import arguments_to_wire
from harness.contents import FunctionCall, Reasoning, Text, Update

Body = Callable[[list[dict[str, Any]], str], dict[str, Any]]  # the response body for an output and a status


def stream_events(updates: Sequence[Update], output: list[dict[str, Any]], body: Body) -> list[dict[str, Any]]:
    """Every event of the stream, numbered; `output` is the response's items (function call arguments are set to
    their streamed text where the script chunks them, so deltas and the final item agree)."""
    chunks = _chunks_per_item(updates, output)
    for item, pieces in zip(output, chunks, strict=True):
        if item["type"] == "function_call" and "".join(pieces) and _same_arguments("".join(pieces),
                                                                                  str(item["arguments"])):
            item["arguments"] = "".join(pieces)
    events: list[dict[str, Any]] = [{"type": "response.created", "response": body([], "in_progress")},
                                    {"type": "response.in_progress", "response": body([], "in_progress")}]
    for index, item in enumerate(output):
        events.extend(_item_events(index, item, chunks[index]))
    events.append({"type": "response.completed", "response": body(output, "completed")})
    return [{**event, "sequence_number": number} for number, event in enumerate(events)]


def _same_arguments(streamed: str, rendered: str) -> bool:
    try:
        return bool(json.loads(streamed or "{}") == json.loads(rendered or "{}"))
    except ValueError:
        return streamed == rendered


def _chunks_per_item(updates: Sequence[Update], output: list[dict[str, Any]]) -> list[list[str]]:
    """The streamed pieces of each output item's text or arguments, in the script's own chunking.

    The script's updates fold into its response, whose items `output` renders in the same order; each text,
    reasoning or call chunk belongs to the item of its kind that is current when it arrives."""
    chunks: list[list[str]] = [[] for _ in output]
    index = -1

    def advance(kind: str, new: bool) -> int:
        nonlocal index
        if not new and 0 <= index < len(output) and output[index]["type"] == kind:
            return index
        following = next((i for i in range(index + 1, len(output)) if output[i]["type"] == kind), None)
        index = following if following is not None else index
        return index

    for update in updates:
        for content in update.contents:
            if isinstance(content, Text):
                at = advance("message", False)
                if at >= 0 and output[at]["type"] == "message":
                    chunks[at].append(content.text)
            elif isinstance(content, Reasoning):
                at = advance("reasoning", bool(content.item_id) and (
                    index < 0 or output[index].get("id") != content.item_id))
                if at >= 0 and output[at]["type"] == "reasoning":
                    chunks[at].append(content.text)
            elif isinstance(content, FunctionCall) and not content.server_label:
                at = advance("function_call", bool(content.call_id))
                if at >= 0 and output[at]["type"] == "function_call":
                    chunks[at].append(arguments_to_wire(content) if content.arguments != {} else "")
    return chunks


def _pieces(chunks: list[str], whole: str) -> list[str]:
    """The script's chunks when they add up to the item's text, else the text in one delta."""
    return [c for c in chunks if c] if "".join(chunks) == whole else [whole]


def _item_events(index: int, item: dict[str, Any], chunks: list[str]) -> list[dict[str, Any]]:
    kind = item["type"]
    events: list[dict[str, Any]] = []
    if kind == "message":
        events.append({"type": "response.output_item.added", "output_index": index,
                       "item": {**item, "status": "in_progress", "content": []}})
        for part_index, part in enumerate(item["content"]):
            events.extend(_text_part_events(index, str(item["id"]), part_index, str(part["text"]), chunks))
    elif kind == "function_call":
        arguments = str(item["arguments"])
        events.append({"type": "response.output_item.added", "output_index": index,
                       "item": {**item, "arguments": "", "status": "in_progress"}})
        events.extend({"type": "response.function_call_arguments.delta", "item_id": item["id"],
                       "output_index": index, "delta": piece} for piece in _pieces(chunks, arguments))
        events.append({"type": "response.function_call_arguments.done", "item_id": item["id"],
                       "output_index": index, "arguments": arguments})
    elif kind == "reasoning":
        events.append({"type": "response.output_item.added", "output_index": index,
                       "item": {"type": "reasoning", "id": item["id"], "summary": []}})
        events.extend(_reasoning_events(index, item, chunks))
    elif kind == "mcp_call":
        # A hosted call runs on the service while it streams: its output comes with the finished item.
        at = {"item_id": item["id"], "output_index": index}
        events.append({"type": "response.output_item.added", "output_index": index,
                       "item": {**item, "output": None, "status": "in_progress"}})
        events.append({"type": "response.mcp_call.in_progress", **at})
        events.append({"type": "response.mcp_call_arguments.done", **at, "arguments": item["arguments"]})
        events.append({"type": "response.mcp_call.completed", **at})
    else:
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
    events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    return events


def _text_part_events(index: int, item_id: str, part_index: int, text: str, chunks: list[str]) -> list[dict[str, Any]]:
    at: dict[str, Any] = {"item_id": item_id, "output_index": index, "content_index": part_index}
    empty: dict[str, Any] = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    return [{"type": "response.content_part.added", **at, "part": empty},
            *({"type": "response.output_text.delta", **at, "delta": piece, "logprobs": []}
              for piece in _pieces(chunks, text)),
            {"type": "response.output_text.done", **at, "text": text, "logprobs": []},
            {"type": "response.content_part.done", **at, "part": {**empty, "text": text}}]


def _reasoning_events(index: int, item: dict[str, Any], chunks: list[str]) -> list[dict[str, Any]]:
    """A summary streams as summary parts, raw reasoning as reasoning-text content parts."""
    at: dict[str, Any] = {"item_id": item["id"], "output_index": index}
    events: list[dict[str, Any]] = []
    for summary_index, part in enumerate(item["summary"]):
        text = str(part["text"])
        place = {**at, "summary_index": summary_index}
        events.append({"type": "response.reasoning_summary_part.added", **place,
                       "part": {"type": "summary_text", "text": ""}})
        events.extend({"type": "response.reasoning_summary_text.delta", **place, "delta": piece}
                      for piece in _pieces(chunks, text))
        events.append({"type": "response.reasoning_summary_text.done", **place, "text": text})
        events.append({"type": "response.reasoning_summary_part.done", **place,
                       "part": {"type": "summary_text", "text": text}})
    for content_index, part in enumerate(item.get("content") or []):
        text = str(part["text"])
        place = {**at, "content_index": content_index}
        events.append({"type": "response.content_part.added", **place,
                       "part": {"type": "reasoning_text", "text": ""}})
        events.extend({"type": "response.reasoning_text.delta", **place, "delta": piece}
                      for piece in _pieces(chunks, text))
        events.append({"type": "response.reasoning_text.done", **place, "text": text})
        events.append({"type": "response.content_part.done", **place,
                       "part": {"type": "reasoning_text", "text": text}})
    return events
