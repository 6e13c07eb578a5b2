"""The format and fakes behind the continuation and recovery scenarios: the scripted service that stores
conversations, provider and tool faults, tool delays, the reference loop's saved session, and their diagnostics."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

import pytest
from requirements_helper import SPEC_MISSING, require

from fakes import ScriptedProvider, ScriptedResponseInvalidated, ScriptedToolbox, ToolBehaviour, ToolSpec
from harness import ScenarioFileError, load_scenario
from harness.adapters.reference.session import InvalidSessionState, LoopSession, Outbox, tampered
from harness.contents import (
    ApprovalRequest,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Response,
    Text,
    Update,
    UserInputRequest,
    fold_updates,
)
from harness.scenario.spec_rows import GAPS_SECTION, parse_spec_rows
from harness.script import ModelStep, ScriptedToolError

SPEC_FILE = Path(__file__).resolve().parents[2] / "shared" / "spec" / "004-python-function-calling-loop.md"


def _step(text: str, conversation_id: str | None = None) -> ModelStep:
    message = Message("assistant", (Text(text),))
    return ModelStep(Response((message,), "stop", conversation_id),
                     (Update("assistant", (Text(text),), "m", "stop", conversation_id),))


# --- the scripted provider as a service that stores conversations ------------------------------------------------


async def test_a_continued_request_is_answered_over_the_stored_conversation() -> None:
    provider = ScriptedProvider([[_step("first", "resp-1"), _step("second", "resp-2")]])
    ask = Message("user", (Text("hi"),))
    await provider.complete([ask])
    follow_up = Message("user", (Text("more"),))
    await provider.complete([follow_up], conversation_id="resp-1")
    first, second = provider.requests
    assert (first.conversation_id, first.stored) == (None, ())
    assert second.conversation_id == "resp-1"
    assert second.seen == (ask, Message("assistant", (Text("first"),)), follow_up)
    assert provider.violations == []


async def test_continuing_an_id_the_service_never_issued_is_a_script_violation() -> None:
    provider = ScriptedProvider([[_step("answer")]])
    await provider.complete([Message("user", (Text("hi"),))], conversation_id="resp-9")
    assert [v.message for v in provider.violations] == [
        "model call #1 continues conversation 'resp-9', which no earlier scripted response issued"]


async def test_an_invalidated_request_raises_its_own_fault_and_stores_nothing() -> None:
    failing = ModelStep(Response(()), (), raises="gone", fault="invalidated")
    provider = ScriptedProvider([[failing]])
    with pytest.raises(ScriptedResponseInvalidated, match="^gone$"):
        await provider.complete([Message("user", (Text("hi"),))])


def test_folding_keeps_the_last_conversation_id_a_chunk_carried() -> None:
    folded = fold_updates([Update("assistant", (Text("a"),), "m", None, "resp-1"),
                           Update("assistant", (Text("b"),), "m", "stop", None)])
    assert folded == Response((Message("assistant", (Text("ab"),)),), "stop", "resp-1")


# --- scripted tools: delays and exception types -----------------------------------------------------------------


async def test_a_delayed_invocation_finishes_after_a_prompt_one_started_later() -> None:
    box = ScriptedToolbox([ToolSpec("slow", behaviours=(ToolBehaviour("return", "s", delay=5),)),
                           ToolSpec("fast", behaviours=(ToolBehaviour("return", "f"),))])
    finished: list[str] = []

    async def call(name: str) -> None:
        await box.tools[name].run({})
        finished.append(name)

    await asyncio.gather(call("slow"), call("fast"))
    assert [e.tool for e in box.executions] == ["slow", "fast"]  # recorded when they start
    assert finished == ["fast", "slow"]


async def test_a_raise_may_name_a_builtin_exception_type() -> None:
    box = ScriptedToolbox([ToolSpec("t", behaviours=(ToolBehaviour("raise", "missing", exception="KeyError"),
                                                     ToolBehaviour("raise", "plain")))])
    with pytest.raises(KeyError):
        await box.tools["t"].run({})
    with pytest.raises(ScriptedToolError, match="^plain$"):
        await box.tools["t"].run({})


# --- the reference loop's saved session ------------------------------------------------------------------------


def _session() -> LoopSession:
    call = FunctionCall("c1", "deploy", {"version": "4.2"})
    history = [Message("user", (Text("go"),)),
               Message("assistant", (Reasoning("why", "sig"), call, ApprovalRequest("a1", call),
                                     UserInputRequest("i1", FunctionCall("c2", "confirm"), {"k": [1]})))]
    outbox = Outbox({"c1": (FunctionResult("c1", "ok"),)}, {"c2": FunctionResult("c2", "yes")}, 1, 1)
    return LoopSession(history, "resp-3", outbox)


def test_a_session_survives_its_json_form() -> None:
    session = _session()
    assert LoopSession.from_json(session.to_json()) == session


@pytest.mark.parametrize("value", [-1, True, "2", 0.5, None])
def test_a_malformed_restored_error_count_fails_closed(value: object) -> None:
    saved = tampered(_session().to_json(), {"consecutive_errors": value})  # type: ignore[dict-item]
    with pytest.raises(InvalidSessionState, match="errors_in_row must be a non-negative integer"):
        LoopSession.from_json(saved)


def test_a_session_saved_before_the_counters_existed_restores_them_as_zero() -> None:
    data = json.loads(_session().to_json())
    del data["outbox"]["errors_in_row"]
    restored = LoopSession.from_json(json.dumps(data))
    assert restored.outbox is not None
    assert restored.outbox.errors_in_row == 0


def test_a_structurally_broken_session_is_refused_not_crashed_on() -> None:
    with pytest.raises(InvalidSessionState, match="malformed"):
        LoopSession.from_json(json.dumps({"history": [{"role": "user"}], "conversation_id": None, "outbox": None}))


# --- the catalogue and the scenario format ---------------------------------------------------------------------


def test_the_spec_files_required_gap_is_a_row_of_its_own_section() -> None:
    require(SPEC_FILE.exists(), SPEC_MISSING)
    rows = parse_spec_rows(SPEC_FILE.read_text(encoding="utf-8"))
    gaps = [row.name for row in rows if row.section == GAPS_SECTION]
    assert gaps == ["Service-owned `previous_response_id` continuation cannot execute a terminal approval again on "
                    "a later turn."]


SCENARIO = textwrap.dedent("""\
    id: t.format
    title: New format features
    spec: [Conversation continuation]
    tools:
      - name: t
        returns: ok
    turns:
      - input: hi
        model:
          - contents:
              - text: hello
    """)


@pytest.mark.parametrize(("change", "head"), [
    (("      - contents:", "      - raises: boom\n        fault: exploded\n      - contents:"),
     "11:16: error[invalid-value]: turn 1 › model step 1 › fault: Input should be 'error' or 'invalidated' (got "
     "'exploded')"),
    (("      - contents:", "      - conversation_id: resp-1\n        raises: boom\n      - contents:"),
     "10:9: error[invalid-value]: turn 1 › model step 1: a failing model call issues no 'conversation_id'"),
    (("    returns: ok", "    behaviour:\n      - return: ok\n        exception: KeyError"),
     "7:9: error[invalid-value]: tool 1 › behaviour 1: 'exception' names the type a 'raise' behaviour raises: it "
     "needs 'raise'"),
    (("    returns: ok", "    behaviour:\n      - return_parts: [only one]"),
     "7:23: error[invalid-value]: tool 1 › behaviour 1 › return_parts: List should have at least 2 items"),
    (("    returns: ok", "    behaviour:\n      - return: ok\n        return_parts: [a, b]"),
     "7:9: error[invalid-value]: tool 1 › behaviour 1: a behaviour takes at most one of 'return', 'return_parts',"),
    (("    returns: ok", "    behaviour:\n      - return: ok\n        delay: -1"),
     "8:16: error[invalid-value]: tool 1 › behaviour 1 › delay: Input should be greater than or equal to 0"),
    (("  - input: hi", "  - input: hi\n    restore_session: {errors: 1}"),
     "9:23: error[unknown-key]: turn 1 › restore_session has unknown key 'errors'"),
    (("          - text: hello", "          - text: hello\n"
      "    expect:\n      requests:\n        - call: 1\n          messages: {$contains: [x]}\n"
      "      cites: [Conversation continuation]"),
     "15:33: error[invalid-value]: turn 1 › expect › request 1 › messages › $contains: expected one message"),
    (("  - input: hi", "  - input: hi\n    restore_session: true"),
     "9:22: error[missing-capability]: a turn with 'restore_session' needs 'session-serialization' in 'requires'"),
    (("      - contents:", "      - conversation_id: resp-1\n        contents:"),
     "10:26: error[missing-capability]: a model step with 'conversation_id' needs 'service-continuation' in "
     "'requires'"),
    (("  - input: hi", "  - input:\n      - message:\n          role: tool\n          contents:\n"
      "            - function_result: {call_id: c1, result: x, occurrence: first}"),
     "12:69: error[dangling-reference]: turn 1 › input item 1 › message › content 1 › function_result refers to "
     "unknown call label 'first'"),
])
def test_bad_values_in_the_new_fields_name_file_line_and_field(tmp_path: Path, change: tuple[str, str],
                                                              head: str) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text(SCENARIO.replace(*change), encoding="utf-8")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    assert str(caught.value).splitlines()[0].startswith(f"{path}:{head}")


# --- parallel-order with reused call ids ----------------------------------------------------------------------


def _calls(*ids: str) -> Message:
    return Message("assistant", tuple(FunctionCall(i, "t") for i in ids))


def _results(*ids: str) -> Message:
    return Message("tool", tuple(FunctionResult(i, f"r-{i}") for i in ids))


def test_a_call_id_reused_within_a_batch_owns_one_result_per_call() -> None:
    from harness.checks.invariants import _order_problems  # pyright: ignore[reportPrivateUsage]

    assert _order_problems([_calls("c1", "c2", "c2"), _results("c1", "c2", "c2")]) == []
    assert _order_problems([_calls("c1", "c2", "c2"), _results("c2", "c1", "c2")]) == [
        "results arrive as ['c2', 'c1', 'c2'], the model called ['c1', 'c2', 'c2']"]


def test_a_later_round_reusing_a_batchs_ids_in_another_order_is_not_judged_against_it() -> None:
    from harness.checks.invariants import _order_problems  # pyright: ignore[reportPrivateUsage]

    rounds = [_calls("x", "y"), _results("x", "y"), _calls("y", "x"), _results("y", "x")]
    assert _order_problems(rounds) == []


def test_the_format_offers_exactly_the_exception_types_the_fakes_can_raise() -> None:
    from typing import get_args

    from harness.scenario.schema import ExceptionName
    from harness.script import _BUILTIN_EXCEPTIONS  # pyright: ignore[reportPrivateUsage]

    assert set(get_args(ExceptionName)) == set(_BUILTIN_EXCEPTIONS)
