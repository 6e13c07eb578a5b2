"""The process-wide wire clients: one HTTP client per library and one provider SDK client per dialect, shared by
every run in the process, each request answered by the endpoint its own run is serving.

Sharing must never let one run see another's requests (side by side in one event loop, or one after the other), a
request sent outside any run must be refused rather than answered by whichever endpoint happens to be around, and a
closed shared client must not break the runs after it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("httpx2", reason="the OpenAI dialects are served through the openai SDK's HTTP library, httpx2")

from fakes import ModelStep, ScriptedProvider, ScriptedToolbox  # noqa: E402
from fakes.wire import make_wire_endpoint  # noqa: E402
from fakes.wire.http import shared_async_http_client  # noqa: E402
from fakes.wire.service import WireService  # noqa: E402
from harness.contents import Message, Response, Text, Update  # noqa: E402
from harness.contract import ConversationSetup, Dialect, LoopConfig, Mode, TurnInput  # noqa: E402


def _answer(text: str) -> ModelStep:
    return ModelStep(Response((Message.of("assistant", Text(text)),)),
                     (Update("assistant", (Text(text),), "m1"),))


def _chat_service(*texts: str) -> WireService:
    provider = ScriptedProvider([[_answer(text) for text in texts]])
    provider.begin_turn(0)
    return make_wire_endpoint("openai-chat", provider)


def _chat_body(text: str) -> bytes:
    return json.dumps({"model": "scripted-model", "messages": [{"role": "user", "content": text}]}).encode()


async def _ask(text: str) -> tuple[int, Any]:
    """One Chat Completions request through the process-wide httpx2 client."""
    client: Any = shared_async_http_client("httpx2")
    reply = await client.post("http://scripted-provider.invalid/v1/chat/completions", content=_chat_body(text))
    return reply.status_code, reply.json()


def _asked(service: WireService) -> list[str]:
    bodies: list[Any] = [e.body for e in service.exchanges]
    return [str(body["messages"][0]["content"]) for body in bodies]


async def test_each_context_is_answered_by_the_endpoint_it_serves_even_side_by_side() -> None:
    first, second = _chat_service("one", "two"), _chat_service("three", "four")
    first_asked, second_asked = asyncio.Event(), asyncio.Event()

    # The events force the two runs' requests to alternate: first, second, first, second.
    async def run_first() -> list[str]:
        with first.serving():
            answers = [(await _ask("a1"))[1]]
            first_asked.set()
            await second_asked.wait()
            answers.append((await _ask("a2"))[1])
        return [a["choices"][0]["message"]["content"] for a in answers]

    async def run_second() -> list[str]:
        with second.serving():
            await first_asked.wait()
            answers = [(await _ask("b1"))[1]]
            second_asked.set()
            answers.append((await _ask("b2"))[1])
        return [a["choices"][0]["message"]["content"] for a in answers]

    got_first, got_second = await asyncio.gather(run_first(), run_second())

    assert (got_first, got_second) == (["one", "two"], ["three", "four"])
    assert (_asked(first), _asked(second)) == (["a1", "a2"], ["b1", "b2"])


async def test_a_request_sent_outside_every_run_is_refused_with_the_reason() -> None:
    service = _chat_service("never")

    status, body = await _ask("lost")

    assert status == 500
    assert "outside WireEndpoint.serving()" in body["error"]["message"]
    assert service.exchanges == []


async def test_a_request_reaching_an_endpoint_of_another_http_library_is_refused() -> None:
    pytest.importorskip("httpx", reason="the Gemini dialect is served through httpx")
    gemini = make_wire_endpoint("gemini", ScriptedProvider([[_answer("never")]]))

    with gemini.serving():
        status, body = await _ask("lost")

    assert status == 500
    assert "speaks gemini over httpx, not httpx2" in body["error"]["message"]
    assert gemini.exchanges == []


async def test_serving_ends_with_its_block() -> None:
    service = _chat_service("inside")

    with service.serving():
        inside, _ = await _ask("in")
    outside, _ = await _ask("out")

    assert (inside, outside) == (200, 500)
    assert _asked(service) == ["in"]


async def test_a_closed_shared_client_is_replaced_by_an_open_one() -> None:
    service = _chat_service("after close")
    await shared_async_http_client("httpx2").aclose()

    replacement: Any = shared_async_http_client("httpx2")
    with service.serving():
        status, body = await _ask("again")

    assert not replacement.is_closed
    assert (status, body["choices"][0]["message"]["content"]) == (200, "after close")


# --- the framework's clients over the shared clients ---------------------------------------------------------------

_FRAMEWORK_PACKAGE = {"openai-responses": "agent_framework_openai", "openai-chat": "agent_framework_openai",
                      "gemini": "agent_framework_gemini"}


def _setup(dialect: Dialect, mode: Mode, text: str) -> tuple[ConversationSetup, WireService]:
    provider = ScriptedProvider([[_answer(text)]])
    provider.begin_turn(0)
    service = make_wire_endpoint(dialect, provider)
    return ConversationSetup(f"wire.shared.{text}", mode, LoopConfig(), provider, ScriptedToolbox([]),
                             dialect=dialect, wire=service), service


@pytest.mark.parametrize("mode", ["non-streaming", "streaming"])
@pytest.mark.parametrize("dialect", ["openai-responses", "openai-chat", "gemini"])
async def test_conversations_share_one_sdk_client_and_each_reaches_only_its_own_endpoint(
        dialect: Dialect, mode: Mode, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip(_FRAMEWORK_PACKAGE[dialect], reason="the framework's provider client is an optional extra")
    from harness.adapters.agent_framework import wire
    from harness.run.registry import load_adapter

    built: list[object] = []
    monkeypatch.setattr(wire, "_SDK_CLIENTS", _Recording(built))
    adapter = load_adapter("agent_framework")
    (first_setup, first), (second_setup, second) = _setup(dialect, mode, "first"), _setup(dialect, mode, "second")
    conversations = [adapter.open(first_setup), adapter.open(second_setup)]

    views = await asyncio.gather(*(c.run_turn(TurnInput(0, (Message.of("user", Text("Hello?")),)))
                                   for c in conversations))
    for conversation in conversations:
        await conversation.close()

    assert [v.error for v in views] == [None, None]
    assert [v.response.messages if v.response else None for v in views] == [
        (Message.of("assistant", Text("first")),), (Message.of("assistant", Text("second")),)]
    assert [len(first.exchanges), len(second.exchanges)] == [1, 1]
    assert len(built) == 1, "the second conversation built an SDK client of its own"


class _Recording(dict[Any, Any]):
    """The adapter's SDK client cache, empty at first, recording every client put into it."""

    def __init__(self, built: list[object]) -> None:
        super().__init__()
        self._built = built

    def __setitem__(self, key: Any, value: Any) -> None:
        self._built.append(value)
        super().__setitem__(key, value)
