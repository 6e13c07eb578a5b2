"""The hosted caller: agent_framework behind agent-framework-foundry-hosting's Responses server, over in-process
HTTP. The correct host passes the row's scenario in both modes; broken hosting wrappers fail it (one keeps the
transcript in state of its own as well and replays it on the next request; one stops handing the transcript to
the loop); loops without a hosting server, and a host whose package is missing, are n/a, never a pass."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from loader_problems import problem_lines

from harness import MODES, Mode, load_scenario, run_scenario
from harness.adapters.agent_framework.responses_output import (
    UnreadableOutputError,
    response_from_output,
    streamed_response,
)
from harness.contents import FunctionCall, FunctionResult, Message, Text, Update
from harness.contract import ConversationSetup
from harness.run.registry import load_adapter

BUNDLED = Path(__file__).resolve().parent.parent / "scenarios"
SCENARIO = BUNDLED / "history" / "hosted-per-service-call-persistence.yaml"


def _hosting() -> Any:
    pytest.importorskip("agent_framework_foundry_hosting", reason="needs the [foundry-hosting] extra")
    from harness.adapters.agent_framework import hosting

    return hosting


def _failing(result: Any) -> list[str]:
    return [c.id for c in result.checks if c.verdict == "fail"]


@pytest.mark.parametrize("mode", MODES)
async def test_the_framework_behind_its_hosting_server_passes(mode: Mode) -> None:
    _hosting()
    result = await run_scenario(load_scenario(SCENARIO), load_adapter("agent_framework"), mode)
    assert result.verdict == "pass", [(c.id, c.message) for c in result.checks if c.verdict == "fail"]


def _replaying_server(agent: Any) -> Any:
    """A host that also keeps each request's transcript in state of its own and hands it back on the next request,
    before the transcript its response store supplies: the loop gets every earlier message twice. (An agent's own
    load-enabled history provider cannot stand for this: the server refuses one, and the framework keeps providers
    added later out of the run.)"""
    from agent_framework_foundry_hosting import ResponsesHostServer
    from azure.ai.agentserver.responses import InMemoryResponseProvider

    class ReplayingServer(ResponsesHostServer):
        kept: list[Any] = []

        async def _load_request_messages(self, *args: Any, **kwargs: Any) -> list[Any]:
            messages = await super()._load_request_messages(*args, **kwargs)
            replay, self.kept = self.kept, list(messages)
            return [*replay, *messages]

    return ReplayingServer(agent, response_store=InMemoryResponseProvider(), configure_observability=None)


class _BrokenHostAdapter:
    """agent_framework behind a hosting wrapper broken in one way (`breakage` takes the agent and the server)."""

    def __init__(self, breakage: str) -> None:
        from harness.adapters.agent_framework.conversation import AgentFrameworkAdapter

        real = AgentFrameworkAdapter()
        self.name, self.version, self.capabilities = "broken_host", real.version, real.capabilities
        self.breakage = breakage

    def open(self, setup: ConversationSetup) -> Any:
        hosting = _hosting()
        from agent_framework_foundry_hosting import ResponsesHostServer
        from azure.ai.agentserver.responses import InMemoryResponseProvider

        agent = hosting.hosted_agent(setup)
        server: Any
        if self.breakage == "replays-transcript":
            server = _replaying_server(agent)
        else:
            # A host that leaves history to the agent: the transcript never reaches the loop.
            server = ResponsesHostServer(agent, response_store=InMemoryResponseProvider(),
                                         configure_observability=None, history_source="agent")
        return hosting.HostedResponsesConversation(setup, server=server)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("breakage", ["replays-transcript", "drops-transcript"])
async def test_a_broken_hosting_wrapper_fails_the_scenario(mode: Mode, breakage: str) -> None:
    _hosting()
    result = await run_scenario(load_scenario(SCENARIO), _BrokenHostAdapter(breakage), mode)
    assert result.verdict == "fail"
    assert "expect.requests" in _failing(result), _failing(result)
    # The first request has no transcript yet: the break shows on the requests that continue it.
    failing_turns = {c.turn for c in result.checks if c.id == "expect.requests" and c.verdict == "fail"}
    assert failing_turns, result.checks
    assert 1 not in failing_turns, failing_turns


@pytest.mark.parametrize("name", ["reference", "reference_stateless", "agent_framework_stateless"])
async def test_loops_without_a_hosting_server_are_not_applicable(name: str) -> None:
    try:
        adapter = load_adapter(name)
    except ImportError:
        pytest.skip(f"{name} is not installed")
    result = await run_scenario(load_scenario(SCENARIO), adapter, "non-streaming")
    assert result.verdict == "n/a"
    assert "hosting-server" in result.reason


class _HostMissingAdapter:
    """An adapter that declares a hosting server whose package is not installed."""

    name, version = "host_missing", "0"
    capabilities = frozenset({"sessions", "hosting-server"})

    def open(self, setup: ConversationSetup) -> Any:
        raise ModuleNotFoundError("No module named 'agent_framework_foundry_hosting'")


async def test_a_missing_hosting_package_is_not_applicable_with_the_reason() -> None:
    result = await run_scenario(load_scenario(SCENARIO), _HostMissingAdapter(), "streaming")  # type: ignore[arg-type]
    assert result.verdict == "n/a"
    assert result.reason == "hosting server not installed: No module named 'agent_framework_foundry_hosting'"


# --- the scenario format --------------------------------------------------------------------------------------

HOSTED = """\
    id: t.hosted
    title: hosted
    spec: [Hosted per-service-call persistence]
    requires: [sessions, hosting-server]
    session: true
    host: {server: responses}
    turns:
      - input: {input}
        model:
          - contents: [{text: hi}]
    """


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "hosted.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_hosted_scenario_loads_with_text_input(tmp_path: Path) -> None:
    scenario = load_scenario(_write(tmp_path, HOSTED.replace("{input}", "[{user: hello}]")))
    assert scenario.spec.host is not None
    assert scenario.spec.host.persistence == "per-run"


def test_a_hosted_turn_takes_text_only(tmp_path: Path) -> None:
    path = _write(tmp_path, HOSTED.replace("{input}", "[{history: previous}]"))
    assert problem_lines(path) == [f"{path}:8:13: error[invalid-value]: a turn of a scenario with 'host' takes text "
                               "input only ('user' or 'system' items)"]


def test_host_needs_its_capability_and_a_session(tmp_path: Path) -> None:
    text = HOSTED.replace("{input}", "hello").replace("requires: [sessions, hosting-server]", "requires: []")
    path = _write(tmp_path, text.replace("    session: true\n", ""))
    assert problem_lines(path) == [
        f"{path}:5:7: error[missing-capability]: 'host' needs 'hosting-server' in 'requires'",
        f"{path}:5:7: error[missing-capability]: 'host' needs 'session: true': the server keeps the conversation "
        "between requests",
    ]


# --- what the caller reads back -------------------------------------------------------------------------------

CALL = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "get_weather", "arguments": '{"city":"Paris"}'}
OUTPUT = {"type": "function_call_output", "id": "fco_1", "call_id": "c1", "output": "sunny"}
ANSWER = {"type": "message", "id": "msg_1", "role": "assistant",
          "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}]}


def test_output_items_make_one_message_per_run_of_a_role() -> None:
    response = response_from_output([CALL, OUTPUT, ANSWER])
    assert response.messages == (
        Message("assistant", (FunctionCall("c1", "get_weather", {"city": "Paris"}),)),
        Message("tool", (FunctionResult("c1", "sunny"),)),
        Message("assistant", (Text("Sunny."),)),
    )


def _event(name: str, data: dict[str, Any]) -> str:
    import json

    return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"


def test_a_stream_gives_one_update_per_finished_item_and_its_final_response() -> None:
    body = "".join([
        _event("response.created", {"response": {"id": "r1", "status": "in_progress", "output": []}}),
        _event("response.output_item.added", {"output_index": 0, "item": {**CALL, "arguments": ""}}),
        _event("response.output_item.done", {"output_index": 0, "item": CALL}),
        _event("response.output_item.done", {"output_index": 1, "item": OUTPUT}),
        _event("response.output_item.done", {"output_index": 2, "item": ANSWER}),
        _event("response.completed", {"response": {"id": "r1", "status": "completed",
                                                   "output": [CALL, OUTPUT, ANSWER]}}),
    ])
    streamed = streamed_response(body)
    assert streamed.updates == (
        Update("assistant", (FunctionCall("c1", "get_weather", {"city": "Paris"}),), "host-message-1"),
        Update("tool", (FunctionResult("c1", "sunny"),), "host-message-2"),
        Update("assistant", (Text("Sunny."),), "host-message-3"),
    )
    assert streamed.response["id"] == "r1"


def test_an_unreadable_reply_is_reported_not_crashed_on() -> None:
    with pytest.raises(UnreadableOutputError, match="output item of type 'computer_call'"):
        response_from_output([{"type": "computer_call"}])
    with pytest.raises(UnreadableOutputError, match="without a final response"):
        streamed_response(_event("response.created", {"response": {"id": "r1"}}))
    with pytest.raises(UnreadableOutputError, match="not JSON"):
        streamed_response("event: response.completed\ndata: {not json\n\n")


class _ServerBeforeResponseStore:
    """The server's signature in the foundry-hosting releases paired with core 1.14.0 ... 1.19.0: the response store
    is `store`, and unknown keywords go on to Starlette, which refuses them."""

    def __init__(self, agent: Any, *, store: Any = None, agent_session_store_provider: Any = None,
                 **kwargs: Any) -> None:
        if kwargs.keys() - {"configure_observability"}:
            raise TypeError(f"Starlette.__init__() got an unexpected keyword argument {sorted(kwargs)[0]!r}")
        self.store = store


def test_the_response_store_goes_under_the_keyword_the_installed_server_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("agent_framework_foundry_hosting")
    from harness.adapters.agent_framework import hosting

    assert hosting._response_store_keyword() == "response_store"  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(hosting, "ResponsesHostServer", _ServerBeforeResponseStore)
    older = hosting.hosting_server(object())  # type: ignore[arg-type]
    assert isinstance(older, _ServerBeforeResponseStore)
    assert older.store is not None
