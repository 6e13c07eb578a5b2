"""Approval transcript normalisation for the reference loop: which decisions are still to carry out, and the
model-bound history the loop works on.

The loop hands `normalise` its private copy of the caller's messages (replayed history, session history, the new
decisions). It scans them once, in order, tracking *call occurrences* rather than call ids — a model may reuse a
call id in a later round, so one id can name several logical calls:

* a `function_call` opens an occurrence;
* a local `approval_request` binds to the earliest open occurrence of its call id that has no request yet; if there
  is none, its embedded call is restored in its place as a new occurrence, unless a request with the same id was
  seen already (a replayed duplicate wrapper, dropped);
* a local `approval_response` answers the occurrence its request id was bound to, else the earliest open occurrence
  of its call id without a decision; if its call id never occurred at all, its embedded call is restored as a new
  occurrence (an assistant message just before the decision); a decision for a closed occurrence, or a second
  decision for one occurrence, is history and stays inert;
* a `function_result` closes the earliest open occurrence of its call id, which makes any decision on it inert —
  except the pending-approval placeholder (`APPROVAL_PENDING`, when the occurrence it would attach to has a request
  and either no decision yet or a decision and no model turn after the placeholder before the occurrence's result:
  spec row "Pending placeholder history", "An approval response remains replayable while its only result is
  `[APPROVAL_PENDING]`"; the same text anywhere else is a tool's output, which the model answered, and terminal),
  which is not terminal: it
  attaches to the earliest open occurrence of its call id without one, whose decision stays pending, and marks where
  that occurrence's terminal result goes (the execution's result on approval, the rejection on rejection: a
  replacement, never a second result); a placeholder the loop does not replace now never reaches the model;
* a `user_input_request` for a call whose decision was already carried out (an approved execution that asked for
  more input) consumes that decision; the occurrence stays open for the caller's answer. Any other marks its call
  as a host-owned call waiting for the caller's result.

Calls are grouped into *batches*, one per model response (a run of consecutive assistant messages). In a batch that
paused for approval or input, a call that needs neither carries no request of its own: it is *held* with its batch
while any of the batch's pauses is unanswered (out of the model's view, like the paused calls), and runs with the
batch once they are answered — implicitly approved by the caller's answer to that batch, never on an unrelated turn
and never for another batch (the spec's mixed batches).

Every local approval wrapper is removed from the model-bound history; hosted ones (the call has a `server_label`)
are the service's protocol data and pass through untouched, as do reasoning contents, in place. A decision that is
still pending after the scan is what the loop carries out now, in transcript order (the model's order); its terminal
contents go where the first pending decision stood (`settle`). A call that was paused for approval and got no
decision at all is left out of the model-bound history (with reasoning that only explained it), so the model never
sees a call without a result while the caller can still decide on it later.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from harness.contents import (
    APPROVAL_PENDING,
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Role,
    UserInputRequest,
)


def is_hosted(content: ApprovalRequest | ApprovalResponse) -> bool:
    """A hosted service's approval: it owns the call, so the loop only carries the wrapper."""
    return content.function_call.server_label is not None


def without_settled_hosted_controls(history: Sequence[Message]) -> list[Message]:
    """Stored history as a later turn replays it: a hosted service's approval request whose decision the history
    also holds, and that decision, are gone. The decision reached the service on its resume request (spec: "A current
    hosted approval response must be sent once on the immediate resume request"), so both controls are inert; a
    request still waiting for its decision stays replayable (row "Pending hosted history replay")."""
    decided = {c.id for m in history for c in m.contents if isinstance(c, ApprovalResponse) and is_hosted(c)}
    requested = {c.id for m in history for c in m.contents if isinstance(c, ApprovalRequest) and is_hosted(c)}
    settled = decided & requested
    kept = (Message(m.role, tuple(c for c in m.contents if not (
        isinstance(c, ApprovalRequest | ApprovalResponse) and is_hosted(c) and c.id in settled))) for m in history)
    return [m for m in kept if m.contents]


@dataclass(eq=False)
class CallOccurrence:
    """One logical call in transcript order, and what the transcript says about it."""

    call: FunctionCall
    request_id: str | None = None  # the local approval request bound to this occurrence
    decision: ApprovalResponse | None = None
    decision_at: int = 0  # index in the normalised history where the decision's results belong
    follow_up: bool = False  # an approved execution asked for more input: the decision is spent
    closed: bool = False  # a terminal result answers the occurrence
    closed_at: int = 0  # index in the scanned history of the message holding that result
    placeholder: bool = False  # a pending-approval placeholder result stands for its terminal result
    batch: int = 0  # the model response it came in: one run of consecutive assistant messages
    input_requested: bool = False  # surfaced to the caller as a request for input (a host-owned call)
    held: bool = False  # a call that needs no approval, held back until its batch's pauses are answered

    @property
    def pending(self) -> bool:
        """A decision still to carry out."""
        return self.decision is not None and not self.closed and not self.follow_up

    @property
    def awaiting_decision(self) -> bool:
        """Paused for approval (or held back with a batch that is), and no decision yet."""
        paused = self.request_id is not None or self.placeholder or self.held
        return paused and self.decision is None and not self.closed


@dataclass(frozen=True)
class Normalised:
    """The model-bound history without local approval wrappers, and the decisions left to carry out."""

    history: list[Message]
    pending: list[CallOccurrence] = field(default_factory=lambda: [])
    slot: int = 0  # where in `history` the terminal contents of the pending decisions go
    # (message index, content index) in `history` of the placeholder a pending occurrence's results replace
    placeholders: dict[CallOccurrence, tuple[int, int]] = field(default_factory=lambda: {})


# A content the history keeps, the occurrence it opens, and the occurrence it is the placeholder result of.
_Kept = tuple[Content, CallOccurrence | None, CallOccurrence | None]


@dataclass
class Scan:
    restore_calls: bool = True
    batch: int = 0
    # occurrence ids that results in the scanned messages name: an id-less result never takes those occurrences
    claimed: set[str] = field(default_factory=lambda: set())
    # id() of each result reading APPROVAL_PENDING that a model turn follows before another result of its call id
    model_answered: set[int] = field(default_factory=lambda: set())
    answered: dict[int, int] = field(default_factory=lambda: {})  # id(result) -> index of the occurrence it closed
    occurrences: list[CallOccurrence] = field(default_factory=lambda: [])
    by_request: dict[str, CallOccurrence] = field(default_factory=lambda: {})
    out: list[list[_Kept]] = field(default_factory=lambda: [])
    roles: list[Role] = field(default_factory=lambda: [])

    def open_call(self, call: FunctionCall) -> CallOccurrence:
        occurrence = CallOccurrence(call, batch=self.batch)
        self.occurrences.append(occurrence)
        return occurrence

    def first(self, call_id: str, *, unbound: bool = False, undecided: bool = False,
              decided: bool = False, unplaced: bool = False, unasked: bool = False) -> CallOccurrence | None:
        """The earliest open occurrence of `call_id` that meets the conditions."""
        for occurrence in self.occurrences:
            if occurrence.closed or occurrence.call.call_id != call_id:
                continue
            if unbound and occurrence.request_id is not None:
                continue
            if undecided and occurrence.decision is not None:
                continue
            if decided and (occurrence.decision is None or occurrence.follow_up):
                continue
            if unplaced and occurrence.placeholder:
                continue
            if unasked and occurrence.input_requested:
                continue
            return occurrence
        return None

    def seen(self, call_id: str) -> bool:
        return any(o.call.call_id == call_id for o in self.occurrences)


def normalise(messages: Sequence[Message], *, restore_calls: bool = True,
              hold: Callable[[Scan], None] | None = None, queued: Mapping[str, str] | None = None) -> Normalised:
    """Scan `messages` in order; see the module docstring for the rules.

    `restore_calls=False` when the loop continues a service-held conversation: the service already holds the calls
    that wrappers name, so they are tracked but not restored inline (resending them would duplicate them).
    `queued` maps the call id of each approval request an approval layer has not surfaced yet to the request's
    id: such a call is paused for approval like one whose request the caller saw.
    """
    scan = Scan(restore_calls)
    scan.claimed = {c.occurrence_id for m in messages for c in m.contents
                    if isinstance(c, FunctionResult) and c.occurrence_id is not None}
    scan.model_answered = _answered_by_model(messages)
    previous_role: Role | None = None
    for message in messages:
        if message.role == "assistant" and previous_role != "assistant":
            scan.batch += 1
        previous_role = message.role
        kept: list[_Kept] = []
        for content in message.contents:
            kept.extend(_scan_content(scan, content))
        if kept:
            scan.out.append(kept)
            scan.roles.append(message.role)
    for call_id, request_id in (queued or {}).items():
        occurrence = scan.first(call_id, unbound=True)
        if occurrence is not None and request_id not in scan.by_request:
            occurrence.request_id = request_id
            scan.by_request[request_id] = occurrence
    (hold or resolve_held_calls)(scan)
    pending = [o for o in scan.occurrences if o.pending]
    placed = {placeholder for kept in scan.out for _, _, placeholder in kept if placeholder is not None}
    first_decision = min((o.decision_at for o in pending if o not in placed), default=len(scan.out))
    history: list[Message] = []
    placeholders: dict[CallOccurrence, tuple[int, int]] = {}
    slot: int | None = None
    for position, (kept, role) in enumerate(zip(scan.out, scan.roles, strict=True)):
        if position == first_decision:
            slot = len(history)
        # Calls still awaiting a decision stay out of the model's view, with reasoning that only explained them;
        # a placeholder stays only where a pending decision's terminal result is about to replace it.
        chosen = [(c, placeholder) for c, owner, placeholder in kept
                  if (owner is None or not owner.awaiting_decision) and not _explains_hidden_call(kept, c)
                  and (placeholder is None or placeholder.pending)]
        if len(chosen) != len(kept) and all(isinstance(c, Reasoning) for c, _ in chosen):
            chosen = []
        if role == "tool":
            # Results keep the order of the calls they answer, however the caller listed them: with a reused call
            # id, their order is all that tells the model which result answers which call.
            chosen.sort(key=lambda item: scan.answered.get(id(item[0]), len(scan.occurrences)))
        if chosen:
            for index, (_, placeholder) in enumerate(chosen):
                if placeholder is not None:
                    placeholders[placeholder] = (len(history), index)
            history.append(Message(role, tuple(c for c, _ in chosen)))
    return Normalised(history, pending, len(history) if slot is None else slot, placeholders)


def _explains_hidden_call(kept: Sequence[_Kept], content: Content) -> bool:
    """Whether `content` is reasoning bound to a call that stays out of the model's view: the reasoning that
    directly precedes a call belongs to it (spec: reasoning bound to a call is part of that call's group), so it
    goes where its call goes, while a sibling's reasoning stays with its answered sibling."""
    if not isinstance(content, Reasoning):
        return False
    position = next(i for i, (c, _, _) in enumerate(kept) if c is content)
    following = next((item for item in kept[position + 1:] if not isinstance(item[0], Reasoning)), None)
    if following is None or not isinstance(following[0], FunctionCall) or following[1] is None:
        return False
    return following[1].awaiting_decision


def _scan_content(scan: Scan, content: Content) -> list[_Kept]:
    """Record one content; return what the model-bound history keeps in its place."""
    if isinstance(content, FunctionCall):
        return [(content, scan.open_call(content), None)]
    if isinstance(content, ApprovalRequest):
        if is_hosted(content):
            return [(content, None, None)]
        restored = _bind_request(scan, content)
        if restored is None or not scan.restore_calls:
            return []
        return [(content.function_call, restored, None)]
    if isinstance(content, ApprovalResponse):
        if is_hosted(content):
            # The service gets the decision; a standing scope is the caller's instruction to the loop's layer.
            return [(replace(content, standing=None), None, None)]
        _bind_decision(scan, content)
        return []
    if isinstance(content, FunctionResult) and content.result == APPROVAL_PENDING:
        occurrence = scan.first(content.call_id, unplaced=True)
        if occurrence is None:
            return []  # no open call to hold it: never the model's to see
        if occurrence.request_id is not None and (occurrence.decision is None
                                                  or id(content) not in scan.model_answered):
            occurrence.placeholder = True
            return [(content, None, occurrence)]
        # Not a placeholder: the occurrence was never paused for approval, or the model answered this text as the
        # call's result after the decision, so it is a tool's output that reads the same. It is the call's result,
        # and never grants approval authority.
    if isinstance(content, FunctionResult):
        occurrence = _answered_occurrence(scan, content)
        if occurrence is not None:
            occurrence.closed = True
            occurrence.closed_at = len(scan.out)
            scan.answered[id(content)] = scan.occurrences.index(occurrence)
    elif isinstance(content, UserInputRequest) and content.function_call is not None:
        occurrence = scan.first(content.function_call.call_id, decided=True)
        if occurrence is not None:
            occurrence.follow_up = True  # the approved execution ran and asked for more input
        else:
            asked = scan.first(content.function_call.call_id, unasked=True)
            if asked is not None:
                asked.input_requested = True
    return [(content, None, None)]


def _answered_by_model(messages: Sequence[Message]) -> set[int]:
    """The `id()` of each result reading `APPROVAL_PENDING` that an assistant message follows before any other
    result of its call id: the model received it as the call's result, so it was never a placeholder."""
    waiting: dict[str, list[int]] = {}  # call id -> such results no later message has settled yet
    answered: set[int] = set()
    for message in messages:
        if message.role == "assistant":
            answered.update(i for ids in waiting.values() for i in ids)
            waiting.clear()
        for content in message.contents:
            if not isinstance(content, FunctionResult):
                continue
            if content.result == APPROVAL_PENDING:
                waiting.setdefault(content.call_id, []).append(id(content))
            else:
                waiting.pop(content.call_id, None)  # the call's own result follows: the text stood for it
    return answered


def _answered_occurrence(scan: Scan, result: FunctionResult) -> CallOccurrence | None:
    """The open occurrence a result answers: the one it names, else the earliest of its call id that no result of
    these messages names (occurrence-identified results are matched before id-less ones)."""
    for occurrence in scan.occurrences:
        if occurrence.closed or occurrence.call.call_id != result.call_id:
            continue
        if result.occurrence_id is not None:
            if occurrence.call.occurrence_id == result.occurrence_id:
                return occurrence
        elif occurrence.call.occurrence_id is None or occurrence.call.occurrence_id not in scan.claimed:
            return occurrence
    return scan.first(result.call_id) if result.occurrence_id is not None else None


def batches(scan: Scan) -> list[list[CallOccurrence]]:
    """The scanned occurrences by the model response they came in."""
    grouped: dict[int, list[CallOccurrence]] = {}
    for occurrence in scan.occurrences:
        grouped.setdefault(occurrence.batch, []).append(occurrence)
    return list(grouped.values())


def resolve_held_calls(scan: Scan) -> None:
    """The spec's mixed batches: a call that needs no approval, in a model response that paused for approval or
    input, carries no request of its own; it is held back with its batch and runs once the batch's pauses are
    answered — with the matching visible decision, never on an unrelated turn, never for another batch."""
    for members in batches(scan):
        paused, quiet = split_batch(members)
        if not paused or not quiet:
            continue
        if any(o.awaiting_decision or (o.input_requested and not o.closed) for o in paused):
            for occurrence in quiet:
                occurrence.held = True
            continue
        answered = [o.decision_at if o.pending else o.closed_at for o in paused if o.pending or o.closed]
        if not answered or not any(o.pending for o in paused) and not _answered_now(paused, scan):
            continue
        for occurrence in quiet:
            # Runs as part of the batch the caller just answered: implicitly approved by that answer.
            occurrence.decision = ApprovalResponse(f"held-{occurrence.call.call_id}", True, occurrence.call)
            occurrence.decision_at = min(answered)


def split_batch(members: Sequence[CallOccurrence]) -> tuple[list[CallOccurrence], list[CallOccurrence]]:
    """A batch's calls that paused (for approval or input), and its undecided, unanswered calls with no pause."""
    paused = [o for o in members if o.request_id is not None or o.input_requested or o.placeholder]
    quiet = [o for o in members if o not in paused and not o.closed and o.decision is None
             and not o.call.informational_only and o.call.server_label is None]
    return paused, quiet


def _answered_now(paused: Sequence[CallOccurrence], scan: Scan) -> bool:
    """Whether a host-owned call of the batch got its result after the batch's last assistant message, i.e. in
    what the caller sends now rather than in history that already continued."""
    last_assistant = max((i for i, role in enumerate(scan.roles) if role == "assistant"), default=-1)
    return any(o.input_requested and o.closed and o.closed_at > last_assistant for o in paused)


def _bind_request(scan: Scan, request: ApprovalRequest) -> CallOccurrence | None:
    """Bind a local request to its call; returns the occurrence restored from the wrapper, if it needed one."""
    if request.id in scan.by_request:
        return None  # a replayed duplicate of a request already seen
    occurrence = scan.first(request.function_call.call_id, unbound=True)
    restored = occurrence is None
    if occurrence is None:
        occurrence = scan.open_call(request.function_call)
    occurrence.request_id = request.id
    scan.by_request[request.id] = occurrence
    return occurrence if restored else None


def _bind_decision(scan: Scan, response: ApprovalResponse) -> None:
    call_id = response.function_call.call_id
    occurrence = scan.by_request.get(response.id) or scan.first(call_id, undecided=True)
    if occurrence is None and not scan.seen(call_id):
        # Nothing in the history names this call: restore it from the decision, just before the decision.
        occurrence = scan.open_call(response.function_call)
        if scan.restore_calls:
            scan.out.append([(response.function_call, occurrence, None)])
            scan.roles.append("assistant")
    if occurrence is None or occurrence.closed or occurrence.decision is not None:
        return  # history: the call already has its result, or this occurrence was decided before
    occurrence.decision = response
    occurrence.decision_at = len(scan.out)


def terminal_messages(contents: Sequence[Content]) -> list[Message]:
    """Terminal contents as role-correct messages, in order: results are the tool's, follow-up requests the
    assistant's; consecutive contents of one role share a message."""
    messages: list[Message] = []
    for content in contents:
        role: Role = "assistant" if isinstance(content, UserInputRequest) else "tool"
        if messages and messages[-1].role == role:
            messages[-1] = Message(role, messages[-1].contents + (content,))
        else:
            messages.append(Message(role, (content,)))
    return messages


def settle(normalised: Normalised, outcomes: Sequence[Sequence[Content]]) -> tuple[list[Message], list[Message]]:
    """Place the terminal contents of each pending decision (in `pending` order): a decision whose occurrence has a
    placeholder result gets its results in the placeholder's place; everything else goes where the first decision
    without a placeholder stood.

    Returns the model-bound history and the messages the caller receives for them.
    """
    contents = [content for outcome in outcomes for content in outcome]
    messages = terminal_messages(contents)
    replacements: dict[tuple[int, int], list[Content]] = {}
    inserted: list[Content] = []
    for occurrence, outcome in zip(normalised.pending, outcomes, strict=True):
        position = normalised.placeholders.get(occurrence)
        if position is None:
            inserted.extend(outcome)
            continue
        replacements[position] = [c for c in outcome if isinstance(c, FunctionResult)]
        inserted.extend(c for c in outcome if not isinstance(c, FunctionResult))
    history: list[Message] = []
    slot = 0
    for index, message in enumerate(normalised.history):
        if index == normalised.slot:
            slot = len(history)
        kept = [r for at, c in enumerate(message.contents) for r in replacements.get((index, at), [c])]
        if kept:
            history.append(Message(message.role, tuple(kept)))
    if normalised.slot >= len(normalised.history):
        slot = len(history)
    history[slot:slot] = terminal_messages(inserted)
    return history, messages
