"""Broken serializers caught on the wire: the framework's own provider clients with one serialisation rule broken
must fail `provider-accepts` (the service refuses what they send) on a bundled scenario that a correct client
passes. They stand for the regressions the wire path exists to catch: a dropped tool output, a hosted decision
sent without the request it answers, a tool message that answers no call. (A local approval cannot be made to reach
the client this way: the function invocation layer resolves it before the client serialises anything.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import MODES, Mode, load_scenario, run_scenario
from harness.contract import Dialect
from harness.run.registry import load_adapter

pytest.importorskip("agent_framework_openai", reason="the wire controls break agent-framework-openai's clients")

from agent_framework_openai import OpenAIChatClient, OpenAIChatCompletionClient  # noqa: E402

BUNDLED = Path(__file__).resolve().parent.parent / "scenarios"


def _drops_outputs(original: Callable[..., list[dict[str, Any]]]) -> Callable[..., list[dict[str, Any]]]:
    def prepare(self: Any, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        return [item for item in original(self, *args, **kwargs) if item.get("type") != "function_call_output"]

    return prepare


def _decision_without_request(original: Callable[..., list[dict[str, Any]]]) -> Callable[..., list[dict[str, Any]]]:
    """Skips hosted approval requests as if the service stored them, with storage off."""

    def prepare(self: Any, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        return [item for item in original(self, *args, **kwargs) if item.get("type") != "mcp_approval_request"]

    return prepare


def _orphan_tool_message(original: Callable[..., list[dict[str, Any]]]) -> Callable[..., list[dict[str, Any]]]:
    def prepare(self: Any, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        messages = original(self, *args, **kwargs)
        return [{"role": "tool", "tool_call_id": "stray", "content": "left over"}, *messages]

    return prepare


CONTROLS = [
    pytest.param(OpenAIChatClient, "_prepare_message_for_openai", _drops_outputs, "openai-responses",
                 "normal/single-call.yaml", id="responses-drops-function-call-output"),
    pytest.param(OpenAIChatClient, "_prepare_message_for_openai", _decision_without_request, "openai-responses",
                 "history/openai-approval-serialization.yaml", id="responses-hosted-decision-without-its-request"),
    pytest.param(OpenAIChatCompletionClient, "_prepare_messages_for_openai", _orphan_tool_message, "openai-chat",
                 "normal/single-call.yaml", id="chat-tool-message-answering-no-call"),
]


@pytest.mark.parametrize(("client", "method", "breakage", "dialect", "scenario"), CONTROLS)
@pytest.mark.parametrize("mode", MODES)
async def test_a_broken_serializer_is_refused_by_the_service(
        monkeypatch: pytest.MonkeyPatch, client: type, method: str, breakage: Callable[..., Any], dialect: Dialect,
        scenario: str, mode: Mode) -> None:
    loaded = load_scenario(BUNDLED / scenario)
    adapter = load_adapter("agent_framework")
    correct = await run_scenario(loaded, adapter, mode, dialect=dialect)
    assert correct.verdict == "pass", [c for c in correct.checks if c.verdict == "fail"]
    monkeypatch.setattr(client, method, breakage(getattr(client, method)))
    broken = await run_scenario(loaded, adapter, mode, dialect=dialect)
    failing = [c.id for c in broken.checks if c.verdict == "fail"]
    assert "provider-accepts" in failing, failing
