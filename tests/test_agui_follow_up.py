"""The AG-UI approval-time follow-up scenario: the endpoint as it is keeps the whole grouped pause and emits no
result for it (its only failure is the baselined missing snapshot), and broken endpoints fail it: one that sends
only the first request of the group, one that reports the paused call with a synthetic TOOL_CALL_RESULT."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("agent_framework_ag_ui", reason="the controls wrap agent-framework-ag-ui's endpoint")

from negative_controls_agui import SCENARIOS, _type, rewriting  # noqa: E402

from harness import load_scenario, run_scenario  # noqa: E402
from harness.adapters.agent_framework_ag_ui import adapter  # noqa: E402
from harness.adapters.agent_framework_ag_ui.conversation import AgUiAdapter  # noqa: E402
from harness.bundled import BUNDLED_BASELINE  # noqa: E402
from harness.reporting.baseline import apply_baseline, load_baseline  # noqa: E402

FOLLOW_UP = SCENARIOS / "agui" / "approval-time-follow-up.yaml"


def _is_input_request(block: str) -> bool:
    return _type(block) == "CUSTOM" and "oauth_consent_request" in block


def first_request_only(blocks: list[str]) -> list[str]:
    """Keeps only the first user-input request of the group."""
    requests = [i for i, block in enumerate(blocks) if _is_input_request(block)]
    return [block for i, block in enumerate(blocks) if i not in requests[1:]]


def synthetic_result(blocks: list[str]) -> list[str]:
    """Reports the paused call with a TOOL_CALL_RESULT after its input requests, as if it had finished."""
    requests = [i for i, block in enumerate(blocks) if _is_input_request(block)]
    if not requests:
        return blocks
    event = {"type": "TOOL_CALL_RESULT", "messageId": "synthetic-1", "toolCallId": "c1", "role": "tool",
             "content": "Waiting for user input."}
    at = requests[-1] + 1
    return [*blocks[:at], f"data: {json.dumps(event)}", *blocks[at:]]


async def test_the_endpoint_as_it_is_fails_only_the_baselined_missing_snapshot() -> None:
    result = await run_scenario(load_scenario(FOLLOW_UP), adapter(), "streaming")
    assert {(c.id, c.turn) for c in result.failed_checks()} == {("snapshot-agrees", 2)}, result.failed_checks()
    judged = apply_baseline(result, load_baseline(BUNDLED_BASELINE).known_failures)
    assert judged.verdict == "xfail", judged.reason


@pytest.mark.parametrize(("rewrite", "checks"), [
    (first_request_only, {"expect.events", "expect.response"}),
    (synthetic_result, {"expect.events", "expect.response"}),
], ids=["first-request-only", "synthetic-result"])
async def test_a_broken_endpoint_fails_the_scenario(rewrite: object, checks: set[str]) -> None:
    broken = AgUiAdapter(rewriting(rewrite), name="control-follow-up")  # type: ignore[arg-type]
    result = await run_scenario(load_scenario(FOLLOW_UP), broken, "streaming")
    failed = {c.id for c in result.failed_checks() if c.turn == 2}
    assert checks <= failed, result.failed_checks()
