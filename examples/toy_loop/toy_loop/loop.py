"""The toy loop: ask the model, run the calls it asked for, feed the results back, repeat until it answers.

It is written over the harness's neutral contents (`harness.contents`) and the contract's `ModelProvider` and
`Tool` protocols so the example stays short. A real framework has its own message and tool types; its adapter then
converts them to and from the neutral contents, in both directions, where `toy_loop.conformance` passes them as
they are.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence

from harness.contents import JSON, FunctionCall, FunctionResult, Message, Text, Update, fold_updates
from harness.contract import LoopConfig, ModelProvider, Tool

# The loop's own defaults for settings the caller leaves unset (`None` in `LoopConfig`).
DEFAULT_MAX_ITERATIONS = 40
DEFAULT_MAX_CONSECUTIVE_ERRORS = 3
LIMIT_TEXT = "I stopped before a final answer: the tool-call limit was reached."


class UnknownToolError(Exception):
    """Raised to the caller when the model calls a tool that does not exist and the config says to stop there."""


class ToyLoop:
    """One loop over one model and a fixed set of tools; `run` plays one caller turn."""

    def __init__(self, model: ModelProvider, tools: Mapping[str, Tool], config: LoopConfig) -> None:
        self.model = model
        self.tools = dict(tools)
        self.config = config
        self._message_ids = itertools.count(1)

    async def run(self, messages: Sequence[Message], *, streaming: bool,
                  tool_choice: str | None = None) -> AsyncIterator[Update]:
        """Yield every update the caller sees, in order; folding them gives the turn's response.

        Streaming passes the model's updates on as they arrive; otherwise each message of a model response becomes
        one update. Each batch of tool results follows as one ``tool`` update.
        """
        history = list(messages)  # the loop's own copy: the caller's messages are never touched
        if not self.config.enabled:  # function invocation off: one model call, its calls returned unexecuted
            async for update in self._ask(history, streaming, tool_choice):
                yield update
            return
        max_iterations = self.config.max_iterations or DEFAULT_MAX_ITERATIONS
        iterations = executed = errors_in_row = 0
        while True:
            limited = iterations >= max_iterations or self._limit_reached(executed, errors_in_row)
            answer: list[Update] = []
            async for update in self._ask(history, streaming, "none" if limited else tool_choice or "auto"):
                answer.append(update)
                yield update
            iterations += 1
            calls = [c for m in fold_updates(answer).messages for c in m.contents if isinstance(c, FunctionCall)]
            if limited or not calls:
                if limited and not _visible(answer):  # never end a turn on an empty answer
                    yield self._update(Message.of("assistant", Text(LIMIT_TEXT)))
                return
            results = tuple(self._execute(call) for call in calls)  # one result per call, in the model's order
            executed += len(calls)
            errors_in_row = errors_in_row + 1 if any(r.error for r in results) else 0
            history.append(Message("tool", results))
            yield self._update(history[-1])

    async def _ask(self, history: list[Message], streaming: bool, tool_choice: str | None) -> AsyncIterator[Update]:
        """One model call: its updates, and its answer appended to `history`.

        With tools off (``tool_choice="none"``) a call the provider returns anyway can never run, so it is dropped
        before the caller or the history sees it.
        """
        names = tuple(self.tools)
        if streaming:
            source = self.model.stream(history, tool_choice=tool_choice, tools=names)
        else:
            response = await self.model.complete(history, tool_choice=tool_choice, tools=names)
            source = _each(self._update(message) for message in _without_repeated_items(response.messages))
        kept: list[Update] = []
        shown: set[str | None] = set()  # messages with contents: a metadata-only update alone shows an empty one
        async for update in source:
            if tool_choice == "none":
                contents = tuple(c for c in update.contents if not isinstance(c, FunctionCall))
                if (update.contents and not contents) or (not contents and update.message_id not in shown):
                    continue
                update = Update(update.role, contents, update.message_id, update.finish_reason)
            if update.contents:
                shown.add(update.message_id)
            kept.append(update)
            yield update
        # Streamed argument chunks joined, as the model sent them; a message emptied by the limit is not history.
        history.extend(m for m in fold_updates(kept).messages if m.contents)

    def _execute(self, call: FunctionCall) -> FunctionResult:
        tool = self.tools.get(call.name)
        if tool is None:
            if self.config.terminate_on_unknown_calls:
                raise UnknownToolError(f"the model called {call.name!r}, which is not a tool of this loop")
            return FunctionResult(call.call_id, f"Error: there is no tool named {call.name!r}.", error=True)
        if not isinstance(call.arguments, Mapping):  # arguments that never parsed as a JSON object
            return FunctionResult(call.call_id, "Error: the arguments are not a JSON object.", error=True)
        problems = argument_problems(tool.spec.parameters, call.arguments)
        if problems:  # refused before the body runs: the model gets an error result it can correct
            detail = f": {'; '.join(problems)}" if self.config.include_detailed_errors else "."
            return FunctionResult(call.call_id, f"Error: invalid arguments for {call.name!r}{detail}", error=True)
        try:
            outcome = tool.invoke(call.arguments, call.call_id)
        except Exception as error:  # any tool failure becomes the call's error result, and the loop goes on
            detail = f": {type(error).__name__}: {error}" if self.config.include_detailed_errors else "."
            return FunctionResult(call.call_id, f"Error: the tool failed{detail}", error=True)
        return FunctionResult(call.call_id, _as_text(list(outcome.parts) if outcome.parts else outcome.value))

    def _limit_reached(self, executed: int, errors_in_row: int) -> bool:
        max_calls = self.config.max_function_calls
        max_errors = self.config.max_consecutive_errors
        if max_errors is None:
            max_errors = DEFAULT_MAX_CONSECUTIVE_ERRORS
        return (max_calls is not None and executed >= max_calls) or 0 < max_errors <= errors_in_row

    def _update(self, message: Message) -> Update:
        return Update(message.role, message.contents, f"toy-{next(self._message_ids)}")


def argument_problems(parameters: Mapping[str, JSON], arguments: Mapping[str, JSON]) -> list[str]:
    """What a toy loop checks before running a tool: required names present, declared types, no undeclared names
    where the tool forbids them (top level only; a real loop validates against the whole JSON Schema)."""
    properties = parameters.get("properties")
    declared = properties if isinstance(properties, dict) else {}
    required = parameters.get("required")
    problems = [f"missing {name}" for name in (required if isinstance(required, list) else [])
                if isinstance(name, str) and name not in arguments]
    for name, value in arguments.items():
        schema = declared.get(name)
        if schema is None and parameters.get("additionalProperties") is False:
            problems.append(f"unexpected {name}")
        elif isinstance(schema, dict) and not _fits(value, schema.get("type")):
            problems.append(f"{name} is not of type {schema.get('type')}")
    return problems


_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict, "array": list,
    "null": type(None),
}


def _fits(value: JSON, type_name: JSON) -> bool:
    expected = _JSON_TYPES.get(type_name) if isinstance(type_name, str) else None
    if expected is None:  # no type declared, or one this check does not know
        return True
    if isinstance(value, bool):  # a JSON boolean is no number, although Python's bool is an int
        return type_name == "boolean"
    return isinstance(value, expected)


def _as_text(value: JSON) -> str:
    """Results reach the model as text: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value)


def _without_repeated_items(messages: Sequence[Message]) -> list[Message]:
    """A response's messages with each service output item once: a call repeated under the same call id and item
    id is one call shown twice, which runs once and gets one result (spec 004, "Calls across response messages")."""
    seen: set[tuple[str, str]] = set()
    kept: list[Message] = []
    for message in messages:
        contents = []
        for content in message.contents:
            item = (content.call_id, content.item_id) if isinstance(content, FunctionCall) and content.item_id else None
            if item in seen:
                continue
            if item is not None:
                seen.add(item)
            contents.append(content)
        if contents:
            kept.append(Message(message.role, tuple(contents)))
    return kept


def _visible(updates: Sequence[Update]) -> bool:
    return any(isinstance(c, Text) and c.text.strip() for u in updates for c in u.contents)


async def _each(updates: Iterable[Update]) -> AsyncIterator[Update]:
    for update in updates:
        yield update
