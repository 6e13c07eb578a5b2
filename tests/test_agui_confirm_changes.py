"""Client-authored wire-form messages (`transport_message`): the loader's located errors, where they go in the AG-UI
request, and the confirm_changes scenarios, which the endpoint as it is fails only where the baseline says and
broken endpoints fail elsewhere: one that leaves a rejection uncleaned, one that guesses a target call for an
answer whose metadata names none (or names a call without a result)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from loader_problems import problem_lines

from harness import load_scenario

SCENARIO = """\
    id: t.transport-message
    title: t
    spec: ["AG-UI malformed `confirm_changes` metadata"]
    description: d
    requires: {requires}
    turns:
      - input:
          - user: hello
          - transport_message: {message}
          - user: again
        model:
          - contents: [{{text: hi}}]
    """


def _write(tmp_path: Path, requires: str = "[ag-ui]", message: str = "{id: m1, role: tool, toolCallId: x}") -> Path:
    path = tmp_path / "transport.yaml"
    path.write_text(textwrap.dedent(SCENARIO.format(requires=requires, message=message)), encoding="utf-8")
    return path


def test_a_transport_message_loads_as_written(tmp_path: Path) -> None:
    scenario = load_scenario(_write(tmp_path, message="{id: m1, role: assistant, toolCalls: {id: c}}"))
    turn_input = scenario.spec.turns[0].input
    assert not isinstance(turn_input, str)
    assert turn_input[1].transport_message == {"id": "m1", "role": "assistant", "toolCalls": {"id": "c"}}


def test_a_transport_message_needs_the_ag_ui_capability(tmp_path: Path) -> None:
    path = _write(tmp_path, requires="[]")
    assert problem_lines(path) == [f"{path}:9:28: error[missing-capability]: a 'transport_message' input (a message in "
                               "the AG-UI wire form) needs 'ag-ui' in 'requires'"]


@pytest.mark.parametrize("message", ["[1, 2]", "{id: m1, content: x}", "{id: m1, role: 3}"])
def test_a_transport_message_that_is_no_message_is_a_located_error(tmp_path: Path, message: str) -> None:
    path = _write(tmp_path, message=message)
    problems = problem_lines(path)
    assert len(problems) == 1
    assert problems[0].startswith(f"{path}:9:"), problems  # the transport_message item


def test_the_schema_documents_the_transport_message() -> None:
    from harness.scenario.schema import ScenarioSpec

    schema = json.dumps(ScenarioSpec.model_json_schema(by_alias=True))
    assert "transport_message" in schema


agui = pytest.importorskip("agent_framework_ag_ui", reason="the controls wrap agent-framework-ag-ui's endpoint")

from negative_controls_agui import SCENARIOS, _type, rewriting  # noqa: E402

from harness import run_scenario  # noqa: E402
from harness.adapters.agent_framework_ag_ui import adapter  # noqa: E402
from harness.adapters.agent_framework_ag_ui.conversation import AgUiAdapter  # noqa: E402
from harness.bundled import BUNDLED_BASELINE  # noqa: E402
from harness.reporting.baseline import apply_baseline, load_baseline  # noqa: E402

SNAPSHOT = SCENARIOS / "agui" / "confirm-changes-snapshot.yaml"
MALFORMED = SCENARIOS / "agui" / "confirm-changes-malformed.yaml"


def _rewrite_answer(answer_id: str, content: str | None, only_if: str | None = None):  # type: ignore[no-untyped-def]
    """A stream rewrite that sets the content of the snapshot's message `answer_id` (when it holds `only_if`)."""

    def rewrite(blocks: list[str]) -> list[str]:
        out: list[str] = []
        for block in blocks:
            if _type(block) == "MESSAGES_SNAPSHOT":
                event = json.loads(block.split("data:", 1)[1])
                for message in event["messages"]:
                    if message.get("id") == answer_id and (only_if is None or message.get("content") == only_if):
                        message["content"] = content
                block = f"data: {json.dumps(event)}"
            out.append(block)
        return out

    return rewrite


async def _failed(path: Path, broken: AgUiAdapter | None = None) -> set[tuple[str, int | None]]:
    result = await run_scenario(load_scenario(path), broken or adapter(), "streaming")
    return {(c.id, c.turn) for c in result.failed_checks()}


async def test_the_endpoint_as_it_is_fails_only_the_baselined_accepted_confirmation() -> None:
    result = await run_scenario(load_scenario(SNAPSHOT), adapter(), "streaming")
    assert {(c.id, c.turn) for c in result.failed_checks()} == {("expect.events", 2)}, result.failed_checks()
    assert apply_baseline(result, load_baseline(BUNDLED_BASELINE).known_failures).verdict == "xfail"


async def test_the_endpoint_as_it_is_fails_only_the_baselined_non_list_metadata() -> None:
    result = await run_scenario(load_scenario(MALFORMED), adapter(), "streaming")
    assert {(c.id, c.turn) for c in result.failed_checks()} == {("expect.error", 2), ("expect.events", 2)}
    assert apply_baseline(result, load_baseline(BUNDLED_BASELINE).known_failures).verdict == "xfail"


async def test_an_endpoint_that_leaves_a_rejection_uncleaned_fails_the_snapshot_scenario() -> None:
    broken = AgUiAdapter(rewriting(_rewrite_answer("ui-answer-2", '{"accepted": false, "steps": []}')),
                         name="control-rejection-uncleaned")
    assert ("expect.events", 3) in await _failed(SNAPSHOT, broken)


async def test_an_endpoint_that_fills_a_missing_accepted_result_fails_the_snapshot_scenario() -> None:
    broken = AgUiAdapter(rewriting(_rewrite_answer("ui-answer-3", "applied")), name="control-missing-filled")
    assert ("expect.events", 4) in await _failed(SNAPSHOT, broken)


async def test_an_endpoint_that_guesses_a_target_for_malformed_arguments_fails_the_malformed_scenario() -> None:
    broken = AgUiAdapter(rewriting(_rewrite_answer("ui-answer-2", "applied")), name="control-guessed-target")
    assert ("expect.events", 3) in await _failed(MALFORMED, broken)
