"""Conversions between the neutral vocabulary and LangChain's messages, chunks, tools and interrupts."""

from __future__ import annotations

import json
from typing import Any

import pytest

# An optional extra: skipped where it is not installed, as the other frameworks' adapter tests are.
pytest.importorskip("langchain", reason="langchain is not installed: pip install -e '.[langchain]'")

from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage  # noqa: E402

from harness.adapters.langchain.approvals import Pause, pause_of, with_requests  # noqa: E402
from harness.adapters.langchain.caller import caller_input  # noqa: E402
from harness.adapters.langchain.chunks import BlockIndexes, CallerUpdates, CallIndexes, chunk_of, chunks_of  # noqa: E402
from harness.adapters.langchain.convert import ai_message, neutral_messages, to_langchain  # noqa: E402
from harness.adapters.langchain.model import _request, response_message, tool_names  # noqa: E402
from harness.adapters.langchain.tools import argument_model  # noqa: E402
from harness.contents import (  # noqa: E402
    APPROVAL_PENDING,
    ApprovalRequest,
    ApprovalResponse,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Response,
    Text,
    Update,
    fold_updates,
)

PARIS = FunctionCall("c1", "get_weather", {"city": "Paris"})
LONDON = FunctionCall("c2", "get_weather", {"city": "London"})


def test_a_batch_of_results_is_one_tool_message_per_result_and_back() -> None:
    history = (
        Message.of("system", Text("Be brief.")),
        Message.of("user", Text("Weather?")),
        Message.of("assistant", Text("Checking."), PARIS, LONDON),
        Message.of("tool", FunctionResult("c1", "sunny"), FunctionResult("c2", {"rain": True}, error=True)),
    )
    converted = to_langchain(history)
    assert [type(m) for m in converted] == [SystemMessage, HumanMessage, AIMessage, ToolMessage, ToolMessage]
    assert converted[3].content == "sunny"
    assert json.loads(str(converted[4].content)) == {"rain": True}
    assert isinstance(converted[4], ToolMessage)
    assert converted[4].status == "error"
    back = neutral_messages(converted)
    assert back[:3] == history[:3]
    assert back[3] == Message.of("tool", FunctionResult("c1", "sunny"), FunctionResult("c2", '{"rain": true}', True))


def test_approval_contents_and_caller_placeholders_never_become_langchain_messages() -> None:
    request = ApprovalRequest("r1", PARIS)
    history = (
        Message.of("user", Text("Weather?")),
        Message.of("assistant", PARIS, request),
        Message.of("tool", FunctionResult("c1", APPROVAL_PENDING)),
        Message.of("user", ApprovalResponse("r1", True, PARIS)),
    )
    converted = to_langchain(history)
    assert [type(m) for m in converted] == [HumanMessage, AIMessage]
    assert isinstance(converted[1], AIMessage)
    assert [c["id"] for c in converted[1].tool_calls] == ["c1"]


def test_arguments_that_are_no_json_object_stay_an_invalid_call_with_their_text() -> None:
    message = ai_message([FunctionCall("c1", "get_weather", '{"city": "Par')])
    assert message.tool_calls == []
    assert message.invalid_tool_calls[0]["args"] == '{"city": "Par'
    assert neutral_messages([message]) == (Message.of("assistant", FunctionCall("c1", "get_weather", '{"city": "Par')),)


def test_a_response_of_several_assistant_messages_is_one_ai_message() -> None:
    response = Response((Message.of("assistant", PARIS), Message.of("assistant", LONDON)), "tool_calls")
    message = response_message(response)
    assert [c["id"] for c in message.tool_calls] == ["c1", "c2"]
    assert message.response_metadata["finish_reason"] == "tool_calls"


def test_call_fragments_get_langchain_indexes_and_merge_back_into_the_calls() -> None:
    indexes = CallIndexes()
    updates = [
        Update("assistant", (FunctionCall("c1", "get_weather", '{"city": '),), "m"),
        Update("assistant", (FunctionCall("", "", '"Paris"}'),), "m"),
        Update("assistant", (FunctionCall("c2", "get_weather", {"city": "London"}),), "m"),
    ]
    chunks = [chunk_of(u, indexes) for u in updates]
    assert [c.tool_call_chunks[0]["index"] for c in chunks] == [0, 0, 1]
    total = chunks[0] + chunks[1] + chunks[2]
    assert isinstance(total, AIMessageChunk)
    assert [(c["id"], c["args"]) for c in total.tool_calls] == [("c1", {"city": "Paris"}), ("c2", {"city": "London"})]


def _added(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert isinstance(total, AIMessageChunk)
    return total


def test_an_update_of_several_fragments_is_one_chunk_each_so_langchain_merges_them_in_order() -> None:
    # Stream splits the fuzzer drew: a call's name with empty arguments, then its arguments, in one update (seed
    # 20260602 at 029922f); a call's arguments and the next reasoning item in one update (seed 8); two fragments of
    # one reasoning item in one update (seed 2). LangChain merges equal indexes only across chunks and keeps a
    # chunk's calls apart from its content, so inside one chunk these became a call without id or name, a call
    # split around the reasoning, and a reasoning text out of order.
    indexes, blocks = CallIndexes(), BlockIndexes()
    update = Update("assistant", (FunctionCall("c1", "deploy", ""), FunctionCall("", "", '{"env": "staging"}'),
                                  FunctionCall("c2", "deploy", '{"env": "prod"}')), "m", "tool_calls")
    chunks = chunks_of(update, indexes, blocks)
    assert [c.tool_call_chunks[0]["index"] for c in chunks] == [0, 0, 1]
    assert [c.response_metadata.get("finish_reason") for c in chunks] == [None, None, "tool_calls"]
    total = _added(chunks)
    assert [(c["id"], c["name"], c["args"]) for c in total.tool_calls] == [("c1", "deploy", {"env": "staging"}),
                                                                           ("c2", "deploy", {"env": "prod"})]
    reasoning = chunks_of(Update("assistant", (Reasoning(""), Reasoning("O")), "m"), CallIndexes(), BlockIndexes())
    later = chunk_of(Update("assistant", (Reasoning("ne file goes."),), "m"), CallIndexes(), BlockIndexes())
    assert [b.get("reasoning") for b in _added([*reasoning, later]).content_blocks if b["type"] == "reasoning"] == [
        "One file goes."]
    seen = CallerUpdates()
    for chunk in chunks_of(Update("assistant", (FunctionCall("", "", "{}"), Reasoning("next")), "m"),
                           CallIndexes(), BlockIndexes()):
        seen.add(chunk)
    assert [u.contents for u in seen.updates] == [(FunctionCall("", "", "{}"),), (Reasoning("next"),)]
    assert len(chunks_of(Update("assistant", (Text("one"),), "m"), CallIndexes())) == 1


def test_caller_updates_fold_into_the_turns_messages_with_one_tool_message_per_batch() -> None:
    seen = CallerUpdates()
    seen.add(AIMessageChunk(content="", id="run-1",
                            tool_call_chunks=[{"id": "c1", "name": "get_weather", "args": '{"city": "Paris"}',
                                               "index": 0, "type": "tool_call_chunk"}]))
    seen.add(ToolMessage("sunny", tool_call_id="c1", id="t1"))
    seen.add(ToolMessage("rainy", tool_call_id="c2", id="t2"))
    seen.add(AIMessageChunk(content="Sunny.", id="run-2"))
    folded = fold_updates(seen.updates).messages
    assert folded == (Message.of("assistant", PARIS), Message.of("tool", FunctionResult("c1", "sunny"),
                                                                 FunctionResult("c2", "rainy")),
                      Message.of("assistant", Text("Sunny.")))


def test_the_model_reads_offered_names_tool_choice_in_provider_words_and_forwarded_settings() -> None:
    choice, tools, forwarded = _request({"tools": ["a", "b"], "tool_choice": "any", "temperature": 0.2})
    assert (choice, tools, forwarded) == ("required", ["a", "b"], {"temperature": 0.2})
    assert _request({"tools": []})[0] is None
    assert tool_names([{"type": "function", "function": {"name": "x"}}, {"name": "y"}]) == ["x", "y"]


def test_argument_model_validates_types_and_hides_the_injected_call_id_from_the_model() -> None:
    model = argument_model("get_weather", {"type": "object", "properties": {"city": {"type": "string"}},
                                           "required": ["city"], "additionalProperties": False})
    from langchain_core.tools import StructuredTool

    async def body(**arguments: Any) -> Any:
        return arguments

    tool = StructuredTool(name="get_weather", description="d", coroutine=body, args_schema=model)
    assert set(tool.tool_call_schema.model_json_schema()["properties"]) == {"city"}  # type: ignore[union-attr]


def test_a_pause_binds_each_action_request_to_its_gated_call_and_resumes_with_the_callers_decisions() -> None:
    class Interrupt:
        id = "i1"
        value: Any = {"action_requests": [{"name": "delete", "args": {}}], "review_configs": []}

    safe = {"id": "s1", "name": "read", "args": {}, "type": "tool_call"}
    gated = {"id": "d1", "name": "delete", "args": {}, "type": "tool_call"}
    messages = [HumanMessage("go"), AIMessage("", tool_calls=[safe, gated], id="ai-1")]
    pause = pause_of({"configurable": {}}, [Interrupt()], messages, {"delete"})
    assert isinstance(pause, Pause)
    assert pause.requests == (ApprovalRequest("i1/0", FunctionCall("d1", "delete", {})),)
    assert pause.resume([ApprovalResponse("i1/0", False, FunctionCall("d1", "delete", {}))]) == {
        "decisions": [{"type": "reject"}]}
    assert pause.resume([ApprovalResponse("old/0", True, FunctionCall("d1", "delete", {}))]) is None
    shown = with_requests(neutral_messages(messages), pause)
    assert shown[-1].contents[-1] == pause.requests[0]


def test_the_callers_input_rereads_as_sent_unless_the_loop_changed_its_objects() -> None:
    history = (Message.of("user", Text("Weather?")), Message.of("assistant", PARIS, ApprovalRequest("r", PARIS)))
    caller = caller_input(history)
    assert caller.reread() == history
    message = caller.messages[1]
    assert isinstance(message, AIMessage)
    message.tool_calls[0]["args"]["city"] = "Lyon"
    reread = caller.reread()
    assert not isinstance(reread, str)
    assert reread[1] == Message.of("assistant", FunctionCall("c1", "get_weather",
                                                                                            {"city": "Lyon"}))


def test_reasoning_travels_as_standard_blocks_with_its_signature_kind_and_data() -> None:
    summary = Reasoning("Search first.", item_id="rs_1", kind="summary")
    encrypted = Reasoning("", "sig", "rs_2", "encrypted", {"encrypted_content": "opaque"})
    message = ai_message([summary, encrypted, Text("Looking."), PARIS])
    assert isinstance(message.content, list)
    assert message.content[0] == {
        "type": "reasoning", "reasoning": "Search first.", "id": "rs_1", "extras": {"kind": "summary"}}
    assert neutral_messages([message]) == (Message.of("assistant", summary, encrypted, Text("Looking."), PARIS),)


def test_streamed_reasoning_fragments_fold_back_into_their_items() -> None:
    indexes, blocks = CallIndexes(), BlockIndexes()
    fragments = [Reasoning("Search ", item_id="rs_1", kind="summary"), Reasoning("first.", item_id="rs_1",
                                                                               kind="summary"),
                 Reasoning("Open it.", item_id="rs_3"), Text("Done.")]
    chunks = [chunk_of(Update("assistant", (f,), "m"), indexes, blocks) for f in fragments]
    seen = CallerUpdates()
    for chunk in chunks:
        chunk.id = "run-1"
        seen.add(chunk)
    total = chunks[0] + chunks[1] + chunks[2] + chunks[3]
    expected = (Reasoning("Search first.", item_id="rs_1", kind="summary"), Reasoning("Open it.", item_id="rs_3"),
                Text("Done."))
    assert fold_updates(seen.updates).messages == (Message("assistant", expected),)
    assert isinstance(total, AIMessageChunk)
    assert neutral_messages([AIMessage(content=total.content)]) == (Message("assistant", expected),)
