"""The universal invariants, checked on every run of every scenario. Each returns its `CheckResult`s."""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from harness.checks.approvals import APPROVAL_INVARIANTS
from harness.checks.events import EVENT_INVARIANTS
from harness.contents import (
    APPROVAL_PENDING,
    ApprovalRequest,
    ApprovalResponse,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    UserInputRequest,
    fold_updates,
    placeholder_call_ids,
    placeholder_results,
)
from harness.limits import DEFAULT_MAX_ITERATIONS
from harness.records import RunRecord, TurnRecord
from harness.results import CheckResult
from harness.signatures import as_received
from harness.transcript import messages_form, normalised_flow, render_flow

# A loop with no configured bound still must stop; past this many model calls in one turn it is a runaway.
RUNAWAY_MODEL_CALLS = DEFAULT_MAX_ITERATIONS + 1


def _pass(check: str) -> list[CheckResult]:
    return [CheckResult(check, "pass")]


def _fail(check: str, turn: int, message: str, **extra: Any) -> CheckResult:
    return CheckResult(check, "fail", message, turn + 1, **extra)


def _args_key(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, default=str)


# --- 1. exactly once ------------------------------------------------------------------------------------------


def check_exactly_once(run: RunRecord) -> list[CheckResult]:
    """No local call executes more often than the model asked for it; each execution has exactly one result."""
    failures: list[CheckResult] = []
    served: Counter[str] = Counter()
    served_by_args: Counter[tuple[str, str]] = Counter()
    executed: Counter[str] = Counter()
    executed_by_args: Counter[tuple[str, str]] = Counter()
    signatures = {tool.name: tool.signature for tool in run.scenario.tools}

    def received(call: FunctionCall) -> str:
        return _args_key(as_received(signatures.get(call.name), call.arguments))

    for turn in run.turns:
        for call in turn.served_calls():
            served[call.call_id] += 1
            served_by_args[(call.name, received(call))] += 1
        for call in _handwritten_calls(turn.input_messages(), served):
            served[call.call_id] += 1
            served_by_args[(call.name, received(call))] += 1
        for execution in turn.executions:
            if execution.call_id is not None:
                executed[execution.call_id] += 1
                if executed[execution.call_id] > served[execution.call_id]:
                    failures.append(_fail("exactly-once", turn.index,
                                          f"call '{execution.call_id}' ({execution.tool}) executed "
                                          f"{executed[execution.call_id]} times for {served[execution.call_id]} "
                                          "call occurrence(s)"))
            else:
                key = (execution.tool, _args_key(execution.arguments))
                executed_by_args[key] += 1
                if executed_by_args[key] > served_by_args[key]:
                    failures.append(_fail("exactly-once", turn.index,
                                          f"{execution.tool}({key[1]}) executed {executed_by_args[key]} times for "
                                          f"{served_by_args[key]} call occurrence(s)"))
        failures.extend(_one_result_per_execution(turn))
    return failures or _pass("exactly-once")


def _handwritten_calls(messages: Sequence[Message], served: Counter[str]) -> list[FunctionCall]:
    """Call occurrences the caller's input introduces with ids no model response used: hand-written history.

    Replayed history repeats ids already served, so it never raises how often a call may execute. A hand-written
    history may reuse a call id as a model does, so occurrences are counted, not ids: each function_call is one, and
    approval wrappers (which may stand for their call when it is missing) add the occurrences their distinct ids
    name beyond those calls.
    """
    calls: dict[str, list[FunctionCall]] = {}
    wrapped: dict[str, dict[str, FunctionCall]] = {}
    for message in messages:
        for content in message.contents:
            if isinstance(content, FunctionCall) and served[content.call_id] == 0:
                calls.setdefault(content.call_id, []).append(content)
            elif isinstance(content, ApprovalResponse | ApprovalRequest) and served[content.function_call.call_id] == 0:
                wrapped.setdefault(content.function_call.call_id, {}).setdefault(content.id, content.function_call)
    found: list[FunctionCall] = []
    for call_id in dict.fromkeys([*calls, *wrapped]):
        written, by_wrapper = calls.get(call_id, []), list(wrapped.get(call_id, {}).values())
        found.extend(written)
        found.extend(by_wrapper[len(written):])
    return found


def _one_result_per_execution(turn: TurnRecord) -> list[CheckResult]:
    if turn.view.response is None:
        return []
    results = Counter(c.call_id for m in turn.response_messages() for c in m.contents if isinstance(c, FunctionResult))
    paused = {c.function_call.call_id for m in turn.response_messages() for c in m.contents
              if isinstance(c, UserInputRequest) and c.function_call is not None}
    runs = Counter(e.call_id for e in turn.executions if e.call_id is not None)
    # The tools' own records say how often it ran; a transcript with a result too many or too few breaks the
    # one-result promise, not the run-once one, so it is never reported as a second execution.
    return [
        _fail("exactly-once", turn.index, f"the response holds {results[call_id]} result(s) for call '{call_id}', "
                                          f"which the tools' records show executed {count} time(s)",
              profile="contract")
        for call_id, count in runs.items()
        if results[call_id] != count and call_id not in paused
    ]


# --- 2. no orphans --------------------------------------------------------------------------------------------


@dataclass
class _Occurrence:
    call: FunctionCall
    closed: bool = False
    paused: bool = False  # awaiting an approval decision or user input
    batch: int = 0  # the model response it came in: one run of consecutive assistant messages

    @property
    def exempt(self) -> bool:
        return self.call.informational_only or self.call.server_label is not None


def orphans(messages: Sequence[Message], *, allow_pauses: bool,
            caller_placeholders: Collection[str] = (), repeated: Collection[str] = ()) -> list[str]:
    """Calls without a result and results without a call, matching reused ids by occurrence in order.

    A pending-approval placeholder result (`placeholder_results`: the caller's, for an occurrence awaiting a
    decision; never a tool's output that happens to read the same) is not terminal: it marks the earliest open
    occurrence of its call id as paused. Caller-side (`allow_pauses`) that is allowed; in a model-bound history the
    placeholder itself is a failure, and so is the paused call it leaves open. The approval wrappers that tell a
    placeholder apart are gone from a model-bound history, so there `caller_placeholders` names the call ids the
    caller wrote placeholders for.

    Caller-side, a call with no result in a model response that paused for approval or input is held back with its
    batch (the spec's mixed batches: "hidden safe calls replay only with the matching visible approval"), so it is
    allowed while the batch is paused; once the batch's pauses are answered it needs its result like any call.

    `repeated` names the call ids that a model response itself repeated as one output item (the same call id and
    service item id twice): a loop that passes the model's repeat on, giving both copies its one identity for the
    occurrence, shows one call twice, which needs one result. A copy the loop made itself is never excused.
    """
    open_calls: list[_Occurrence] = []
    problems: list[str] = []
    # Model-bound, an approval request that leaked without its decision would make a tool's real output look like
    # a placeholder: there only what the caller wrote counts.
    placeholders = placeholder_results(messages, None if allow_pauses else caller_placeholders)
    batch = 0
    previous_role: str | None = None
    for message in messages:
        if message.role == "assistant" and previous_role != "assistant":
            batch += 1
        previous_role = message.role
        for content in message.contents:
            if isinstance(content, FunctionCall):
                if content.call_id not in repeated or not _repeats_occurrence(open_calls, content, batch):
                    open_calls.append(_Occurrence(content, batch=batch))
            elif isinstance(content, FunctionResult) and id(content) in placeholders:
                match = next((o for o in open_calls if not o.closed and o.call.call_id == content.call_id), None)
                if match is None:
                    problems.append(f"placeholder result for '{content.call_id}' has no open call before it")
                else:
                    match.paused = True
                if not allow_pauses:
                    problems.append(f"result for '{content.call_id}' is the pending-approval placeholder "
                                    f"{APPROVAL_PENDING!r}, not a terminal result")
            elif isinstance(content, FunctionResult):
                match = next((o for o in open_calls if not o.closed and o.call.call_id == content.call_id), None)
                if match is None:
                    problems.append(f"result for '{content.call_id}' has no open call before it")
                else:
                    match.closed = True
            elif isinstance(content, ApprovalRequest | UserInputRequest) and content.function_call is not None:
                match = _paused_occurrence(open_calls, content.function_call)
                if match is None:
                    open_calls.append(_Occurrence(content.function_call, paused=True, batch=batch))
                else:
                    match.paused = True
    paused_batches = {o.batch for o in open_calls if o.paused and not o.closed}
    for occurrence in open_calls:
        if occurrence.closed or occurrence.exempt or (occurrence.paused and allow_pauses):
            continue
        if allow_pauses and occurrence.batch in paused_batches:
            continue  # held back with its batch's pause
        state = "is paused for approval or input" if occurrence.paused else "has no result"
        problems.append(f"call '{occurrence.call.call_id}' ({occurrence.call.name}) {state}")
    return problems


def _repeats_occurrence(occurrences: Sequence[_Occurrence], call: FunctionCall, batch: int) -> bool:
    """Whether `call` is another copy of a call of the same model response that the loop itself identifies as the
    same occurrence (its own identity for both, e.g. the service's item id). Without such an identity every
    function_call is an occurrence of its own."""
    return call.occurrence_id is not None and any(
        o.batch == batch and o.call.call_id == call.call_id and o.call.occurrence_id == call.occurrence_id
        for o in occurrences)


def _paused_occurrence(open_calls: Sequence[_Occurrence], call: FunctionCall) -> _Occurrence | None:
    """The open occurrence a request for approval or input pauses: the one whose call it carries (same name and
    arguments), else the earliest not yet paused, else the earliest, of its call id. With a reused id an earlier
    occurrence may still be paused (its follow-up unanswered) when the next one is asked about."""
    candidates = [o for o in open_calls if not o.closed and o.call.call_id == call.call_id]
    same = [o for o in candidates if call.name and (o.call.name, o.call.arguments) == (call.name, call.arguments)]
    return next(iter(same or [o for o in candidates if not o.paused] or candidates), None)


def repeated_items(run: RunRecord) -> set[str]:
    """The call ids that some model response of the run repeated as one output item: the same call id and service
    item id twice in one response (spec: "Calls across response messages" - one call, executed once)."""
    repeated: set[str] = set()
    for turn in run.turns:
        for step in turn.served:
            items = Counter((c.call_id, c.item_id) for m in step.response.messages for c in m.contents
                            if isinstance(c, FunctionCall) and c.item_id is not None)
            repeated.update(call_id for (call_id, _), count in items.items() if count > 1)
    return repeated


def check_no_orphans(run: RunRecord) -> list[CheckResult]:
    failures: list[CheckResult] = []
    # A disabled loop hands the model's calls to the caller untouched: answering them is the caller's job.
    caller_side = run.scenario.config.enabled
    repeated = repeated_items(run)
    for turn in run.turns:
        # With session-kept history the conversation so far is part of what the caller is shown to continue.
        earlier = _session_history(run, turn.index)
        given = earlier + turn.input_messages()
        caller_placeholders = placeholder_call_ids(given)
        if turn.view.response is not None and caller_side:
            transcript = given + turn.response_messages()
            failures.extend(_fail("no-orphans", turn.index, f"caller-visible transcript: {p}")
                            for p in orphans(transcript, allow_pauses=True, repeated=repeated))
        # A turn that raised leaves the caller an exception, not a transcript: the updates streamed before it are
        # abandoned with the turn (the spec lets an unknown call raise, and a call streams before it is judged).
        if turn.view.updates and caller_side and turn.view.error is None:
            streamed = earlier + turn.input_messages() + fold_updates(turn.view.updates).messages
            failures.extend(_fail("no-orphans", turn.index, f"streamed updates: {p}")
                            for p in orphans(streamed, allow_pauses=True, repeated=repeated))
        for request in turn.requests:
            failures.extend(_fail("no-orphans", turn.index, f"history sent with model call #{request.number}: {p}")
                            for p in orphans(request.seen, allow_pauses=False,
                                             caller_placeholders=caller_placeholders, repeated=repeated))
    return failures or _pass("no-orphans")


def _session_history(run: RunRecord, before: int) -> tuple[Message, ...]:
    if not run.scenario.session:
        return ()
    # A turn that raised is not part of the conversation: the caller holds no answer to it and retries its input.
    return tuple(m for turn in run.turns[:before] if turn.view.response is not None
                 for m in turn.input_messages() + turn.response_messages())


# --- 3. caller inputs never mutated ---------------------------------------------------------------------------


def check_inputs_unmutated(run: RunRecord) -> list[CheckResult]:
    failures: list[CheckResult] = []
    for turn in run.turns:
        if turn.crash is not None:
            continue
        if turn.view.inputs_after != turn.caller_input:
            sent, reread = _dump(turn.caller_input), _dump(turn.view.inputs_after)
            diff = tuple(difflib.unified_diff(sent.splitlines(), reread.splitlines(), "the caller's input, as sent",
                                              f"the caller's input, re-read after turn {turn.index + 1}",
                                              lineterm=""))
            failures.append(_fail("inputs-unmutated", turn.index, "the caller's input messages changed during the turn",
                                  expected=sent, actual=reread, diff=diff))
        earlier = tuple(r.messages for r in turn.view.earlier_responses_after)
        if earlier != turn.earlier_responses:
            failures.append(_earlier_response_changed(turn.index, turn.earlier_responses, earlier))
    return failures or _pass("inputs-unmutated")


def _earlier_response_changed(turn: int, returned: tuple[tuple[Message, ...], ...],
                              reread: tuple[tuple[Message, ...], ...]) -> CheckResult:
    """Which earlier response changed (the first that did, by the turn that returned it), with a diff of it."""
    changed = next((i for i, (before, after) in enumerate(zip(returned, reread, strict=False)) if before != after),
                   min(len(returned), len(reread)))
    before = returned[changed] if changed < len(returned) else ()
    after = reread[changed] if changed < len(reread) else ()
    name = f"the response returned on turn {changed + 1}"
    if len(returned) != len(reread):
        message = f"{len(returned)} earlier responses were returned, {len(reread)} re-read; first difference: {name}"
    else:
        message = f"{name} changed during turn {turn + 1}"
    diff = tuple(difflib.unified_diff(_dump(before).splitlines(), _dump(after).splitlines(),
                                      f"{name}, as returned", f"{name}, re-read after turn {turn + 1}", lineterm=""))
    return _fail("inputs-unmutated", turn, message, expected=_dump(before), actual=_dump(after), diff=diff)


def _dump(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value and isinstance(value[0], tuple):
        return json.dumps([messages_form(v) for v in value], indent=1, default=str)
    return json.dumps(messages_form(value), indent=1, default=str)


# --- 4. streaming agreement -----------------------------------------------------------------------------------


def check_stream_agreement(run: RunRecord) -> list[CheckResult]:
    """Folded updates = the stream's final response = the non-streaming response, per turn."""
    if run.mode != "streaming":
        return [CheckResult("stream-agreement", "n/a", "checked on the streaming run")]
    failures: list[CheckResult] = []
    shadow = run.shadow
    for turn in run.turns:
        if turn.view.response is None:
            raised = turn.view.error
            answered = shadow is not None and turn.index < len(shadow.turns) and (
                shadow.turns[turn.index].view.response is not None)
            if raised is not None and answered:
                failures.append(_fail("stream-agreement", turn.index, "streaming mode raised "
                                      f"{raised.type_name}: {raised.message}; non-streaming did not"))
            continue
        final = normalised_flow(turn.response_messages())
        folded = normalised_flow(fold_updates(turn.view.updates).messages)
        if folded != final:
            failures.append(_flow_failure(turn.index, "folded streamed updates differ from the final response",
                                          final, folded, "final response", "folded updates"))
        if shadow is not None and turn.index < len(shadow.turns):
            other = shadow.turns[turn.index]
            if other.view.response is not None:
                plain = normalised_flow(other.response_messages())
                if plain != final:
                    failures.append(_flow_failure(turn.index, "the streaming response differs from the "
                                                  "non-streaming response", plain, final, "non-streaming",
                                                  "streaming"))
            elif other.view.error is not None:
                failures.append(_fail("stream-agreement", turn.index, "non-streaming mode raised "
                                      f"{other.view.error.type_name}: {other.view.error.message}; streaming did not"))
    return failures or _pass("stream-agreement")


def _flow_failure(turn: int, message: str, expected: list[dict[str, Any]], actual: list[dict[str, Any]],
                  expected_name: str, actual_name: str) -> CheckResult:
    diff = tuple(difflib.unified_diff(render_flow(expected), render_flow(actual), expected_name, actual_name,
                                      lineterm=""))
    # The same calls, results and answer in another order: the spec's ordering promise, not a safety one.
    order_only = _content_multiset(expected) == _content_multiset(actual)
    return _fail("stream-agreement", turn, message + (" (the same contents, in another order)" if order_only else ""),
                 expected="\n".join(render_flow(expected)), actual="\n".join(render_flow(actual)), diff=diff,
                 profile="contract" if order_only else "safety")


def _content_multiset(flow: list[dict[str, Any]]) -> Counter[str]:
    # Texts are compared as one joined answer per role: streamed text may be split and folded differently by order.
    texts: dict[str, str] = {}
    others: Counter[str] = Counter()
    for item in flow:
        if set(item) == {"role", "text"}:
            texts[str(item["role"])] = texts.get(str(item["role"]), "") + str(item["text"])
        else:
            others[json.dumps(item, sort_keys=True, default=str)] += 1
    return others + Counter(json.dumps({"role": r, "text": t}, sort_keys=True) for r, t in texts.items())


# --- 5. parallel results keep model order ---------------------------------------------------------------------


def check_parallel_order(run: RunRecord) -> list[CheckResult]:
    """Results of one model response's calls keep the model's order wherever they appear: in the response, the
    stream, what the caller holds once a resumed turn answers calls of an earlier one, and every conversation the
    model answers."""
    failures: list[CheckResult] = []
    for turn in run.turns:
        sources: list[tuple[str, Sequence[Message]]] = [("response", turn.response_messages())]
        if turn.view.updates:
            sources.append(("streamed updates", fold_updates(turn.view.updates).messages))
        if turn.view.response is not None:
            # Results the caller writes itself this turn (a host-owned call's answer) come in the caller's order:
            # they are left out, and the loop's results are judged against the calls of earlier turns they answer.
            returned = {_result_key(c) for t in run.turns[: turn.index] for m in t.response_messages()
                        for c in m.contents if isinstance(c, FunctionResult)}
            own = tuple(Message(m.role, tuple(c for c in m.contents if not isinstance(c, FunctionResult)
                                              or _result_key(c) in returned))
                        for m in turn.input_messages())
            sources.append(("caller-visible transcript",
                            _session_history(run, turn.index) + own + turn.response_messages()))
        sources.extend((f"history sent with model call #{r.number}", r.seen) for r in turn.requests)
        reported: set[str] = set()
        for where, messages in sources:
            for problem in _order_problems(messages):
                if problem not in reported:  # one wrong order shows up in several of these places
                    reported.add(problem)
                    failures.append(_fail("parallel-order", turn.index, f"{where}: {problem}"))
    return failures or _pass("parallel-order")


def check_reasoning_bound(run: RunRecord) -> list[CheckResult]:
    """Each reasoning item a model response put before a call travels with that call, unchanged: in every later
    conversation the model answers that holds the call, the item stands before it in the same message (spec:
    replay "includes the service-required reasoning representation before the paired call")."""
    failures: list[CheckResult] = []
    bound: list[tuple[FunctionCall, tuple[Reasoning, ...]]] = []
    for turn in run.turns:
        # A caller's own transcript binds its reasoning to its calls as well (hand-written or replayed history).
        bound.extend(_bindings(turn.input_messages()))
        for position, request in enumerate(turn.requests):
            for call, items in bound:
                problem = _reasoning_problem(request.seen, call, items)
                if problem is not None:
                    failures.append(_fail("reasoning-bound", turn.index,
                                          f"history sent with model call #{request.number}: {problem}"))
            if position < len(turn.served):
                bound.extend(_bindings(turn.served[position].response.messages))
    return failures or _pass("reasoning-bound")


def _bindings(messages: Sequence[Message]) -> list[tuple[FunctionCall, tuple[Reasoning, ...]]]:
    """Each call with the reasoning items that came before it (since the previous call): in its own message, or
    in an assistant message of reasoning alone right before it, as providers that send reasoning as its own item
    and loops that keep it as its own message have it."""
    found: list[tuple[FunctionCall, tuple[Reasoning, ...]]] = []
    carried: list[Reasoning] = []
    for message in messages:
        pending = list(carried)
        carried = []
        for content in message.contents:
            if isinstance(content, Reasoning):
                pending.append(content)
            elif isinstance(content, FunctionCall):
                if pending:
                    found.append((content, tuple(pending)))
                pending = []
        if _reasoning_only(message):
            carried = pending
    return found


def _reasoning_only(message: Message) -> bool:
    return message.role == "assistant" and bool(message.contents) and all(
        isinstance(c, Reasoning) for c in message.contents)


def _reasoning_problem(seen: Sequence[Message], call: FunctionCall, items: tuple[Reasoning, ...]) -> str | None:
    # The same call (id, name and arguments) may occur more than once, a round reusing an earlier round's id: its
    # reasoning travels with one of them, so the call is judged by the occurrence that carries it best.
    problems = [_occurrence_problem(seen, position, index, call, items)
                for position, message in enumerate(seen) for index, content in enumerate(message.contents)
                if isinstance(content, FunctionCall) and _same_call(content, call)]
    if not problems or None in problems:
        return None  # (no occurrence: the call is not in this conversation, yet or any longer: nothing to carry)
    return problems[0]


def _occurrence_problem(seen: Sequence[Message], position: int, index: int, call: FunctionCall,
                        items: tuple[Reasoning, ...]) -> str | None:
    message = seen[position]
    previous = seen[position - 1] if position else None
    before = [*(previous.contents if previous is not None and _reasoning_only(previous) else ()),
              *(c for c in message.contents[:index] if isinstance(c, Reasoning))]
    before = [c for c in before if isinstance(c, Reasoning)]
    missing = [item for item in items if item not in before]
    if missing:
        return (f"call '{call.call_id}' arrives without its reasoning item(s) "
                f"{', '.join(_describe_reasoning(m) for m in missing)} before it")
    order = [before.index(item) for item in items]
    if order != sorted(order):
        return f"the reasoning items of call '{call.call_id}' arrive in another order"
    return None


def _same_call(content: FunctionCall, call: FunctionCall) -> bool:
    return (content.call_id, content.name, _args_key(content.arguments)) == (
        call.call_id, call.name, _args_key(call.arguments))


def _describe_reasoning(item: Reasoning) -> str:
    return f"'{item.item_id}'" if item.item_id else f"({item.kind}: {item.text[:40]!r})"


def _result_key(result: FunctionResult) -> tuple[str, str]:
    return result.call_id, json.dumps(result.result, sort_keys=True, default=str)


def _order_problems(messages: Sequence[Message]) -> list[str]:
    problems: list[str] = []
    for position, message in enumerate(messages):
        batch = [c.call_id for c in message.contents if isinstance(c, FunctionCall) and not c.informational_only]
        if len(batch) < 2:
            continue
        # A call id the model reused in the batch owns as many results as it has calls; results beyond those
        # answer later rounds that reuse the id.
        owned = Counter(batch)
        taken: Counter[str] = Counter()
        seen: list[str] = []
        for content in (c for m in messages[position + 1:] for c in m.contents):
            if isinstance(content, FunctionResult) and taken[content.call_id] < owned[content.call_id]:
                taken[content.call_id] += 1
                seen.append(content.call_id)
        left = Counter(taken)
        expected: list[str] = []
        for call_id in batch:
            if left[call_id] > 0:
                left[call_id] -= 1
                expected.append(call_id)
        if seen != expected:
            problems.append(f"results arrive as {seen}, the model called {expected}")
    return problems


# --- 6. the loop stops ----------------------------------------------------------------------------------------


def check_bounded(run: RunRecord) -> list[CheckResult]:
    """No more model calls in a turn than the limits allow, and once a limit is reached, one final call with
    tools disabled (spec: "Maximum iterations", "Maximum function calls")."""
    config = run.scenario.config
    limit = (config.max_iterations + 1) if config.max_iterations else RUNAWAY_MODEL_CALLS
    if not config.enabled:
        limit = 1
    failures: list[CheckResult] = []
    for turn in run.turns:
        if len(turn.requests) > limit:
            failures.append(_fail("bounded", turn.index,
                                  f"{len(turn.requests)} model calls in one turn; the bound is {limit}"))
        elif config.enabled and config.max_iterations and len(turn.requests) == limit:
            last = turn.requests[-1]
            if last.tool_choice != "none":
                failures.append(_final_call_offers_tools(
                    turn.index, f"model call #{last.number} came after max_iterations={config.max_iterations} "
                                f"tool-enabled calls but had tool_choice={last.tool_choice!r}, not 'none'"))
        if config.enabled and config.max_iterations:
            failures.extend(_ran_after(turn, config.max_iterations, f"max_iterations={config.max_iterations}"))
        if config.enabled and config.max_function_calls:
            failures.extend(_after_call_budget(turn, config.max_function_calls))
    return failures or _pass("bounded")


def _final_call_offers_tools(turn: int, message: str) -> CheckResult:
    # How a loop ends at a limit is spec 004's mechanism (a final call with tool_choice "none", the row's regression
    # test), not a promise every loop owes: another loop may end with a fallback or an error. Running a tool past
    # the limit is what every loop owes its caller not to do, judged apart (`_ran_after`).
    return _fail("bounded", turn, message, profile="contract",
                 cites=("row:Maximum iterations", "row:Maximum function calls"))


def _ran_after(turn: TurnRecord, index: int, limit: str) -> list[CheckResult]:
    """Tool executions after the model call at 0-based `index` of the turn (the first one a limit allows no tool
    for): a caller's budget was overrun, whatever the loop's way of ending."""
    if len(turn.requests) <= index or len(turn.ran_before_requests) <= index:
        return []
    extra = len(turn.executions) - turn.ran_before_requests[index]
    if extra <= 0:
        return []
    return [_fail("bounded", turn.index, f"{extra} tool execution(s) after model call #{turn.requests[index].number}, "
                                         f"made once {limit} was reached: a tool ran past the caller's budget",
                  profile="safety", cites=("row:Maximum iterations", "row:Maximum function calls"))]


def _after_call_budget(turn: TurnRecord, budget: int) -> list[CheckResult]:
    """Model calls made once `budget` tools ran in the turn: at most one, and with tools disabled; no tool runs
    after the first of them."""
    spent = [i for i, ran in enumerate(turn.ran_before_requests[:len(turn.requests)]) if ran >= budget]
    after = [turn.requests[i] for i in spent]
    failures = [_final_call_offers_tools(turn.index, f"model call #{r.number} came after {budget} function call(s) "
                                                     f"spent max_function_calls but had tool_choice="
                                                     f"{r.tool_choice!r}, not 'none'")
                for r in after if r.tool_choice != "none"]
    if len(after) > 1:
        failures.append(_fail("bounded", turn.index, f"{len(after)} model calls after max_function_calls={budget} "
                                                     "was spent; only one final call is allowed",
                              profile="contract", cites=("row:Maximum function calls",)))
    if spent:
        failures.extend(_ran_after(turn, spent[0], f"max_function_calls={budget}"))
    return failures


INVARIANTS = (
    check_exactly_once,
    check_no_orphans,
    check_inputs_unmutated,
    check_stream_agreement,
    check_parallel_order,
    check_reasoning_bound,
    check_bounded,
    *APPROVAL_INVARIANTS,
    *EVENT_INVARIANTS,
)
