"""The scenario file format, as strict pydantic models: unknown keys are errors, every field is typed.

Values in `expect` may be matchers — a mapping with one ``$``-prefixed key (see `_matchers.py`) — wherever a row
allows freedom; everything else compares exactly.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.contract import Capability, Dialect, HostPersistence

# The capability names are the adapter contract's: one list, so a scenario can require only what adapters declare.
CapabilityName = Capability


# Parameter types a tool's Python signature may use (`harness.signatures`).
SignatureType = Literal[
    "str", "int", "float", "bool", "list[str]", "list[int]", "dict",
    "str | None", "int | None", "float | None", "bool | None", "list[str] | None", "list[int] | None", "dict | None",
]

# Exception types a scripted tool may raise: built-ins only, so a scenario names no implementation's classes. KeyError
# and TimeoutError matter: some loops raise them for their own control flow and may confuse a tool's with theirs.
ExceptionName = Literal[
    "RuntimeError", "ValueError", "TypeError", "KeyError", "LookupError", "TimeoutError", "PermissionError",
    "ConnectionError", "ZeroDivisionError", "NotImplementedError",
]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


Grouping = Literal["exact", "any", "logical"]
_GROUPING = ("exact: messages compare one by one. any: consecutive messages of one role compare as one message with "
             "all their contents in order (where the spec fixes the order of contents, not how messages group them: "
             "a batch's results in one tool message or one each). logical: as any, and within an assistant message "
             "its calls compare after its other contents, each kind in its own order (where a row asks only for the "
             "same logical call/result transcript, not where a model's text sits beside its calls).")


def _exactly_one(model: BaseModel, keys: tuple[str, ...], what: str) -> None:
    present = [key for key in keys if getattr(model, key) is not None]
    if len(present) != 1:
        names = ", ".join(f"'{k}'" for k in keys)
        raise ValueError(f"{what} needs exactly one of {names}, got {len(present)}")


# --- contents -------------------------------------------------------------------------------------------------


class ReasoningSpec(Strict):
    text: str = ""
    signature: str | None = None
    id: str | None = Field(default=None, min_length=1, description="The provider's id of this reasoning item.")
    kind: Literal["text", "summary", "encrypted"] = Field(
        default="text", description="Raw reasoning text, a summary of it, or an encrypted item (its text empty).")
    data: Any = Field(default=None, description="The provider's opaque payload, e.g. an encrypted content.")


class FunctionCallSpec(Strict):
    call_id: Any = None  # str in scripts; may be a matcher in expectations
    name: Any = None
    arguments: Any = Field(default_factory=dict)
    informational_only: bool = False
    server_label: str | None = None
    label: str | None = Field(default=None, description="A name later turns use to refer to this occurrence.")
    item_id: str | None = Field(
        default=None, min_length=1,
        description="Scripts only: the service's id of the call's output item, distinct from its call_id (as the "
                    "Responses API gives each function_call an `fc_` id). Loops that mint approval request ids from "
                    "it then issue requests whose ids differ from the call ids.")
    stream_chunks: list[str] | None = Field(
        default=None, description="Streaming only: the arguments as these string fragments, one update each."
    )


class FunctionResultSpec(Strict):
    call_id: Any
    result: Any = None
    error: Any = False
    occurrence: str | None = Field(
        default=None, min_length=1,
        description="Inputs only: the label of the call occurrence this result answers; the harness names it by the "
                    "identity the loop gave that occurrence, as a caller answering a reused call id does.")


class ApprovalRequestSpec(Strict):
    call_id: Any = None
    label: str | None = None
    id: Any = None
    function_call: FunctionCallSpec | None = None


class ApprovalResponseSpec(Strict):
    call_id: Any = None
    label: str | None = None
    approved: Any = True
    id: Any = None
    function_call: FunctionCallSpec | None = None
    standing: Literal["tool", "arguments"] | None = Field(
        default=None, description="With an approval: also approve later calls of this tool ('tool') or of this tool "
                                  "with exactly these arguments ('arguments'), within the call's hosted server.")


class UserInputRequestSpec(Strict):
    call_id: Any = None
    payload: Any = None
    id: Any = None
    # The call the request carries, as the loop finalised it (name, complete arguments); unchecked if absent.
    function_call: FunctionCallSpec | None = None


class UsageSpec(Strict):
    input_tokens: int = 0
    output_tokens: int = 0


CONTENT_KEYS = (
    "text",
    "reasoning",
    "function_call",
    "function_result",
    "approval_request",
    "approval_response",
    "user_input_request",
    "usage",
)


class ContentSpec(Strict):
    """One content: a mapping with exactly one key naming its kind."""

    text: Any = None
    reasoning: ReasoningSpec | str | None = None
    function_call: FunctionCallSpec | None = None
    function_result: FunctionResultSpec | None = None
    approval_request: ApprovalRequestSpec | None = None
    approval_response: ApprovalResponseSpec | None = None
    user_input_request: UserInputRequestSpec | None = None
    usage: UsageSpec | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> ContentSpec:
        _exactly_one(self, CONTENT_KEYS, "a content")
        return self

    def kind(self) -> str:
        return next(key for key in CONTENT_KEYS if getattr(self, key) is not None)


class MessageSpec(Strict):
    role: Literal["system", "user", "assistant", "tool"]
    contents: list[ContentSpec]


# --- tools ----------------------------------------------------------------------------------------------------


class BehaviourSpec(Strict):
    """One invocation's behaviour: ``return``, ``raise`` or ``request_input``, plus optional effects."""

    return_: Any = Field(default=None, alias="return")
    raise_: str | None = Field(default=None, alias="raise")
    request_input: Any = None
    return_parts: list[str] | None = Field(
        default=None, min_length=2,
        description="Return several text contents instead of one value (how each loop renders them differs: "
                    "expectations match the parts with $contains).")
    exception: ExceptionName | None = Field(
        default=None, description="With 'raise': the built-in exception type raised (default: a RuntimeError).")
    delay: int = Field(
        default=0, ge=0, le=1000,
        description="Hand control back to the event loop this many times before finishing, so that parallel calls "
                    "finish in another order than they started (deterministic: no clock involved).")
    terminate: bool = Field(default=False, description="Middleware ends the loop after this invocation.")
    add_tools: list[str] = Field(default_factory=list, description="Tools available from the next iteration.")

    @model_validator(mode="after")
    def _one_kind(self) -> BehaviourSpec:
        kinds = (self.raise_, self.request_input, self.return_, self.return_parts)
        if sum(kind is not None for kind in kinds) > 1:
            raise ValueError("a behaviour takes at most one of 'return', 'return_parts', 'raise', 'request_input'")
        if self.exception is not None and self.raise_ is None:
            raise ValueError("'exception' names the type a 'raise' behaviour raises: it needs 'raise'")
        return self


class ParameterSpec(Strict):
    """One parameter of a tool declared by its Python signature."""

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    type: SignatureType
    default: Any = Field(default=None, description="Makes the parameter optional with this default (null: None).")


class ToolSpecModel(Strict):
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$")
    description: str = ""
    parameters: dict[str, Any] | None = None
    signature: list[ParameterSpec] | None = Field(
        default=None, description="Declare the tool as a Python function with these parameters instead of a JSON "
                                  "schema (capability signature-tools); executions then record the arguments the "
                                  "function received, defaults included.")
    returns: Any = Field(default=None, description="Shorthand for a single behaviour that returns this value.")
    behaviour: list[BehaviourSpec] | None = Field(
        default=None, description="Behaviours of successive invocations; the last one repeats."
    )
    approval: Literal["required", "never"] = "never"
    declaration_only: bool = False
    offered: bool = Field(default=True, description="False: only available after another tool adds it.")

    @model_validator(mode="after")
    def _one_declaration(self) -> ToolSpecModel:
        if self.signature is not None and self.parameters is not None:
            raise ValueError("a tool is declared by 'parameters' (a JSON schema) or by 'signature', not both")
        if self.signature is not None and self.declaration_only:
            raise ValueError("a declaration-only tool has no function: declare it with 'parameters'")
        names = [p.name for p in self.signature or []]
        if len(names) != len(set(names)):
            raise ValueError("signature parameter names must be unique")
        return self


class AutoApprovalRuleSpec(Strict):
    """A rule that approves calls without asking the caller: by tool name, optionally exact arguments, and within a
    hosted server."""

    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$", description="The name expectations use for this rule.")
    tool: str = Field(description="It approves calls of this tool only.")
    arguments: dict[str, Any] | None = Field(
        default=None, description="Only with exactly these arguments ({} matches only a call without arguments); "
                                  "absent: any arguments.")
    server: str | None = Field(
        default=None, min_length=1,
        description="Only calls of this hosted server (server_label); absent: local calls only, never hosted ones.")


class ApprovalPolicySpec(Strict):
    """The conversation runs behind an approval layer: it keeps the caller's standing decisions, asks its
    auto-approval rules about each call that needs approval, and surfaces one unresolved approval per run."""

    auto_approve: list[AutoApprovalRuleSpec] = Field(default_factory=list[AutoApprovalRuleSpec])

    @model_validator(mode="after")
    def _unique_ids(self) -> ApprovalPolicySpec:
        ids = [rule.id for rule in self.auto_approve]
        if len(ids) != len(set(ids)):
            raise ValueError("auto-approval rule ids must be unique")
        return self


class HistoryProviderSpec(Strict):
    """A caller's history provider: an audit store that keeps every message verbatim and loads it all back."""

    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$")


class ContextProviderSpec(Strict):
    """A provider the conversation's loop runs before each turn: it adds instructions and/or context messages to
    every model call of the turn, without making them part of the conversation."""

    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    instructions: str | None = Field(default=None, min_length=1)
    messages: list[MessageSpec] = Field(default_factory=list[MessageSpec])
    tools: list[str] = Field(
        default_factory=list[str], description="Scenario tools the provider adds to each run during its setup "
                                               "(capability context-tools), usually ones with 'offered: false'.")

    @model_validator(mode="after")
    def _adds_something(self) -> ContextProviderSpec:
        if self.instructions is None and not self.messages and not self.tools:
            raise ValueError("a context provider adds 'instructions', 'messages', 'tools' or several")
        return self


class ConfigSpec(Strict):
    enabled: bool = True
    max_iterations: int | None = Field(default=None, ge=1)
    max_function_calls: int | None = Field(default=None, ge=1)
    max_consecutive_errors: int | None = Field(default=None, ge=0)
    terminate_on_unknown_calls: bool = False
    include_detailed_errors: bool = False


# --- turns ----------------------------------------------------------------------------------------------------


class ModelStepSpec(Strict):
    """One scripted model response: `contents` (one assistant message) or several `messages`."""

    contents: list[ContentSpec] | None = None
    messages: list[MessageSpec] | None = None
    finish_reason: str | None = None
    raises: str | None = Field(default=None, description="The model call fails with this message.")
    fault: Literal["error", "invalidated"] = Field(
        default="error", description="With 'raises': 'error' (the request failed) or 'invalidated' (the provider "
                                     "invalidated a request it had accepted; nothing it carried was delivered).")
    conversation_id: str | None = Field(
        default=None, min_length=1,
        description="The service's conversation id after this response (service-managed continuation).")
    stream: list[list[ContentSpec]] | None = Field(
        default=None, min_length=1,
        description="Streaming only: the updates this response arrives in, each a list of contents, which must add up "
                    "to 'contents'. A function_call fragment holds any of call_id, name and 'arguments': a text "
                    "fragment of their JSON, or a mapping when the client delivers the call's whole arguments as one "
                    "(capability streamed-mapping-arguments; it joins no other arguments of its call). A fragment "
                    "continues the call before it when it repeats its id or has none, and does not bring a second "
                    "name.")
    ignores_tool_choice: bool = Field(
        default=False, description="Deliberately ignores the tool choice: returns calls even when tool_choice is "
                                   "'none', or none when it is 'required'.")
    optional: bool = Field(default=False, description="An implementation may leave this response unused.")

    @model_validator(mode="after")
    def _one_shape(self) -> ModelStepSpec:
        shapes = [self.contents, self.messages, self.raises]
        if sum(shape is not None for shape in shapes) != 1:
            raise ValueError("a model step needs exactly one of 'contents', 'messages' or 'raises'")
        if self.raises is None and "fault" in self.model_fields_set:
            raise ValueError("'fault' describes a failing model call: it needs 'raises'")
        if self.raises is not None and self.conversation_id is not None:
            raise ValueError("a failing model call issues no 'conversation_id'")
        if self.stream is not None and self.contents is None:
            raise ValueError("'stream' splits the one assistant message of 'contents': it needs 'contents'")
        return self


Decision = Literal["approve", "reject", "approve-always", "approve-always-with-arguments"]
STANDING_DECISIONS: dict[str, Literal["tool", "arguments"]] = {
    "approve-always": "tool", "approve-always-with-arguments": "arguments"}


class InputItemSpec(Strict):
    """One item of a turn's caller input."""

    user: str | None = None
    system: str | None = None
    message: MessageSpec | None = None
    history: Literal["previous"] | None = Field(
        default=None, description="Replay every earlier turn's input and response, as a caller keeping history."
    )
    approvals: dict[str, Decision] | None = Field(
        default=None, description="Decisions on earlier approval requests, by call id or label, in one message: "
                                  "'approve-always' also approves later calls of the tool, "
                                  "'approve-always-with-arguments' later calls with exactly the same arguments.")
    transport_message: dict[str, Any] | None = Field(
        default=None, description="A message in the transport's own wire form, sent after the turn's other messages "
                                  "exactly as written, malformed parts included (requires 'ag-ui': an AG-UI "
                                  "message object, e.g. a UI's confirm_changes call and its answer).")

    @model_validator(mode="after")
    def _one_kind(self) -> InputItemSpec:
        kinds = ("user", "system", "message", "history", "approvals", "transport_message")
        present = [k for k in kinds if getattr(self, k) is not None]
        if len(present) != 1:
            raise ValueError("an input item needs exactly one of " + ", ".join(f"'{k}'" for k in kinds))
        if self.transport_message is not None and not isinstance(self.transport_message.get("role"), str):
            raise ValueError("a 'transport_message' needs a 'role' (a string): the transport routes a message by it")
        return self


class MessageExpect(Strict):
    role: Any
    contents: list[ContentSpec] | dict[str, Any]


class RequestExpect(Strict):
    call: int = Field(ge=1, description="Which model call of the turn, from 1.")
    tool_choice: Any = None
    tools: Any = None
    messages: list[MessageExpect] | dict[str, Any] | None = None
    grouping: Grouping = Field(default="exact", description=_GROUPING)
    kwargs: dict[str, Any] | None = None
    conversation_id: Any = Field(
        default=None, description="The service conversation the call continues; null: none. Unchecked if absent.")


class WireExpect(Strict):
    """What one model call put on the wire, in a provider's own format (judged only over that dialect)."""

    call: int = Field(ge=1, description="Which model request of the turn, from 1 (a refused request counts).")
    dialect: Dialect = Field(description="The wire format the body is written in.")
    body: Any = Field(default=None, description="The JSON request body, matched as `requests` fields are "
                                                "(mappings: only the keys named; lists exact unless matchers say).")
    status: int | None = Field(default=None, description="The HTTP status the service answered with.")


# The event types of the AG-UI protocol (`ag_ui.core.EventType`), as an `events` expectation names them.
AgUiEventType = Literal[
    "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TEXT_MESSAGE_CHUNK",
    "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_CHUNK", "TOOL_CALL_RESULT",
    "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END",
    "REASONING_MESSAGE_CHUNK", "REASONING_END", "REASONING_ENCRYPTED_VALUE",
    "THINKING_START", "THINKING_END", "THINKING_TEXT_MESSAGE_START", "THINKING_TEXT_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END", "STATE_SNAPSHOT", "STATE_DELTA", "MESSAGES_SNAPSHOT", "ACTIVITY_SNAPSHOT",
    "ACTIVITY_DELTA", "RAW", "CUSTOM", "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "STEP_STARTED", "STEP_FINISHED",
]


class EventExpect(Strict):
    type: AgUiEventType = Field(description="The event's type, as the AG-UI protocol names it.")
    fields: dict[str, Any] | None = Field(
        default=None, description="The event's fields by their protocol (camelCase) names, matched as a `wire` "
                                  "body is: mappings only by the keys named, lists exact unless matchers say.")


class EventsExpect(Strict):
    """The turn's AG-UI events (judged on implementations reached over AG-UI, capability `ag-ui`)."""

    sequence: list[EventExpect] = Field(description="Exactly the turn's events of the judged types, in order.")
    judged: list[AgUiEventType] | None = Field(
        default=None, description="The event types judged; default: the types `sequence` names. A type listed "
                                  "here but absent from `sequence` must not occur.")


# The expectations a turn may state, as the scenario names them; `expect.<name with dashes>` is each one's check id.
ExpectationName = Literal[
    "response", "executions", "model_calls", "function_calls_counted", "requests", "stream_order", "error",
    "conversation_id", "rules_asked", "wire", "events",
]
EXPECTATION_NAMES: tuple[ExpectationName, ...] = (
    "response", "executions", "model_calls", "function_calls_counted", "requests", "stream_order", "error",
    "conversation_id", "rules_asked", "wire", "events",
)


class ErrorExpect(Strict):
    message: Any = None
    kind: Literal["provider", "unknown-tool", "loop"] | None = None


class ExpectSpec(Strict):
    response: list[MessageExpect] | dict[str, Any] | None = Field(
        default=None, description="The caller-visible response messages, exact unless matchers say otherwise."
    )
    executions: dict[str, int | list[dict[str, Any]]] | None = Field(
        default=None, description="Per tool: execution count or argument list; unnamed tools must not run."
    )
    model_calls: int | None = Field(default=None, ge=0)
    function_calls_counted: int | None = Field(
        default=None, ge=0, description="The function-call budget units the loop had spent when the turn ended, "
                                        "as it counts them against max_function_calls (the scenario requires "
                                        "capability `budget-counts`).")
    requests: list[RequestExpect] | None = None
    stream_order: list[str] | None = Field(
        default=None, description="Streaming: the order in which contents first appear, e.g. 'function_call c1'."
    )
    error: ErrorExpect | None = None
    conversation_id: Any = Field(
        default=None, description="The conversation id of the caller-visible response; null: none. Unchecked if "
                                  "absent.")
    rules_asked: dict[str, Any] | None = Field(
        default=None, description="Per auto-approval rule id: the calls it was asked about during this turn, in "
                                  "order, as function_call mappings (exact unless matchers say otherwise); rules "
                                  "not named are unchecked.")
    wire: list[WireExpect] | None = Field(
        default=None, description="Request bodies as a provider received them; each entry is judged on runs over "
                                  "its dialect (listed in the scenario's `providers.only`).")
    events: EventsExpect | None = Field(
        default=None, description="The turn's AG-UI events, in order, with matchers on their fields (the scenario "
                                  "requires capability `ag-ui`).")
    grouping: Grouping = Field(default="exact", description="How `response` compares: " + _GROUPING)
    cites: list[str] | dict[ExpectationName, list[str]] | None = Field(
        default=None,
        description="The normative sources the turn's expectations enforce: matrix row titles (or `row:` ids) and "
                    "`sentence:` ids of the spec's normative contract (`loop-conformance citations` lists them). A "
                    "list holds for every expectation of the turn; a mapping names them per expectation, each "
                    "expectation of the turn needing an entry. Required whenever the turn expects anything.")
    tentative: dict[ExpectationName, str] = Field(
        default_factory=dict[ExpectationName, str],
        description="Expectations that are our reading where the cited sources are silent or ambiguous, each with "
                    "the reason: they are reported with profile `tentative` and never gate.")
    profile: dict[ExpectationName, Literal["safety", "contract"]] = Field(
        default_factory=dict[ExpectationName, Literal["safety", "contract"]],
        description="An expectation's profile when not `contract` (the default for a scenario's expectations): "
                    "`safety` only for what every loop owes its caller whatever its design.")

    @model_validator(mode="after")
    def _every_expectation_cites(self) -> ExpectSpec:
        asserted = self.asserted()
        if not asserted:
            return self
        if self.cites is None:
            raise ValueError(f"the turn expects {', '.join(asserted)} but cites no source: add `cites:` with the "
                             "matrix rows or contract sentences these expectations enforce")
        if isinstance(self.cites, dict):
            missing = [name for name in asserted if not self.cites.get(name)]
            if missing:
                raise ValueError(f"`cites` names no source for {', '.join(missing)}")
        references = self.cites if isinstance(self.cites, list) else [r for v in self.cites.values() for r in v]
        if not references:
            raise ValueError("`cites` is empty: name the rows or sentences the expectations enforce")
        from harness.citations import resolve  # the citation table builds on the spec rows, not on this schema

        unknown = [r for r in references if resolve(r) is None]
        if unknown:
            raise ValueError(f"`cites` names no known row or sentence: {', '.join(repr(u) for u in unknown)} "
                             "(`loop-conformance citations` lists them)")
        for name in (*self.tentative, *self.profile):
            if name not in asserted:
                raise ValueError(f"`tentative`/`profile` names {name!r}, which this turn does not expect")
        both = set(self.tentative) & set(self.profile)
        if both:
            raise ValueError(f"{', '.join(sorted(both))}: an expectation is tentative or has a profile, not both")
        return self

    def asserted(self) -> list[ExpectationName]:
        """The expectations this turn states, by name."""
        return [name for name in EXPECTATION_NAMES
                if (name in self.model_fields_set if name == "conversation_id" else getattr(self, name) is not None)]


class SessionChangesSpec(Strict):
    """Persisted counters replaced in the saved session before it is restored, as a corrupted store would."""

    consecutive_errors: Any = Field(default=None, description="Any JSON value: the point is to try bad ones.")
    function_calls: Any = Field(default=None, description="Any JSON value: the point is to try bad ones.")


class CallerOptionsSpec(Strict):
    """Options the caller passes to this turn's run (capability caller-options)."""

    tool_choice: Literal["auto", "required", "none"] = Field(
        description="The run's tool choice: 'required' makes the first model call choose a tool (the loop resets it "
                    "once a batch has run, so the run can end), 'none' lets it choose none.")


class TurnSpec(Strict):
    input: str | list[InputItemSpec]
    kwargs: dict[str, Any] = Field(default_factory=dict)
    options: CallerOptionsSpec | None = Field(
        default=None, description="The caller's options for this turn's run, such as tool_choice (capability "
                                  "caller-options).")
    restore_session: bool | SessionChangesSpec = Field(
        default=False,
        description="Save the session and restore it into a fresh one before this turn (true), optionally with "
                    "persisted counters replaced (a mapping).")
    model: list[ModelStepSpec] = Field(default_factory=list[ModelStepSpec])
    expect: ExpectSpec = Field(default_factory=ExpectSpec)


class ModesSpec(Strict):
    only: Literal["streaming", "non-streaming"]
    reason: str = Field(min_length=1)


class CompactionSpec(Strict):
    keep_last_groups: int = Field(ge=1, description="How many of the most recent groups (a call with its result "
                                                     "and reasoning, or a lone message) each model call keeps.")


class HostSpec(Strict):
    server: Literal["responses"] = Field(description="The hosting server the caller talks to: the Responses API.")
    persistence: HostPersistence = Field(
        default="per-run", description="When the loop's history providers save: once per run, or after every "
                                       "model call of the run.")


class ProvidersSpec(Strict):
    only: list[Dialect] = Field(min_length=1, description="The providers the scenario runs over; n/a elsewhere.")
    reason: str = Field(min_length=1)


class ScenarioSpec(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$")
    title: str = Field(min_length=1)
    spec: list[str] = Field(min_length=1, description="Matrix rows covered, named as in the spec.")
    description: str = ""
    requires: list[CapabilityName] = Field(default_factory=list[CapabilityName])
    modes: ModesSpec | None = None
    providers: ProvidersSpec | None = Field(
        default=None, description="Run only over these providers (a row about one provider's wire format).")
    session: bool = Field(default=False, description="History is kept by the implementation's session.")
    tool_choice: str | None = None
    tools: list[ToolSpecModel] = Field(default_factory=list[ToolSpecModel])
    config: ConfigSpec = Field(default_factory=ConfigSpec)
    approval_policy: ApprovalPolicySpec | None = Field(
        default=None, description="Run the conversation behind an approval layer (capability approval-policy).")
    history_provider: HistoryProviderSpec | None = Field(
        default=None,
        description="Keep the session's conversation in a history provider of the caller's that stores every message "
                    "verbatim, approval controls included (capability history-providers; needs session: true).")
    context_providers: list[ContextProviderSpec] | None = Field(
        default=None, min_length=1,
        description="Providers that add instructions or context messages to every model call of each turn "
                    "(capability context-providers), with a session or without one (the caller keeps the history "
                    "and its agent still runs the providers).")
    compaction: CompactionSpec | None = Field(
        default=None, description="Compact the history every model call receives to its most recent groups "
                                  "(capability compaction).")
    host: HostSpec | None = Field(
        default=None, description="The caller reaches the loop through a hosting server over HTTP, one request per "
                                  "turn continuing the previous response; the server keeps the transcript "
                                  "(capability hosting-server; needs session: true; inputs are text only).")
    not_observable: str | None = Field(
        default=None, min_length=20,
        description="Why the rows cannot be observed from outside the loop; such a scenario has no turns and is "
                    "reported n/a with this reason, so the row is never silently dropped.")
    turns: list[TurnSpec] = Field(default_factory=list[TurnSpec])

    @model_validator(mode="after")
    def _turns_or_reason(self) -> ScenarioSpec:
        if self.not_observable is None and not self.turns:
            raise ValueError("a scenario needs at least one turn (or 'not_observable' with the reason)")
        if self.not_observable is not None and self.turns:
            raise ValueError("a scenario marked 'not_observable' has no turns")
        return self

    @model_validator(mode="after")
    def _wire_needs_its_provider(self) -> ScenarioSpec:
        allowed = set(self.providers.only) if self.providers is not None else set[Dialect]()
        for number, turn in enumerate(self.turns, 1):
            for expect in turn.expect.wire or []:
                if expect.dialect == "neutral":
                    raise ValueError(f"turn {number}: a wire expectation names a provider's wire format, not "
                                     "'neutral'")
                if expect.dialect not in allowed:
                    raise ValueError(f"turn {number}: a wire expectation for {expect.dialect} needs "
                                     f"`providers: {{only: [{expect.dialect}], reason: ...}}`, so that it is never "
                                     "skipped silently on the other providers")
        return self
