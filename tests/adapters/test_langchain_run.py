"""The LangChain adapter on a few bundled scenarios, in both modes, and its declarations against the suite."""

from __future__ import annotations

import contextvars
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain", reason="langchain is not installed: pip install -e '.[langchain]'")

from harness.adapters.langchain import adapter  # noqa: E402
from harness.adapters.langchain.settings import UNEXPRESSIBLE  # noqa: E402
from harness.adapters.langchain.tracing import bookkeeping_inline  # noqa: E402
from harness.contract import Mode, adapter_approval_controls, adapter_profiles, adapter_response_shape  # noqa: E402
from harness.reporting.snapshot import transcript  # noqa: E402
from harness.run.runner import execute, run_scenario  # noqa: E402
from harness.scenario.loader import discover, load_scenario  # noqa: E402

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
MODES: tuple[Mode, ...] = ("non-streaming", "streaming")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", [
    "normal/single-call.yaml",  # a call, its result, the answer
    "normal/python-signature-tool.yaml",  # a typed function, its call id injected
    "normal/calls-across-messages.yaml",  # judged with the declared one-message-per-model-call shape
    "approval/approved-resume-session.yaml",  # a human-in-the-loop pause resumed with Command(resume=...)
    "errors/approved-exception-detailed.yaml",  # a failing tool: an error result (wrap_tool_call)
])
async def test_passes(name: str, mode: Mode) -> None:
    result = await run_scenario(load_scenario(SCENARIOS / name), adapter(), mode)
    failed = [(c.id, c.message) for c in result.checks if c.verdict in ("fail", "error")]
    assert result.verdict == "pass", failed


async def test_caller_written_approval_requests_are_na_with_the_reason() -> None:
    scenario = load_scenario(SCENARIOS / "correlation/reused-id-handwritten-history.yaml")
    result = await run_scenario(scenario, adapter(), "non-streaming")
    assert result.verdict == "n/a"
    assert "only on the pauses its own loop issued" in result.reason


def test_declarations() -> None:
    lc = adapter()
    assert adapter_profiles(lc) == frozenset({"safety"})
    assert adapter_response_shape(lc) == "one-message-per-model-call"
    assert adapter_approval_controls(lc) == "own-pauses"


def test_every_scenario_setting_a_limit_without_counterpart_is_unexpressible() -> None:
    """Scenarios setting max_consecutive_errors or terminate_on_unknown_calls are listed, and only real ids are."""
    scenarios = [load_scenario(path) for path in discover([SCENARIOS])]
    ids = {s.id for s in scenarios}
    needing = {s.id for s in scenarios
               if s.config.max_consecutive_errors is not None or s.config.terminate_on_unknown_calls}
    assert needing <= set(UNEXPRESSIBLE)
    assert set(UNEXPRESSIBLE) <= ids


async def test_parallel_results_stream_in_the_order_the_scenario_makes_them_finish() -> None:
    """LangSmith's bookkeeping around each tool call ran on worker threads, so which call of a parallel batch
    finished first was the thread pool's choice (on Python 3.13 a different order from run to run). Run inline,
    the scripted delays alone decide: c3 (no delay), then c2, then c1, every time."""
    scenario = load_scenario(SCENARIOS / "normal/parallel-calls-finish-out-of-order.yaml")
    orders = set()
    for _ in range(5):
        record = transcript(await execute(scenario, adapter(), "streaming"))
        orders.add(tuple(content["function_result"]["call_id"] for update in record["turns"][0]["updates"]
                         if update["role"] == "tool" for content in update["contents"]))
    assert orders == {("c3", "c2", "c1")}


async def test_langsmith_bookkeeping_runs_inline_only_while_open() -> None:
    import langsmith
    from langsmith._internal._aiter import aio_to_thread
    from langsmith._runtime_overrides import get_runtime_overrides

    async def earlier(default: Any, context: contextvars.Context, function: Any, /, *args: Any) -> Any:
        return "the caller's own override"

    langsmith.set_runtime_overrides(aio_to_thread=earlier)
    try:
        with bookkeeping_inline():
            assert await aio_to_thread(contextvars.copy_context(), threading.get_ident) == threading.get_ident()
        assert get_runtime_overrides().aio_to_thread is earlier
    finally:
        langsmith.set_runtime_overrides()
