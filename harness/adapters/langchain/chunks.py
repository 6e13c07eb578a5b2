"""Streamed pieces both ways: the scripted provider's updates as LangChain message chunks (model side), and what
the agent's stream yields as neutral updates (caller side).

LangChain merges tool-call chunks by their `index`, not by id: a fragment that carries a name starts a new call
(the next index), and a fragment without one continues the call before it, the rule `merge_contents` applies to
neutral fragments. Updates of one model call are one `AIMessageChunk` stream, as one model call is one message;
an update of several fragments is one chunk per fragment (`chunks_of`), as a provider's integration streams them.
"""

from __future__ import annotations

import json
from typing import Any, cast

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage

from harness.adapters.langchain.blocks import block_content, reasoning_block, text_block
from harness.adapters.langchain.convert import ai_contents, neutral_messages
from harness.contents import Content, FunctionCall, Reasoning, Text, Update, merge_contents


class CallIndexes:
    """The `index` of each streamed call fragment within one model call."""

    def __init__(self) -> None:
        self._count = 0
        self._current: FunctionCall | None = None

    def index(self, fragment: FunctionCall) -> int:
        current = self._current
        continues = (current is not None and not (fragment.name and current.name)
                     and (not fragment.call_id or not current.call_id or fragment.call_id == current.call_id))
        if not continues:
            self._count += 1
            self._current = fragment
        return self._count - 1


def _argument_text(arguments: object) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments) if arguments else ""


class BlockIndexes:
    """The `index` of each streamed reasoning or text fragment within one model call: a fragment continues the block
    before it when `merge_contents` would join them, else it opens the next one. Once reasoning has streamed, every
    fragment is a block (LangChain merges blocks by index); until then text streams as plain strings."""

    def __init__(self) -> None:
        self._count = 0
        self._current: Content | None = None
        self.blocks = False

    def block(self, fragment: Reasoning | Text) -> dict[str, Any]:
        current = self._current
        merged = merge_contents((current, fragment)) if current is not None else ()
        continues = len(merged) == 1
        self._current = merged[0] if continues else fragment
        if not continues:
            self._count += 1
        index = self._count - 1
        if isinstance(fragment, Text):
            return text_block(fragment, index)
        return reasoning_block(fragment, index, first=not continues)


def chunk_of(update: Update, indexes: CallIndexes, blocks: BlockIndexes | None = None) -> AIMessageChunk:
    """One provider update as the message chunk a LangChain chat model streams (see `chunks_of` for an update of
    several fragments)."""
    blocks = blocks or BlockIndexes()
    blocks.blocks = blocks.blocks or any(isinstance(c, Reasoning) for c in update.contents)
    shown = [c for c in update.contents if isinstance(c, Reasoning | Text)]
    content: Any = ([blocks.block(c) for c in shown] if blocks.blocks
                    else "".join(c.text for c in shown if isinstance(c, Text)))
    calls = [{"id": c.call_id or None, "name": c.name or None, "args": _argument_text(c.arguments),
              "index": indexes.index(c), "type": "tool_call_chunk"}
             for c in update.contents if isinstance(c, FunctionCall) and c.server_label is None]
    metadata: dict[str, Any] = {"finish_reason": update.finish_reason} if update.finish_reason else {}
    return AIMessageChunk(content=content, tool_call_chunks=cast(Any, calls), response_metadata=metadata)


def _streamed(content: Content) -> bool:
    return isinstance(content, Reasoning | Text) or (isinstance(content, FunctionCall) and content.server_label is None)


def chunks_of(update: Update, indexes: CallIndexes, blocks: BlockIndexes | None = None) -> list[AIMessageChunk]:
    """One provider update as message chunks, one per fragment when it holds several (the finish reason on the last).

    A provider's integration streams one delta per chunk, and one chunk cannot hold several fragments faithfully:
    LangChain merges blocks and tool-call chunks of equal `index` only across message chunks (`merge_lists` copies
    the left list as it is), so two fragments of one call or one reasoning item inside one chunk would stay two
    (a call without id or name, a reasoning text out of order); and a chunk keeps its tool-call chunks apart from its
    content, so a call fragment before a reasoning fragment would come after it."""
    streamed = [c for c in update.contents if _streamed(c)]
    if len(streamed) <= 1:
        return [chunk_of(update, indexes, blocks)]
    blocks = blocks or BlockIndexes()
    last = len(streamed) - 1
    return [chunk_of(Update(update.role, (c,), update.message_id, update.finish_reason if i == last else None),
                     indexes, blocks) for i, c in enumerate(streamed)]


class CallerUpdates:
    """The neutral updates a caller reads from the agent's ``messages`` stream, in order.

    A model call's chunks share its message id. Every `ToolMessage` of one tools step (a batch of results) goes
    into one neutral tool message; a complete message another node adds (a rejection's result, a limit's closing
    message) is one update of its own.
    """

    def __init__(self) -> None:
        self.updates: list[Update] = []
        self._tool_batches = 0
        self._opened: dict[tuple[str | None, object], dict[str, Any]] = {}  # a block's opening fragment

    def _chunk_contents(self, chunk: AIMessageChunk) -> tuple[Content, ...]:
        contents: list[Content] = []
        raw = cast(str | list[str | dict[str, Any]], chunk.content)
        for block in [raw] if isinstance(raw, str) else raw:
            opened = None
            if isinstance(block, dict) and "index" in block:
                opened = self._opened.setdefault((chunk.id, block["index"]), block)
            converted = block_content(block, opened)
            if converted is not None and not (isinstance(converted, Text) and not converted.text):
                contents.append(converted)
        contents.extend(FunctionCall(c.get("id") or "", c.get("name") or "", c.get("args") or "")
                        for c in chunk.tool_call_chunks)
        return tuple(contents)

    def add(self, message: BaseMessage) -> None:
        if isinstance(message, AIMessageChunk):
            self.updates.append(Update("assistant", self._chunk_contents(message), message.id))
        elif isinstance(message, ToolMessage):
            if not (self.updates and self.updates[-1].role == "tool"):
                self._tool_batches += 1
            contents = neutral_messages([message])[0].contents
            self.updates.append(Update("tool", contents, f"tools-{self._tool_batches}"))
        elif isinstance(message, AIMessage):
            self.updates.append(Update("assistant", ai_contents(message), message.id))
        else:
            for converted in neutral_messages([message]):
                self.updates.append(Update(converted.role, converted.contents, message.id))
