"""The adapter contract: how a function-calling loop under test plugs into the harness.

An adapter wraps one loop implementation. For every scenario and response mode the runner calls
`LoopAdapter.open` once with the scripted fakes, then `Conversation.run_turn` once per scenario turn, and finally
`Conversation.close`. The adapter drives its loop exactly as a real caller would, with the scripted provider as the
model and the scripted tools as the tools, and reports what the caller saw as a `CallerView`. What the model
received and which tools ran are recorded by the fakes themselves, so an adapter cannot misreport them.

Adapters are registered under the entry-point group ``loop_conformance.adapters``; the entry point names a
zero-argument callable that returns a `LoopAdapter`.

Providers: by default the model is the neutral scripted provider, called in-process. An adapter whose loop has
real provider clients (an OpenAI or Gemini client) may also declare `dialects`; the runner then runs every
scenario once more per dialect, with `ConversationSetup.wire` set to an in-process HTTP endpoint that serves the
same script in that provider's wire format. The adapter builds the framework's own client, unmodified, over
`wire.http_client()` (or once per process over `wire.shared_http_client()`, sending from inside
`wire.serving()`), so the client's serialisation is what the script and the checks see.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Literal, Protocol, cast, runtime_checkable

from harness.contents import JSON, Content, FunctionCall, Message, Response, Update

# The faults the fakes raise are part of what an adapter handles, so the contract re-exports them.
from harness.script import ScriptedProviderError as ScriptedProviderError
from harness.script import ScriptedResponseInvalidated as ScriptedResponseInvalidated
from harness.script import ScriptedToolError as ScriptedToolError
from harness.script import ToolOutcome, ToolSpec

ENTRY_POINT_GROUP = "loop_conformance.adapters"

# How the model is reached: the neutral in-process provider, or a provider's wire format over in-process HTTP.
Dialect = Literal["neutral", "openai-responses", "openai-chat", "gemini"]
DIALECTS: tuple[Dialect, ...] = ("neutral", "openai-responses", "openai-chat", "gemini")

Mode = Literal["streaming", "non-streaming"]
MODES: tuple[Mode, ...] = ("non-streaming", "streaming")

# Capabilities a scenario may require. An adapter that lacks one reports the scenario as n/a, never as a pass.
Capability = Literal[
    "approval",  # tools that require approval: pause, then resume with decisions
    "declaration-only",  # tools with no local implementation, surfaced to the caller
    "user-input",  # tools that pause the loop to ask the caller for more input
    "middleware-termination",  # tool-level middleware that ends the loop after a tool runs
    "runtime-tool-changes",  # a tool that adds tools for the next iteration
    "invocation-kwargs",  # caller keyword arguments forwarded to the model call
    "sessions",  # the implementation keeps history between turns itself
    "hosted-tools",  # hosted-service calls and approvals carried through untouched
    "reasoning",  # reasoning contents and opaque signatures
    "informational-only",  # calls the model marks as informational only, kept but never executed
    "occurrence-identity",  # gives call occurrences an identity and honours results that name one
    "service-continuation",  # continues a provider-stored conversation by the conversation id its responses carry
    "session-serialization",  # the session can be saved (as JSON or the like) and restored before a turn
    "persisted-budgets",  # the saved session holds the loop's spent budgets (consecutive errors, function calls)
    "approval-policy",  # an approval layer: standing decisions, auto-approval rules, one approval surfaced per run
    "signature-tools",  # tools declared as Python functions (`ToolSpec.signature`, built with `harness.signatures`)
    "context-providers",  # providers that add instructions or context messages to every model call of a run
    "history-providers",  # the caller's own history store replaces the built-in one (`ConversationSetup.history_store`)
    "compaction",  # trims what each model call receives to the most recent groups (`ConversationSetup.compaction`)
    "ag-ui",  # reached over the AG-UI protocol: each turn's run request and events are in `CallerView.transport`
    "context-tools",  # context providers that add tools to a run during its setup (`ContextSource.tools`)
    "hosting-server",  # the loop can run behind its framework's Responses-API hosting server (`ConversationSetup.host`)
    "budget-counts",  # reports the function-call budget each run has spent (`CallerView.function_calls_counted`)
    "caller-options",  # a turn's own caller options for its run, such as `tool_choice` (`TurnInput.tool_choice`)
    "streamed-mapping-arguments",  # streamed call arguments handed over as a mapping, not JSON text (as clients do)
    "call-item-ids",  # a call's service item id (`FunctionCall.item_id`) reaches the loop, which can tell a call
    # shown twice (same call id and item id) from two calls that share a call id
    # Loop settings (`LoopConfig`): a scenario that sets one needs the loop to have it, and is n/a where it has not.
    "iteration-budget",  # max_iterations: a bound on the model calls of one run
    "function-call-budget",  # max_function_calls: a bound on the tool executions of one run
    "consecutive-error-cap",  # max_consecutive_errors: stop after that many failing rounds in a row
    "unknown-call-switch",  # terminate_on_unknown_calls: raise on a call of a tool nobody declared
    "detailed-errors",  # include_detailed_errors: the exception's text in the error result
    "invocation-toggle",  # enabled: false turns the function-invocation loop off
]

# The capabilities a loop setting needs when a scenario sets it away from its default.
SETTING_CAPABILITIES: tuple[tuple[str, Capability], ...] = (
    ("max_iterations", "iteration-budget"),
    ("max_function_calls", "function-call-budget"),
    ("max_consecutive_errors", "consecutive-error-cap"),
    ("terminate_on_unknown_calls", "unknown-call-switch"),
    ("include_detailed_errors", "detailed-errors"),
    ("enabled", "invocation-toggle"),
)
SETTINGS: frozenset[Capability] = frozenset(capability for _, capability in SETTING_CAPABILITIES)

# What a caller that keeps its own history and holds no session object cannot ask for: an adapter's stateless
# variant drops these, and the scenarios needing them are n/a for it.
SESSION_CAPABILITIES: frozenset[Capability] = frozenset({"sessions", "session-serialization", "persisted-budgets"})


@dataclass(frozen=True)
class LoopConfig:
    """The loop settings the spec names; `None` means the implementation's default."""

    enabled: bool = True
    max_iterations: int | None = None
    max_function_calls: int | None = None
    max_consecutive_errors: int | None = None
    terminate_on_unknown_calls: bool = False
    include_detailed_errors: bool = False


class ModelProvider(Protocol):
    """The model every model call of the loop must go to (the harness passes its scripted provider).

    Each call is recorded with what it received. A failing call raises `ScriptedProviderError` (its subclass
    `ScriptedResponseInvalidated` when the provider invalidated the request); report it to the caller as a
    `RaisedError` of kind ``"provider"`` if the loop lets it escape. `conversation_id` is the service-side
    conversation the call continues (service-managed continuation); responses may carry a new one.
    """

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tool_choice: str | None = None,
        tools: Sequence[str] = (),
        kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None,
    ) -> Response:
        """Answer one non-streaming model call: the full history the model sees, the tool choice, offered names."""
        ...

    def stream(
        self,
        messages: Sequence[Message],
        *,
        tool_choice: str | None = None,
        tools: Sequence[str] = (),
        kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None,
    ) -> AsyncIterator[Update]:
        """Answer one streaming model call, update by update."""
        ...


class Tool(Protocol):
    """One tool of the scenario: its declaration and its body."""

    @property
    def name(self) -> str: ...

    @property
    def spec(self) -> ToolSpec:
        """Its declaration: parameters, approval, declaration-only, scripted behaviours."""
        ...

    async def run(self, arguments: Mapping[str, JSON], call_id: str | None = None) -> ToolOutcome:
        """Run the tool body once (recorded); raises `ScriptedToolError` (or the built-in exception the scenario
        names) when scripted to fail. It may hand control back to the event loop before finishing, as real tools
        do: call it from the loop's own async tool body."""
        ...

    def invoke(self, arguments: Mapping[str, JSON], call_id: str | None = None) -> ToolOutcome:
        """The same, synchronously, for loops whose tool bodies cannot await; scripted delays are skipped."""
        ...


class Toolbox(Protocol):
    """Every tool of the scenario, offered or added at run time."""

    @property
    def tools(self) -> Mapping[str, Tool]: ...

    def offered(self) -> Sequence[Tool]:
        """Tools the caller offers at the start of every turn."""
        ...


class AutoApprovalRule(Protocol):
    """A rule the caller configures to approve calls without asking a person (recorded when asked)."""

    @property
    def name(self) -> str: ...

    def approves(self, call: FunctionCall) -> bool:
        """Asked about one call that needs approval, as the model made it: True approves it."""
        ...


@dataclass(frozen=True)
class ApprovalPolicy:
    """The conversation runs behind an approval layer (an approval middleware, in some loops' words).

    The layer keeps the caller's standing decisions (`ApprovalResponse.standing`) and applies each only to later
    calls it covers: the same tool (and, for an argument-scoped decision, exactly the same arguments) within the
    same hosted server. It asks `rules` about every call that needs approval, with the call as the model made it,
    and runs the calls a rule approves without asking the caller, within the same function-call budget as the run.
    It surfaces one unresolved approval per run; the others wait, and none of the batch runs before the caller has
    answered them all. Its state survives a session save and restore.
    """

    rules: tuple[AutoApprovalRule, ...] = ()


@dataclass(frozen=True)
class ContextSource:
    """A context provider attached to the conversation (capability ``context-providers``): before each run it adds
    `instructions` (the model sees them as a system message first) and `messages` to what every model call of that
    run receives. Context is not conversation: it is not part of the caller's response, a session does not keep it
    (the provider adds it afresh each run, so it never accumulates), and the caller's input is never changed."""

    id: str
    instructions: str | None = None
    messages: tuple[Message, ...] = ()
    tools: tuple[str, ...] = ()  # scenario tools the provider adds to each run (capability ``context-tools``)


class WireEndpoint(Protocol):
    """A provider's HTTP API served in-process from the scenario's script (no sockets, no network).

    Every request is parsed back into the neutral vocabulary and recorded as the neutral provider records its
    calls; a request the real service would reject gets the service's error status and body.
    """

    @property
    def dialect(self) -> Dialect: ...

    @property
    def base_url(self) -> str:
        """The URL to give the provider client (it ends with the API version path, e.g. ``.../v1``)."""
        ...

    def http_client(self) -> object:
        """An asynchronous HTTP client whose transport answers in-process, of the kind the dialect's official
        SDK takes (an ``httpx2.AsyncClient`` for ``openai``)."""
        ...

    def shared_http_client(self) -> object:
        """The process-wide client of the same kind, answering from whichever endpoint is `serving()` in the
        calling context (an HTTP 500 naming the problem when none is). An adapter builds a provider SDK client once
        per process over it, instead of once per conversation over `http_client()`, and sends every request from
        inside `serving()`."""
        ...

    def serving(self) -> AbstractContextManager[None]:
        """Binds the shared client to this endpoint for the calling context and the tasks it starts (a context
        variable, so runs side by side in other tasks keep their own endpoint)."""
        ...

    def as_scripted(self, content: Content) -> Content:
        """A content the caller got from the provider client, in the script's terms.

        A real service issues some values of its own accord: every Responses reasoning item has an id and an
        encrypted payload, whether the script named them or not. Those are taken back out, and what the format
        folds together (a reasoning item's kind; its payload as the script's `data`) is restated as the script
        wrote it; whatever the client or the loop changed stays changed. An adapter reports every content its
        caller saw through this, so scenarios and checks never meet a service's generated values, as they never
        meet a framework's."""
        ...


HostPersistence = Literal["per-run", "per-service-call"]


@dataclass(frozen=True)
class HostedServer:
    """The caller reaches the loop through a hosting server (capability ``hosting-server``), not by calling it.

    The server speaks the OpenAI Responses API over HTTP, served in-process (no sockets): each turn is one
    ``POST /responses`` with the turn's input, continuing the previous turn's response by its id, and the caller
    sees the response's output items. The server keeps the conversation's transcript itself and hands it to the
    loop on every request, beside the framework session it keeps for the loop. `persistence` is when the loop's
    history providers save: once per run, or after every model call of the run (``per-service-call``). The loop's
    model is still `ConversationSetup.provider` (or the wire endpoint), inside the server.
    """

    persistence: HostPersistence = "per-run"


@dataclass(frozen=True)
class ConversationSetup:
    """Everything an adapter needs for one scenario run in one mode.

    `provider` is the model to use for every model call; `toolbox` holds the tools to offer (call
    `toolbox.offered()` for the tools available at the start of a turn). `tool_choice` is the caller's option
    (``None`` leaves the implementation's default). `service_stores_history` says the provider is a service that
    stores the conversation and issues conversation ids (as a Responses-style API with storage on): a request
    that continues an id needs only the items the service does not hold yet. `approval_policy`, when set, puts
    the conversation behind an approval layer (capability ``approval-policy``); `context` lists its context
    providers (capability ``context-providers``). `history_store` names a history provider of the caller's
    (capability ``history-providers``) that keeps the session's conversation instead of the implementation's
    built-in store: it stores every message of every run verbatim, approval requests and responses included (an
    audit log), and loads them all back before each run, so the loop must filter what is control, not transcript.
    `compaction`, when set, asks the loop to send each model call only the most recent `compaction` groups of the
    history (capability ``compaction``), where a group is what must travel together: a call with its result and
    the reasoning it was made after, or a lone message; system messages always stay. `dialect` names how the model
    is reached; unless it is ``"neutral"``, `wire` is the endpoint to build the
    provider client on, and `provider` must not be called directly. `host`, when set, puts the loop behind a
    hosting server the caller talks to over HTTP (capability ``hosting-server``); the server keeps the
    conversation, so the caller's turns hold only new input. An adapter whose host package is missing raises
    ImportError from `open`: the run is then n/a with that reason.
    """

    scenario_id: str
    mode: Mode
    config: LoopConfig
    provider: ModelProvider
    toolbox: Toolbox
    use_session: bool = False
    tool_choice: str | None = None
    service_stores_history: bool = False
    approval_policy: ApprovalPolicy | None = None
    context: tuple[ContextSource, ...] = ()
    history_store: str | None = None
    dialect: Dialect = "neutral"
    wire: WireEndpoint | None = None
    compaction: int | None = None
    host: HostedServer | None = None


@dataclass(frozen=True)
class TurnInput:
    """The caller's input for one turn: a plain string, or messages (possibly replaying earlier history).

    `restore_session` asks the adapter to save its session and restore it into a fresh one before the turn, as a
    caller resuming in another process does (capability ``session-serialization``). `session_changes` replaces
    persisted counters in the saved form first, as a corrupted store would (capability ``persisted-budgets``); its
    keys are ``consecutive_errors`` and ``function_calls``. A restore the loop refuses is reported as the turn's
    `CallerView.error`, with nothing run. `transport_messages` are messages in the wire form of the transport the
    implementation is reached through (capability ``ag-ui``: AG-UI message objects), to send exactly as written,
    malformed parts included, each with its place: after that many of `messages`. `tool_choice` is the caller's
    option for this run alone (capability ``caller-options``), as a caller passes it to one run; None: the
    conversation's (`ConversationSetup.tool_choice`).
    """

    index: int
    messages: str | tuple[Message, ...]
    kwargs: Mapping[str, JSON] = field(default_factory=lambda: {})
    restore_session: bool = False
    session_changes: Mapping[str, JSON] = field(default_factory=lambda: {})
    transport_messages: tuple[tuple[int, Mapping[str, JSON]], ...] = ()
    tool_choice: str | None = None


@dataclass(frozen=True)
class RaisedError:
    """An exception the caller got instead of (or while streaming) a response."""

    type_name: str
    message: str
    kind: Literal["provider", "unknown-tool", "loop"] = "loop"


@dataclass(frozen=True)
class TransportEvent:
    """One event of an event protocol the caller reached the loop through (AG-UI): its type and its fields, as
    the protocol names them (camelCase wire aliases), JSON values only."""

    type: str
    fields: Mapping[str, JSON] = field(default_factory=lambda: {})


@dataclass(frozen=True)
class TransportExchange:
    """One run over an event protocol: the run request as sent, and every event of its stream in order. The
    event-level checks read it; an implementation reached in-process has none."""

    request: Mapping[str, JSON]
    events: tuple[TransportEvent, ...]


@dataclass(frozen=True)
class CallerView:
    """What the caller observed during one turn, converted to the neutral vocabulary.

    `updates` holds every streamed update in order (empty in non-streaming mode) and `response` the final
    response (the stream's finalised response in streaming mode), or `None` when `error` was raised.
    `inputs_after` re-reads the caller's own input objects after the turn and `earlier_responses_after` re-reads
    every response this conversation returned on earlier turns, so the runner can prove nothing was mutated.
    `log` carries the implementation's log records, shown with a failure. `transport` holds the run request and
    its events when the caller reached the loop over an event protocol (AG-UI), for the event-level checks.
    `function_calls_counted` is the loop's own count of function-call budget units spent when the turn ended, the
    number its `max_function_calls` decision is made on (capability ``budget-counts``; `None` when not reported).
    Some of what the spec says about the budget cannot be seen in the calls a run makes (an execution that pauses
    for input ends the run, so no later decision of that run shows the unit it spent), so an implementation that
    can tell reports it here.
    """

    updates: tuple[Update, ...] = ()
    response: Response | None = None
    error: RaisedError | None = None
    inputs_after: str | tuple[Message, ...] = ()
    earlier_responses_after: tuple[Response, ...] = ()
    log: tuple[str, ...] = ()
    transport: TransportExchange | None = None
    function_calls_counted: int | None = None


@runtime_checkable
class Conversation(Protocol):
    async def run_turn(self, turn: TurnInput) -> CallerView:
        """Run one caller turn to completion and report what the caller saw.

        Called once per scenario turn, in order. Exceptions the loop raises to its caller must be reported in
        `CallerView.error`, not raised; an exception escaping this method is judged a crash of the loop.
        """
        ...

    async def close(self) -> None:
        """Release what `open` acquired; called once after the last turn, even when a turn failed."""
        ...


@runtime_checkable
class LoopAdapter(Protocol):
    name: str
    """Stable implementation name, used on the command line and in reports."""

    version: str
    """Version of the implementation under test, shown in reports."""

    capabilities: frozenset[Capability]
    # Optional: `dialects`, a frozenset of the `Dialect`s the adapter can reach its model through besides
    # ``"neutral"`` (read with `adapter_dialects`, so adapters written before it still load);
    # `provider_packages`, a mapping from a dialect to the distribution that carries its client (read with
    # `adapter_provider_package`; results record that package's installed release beside `version`);
    # `modes`, the `Mode`s it can drive when not both, with `modes_reason` saying why (read with `adapter_modes`);
    # `unexpressible`, a mapping from scenario id to the reason its caller input has no form in the protocol the
    # implementation is reached through (such a scenario is n/a for it; read with `adapter_unexpressible`);
    # `profiles`, the `ClaimedProfile`s the implementation claims (read with `adapter_profiles`; ``{"safety"}`` when
    # it names none: every loop owes its caller safety, and only a loop built to spec 004 owes its mechanisms);
    # `loop_modules`, a tuple of the dotted names of the modules that hold the loop's own logic (read with
    # `adapter_loop_modules`); `loop-conformance mutate` and `coverage` measure and mutate only those;
    # `response_shape`, a `ResponseShape` (read with `adapter_response_shape`);
    # and `approval_controls`, an `ApprovalControls` (read with `adapter_approval_controls`).

    def open(self, setup: ConversationSetup) -> Conversation:
        """Start one scenario run; called once per scenario and mode, before its first turn."""
        ...


def adapter_provider_package(adapter: LoopAdapter, dialect: Dialect) -> str:
    """The distribution carrying `adapter`'s client for `dialect` ("" for neutral or when the adapter names none)."""
    packages = getattr(adapter, "provider_packages", None)
    if dialect == "neutral" or not isinstance(packages, Mapping):
        return ""
    package = cast(Mapping[object, object], packages).get(dialect)
    return package if isinstance(package, str) else ""


def adapter_dialects(adapter: LoopAdapter) -> tuple[Dialect, ...]:
    """The dialects an adapter runs over, neutral first, in `DIALECTS` order."""
    declared = cast(frozenset[str], getattr(adapter, "dialects", frozenset[str]()))
    return tuple(d for d in DIALECTS if d == "neutral" or d in declared)


def adapter_modes(adapter: LoopAdapter) -> tuple[tuple[Mode, ...], str]:
    """The response modes an adapter drives (both unless it declares `modes`), and why others are missing."""
    declared = cast(frozenset[str], getattr(adapter, "modes", frozenset(MODES)))
    reason = cast(str, getattr(adapter, "modes_reason", ""))
    return tuple(m for m in MODES if m in declared), reason


def adapter_unexpressible(adapter: LoopAdapter, scenario_id: str) -> str | None:
    """Why `scenario_id`'s caller input cannot be expressed to the adapter's implementation, if it cannot."""
    declared = cast(Mapping[str, str], getattr(adapter, "unexpressible", {}))
    return declared.get(scenario_id)


# What a loop can represent of a model response: ``"messages"`` (the default), every assistant message of a response
# as it came; ``"one-message-per-model-call"``, one assistant message per model call (LangChain's `AIMessage`), so
# a scripted response of several assistant messages arrives joined into one. For the latter, expectations compare
# responses and model requests with consecutive assistant messages joined, on both sides: the shape is not judged,
# every call and result still is.
ResponseShape = Literal["messages", "one-message-per-model-call"]

# Where a loop takes approval decisions from: ``"caller-history"`` (the default), on any approval request in what
# the caller sends, its own hand-written ones included; ``"own-pauses"``, only on the pauses its own loop issued and
# still holds (an interrupt-based loop resumes its checkpointed pause). Scenarios whose caller writes approval
# requests into its own history are n/a for the latter.
ApprovalControls = Literal["caller-history", "own-pauses"]


def adapter_response_shape(adapter: LoopAdapter) -> ResponseShape:
    declared = getattr(adapter, "response_shape", "messages")
    return "one-message-per-model-call" if declared == "one-message-per-model-call" else "messages"


def adapter_approval_controls(adapter: LoopAdapter) -> ApprovalControls:
    declared = getattr(adapter, "approval_controls", "caller-history")
    return "own-pauses" if declared == "own-pauses" else "caller-history"


# The profiles an implementation can claim; `tentative` is never claimed, so it never gates.
ClaimedProfile = Literal["safety", "contract"]


def adapter_profiles(adapter: LoopAdapter) -> frozenset[ClaimedProfile]:
    """The profiles an adapter's implementation claims: always safety, contract when it declares it."""
    declared = cast(object, getattr(adapter, "profiles", frozenset[str]()))
    if not isinstance(declared, frozenset | set | tuple | list):
        declared = ()
    names = {str(p) for p in cast(Sequence[object], declared)}
    claimed: set[ClaimedProfile] = {"safety"}
    if "contract" in names:
        claimed.add("contract")
    return frozenset(claimed)


def adapter_loop_modules(adapter: LoopAdapter) -> tuple[str, ...]:
    """The dotted names of the modules holding the adapter's loop logic; empty when it names none."""
    declared = cast(object, getattr(adapter, "loop_modules", ()))
    if not isinstance(declared, tuple | list):
        return ()
    return tuple(str(name) for name in cast(tuple[object, ...], declared))
