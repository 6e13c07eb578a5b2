"""A provider's HTTP API served in-process: one scripted provider behind a dialect's request and response codec.

The endpoint does what the real service does with a request before and after the model runs: it checks the
request against the service's validation rules (a rejected request never reaches the script and is answered with
the service's error status and body), reconstructs the whole conversation the model answers (stored responses
included, when the dialect keeps state), hands it to the scripted provider in the neutral vocabulary, and renders
the scripted answer in the dialect's format: a JSON body, or the dialect's server-sent events when streaming.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, cast

from fakes.provider import ScriptedProvider
from fakes.wire.expressible import ScriptedScenario
from harness.contents import JSON, Content, FunctionCall, Message, Reasoning, Response, Update
from harness.contract import Dialect
from harness.script import Exchange, ModelStep, Rejection, ScriptedProviderError

BASE_URL = "http://scripted-provider.invalid"


@dataclass(frozen=True)
class ParsedRequest:
    """What one wire request asks of the model, in the neutral vocabulary.

    `messages` are the items the request carries; `stored` what the service holds for the conversation the
    request continues (`continues`), so `stored + messages` is what the model answers.
    """

    messages: tuple[Message, ...]
    tool_choice: str | None
    tools: tuple[str, ...]
    stream: bool
    continues: str | None = None
    stored: tuple[Message, ...] = ()
    store: bool = False
    kwargs: Mapping[str, JSON] = field(default_factory=lambda: {})


class WireDialect(Protocol):
    """One provider's wire format: parsing requests back, validating them, rendering scripted answers."""

    name: Dialect
    base_path: str  # what the SDK is given after the host, e.g. "/v1"

    @property
    def http_library(self) -> str:
        """The HTTP library the dialect's SDK takes a client of."""
        ...

    def serves(self, path: str) -> bool:
        """Whether model calls go to this URL path."""
        ...

    def parse(self, body: Mapping[str, Any], state: ServiceState, path: str) -> ParsedRequest | Rejection:
        """The request in neutral form, or the rejection of a request the service cannot even read."""
        ...

    def validate(self, body: Mapping[str, Any], parsed: ParsedRequest, state: ServiceState) -> list[Rejection]:
        """Every rule of the real service the request breaks."""
        ...

    def render(self, response: Response, response_id: str, state: ServiceState) -> dict[str, Any]:
        """A non-streaming response body."""
        ...

    def render_stream(self, step: ModelStep, updates: Sequence[Update], response_id: str,
                      state: ServiceState) -> list[str]:
        """A streaming response: the server-sent events' data fields, in order."""
        ...

    def error_body(self, rejection: Rejection) -> dict[str, Any]:
        """The error body the service sends for a rejection."""
        ...

    def unexpressible(self, scenario: ScriptedScenario) -> str | None:
        """Why `scenario` cannot go over this wire (a feature of its script or an expectation the format cannot
        carry, named with its turn), or None when it can. Asked before a run; such a run is n/a for the dialect."""
        ...

    def as_scripted(self, content: Content, state: ServiceState) -> Content:
        """A content the caller got from the provider client, in the script's terms: what the service issues of
        its own accord for items the script left unnamed (ids, opaque payloads) taken back out, and what the format
        folds together restated as the script wrote it. Whatever the client or the loop changed stays changed."""
        ...

    def may_restate(self, content: Content) -> bool:
        """Whether `as_scripted` may return anything but `content` itself, whatever the service state: when it
        may not, a loop's process (`harness.run.child`) need not ask the judge's, which holds the state."""
        ...


@dataclass(frozen=True)
class IssuedReasoning:
    """A reasoning item the service sent: the script's item, whether its id is the service's own (the script named
    none), and its opaque payload (`encrypted_content`) with where that came from: the script's `signature`, the
    script's `data`, or the service itself."""

    scripted: Reasoning
    generated_id: bool
    payload: str
    payload_from: Literal["signature", "data", "service"]


@dataclass
class ServiceState:
    """What the service keeps between requests: stored conversations, and what it said about the items it sent."""

    # response id -> the conversation the model answered plus its answer, for continuation
    conversations: dict[str, tuple[Message, ...]] = field(default_factory=lambda: {})
    # item ids the service issued, by kind: e.g. the reasoning item a call was emitted with
    reasoning_of_call: dict[str, str] = field(default_factory=lambda: {})
    # reasoning item id -> what the service sent for it: the scripted item, and what it added to it itself
    reasoning_items: dict[str, IssuedReasoning] = field(default_factory=lambda: {})
    # hosted call id -> the scripted call the service sent a record of (a Responses mcp_call item)
    hosted_calls: dict[str, FunctionCall] = field(default_factory=lambda: {})
    # response id -> ids of the items the stored conversation holds (sent and answered), which a continuation of it
    # must not resend
    item_ids: dict[str, frozenset[str]] = field(default_factory=lambda: {})
    # call id -> the thought signature the service issued with the call (Gemini)
    signatures: dict[str, str] = field(default_factory=lambda: {})
    responses: int = 0


@dataclass(frozen=True)
class WireReply:
    status: int
    body: bytes
    content_type: str


class WireService:
    """The endpoint a provider client talks to, recording every exchange and every rejection."""

    def __init__(self, dialect: WireDialect, provider: ScriptedProvider) -> None:
        self._dialect = dialect
        self._provider = provider
        self.state = ServiceState()
        self.exchanges: list[Exchange] = []

    @property
    def dialect(self) -> Dialect:
        return self._dialect.name

    @property
    def base_url(self) -> str:
        return BASE_URL + self._dialect.base_path

    def as_scripted(self, content: Content) -> Content:
        """See `WireDialect.as_scripted`: what an adapter applies to every content it reports to the harness."""
        return self._dialect.as_scripted(content, self.state)

    @property
    def http_library(self) -> str:
        return self._dialect.http_library

    def http_client(self) -> object:
        from fakes.wire.http import async_http_client  # the HTTP library is an optional dependency

        return async_http_client(self, self._dialect.http_library)

    def shared_http_client(self) -> object:
        from fakes.wire.http import shared_async_http_client

        return shared_async_http_client(self._dialect.http_library)

    def serving(self) -> AbstractContextManager[None]:
        from fakes.wire.http import serving

        return serving(self)

    @property
    def rejections(self) -> list[tuple[Exchange, Rejection]]:
        return [(exchange, rejection) for exchange in self.exchanges for rejection in exchange.rejections]

    async def handle(self, method: str, path: str, raw: bytes) -> WireReply:
        if method != "POST" or not self._dialect.serves(path):
            return self._json(404, {"error": {"message": f"no scripted route for {method} {path}",
                                              "type": "invalid_request_error"}})
        try:
            body: Any = json.loads(raw or b"{}")
        except ValueError:
            return self._json(400, {"error": {"message": "could not parse the JSON body",
                                              "type": "invalid_request_error"}})
        turn = self._provider.current_turn
        number = sum(1 for e in self.exchanges if e.turn == turn) + 1
        parsed = self._dialect.parse(body, self.state, path)
        if isinstance(parsed, Rejection):
            return self._reject(turn, number, path, body, [parsed])
        rejections = self._dialect.validate(body, parsed, self.state)
        if rejections:
            return self._reject(turn, number, path, body, rejections)
        self.exchanges.append(Exchange(turn, number, path, body, 200))
        try:
            if parsed.stream:
                step, updates = await self._provider.answer_stream(
                    parsed.messages, tool_choice=parsed.tool_choice, tools=parsed.tools, kwargs=parsed.kwargs,
                    conversation_id=parsed.continues, stored=parsed.stored)
                response_id = self._response_id(step.response)
                events = self._dialect.render_stream(step, updates, response_id, self.state)
                self._remember(parsed, body, step.response, response_id)
                data = "".join(f"data: {event}\n\n" for event in events)
                return WireReply(200, data.encode(), "text/event-stream")
            response = await self._provider.complete(
                parsed.messages, tool_choice=parsed.tool_choice, tools=parsed.tools, kwargs=parsed.kwargs,
                conversation_id=parsed.continues, stored=parsed.stored)
        except ScriptedProviderError as fault:
            # A scripted provider fault is the service failing: a server error the client raises as such.
            self.exchanges[-1] = Exchange(turn, number, path, body, 500)
            return self._json(500, {"error": {"message": str(fault), "type": "server_error", "code": None}})
        response_id = self._response_id(response)
        rendered = self._dialect.render(response, response_id, self.state)
        self._remember(parsed, body, response, response_id)
        return self._json(200, rendered)

    def _response_id(self, response: Response) -> str:
        self.state.responses += 1
        return response.conversation_id or f"resp_{self.state.responses}"

    def _remember(self, parsed: ParsedRequest, body: Mapping[str, Any], response: Response, response_id: str) -> None:
        if not parsed.store:
            self.state.item_ids.pop(response_id, None)
            return
        self.state.conversations[response_id] = parsed.stored + parsed.messages + response.messages
        sent = {str(i["id"]) for i in _items(body) if i.get("id") is not None}
        empty: frozenset[str] = frozenset()
        earlier = self.state.item_ids.get(parsed.continues, empty) if parsed.continues else empty
        self.state.item_ids[response_id] = self.state.item_ids.get(response_id, frozenset()) | sent | earlier

    def _reject(self, turn: int, number: int, path: str, body: Any, rejections: list[Rejection]) -> WireReply:
        self.exchanges.append(Exchange(turn, number, path, body, rejections[0].status, tuple(rejections)))
        return self._json(rejections[0].status, self._dialect.error_body(rejections[0]))

    @staticmethod
    def _json(status: int, body: Mapping[str, Any]) -> WireReply:
        return WireReply(status, json.dumps(body).encode(), "application/json")


def _items(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    raw: object = body.get("input")
    if not isinstance(raw, list):
        return []
    return [cast(Mapping[str, Any], i) for i in cast(list[object], raw) if isinstance(i, Mapping)]
