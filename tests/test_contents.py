"""The neutral vocabulary: folding streamed updates and merging streamed fragments."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.contents import (
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Response,
    Text,
    Update,
    Usage,
    UserInputRequest,
    content_kind,
    fold_updates,
    merge_contents,
)


def test_content_kinds_are_the_scenario_keys() -> None:
    call = FunctionCall("c1", "f")
    contents: list[tuple[Content, str]] = [
        (Text("x"), "text"), (Reasoning("r"), "reasoning"), (call, "function_call"),
        (FunctionResult("c1"), "function_result"), (ApprovalRequest("a", call), "approval_request"),
        (ApprovalResponse("a", True, call), "approval_response"), (UserInputRequest("u"), "user_input_request"),
        (Usage(1, 2), "usage"),
    ]
    assert [content_kind(c) for c, _ in contents] == [kind for _, kind in contents]


def test_message_of_builds_a_tuple_of_contents() -> None:
    assert Message.of("user", Text("a"), Text("b")) == Message("user", (Text("a"), Text("b")))


# --- merge_contents -------------------------------------------------------------------------------------------


def test_adjacent_text_joins() -> None:
    assert merge_contents([Text("It is "), Text("sunny"), Text(".")]) == (Text("It is sunny."),)


def test_text_separated_by_another_content_stays_apart() -> None:
    call = FunctionCall("c1", "f", {"a": 1})
    assert merge_contents([Text("a"), call, Text("b")]) == (Text("a"), call, Text("b"))


def test_reasoning_joins_and_keeps_its_one_signature() -> None:
    assert merge_contents([Reasoning("think"), Reasoning("ing"), Reasoning("", "sig")]) == (
        Reasoning("thinking", "sig"),)


def test_two_signed_reasoning_blocks_stay_apart() -> None:
    contents = (Reasoning("a", "s1"), Reasoning("b", "s2"))
    assert merge_contents(contents) == contents


def test_argument_chunks_of_one_call_join_and_parse() -> None:
    chunks = [FunctionCall("c1", "search", '{"query": "lo'), FunctionCall("c1", "", 'ops", "limit"'),
              FunctionCall("c1", "", ": 2}")]
    assert merge_contents(chunks) == (FunctionCall("c1", "search", {"query": "loops", "limit": 2}),)


def test_empty_argument_text_is_no_arguments() -> None:
    assert merge_contents([FunctionCall("c1", "f", ""), FunctionCall("c1", "", "  ")]) == (FunctionCall("c1", "f", {}),)


def test_a_blank_fragment_after_parsed_arguments_continues_the_call() -> None:
    # A stream split of the fuzzer: the whole argument text in the first delta (which reaches us parsed), then an
    # empty delta with neither id nor name; a caller concatenating the deltas has one call.
    chunks = [FunctionCall("c2", "factorial", {"n": 5}), FunctionCall("c2", "", ""), FunctionCall("", "", "")]
    assert merge_contents(chunks) == (FunctionCall("c2", "factorial", {"n": 5}),)


def test_chunks_of_different_calls_stay_apart() -> None:
    merged = merge_contents([FunctionCall("c1", "f", '{"a": 1}'), FunctionCall("c2", "g", '{"b": 2}')])
    assert merged == (FunctionCall("c1", "f", {"a": 1}), FunctionCall("c2", "g", {"b": 2}))


@pytest.mark.parametrize("text", ['{"a": ', "[1, 2]", '"just a string"', "not json"])
def test_arguments_that_are_not_a_json_object_stay_raw(text: str) -> None:
    assert merge_contents([FunctionCall("c1", "f", text)]) == (FunctionCall("c1", "f", text),)


def test_complete_calls_with_mapping_arguments_never_join() -> None:
    contents = (FunctionCall("c1", "f", {"a": 1}), FunctionCall("c1", "f", {"a": 1}))
    assert merge_contents(contents) == contents


def test_call_flags_survive_joining() -> None:
    chunks = [FunctionCall("h1", "web", '{"q":', server_label="hosted"), FunctionCall("h1", "", ' "x"}')]
    assert merge_contents(chunks) == (FunctionCall("h1", "web", {"q": "x"}, False, "hosted"),)


def test_other_contents_pass_through_unchanged() -> None:
    call = FunctionCall("c1", "f", {})
    contents = (FunctionResult("c1", "r"), FunctionResult("c1", "r"), ApprovalRequest("a", call), Usage(1, 1),
                UserInputRequest("u", None, {"q": 1}))
    assert merge_contents(contents) == contents


# --- fold_updates ---------------------------------------------------------------------------------------------


def test_updates_of_one_message_fold_into_it() -> None:
    updates = [Update("assistant", (Text("It is "),), "m1"), Update("assistant", (Text("sunny"),), "m1",
                                                                     finish_reason="stop")]
    assert fold_updates(updates) == Response((Message("assistant", (Text("It is sunny"),)),), "stop")


def test_a_new_message_id_or_role_starts_a_new_message() -> None:
    call = FunctionCall("c1", "f", {})
    updates = [
        Update("assistant", (call,), "m1"),
        Update("tool", (FunctionResult("c1", "r"),), "m1"),
        Update("assistant", (Text("a"),), "m2"),
        Update("assistant", (Text("b"),), "m3"),
        Update("assistant", (Text("c"),), "m2"),
    ]
    folded = fold_updates(updates)
    assert [m.role for m in folded.messages] == ["assistant", "tool", "assistant", "assistant", "assistant"]
    assert [m.contents for m in folded.messages][2:] == [(Text("a"),), (Text("b"),), (Text("c"),)]


def test_updates_without_ids_fold_while_the_role_stays() -> None:
    updates = [Update("assistant", (Text("a"),)), Update("assistant", (Text("b"),)), Update("tool", (Text("t"),)),
               Update("assistant", (Text("c"),))]
    assert fold_updates(updates).messages == (Message("assistant", (Text("ab"),)), Message("tool", (Text("t"),)),
                                              Message("assistant", (Text("c"),)))


def test_finish_reason_is_the_last_one_given_else_the_default() -> None:
    updates = [Update("assistant", (Text("a"),), "m", "tool_calls"), Update("assistant", (Text("b"),), "m")]
    assert fold_updates(updates).finish_reason == "tool_calls"
    assert fold_updates([Update("assistant", (Text("a"),))], finish_reason="stop").finish_reason == "stop"
    assert fold_updates([]) == Response((), None)


def test_an_empty_update_keeps_its_message() -> None:
    folded = fold_updates([Update("assistant", (), "m1"), Update("assistant", (Text("x"),), "m1")])
    assert folded.messages == (Message("assistant", (Text("x"),)),)


# --- properties -----------------------------------------------------------------------------------------------

_SCALARS = st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8)
_ARGUMENTS = st.dictionaries(
    st.text(min_size=1, max_size=6),
    st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                         max_size=3), max_leaves=6),
    max_size=4,
)


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@settings(derandomize=True, max_examples=300)
@given(arguments=_ARGUMENTS, cuts=st.lists(st.integers(0, 200), max_size=8), indent=st.sampled_from([None, 2]))
def test_folding_any_chunking_of_arguments_gives_the_unchunked_call(arguments: dict[str, Any], cuts: list[int],
                                                                     indent: int | None) -> None:
    text = json.dumps(arguments, indent=indent)
    chunks = _split(text, cuts)
    updates = [Update("assistant", (FunctionCall("c1", "search" if i == 0 else "", chunk),), "m1")
               for i, chunk in enumerate(chunks)]
    assert fold_updates(updates).messages == (Message("assistant", (FunctionCall("c1", "search", arguments),)),)


@settings(derandomize=True, max_examples=200)
@given(text=st.text(max_size=40), cuts=st.lists(st.integers(0, 40), max_size=6),
       arguments=_ARGUMENTS, arg_cuts=st.lists(st.integers(0, 100), max_size=4))
def test_folding_a_chunked_message_equals_the_unchunked_message(text: str, cuts: list[int], arguments: dict[str, Any],
                                                                  arg_cuts: list[int]) -> None:
    updates = [Update("assistant", (Text(piece),), "m1") for piece in _split(text, cuts)]
    updates += [Update("assistant", (FunctionCall("c1", "f" if i == 0 else "", piece),), "m1")
                for i, piece in enumerate(_split(json.dumps(arguments), arg_cuts))]
    whole = Message("assistant", (Text(text), FunctionCall("c1", "f", arguments)))
    assert fold_updates(updates).messages == (whole,)


_CONTENTS = st.lists(st.one_of(
    st.builds(Text, st.sampled_from(["", "a", "b"])),
    st.builds(Reasoning, st.sampled_from(["", "r"]), st.sampled_from([None, "s"])),
    st.builds(FunctionCall, st.sampled_from(["c1", "c2"]), st.sampled_from(["", "f"]),
              st.sampled_from(["", "{", '"a"', ": 1}", "{}", '{"a": 1}'])),
    st.builds(FunctionResult, st.sampled_from(["c1", "c2"]), st.just("r")),
), max_size=8)


@settings(derandomize=True, max_examples=300)
@given(contents=_CONTENTS)
def test_merging_is_idempotent(contents: list[Content]) -> None:
    once = merge_contents(contents)
    assert merge_contents(once) == once
