"""The script a run replays and the records it leaves: scripted model steps and tool behaviours, the requests and
executions the fakes record, and the faults they raise.

Part of the value model shared by the fakes, the contract, the scenario format and the checks: it imports nothing of
the harness but `harness.contents`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, cast

from harness.contents import JSON, ApprovalResponse, FunctionCall, Message, Response, Update


@dataclass(frozen=True)
class ModelStep:
    """One scripted model response.

    `updates` is how streaming delivers it; folding them gives `response`. `raises` makes the call fail with that
    message instead; `fault` says how: ``"error"`` (the request failed) or ``"invalidated"`` (the provider
    invalidated the request after accepting it, so what it carried was not delivered and may be retried).
    `ignores_tool_choice` marks a response that contains calls even when the request said ``tool_choice="none"``
    — a fault some real providers have.
    """

    response: Response
    updates: tuple[Update, ...]
    raises: str | None = None
    fault: Literal["error", "invalidated"] = "error"
    ignores_tool_choice: bool = False
    optional: bool = False
    source_line: int | None = None


@dataclass(frozen=True)
class ModelRequest:
    """What one model call received: a snapshot taken when the call was made."""

    turn: int
    number: int  # 1-based position within the turn
    messages: tuple[Message, ...]
    tool_choice: str | None
    tools: tuple[str, ...]
    kwargs: Mapping[str, JSON] = field(default_factory=lambda: {})
    streaming: bool = False
    conversation_id: str | None = None  # the service conversation the request continues, if any
    stored: tuple[Message, ...] = ()  # what the service holds for that conversation, before `messages`

    @property
    def seen(self) -> tuple[Message, ...]:
        """The conversation the model answers: what the service stored for the continued id, then the request's
        own messages. Without service-managed continuation, just the messages sent."""
        return self.stored + self.messages


@dataclass(frozen=True)
class ScriptViolation:
    """A model call the script did not foresee, or a scripted response a real provider would not give."""

    turn: int
    number: int
    message: str
    request: ModelRequest | None = None
    # A model call beyond the script: the provider raised for it, so the loop's error and the call count of its
    # turn follow from this violation, which the `script` check alone reports.
    unforeseen: bool = False


@dataclass(frozen=True)
class Rejection:
    """A request a provider's real service refuses: the rule it breaks, and the status and error it answers."""

    rule: str
    message: str
    status: int = 400
    param: str | None = None


@dataclass(frozen=True)
class Exchange:
    """One HTTP request a wire fake received, and how it answered (`wire:` expectations read `body`)."""

    turn: int
    number: int  # 1-based among the turn's requests to the model endpoint, refused ones included
    path: str
    body: Mapping[str, object]
    status: int
    rejections: tuple[Rejection, ...] = ()


class ScriptedProviderError(RuntimeError):
    """Raised to the loop by a scripted provider fault, or by a model call beyond the script."""


class ScriptedResponseInvalidated(ScriptedProviderError):
    """The provider invalidated a request it had accepted: nothing it carried reached the model.

    Loops that know this fault (e.g. a framework's "response invalidated" exception) map it to their own type; the
    caller may retry the turn, and a loop must then deliver what the failed request carried exactly once.
    """


@dataclass(frozen=True)
class ToolBehaviour:
    """What one invocation does: return `value` (or, for ``return_parts``, the texts in `value` as several
    contents), raise with `value` as message, or ask the caller for input.

    `terminate` asks the implementation's tool middleware to end the loop after this invocation; `add_tools`
    makes the named tools available from the loop's next iteration. `delay` is how many times the invocation
    hands control back to the event loop before it finishes; `exception` the built-in type a raise uses.
    """

    kind: Literal["return", "return_parts", "raise", "request_input"] = "return"
    value: JSON = None
    terminate: bool = False
    add_tools: tuple[str, ...] = ()
    delay: int = 0
    exception: str | None = None


@dataclass(frozen=True)
class ToolParameter:
    """One parameter of a tool declared by its Python signature: its name, type text (e.g. ``int | None``) and
    default (`has_default` tells a `None` default from none)."""

    name: str
    type: str
    default: JSON = None
    has_default: bool = False


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str = ""
    parameters: Mapping[str, JSON] = field(default_factory=lambda: {"type": "object", "properties": {}})
    behaviours: tuple[ToolBehaviour, ...] = (ToolBehaviour(),)
    approval_required: bool = False
    declaration_only: bool = False
    offered: bool = True  # False: only available once another tool adds it at run time
    # Declared as a Python signature (`harness.signatures`); `parameters` then holds the JSON schema it implies.
    signature: tuple[ToolParameter, ...] | None = None


@dataclass(frozen=True)
class ToolExecution:
    turn: int
    tool: str
    arguments: Mapping[str, JSON]
    call_id: str | None


@dataclass(frozen=True)
class ApprovalScope:
    """The calls an approval reaches beyond a per-call decision (an auto-approval rule, a caller's standing
    decision): calls of `tool`, within hosted server `server` (``None``: local calls only, never a hosted one),
    and, if `arguments` is given, with exactly those arguments (``{}``: only a call without arguments, never any).
    """

    tool: str
    server: str | None = None
    arguments: Mapping[str, JSON] | None = None

    def covers(self, call: FunctionCall) -> bool:
        if call.name != self.tool or call.server_label != self.server:
            return False
        return self.arguments is None or same_arguments(self.arguments, call.arguments)

    @staticmethod
    def of_decision(decision: ApprovalResponse) -> ApprovalScope | None:
        """What a caller's standing decision covers from now on; `None` for a decision that stands for nothing
        beyond its call (a plain approval, or any rejection)."""
        if not decision.approved or decision.standing is None:
            return None
        call = decision.function_call
        if decision.standing == "tool":
            return ApprovalScope(call.name, call.server_label)
        arguments = call.arguments
        parsed = cast(Mapping[str, JSON], json.loads(arguments or "{}")) if isinstance(arguments, str) else arguments
        return ApprovalScope(call.name, call.server_label, dict(parsed))


@dataclass(frozen=True)
class ApprovalRuleSpec:
    """An auto-approval rule configured on a conversation: it approves the calls within its scope."""

    id: str
    tool: str
    arguments: Mapping[str, JSON] | None = None
    server: str | None = None

    def approves(self, call: FunctionCall) -> bool:
        return ApprovalScope(self.tool, self.server, self.arguments).covers(call)


def same_arguments(expected: Mapping[str, JSON], given: Mapping[str, JSON] | str) -> bool:
    """Exactly the same arguments: the same names with equal JSON values; `{}` matches only a call without any."""
    parsed: object = given
    if isinstance(given, str):
        try:
            parsed = json.loads(given or "{}")
        except ValueError:
            return False
    if not isinstance(parsed, Mapping):
        return False
    return json.dumps(dict(expected), sort_keys=True) == json.dumps(dict(cast(Mapping[str, JSON], parsed)),
                                                                    sort_keys=True)


@dataclass(frozen=True)
class RuleAsked:
    """One question an auto-approval rule was asked: the call it received, and its answer."""

    turn: int
    rule: str
    call: FunctionCall
    approved: bool


@dataclass(frozen=True)
class ToolOutcome:
    """What the implementation must do with an invocation that did not raise."""

    value: JSON = None
    input_requests: tuple[JSON, ...] = ()
    terminate: bool = False
    add_tools: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()  # several text contents returned instead of `value`


class ScriptedToolError(RuntimeError):
    """The exception a scripted tool raises when its behaviour says so (unless it names another type)."""


_BUILTIN_EXCEPTIONS: dict[str, type[Exception]] = {
    cls.__name__: cls for cls in (
        RuntimeError, ValueError, TypeError, KeyError, LookupError, TimeoutError, PermissionError, ConnectionError,
        ZeroDivisionError, NotImplementedError,
    )
}


def scripted_exception(behaviour: ToolBehaviour) -> Exception:
    """The exception a raising behaviour raises: `ScriptedToolError`, or the built-in type it names."""
    message = str(behaviour.value)
    if behaviour.exception is None or behaviour.exception == "RuntimeError":
        return ScriptedToolError(message)
    return _BUILTIN_EXCEPTIONS[behaviour.exception](message)
