"""What an adapter may declare beyond its capabilities, and how the judging reports a few things once and precisely:

- `response_shape = "one-message-per-model-call"`: expectations compare consecutive assistant messages joined;
- `approval_controls = "own-pauses"`: scenarios whose caller writes approval requests are n/a with the reason;
- a model call beyond the script fails `script` only, not also `expect.error` and `expect.model-calls`;
- `inputs-unmutated` names the earlier response that changed and shows a diff of it.

Each is shown on the reference loop, wrapped so that it behaves as such a framework does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.adapters.reference import adapter as reference
from harness.contents import Message, Response, Text
from harness.contract import CallerView, Conversation, ConversationSetup, RaisedError, ScriptedProviderError, TurnInput
from harness.run.runner import run_scenario
from harness.scenario.loader import load_scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
ACROSS_MESSAGES = SCENARIOS / "normal" / "calls-across-messages.yaml"


def _joined(response: Response | None) -> Response | None:
    """The response as a loop holding one assistant message per model call returns it."""
    if response is None:
        return None
    messages: list[Message] = []
    for message in response.messages:
        if messages and message.role == "assistant" and messages[-1].role == "assistant":
            messages[-1] = Message("assistant", messages[-1].contents + message.contents)
        else:
            messages.append(message)
    return replace(response, messages=tuple(messages))


@dataclass
class _Wrapped:
    """The reference conversation, with one behaviour changed."""

    inner: Conversation
    setup: ConversationSetup
    behaviour: str
    turns: int = 0

    async def run_turn(self, turn: TurnInput) -> CallerView:
        view = await self.inner.run_turn(turn)
        self.turns += 1
        if self.behaviour == "joins-messages":
            return replace(view, response=_joined(view.response))
        if self.behaviour == "extra-model-call":
            try:
                await self.setup.provider.complete((Message.of("user", Text("once more")),))
            except ScriptedProviderError as error:
                return replace(view, response=None, error=RaisedError(type(error).__name__, str(error), "provider"))
        if self.behaviour == "rewrites-earlier-response" and view.earlier_responses_after:
            first = view.earlier_responses_after[0]
            changed = replace(first, messages=(*first.messages, Message.of("assistant", Text("added later"))))
            return replace(view, earlier_responses_after=(changed, *view.earlier_responses_after[1:]))
        return view

    async def close(self) -> None:
        await self.inner.close()


class _Adapter:
    """The reference adapter with a behaviour and the declarations given."""

    name = "reference"

    def __init__(self, behaviour: str, **declarations: Any) -> None:
        self._reference = reference()
        self.version = self._reference.version
        self.capabilities = self._reference.capabilities
        self.behaviour = behaviour
        for key, value in declarations.items():
            setattr(self, key, value)

    def open(self, setup: ConversationSetup) -> _Wrapped:
        return _Wrapped(self._reference.open(setup), setup, self.behaviour)


def _failed(result: Any) -> set[str]:
    return {c.id for c in result.checks if c.verdict == "fail"}


async def test_a_joined_response_fails_on_shape_unless_the_adapter_declares_it(tmp_path: Path) -> None:
    # The bundled scenario compares the logical transcript (`grouping: logical`); with exact grouping, only the
    # declaration lets a loop that joins a model call's messages pass.
    exact = tmp_path / "calls-across-messages.yaml"
    exact.write_text(ACROSS_MESSAGES.read_text(encoding="utf-8").replace("      grouping: logical\n", "", 1),
                     encoding="utf-8")
    scenario = load_scenario(exact)
    undeclared = await run_scenario(scenario, _Adapter("joins-messages"), "non-streaming")
    assert "expect.response" in _failed(undeclared)
    declared = await run_scenario(scenario, _Adapter("joins-messages", response_shape="one-message-per-model-call"),
                                  "non-streaming")
    assert declared.verdict == "pass", _failed(declared)


async def test_the_declared_shape_still_judges_every_call_and_result() -> None:
    """Joining compares the shape away, nothing else: a loop that returns the same calls in the wrong order fails."""
    scenario = load_scenario(ACROSS_MESSAGES)
    result = await run_scenario(scenario, _Adapter("plain", response_shape="one-message-per-model-call"),
                                "non-streaming")
    assert result.verdict == "pass"  # separate messages join the same way on both sides
    # The expectation joined matches the actual joined, and a different call would still show.
    from harness.checks.expectations import compare_messages
    from harness.contents import FunctionCall

    spec = scenario.turns[0].spec.expect.response
    assert spec is not None
    wrong = (Message.of("assistant", FunctionCall("c1", "get_weather", {"city": "Paris"})),)
    assert compare_messages(spec, wrong, joined=True)


async def test_own_pause_approvals_make_caller_written_requests_na_with_the_reason() -> None:
    scenario = load_scenario(SCENARIOS / "correlation" / "reused-id-handwritten-history.yaml")
    result = await run_scenario(scenario, _Adapter("plain", approval_controls="own-pauses"), "non-streaming")
    assert result.verdict == "n/a"
    assert "writes approval requests into its own history" in result.reason
    loop_issued = load_scenario(SCENARIOS / "approval" / "approved-resume.yaml")  # decisions on its own pauses
    assert (await run_scenario(loop_issued, _Adapter("plain", approval_controls="own-pauses"),
                               "non-streaming")).verdict == "pass"


async def test_an_unforeseen_model_call_is_reported_once_under_script() -> None:
    result = await run_scenario(load_scenario(SCENARIOS / "normal" / "single-call.yaml"),
                                _Adapter("extra-model-call"), "non-streaming")
    failed = _failed(result)
    assert "script" in failed
    assert not failed & {"expect.error", "expect.model-calls"}
    script = next(c for c in result.checks if c.id == "script")
    assert "unexpected model call #3" in script.message


async def test_a_changed_earlier_response_is_named_and_diffed() -> None:
    result = await run_scenario(load_scenario(SCENARIOS / "approval" / "approved-resume.yaml"),
                                _Adapter("rewrites-earlier-response"), "non-streaming")
    check = next(c for c in result.checks if c.id == "inputs-unmutated" and c.verdict == "fail")
    assert check.message == "the response returned on turn 1 changed during turn 2"
    assert any(line.startswith("+") and "added later" in line for line in check.diff)
    assert check.diff[0].startswith("--- the response returned on turn 1, as returned")
