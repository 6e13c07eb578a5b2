"""The neutral transcript vocabulary that crosses the adapter contract.

Every implementation under test converts its own message and content classes to and from these. They are
deliberately framework-free: roles are plain strings and contents are small frozen dataclasses, so a transcript
can be compared, hashed, rendered and snapshotted without importing any loop implementation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, cast

JSON: TypeAlias = "None | bool | int | float | str | list[JSON] | dict[str, JSON]"
Role: TypeAlias = Literal["system", "user", "assistant", "tool"]
ROLES: tuple[Role, ...] = ("system", "user", "assistant", "tool")


@dataclass(frozen=True)
class Text:
    text: str


ReasoningKind = Literal["text", "summary", "encrypted"]


@dataclass(frozen=True)
class Reasoning:
    """Model reasoning; `signature` is the provider's opaque data that must travel with the call it explains.

    Providers send reasoning as items: `item_id` names one (several may precede one call, and streamed fragments
    of different items must not run together), `kind` says whether its text is the raw reasoning, a summary of it,
    or absent because the content is encrypted, and `data` carries the provider's opaque payload (an encrypted
    content, say). Each item is bound to the call it precedes and must travel with it, unchanged.
    """

    text: str = ""
    signature: str | None = None
    item_id: str | None = None
    kind: ReasoningKind = "text"
    data: JSON = None


@dataclass(frozen=True)
class FunctionCall:
    """A call the model asked for. `arguments` is a dict, or the raw string while it is still streaming."""

    call_id: str
    name: str
    arguments: Mapping[str, JSON] | str = field(default_factory=lambda: {})
    informational_only: bool = False
    server_label: str | None = None  # set for hosted-service calls, which the loop must not execute
    # The loop's own identity for this occurrence (e.g. when the model reuses a call id), if it gives one. Not part
    # of equality: scenarios never know generated ids, and a call is the same call with or without it.
    occurrence_id: str | None = field(default=None, compare=False)
    # The service's id of the call's output item (a Responses `fc_` id), distinct from `call_id`: loops that mint
    # approval request ids from it issue requests whose ids differ from the call ids. Not part of equality either.
    item_id: str | None = field(default=None, compare=False)
    # Streamed fragments only: the model client delivered these arguments as a mapping, not as JSON text (clients
    # that parse each call before yielding it, as Agent Framework's Gemini client does). Adapters whose framework's
    # update type carries a mapping hand it over as one; the others render it as text. Not part of equality: the
    # call is the same call whichever form its arguments travelled in.
    arguments_as_mapping: bool = field(default=False, compare=False)


# The pending-approval placeholder: a caller's transport may store a function_result with exactly this text for a
# call paused for approval, so that every call in its stored history has a result. It is not a terminal result:
# it belongs to the open call occurrence, whose decision stays pending, and the loop replaces it with the terminal
# result (execution or rejection) once decided. The model must never see it (spec 004, "Approval correlation,
# replay, and reused ids"). Defined once here for the harness, the reference loop and the scenarios' checks.
APPROVAL_PENDING = "[APPROVAL_PENDING]"


@dataclass(frozen=True)
class FunctionResult:
    call_id: str
    result: JSON = None
    error: bool = False  # the result reports a failure (tool raised, unknown tool, rejection...)
    # The call occurrence this result answers, named by the loop's identity for it; `None`: matched by call id.
    occurrence_id: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ApprovalRequest:
    """A loop-generated request for the caller to approve `function_call`; `id` is implementation-generated."""

    id: str
    function_call: FunctionCall


# A caller's standing decision with an approval: approve this tool from now on ("tool"), or this tool with exactly
# these arguments ("arguments"). Either stays within the call's hosted server, if it has one.
Standing = Literal["tool", "arguments"]


@dataclass(frozen=True)
class ApprovalResponse:
    id: str
    approved: bool
    function_call: FunctionCall
    standing: Standing | None = None


@dataclass(frozen=True)
class UserInputRequest:
    """The loop pauses for the caller: a declaration-only call, or a tool asking for more input."""

    id: str
    function_call: FunctionCall | None = None
    payload: JSON = None


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


Content: TypeAlias = (
    Text | Reasoning | FunctionCall | FunctionResult | ApprovalRequest | ApprovalResponse | UserInputRequest | Usage
)


@dataclass(frozen=True)
class Message:
    role: Role
    contents: tuple[Content, ...]

    @staticmethod
    def of(role: Role, *contents: Content) -> Message:
        return Message(role, tuple(contents))


@dataclass(frozen=True)
class Response:
    """One model or loop response. `conversation_id` is the service's handle on the conversation after this
    response (service-managed continuation): the next request continues from it."""

    messages: tuple[Message, ...]
    finish_reason: str | None = None
    conversation_id: str | None = None


@dataclass(frozen=True)
class Update:
    """One streamed chunk. Chunks with the same role and `message_id` fold into one message."""

    role: Role
    contents: tuple[Content, ...]
    message_id: str | None = None
    finish_reason: str | None = None
    conversation_id: str | None = None


def content_kind(content: Content) -> str:
    """The scenario-format key of a content, e.g. ``function_call``."""
    return _KIND_BY_TYPE[type(content)]


_KIND_BY_TYPE: dict[type, str] = {
    Text: "text",
    Reasoning: "reasoning",
    FunctionCall: "function_call",
    FunctionResult: "function_result",
    ApprovalRequest: "approval_request",
    ApprovalResponse: "approval_response",
    UserInputRequest: "user_input_request",
    Usage: "usage",
}


def merge_contents(contents: Iterable[Content]) -> tuple[Content, ...]:
    """Join streaming fragments: adjacent text or reasoning, and the fragments of one call.

    A call fragment continues the call before it when their ids agree (the same id, or either has none yet) and
    they do not both carry a name: providers send a call's id, name and argument text in any grouping over its
    deltas, and the continuation deltas often repeat neither id nor name. A fragment with a name after a named call
    starts a new call. This is the normalisation of chunking, so `merge_contents` of a streamed transcript equals
    the unchunked one.
    """
    merged: list[Content] = []
    for content in contents:
        previous = merged[-1] if merged else None
        joined = _join(previous, content) if previous is not None else None
        if joined is None:
            merged.append(content)
        else:
            merged[-1] = joined
    return tuple(_parse_arguments(content) for content in merged)


def _join(previous: Content, content: Content) -> Content | None:
    if isinstance(previous, Text) and isinstance(content, Text):
        return Text(previous.text + content.text)
    if (
        isinstance(previous, Reasoning)
        and isinstance(content, Reasoning)
        and (previous.signature is None or content.signature is None)
        and previous.item_id == content.item_id
        and previous.kind == content.kind
        and (previous.data is None or content.data is None)
    ):
        return Reasoning(previous.text + content.text, previous.signature or content.signature, previous.item_id,
                         previous.kind, previous.data if previous.data is not None else content.data)
    if (
        isinstance(previous, FunctionCall)
        and isinstance(content, FunctionCall)
        and (content.call_id == previous.call_id or not content.call_id or not previous.call_id)
        and not (content.name and previous.name)
        and (joined := _joined_arguments(previous.arguments, content.arguments)) is not None
    ):
        return FunctionCall(
            previous.call_id or content.call_id,
            previous.name or content.name,
            joined,
            previous.informational_only or content.informational_only,
            previous.server_label or content.server_label,
            previous.occurrence_id or content.occurrence_id,
            previous.item_id or content.item_id,
        )
    return None


def _joined_arguments(before: Mapping[str, JSON] | str, after: Mapping[str, JSON] | str,
                      ) -> Mapping[str, JSON] | str | None:
    """Two fragments' arguments joined, or None when they cannot continue each other.

    Text fragments concatenate. A mapping (a client that parsed the call before yielding it, or a fragment whose text
    was complete JSON and reached us already parsed) is the whole arguments: it may follow a blank start, and a blank
    fragment after it continues it all the same, but it joins no other text or mapping. So a call streamed with its
    arguments as a mapping folds to the call a non-streaming response holds (spec 004, "Streaming yields the same
    logical result content and ordering as non-streaming output")."""
    first, second = _argument_text(before), _argument_text(after)
    if first is not None and second is not None:
        return first + second
    if first == "" and isinstance(after, Mapping):
        return after
    if second == "":
        return before  # an empty delta after arguments that arrived whole (already parsed) adds nothing
    return None


def _argument_text(arguments: Mapping[str, JSON] | str) -> str | None:
    """A fragment's arguments as text to join: a blank fragment may reach us already parsed into `{}`."""
    if isinstance(arguments, str):
        return arguments
    return "" if not arguments else None


def parse_arguments(raw: object) -> Mapping[str, JSON] | str:
    """Call arguments as a dict when they are a JSON object (none or blank: no arguments), else the text as the
    model sent it: providers and loops deliver arguments as objects, JSON text or partial text while streaming."""
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return dict(cast(Mapping[str, JSON], raw))
    text = str(raw)
    if not text.strip():
        return {}
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    return cast(dict[str, JSON], parsed) if isinstance(parsed, dict) else text


def _parse_arguments(content: Content) -> Content:
    if not isinstance(content, FunctionCall) or not isinstance(content.arguments, str):
        return content
    parsed = parse_arguments(content.arguments)
    if isinstance(parsed, str):
        return content
    return FunctionCall(content.call_id, content.name, parsed, content.informational_only, content.server_label,
                        content.occurrence_id, content.item_id)


def fold_updates(updates: Sequence[Update], finish_reason: str | None = None) -> Response:
    """Fold streamed updates into the response a caller would assemble from them."""
    messages: list[Message] = []
    current_key: tuple[str, str | None] | None = None
    conversation_id: str | None = None
    for update in updates:
        conversation_id = update.conversation_id or conversation_id
        key = (update.role, update.message_id)
        if messages and key == current_key:
            last = messages[-1]
            messages[-1] = Message(last.role, last.contents + update.contents)
        else:
            messages.append(Message(update.role, update.contents))
            current_key = key
        finish_reason = update.finish_reason or finish_reason
    return Response(tuple(Message(m.role, merge_contents(m.contents)) for m in messages), finish_reason,
                    conversation_id)


@dataclass
class _Pausable:
    """One call occurrence as `placeholder_results` follows it."""

    call_id: str
    requested: bool = False  # an approval request is bound to it
    decided: bool = False
    closed: bool = False  # a terminal result answers it
    placeheld: bool = False  # a placeholder stands for its result


@dataclass
class _Placeholders:
    """The placeholders of one message sequence, by when the caller wrote them."""

    before_decision: set[int] = field(default_factory=lambda: set())  # for an occurrence awaiting its decision
    after_decision: set[int] = field(default_factory=lambda: set())  # after it, and no model turn answered it


def placeholder_results(messages: Sequence[Message], caller_written: Collection[str] | None = None, *,
                        after_decision: bool = True) -> set[int]:
    """The `id()` of each result in `messages` that is a pending-approval placeholder.

    Text alone does not make a placeholder: a tool may really return ``[APPROVAL_PENDING]``, and its output must
    never count as a call still awaiting approval (that would hand a tool's output approval authority). A result
    with that text is a placeholder where the caller writes it for an occurrence of a call that has an approval
    request (the earliest open occurrence of its call id without a placeholder) and no terminal result:

    * before the decision, while the occurrence awaits it (the order a transport writes it in);
    * after the decision, as long as no model turn follows it before the occurrence's terminal result (the spec's
      row "Pending placeholder history": "An approval response remains replayable while its only result is
      `[APPROVAL_PENDING]`", tested upstream with the placeholder after the response). A placeholder never reaches
      the model, so one the model answered (an assistant message follows it first) was the tool's output, the
      occurrence's terminal result. `after_decision=False` reads these as terminal results instead: that reading
      is contested (`approved-once` judges the difference tentatively).

    Any other result closes the earliest open occurrence of its call id, as a terminal result does.

    A model-bound history has lost the approval wrappers that tell a placeholder apart (and one that leaked without
    its decision would mislead), so for one pass `caller_written`, the call ids the caller wrote placeholders for
    (`placeholder_call_ids` of what the caller sent): there a result with that text is a placeholder if its call
    id is among them.
    """
    if caller_written is not None:
        return {id(c) for m in messages for c in m.contents
                if isinstance(c, FunctionResult) and c.result == APPROVAL_PENDING and c.call_id in caller_written}
    found = _classify_placeholders(messages)
    return found.before_decision | found.after_decision if after_decision else found.before_decision


def _classify_placeholders(messages: Sequence[Message]) -> _Placeholders:
    occurrences: list[_Pausable] = []
    found = _Placeholders()
    unanswered: dict[int, _Pausable] = {}  # after-decision placeholders no model turn or result has followed yet

    def earliest(call_id: str, accept: Callable[[_Pausable], bool]) -> _Pausable | None:
        return next((o for o in occurrences if o.call_id == call_id and not o.closed and accept(o)), None)

    for message in messages:
        if message.role == "assistant":
            # The model answered these: they reached it as the calls' results, so they were the tools' output.
            for placeholder, occurrence in unanswered.items():
                found.after_decision.discard(placeholder)
                occurrence.closed = True
            unanswered.clear()
        for content in message.contents:
            if isinstance(content, FunctionCall):
                occurrences.append(_Pausable(content.call_id))
            elif isinstance(content, ApprovalRequest):
                target = earliest(content.function_call.call_id, lambda o: not o.requested)
                if target is None:
                    occurrences.append(_Pausable(content.function_call.call_id, requested=True))
                else:
                    target.requested = True
            elif isinstance(content, ApprovalResponse):
                target = earliest(content.function_call.call_id, lambda o: o.requested and not o.decided)
                if target is not None:
                    target.decided = True
            elif isinstance(content, FunctionResult):
                if content.result == APPROVAL_PENDING:
                    awaiting = earliest(content.call_id, lambda o: not o.placeheld)
                    if awaiting is not None and awaiting.requested:
                        awaiting.placeheld = True
                        if awaiting.decided:
                            found.after_decision.add(id(content))
                            unanswered[id(content)] = awaiting
                        else:
                            found.before_decision.add(id(content))
                        continue
                target = earliest(content.call_id, lambda o: True)
                if target is not None:
                    target.closed = True
                    # Its terminal result follows the placeholder: the placeholder stood for it.
                    unanswered = {k: o for k, o in unanswered.items() if o is not target}
    return found


def placeholder_call_ids(messages: Sequence[Message]) -> set[str]:
    """The call ids the caller wrote a pending-approval placeholder for in `messages` while the call awaited its
    decision. One written after the decision is left out: whether it is a placeholder or the call's result is the
    contested reading (`placeholder_results`), so a loop that hands it to the model as the result is not failed
    for it."""
    found = placeholder_results(messages, after_decision=False)
    return {c.call_id for m in messages for c in m.contents if isinstance(c, FunctionResult) and id(c) in found}
