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
* a `function_result` closes the earliest open occurrence of its call id, which makes any decision on it inert;
* a `user_input_request` for a call whose decision was already carried out (an approved execution that asked for
  more input) consumes that decision; the occurrence stays open for the caller's answer.

Every local approval wrapper is removed from the model-bound history; hosted ones (the call has a `server_label`)
are the service's protocol data and pass through untouched, as do reasoning contents, in place. A decision that is
still pending after the scan is what the loop carries out now, in transcript order (the model's order); its terminal
contents go where the first pending decision stood (`settle`). A call that was paused for approval and got no
decision at all is left out of the model-bound history (with reasoning that only explained it), so the model never
sees a call without a result while the caller can still decide on it later.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.contents import (
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


@dataclass(eq=False)
class CallOccurrence:
    """One logical call in transcript order, and what the transcript says about it."""

    call: FunctionCall
    request_id: str | None = None  # the local approval request bound to this occurrence
    decision: ApprovalResponse | None = None
    decision_at: int = 0  # index in the normalised history where the decision's results belong
    follow_up: bool = False  # an approved execution asked for more input: the decision is spent
    closed: bool = False  # a terminal result answers the occurrence

    @property
    def pending(self) -> bool:
        """A decision still to carry out."""
        return self.decision is not None and not self.closed and not self.follow_up

    @property
    def awaiting_decision(self) -> bool:
        """Paused for approval, and no decision yet."""
        return self.request_id is not None and self.decision is None and not self.closed


@dataclass(frozen=True)
class Normalised:
    """The model-bound history without local approval wrappers, and the decisions left to carry out."""

    history: list[Message]
    pending: list[CallOccurrence] = field(default_factory=lambda: [])
    slot: int = 0  # where in `history` the terminal contents of the pending decisions go


_Kept = tuple[Content, CallOccurrence | None]  # a content the history keeps, and the occurrence it opens


@dataclass
class _Scan:
    occurrences: list[CallOccurrence] = field(default_factory=lambda: [])
    by_request: dict[str, CallOccurrence] = field(default_factory=lambda: {})
    out: list[list[_Kept]] = field(default_factory=lambda: [])
    roles: list[Role] = field(default_factory=lambda: [])

    def open_call(self, call: FunctionCall) -> CallOccurrence:
        occurrence = CallOccurrence(call)
        self.occurrences.append(occurrence)
        return occurrence

    def first(self, call_id: str, *, unbound: bool = False, undecided: bool = False,
              decided: bool = False) -> CallOccurrence | None:
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
            return occurrence
        return None

    def seen(self, call_id: str) -> bool:
        return any(o.call.call_id == call_id for o in self.occurrences)


def normalise(messages: Sequence[Message]) -> Normalised:
    """Scan `messages` in order; see the module docstring for the rules."""
    scan = _Scan()
    for message in messages:
        kept: list[_Kept] = []
        for content in message.contents:
            kept.extend(_scan_content(scan, content))
        if kept:
            scan.out.append(kept)
            scan.roles.append(message.role)
    pending = [o for o in scan.occurrences if o.pending]
    first_decision = min((o.decision_at for o in pending), default=len(scan.out))
    history: list[Message] = []
    slot: int | None = None
    for position, (kept, role) in enumerate(zip(scan.out, scan.roles, strict=True)):
        if position == first_decision:
            slot = len(history)
        # Calls still awaiting a decision stay out of the model's view, with reasoning that only explained them.
        contents = tuple(c for c, owner in kept if owner is None or not owner.awaiting_decision)
        if len(contents) != len(kept) and all(isinstance(c, Reasoning) for c in contents):
            contents = ()
        if contents:
            history.append(Message(role, contents))
    return Normalised(history, pending, len(history) if slot is None else slot)


def _scan_content(scan: _Scan, content: Content) -> list[_Kept]:
    """Record one content; return what the model-bound history keeps in its place."""
    if isinstance(content, FunctionCall):
        return [(content, scan.open_call(content))]
    if isinstance(content, ApprovalRequest):
        if is_hosted(content):
            return [(content, None)]
        restored = _bind_request(scan, content)
        return [] if restored is None else [(content.function_call, restored)]
    if isinstance(content, ApprovalResponse):
        if is_hosted(content):
            return [(content, None)]
        _bind_decision(scan, content)
        return []
    if isinstance(content, FunctionResult):
        occurrence = scan.first(content.call_id)
        if occurrence is not None:
            occurrence.closed = True
    elif isinstance(content, UserInputRequest) and content.function_call is not None:
        occurrence = scan.first(content.function_call.call_id, decided=True)
        if occurrence is not None:
            occurrence.follow_up = True  # the approved execution ran and asked for more input
    return [(content, None)]


def _bind_request(scan: _Scan, request: ApprovalRequest) -> CallOccurrence | None:
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


def _bind_decision(scan: _Scan, response: ApprovalResponse) -> None:
    call_id = response.function_call.call_id
    occurrence = scan.by_request.get(response.id) or scan.first(call_id, undecided=True)
    if occurrence is None and not scan.seen(call_id):
        # Nothing in the history names this call: restore it from the decision, just before the decision.
        occurrence = scan.open_call(response.function_call)
        scan.out.append([(response.function_call, occurrence)])
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
    """Place the terminal contents of each pending decision (in `pending` order) where the first decision stood.

    Returns the model-bound history and the messages the caller receives for them.
    """
    contents = [content for outcome in outcomes for content in outcome]
    messages = terminal_messages(contents)
    slot = normalised.slot
    history = [*normalised.history[:slot], *messages, *normalised.history[slot:]]
    return history, messages
