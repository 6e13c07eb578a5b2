"""The approval invariants, checked on every run: what the caller decides is what happens, exactly once.

A caller answers an approval request with an `ApprovalResponse` in a later turn's input (or in the history a session
keeps). Five promises follow, each its own check:

* `rejected-never-runs` — a rejected call never executes, in the turn its rejection arrives or any later one;
* `approved-once` — an approved call executes exactly once across all turns: not before its approval, not twice;
* `rejection-call-id` — a rejection produces a function_result carrying the call's own call_id (not only the
  approval request's id), in the response of the turn the rejection first arrives and in what that turn's model
  calls receive;
* `approval-inert` — a decision whose call already has its terminal result is inert: replaying it on a later turn
  causes no execution and no new result;
* `no-approval-wrappers-to-model` — approval requests and responses never reach the model, except hosted ones
  (`server_label` set), which are the provider's own protocol data.

Calls are correlated by occurrence, not by id alone: a model may reuse a call id, so a decision belongs to the
approval request it answers (matched by request id, then by order among requests with the same ids), and an
execution is attributed by call id when the implementation reports one, else by tool name and arguments. An
execution is blamed on a decision only when it exceeds what the turn legitimately runs: the pending approved
decisions of the turn and the model's ungated calls of the turn. Hosted approvals run at the provider, so only the
last check looks at them. A run without any approval gets `n/a` from every check.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import TypeGuard

from harness.contents import (
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    UserInputRequest,
    fold_updates,
    placeholder_call_ids,
    placeholder_results,
)
from harness.parameters import argument_problems
from harness.records import RunRecord, TurnRecord
from harness.results import CheckResult, Profile
from harness.script import ApprovalScope, ToolExecution

REJECTED_NEVER_RUNS = "rejected-never-runs"
APPROVED_ONCE = "approved-once"
REJECTION_CALL_ID = "rejection-call-id"
APPROVAL_INERT = "approval-inert"
NO_APPROVAL_WRAPPERS_TO_MODEL = "no-approval-wrappers-to-model"

APPROVAL_CHECKS = (
    REJECTED_NEVER_RUNS,
    APPROVED_ONCE,
    REJECTION_CALL_ID,
    APPROVAL_INERT,
    NO_APPROVAL_WRAPPERS_TO_MODEL,
)

NO_APPROVALS = "the run has no approval requests or decisions"

# How an execution is matched to a call: ("id", call id), or ("args", tool, canonical arguments) when the
# implementation does not report the call id of an execution.
_Key = tuple[str, ...]


def _id_key(call_id: str) -> _Key:
    return ("id", call_id)


def _args_key(name: str, arguments: object) -> _Key:
    return ("args", name, json.dumps(arguments, sort_keys=True, default=str))


def _call_key(call: FunctionCall, by_id: bool) -> _Key:
    return _id_key(call.call_id) if by_id else _args_key(call.name, call.arguments)


def _execution_key(execution: ToolExecution) -> _Key:
    if execution.call_id is not None:
        return _id_key(execution.call_id)
    return _args_key(execution.tool, execution.arguments)


def _describe(call: FunctionCall) -> str:
    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(dict(call.arguments), sort_keys=True)
    return f"'{call.call_id}' ({call.name} {arguments})"


def _terminal(content: object, placeholders: set[int]) -> TypeGuard[FunctionResult]:
    """A function_result that answers its call: not a pending-approval placeholder (`placeholder_results` of the
    messages it is in), which leaves the occurrence open and its decision pending."""
    return isinstance(content, FunctionResult) and id(content) not in placeholders


def _results(messages: Sequence[Message], caller_placeholders: Collection[str] | None = None) -> Counter[str]:
    """Terminal results in `messages`, by call id."""
    placeholders = placeholder_results(messages, caller_placeholders)
    return Counter(c.call_id for c in _contents(messages) if _terminal(c, placeholders))


def _hosted(content: ApprovalRequest | ApprovalResponse) -> bool:
    return content.function_call.server_label is not None


# --- reading one message sequence by occurrence --------------------------------------------------------------


@dataclass
class _Occurrence:
    """One call occurrence in a message sequence; results close the earliest open one with their id."""

    call: FunctionCall
    requests: list[tuple[str, int]] = field(default_factory=lambda: [])  # (request id, rank of (id, call id))
    decided: bool = False
    closed: bool = False
    # An approved execution of this occurrence asked the caller for more input. Answered, the call may run again;
    # once the model reuses the call id for a later occurrence, the follow-up has spent this decision even without
    # a result ("A user-input follow-up consumes only the preceding approval authority and leaves a later reused-id
    # response pending").
    follow_up: bool = False
    followed_up: bool = False  # spent by its follow-up: a later occurrence reuses the call id

    @property
    def spent(self) -> bool:
        return self.closed or self.followed_up


@dataclass(frozen=True)
class _Read:
    """A decision as it stands in one message sequence: the occurrence it answers, and that request's rank."""

    response: ApprovalResponse
    occurrence: _Occurrence
    rank: int | None  # among requests with the same (id, call id) in the sequence; None: no request in it


def _find(occurrences: Sequence[_Occurrence], call_id: str, accept: Callable[[_Occurrence], bool],
          *, latest: bool = False) -> _Occurrence | None:
    ordered = reversed(occurrences) if latest else iter(occurrences)
    return next((o for o in ordered if o.call.call_id == call_id and accept(o)), None)


def _read_decisions(messages: Sequence[Message], *, after_decision: bool = True) -> list[_Read]:
    """Every decision in `messages`, each tied to the call occurrence it answers (closed: it has its result).

    A request binds to the earliest open occurrence of its call id without a request; a decision answers the
    occurrence its request id is bound to, else the earliest open undecided occurrence of its call id, else the
    latest occurrence of that id (a decision on an answered call), else the call it embeds (hand-written history).
    `after_decision=False` reads a placeholder written after its decision as the call's result (the contested
    reading, `placeholder_results`).
    """
    occurrences: list[_Occurrence] = []
    ranks: Counter[tuple[str, str]] = Counter()
    decisions: list[_Read] = []
    placeholders = placeholder_results(messages, after_decision=after_decision)
    for message in messages:
        for content in message.contents:
            if _track(occurrences, content, placeholders):
                continue
            if isinstance(content, ApprovalRequest):
                call_id = content.function_call.call_id
                target = (_find(occurrences, call_id, lambda o: not o.closed and not o.requests)
                          or _find(occurrences, call_id, lambda o: not o.closed, latest=True)
                          or _find(occurrences, call_id, lambda o: True, latest=True))
                if target is None:
                    target = _Occurrence(content.function_call)
                    occurrences.append(target)
                pair = (content.id, call_id)
                target.requests.append((content.id, ranks[pair]))
                ranks[pair] += 1
            elif isinstance(content, ApprovalResponse):
                decisions.append(_read_decision(content, occurrences))
            elif isinstance(content, UserInputRequest) and content.function_call is not None:
                preceding = _find(occurrences, content.function_call.call_id,
                                  lambda o: o.decided and not o.spent, latest=True)
                if preceding is not None:
                    preceding.follow_up = True
    return decisions


def _read_decision(response: ApprovalResponse, occurrences: list[_Occurrence]) -> _Read:
    call_id = response.function_call.call_id
    for occurrence in reversed(occurrences):
        ranks = [rank for request_id, rank in occurrence.requests if request_id == response.id]
        if occurrence.call.call_id == call_id and ranks:
            occurrence.decided = True
            return _Read(response, occurrence, ranks[-1])
    target = (_find(occurrences, call_id, lambda o: not o.closed and not o.decided)
              or _find(occurrences, call_id, lambda o: True, latest=True))
    if target is None:
        target = _Occurrence(response.function_call)
        occurrences.append(target)
    target.decided = True
    return _Read(response, target, None)


def _open_calls(messages: Sequence[Message], caller_placeholders: Collection[str] | None = None) -> list[FunctionCall]:
    """Calls in `messages` left without a result, matching reused ids by occurrence in order."""
    occurrences: list[_Occurrence] = []
    placeholders = placeholder_results(messages, caller_placeholders)
    for message in messages:
        for content in message.contents:
            _track(occurrences, content, placeholders)
    return [o.call for o in occurrences if not o.closed]


def _track(occurrences: list[_Occurrence], content: Content, placeholders: set[int]) -> bool:
    """Open an occurrence for a call, or close the earliest open one a terminal result answers; True if either."""
    if isinstance(content, FunctionCall):
        for earlier in occurrences:
            if earlier.call.call_id == content.call_id and earlier.follow_up:
                earlier.followed_up = True
        occurrences.append(_Occurrence(content))
        return True
    if _terminal(content, placeholders):
        match = _find(occurrences, content.call_id, lambda o: not o.closed)
        if match is not None:
            match.closed = True
        return True
    return False


# --- the run, decision by decision ----------------------------------------------------------------------------


@dataclass(eq=False)
class _Target:
    """One approval-gated call occurrence: the approval request a response returned for it (or, for a decision
    on a request no response returned, the decided call itself)."""

    call: FunctionCall
    request_id: str
    request_turn: int | None  # None: the caller decided on a request this run never returned
    first: int | None = None  # the turn whose input first holds a decision on it
    approved: bool | None = None  # that first decision; it binds
    pending_in: list[int] = field(default_factory=lambda: [])  # turns whose input decides it without its result
    # turns where it is pending only because a placeholder written after the decision is not read as its result
    contested_in: set[int] = field(default_factory=lambda: set())
    executions: int = 0
    allowed: int = 1  # one more execution per pause for user input after an execution

    def key(self, by_id: bool) -> _Key:
        return _call_key(self.call, by_id)


@dataclass(frozen=True)
class _Decided:
    target: _Target
    approved: bool
    terminal: bool  # the input of this turn already holds the result (or a follow-up request) of its occurrence


class _Analysis:
    """Walks the run turn by turn and collects the failures of the first four checks."""

    def __init__(self, run: RunRecord) -> None:
        self.run = run
        self.failures: dict[str, list[CheckResult]] = {check: [] for check in APPROVAL_CHECKS}
        self.targets: list[_Target] = []
        self.handwritten: dict[tuple[str, str, str], _Target] = {}
        specs = {tool.name: tool for tool in run.scenario.tools}
        self.gated_tools = {name for name, spec in specs.items() if spec.approval_required}
        self.runnable_tools = {name for name, spec in specs.items() if not spec.declaration_only and spec.offered}
        self.parameters = {name: spec.parameters for name, spec in specs.items()}
        for turn in run.turns:
            for content in _contents(turn.response_messages()):
                if isinstance(content, ApprovalRequest) and not _hosted(content):
                    self.targets.append(self._target(content.function_call, content.id, turn.index))
        self.policy_approved = self._policy_approved() if run.scenario.approval_policy else {}
        self.consumed: set[int] = set()
        for turn in run.turns:
            self._turn(turn)
        self._never_executed()

    def _policy_approved(self) -> dict[int, list[FunctionCall]]:
        """Under an approval layer, the model's calls needing approval that the layer may run without a per-call
        decision, by the turn they were made in: those an auto-approval rule approved when asked, and those a
        standing decision covers. A standing decision covers the calls the model makes after it (in the turn whose
        input holds it or later) and the earlier ones still waiting, unrun and undecided, when it arrives (a queued
        sibling the layer answers by the caller's rule), of the same tool within the same hosted server; an
        argument-scoped one only calls with exactly the same arguments: empty arguments stay empty, never "any"."""
        standing: list[ApprovalScope] = []
        approved: dict[int, list[FunctionCall]] = {}
        waiting: list[FunctionCall] = []  # earlier calls needing approval that have not run yet
        decided: set[str] = set()  # call ids the caller answered one by one: their own decision governs them
        for turn in self.run.turns:
            inputs = turn.caller_input if not isinstance(turn.caller_input, str) else ()
            given = [scope for m in inputs for c in m.contents
                     if isinstance(c, ApprovalResponse) and (scope := ApprovalScope.of_decision(c)) is not None]
            # The caller's standing decision also answers the requests of its scope still waiting when it arrives
            # (queued behind the layer, never shown): ToolApprovalMiddleware drains its queue by the caller's rules.
            decided.update(c.function_call.call_id for m in inputs for c in m.contents
                           if isinstance(c, ApprovalResponse))
            for call in [c for c in waiting if c.call_id not in decided and any(s.covers(c) for s in given)]:
                approved.setdefault(turn.index, []).append(call)
                waiting.remove(call)
            standing.extend(given)
            by_rule = {(a.call.call_id, a.call.name) for a in turn.rules_asked if a.approved}
            for call in turn.served_calls():
                if call.name not in self.gated_tools:
                    continue
                if (call.call_id, call.name) in by_rule or any(scope.covers(call) for scope in standing):
                    approved.setdefault(turn.index, []).append(call)
                else:
                    waiting.append(call)
            ran = {_execution_key(e) for e in turn.executions}
            waiting = [c for c in waiting if _call_key(c, True) not in ran and _call_key(c, False) not in ran]
        return approved

    def _target(self, call: FunctionCall, request_id: str, request_turn: int | None) -> _Target:
        # Approval does not make arguments valid: a call its tool's parameters refuse must never run (spec,
        # "Approved validation error"), so it is allowed no execution at all.
        return _Target(call, request_id, request_turn, allowed=0 if self._refused(call) else 1)

    def _refused(self, call: FunctionCall) -> bool:
        parameters = self.parameters.get(call.name)
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        return parameters is not None and bool(argument_problems(parameters, arguments))

    def fail(self, check: str, turn: int | None, message: str, profile: Profile | None = None) -> None:
        self.failures[check].append(CheckResult(check, "fail", message, None if turn is None else turn + 1,
                                                profile=profile))

    # --- decisions -------------------------------------------------------------------------------------------

    def _target_for(self, read: _Read, turn: int) -> _Target:
        response = read.response
        call = response.function_call
        issued = [t for t in self.targets if t.request_turn is not None and t.request_turn < turn]
        same = [t for t in issued if t.request_id == response.id and t.call.call_id == call.call_id]
        if same:
            return same[read.rank] if read.rank is not None and read.rank < len(same) else same[-1]
        # A decision under another id than the request's: the latest request for the very same call. Arguments
        # must match too, so a hand-written decision about an earlier use of a reused id is not taken for it.
        wanted = _args_key(call.name, call.arguments)
        same_call = [t for t in issued
                     if t.call.call_id == call.call_id and _args_key(t.call.name, t.call.arguments) == wanted]
        if same_call:
            return same_call[-1]
        key = (response.id, call.call_id, _args_key(call.name, call.arguments)[2])
        if key not in self.handwritten:
            self.handwritten[key] = self._target(call, response.id, None)
        return self.handwritten[key]

    def _decisions(self, turn: TurnRecord) -> list[_Decided]:
        decided: dict[int, _Decided] = {}
        given = _loop_input(self.run, turn)
        # The same decisions with a placeholder written after its decision read as the call's result instead.
        contested = [read.occurrence.spent for read in _read_decisions(given, after_decision=False)]
        for index, read in enumerate(_read_decisions(given)):
            if _hosted(read.response):
                continue
            target = self._target_for(read, turn.index)
            if id(target) in decided:
                continue  # the first mention in this input is the one that counts
            decided[id(target)] = _Decided(target, read.response.approved, read.occurrence.spent)
            if target.first is None:
                target.first, target.approved = turn.index, read.response.approved
            if not read.occurrence.spent:
                target.pending_in.append(turn.index)
                if contested[index]:
                    target.contested_in.add(turn.index)
        return list(decided.values())

    # --- one turn --------------------------------------------------------------------------------------------

    def _turn(self, turn: TurnRecord) -> None:
        decided = self._decisions(turn)
        runnable = [d.target for d in decided if not d.terminal and d.approved and d.target.approved]
        free = self._ungated_calls(turn)
        # Calls the approval layer approved wait for their batch, so they may run in a later turn than their own.
        by_policy = [c for k, calls in self.policy_approved.items() if k <= turn.index for c in calls
                     if id(c) not in self.consumed]
        executed = Counter(_execution_key(e) for e in turn.executions)
        for key, count in executed.items():
            by_id = key[0] == "id"
            runners = [t for t in runnable if t.key(by_id) == key]
            for target in runners[:count]:
                target.executions += 1
            excess = count - len(runners) - sum(1 for call in free if _call_key(call, by_id) == key)
            for call in [c for c in by_policy if _call_key(c, by_id) == key][:max(excess, 0)]:
                self.consumed.add(id(call))
                excess -= 1
            if excess > 0:
                self._blame(turn, key, excess, decided)
        self._pauses_for_input(turn, runnable)
        self._rejections(turn, decided)
        self._inert_results(turn, decided, free)

    def _ungated_calls(self, turn: TurnRecord) -> list[FunctionCall]:
        """The model's calls of this turn that may run in it: actionable, not approval-gated."""
        requested = Counter((c.function_call.call_id, c.function_call.name) for c in _contents(turn.response_messages())
                            if isinstance(c, ApprovalRequest) and not _hosted(c))
        free: list[FunctionCall] = []
        for call in turn.served_calls():
            if requested[(call.call_id, call.name)] > 0:
                requested[(call.call_id, call.name)] -= 1
            elif not (call.informational_only or call.server_label is not None or call.name in self.gated_tools):
                free.append(call)
        return free

    def _blame(self, turn: TurnRecord, key: _Key, excess: int, decided: list[_Decided]) -> None:
        by_id = key[0] == "id"
        k = turn.index
        candidates = [t for t in [*self.targets, *self.handwritten.values()] if t.key(by_id) == key]
        terminal_here = {id(d.target) for d in decided if d.terminal}
        times = f"{excess} time(s)" if excess > 1 else "once"
        rejected = [t for t in candidates if t.approved is False and t.first is not None and t.first <= k]
        if rejected:
            target = rejected[0]
            self.fail(REJECTED_NEVER_RUNS, k, f"call {_describe(target.call)} was rejected in turn "
                                              f"{(target.first or 0) + 1} but executed {times} in turn {k + 1}")
            if id(target) in terminal_here:
                self.fail(APPROVAL_INERT, k, f"the replayed rejection of call {_describe(target.call)}, whose "
                                             f"result the input already holds, executed it {times}")
            return
        approved = [t for t in candidates if t.approved]
        replayed = [t for t in approved if id(t) in terminal_here]
        if replayed:
            target = replayed[0]
            target.executions += excess
            self.fail(APPROVAL_INERT, k, f"the replayed approval of call {_describe(target.call)}, whose result (or "
                                         f"follow-up request) the input already holds, executed it again ({times}) "
                                         f"in turn {k + 1}")
            if target.executions > target.allowed:
                self._too_often(target, k)
            return
        if approved:
            target = next((t for t in approved if t.executions >= t.allowed), approved[0])
            target.executions += excess
            if target.executions > target.allowed:
                self._too_often(target, k)
            return
        early = [t for t in candidates if t.request_turn is not None and t.request_turn <= k
                 and (t.first is None or t.first > k)]
        if early:
            target = early[0]
            self.fail(APPROVED_ONCE, k, f"call {_describe(target.call)} executed {times} in turn {k + 1}, before "
                                        "the caller approved it")
            return
        if any(c.name in self.gated_tools and _call_key(c, by_id) == key
               for t in self.run.turns[: k + 1] for c in t.served_calls()):
            self.fail(APPROVED_ONCE, k, f"a call needing approval ({_key_text(key)}) executed {times} in turn "
                                        f"{k + 1} without any approval")

    def _too_often(self, target: _Target, turn: int) -> None:
        decided_in = target.first + 1 if target.first is not None else "?"
        if self._refused(target.call):
            self.fail(APPROVED_ONCE, turn, f"call {_describe(target.call)}, approved in turn {decided_in}, executed "
                                           "although its arguments break the tool's parameters")
            return
        self.fail(APPROVED_ONCE, turn, f"call {_describe(target.call)}, approved in turn {decided_in}, has executed "
                                       f"{target.executions} times by turn {turn + 1}")

    def _pauses_for_input(self, turn: TurnRecord, runnable: list[_Target]) -> None:
        """A tool that ran and asked the caller for more input may run again once answered."""
        response = _contents(turn.response_messages())
        paused = {c.function_call.call_id for c in response
                  if isinstance(c, UserInputRequest) and c.function_call is not None}
        answered = set(_results(turn.response_messages()))
        for target in runnable:
            if target.call.call_id in paused - answered and target.executions >= target.allowed:
                target.allowed += 1

    def _never_executed(self) -> None:
        crashed = [t.index for t in self.run.turns if t.crash is not None or t.view.error is not None]
        for target in [*self.targets, *self.handwritten.values()]:
            if not target.approved or not target.pending_in or target.executions:
                continue
            if target.call.name not in self.runnable_tools:
                continue  # nothing local to run: a declaration-only or unknown tool
            if self._refused(target.call):
                continue  # refused before its body, as it must be; its result is judged like any other
            if any(turn >= target.pending_in[0] for turn in crashed):
                continue  # the turn ended in an error; `completes` or the scenario judges that
            # Nothing ran that the caller did not approve: the promise broken is spec 004's "executes exactly
            # once", which a loop refusing a decision by its documented design does not owe (profiles, safety).
            # A decision whose only result is a placeholder written after it is pending by the row "Pending
            # placeholder history" but settled by a loop that takes that text for the tool's output: the contested
            # reading is tentative.
            contested = target.pending_in[0] in target.contested_in
            self.fail(APPROVED_ONCE, target.pending_in[0],
                      f"call {_describe(target.call)} was approved in turn {target.pending_in[0] + 1} but never "
                      "executed" + (" (its only result is a placeholder written after the decision)"
                                    if contested else ""),
                      profile="tentative" if contested else "contract")

    # --- results ---------------------------------------------------------------------------------------------

    def _rejections(self, turn: TurnRecord, decided: list[_Decided]) -> None:
        """A rejection arriving in this turn gets a result under the call's own id, seen by caller and model."""
        new = [d.target for d in decided if not d.terminal and not d.approved and d.target.first == turn.index]
        if not new:
            return
        pending = Counter(d.target.call.call_id for d in decided if not d.terminal)
        paused = {c.function_call.call_id for c in _contents(turn.response_messages())
                  if isinstance(c, UserInputRequest) and c.function_call is not None}
        results = _results(turn.response_messages())
        reported: set[str] = set()
        for target in new:
            call_id = target.call.call_id
            if turn.view.response is not None and call_id not in reported:
                wanted = pending[call_id] - (1 if call_id in paused else 0)
                if results[call_id] < wanted:
                    reported.add(call_id)
                    self.fail(REJECTION_CALL_ID, turn.index,
                              f"call {_describe(target.call)} was rejected in turn {turn.index + 1}, but the turn's "
                              f"response holds {results[call_id]} function_result(s) with call id '{call_id}' for "
                              f"{wanted} decision(s)" + _approval_id_note(target, results))
            written = placeholder_call_ids(_loop_input(self.run, turn))
            for request in turn.requests:
                open_ids = {c.call_id for c in _open_calls(request.seen, written)}
                sent = _results(request.seen, written)
                if call_id in open_ids or (target.request_id != call_id and sent[target.request_id]):
                    self.fail(REJECTION_CALL_ID, turn.index,
                              f"model call #{request.number} received the rejected call {_describe(target.call)} "
                              "without a function_result under its call id" + _approval_id_note(target, sent))

    def _inert_results(self, turn: TurnRecord, decided: list[_Decided], free: list[FunctionCall]) -> None:
        """No new result for a decision whose call already has one in the input."""
        terminal = [d.target for d in decided if d.terminal]
        if not terminal or turn.view.response is None:
            return
        results = _results(turn.response_messages())
        legit: Counter[str] = Counter(d.target.call.call_id for d in decided if not d.terminal)
        legit.update(call.call_id for call in free)
        for step in turn.served:  # results a provider returned itself (hosted tools)
            legit.update(_results(step.response.messages))
        for call_id in dict.fromkeys(t.call.call_id for t in terminal):
            extra = results[call_id] - legit[call_id]
            if extra > 0:
                target = next(t for t in terminal if t.call.call_id == call_id)
                # Nothing ran (the executions are judged in `_blame`): the transcript alone shows a settled
                # pair answered again, which breaks the inert-pair sentence but authorised no execution.
                self.fail(APPROVAL_INERT, turn.index,
                          f"turn {turn.index + 1} replays the decision on call {_describe(target.call)}, whose "
                          f"result its input already holds, and its response holds {extra} new result(s) for it "
                          "(no new execution in the tools' records)", profile="contract")


def _approval_id_note(target: _Target, results: Counter[str]) -> str:
    if target.request_id != target.call.call_id and results[target.request_id]:
        return f"; a result carries the approval request id '{target.request_id}' instead"
    return ""


def _key_text(key: _Key) -> str:
    return f"call id '{key[1]}'" if key[0] == "id" else f"{key[1]} {key[2]}"


def _contents(messages: Sequence[Message]) -> list[object]:
    return [c for m in messages for c in m.contents]


def _loop_input(run: RunRecord, turn: TurnRecord) -> tuple[Message, ...]:
    """What the loop works from in `turn`: the caller's input, after the session's history when one is kept."""
    if not run.scenario.session:
        return turn.input_messages()
    earlier = tuple(m for t in run.turns[: turn.index] for m in t.input_messages() + t.response_messages())
    return earlier + turn.input_messages()


def _has_approvals(run: RunRecord) -> bool:
    gated = {tool.name for tool in run.scenario.tools if tool.approval_required}
    for turn in run.turns:
        sources: list[Sequence[Message]] = [turn.input_messages(), turn.response_messages(),
                                            fold_updates(turn.view.updates).messages]
        sources.extend(request.messages for request in turn.requests)
        sources.extend(step.response.messages for step in turn.served)
        if any(isinstance(c, ApprovalRequest | ApprovalResponse) for s in sources for c in _contents(s)):
            return True
        if any(c.name in gated and not c.informational_only and c.server_label is None
               for c in turn.served_calls()):
            return True
    return False


def _analysed(check: str) -> Callable[[RunRecord], list[CheckResult]]:
    def run_check(run: RunRecord) -> list[CheckResult]:
        if not _has_approvals(run):
            return [CheckResult(check, "n/a", NO_APPROVALS)]
        return _Analysis(run).failures[check] or [CheckResult(check, "pass")]

    return run_check


# --- the checks -----------------------------------------------------------------------------------------------


def check_rejected_never_runs(run: RunRecord) -> list[CheckResult]:
    """A call the caller rejected never executes, in the turn the rejection arrives or any later one."""
    return _analysed(REJECTED_NEVER_RUNS)(run)


def check_approved_once(run: RunRecord) -> list[CheckResult]:
    """An approved call executes exactly once across all turns: not before its approval, not twice after it."""
    return _analysed(APPROVED_ONCE)(run)


def check_rejection_call_id(run: RunRecord) -> list[CheckResult]:
    """A rejection's function_result carries the call's own call id, for the caller and for the model."""
    return _analysed(REJECTION_CALL_ID)(run)


def check_approval_inert(run: RunRecord) -> list[CheckResult]:
    """A decision whose call already has its result causes no execution and no new result when replayed."""
    return _analysed(APPROVAL_INERT)(run)


def check_no_approval_wrappers_to_model(run: RunRecord) -> list[CheckResult]:
    """Approval requests and responses never reach the model; hosted ones are the provider's and are exempt.

    A wrapper the caller itself replays is the caller's to omit (spec 004, Approval control content: "Callers that
    manually own and replay message history without a loading HistoryProvider must likewise omit a previously
    submitted approval response from later continuation requests"), so a model call that receives only such
    wrappers fails as `tentative`: the loop forwarding what its caller should have left out is our reading, not a
    sentence of the spec. A wrapper the loop's own history (a session) replays stays the loop's (`contract`).
    """
    if not _has_approvals(run):
        return [CheckResult(NO_APPROVAL_WRAPPERS_TO_MODEL, "n/a", NO_APPROVALS)]
    failures: list[CheckResult] = []
    for turn in run.turns:
        replayed = _caller_replayed_wrappers(run, turn)
        for request in turn.requests:
            wrappers = [c for c in _contents(request.messages)
                        if isinstance(c, ApprovalRequest | ApprovalResponse) and not _hosted(c)]
            if wrappers:
                kinds = ", ".join(f"{'approval_request' if isinstance(c, ApprovalRequest) else 'approval_response'} "
                                  f"for '{c.function_call.call_id}'" for c in wrappers)
                by_caller = all(w in replayed for w in wrappers)
                note = " (each replayed by the caller's own history, which the spec leaves the caller to omit)"
                failures.append(CheckResult(NO_APPROVAL_WRAPPERS_TO_MODEL, "fail",
                                            f"model call #{request.number} received {kinds}"
                                            + (note if by_caller else ""), turn.index + 1,
                                            profile="tentative" if by_caller else None))
    return failures or [CheckResult(NO_APPROVAL_WRAPPERS_TO_MODEL, "pass")]


def _caller_replayed_wrappers(run: RunRecord, turn: TurnRecord) -> list[object]:
    """The local approval wrappers of `turn`'s caller input that the caller replays from a settled round: a
    decision an earlier turn's input already submitted, a request whose call such a decision answered, and either
    wrapper when its call's result follows it in the very history the caller hands over. A request still waiting
    for its decision is no settled round: leaving it out of unrelated model input is the loop's ("Pending history
    turn"). Only a caller that keeps its own history replays anything; a session's caller hands over only what is
    new."""
    if run.scenario.session or isinstance(turn.caller_input, str):
        return []
    submitted = [c for t in run.turns[: turn.index] for c in _contents(t.input_messages())
                 if isinstance(c, ApprovalResponse)]
    decided = {(c.function_call.call_id, c.function_call.name) for c in submitted}
    given = _contents(turn.caller_input)
    replayed: list[object] = []
    for index, content in enumerate(given):
        if not isinstance(content, ApprovalRequest | ApprovalResponse) or _hosted(content):
            continue
        call = content.function_call
        settled = any(isinstance(later, FunctionResult) and later.call_id == call.call_id
                      for later in given[index + 1:])
        earlier = content in submitted if isinstance(content, ApprovalResponse) else (
            (call.call_id, call.name) in decided)
        if settled or earlier:
            replayed.append(content)
    return replayed


APPROVAL_INVARIANTS = (
    check_rejected_never_runs,
    check_approved_once,
    check_rejection_call_id,
    check_approval_inert,
    check_no_approval_wrappers_to_model,
)
