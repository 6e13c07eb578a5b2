"""Scripted streamed updates: call fragments as providers send them, the fold that joins them, and a loop that
merges them by id alone."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from negative_controls import adapter_for

from harness import ScenarioFileError, load_scenario, run_scenario
from harness.adapters.reference.loop import ModelClient, ReferenceLoop
from harness.contents import JSON, FunctionCall, FunctionResult, Message, Response, Text, Update, merge_contents
from harness.transcript import stream_tokens

DELTAS = Path(__file__).resolve().parent.parent / "scenarios" / "normal" / "streaming-call-deltas.yaml"


def test_an_id_less_fragment_continues_the_call_before_it_and_a_named_one_starts_another() -> None:
    fragments = [FunctionCall("c1", "f", ""), FunctionCall("", "", '{"a": '), FunctionCall("", "", "1}"),
                 FunctionCall("c2", "f", '{"a"'), FunctionCall("", "", ": 2}"), FunctionCall("", "g", "{}")]
    assert merge_contents(fragments) == (FunctionCall("c1", "f", {"a": 1}), FunctionCall("c2", "f", {"a": 2}),
                                         FunctionCall("", "g", {}))
    # A call id reused in one response: each named fragment is its own call.
    assert len(merge_contents([FunctionCall("c1", "f", "{}"), FunctionCall("c1", "f", "{}")])) == 2
    # A blank fragment that arrives already parsed into {} still joins.
    assert merge_contents([FunctionCall("c1", "f", {}), FunctionCall("c1", "", '{"a": 1}')]) == (
        FunctionCall("c1", "f", {"a": 1}),)


def test_a_mapping_fragment_is_its_calls_whole_arguments() -> None:
    mapping = FunctionCall("c1", "", {"a": 1}, arguments_as_mapping=True)
    # After an opening fragment without arguments, and before a blank one, it is the call's arguments.
    assert merge_contents([FunctionCall("c1", "f", ""), mapping, FunctionCall("", "", "")]) == (
        FunctionCall("c1", "f", {"a": 1}),)
    # It joins no text and no second mapping: what follows is another (nameless) call, as the loader reports.
    assert len(merge_contents([FunctionCall("c1", "f", '{"a"'), mapping])) == 2
    assert len(merge_contents([FunctionCall("c1", "f", ""), mapping, replace(mapping, arguments={"b": 2})])) == 2
    assert len(merge_contents([FunctionCall("c1", "f", ""), mapping, FunctionCall("", "", "}")])) == 2


def test_a_stream_that_does_not_add_up_to_its_contents_is_a_located_error(tmp_path: Path) -> None:
    text = DELTAS.read_text(encoding="utf-8").replace("""'ty": "Rome"}'""", """'ty": "Milan"}'""")
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    head = str(caught.value).splitlines()[0]
    assert "error[invalid-value]: turn 1 › model step 1 › stream: the updates add up to" in head
    assert '"Milan"' in head


def test_stream_needs_contents(tmp_path: Path) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text(DELTAS.read_text(encoding="utf-8").replace(
        "      - contents:\n          - text: It is sunny in both.",
        "      - raises: boom\n        stream: [[{text: x}]]"), encoding="utf-8")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    assert "'stream' splits the one assistant message of 'contents'" in str(caught.value)


class _IdStampingModel:
    """Gives every id-less streamed call fragment an id of its own, as a loop merging deltas by id alone sees them."""

    def __init__(self, inner: ModelClient) -> None:
        self._inner = inner
        self._ids = itertools.count(1)

    async def complete(self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
                       kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None) -> Response:
        return await self._inner.complete(messages, tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                          conversation_id=conversation_id)

    async def stream(self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
                     kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None) -> AsyncIterator[Update]:
        async for update in self._inner.stream(messages, tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                               conversation_id=conversation_id):
            contents = tuple(FunctionCall(f"delta-{next(self._ids)}", c.name, c.arguments)
                             if isinstance(c, FunctionCall) and not c.call_id else c for c in update.contents)
            yield Update(update.role, contents, update.message_id, update.finish_reason, update.conversation_id)


class MergesDeltasByIdAlone(ReferenceLoop):
    """Joins streamed call fragments only when they repeat the call id, so id-less deltas become calls of their own."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.model = _IdStampingModel(self.model)


async def test_a_loop_merging_deltas_by_id_alone_fails() -> None:
    result = await run_scenario(load_scenario(DELTAS), adapter_for(MergesDeltasByIdAlone), "streaming")
    failing = {c.id for c in result.checks if c.verdict == "fail"}
    assert result.verdict == "fail"
    assert {"expect.executions", "expect.response"} <= failing


def test_the_scenario_holds_what_it_claims() -> None:
    scenario = load_scenario(DELTAS)
    step = scenario.turns[0].steps[0]
    assert len(step.updates) == 4
    assert [len(u.contents) for u in step.updates] == [1, 1, 2, 1]
    assert not isinstance(step.response.messages[0].contents[0], Text)


def test_the_stream_order_counts_an_id_less_fragment_as_part_of_the_call_before_it() -> None:
    # "Streaming call": call chunks, one result update, final text. Chat Completions names the call on its first
    # delta only, and some framework releases pass the later deltas on as they come.
    updates = [Update("assistant", (FunctionCall("c1", "f", '{"a"'),)),
               Update("assistant", (FunctionCall("", "", ": 1}"),)),
               Update("tool", (FunctionResult("c1", "ok"),)),
               Update("assistant", (Text("done"),))]
    assert stream_tokens(updates) == ["function_call c1", "function_result c1", "text"]
    named = [Update("assistant", (FunctionCall("c1", "f", "{}"),)), Update("assistant", (FunctionCall("", "g", "{}"),))]
    assert stream_tokens(named) == ["function_call c1", "function_call"]  # a named fragment is another call
    assert stream_tokens([Update("assistant", (FunctionCall("", "", "{}"),))]) == ["function_call"]
