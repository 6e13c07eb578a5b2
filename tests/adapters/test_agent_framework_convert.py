"""Conversions between the neutral vocabulary and Agent Framework contents, both ways, on the installed release."""

from __future__ import annotations

import importlib.util
from typing import Literal

import pytest
from requirements_helper import INSTALL_PINNED, require

require(importlib.util.find_spec("agent_framework") is not None,
        f"agent-framework-core is not installed: {INSTALL_PINNED}")

from agent_framework import Content as FwContent  # noqa: E402
from agent_framework import Message as FwMessage  # noqa: E402

from harness.adapters.agent_framework.convert import (  # noqa: E402
    from_framework,
    message_from_framework,
    message_to_framework,
    to_framework,
    update_from_framework,
    update_to_framework,
)
from harness.adapters.agent_framework.features import FEATURES  # noqa: E402
from harness.contents import (  # noqa: E402
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Text,
    Update,
    Usage,
    UserInputRequest,
)

CALL = FunctionCall("c1", "get_weather", {"city": "Paris"})

ROUND_TRIPS: list[Content] = [
    Text("hello"),
    Reasoning("thinking", "opaque-signature"),
    Reasoning("no signature"),
    CALL,
    FunctionCall("c2", "search", {}, server_label="docs-server"),
    FunctionResult("c1", "sunny"),
    FunctionResult("c1", "Error: boom", error=True),
    ApprovalRequest("req-1", CALL),
    ApprovalResponse("req-1", True, CALL),
    ApprovalResponse("req-1", False, CALL),
    Usage(12, 5),
    # A tool's follow-up input request written back by a caller keeping its own history.
    UserInputRequest("input-c1", CALL, {"consent_link": "https://example.com/consent"}),
    UserInputRequest("input-c1", CALL, "staging-consent"),
]


@pytest.mark.parametrize("content", ROUND_TRIPS, ids=lambda c: type(c).__name__)
def test_neutral_content_survives_a_round_trip(content: Content) -> None:
    assert from_framework(to_framework(content)) == [content]


def test_a_caller_written_input_request_is_the_frameworks_consent_request_for_its_call() -> None:
    converted = to_framework(UserInputRequest("input-c1", CALL, "staging-consent"))
    assert (converted.type, converted.call_id, converted.consent_link) == ("oauth_consent_request", "c1",
                                                                          "staging-consent")


def test_informational_only_marker_survives() -> None:
    require(FEATURES.informational_only, f"agent-framework-core {FEATURES.version} has no informational-only marker; "
                                         f"the release pinned in constraints/latest.txt has: {INSTALL_PINNED}")
    call = FunctionCall("c3", "lookup", {"q": "x"}, informational_only=True)
    converted = to_framework(call)
    assert converted.informational_only is True
    assert from_framework(converted) == [call]


def test_reasoning_signature_becomes_protected_data() -> None:
    converted = to_framework(Reasoning("why", "sig-123"))
    assert converted.type == "text_reasoning"
    assert converted.protected_data == "sig-123"


def test_hosted_call_is_marked_for_the_framework() -> None:
    converted = to_framework(FunctionCall("c2", "search", {}, server_label="docs-server"))
    if FEATURES.hosted_flag:
        assert converted.hosted is True
    else:
        assert converted.additional_properties["server_label"] == "docs-server"


def test_declaration_only_pause_is_call_then_user_input_request() -> None:
    paused = FwContent.from_function_call("c1", "get_weather", arguments='{"city": "Paris"}')
    paused.user_input_request = True
    paused.id = "occ-1"
    # The pause carries the call as the framework finalised it, arguments included.
    expected = UserInputRequest("occ-1", FunctionCall("c1", "get_weather", {"city": "Paris"}))
    assert from_framework(paused) == [CALL, expected]


def test_metadata_only_pause_is_only_the_request() -> None:
    paused = FwContent.from_function_call("c1", "get_weather")
    paused.user_input_request = True
    paused.id = "occ-1"
    assert from_framework(paused) == [UserInputRequest("occ-1", FunctionCall("c1", "get_weather"))]


def test_unparseable_arguments_stay_text() -> None:
    broken = FwContent.from_function_call("c1", "f", arguments='{"a": 1}{"a": 1}')
    assert from_framework(broken) == [FunctionCall("c1", "f", '{"a": 1}{"a": 1}')]


def test_unknown_content_is_visible_not_dropped() -> None:
    converted = from_framework(FwContent.from_uri("https://example.invalid/x.png", media_type="image/png"))
    assert converted == [Text("[unsupported uri content]")]


def test_messages_keep_role_and_order() -> None:
    message = Message("assistant", (Reasoning("r", "s"), CALL, ApprovalRequest("req-1", CALL)))
    framework = message_to_framework(message)
    assert isinstance(framework, FwMessage)
    assert framework.role == "assistant"
    assert [c.type for c in framework.contents] == ["text_reasoning", "function_call", "function_approval_request"]
    assert message_from_framework(framework) == message


def test_updates_keep_message_id_role_and_finish_reason() -> None:
    update = Update("assistant", (FunctionCall("c1", "get_weather", '{"ci'),), "m-1", "tool_calls")
    framework = update_to_framework(update, "resp-1")
    assert framework.message_id == "m-1"
    assert framework.response_id == "resp-1"
    assert update_from_framework(framework) == update


def test_a_fragment_whose_client_delivered_a_mapping_reaches_the_framework_as_one() -> None:
    opened = update_to_framework(Update("assistant", (FunctionCall("c1", "get_weather", ""),), "m-1"), "resp-1")
    mapping = update_to_framework(Update("assistant", (FunctionCall("c1", "", {"city": "Paris"},
                                                                    arguments_as_mapping=True),), "m-1"), "resp-1")
    assert mapping.contents[0].arguments == {"city": "Paris"}
    # The framework's own fold joins the empty start to the mapping: one call, its arguments that mapping.
    folded = opened.contents[0] + mapping.contents[0]
    assert (folded.call_id, folded.name, folded.arguments) == ("c1", "get_weather", {"city": "Paris"})
    # Without the mark, a whole call's mapping is the JSON text a provider sends.
    whole = update_to_framework(Update("assistant", (CALL,), "m-1"), "resp-1")
    assert whole.contents[0].arguments == '{"city": "Paris"}'


def test_tool_input_request_becomes_user_input_request_with_its_payload() -> None:
    consent = FwContent.from_oauth_consent_request('{"slot": "morning"}')
    consent.call_id = "c1"
    consent.id = "occ-1"
    assert from_framework(consent) == [UserInputRequest("occ-1", FunctionCall("c1", ""), {"slot": "morning"})]


def test_tool_input_request_with_a_plain_link() -> None:
    consent = FwContent.from_oauth_consent_request("https://consent.example/1")
    assert from_framework(consent) == [UserInputRequest("", None, "https://consent.example/1")]


def test_a_hosted_servers_call_and_result_from_a_provider_client_are_a_hosted_pair() -> None:
    call = FwContent.from_mcp_server_tool_call("mcp_1", "web_search", server_name="web", arguments='{"query": "one"}')
    result = FwContent.from_mcp_server_tool_result("mcp_1", output=[FwContent.from_text("web results")])
    assert from_framework(call) == [FunctionCall("mcp_1", "web_search", {"query": "one"}, True, "web")]
    assert from_framework(result) == [FunctionResult("mcp_1", "web results")]


def _fragment(call_id: str, arguments: str, item: str, merge_mode: Literal["append", "replace"]) -> FwContent:
    """A call fragment as the Responses client streams it: id and name on every fragment, its output item named."""
    return FwContent.from_function_call(call_id, "get_weather", arguments=arguments, merge_mode=merge_mode,
                                        additional_properties={"openai": {"item_id": item}})


def test_fragments_of_one_provider_item_are_one_call_and_a_reused_id_in_another_item_is_another() -> None:
    from agent_framework import ChatResponseUpdate

    from harness.adapters.agent_framework.convert import StreamedSoFar

    so_far = StreamedSoFar()
    fragments = [_fragment("c1", '{"city": ', "fc_1", "append"), _fragment("c1", '"Paris"}', "fc_1", "append"),
                 _fragment("c1", '{"city": "Paris"}', "fc_1", "replace"),
                 _fragment("c1", '{"city": "Rome"}', "fc_2", "append"),
                 _fragment("c1", '{"city": "Rome"}', "fc_2", "replace")]
    read = [c for f in fragments
            for c in update_from_framework(ChatResponseUpdate(role="assistant", contents=[f]), so_far).contents]
    assert read == [FunctionCall("c1", "get_weather", '{"city": '), FunctionCall("c1", "", '"Paris"}'),
                    FunctionCall("c1", "get_weather", {"city": "Rome"})]


def test_a_fragment_without_a_call_id_continues_the_call_before_it_in_a_declaration_only_pause() -> None:
    """The Chat Completions client of some releases sends a call's id and name on its first fragment only; the
    pause the framework folds from the stream carries the whole arguments, and so must the caller's."""
    from harness.adapters.agent_framework.convert import StreamedSoFar

    so_far = StreamedSoFar()
    first = FwContent.from_function_call("c1", "get_weather", arguments='{"location": ')
    rest = FwContent.from_function_call("", "", arguments='"Paris"}')
    for raw, converted in ((first, FunctionCall("c1", "get_weather", '{"location": ')),
                           (rest, FunctionCall("", "", '"Paris"}'))):
        assert so_far.read("m1", raw, [converted]) == [converted]
    pause = so_far.finalised(UserInputRequest("input-c1", FunctionCall("c1", "get_weather", {})))
    assert pause == UserInputRequest("input-c1", FunctionCall("c1", "get_weather", {"location": "Paris"}))
