"""Conversions between the neutral vocabulary and ADK's genai contents, requests, events and caller input."""

from __future__ import annotations

import pytest

# An optional extra: installed by `pip install -e '.[google-adk]'`.
pytest.importorskip("google.adk", reason="google-adk is not installed: pip install -e '.[google-adk]'")

from google.adk.events.event import Event  # noqa: E402
from google.adk.events.event_actions import EventActions  # noqa: E402
from google.adk.models.llm_request import LlmRequest  # noqa: E402
from google.adk.tools.tool_confirmation import ToolConfirmation  # noqa: E402
from google.genai import types  # noqa: E402

from harness.adapters.google_adk.convert import content_messages, part_content, result_value  # noqa: E402
from harness.adapters.google_adk.events import EventReader, response_of, streamed_updates  # noqa: E402
from harness.adapters.google_adk.history import CONFIRMATION_CALL, ApprovalIds, InputBuilder  # noqa: E402
from harness.adapters.google_adk.model import ScriptedStream, identity_instruction, request_messages  # noqa: E402
from harness.adapters.google_adk.tools import SchemaFunctionTool  # noqa: E402
from harness.contents import (  # noqa: E402
    APPROVAL_PENDING,
    ApprovalRequest,
    ApprovalResponse,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Text,
    Update,
    UserInputRequest,
    fold_updates,
)
from harness.script import ToolOutcome, ToolSpec  # noqa: E402

AGENT = "agent"


def call_part(call_id: str, name: str, **args: object) -> types.Part:
    return types.Part(function_call=types.FunctionCall(id=call_id, name=name, args=dict(args)))


def response_part(call_id: str, name: str, response: dict[str, object]) -> types.Part:
    return types.Part(function_response=types.FunctionResponse(id=call_id, name=name, response=response))


def test_function_responses_read_back_as_the_value_adk_wrapped_or_an_error() -> None:
    assert result_value({"result": 7}) == (7, False)
    assert result_value({"error": "This tool call is rejected."}) == ("This tool call is rejected.", True)
    assert result_value({"status": "sent", "reference": "TX-1"}) == ({"status": "sent", "reference": "TX-1"}, False)


def test_thought_parts_are_reasoning_with_their_signature() -> None:
    part = types.Part(text="think", thought=True, thought_signature=b"sig-1")
    assert part_content(part) == Reasoning("think", "sig-1")


def test_a_user_content_of_function_responses_is_a_tool_message() -> None:
    content = types.Content(role="user", parts=[response_part("c1", "f", {"result": "ok"}), types.Part(text="next")])
    assert content_messages(content) == [Message.of("tool", FunctionResult("c1", "ok")),
                                         Message.of("user", Text("next"))]


def test_the_request_shows_the_history_without_adks_identity_sentence() -> None:
    request = LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text="hi")])])
    request.config.system_instruction = identity_instruction(AGENT) + "\n\nBe brief."
    assert request_messages(request, AGENT) == [Message.of("system", Text("Be brief.")), Message.of("user", Text("hi"))]
    request.config.system_instruction = identity_instruction(AGENT)
    assert request_messages(request, AGENT) == [Message.of("user", Text("hi"))]


def test_a_stream_yields_text_fragments_then_whole_calls_then_the_final_response() -> None:
    stream = ScriptedStream()
    partials = [*stream.partials(Update("assistant", (Text("Let me "),), "m")),
                *stream.partials(Update("assistant", (FunctionCall("c1", "f", '{"a":'),), "m")),
                *stream.partials(Update("assistant", (FunctionCall("", "", "1}"),), "m")),
                *stream.flush_calls()]
    assert [p.content.parts[0].text for p in partials[:1] if p.content and p.content.parts] == ["Let me "]
    last = partials[-1].content
    assert last is not None
    assert last.parts is not None
    assert last.parts[0].function_call is not None
    assert last.parts[0].function_call.args == {"a": 1}
    final = stream.final()
    assert final.partial is False
    assert final.content is not None
    assert [p.text or (p.function_call.name if p.function_call else None) for p in final.content.parts or []] == [
        "Let me ", "f"]


def test_an_empty_update_does_not_end_a_streamed_call_its_later_arguments_continue() -> None:
    # The short fuzz profile's stream split (seed 20260602): the call's id and name, an empty update, then its
    # arguments without id or name. The call was flushed at the empty update, so ADK got a call without arguments
    # and a second, nameless one (which it gave an id of its own and left without a result).
    stream = ScriptedStream()
    partials = [*stream.partials(Update("assistant", (FunctionCall("c1", "get_weather", ""),), "m")),
                *stream.partials(Update("assistant", (), "m")),
                *stream.partials(Update("assistant", (FunctionCall("", "", '{"city": "Paris"}'),), "m")),
                *stream.partials(Update("assistant", (), "m")),
                *stream.flush_calls()]
    calls = [part.function_call for p in partials if p.content for part in p.content.parts or []]
    assert [(c.id, c.name, c.args) for c in calls if c is not None] == [("c1", "get_weather", {"city": "Paris"})]
    text_ends_it = ScriptedStream()
    ended = [*text_ends_it.partials(Update("assistant", (FunctionCall("c1", "f", "{}"),), "m")),
             *text_ends_it.partials(Update("assistant", (Text("done"),), "m"))]
    assert [bool(p.content and p.content.parts and p.content.parts[0].function_call) for p in ended] == [True, False]


def test_held_calls_go_out_before_the_reasoning_that_follows_them_in_one_update() -> None:
    # Seed 203 of the fuzzer: c1's last fragment, then one update with the next reasoning item and c2. The held c1
    # went out after that reasoning, which the caller then read as joined to the reasoning before c1.
    stream = ScriptedStream()
    partials = [*stream.partials(Update("assistant", (Reasoning("First."),), "m")),
                *stream.partials(Update("assistant", (FunctionCall("c1", "look", ""),), "m")),
                *stream.partials(Update("assistant", (FunctionCall("", "", '{"q": "a"}'),), "m")),
                *stream.partials(Update("assistant", (Reasoning("T"), Reasoning("hen."),
                                                      FunctionCall("c2", "pay", "{}")), "m")),
                *stream.flush_calls()]
    shown = [(part.function_call.id if part.function_call else part.text) for p in partials if p.content
             for part in p.content.parts or []]
    assert shown == ["First.", "c1", "T", "hen.", "c2"]


def _confirmation_events() -> list[Event]:
    """What ADK yields for one gated call beside a safe one: the calls, the responses, the confirmation request."""
    calls = Event(id="e1", invocation_id="i", author=AGENT, content=types.Content(
        role="model", parts=[call_part("c1", "pay", amount=5), call_part("c2", "look", q="x")]))
    responses = Event(id="e2", invocation_id="i", author=AGENT, content=types.Content(role="user", parts=[
        response_part("c1", "pay", {"error": "This tool call requires confirmation, please approve or reject."}),
        response_part("c2", "look", {"result": "found"})]),
        actions=EventActions(requested_tool_confirmations={"c1": ToolConfirmation(hint="?")}))
    request = Event(id="e3", invocation_id="i", author=AGENT, content=types.Content(role="model", parts=[
        types.Part(function_call=types.FunctionCall(id="adk-x", name=CONFIRMATION_CALL, args={
            "originalFunctionCall": {"id": "c1", "name": "pay", "args": {"amount": 5}},
            "toolConfirmation": {"hint": "?", "confirmed": False}}))]), long_running_tool_ids={"adk-x"})
    return [calls, responses, request]


def test_a_confirmation_request_is_an_approval_request_and_adks_pending_response_no_result() -> None:
    ids = ApprovalIds()
    response = response_of(EventReader(ids, {}), _confirmation_events())
    assert [m.role for m in response.messages] == ["assistant", "tool", "assistant"]
    assert response.messages[1].contents == (FunctionResult("c2", "found"),)
    assert response.messages[2].contents == (ApprovalRequest("adk-confirmation-1", FunctionCall("c1", "pay",
                                                                                              {"amount": 5})),)
    assert ids.adk("adk-confirmation-1") == "adk-x"


def test_the_request_folds_into_the_message_holding_its_call_when_nothing_comes_between() -> None:
    calls, responses, request = _confirmation_events()
    response = response_of(EventReader(ApprovalIds(), {}), [calls, request])
    assert len(response.messages) == 1
    assert isinstance(response.messages[0].contents[-1], ApprovalRequest)
    assert responses.actions.requested_tool_confirmations  # the fixture's pending response stays out above


def test_the_end_of_a_streamed_response_is_not_streamed_twice() -> None:
    partial = Event(id="p", invocation_id="i", author=AGENT, partial=True,
                    content=types.Content(role="model", parts=[types.Part(text="Hello")]))
    final = Event(id="f", invocation_id="i", author=AGENT, content=types.Content(role="model",
                                                                                 parts=[types.Part(text="Hello")]))
    reader = EventReader(ApprovalIds(), {})
    updates = streamed_updates(reader, [partial, final])
    assert updates == [Update("assistant", (Text("Hello"),), "adk-event-1")]
    assert response_of(reader, [partial, final]).messages == (Message.of("assistant", Text("Hello")),)


def test_partial_events_with_ids_of_their_own_are_one_streamed_message() -> None:
    # Releases before 2.10.0 mint a new event id after every yielded event, partial ones included: the chunks of
    # one response must still fold into one message, and a second response after the end stays a message apart.
    def model_event(event_id: str, partial: bool, *parts: types.Part) -> Event:
        return Event(id=event_id, invocation_id="i", author=AGENT, partial=partial,
                     content=types.Content(role="model", parts=list(parts)))

    events = [model_event("p1", True, types.Part(text="Look up ", thought=True)),
              model_event("p2", True, types.Part(text="Paris.", thought=True)),
              model_event("p3", True, types.Part(text="", thought=True, thought_signature=b"sig")),
              model_event("f1", False, types.Part(text="Look up Paris.", thought=True, thought_signature=b"sig")),
              model_event("p4", True, types.Part(text="Sunny.")),
              model_event("f2", False, types.Part(text="Sunny."))]
    reader = EventReader(ApprovalIds(), {})
    folded = fold_updates(streamed_updates(reader, events))
    assert folded.messages == response_of(reader, events).messages
    assert [len(message.contents) for message in folded.messages] == [1, 1]


def test_caller_history_becomes_session_events_and_the_last_message_the_new_one() -> None:
    ids = ApprovalIds()
    call = FunctionCall("c1", "pay", {"amount": 5})
    messages = (Message.of("user", Text("Pay")), Message.of("assistant", call, ApprovalRequest("r1", call)),
                Message.of("user", ApprovalResponse("r1", True, call)))
    caller = InputBuilder(AGENT, ids, {}).build(messages)
    # The request is ADK's pair: the pending response it writes while waiting, then the confirmation call.
    assert [e.author for e in caller.events] == ["user", AGENT, AGENT, AGENT]
    assert set(caller.events[2].actions.requested_tool_confirmations) == {"c1"}
    confirmation = caller.events[3].get_function_calls()[0]
    assert confirmation.name == CONFIRMATION_CALL
    assert confirmation.id == "r1"
    assert confirmation.args is not None
    assert confirmation.args["originalFunctionCall"] == {"id": "c1", "name": "pay", "args": {"amount": 5}}
    assert caller.events[3].long_running_tool_ids == {"r1"}
    assert caller.new_message is not None
    assert caller.new_message.parts is not None
    decision = caller.new_message.parts[0].function_response
    assert decision is not None
    assert decision.response == {"confirmed": True}
    assert decision.id == "r1"


def test_a_pending_placeholder_is_adks_own_pending_response_written_once() -> None:
    call = FunctionCall("c1", "pay", {"amount": 5})
    messages = (Message.of("user", Text("Pay")), Message.of("assistant", call, ApprovalRequest("r1", call)),
                Message.of("tool", FunctionResult("c1", APPROVAL_PENDING)), Message.of("user", Text("Later")))
    caller = InputBuilder(AGENT, ApprovalIds(), {}).build(messages)
    pending = [e for e in caller.events if e.actions.requested_tool_confirmations]
    assert len(pending) == 1
    assert set(pending[0].actions.requested_tool_confirmations) == {"c1"}
    responses = pending[0].get_function_responses()
    assert responses[0].response == {"error": "This tool call requires confirmation, please approve or reject."}
    placeholder_only = (Message.of("user", Text("Pay")), Message.of("assistant", call),
                        Message.of("tool", FunctionResult("c1", APPROVAL_PENDING)), Message.of("user", Text("Later")))
    assert [e for e in InputBuilder(AGENT, ApprovalIds(), {}).build(placeholder_only).events
            if e.actions.requested_tool_confirmations] == []


def test_a_string_turn_is_the_new_message_alone() -> None:
    caller = InputBuilder(AGENT, ApprovalIds(), {}).build("hello")
    assert caller.events == []
    assert caller.new_message == types.Content(role="user", parts=[types.Part(text="hello")])


class _Tool:
    def __init__(self) -> None:
        self.spec = ToolSpec(name="get_weather", parameters={
            "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"]})
        self.name = self.spec.name
        self.runs: list[dict[str, object]] = []

    async def run(self, arguments: dict[str, object], call_id: str | None = None) -> ToolOutcome:
        self.runs.append(dict(arguments))
        return ToolOutcome(value="sunny")


def test_a_schema_tool_is_declared_with_the_scenarios_schema_verbatim() -> None:
    tool = SchemaFunctionTool(_Tool())  # type: ignore[arg-type]
    declaration = tool._get_declaration()  # pyright: ignore[reportPrivateUsage]
    assert declaration is not None
    assert declaration.name == "get_weather"
    assert declaration.parameters_json_schema == _Tool().spec.parameters


def test_results_the_caller_replays_stay_history_and_answers_to_waiting_calls_are_new_input() -> None:
    safe, gated, asked = FunctionCall("s1", "look", {}), FunctionCall("g1", "pay", {}), FunctionCall("d1", "ask", {})
    messages = (Message.of("user", Text("Go")),
                Message.of("assistant", safe, gated, ApprovalRequest("r1", gated), asked,
                           UserInputRequest("d1", asked)),
                Message.of("tool", FunctionResult("s1", "found")),
                Message.of("tool", FunctionResult("d1", "answer")),
                Message.of("user", ApprovalResponse("r1", True, gated)))
    caller = InputBuilder(AGENT, ApprovalIds(), {}).build(messages)
    # The replayed result of s1 shares ADK's event with g1's pending response, in the calls' order.
    batch = next(e for e in caller.events if e.actions.requested_tool_confirmations)
    assert [r.id for r in batch.get_function_responses()] == ["s1", "g1"]
    assert caller.new_message is not None
    new_parts = caller.new_message.parts or []
    assert [p.function_response.id for p in new_parts if p.function_response] == ["d1", "r1"]
