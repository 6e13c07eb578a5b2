"""Driving the AG-UI endpoint as an AG-UI client does: it keeps the thread's messages (the last snapshot), sends
each turn as a run request, answers interrupts with resume entries, and reads the SSE events back."""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Mapping, Sequence
from typing import cast

from ag_ui.core import RunAgentInput

from harness.adapters.agent_framework_ag_ui.endpoint import (
    PATH,
    AppWrapper,
    ProviderWrapper,
    build_agent,
    build_app,
    http_client,
)
from harness.adapters.agent_framework_ag_ui.faults import FaultNotingProvider
from harness.adapters.agent_framework_ag_ui.limits import UNEXPRESSIBLE
from harness.adapters.agent_framework_ag_ui.messages import from_agui, from_agui_all, to_agui
from harness.adapters.agent_framework_ag_ui.sse import read_events
from harness.adapters.agent_framework_ag_ui.updates import updates_from_messages
from harness.contents import JSON, ApprovalResponse, FunctionCall, Message, Response, Text, UserInputRequest
from harness.contract import (
    SETTINGS,
    CallerView,
    Capability,
    ConversationSetup,
    Mode,
    RaisedError,
    TransportEvent,
    TransportExchange,
    TurnInput,
)
from harness.transcript import message_form
from harness.transport.agui import (
    AgUiMessage,
    approval_requests,
    fold,
    input_requests,
    interrupts,
    items,
    mapping,
    parsed,
    sent_messages,
    snapshot,
    text,
)

THREAD_ID = "thread-1"


def _key(message: Message) -> str:
    return json.dumps(message_form(message), sort_keys=True, default=str)


def approvals_by_call(events: Sequence[TransportEvent]) -> dict[str, str]:
    """Each call the run left awaiting approval, with the id of the interrupt (approval) that holds it."""
    found = {text(call.get("call_id")): approval_id for approval_id, call in approval_requests(events).items()}
    for interrupt in interrupts(events):
        if text(interrupt.get("toolCallId")):
            found[text(interrupt.get("toolCallId"))] = text(interrupt.get("id"))
    return found


def legacy_interrupts(events: Sequence[TransportEvent]) -> list[str]:
    """The interrupt ids of a release that predates the protocol's interrupt outcome (agent-framework-ag-ui
    1.0.0rc7): its RUN_FINISHED lists them in an `interrupt` field of its own, which the protocol's models keep as an
    extra field. Empty when the run finished with the protocol's outcome (or with neither)."""
    finished = next((e for e in reversed(events) if e.type == "RUN_FINISHED"), None)
    if finished is None or interrupts(events):
        return []
    ids = [text(mapping(i).get("id")) for i in items(finished.fields.get("interrupt"))]
    return [i for i in ids if i]


class AgUiConversation:
    def __init__(self, setup: ConversationSetup, app_wrapper: AppWrapper | None = None,
                 provider_wrapper: ProviderWrapper | None = None) -> None:
        self.setup = setup
        self.provider = FaultNotingProvider(setup.provider)
        model = provider_wrapper(self.provider) if provider_wrapper is not None else self.provider
        app = build_app(build_agent(setup, model))
        self.http = http_client(app_wrapper(app) if app_wrapper is not None else app)
        self.thread: list[AgUiMessage] = []  # what the client holds: the thread's last messages snapshot
        self.originals: dict[str, AgUiMessage] = {}  # a message the caller saw, as the protocol carried it
        self.returned: list[Response] = []
        self._ids = 0
        self.open_interrupts: set[str] = set()  # the interrupts the last run finished with
        self.interrupt_calls: dict[str, str] = {}  # every interrupt the endpoint issued: the call it holds
        self.legacy_interrupts: set[str] = set()  # the open ones of a release without the protocol's interrupts
        self.resumed: list[str] = []  # the approvals the turn's request approved

    def _new_id(self) -> str:
        self._ids += 1
        return f"client-message-{self._ids}"

    def _request_messages(self, turn: TurnInput) -> tuple[list[AgUiMessage], list[tuple[int, AgUiMessage]]]:
        """The run's protocol messages, and the turn's wire-form messages with the index each goes in at (they are
        put in after the request is validated: they may be malformed on purpose)."""
        messages = turn.messages
        if isinstance(messages, str):
            written = to_agui(Message("user", (Text(messages),)), self._new_id)
            return ([*self.thread, *written] if self.setup.use_session else written), []
        sent: list[AgUiMessage] = list(self.thread) if self.setup.use_session else []
        places: list[tuple[int, AgUiMessage]] = []
        waiting = list(turn.transport_messages)
        for count, message in enumerate(messages):
            while waiting and waiting[0][0] <= count:
                places.append((len(sent), dict(waiting.pop(0)[1])))
            original = self.originals.get(_key(message))
            sent.extend([original] if original is not None else to_agui(message, self._new_id))
        places.extend((len(sent), dict(message)) for _, message in waiting)
        return sent, places

    def _request(self, turn: TurnInput) -> dict[str, JSON]:
        # An AG-UI client answers the interrupts the last run left open; a decision the caller's replayed history
        # still holds for an earlier interrupt has no resume form, and an AG-UI client does not send it again.
        decisions = [c for m in (turn.messages if not isinstance(turn.messages, str) else ()) for c in m.contents
                     if isinstance(c, ApprovalResponse) and c.id in self.open_interrupts]
        self.resumed = [c.id for c in decisions if c.approved]
        resume: list[dict[str, JSON]] = [
            {"interruptId": c.id, "status": "resolved", "payload": {"approved": c.approved}}
            for c in decisions if c.id not in self.legacy_interrupts]
        # A release without the protocol's interrupts reads a resume's decisions only in its own form: each
        # interrupt's id with the answer its confirmation dialog gives ({"accepted": ...}) as the value. The
        # protocol's models do not know that form, so it goes in after validation.
        legacy: list[JSON] = [{"id": c.id, "value": {"accepted": c.approved}}
                              for c in decisions if c.id in self.legacy_interrupts]
        sent, places = self._request_messages(turn)
        body: dict[str, JSON] = {"threadId": THREAD_ID, "runId": f"run-{turn.index + 1}",
                                 "messages": cast(JSON, sent), "tools": [],
                                 "context": [], "forwardedProps": cast(JSON, dict(turn.kwargs))}
        if resume:
            body["resume"] = cast(JSON, resume)
        # Validated with the protocol's own model: a request the protocol refuses is the adapter's bug. The
        # scenario's own wire-form messages go after it, unvalidated: they may be malformed on purpose.
        request = cast(dict[str, JSON], RunAgentInput.model_validate(body).model_dump(
            mode="json", by_alias=True, exclude_none=True))
        validated = items(request.get("messages"))
        for shift, (index, message) in enumerate(places):
            validated.insert(index + shift, cast(JSON, message))
        request["messages"] = validated
        if legacy:
            request["resume"] = {"interrupts": legacy}
        return request

    async def run_turn(self, turn: TurnInput) -> CallerView:
        earlier = tuple(self.returned)
        request = self._request(turn)
        self.provider.faults.clear()
        try:
            async with self.http.stream("POST", PATH, json=request, headers={"accept": "text/event-stream"}) as reply:
                if reply.status_code != 200:
                    body = (await reply.aread()).decode(errors="replace")
                    error = RaisedError("HTTPStatusError", f"{reply.status_code}: {body}", "loop")
                    return CallerView(error=error, inputs_after=turn.messages, earlier_responses_after=earlier)
                events = tuple(await read_events(reply.aiter_lines()))
        except Exception as raised:  # noqa: BLE001 - what reaches the client (a broken stream) is an observation
            error = RaisedError(type(raised).__name__, str(raised), "loop")
            return CallerView(error=error, inputs_after=turn.messages, earlier_responses_after=earlier)
        exchange = TransportExchange(request, events)
        approvals = approvals_by_call(events)
        self.interrupt_calls.update({interrupt: call for call, interrupt in approvals.items()})
        resumed = self.resumed
        # An approved call whose execution asked for more input goes back to pending under its interrupt (the
        # endpoint demands a resume entry for it before any other run, though RUN_FINISHED lists no interrupt):
        # the caller answers the pause by resuming that interrupt once its input is given.
        held: set[str] = set(resumed) if input_requests(events) else set()
        self.legacy_interrupts = set(legacy_interrupts(events)) | (held & self.legacy_interrupts)
        self.open_interrupts = {text(i.get("id")) for i in interrupts(events)} | self.legacy_interrupts | held
        failed = next((e for e in events if e.type == "RUN_ERROR"), None)
        if failed is not None:
            updates = updates_from_messages(from_agui_all(fold(events), approvals))
            kind = "provider" if self.provider.faults else "loop"
            error = RaisedError(text(failed.fields.get("code")) or "RunError", text(failed.fields.get("message")),
                                kind)
            return CallerView(updates, None, error, turn.messages, earlier, transport=exchange)
        response = self._response(request, events, approvals)
        paused = self._input_requests(events, [self.interrupt_calls.get(i, "") for i in resumed])
        if paused:
            response = Response((*response.messages, paused))
        # The endpoint has no non-streaming mode (the adapter declares none), so every run is a streamed one.
        updates = updates_from_messages(response.messages)
        self.returned.append(response)
        return CallerView(updates, response, None, turn.messages, earlier, transport=exchange)

    def _response(self, request: Mapping[str, JSON], events: Sequence[TransportEvent],
                  approvals: Mapping[str, str]) -> Response:
        """The final response: the snapshot's messages this run added (the fold of the events if the run sent no
        snapshot, which the event checks report)."""
        sent_ids = {text(m.get("id")) for m in sent_messages(request)}
        messages = snapshot(events)
        if messages is not None:
            self.thread = messages
        added = [m for m in (messages if messages is not None else fold(events)) if text(m.get("id")) not in sent_ids]
        for message in messages or []:
            neutral = from_agui(message, approvals)
            if neutral is not None:
                self.originals.setdefault(_key(neutral), message)
        return Response(from_agui_all(added, approvals))

    def _input_requests(self, events: Sequence[TransportEvent], resumed_calls: Sequence[str]) -> Message | None:
        """The run's user-input requests as the caller sees them, in order, in one assistant message. The events
        name no call; when one approved call of the resume has no result, only it can have paused, so they are its
        requests (otherwise they name none)."""
        links = input_requests(events)
        if not links:
            return None
        finished = {text(e.fields.get("toolCallId")) for e in events if e.type == "TOOL_CALL_RESULT"}
        calls = [c for c in resumed_calls if c and c not in finished]
        call = FunctionCall(calls[0], "") if len(calls) == 1 else None
        return Message("assistant", tuple(
            UserInputRequest(f"input-{index}", call, parsed(link) if link.startswith(("{", "[")) else link)
            for index, link in enumerate(links, 1)))

    async def close(self) -> None:
        await self.http.aclose()


class AgUiAdapter:
    """The loop behind the AG-UI endpoint of the installed agent-framework-ag-ui release."""

    name = "agent_framework_ag_ui"
    # The endpoint answers every run as a server-sent event stream and always runs its agent streaming.
    modes: frozenset[Mode] = frozenset({"streaming"})
    modes_reason = ("the AG-UI endpoint serves a run only as a server-sent event stream and always runs the agent "
                    "streaming; its final response is the run's messages snapshot")

    def __init__(self, app_wrapper: AppWrapper | None = None, provider_wrapper: ProviderWrapper | None = None,
                 name: str | None = None) -> None:
        # The endpoint's own release: the baseline's release ranges are of this package (its core is pinned beside
        # it in constraints/latest.txt).
        self.version = importlib.metadata.version("agent-framework-ag-ui")
        self.app_wrapper = app_wrapper
        self.provider_wrapper = provider_wrapper
        if name is not None:
            self.name = name
        capabilities: set[Capability] = {"ag-ui", "approval", "sessions", "signature-tools", "context-providers",
                                         "context-tools", "streamed-mapping-arguments",
                                         "middleware-termination", "user-input", *SETTINGS}
        self.capabilities: frozenset[Capability] = frozenset(capabilities)
        # The framework's own loop behind its endpoint: it is spec 004's subject, so it claims the spec's mechanisms.
        self.profiles = frozenset({"safety", "contract"})
        self.unexpressible = UNEXPRESSIBLE

    def open(self, setup: ConversationSetup) -> AgUiConversation:
        return AgUiConversation(setup, self.app_wrapper, self.provider_wrapper)

