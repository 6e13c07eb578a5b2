"""Conversions between the neutral vocabulary and pydantic-ai's parts, stream items, events and run input."""

from __future__ import annotations

import importlib.metadata
import importlib.util
from typing import Any

import pytest

# An optional extra that CI does not install yet (its findings are still being triaged): skip, never fail.
pytest.importorskip("pydantic_ai", reason="pydantic-ai is not installed: pip install -e '.[pydantic-ai]'")

from pydantic import ValidationError  # noqa: E402
from pydantic_ai import DeferredToolRequests, DeferredToolResults, ToolDenied  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    FunctionToolResultEvent,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    PartDeltaEvent,
    PartStartEvent,
    RetryFeedbackPart,
    RetryInfo,
    SystemPromptPart,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolAvailabilityDeltaPart,
    ToolCallPart,
    ToolCallPartDelta,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters  # noqa: E402
from pydantic_ai.models.function import DeltaThinkingPart, DeltaToolCall  # noqa: E402
from pydantic_ai.tools import ToolDefinition  # noqa: E402
from pydantic_ai.usage import RunUsage  # noqa: E402

from harness.adapters.pydantic_ai.caller import build_input, register_originals, returned  # noqa: E402
from harness.adapters.pydantic_ai.conversation import PydanticAIAdapter, raised, usage_limits  # noqa: E402
from harness.adapters.pydantic_ai.convert import (  # noqa: E402
    model_bound_messages,
    part_content,
    request_part,
    response_part,
    response_to_model,
)
from harness.adapters.pydantic_ai.model import forwarded_kwargs, offered_tools, tool_choice  # noqa: E402
from harness.adapters.pydantic_ai.stream import RunUpdates, ScriptedStream  # noqa: E402
from harness.adapters.pydantic_ai.tools import INPUT_REQUESTS, argument_model  # noqa: E402
from harness.contents import (  # noqa: E402
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
    fold_updates,
)
from harness.contract import LoopConfig, ScriptedProviderError  # noqa: E402

CALL = FunctionCall("c1", "get_weather", {"city": "Paris"})


# --- parts <-> contents -----------------------------------------------------------------------------------------

RESPONSE_ROUND_TRIPS: list[Content] = [
    Text("hello"),
    Reasoning("thinking", "opaque-signature"),
    Reasoning("no signature"),
    CALL,
    FunctionCall("c2", "get_weather", {"city": "Rome"}, informational_only=True),
    FunctionCall("c3", "search", {"q": "x"}, server_label="docs"),
]


@pytest.mark.parametrize("content", RESPONSE_ROUND_TRIPS, ids=lambda c: type(c).__name__)
def test_response_content_survives_a_round_trip(content: Content) -> None:
    assert part_content(response_part(content)) == content


def test_calls_the_loop_must_not_run_are_native_calls() -> None:
    assert isinstance(response_part(FunctionCall("c2", "f", {}, informational_only=True)), NativeToolCallPart)
    assert isinstance(response_part(CALL), ToolCallPart)


def test_signed_reasoning_carries_the_provider_name_streamed_reasoning_gets() -> None:
    part = response_part(Reasoning("why", "sig"))
    assert isinstance(part, ThinkingPart)
    assert (part.signature, part.provider_name) == ("sig", "function")


def test_request_parts_by_role() -> None:
    names = {"c1": "get_weather"}
    system = request_part(Text("be brief"), "system", names)
    assert isinstance(system, SystemPromptPart)
    assert system.content == "be brief"
    user = request_part(Text("hi"), "user", names)
    assert isinstance(user, UserPromptPart)
    assert user.content == "hi"
    result = request_part(FunctionResult("c1", "sunny"), "tool", names)
    assert isinstance(result, ToolReturnPart)
    assert (result.tool_name, result.tool_call_id, result.content, result.outcome) == (
        "get_weather", "c1", "sunny", "success")
    failed = request_part(FunctionResult("c1", "boom", error=True), "tool", names)
    assert isinstance(failed, ToolReturnPart)
    assert failed.outcome == "failed"


@pytest.mark.parametrize("outcome", ["failed", "denied", "retried", "interrupted"])
def test_a_result_that_is_not_a_success_is_an_error_result(outcome: Any) -> None:
    part = ToolReturnPart("f", "no", "c1", outcome=outcome)
    assert part_content(part) == FunctionResult("c1", "no", error=True)


def test_results_are_the_text_the_model_gets_unless_read_raw() -> None:
    part = ToolReturnPart("f", {"reference": "TX-1"}, "c1")
    assert part_content(part) == FunctionResult("c1", '{"reference":"TX-1"}')
    assert part_content(part, raw=True) == FunctionResult("c1", {"reference": "TX-1"})
    assert part_content(ToolReturnPart("f", 120, "c1")) == FunctionResult("c1", "120")


def test_arguments_that_are_not_a_json_object_stay_text() -> None:
    assert part_content(ToolCallPart("f", '{"city":', "c1")) == FunctionCall("c1", "f", '{"city":')
    assert part_content(ToolCallPart("f", None, "c1")) == FunctionCall("c1", "f", {})
    assert part_content(ToolCallPart("f", '{"a": 1}', "c1")) == FunctionCall("c1", "f", {"a": 1})


def test_model_bound_history_splits_requests_by_role_and_skips_control_parts() -> None:
    history = [
        ModelRequest(parts=[SystemPromptPart("be brief"), UserPromptPart("weather?")]),
        ModelResponse(parts=[ThinkingPart("hm", signature="s"), ToolCallPart("get_weather", {"city": "Paris"}, "c1")]),
        ModelRequest(parts=[ToolReturnPart("get_weather", "sunny", "c1"),
                            ToolAvailabilityDeltaPart(tools_added=["x"], tool_call_id="c1"),
                            RetryFeedbackPart("Please return text or call a tool.",
                                              retry=RetryInfo(cause="no_output", attempt=1, max_retries=1))]),
        ModelResponse(parts=[]),
    ]
    assert model_bound_messages(history) == (
        Message("system", (Text("be brief"),)),
        Message("user", (Text("weather?"),)),
        Message("assistant", (Reasoning("hm", "s"), CALL)),
        Message("tool", (FunctionResult("c1", "sunny"),)),
        Message("user", (Text("Please return text or call a tool."),)),
    )


def test_a_scripted_response_is_one_model_response_of_every_message() -> None:
    response = Response((Message("assistant", (CALL, Usage(1, 2))),
                         Message("assistant", (FunctionCall("c2", "get_weather", {"city": "Rome"}),))), "tool_calls")
    model = response_to_model(response)
    assert [part_content(p) for p in model.parts] == [CALL, FunctionCall("c2", "get_weather", {"city": "Rome"})]
    assert model.finish_reason == "tool_call"
    assert response_to_model(Response((), "unheard-of")).finish_reason is None


# --- the request the model receives -----------------------------------------------------------------------------


def _tool(name: str, *, hidden: bool = False) -> ToolDefinition:
    return ToolDefinition(name=name, parameters_json_schema={"type": "object"}, defer_loading=hidden)


def test_offered_tools_leave_out_tools_withheld_until_revealed() -> None:
    parameters = ModelRequestParameters(function_tools=[_tool("a"), _tool("b", hidden=True)],
                                        output_tools=[_tool("final_result")])
    assert offered_tools(parameters) == ["a", "final_result"]


def test_tool_choice_is_what_pydantic_ai_resolves_and_none_without_tools() -> None:
    with_tools = ModelRequestParameters(function_tools=[_tool("a")])
    assert tool_choice(None, with_tools) == "auto"
    assert tool_choice({"tool_choice": "none"}, with_tools) == "none"
    assert tool_choice(None, ModelRequestParameters(function_tools=[_tool("a")], allow_text_output=False)) == (
        "required")
    assert tool_choice(None, ModelRequestParameters()) is None


def test_invocation_kwargs_travel_as_extra_body() -> None:
    assert forwarded_kwargs({"extra_body": {"tool_request_id": "t-1"}}) == {"tool_request_id": "t-1"}
    assert forwarded_kwargs({"temperature": 0.1}) == {}
    assert forwarded_kwargs(None) == {}


# --- streaming ----------------------------------------------------------------------------------------------------


def test_scripted_updates_become_stream_items_one_part_per_content() -> None:
    stream = ScriptedStream()
    items = [item for update in (
        Update("assistant", (Reasoning("why", "sig"),)),
        Update("assistant", (Text("Checking."),)),
        Update("assistant", (FunctionCall("c1", "get_weather", '{"city":'),)),
        Update("assistant", (FunctionCall("c1", "", '"Paris"}'),)),
        Update("assistant", (FunctionCall("c2", "get_weather", {"city": "Rome"}),)),
        Update("assistant", (Usage(1, 1),)),
    ) for item in stream.items(update)]
    assert items == [
        {1: DeltaThinkingPart(content="why", signature="sig")},
        "Checking.",
        {2: DeltaToolCall("get_weather", '{"city":', tool_call_id="c1")},
        {2: DeltaToolCall(None, '"Paris"}', tool_call_id="c1")},
        {3: DeltaToolCall("get_weather", '{"city": "Rome"}', tool_call_id="c2")},
    ]


def test_run_events_become_updates_that_fold_into_the_response() -> None:
    updates = RunUpdates()
    events = [
        PartStartEvent(index=0, part=ThinkingPart("why")),
        PartDeltaEvent(index=0, delta=ThinkingPartDelta(signature_delta="sig")),
        PartStartEvent(index=1, part=ToolCallPart("get_weather", '{"city":', "c1")),
        PartDeltaEvent(index=1, delta=ToolCallPartDelta(args_delta='"Paris"}')),
        FunctionToolResultEvent(ToolReturnPart("get_weather", "sunny", "c1")),
        PartStartEvent(index=0, part=TextPart("It is ")),
        PartDeltaEvent(index=0, delta=TextPartDelta("sunny.")),
    ]
    streamed = [u for u in (updates.update(e) for e in events) if u is not None]
    assert fold_updates(streamed).messages == (
        Message("assistant", (Reasoning("why", "sig"), CALL)),
        Message("tool", (FunctionResult("c1", "sunny"),)),
        Message("assistant", (Text("It is sunny."),)),
    )


def test_the_callers_own_answer_is_not_streamed_back() -> None:
    updates = RunUpdates({"c1"})
    assert updates.update(FunctionToolResultEvent(ToolReturnPart("f", "answer", "c1"))) is None
    assert updates.update(FunctionToolResultEvent(ToolReturnPart("f", "done", "c2"))) is not None


# --- the caller's input -------------------------------------------------------------------------------------------

PENDING = Message("assistant", (CALL, ApprovalRequest("c1", CALL)))


def test_a_final_plain_user_message_is_the_prompt() -> None:
    built = build_input((Message("user", (Text("first"),)), Message("assistant", (Text("ok"),)),
                         Message("user", (Text("second"),))), {}, set())
    assert built.prompt == "second"
    assert [type(m).__name__ for m in built.history] == ["ModelRequest", "ModelResponse"]
    assert build_input("just text", {}, set()).prompt == "just text"


def test_decisions_after_the_last_assistant_message_are_the_runs_deferred_results() -> None:
    built = build_input((Message("user", (Text("delete"),)), PENDING,
                         Message("user", (ApprovalResponse("c1", False, CALL),))), {}, set())
    assert built.prompt is None
    assert built.approvals == {"c1": False}
    results = built.deferred_results(lambda approvals, calls: DeferredToolResults(approvals=dict(approvals)))
    assert results is not None
    assert results.approvals == {"c1": False}
    history_response = built.history[1]
    assert isinstance(history_response, ModelResponse)
    assert len(history_response.parts) == 1
    assert built.reread() == (Message("user", (Text("delete"),)), PENDING,
                              Message("user", (ApprovalResponse("c1", False, CALL),)))


def test_a_decision_further_back_is_transcript_only_and_noted() -> None:
    built = build_input((Message("user", (Text("delete"),)), PENDING,
                         Message("user", (ApprovalResponse("c1", True, CALL),)),
                         Message("tool", (FunctionResult("c1", "deleted"),)),
                         Message("assistant", (Text("Done."),)), Message("user", (Text("thanks"),))), {}, set())
    assert built.approvals == {}
    assert built.deferred_results(lambda a, c: DeferredToolResults()) is None
    assert built.notes
    assert "c1" in built.notes[0]


def test_a_result_for_a_pending_deferred_call_is_its_answer() -> None:
    built = build_input((Message("tool", (FunctionResult("c1", "consent given"),)),
                         Message("user", (Text("go on"),))), {}, {"c1"})
    assert built.answers == {"c1": "consent given"}
    assert built.history == []
    assert built.reread() == (Message("tool", (FunctionResult("c1", "consent given"),)),
                              Message("user", (Text("go on"),)))


def test_a_replayed_response_hands_back_the_objects_the_run_returned() -> None:
    response = ModelResponse(parts=[ToolCallPart("get_weather", {"city": "Paris"}, "c1")])
    done = returned([ModelRequest(parts=[UserPromptPart("weather?")]), response],
                    DeferredToolRequests(approvals=[ToolCallPart("get_weather", {"city": "Paris"}, "c1")]))
    originals: dict[str, Any] = {}
    register_originals(done, originals)
    replay = (Message("user", (Text("weather?"),)), *done.read().messages,
              Message("user", (ApprovalResponse("c1", True, CALL),)))
    built = build_input(replay, originals, set())
    assert built.history[1] is response
    assert built.reread() == replay


def test_a_change_to_the_callers_objects_shows_when_reread() -> None:
    built = build_input((Message("user", (Text("delete"),)), PENDING,
                         Message("user", (ApprovalResponse("c1", True, CALL),))), {}, set())
    response = built.history[1]
    assert isinstance(response, ModelResponse)
    call: Any = response.parts[0]
    call.args = {"city": "Rome"}  # what a run changing the caller's part in place would do
    reread = built.reread()
    assert not isinstance(reread, str)
    assert reread[1].contents[0] == FunctionCall("c1", "get_weather", {"city": "Rome"})
    built.history.append(ModelRequest(parts=[]))
    reread = built.reread()
    assert not isinstance(reread, str)
    assert "changed" in str(reread[-1].contents[0])


# --- what a run returns -------------------------------------------------------------------------------------------


def test_a_response_leaves_out_the_callers_prompt_and_appends_the_pause_to_the_assistant() -> None:
    call = ToolCallPart("get_weather", {"city": "Paris"}, "c1")
    done = returned([ModelRequest(parts=[SystemPromptPart("sys"), UserPromptPart("weather?")]),
                     ModelResponse(parts=[call])], DeferredToolRequests(approvals=[call]))
    assert done.read().messages == (Message("assistant", (CALL, ApprovalRequest("c1", CALL))),)


def test_a_pause_after_tool_results_is_a_new_assistant_message_with_each_input_request() -> None:
    ask = ToolCallPart("deploy", {"env": "prod"}, "c2")
    output = DeferredToolRequests(calls=[ask], metadata={"c2": {INPUT_REQUESTS: ["consent", "ticket"]}})
    done = returned([ModelRequest(parts=[ToolReturnPart("archive", "archived", "c1")])], output)
    deploy = FunctionCall("c2", "deploy", {"env": "prod"})
    assert done.read().messages == (
        Message("tool", (FunctionResult("c1", "archived"),)),
        Message("assistant", (UserInputRequest("c2", deploy, "consent"), UserInputRequest("c2", deploy, "ticket"))),
    )


def test_the_callers_answer_recorded_as_a_result_is_not_returned_to_it() -> None:
    done = returned([ModelRequest(parts=[ToolReturnPart("ask", "yes", "c1"), UserPromptPart("go on")]),
                     ModelResponse(parts=[TextPart("ok")])], "ok", answered={"c1"})
    assert done.read().messages == (Message("assistant", (Text("ok"),)),)


def test_a_denial_is_an_error_result_with_the_call_id() -> None:
    done = returned([ModelRequest(parts=[ToolReturnPart("delete", ToolDenied().message, "c1", outcome="denied")])],
                    "x")
    assert done.read().messages == (Message("tool", (FunctionResult("c1", "The tool call was denied.", True),)),)


# --- tools, limits, errors ----------------------------------------------------------------------------------------


def test_arguments_are_validated_against_the_declared_parameters() -> None:
    model = argument_model("wire", {"type": "object", "properties": {"amount": {"type": "integer"},
                                                                      "to": {"type": "string"}},
                                    "required": ["amount", "to"], "additionalProperties": False})
    model.model_validate({"amount": 100, "to": "Bob"})
    for invalid in ({"amount": "one hundred", "to": "Bob"}, {"to": "Bob"}, {"amount": 1, "to": "B", "memo": "x"}):
        with pytest.raises(ValidationError):
            model.model_validate(invalid)
    argument_model("open", {"type": "object", "properties": {"x": {"type": "string"}}}).model_validate({"y": 1})


def test_limits_are_per_run_and_offset_by_the_usage_a_conversation_carries() -> None:
    assert usage_limits(LoopConfig()).request_limit == 50  # pydantic-ai's own default
    limits = usage_limits(LoopConfig(max_iterations=2, max_function_calls=3))
    assert (limits.request_limit, limits.tool_calls_limit) == (2, 3)
    carried = usage_limits(LoopConfig(max_iterations=1), RunUsage(requests=4, tool_calls=2))
    assert (carried.request_limit, carried.tool_calls_limit) == (5, None)


def test_a_provider_fault_is_reported_as_the_providers_even_when_wrapped() -> None:
    wrapped = RuntimeError("model request failed")
    wrapped.__cause__ = ScriptedProviderError("boom")
    assert raised(wrapped).kind == "provider"
    assert raised(ExceptionGroup("many", [ValueError("x"), ScriptedProviderError("y")])).kind == "provider"
    assert raised(ValueError("x")).kind == "loop"


def test_the_adapter_claims_only_what_it_maps() -> None:
    adapter = PydanticAIAdapter()
    assert adapter.name == "pydantic_ai"
    assert {"middleware-termination", "hosted-tools"}.isdisjoint(adapter.capabilities)
    assert adapter.version == importlib.metadata.version("pydantic-ai-slim")
