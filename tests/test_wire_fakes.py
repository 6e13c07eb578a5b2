"""The wire fakes: OpenAI Responses and Chat Completions served in-process from a script.

What they render must be what the openai SDK's own types accept; what they parse back from a request must be what
the client sent, in the neutral vocabulary; every validation rule must refuse what it names and nothing else; what
a format cannot carry must be named; and the framework's own clients must run a call round over them end to end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai", reason="the wire fakes render and are checked against the openai SDK's types")
pytest.importorskip("httpx2", reason="the wire fakes serve the openai SDK through its HTTP library, httpx2")

from openai.types.chat import ChatCompletion, ChatCompletionChunk  # noqa: E402
from openai.types.responses import Response as SdkResponse  # noqa: E402
from openai.types.responses import ResponseStreamEvent  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402

from fakes import ModelStep, ScriptedProvider, ScriptedToolbox, ToolBehaviour, ToolSpec  # noqa: E402
from fakes.wire import make_wire_endpoint, wire_dialect  # noqa: E402
from fakes.wire.openai_chat import OpenAIChat  # noqa: E402
from fakes.wire.openai_responses import OpenAIResponses  # noqa: E402
from fakes.wire.service import ServiceState, WireService  # noqa: E402
from harness import load_scenario  # noqa: E402
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
)
from harness.contract import ConversationSetup, Dialect, LoopConfig, Mode, TurnInput  # noqa: E402

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
STREAM_EVENT: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
USER = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]}
CALL = FunctionCall("c1", "get_weather", {"city": "Paris"})
HOSTED = FunctionCall("mcpr-1", "search_docs", {"query": "approvals"}, server_label="docs")


def _step(*contents: Content, chunks: tuple[tuple[Content, ...], ...] | None = None) -> ModelStep:
    """One scripted answer; streamed one update per content unless `chunks` says otherwise."""
    updates = chunks if chunks is not None else tuple((c,) for c in contents)
    return ModelStep(Response((Message("assistant", contents),)),
                     tuple(Update("assistant", u, "m1") for u in updates))


def _steps(count: int) -> list[ModelStep]:
    return [ModelStep(Response((Message.of("assistant", Text("ok")),)), (Update("assistant", (Text("ok"),), "m"),),
                      optional=True) for _ in range(count)]


def _service(dialect: Dialect, steps: list[ModelStep] | None = None) -> tuple[WireService, ScriptedProvider]:
    provider = ScriptedProvider([steps if steps is not None else _steps(6)])
    return make_wire_endpoint(dialect, provider), provider


async def _post(service: WireService, body: dict[str, Any]) -> tuple[int, Any]:
    reply = await service.handle("POST", "/v1" + ("/responses" if service.dialect == "openai-responses"
                                                  else "/chat/completions"), json.dumps(body).encode())
    if reply.content_type == "text/event-stream":
        return reply.status, [e.removeprefix("data: ") for e in reply.body.decode().split("\n\n") if e]
    return reply.status, json.loads(reply.body)


# --- rendering: what the SDK's own types accept ------------------------------------------------------------------

REASONED = _step(
    Reasoning("Check the forecast first.", item_id="rs_1", kind="summary"),
    Reasoning(item_id="rs_2", kind="encrypted", data={"encrypted_content": "gAAAAB-opaque"}),
    Reasoning("Paris is the city.", signature="sig-1"),
    Text("Let me look."),
    CALL,
    HOSTED,
    FunctionResult("mcpr-1", "chapter 4"),
    ApprovalRequest("mcpr-2", FunctionCall("mcpr-2", "delete_docs", {"path": "/"}, server_label="docs")),
    Usage(12, 7),
    chunks=((Reasoning("Check the ", item_id="rs_1", kind="summary"),),
            (Reasoning("forecast first.", item_id="rs_1", kind="summary"),),
            (Reasoning(item_id="rs_2", kind="encrypted", data={"encrypted_content": "gAAAAB-opaque"}),),
            (Reasoning("Paris is the city.", signature="sig-1"),),
            (Text("Let me "),), (Text("look."),),
            (FunctionCall("c1", "get_weather", '{"city": '),), (FunctionCall("", "", '"Paris"}'),),
            (HOSTED,), (FunctionResult("mcpr-1", "chapter 4"),),
            (ApprovalRequest("mcpr-2", FunctionCall("mcpr-2", "delete_docs", {"path": "/"}, server_label="docs")),),
            (Usage(12, 7),)),
)


def test_a_responses_body_is_a_response_of_the_sdk() -> None:
    body = OpenAIResponses().render(REASONED.response, "resp_1", ServiceState())
    parsed = SdkResponse.model_validate(body)
    assert [item.type for item in parsed.output] == [
        "reasoning", "reasoning", "reasoning", "message", "function_call", "mcp_call", "mcp_approval_request"]
    assert parsed.usage is not None
    assert parsed.usage.total_tokens == 19


def test_every_responses_event_is_a_stream_event_of_the_sdk_in_the_services_order() -> None:
    state = ServiceState()
    events = [STREAM_EVENT.validate_python(json.loads(e))
              for e in OpenAIResponses().render_stream(REASONED, REASONED.updates, "resp_1", state)]
    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert kinds.count("response.output_item.added") == kinds.count("response.output_item.done") == 7
    # The script's own chunking reaches the client, and each item's deltas add up to what the item holds.
    summary = [e.delta for e in events if e.type == "response.reasoning_summary_text.delta"]
    arguments = [e.delta for e in events if e.type == "response.function_call_arguments.delta"]
    assert summary == ["Check the ", "forecast first."]
    assert arguments == ['{"city": ', '"Paris"}']
    assert [e.delta for e in events if e.type == "response.output_text.delta"] == ["Let me ", "look."]
    assert [e.delta for e in events if e.type == "response.reasoning_text.delta"] == ["Paris is the city."]
    final = events[-1].response
    call = next(i for i in final.output if i.type == "function_call")
    assert call.arguments == '{"city": "Paris"}'
    # A reasoning item's encrypted content comes with the finished item only.
    added = [e.item for e in events if e.type == "response.output_item.added" and e.item.type == "reasoning"]
    done = [e.item for e in events if e.type == "response.output_item.done" and e.item.type == "reasoning"]
    assert [i.encrypted_content for i in added] == [None, None, None]
    assert [i.encrypted_content is not None for i in done] == [True, True, True]


def test_a_chat_body_is_a_completion_of_the_sdk() -> None:
    step = _step(Text("Let me look."), CALL, FunctionCall("c2", "get_weather", {"city": "Rome"}), Usage(3, 4))
    parsed = ChatCompletion.model_validate(OpenAIChat().render(step.response, "chatcmpl-1", ServiceState()))
    choice = parsed.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Let me look."
    assert [c.id for c in choice.message.tool_calls or []] == ["c1", "c2"]
    assert parsed.usage is not None
    assert parsed.usage.total_tokens == 7


def test_every_chat_chunk_is_a_chunk_of_the_sdk_and_the_stream_ends_with_done() -> None:
    step = _step(CALL, chunks=((FunctionCall("c1", "get_weather", '{"city": '),), (FunctionCall("", "", '"Paris"}'),)))
    events = OpenAIChat().render_stream(step, step.updates, "chatcmpl-1", ServiceState())
    assert events[-1] == "[DONE]"
    chunks = [ChatCompletionChunk.model_validate(json.loads(e)) for e in events[:-1]]
    fragments = [c.function.arguments for chunk in chunks for choice in chunk.choices
                 for c in choice.delta.tool_calls or [] if c.function is not None]
    assert "".join(a or "" for a in fragments) == '{"city": "Paris"}'
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_a_chat_call_whose_name_comes_after_its_id_gets_the_name_on_a_later_chunk() -> None:
    step = _step(CALL, chunks=((FunctionCall("c1", "", ""),), (FunctionCall("c1", "get_weather", ""),),
                               (FunctionCall("c1", "", '{"city": '),), (FunctionCall("", "", '"Paris"}'),)))
    events = OpenAIChat().render_stream(step, step.updates, "chatcmpl-1", ServiceState())
    chunks = [ChatCompletionChunk.model_validate(json.loads(e)) for e in events[:-1]]
    deltas = [(c.index, c.id, c.function.name if c.function else None) for chunk in chunks
              for choice in chunk.choices for c in choice.delta.tool_calls or []]
    assert deltas == [(0, "c1", ""), (0, None, "get_weather"), (0, None, None), (0, None, None)]


# --- parsing requests back ----------------------------------------------------------------------------------------


async def test_responses_messages_calls_and_outputs_parse_back_as_sent() -> None:
    service, provider = _service("openai-responses")
    status, _ = await _post(service, {"model": "m", "store": False, "instructions": "Be brief.", "input": [
        {"type": "message", "role": "developer", "content": "Use metric units."}, USER,
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "get_weather",
         "arguments": '{"city":"Paris"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Sunny."}]},
    ], "tools": [{"type": "function", "name": "get_weather", "parameters": {}}], "tool_choice": "auto"})
    assert status == 200
    request = provider.requests[0]
    assert request.messages == (
        Message.of("system", Text("Be brief.")), Message.of("system", Text("Use metric units.")),
        Message.of("user", Text("Weather in Paris?")), Message.of("assistant", CALL),
        Message.of("tool", FunctionResult("c1", "sunny")), Message.of("assistant", Text("Sunny.")))
    assert (request.tools, request.tool_choice) == (("get_weather",), "auto")


async def test_a_plain_string_input_is_one_user_message() -> None:
    service, provider = _service("openai-responses")
    assert (await _post(service, {"model": "m", "input": "Hello"}))[0] == 200
    assert provider.requests[0].messages == (Message.of("user", Text("Hello")),)


async def test_reasoning_with_encrypted_content_parses_back_with_its_payload() -> None:
    service, provider = _service("openai-responses")
    status, _ = await _post(service, {"model": "m", "store": False, "input": [
        USER,
        {"type": "reasoning", "id": "rs_9", "summary": [{"type": "summary_text", "text": "Look it up."}],
         "encrypted_content": "gAAAAB-abc"},
        {"type": "reasoning", "id": "rs_10", "summary": [],
         "content": [{"type": "reasoning_text", "text": "Paris, France."}], "encrypted_content": "gAAAAB-def"},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
    ]})
    assert status == 200
    assert provider.requests[0].messages[1] == Message.of(
        "assistant", Reasoning("Look it up.", "gAAAAB-abc", "rs_9", "summary"),
        Reasoning("Paris, France.", "gAAAAB-def", "rs_10", "text"), CALL)


async def test_what_the_service_adds_to_a_reasoning_item_is_taken_back_out() -> None:
    """The real service gives every reasoning item an id and an encrypted payload; the script's view has neither."""
    scripted = Reasoning("Look it up.", kind="summary")
    service, provider = _service("openai-responses", [_step(scripted, CALL), *_steps(1)])
    _, first = await _post(service, {"model": "m", "store": False, "input": [USER]})
    item = first["output"][0]
    assert item["id"]
    assert item["encrypted_content"]
    status, _ = await _post(service, {"model": "m", "store": False, "input": [
        USER, item, first["output"][1], {"type": "function_call_output", "call_id": "c1", "output": "sunny"}]})
    assert status == 200
    assert provider.requests[1].messages[1] == Message.of("assistant", scripted, CALL)
    # What the caller got is restated the same way; a payload the loop changed stays visible as a signature.
    assert service.as_scripted(Reasoning("Look it up.", item["encrypted_content"], item["id"])) == scripted
    assert service.as_scripted(Reasoning("Look it up.", "tampered", item["id"])) == Reasoning(
        "Look it up.", "tampered", None, "summary")


async def test_as_scripted_changes_only_what_its_dialect_says_it_may_restate() -> None:
    """A run's process asks the judge's `as_scripted` only for the contents `may_restate` names: every other
    content must come back as it is, whatever the service issued before."""
    scripted = Reasoning("Look it up.", kind="summary")
    service, _ = _service("openai-responses", [_step(scripted, HOSTED, CALL), *_steps(1)])
    _, first = await _post(service, {"model": "m", "store": False, "input": [USER]})
    issued = first["output"][0]
    contents: list[Content] = [Text("ok"), CALL, HOSTED, scripted, Reasoning("Look it up.", "gAAAAB-x", "rs_9"),
                               Reasoning("Look it up.", issued["encrypted_content"], issued["id"]),
                               FunctionResult("c1", "sunny"), ApprovalRequest("mcpr-2", HOSTED)]
    restated = [c for c in contents if service.as_scripted(c) != c]
    assert restated  # the issued reasoning item and the hosted call are restated: the property below is not empty
    dialect = wire_dialect("openai-responses")
    assert all(dialect.may_restate(c) for c in restated)
    for name in ("openai-chat", "gemini"):
        other, _ = _service(name)
        assert not any(wire_dialect(name).may_restate(c) for c in contents)
        assert all(other.as_scripted(c) is c for c in contents)


def test_a_run_process_relies_on_may_restate_only_for_the_wire_fakes_own_endpoint() -> None:
    """Over another endpoint (a test's stand-in), whose `as_scripted` may be anything, it asks the judge each time."""
    from wire_adapters import TrivialEndpoint

    from harness.run.host import setup_form

    provider = ScriptedProvider([_steps(1)])
    for endpoint, relied_on in ((make_wire_endpoint("openai-responses", provider), True),
                                (TrivialEndpoint("openai-responses"), False)):
        setup = ConversationSetup("wire.form", "streaming", LoopConfig(), provider, ScriptedToolbox([]),
                                  dialect="openai-responses", wire=endpoint)
        form = setup_form(setup).wire
        assert form is not None
        assert form.dialect_restates is relied_on


async def test_a_hosted_approval_request_and_its_decision_parse_back() -> None:
    service, provider = _service("openai-responses")
    status, _ = await _post(service, {"model": "m", "store": False, "input": [
        USER,
        {"type": "mcp_approval_request", "id": "mcpr-1", "server_label": "docs", "name": "search_docs",
         "arguments": '{"query":"approvals"}'},
        {"type": "mcp_approval_response", "approval_request_id": "mcpr-1", "approve": True},
    ]})
    assert status == 200
    assert provider.requests[0].messages[1:] == (
        Message.of("assistant", ApprovalRequest("mcpr-1", HOSTED)),
        Message.of("user", ApprovalResponse("mcpr-1", True, HOSTED)))


async def test_a_continuation_is_answered_with_the_stored_conversation_first() -> None:
    service, provider = _service("openai-responses", [_step(CALL), *_steps(1)])
    _, first = await _post(service, {"model": "m", "input": [USER]})  # `store` is on by default
    status, _ = await _post(service, {"model": "m", "previous_response_id": first["id"], "input": [
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"}]})
    assert status == 200
    request = provider.requests[1]
    assert request.conversation_id == first["id"]
    assert request.stored == (Message.of("user", Text("Weather in Paris?")), Message.of("assistant", CALL))
    assert request.messages == (Message.of("tool", FunctionResult("c1", "sunny")),)


async def test_chat_messages_parse_back_with_their_calls_and_tool_results() -> None:
    service, provider = _service("openai-chat")
    status, _ = await _post(service, {"model": "m", "messages": [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}},
            {"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "rainy"}]},
    ], "tools": [{"type": "function", "function": {"name": "get_weather"}}], "tool_choice": "auto"})
    assert status == 200
    assert provider.requests[0].messages == (
        Message.of("system", Text("Be brief.")), Message.of("user", Text("Weather in Paris?")),
        Message.of("assistant", CALL, FunctionCall("c2", "get_weather", {"city": "Rome"})),
        Message.of("tool", FunctionResult("c1", "sunny"), FunctionResult("c2", "rainy")))


# --- validation rules, both ways ----------------------------------------------------------------------------------

OUTPUT = {"type": "function_call_output", "call_id": "c1", "output": "sunny"}
FC = {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": '{"city":"Paris"}'}


async def _rejected(service: WireService, body: dict[str, Any]) -> tuple[str, str, str | None]:
    """The rule a request broke, with the error message and param the service answered; fails if it passed."""
    status, answer = await _post(service, body)
    assert status == 400, answer
    error = answer["error"]
    assert error["type"] == "invalid_request_error"
    return service.exchanges[-1].rejections[0].rule, error["message"], error["param"]


async def _accepted(service: WireService, body: dict[str, Any]) -> Any:
    status, answer = await _post(service, body)
    assert status == 200, answer
    return answer


async def test_responses_a_continuation_needs_a_stored_response() -> None:
    service, _ = _service("openai-responses")
    assert await _rejected(service, {"model": "m", "previous_response_id": "resp_x", "input": [USER]}) == (
        "previous-response-exists", "Previous response with id 'resp_x' not found.", "previous_response_id")
    unstored = await _accepted(service, {"model": "m", "store": False, "input": [USER]})
    assert (await _rejected(service, {"model": "m", "previous_response_id": unstored["id"], "input": [USER]}))[0] \
        == "previous-response-exists"
    stored = await _accepted(service, {"model": "m", "input": [USER]})
    await _accepted(service, {"model": "m", "previous_response_id": stored["id"], "input": [USER]})


async def test_responses_an_output_needs_its_call() -> None:
    service, _ = _service("openai-responses")
    assert await _rejected(service, {"model": "m", "store": False, "input": [USER, OUTPUT]}) == (
        "output-has-call", "No tool call found for function call output with call_id c1.", "input")
    await _accepted(service, {"model": "m", "store": False, "input": [USER, FC, OUTPUT]})


async def test_responses_a_call_needs_its_output() -> None:
    service, _ = _service("openai-responses")
    assert await _rejected(service, {"model": "m", "store": False, "input": [USER, FC]}) == (
        "call-has-output", "No tool output found for function call c1.", "input")
    await _accepted(service, {"model": "m", "store": False, "input": [USER, FC, OUTPUT]})


async def test_responses_a_replayed_call_needs_the_reasoning_it_came_with() -> None:
    service, _ = _service("openai-responses", [_step(Reasoning("Look it up."), CALL), *_steps(2)])
    first = await _accepted(service, {"model": "m", "store": False, "input": [USER]})
    reasoning, call = first["output"]
    rule, message, param = await _rejected(service, {"model": "m", "store": False, "input": [USER, call, OUTPUT]})
    assert (rule, param) == ("reasoning-with-call", "input")
    assert message == (f"Item '{call['id']}' of type 'function_call' was provided without its required "
                       f"'reasoning' item: '{reasoning['id']}'.")
    await _accepted(service, {"model": "m", "store": False, "input": [USER, reasoning, call, OUTPUT]})


async def test_responses_a_continuation_may_not_resend_a_stored_item() -> None:
    service, _ = _service("openai-responses", [_step(CALL), *_steps(2)])
    first = await _accepted(service, {"model": "m", "input": [USER]})
    call = first["output"][0]
    assert await _rejected(service, {"model": "m", "previous_response_id": first["id"], "input": [call, OUTPUT]}) \
        == ("no-duplicate-items", f"Duplicate item found with id {call['id']}.", "input")
    await _accepted(service, {"model": "m", "previous_response_id": first["id"], "input": [OUTPUT]})


async def test_responses_an_approval_response_needs_its_request() -> None:
    service, _ = _service("openai-responses")
    decision = {"type": "mcp_approval_response", "approval_request_id": "mcpr-1", "approve": True}
    rule, message, _ = await _rejected(service, {"model": "m", "store": False, "input": [USER, decision]})
    assert rule == "approval-response-has-request"
    assert "'mcpr-1'" in message
    request = {"type": "mcp_approval_request", "id": "mcpr-1", "server_label": "docs", "name": "search_docs",
               "arguments": "{}"}
    await _accepted(service, {"model": "m", "store": False, "input": [USER, request, decision]})


CHAT_CALL = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}]}
CHAT_USER = {"role": "user", "content": "Weather in Paris?"}
CHAT_RESULT = {"role": "tool", "tool_call_id": "c1", "content": "sunny"}


async def test_chat_a_tool_message_answers_a_preceding_call() -> None:
    service, _ = _service("openai-chat")
    assert await _rejected(service, {"model": "m", "messages": [CHAT_USER, CHAT_RESULT]}) == (
        "tool-answers-call", "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'.", "messages.[1].role")
    # A tool message after an unrelated message no longer follows its call.
    late = [CHAT_USER, CHAT_CALL, {"role": "user", "content": "And Rome?"}, CHAT_RESULT]
    assert (await _rejected(service, {"model": "m", "messages": late}))[0] in ("calls-answered", "tool-answers-call")
    await _accepted(service, {"model": "m", "messages": [CHAT_USER, CHAT_CALL, CHAT_RESULT]})


async def test_chat_every_call_is_answered() -> None:
    service, _ = _service("openai-chat")
    assert await _rejected(service, {"model": "m", "messages": [CHAT_USER, CHAT_CALL]}) == (
        "calls-answered", "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: c1", "messages.[1].role")
    await _accepted(service, {"model": "m", "messages": [CHAT_USER, CHAT_CALL, CHAT_RESULT]})


async def test_a_rejected_request_never_reaches_the_script() -> None:
    service, provider = _service("openai-chat")
    await _rejected(service, {"model": "m", "messages": [CHAT_USER, CHAT_CALL]})
    assert provider.requests == []
    assert service.exchanges[-1].status == 400


# --- what a format cannot carry -----------------------------------------------------------------------------------

UNEXPRESSIBLE: list[tuple[str, Dialect, str]] = [
    ("normal/calls-across-messages.yaml", "openai-responses", "answers with 2 messages"),
    ("normal/informational-only.yaml", "openai-chat", "informational-only without a hosted server"),
    ("normal/invocation-disabled.yaml", "openai-responses", "invocation keyword arguments tool_request_id"),
    ("errors/tool-raises-key-error.yaml", "openai-chat", "flagged as an error"),
    ("approval/hosted-pass-through.yaml", "openai-responses", "an mcp_approval_request item has one id"),
    ("approval/hosted-pass-through.yaml", "openai-chat", "no approval requests"),
    ("normal/reasoning-bound-call.yaml", "openai-chat", "carries no reasoning"),
    ("continuation/conversation-id-stop.yaml", "openai-chat", "stores no conversations"),
    ("limits/post-limit-hosted-pair.yaml", "openai-chat", "runs no hosted tools"),
    ("normal/streaming-call-mapping-arguments.yaml", "openai-chat", "streams call arguments as a mapping"),
    ("normal/streaming-call-mapping-arguments.yaml", "openai-responses", "streams call arguments as a mapping"),
]


def test_gemini_carries_streamed_mapping_arguments() -> None:
    # Gemini streams each call whole, its arguments an object: what a client receives as a mapping.
    scenario = load_scenario(SCENARIOS / "normal/streaming-call-mapping-arguments.yaml")
    assert wire_dialect("gemini").unexpressible(scenario) is None


@pytest.mark.parametrize(("path", "dialect", "reason"), UNEXPRESSIBLE)
def test_a_feature_the_format_cannot_carry_is_named(path: str, dialect: Dialect, reason: str) -> None:
    assert reason in (wire_dialect(dialect).unexpressible(load_scenario(SCENARIOS / path)) or "")


@pytest.mark.parametrize("path", ["normal/single-call.yaml", "normal/streaming-call-deltas.yaml",
                                  "approval/approved-resume.yaml", "mixed/unrelated-turn.yaml"])
@pytest.mark.parametrize("dialect", ["openai-responses", "openai-chat"])
def test_what_both_formats_carry_is_expressible(path: str, dialect: Dialect) -> None:
    assert wire_dialect(dialect).unexpressible(load_scenario(SCENARIOS / path)) is None


@pytest.mark.parametrize("path", ["normal/reasoning-items.yaml", "normal/reasoning-bound-call.yaml",
                                  "continuation/conversation-id-stop.yaml", "limits/post-limit-hosted-pair.yaml"])
def test_reasoning_storage_and_hosted_results_go_over_responses(path: str) -> None:
    assert wire_dialect("openai-responses").unexpressible(load_scenario(SCENARIOS / path)) is None


def test_a_chat_choice_cannot_order_text_after_its_calls(tmp_path: Path) -> None:
    scenario = tmp_path / "text-after-call.yaml"
    scenario.write_text("""\
id: wire.text-after-call
title: Text after a call
spec: [Single non-streaming call]
tools: [{name: get_weather, returns: sunny}]
turns:
  - input: [{user: 'Weather?'}]
    model:
      - contents: [{function_call: {call_id: c1, name: get_weather}}, {text: Checking.}]
      - contents: [{text: Sunny.}]
""")
    loaded = load_scenario(scenario)
    assert "text after a call" in (wire_dialect("openai-chat").unexpressible(loaded) or "")
    assert wire_dialect("openai-responses").unexpressible(loaded) is None


# --- end to end through the framework's own clients ---------------------------------------------------------------


@pytest.mark.parametrize("mode", ["non-streaming", "streaming"])
@pytest.mark.parametrize("dialect", ["openai-responses", "openai-chat"])
async def test_a_call_round_runs_through_the_frameworks_own_client(dialect: Dialect, mode: Mode) -> None:
    pytest.importorskip("agent_framework_openai",
                        reason="the framework's OpenAI clients come with agent-framework-openai")
    from harness.run.registry import load_adapter

    answer = _step(Text("It is "), Text("sunny."))
    provider = ScriptedProvider([[_step(CALL, chunks=((FunctionCall("c1", "get_weather", '{"city": '),),
                                                      (FunctionCall("", "", '"Paris"}'),))), answer]])
    toolbox = ScriptedToolbox([ToolSpec("get_weather", parameters={
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        behaviours=(ToolBehaviour("return", "sunny"),))])
    service = make_wire_endpoint(dialect, provider)
    setup = ConversationSetup("wire.call-round", mode, LoopConfig(), provider, toolbox, dialect=dialect, wire=service)
    conversation = load_adapter("agent_framework").open(setup)
    provider.begin_turn(0)
    user = Message.of("user", Text("Weather in Paris?"))
    view = await conversation.run_turn(TurnInput(0, (user,)))
    await conversation.close()

    assert view.error is None
    assert view.response is not None
    assert view.response.messages == (
        Message.of("assistant", CALL), Message.of("tool", FunctionResult("c1", "sunny")),
        Message.of("assistant", Text("It is sunny.")))
    assert [(e.tool, e.arguments) for e in toolbox.executions] == [("get_weather", {"city": "Paris"})]
    assert [(e.status, e.rejections) for e in service.exchanges] == [(200, ()), (200, ())]
    assert [r.streaming for r in provider.requests] == [mode == "streaming"] * 2
    assert provider.requests[1].messages == (
        user, Message.of("assistant", CALL), Message.of("tool", FunctionResult("c1", "sunny")))
    assert provider.violations == []
