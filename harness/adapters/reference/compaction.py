"""Compaction by groups: the model gets only the most recent groups of the history, and a group is never split.

A group is what must travel together or not at all: a call and its result (with everything between them, when the
result is not adjacent), the reasoning the call was made after, and a message whose call is answered inside it.
Results pair with calls by id, each with the latest earlier call of that id still unanswered, so reused ids pair
round by round; a result no call explains is a group of its own (it is never guessed onto another call).
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.contents import FunctionCall, FunctionResult, Message, Reasoning


def groups(messages: Sequence[Message]) -> list[range]:
    """The history's groups, in order, as ranges of message positions."""
    spans = [range(index, index + 1) for index in range(len(messages))]
    unanswered: list[tuple[str, int]] = []
    for index, message in enumerate(messages):
        for content in message.contents:
            if isinstance(content, FunctionResult):
                opener = next((at for call_id, at in reversed(unanswered) if call_id == content.call_id), None)
                if opener is not None:
                    unanswered.remove((content.call_id, opener))
                    spans.append(range(opener, index + 1))
            elif isinstance(content, FunctionCall):
                unanswered.append((content.call_id, index))
        if index and _calls(message) and _reasoning_only(messages[index - 1]):
            spans.append(range(index - 1, index + 1))
    return _merged(spans)


def keep_last_groups(messages: Sequence[Message], count: int) -> list[Message]:
    """System messages, and the last `count` other groups."""
    found = groups(messages)
    others = [g for g in found if any(messages[i].role != "system" for i in g)]
    kept = {i for g in others[-count:] for i in g} | {i for i, m in enumerate(messages) if m.role == "system"}
    return [message for index, message in enumerate(messages) if index in kept]


def _merged(spans: list[range]) -> list[range]:
    merged: list[range] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.stop)):
        if merged and span.start < merged[-1].stop:
            merged[-1] = range(merged[-1].start, max(merged[-1].stop, span.stop))
        else:
            merged.append(span)
    return merged


def _calls(message: Message) -> bool:
    return any(isinstance(c, FunctionCall) for c in message.contents)


def _reasoning_only(message: Message) -> bool:
    return message.role == "assistant" and bool(message.contents) and all(
        isinstance(c, Reasoning) for c in message.contents)
