"""Conversions between the neutral vocabulary and the OpenAI Agents SDK's items, events and settings."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, cast

import pytest

# An optional extra that CI does not install yet (its findings are still being triaged): skip, never fail.
pytest.importorskip("agents", reason="openai-agents is not installed: pip install -e '.[openai-agents]'")

from agents import FunctionTool, ModelBehaviorError, ModelSettings  # noqa: E402
from agents.models.interface import ModelTracing  # noqa: E402
from agents.stream_events import RawResponsesStreamEvent  # noqa: E402
from agents.tool_context import ToolContext  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseReasoningItem,
)

from fakes.tools import ScriptedToolbox  # noqa: E402
from harness.adapters.openai_agents.conversation import raised_error, unmapped_settings  # noqa: E402
from harness.adapters.openai_agents.convert import (  # noqa: E402
    CallerInput,
    Entry,
    as_mapping,
    group_entries,
    group_of,
    item_entries,
    messages_from_items,
)
from harness.adapters.openai_agents.events import StreamDecoder  # noqa: E402
from harness.adapters.openai_agents.model import ProviderModel, provider_request  # noqa: E402
from harness.adapters.openai_agents.responses import AnswerEncoder, UnsupportedContentError  # noqa: E402
from harness.adapters.openai_agents.tools import (  # noqa: E402
    ToolState,
    build_tools,
    needs_termination,
    strict_compatible,
)
from harness.contents import (  # noqa: E402
    JSON,
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
    fold_updates,
)
from harness.contract import LoopConfig, ScriptedProviderError  # noqa: E402
from harness.script import ToolBehaviour, ToolSpec  # noqa: E402

CALL = FunctionCall("c1", "get_weather", {"city": "Paris"})
ANSWER = Response((
    Message("assistant", (Reasoning("Let me look.", "sig-1"), Text("Checking "), Text("Paris."), CALL)),
    Message("assistant", (FunctionCall("c2", "get_time", {"city": "Paris"}),)),
))


def _no_approval_ids(item: object) -> str:
    raise AssertionError("no approval item expected")


# --- caller input -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("message", [
    Message("user", (Text("What is the weather?"),)),
    Message("user", (Text("one"), Text("two"))),
    Message("system", (Text("Be brief."),)),
    Message("assistant", (Reasoning("thinking", "opaque"), Reasoning("unsigned"), Text("Sure."), CALL)),
    Message("tool", (FunctionResult("c1", "sunny"), FunctionResult("c2", 2102650))),
], ids=["user", "user-two-texts", "system", "assistant", "tool"])
def test_a_caller_message_survives_the_round_trip_through_input_items(message: Message) -> None:
    caller = CallerInput((message,), 0)
    expected = message
    if message.role == "tool":  # the model sees a tool output as text: the Responses API has no other form
        expected = Message("tool", (FunctionResult("c1", "sunny"), FunctionResult("c2", "2102650")))
    assert caller.reread() == (expected,)
    assert messages_from_items(caller.items) == (expected,)


def test_approval_wrappers_are_kept_aside_and_put_back_in_place() -> None:
    request = ApprovalRequest("req-1", CALL)
    messages = (
        Message("user", (Text("Weather?"),)),
        Message("assistant", (CALL, request)),
        Message("user", (ApprovalResponse("req-1", True, CALL),)),
    )
    caller = CallerInput(messages, 1)
    assert [as_mapping(item).get("type") for item in caller.items] == [None, "function_call"]
    assert caller.reread() == messages


def test_a_mutated_input_item_shows_when_reread() -> None:
    caller = CallerInput((Message("assistant", (CALL,)),), 0)
    item = caller.pieces[0][0]
    assert isinstance(item, dict)
    item["arguments"] = '{"city": "Rome"}'
    assert caller.reread() == (Message("assistant", (FunctionCall("c1", "get_weather", {"city": "Rome"}),)),)


def test_items_keep_the_neutral_message_they_came_from() -> None:
    caller = CallerInput((Message("assistant", (CALL,)), Message("assistant", (FunctionCall("c2", "f", {}),))), 3)
    groups = [group_of(as_mapping(item).get("id")) for item in caller.items]
    assert groups == ["t3i0", "t3i1"]
    assert len(messages_from_items(caller.items)) == 2


# --- grouping ---------------------------------------------------------------------------------------------------


def test_untagged_items_join_the_message_before_them() -> None:
    request = ApprovalRequest("a-1", CALL)
    entries = [Entry("assistant", CALL, "r1m0"), Entry("assistant", request),
               Entry("tool", FunctionResult("c1", "x")), Entry("tool", FunctionResult("c2", "y"))]
    assert group_entries(entries) == (Message("assistant", (CALL, request)),
                                      Message("tool", (FunctionResult("c1", "x"), FunctionResult("c2", "y"))))


def test_another_group_starts_another_message() -> None:
    other = FunctionCall("c2", "f", {})
    assert len(group_entries([Entry("assistant", CALL, "r1m0"), Entry("assistant", other, "r1m1")])) == 2


def test_user_items_stay_separate_messages() -> None:
    items = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    assert messages_from_items(items) == (Message("user", (Text("a"),)), Message("user", (Text("b"),)))


def test_string_input_and_instructions() -> None:
    assert messages_from_items("Hi", "Be brief.") == (Message("system", (Text("Be brief."),)),
                                                      Message("user", (Text("Hi"),)))


def test_unknown_items_are_visible_not_dropped() -> None:
    assert item_entries({"type": "web_search_call", "id": "ws_1"}) == [
        Entry("assistant", Text("[unsupported web_search_call item]"))]


def test_unparseable_arguments_stay_text() -> None:
    entries = item_entries({"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"a": 1}{'})
    assert entries[0].content == FunctionCall("c1", "f", '{"a": 1}{')


# --- model answers ----------------------------------------------------------------------------------------------


def _encode(response: Response) -> AnswerEncoder:
    encoder = AnswerEncoder(prefix="r1", response_id="resp-1")
    for position, message in enumerate(response.messages):
        encoder.feed(Update(message.role, message.contents, f"m{position}"))
    return encoder


def test_an_answer_becomes_output_items_per_message() -> None:
    encoder = _encode(ANSWER)
    _, final = encoder.finish()
    kinds = [type(item) for item in final.output]
    assert kinds == [ResponseReasoningItem, ResponseOutputMessage, ResponseFunctionToolCall, ResponseFunctionToolCall]
    reasoning, text, call, _ = final.output
    assert isinstance(reasoning, ResponseReasoningItem)
    assert reasoning.encrypted_content == "sig-1"
    assert isinstance(text, ResponseOutputMessage)
    assert [p.type for p in text.content] == ["output_text"]
    assert isinstance(call, ResponseFunctionToolCall)
    assert call.call_id == "c1"
    assert call.status == "completed"
    assert [group_of(item.id) for item in final.output] == ["r1m0", "r1m0", "r1m0", "r1m1"]


def test_output_items_read_back_as_the_answer() -> None:
    _, final = _encode(ANSWER).finish()
    back = messages_from_items([item.model_dump(exclude_none=True) for item in final.output])
    expected = Message("assistant", (Reasoning("Let me look.", "sig-1"), Text("Checking Paris."), CALL))
    assert back == (expected, ANSWER.messages[1])


def test_usage_is_the_model_responses_usage() -> None:
    encoder = _encode(Response((Message("assistant", (Text("ok"), Usage(12, 5))),)))
    assert (encoder.usage.input_tokens, encoder.usage.output_tokens, encoder.usage.total_tokens) == (12, 5, 17)


@pytest.mark.parametrize("content", [
    FunctionResult("c1", "x"), ApprovalRequest("a", CALL), FunctionCall("h1", "search", {}, server_label="docs"),
    FunctionCall("c1", "f", {}, informational_only=True),
], ids=["result", "approval", "hosted", "informational"])
def test_contents_without_an_sdk_output_form_fail_the_call(content: Content) -> None:
    with pytest.raises(UnsupportedContentError):
        AnswerEncoder(prefix="r1", response_id="x").feed(Update("assistant", (content,), "m0"))


def test_streamed_argument_chunks_are_deltas_of_one_call() -> None:
    encoder = AnswerEncoder(prefix="r1", response_id="resp-1")
    events = encoder.start()
    for chunk, name in (('{"city": "Pa', "get_weather"), ('ris"}', "")):
        events += encoder.feed(Update("assistant", (FunctionCall("c1", name, chunk),), "m0"))
    done, final = encoder.finish()
    events += done
    assert [event.type for event in events] == [
        "response.created", "response.in_progress", "response.output_item.added",
        "response.function_call_arguments.delta", "response.function_call_arguments.delta",
        "response.function_call_arguments.done", "response.output_item.done", "response.completed"]
    assert [event.sequence_number for event in events] == list(range(len(events)))
    (call,) = final.output
    assert isinstance(call, ResponseFunctionToolCall)
    assert call.arguments == '{"city": "Paris"}'


def test_streamed_events_fold_to_the_non_streaming_answer() -> None:
    encoder = AnswerEncoder(prefix="r1", response_id="resp-1")
    events = encoder.start()
    for position, message in enumerate(ANSWER.messages):
        for content in message.contents:
            events += encoder.feed(Update("assistant", (content,), f"m{position}"))
    events += encoder.finish()[0]
    decoder = StreamDecoder(_no_approval_ids)
    updates = [update for event in events for update in decoder.updates(RawResponsesStreamEvent(data=event))]
    _, final = _encode(ANSWER).finish()
    expected = messages_from_items([item.model_dump(exclude_none=True) for item in final.output])
    assert fold_updates(updates).messages == expected


# --- model calls ------------------------------------------------------------------------------------------------


class _RecordingProvider:
    def __init__(self, answer: Response) -> None:
        self.answer = answer
        self.calls: list[tuple[tuple[Message, ...], str | None, tuple[str, ...], Mapping[str, JSON] | None]] = []

    async def complete(self, messages: Sequence[Message], *, tool_choice: str | None = None,
                       tools: Sequence[str] = (), kwargs: Mapping[str, JSON] | None = None,
                       conversation_id: str | None = None) -> Response:
        self.calls.append((tuple(messages), tool_choice, tuple(tools), kwargs))
        return self.answer

    async def stream(self, messages: Sequence[Message], *, tool_choice: str | None = None,
                     tools: Sequence[str] = (), kwargs: Mapping[str, JSON] | None = None,
                     conversation_id: str | None = None) -> AsyncIterator[Update]:
        self.calls.append((tuple(messages), tool_choice, tuple(tools), kwargs))
        for position, message in enumerate(self.answer.messages):
            for content in message.contents:
                yield Update(message.role, (content,), f"m{position}")


def _tool(name: str) -> FunctionTool:
    async def invoke(context: Any, arguments: str) -> str:
        return "unused"

    return FunctionTool(name=name, description=name, params_json_schema={"type": "object", "properties": {}},
                        on_invoke_tool=invoke, strict_json_schema=False)


def test_a_model_call_hands_the_provider_choice_tools_and_kwargs() -> None:
    settings = ModelSettings(tool_choice="required", extra_args={"tool_request_id": "tool-123"})
    request = provider_request(None, [{"role": "user", "content": "Hi"}], settings, [_tool("a"), _tool("b")])
    assert request.tool_choice == "required"
    assert request.tools == ("a", "b")
    assert request.kwargs == {"tool_request_id": "tool-123"}
    assert provider_request(None, "Hi", ModelSettings(), []).tool_choice is None


@pytest.mark.parametrize("streaming", [False, True], ids=["non-streaming", "streaming"])
async def test_the_model_answers_from_the_provider_in_both_modes(streaming: bool) -> None:
    provider = _RecordingProvider(ANSWER)
    model = ProviderModel(provider)
    arguments: dict[str, Any] = {
        "system_instructions": None, "input": [{"role": "user", "content": "Weather?"}],
        "model_settings": ModelSettings(), "tools": [_tool("get_weather")], "output_schema": None, "handoffs": [],
        "tracing": ModelTracing.DISABLED, "previous_response_id": None, "conversation_id": None, "prompt": None}
    if streaming:
        events = [event async for event in model.stream_response(**arguments)]
        assert events[-1].type == "response.completed"
        output = events[-1].response.output  # type: ignore[union-attr]
    else:
        output = (await model.get_response(**arguments)).output
    assert messages_from_items([item.model_dump(exclude_none=True) for item in output])[1] == ANSWER.messages[1]
    assert provider.calls == [((Message("user", (Text("Weather?"),)),), None, ("get_weather",), {})]


# --- settings, tools and errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("schema", "strict"), [
    ({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}, True),
    ({"type": "object", "properties": {}}, True),
    ({"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
      "required": ["city"]}, False),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": True},
     False),
    ({"type": "object", "properties": {"o": {"type": "object", "properties": {"x": {"type": "integer"}}}},
      "required": ["o"]}, False),
])
def test_strict_mode_only_where_the_schema_is_strict_already(schema: dict[str, Any], strict: bool) -> None:
    assert strict_compatible(schema) is strict


def test_settings_without_an_sdk_form_are_logged() -> None:
    assert unmapped_settings(LoopConfig()) == []
    lines = unmapped_settings(LoopConfig(enabled=False, max_function_calls=1, max_consecutive_errors=2))
    assert [line.split(":")[0] for line in lines] == ["enabled=false", "max_function_calls=1",
                                                      "max_consecutive_errors=2"]


def test_raised_errors_are_classified() -> None:
    wrapped = RuntimeError("wrapped")
    wrapped.__cause__ = ScriptedProviderError("boom")
    assert raised_error(wrapped).kind == "provider"
    assert raised_error(ModelBehaviorError("Tool nope not found in agent x")).kind == "unknown-tool"
    assert raised_error(ValueError("other")).kind == "loop"


# --- tools ------------------------------------------------------------------------------------------------------


def _function_tools(*specs: ToolSpec, config: LoopConfig | None = None) -> tuple[dict[str, FunctionTool], ToolState,
                                                                                  ScriptedToolbox]:
    toolbox = ScriptedToolbox(specs)
    state = ToolState()
    tools = build_tools(toolbox.tools, config or LoopConfig(), state)
    return {tool.name: tool for tool in tools}, state, toolbox


async def _invoke(tool: FunctionTool, arguments: str, call_id: str = "c1") -> Any:
    context = ToolContext(context=None, tool_name=tool.name, tool_call_id=call_id, tool_arguments=arguments)
    return await tool.on_invoke_tool(context, arguments)


WEATHER = ToolSpec("get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}},
                                              "required": ["city"]}, behaviours=(ToolBehaviour(value="sunny"),))


async def test_a_tool_runs_the_scripted_body_with_the_call_id_of_its_context() -> None:
    tools, _, toolbox = _function_tools(WEATHER)
    assert await _invoke(tools["get_weather"], '{"city": "Paris"}', "call-7") == "sunny"
    assert [(e.tool, dict(e.arguments), e.call_id) for e in toolbox.executions] == [
        ("get_weather", {"city": "Paris"}, "call-7")]
    assert tools["get_weather"].strict_json_schema is True
    assert tools["get_weather"].needs_approval is False


@pytest.mark.parametrize(("detailed", "expected"), [
    (False, "An error occurred while running the tool. Please try again."), (True, "Error: quota exceeded")])
async def test_a_raising_tool_answers_through_the_sdk_failure_path(detailed: bool, expected: str) -> None:
    failing = ToolSpec("wire_money", behaviours=(ToolBehaviour("raise", "quota exceeded"),), approval_required=True)
    tools, state, _ = _function_tools(failing, config=LoopConfig(include_detailed_errors=detailed))
    assert tools["wire_money"].needs_approval is True
    assert await _invoke(tools["wire_money"], "{}") == expected
    assert state.log == ["tool wire_money raised ScriptedToolError: quota exceeded; the SDK's failure_error_function "
                         "answered the model"]


async def test_termination_and_added_tools_are_recorded_for_the_agent() -> None:
    loader = ToolSpec("load_math", behaviours=(ToolBehaviour(value="loaded", terminate=True, add_tools=("fact",)),))
    fact = ToolSpec("fact", offered=False)
    tools, state, _ = _function_tools(loader, fact)
    is_enabled = cast(Callable[[Any, Any], bool], tools["fact"].is_enabled)
    assert is_enabled(None, None) is False
    assert await _invoke(tools["load_math"], "", "c9") == "loaded"
    assert is_enabled(None, None) is True
    assert state.terminating == {"c9"}
    assert needs_termination(ScriptedToolbox([loader]).tools)
    state.begin_turn(resuming=True)
    assert state.added == {"fact"}
    state.begin_turn(resuming=False)
    assert state.added == set()


async def test_a_declaration_only_tool_never_runs_a_body() -> None:
    declared = ToolSpec("ask_user", declaration_only=True)
    tools, _, toolbox = _function_tools(declared)
    assert await _invoke(tools["ask_user"], "{}") == "An error occurred while running the tool. Please try again."
    assert toolbox.executions == []
