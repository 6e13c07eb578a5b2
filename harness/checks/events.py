"""The event-level invariants, checked on every run whose caller reached the loop over AG-UI (a turn whose
`CallerView.transport` holds the run request and its events). A run without one gets no result from them, so
in-process implementations are judged exactly as before.

* `events-well-formed` — one RUN_STARTED first and one terminal event (RUN_FINISHED or RUN_ERROR) last; every
  text message and tool call that starts ends, content and arguments arrive only between a start and its end, no
  id starts twice, a call's result comes after its end; every event is one the protocol's models accept;
* `result-events-once` — each call executed in the turn has exactly one TOOL_CALL_RESULT event (none while it
  waits for the caller's input, as an approval-time follow-up does); no call has two; a call the caller rejected
  has none (the spec carries the rejection's result in the messages snapshot only);
* `snapshot-agrees` — a finished run that added anything to the thread (or rejected a call, or paused for input)
  sends a MESSAGES_SNAPSHOT, and what it adds to the request's messages is what the run's events fold to, besides
  the results of calls rejected in the turn; a result keeps the message id it streamed under (clients merge the
  snapshot into what they streamed by message id);
* `no-approval-controls-to-model` — nothing of the approval protocol reaches the chat client: no local approval
  request or response, no `confirm_changes` control call or its result, and no result named after an approval
  (interrupt) id. Hosted approvals (`server_label` set) are the provider's and pass through.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from harness.contents import ApprovalRequest, ApprovalResponse, FunctionCall, FunctionResult, UserInputRequest
from harness.contract import TransportEvent, TransportExchange
from harness.records import RunRecord, TurnRecord
from harness.results import EVENT_CHECKS, CheckResult
from harness.transport.agui import (
    CONFIRM_CHANGES,
    approval_requests,
    comparable,
    control_calls,
    fold,
    input_requests,
    interrupts,
    items,
    mapping,
    sent_messages,
    snapshot,
    text,
)

EVENTS_WELL_FORMED, RESULT_EVENTS_ONCE, SNAPSHOT_AGREES, NO_APPROVAL_CONTROLS_TO_MODEL = EVENT_CHECKS
_TERMINAL = ("RUN_FINISHED", "RUN_ERROR")


def _exchanges(run: RunRecord) -> list[tuple[TurnRecord, TransportExchange]]:
    return [(turn, turn.view.transport) for turn in run.turns if turn.view.transport is not None]


def _judged(check: str, problems: list[tuple[int, str]]) -> list[CheckResult]:
    if not problems:
        return [CheckResult(check, "pass")]
    turn, first = problems[0]
    return [CheckResult(check, "fail", first, turn, details=tuple(f"turn {t}: {p}" for t, p in problems))]


def stream_problems(events: Sequence[TransportEvent]) -> list[str]:
    """What makes one run's event stream ill-formed, in stream order."""
    problems: list[str] = []
    types = [e.type for e in events]
    if not events or types[0] != "RUN_STARTED":
        problems.append("the stream does not begin with RUN_STARTED")
    if types.count("RUN_STARTED") > 1:
        problems.append(f"{types.count('RUN_STARTED')} RUN_STARTED events")
    terminals = [t for t in types if t in _TERMINAL]
    if len(terminals) != 1:
        problems.append(f"{len(terminals)} terminal events (RUN_FINISHED or RUN_ERROR), expected exactly one")
    elif types[-1] not in _TERMINAL:
        problems.append(f"{types[-1]} after the run's {terminals[0]}")
    open_texts: set[str] = set()
    open_calls: set[str] = set()
    started: set[str] = set()
    ended: set[str] = set()
    for position, event in enumerate(events, 1):
        where = f"event {position} ({event.type})"
        message_id, call_id = text(event.fields.get("messageId")), text(event.fields.get("toolCallId"))
        if event.type == "UNPARSEABLE":
            problems.append(f"{where}: the protocol's event models refuse it: {text(event.fields.get('error'))}")
        elif event.type == "TEXT_MESSAGE_START":
            if message_id in open_texts:
                problems.append(f"{where}: message '{message_id}' starts again before it ended")
            open_texts.add(message_id)
        elif event.type == "TEXT_MESSAGE_CONTENT" and message_id not in open_texts:
            problems.append(f"{where}: content for message '{message_id}', which is not open")
        elif event.type == "TEXT_MESSAGE_END":
            if message_id not in open_texts:
                problems.append(f"{where}: message '{message_id}' ends without having started")
            open_texts.discard(message_id)
        elif event.type == "TOOL_CALL_START":
            if call_id in started:
                problems.append(f"{where}: tool call '{call_id}' starts a second time")
            started.add(call_id)
            open_calls.add(call_id)
        elif event.type == "TOOL_CALL_ARGS" and call_id not in open_calls:
            problems.append(f"{where}: arguments for tool call '{call_id}', which is not open")
        elif event.type == "TOOL_CALL_END":
            if call_id not in open_calls:
                problems.append(f"{where}: tool call '{call_id}' ends without having started in this run")
            open_calls.discard(call_id)
            ended.add(call_id)
        elif event.type == "TOOL_CALL_RESULT" and call_id in started and call_id not in ended:
            problems.append(f"{where}: result for tool call '{call_id}' before the call ended")
    if types and types[-1] == "RUN_FINISHED":
        problems.extend(f"text message '{m}' never ends" for m in sorted(open_texts))
        problems.extend(f"tool call '{c}' never ends" for c in sorted(open_calls))
    return problems


def check_events_well_formed(run: RunRecord) -> list[CheckResult]:
    exchanges = _exchanges(run)
    if not exchanges:
        return []
    return _judged(EVENTS_WELL_FORMED, [(turn.index + 1, problem) for turn, exchange in exchanges
                                        for problem in stream_problems(exchange.events)])


def _decided(turn: TurnRecord, approved: bool) -> set[str]:
    """Calls the caller approved (or rejected) in this turn's input."""
    return {c.function_call.call_id for m in turn.input_messages() for c in m.contents
            if isinstance(c, ApprovalResponse) and c.approved == approved and c.function_call.server_label is None}


def _awaiting_input(turn: TurnRecord) -> set[str]:
    return {c.function_call.call_id for m in turn.response_messages() for c in m.contents
            if isinstance(c, UserInputRequest) and c.function_call is not None}


def check_result_events_once(run: RunRecord) -> list[CheckResult]:
    exchanges = _exchanges(run)
    if not exchanges:
        return []
    problems: list[tuple[int, str]] = []
    for turn, exchange in exchanges:
        results = Counter(text(e.fields.get("toolCallId")) for e in exchange.events if e.type == "TOOL_CALL_RESULT")
        for call_id, count in sorted(results.items()):
            if count > 1:
                problems.append((turn.index + 1, f"{count} TOOL_CALL_RESULT events for call '{call_id}'"))
        for call_id in sorted(_decided(turn, approved=False) & set(results)):
            problems.append((turn.index + 1, f"a TOOL_CALL_RESULT event for call '{call_id}', which the caller "
                                             "rejected"))
        if any(e.type == "RUN_ERROR" for e in exchange.events):
            continue  # the run failed: what it could not finish is the error's, and other checks judge it
        waiting = _awaiting_input(turn)
        for execution in turn.executions:
            call_id = execution.call_id
            if call_id is not None and call_id not in waiting and results[call_id] == 0:
                problems.append((turn.index + 1, f"call '{call_id}' ({execution.tool}) executed but no "
                                                 "TOOL_CALL_RESULT event reported it"))
        for call_id in sorted(waiting & set(results)):
            problems.append((turn.index + 1, f"a TOOL_CALL_RESULT event for call '{call_id}', which waits for "
                                             "the caller's input"))
    return _judged(RESULT_EVENTS_ONCE, problems)


def snapshot_problem(exchange: TransportExchange, rejected: set[str]) -> str | None:
    events = exchange.events
    if not any(e.type == "RUN_FINISHED" for e in events):
        return None  # a failed run owes no snapshot
    messages = snapshot(events)
    sent = {text(m.get("id")) for m in sent_messages(exchange.request)}
    folded = [m for m in fold(events) if text(m.get("id")) not in sent]
    if messages is None:
        # A run whose events add nothing to the thread (the model's answer was a blank text) leaves a client that
        # keeps its thread from snapshots nothing to lose: the snapshot is owed for what the run added. A run that
        # paused for input added its pause, which stays in the message history (row "AG-UI approval-time
        # follow-up") although no event folds into a message.
        owed = folded or rejected or input_requests(events)
        return "the run finished without a MESSAGES_SNAPSHOT event" if owed else None
    added = [m for m in messages if text(m.get("id")) not in sent
             and not (text(m.get("role")) == "tool" and text(m.get("toolCallId")) in rejected)]
    if comparable(added) != comparable(folded):
        return (f"the snapshot adds {comparable(added)} to the request's messages, but the events fold to "
                f"{comparable(folded)}")
    # A client merges the snapshot into what it streamed by message id: a result renamed in the snapshot is shown
    # twice, or moved after the answer that followed it.
    streamed = {text(m.get("toolCallId")): text(m.get("id")) for m in folded if text(m.get("role")) == "tool"}
    for message in added:
        call_id = text(message.get("toolCallId"))
        if text(message.get("role")) == "tool" and call_id in streamed and text(message.get("id")) != streamed[call_id]:
            return (f"the result of {call_id!r} streams as message {streamed[call_id]!r} but the snapshot names it "
                    f"{text(message.get('id'))!r}")
    return None


def check_snapshot_agrees(run: RunRecord) -> list[CheckResult]:
    exchanges = _exchanges(run)
    if not exchanges:
        return []
    problems: list[tuple[int, str]] = []
    for turn, exchange in exchanges:
        problem = snapshot_problem(exchange, _decided(turn, approved=False))
        if problem is not None:
            problems.append((turn.index + 1, problem))
    return _judged(SNAPSHOT_AGREES, problems)


def check_no_approval_controls_to_model(run: RunRecord) -> list[CheckResult]:
    exchanges = _exchanges(run)
    if not exchanges:
        return []
    controls: set[str] = set()
    approvals: set[str] = set()
    problems: list[tuple[int, str]] = []
    for turn in run.turns:
        exchange = turn.view.transport
        if exchange is not None:
            # The controls this run's request replays (the client's copy of earlier ones), the interrupts it
            # resumes and what its own events announce all count: none may reach a model call of the run.
            controls |= {text(mapping(c).get("id")) for m in sent_messages(exchange.request)
                         for c in items(m.get("toolCalls"))
                         if text(mapping(mapping(c).get("function")).get("name")) == CONFIRM_CHANGES}
            controls |= set(control_calls(exchange.events))
            approvals |= {text(mapping(r).get("interruptId")) for r in items(exchange.request.get("resume"))}
            approvals |= set(approval_requests(exchange.events)) | {text(i.get("id")) for i in
                                                                    interrupts(exchange.events)}
        for request in turn.requests:
            # An endpoint may use a call's own id as the interrupt id of its approval (the spec allows it): a result
            # for a call the model made in this history is that call's result, not an answer to the approval.
            called = {c.call_id for m in request.messages for c in m.contents
                      if isinstance(c, FunctionCall) and c.name != CONFIRM_CHANGES and c.call_id not in controls}
            for message in request.messages:
                for content in message.contents:
                    found = _control(content, controls, approvals - called)
                    if found is not None:
                        problems.append((turn.index + 1, f"model call #{request.number} received {found}"))
    return _judged(NO_APPROVAL_CONTROLS_TO_MODEL, problems)


def _control(content: object, controls: set[str], approvals: set[str]) -> str | None:
    if isinstance(content, ApprovalRequest | ApprovalResponse) and content.function_call.server_label is None:
        kind = "approval_request" if isinstance(content, ApprovalRequest) else "approval_response"
        return f"a local {kind} for '{content.function_call.call_id}'"
    if isinstance(content, FunctionCall) and (content.name == CONFIRM_CHANGES or content.call_id in controls):
        return f"the approval control call '{content.call_id}' ({content.name})"
    if isinstance(content, FunctionResult) and (content.call_id in controls or content.call_id in approvals):
        return f"a result for the approval control '{content.call_id}'"
    return None


EVENT_INVARIANTS = (
    check_events_well_formed,
    check_result_events_once,
    check_snapshot_agrees,
    check_no_approval_controls_to_model,
)
