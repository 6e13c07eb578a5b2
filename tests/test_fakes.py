"""The scripted fakes: a FIFO model provider that records every request, and tools that record every run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from negative_controls import SCENARIOS

from fakes import (
    ModelStep,
    ScriptedProvider,
    ScriptedProviderError,
    ScriptedToolbox,
    ScriptedToolError,
    ToolBehaviour,
    ToolExecution,
    ToolOutcome,
    ToolSpec,
)
from harness import load_scenario
from harness.contents import FunctionCall, Message, Response, Text, Update, fold_updates, merge_contents

USER = (Message.of("user", Text("hi")),)


def _text_step(text: str, *, optional: bool = False) -> ModelStep:
    message = Message.of("assistant", Text(text))
    return ModelStep(Response((message,), "stop"), (Update("assistant", (Text(text),), "m", "stop"),),
                     optional=optional, source_line=7)


def _call_step(call_id: str = "c1", *, ignores_tool_choice: bool = False) -> ModelStep:
    call = FunctionCall(call_id, "get_weather", {"city": "Paris"})
    return ModelStep(Response((Message.of("assistant", call),), "tool_calls"),
                     (Update("assistant", (call,), "m", "tool_calls"),), ignores_tool_choice=ignores_tool_choice)


async def _drain(provider: ScriptedProvider, messages: Sequence[Message] = USER,
                 tool_choice: str | None = None) -> list[Update]:
    return [update async for update in provider.stream(messages, tool_choice=tool_choice)]


# --- provider -------------------------------------------------------------------------------------------------


async def test_steps_are_served_first_in_first_out() -> None:
    first, second = _call_step(), _text_step("done")
    provider = ScriptedProvider([[first, second]])
    assert await provider.complete(USER) == first.response
    assert await provider.complete(USER) == second.response
    assert provider.served_steps() == [first, second]
    assert provider.unused_steps() == []
    assert provider.violations == []


async def test_streaming_serves_the_steps_updates() -> None:
    step = _text_step("done")
    provider = ScriptedProvider([[step]])
    assert await _drain(provider) == list(step.updates)
    assert provider.requests[0].streaming is True


async def test_every_request_is_recorded_as_a_snapshot() -> None:
    provider = ScriptedProvider([[_call_step(), _text_step("done")]])
    history = list(USER)
    await provider.complete(history, tool_choice="auto", tools=["get_weather"], kwargs={"temperature": 0})
    history.append(Message.of("assistant", Text("later")))
    await _drain(provider, history, tool_choice="required")
    first, second = provider.requests
    assert (first.turn, first.number, first.messages, first.tool_choice, first.tools, first.kwargs, first.streaming) \
        == (0, 1, USER, "auto", ("get_weather",), {"temperature": 0}, False)
    assert (second.number, len(second.messages), second.tool_choice, second.tools, second.kwargs) == (
        2, 2, "required", (), {})


async def test_turns_have_their_own_scripts_and_numbering() -> None:
    provider = ScriptedProvider([[_text_step("one")], [_text_step("two"), _text_step("three")]])
    await provider.complete(USER)
    provider.begin_turn(1)
    assert provider.served_steps() == []
    assert [s.response.messages[0].contents for s in provider.unused_steps()] == [(Text("two"),), (Text("three"),)]
    assert (await provider.complete(USER)).messages[0].contents == (Text("two"),)
    assert [(r.turn, r.number) for r in provider.requests] == [(0, 1), (1, 1)]
    assert [r.number for r in provider.requests_in_turn(1)] == [1]


async def test_a_call_beyond_the_script_raises_and_is_recorded_as_a_violation() -> None:
    provider = ScriptedProvider([[_text_step("only")]])
    await provider.complete(USER)
    with pytest.raises(ScriptedProviderError, match=r"unexpected model call #2 in turn 1: the script has 1"):
        await provider.complete(USER)
    (violation,) = provider.violations
    assert (violation.turn, violation.number) == (0, 2)
    assert violation.request is provider.requests[1]
    assert "unexpected model call #2" in violation.message


async def test_a_streaming_call_beyond_the_script_fails_when_iterated() -> None:
    provider = ScriptedProvider([[]])
    with pytest.raises(ScriptedProviderError):
        await _drain(provider)
    assert len(provider.violations) == 1


async def test_a_scripted_failure_raises_its_message_and_uses_its_step() -> None:
    failing = ModelStep(Response(()), (), raises="rate limited")
    provider = ScriptedProvider([[failing, _text_step("retry worked")]])
    with pytest.raises(ScriptedProviderError, match="^rate limited$"):
        await provider.complete(USER)
    assert provider.violations == []
    assert provider.served_steps() == [failing]
    assert (await provider.complete(USER)).messages[0].contents == (Text("retry worked"),)


async def test_calls_answered_to_tool_choice_none_are_a_violation() -> None:
    provider = ScriptedProvider([[_call_step()]])
    response = await provider.complete(USER, tool_choice="none")
    assert response == _call_step().response  # still served: the loop must cope with it
    (violation,) = provider.violations
    assert "tool_choice='none'" in violation.message
    assert "ignores_tool_choice: true" in violation.message
    assert violation.request is provider.requests[0]


@pytest.mark.parametrize(("step", "tool_choice"), [
    (_call_step(ignores_tool_choice=True), "none"),  # a deliberate provider fault
    (_text_step("no calls"), "none"),
    (_call_step(), "auto"),
    (_call_step(), None),
])
async def test_no_tool_choice_violation_otherwise(step: ModelStep, tool_choice: str | None) -> None:
    provider = ScriptedProvider([[step]])
    await _drain(provider, tool_choice=tool_choice)
    assert provider.violations == []


async def test_unused_steps_are_the_required_ones_left_over() -> None:
    required, optional = _text_step("needed"), _text_step("maybe", optional=True)
    provider = ScriptedProvider([[_call_step(), optional, required, _text_step("tail", optional=True)]])
    assert len(provider.unused_steps()) == 2
    await provider.complete(USER)
    assert provider.unused_steps() == [required]
    await provider.complete(USER)
    await provider.complete(USER)
    assert provider.unused_steps() == []


# --- tools ----------------------------------------------------------------------------------------------------


def test_toolbox_offers_only_tools_available_from_the_start() -> None:
    box = ScriptedToolbox([ToolSpec("a"), ToolSpec("b", offered=False), ToolSpec("c")])
    assert [tool.name for tool in box.offered()] == ["a", "c"]
    assert box.get("b") is box.tools["b"]
    assert box.get("missing") is None


def test_behaviours_play_in_order_and_the_last_repeats() -> None:
    box = ScriptedToolbox([ToolSpec("t", behaviours=(ToolBehaviour("return", 1), ToolBehaviour("return", 2)))])
    tool = box.tools["t"]
    assert [tool.invoke({}).value for _ in range(4)] == [1, 2, 2, 2]


def test_the_default_tool_returns_none() -> None:
    assert ScriptedToolbox([ToolSpec("t")]).tools["t"].invoke({}) == ToolOutcome()


def test_every_invocation_is_recorded_even_when_it_raises() -> None:
    box = ScriptedToolbox([ToolSpec("t", behaviours=(ToolBehaviour("raise", "boom"), ToolBehaviour("return", "ok")))])
    box.turn = 2
    tool = box.tools["t"]
    arguments = {"x": 1}
    with pytest.raises(ScriptedToolError, match="^boom$"):
        tool.invoke(arguments, "c1")
    arguments["x"] = 99  # the record is a copy
    assert tool.invoke({"y": 2}).value == "ok"
    assert box.executions == [ToolExecution(2, "t", {"x": 1}, "c1"), ToolExecution(2, "t", {"y": 2}, None)]


def test_request_input_returns_payloads_instead_of_a_value() -> None:
    box = ScriptedToolbox([ToolSpec("ask", behaviours=(
        ToolBehaviour("request_input", "Which city?"),
        ToolBehaviour("request_input", ["a", "b"], terminate=True),
    ))])
    tool = box.tools["ask"]
    assert tool.invoke({}) == ToolOutcome(input_requests=("Which city?",))
    assert tool.invoke({}) == ToolOutcome(input_requests=("a", "b"), terminate=True)


def test_termination_and_added_tools_are_passed_on() -> None:
    box = ScriptedToolbox([ToolSpec("t", behaviours=(ToolBehaviour("return", "v", terminate=True,
                                                                   add_tools=("later",)),)),
                           ToolSpec("later", offered=False)])
    assert box.tools["t"].invoke({}) == ToolOutcome("v", terminate=True, add_tools=("later",))


@settings(derandomize=True, max_examples=100)
@given(values=st.lists(st.integers(), min_size=1, max_size=5), calls=st.integers(0, 10))
def test_tool_sequences_are_deterministic(values: list[int], calls: int) -> None:
    box = ScriptedToolbox([ToolSpec("t", behaviours=tuple(ToolBehaviour("return", v) for v in values))])
    played = [box.tools["t"].invoke({"n": n}, f"c{n}").value for n in range(calls)]
    assert played == [values[min(n, len(values) - 1)] for n in range(calls)]
    assert [e.call_id for e in box.executions] == [f"c{n}" for n in range(calls)]


# --- scripts built from scenario files ------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.stem)
def test_a_steps_streamed_updates_fold_to_its_response(path: Path) -> None:
    scenario = load_scenario(path)
    for turn in scenario.turns:
        for step in turn.steps:
            folded = fold_updates(step.updates)
            assert [(m.role, m.contents) for m in folded.messages] == [
                (m.role, merge_contents(m.contents)) for m in step.response.messages]
            assert folded.finish_reason == step.response.finish_reason
            assert step.source_line is not None
