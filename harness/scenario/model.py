"""A loaded scenario: the validated file plus the runtime scripts built from it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.contents import (
    JSON,
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Response,
    Role,
    Text,
    Update,
    Usage,
    UserInputRequest,
    fold_updates,
    merge_contents,
)
from harness.contract import SETTING_CAPABILITIES, Capability, ContextSource, LoopConfig, Mode
from harness.scenario.schema import (
    BehaviourSpec,
    ContentSpec,
    FunctionCallSpec,
    ModelStepSpec,
    ReasoningSpec,
    ScenarioSpec,
    ToolSpecModel,
    TurnSpec,
)
from harness.script import ApprovalRuleSpec, ModelStep, ToolBehaviour, ToolParameter, ToolSpec
from harness.signatures import json_schema
from harness.transcript import messages_form


@dataclass(frozen=True)
class Turn:
    index: int
    spec: TurnSpec
    steps: tuple[ModelStep, ...]
    line: int


@dataclass(frozen=True)
class Scenario:
    """A scenario ready to run: its metadata, tool specs, config and one model script per turn."""

    spec: ScenarioSpec
    path: Path
    line: int
    tools: tuple[ToolSpec, ...]
    config: LoopConfig
    turns: tuple[Turn, ...]
    calls: dict[str, FunctionCall]  # scripted calls by call id and by label
    labels: dict[str, tuple[str, int]]  # label -> (call id, occurrence of that call id, from 1)

    @property
    def context(self) -> tuple[ContextSource, ...]:
        return tuple(
            ContextSource(p.id, p.instructions,
                          tuple(Message(m.role, tuple(build_content(c, {}) for c in m.contents)) for m in p.messages),
                          tuple(p.tools))
            for p in self.spec.context_providers or [])

    @property
    def approval_rules(self) -> tuple[ApprovalRuleSpec, ...]:
        policy = self.spec.approval_policy
        rules = policy.auto_approve if policy is not None else []
        return tuple(ApprovalRuleSpec(r.id, r.tool, r.arguments, r.server) for r in rules)

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def section(self) -> str:
        """The folder under scenarios/ that groups this scenario, e.g. ``normal``."""
        return self.path.parent.name

    def needs(self) -> tuple[Capability, ...]:
        """The capabilities the scenario requires: those it names, and one per loop setting it changes."""
        defaults = LoopConfig()
        settings: list[Capability] = [capability for name, capability in SETTING_CAPABILITIES
                                      if getattr(self.config, name) != getattr(defaults, name)]
        needed: list[Capability] = [*self.spec.requires, *settings]
        return tuple(dict.fromkeys(needed))

    def writes_approval_requests(self) -> bool:
        """Whether the caller writes an approval request into its own input on some turn (not one a response
        carried: a hand-written history)."""
        return any(item.message is not None and any(c.approval_request is not None for c in item.message.contents)
                   for turn in self.spec.turns if not isinstance(turn.input, str) for item in turn.input)

    def modes(self) -> tuple[Mode, ...]:
        if self.spec.modes is not None:
            return (self.spec.modes.only,)
        return ("non-streaming", "streaming")


def build_tool(model: ToolSpecModel) -> ToolSpec:
    if model.behaviour:
        behaviours = tuple(_behaviour(b) for b in model.behaviour)
    else:
        behaviours = (ToolBehaviour("return", model.returns),)
    signature = tuple(ToolParameter(p.name, p.type, p.default, "default" in p.model_fields_set)
                      for p in model.signature) if model.signature is not None else None
    parameters: dict[str, Any] = model.parameters if model.parameters is not None else (
        json_schema(signature) if signature is not None else {"type": "object", "properties": {}})
    return ToolSpec(
        model.name,
        model.description,
        parameters,
        behaviours,
        approval_required=model.approval == "required",
        declaration_only=model.declaration_only,
        offered=model.offered,
        signature=signature,
    )


def _behaviour(spec: BehaviourSpec) -> ToolBehaviour:
    terminate, add_tools, delay = spec.terminate, tuple(spec.add_tools), spec.delay
    if spec.raise_ is not None:
        return ToolBehaviour("raise", spec.raise_, terminate, add_tools, delay, spec.exception)
    if spec.request_input is not None:
        return ToolBehaviour("request_input", spec.request_input, terminate, add_tools, delay)
    if spec.return_parts is not None:
        return ToolBehaviour("return_parts", list[JSON](spec.return_parts), terminate, add_tools, delay)
    return ToolBehaviour("return", spec.return_, terminate, add_tools, delay)


def build_call(spec: FunctionCallSpec) -> FunctionCall:
    arguments: Any = spec.arguments
    if spec.stream_chunks is not None and not arguments:
        arguments = json.loads("".join(spec.stream_chunks) or "{}")
    return FunctionCall(str(spec.call_id), str(spec.name), arguments, spec.informational_only, spec.server_label,
                        item_id=spec.item_id)


def build_content(spec: ContentSpec, calls: dict[str, FunctionCall]) -> Content:
    """Turn a scripted content into the neutral one; `calls` resolves approval wrappers by call id or label."""
    kind = spec.kind()
    if kind == "text":
        return Text(str(spec.text))
    if kind == "reasoning":
        reasoning = spec.reasoning
        if isinstance(reasoning, ReasoningSpec):
            return Reasoning(reasoning.text, reasoning.signature, reasoning.id, reasoning.kind, reasoning.data)
        return Reasoning(str(reasoning))
    if kind == "function_call":
        assert spec.function_call is not None
        return build_call(spec.function_call)
    if kind == "function_result":
        assert spec.function_result is not None
        r = spec.function_result
        return FunctionResult(str(r.call_id), r.result, bool(r.error))
    if kind == "approval_request":
        assert spec.approval_request is not None
        a = spec.approval_request
        call = build_call(a.function_call) if a.function_call else calls[str(a.label or a.call_id)]
        return ApprovalRequest(str(a.id or f"approval-{call.call_id}"), call)
    if kind == "approval_response":
        assert spec.approval_response is not None
        a = spec.approval_response
        call = build_call(a.function_call) if a.function_call else calls[str(a.label or a.call_id)]
        return ApprovalResponse(str(a.id or f"approval-{call.call_id}"), bool(a.approved), call, a.standing)
    if kind == "user_input_request":
        assert spec.user_input_request is not None
        u = spec.user_input_request
        call = calls.get(str(u.call_id)) if u.call_id is not None else None
        return UserInputRequest(str(u.id or f"input-{u.call_id}"), call, u.payload)
    assert spec.usage is not None
    return Usage(spec.usage.input_tokens, spec.usage.output_tokens)


def build_step(spec: ModelStepSpec, turn: int, number: int, calls: dict[str, FunctionCall], line: int) -> ModelStep:
    """One scripted response, with its streaming chunks: one update per content unless arguments are split."""
    if spec.raises is not None:
        return ModelStep(Response(()), (), raises=spec.raises, fault=spec.fault, optional=spec.optional,
                         source_line=line)
    if spec.messages is not None:
        message_specs: list[tuple[Role, list[ContentSpec]]] = [(m.role, m.contents) for m in spec.messages]
    else:
        message_specs = [("assistant", spec.contents or [])]
    messages: list[Message] = []
    updates: list[Update] = []
    for position, (role, contents) in enumerate(message_specs):
        message_id = f"t{turn + 1}-m{number}-{position + 1}"
        built = tuple(build_content(content, calls) for content in contents)
        messages.append(Message(role, built))
        for content_spec, content in zip(contents, built, strict=True):
            updates.extend(_chunks(content_spec, content, role, message_id))
        for content_spec, content in zip(contents, built, strict=True):
            if isinstance(content, FunctionCall):
                calls[content.call_id] = content
                label = content_spec.function_call.label if content_spec.function_call else None
                if label:
                    calls[label] = content
    finish = spec.finish_reason or _default_finish(messages)
    if spec.stream is not None:
        message_id = f"t{turn + 1}-m{number}-1"
        updates = [Update("assistant", tuple(stream_fragment(c, calls) for c in update), message_id)
                   for update in spec.stream]
    if updates:
        last = updates[-1]
        # The response's metadata travels on its last chunk, as a service's completion event carries it.
        updates[-1] = Update(last.role, last.contents, last.message_id, finish, spec.conversation_id)
    elif spec.conversation_id is not None:
        updates.append(Update("assistant", (), f"t{turn + 1}-m{number}-1", finish, spec.conversation_id))
    return ModelStep(
        Response(tuple(messages), finish, spec.conversation_id),
        tuple(updates),
        ignores_tool_choice=spec.ignores_tool_choice,
        optional=spec.optional,
        source_line=line,
    )


def stream_fragment(spec: ContentSpec, calls: dict[str, FunctionCall]) -> Content:
    """One content of a scripted update: a call fragment keeps only the fields it names (the others empty), and
    its arguments as written: text is a fragment of their JSON, a mapping arrives as a mapping."""
    call = spec.function_call
    if call is None:
        return build_content(spec, calls)
    as_mapping = mapping_fragment(call)
    arguments: Any = dict(call.arguments) if as_mapping else (call.arguments if isinstance(call.arguments, str) else "")
    return FunctionCall("" if call.call_id is None else str(call.call_id), "" if call.name is None else str(call.name),
                        arguments, call.informational_only, call.server_label, item_id=call.item_id,
                        arguments_as_mapping=as_mapping)


def mapping_fragment(call: FunctionCallSpec) -> bool:
    """Whether a streamed call fragment gives its arguments as a mapping (not given: no arguments, as text)."""
    return "arguments" in call.model_fields_set and isinstance(call.arguments, dict)


@dataclass
class _StreamedCall:
    """The call a step's stream is building, as `mapping_fragment_problems` follows it."""

    call_id: str
    named: bool
    arguments: str  # "" (none yet), "text" or "mapping": the form its arguments arrived in


def mapping_fragment_problems(spec: ModelStepSpec) -> list[tuple[int, int, str]]:
    """Where a step's `stream` gives one call's arguments both as a mapping and otherwise (text, or a second
    mapping), as (update, content, why): a mapping is a call's whole arguments, so it joins nothing the fold could
    make sense of. Continuation follows `merge_contents`: the same id or none, and no second name."""
    problems: list[tuple[int, int, str]] = []
    current: _StreamedCall | None = None
    for u, update in enumerate(spec.stream or []):
        for k, content in enumerate(update):
            call = content.function_call
            if call is None:
                current = None  # another content between two fragments: they no longer join
                continue
            call_id = "" if call.call_id is None else str(call.call_id)
            form = "mapping" if mapping_fragment(call) else ("text" if isinstance(call.arguments, str)
                                                             and call.arguments else "")
            continues = (current is not None and (call_id in ("", current.call_id) or not current.call_id)
                         and not (call.name and current.named))
            if current is None or not continues:
                current = _StreamedCall(call_id, bool(call.name), form)
                continue
            if "mapping" in (form, current.arguments) and form and current.arguments:
                what = "as a mapping" if current.arguments == "mapping" else "as text"
                problems.append((u, k, f"this fragment continues call '{current.call_id or call_id}', whose "
                                       f"arguments already arrived {what}: a mapping is a call's whole arguments "
                                       "and joins no other arguments of its call"))
            current = _StreamedCall(current.call_id or call_id, current.named or bool(call.name),
                                    current.arguments or form)
    return problems


def stream_problem(spec: ModelStepSpec) -> str | None:
    """Why a step's scripted `stream` does not add up to its `contents`, if it does not."""
    if spec.stream is None or spec.contents is None:
        return None
    calls = {str(c.function_call.call_id): build_call(c.function_call) for c in spec.contents
             if c.function_call is not None}
    try:
        whole = merge_contents(tuple(build_content(c, calls) for c in spec.contents))
        updates = [Update("assistant", tuple(stream_fragment(c, calls) for c in u), "m") for u in spec.stream]
    except KeyError:
        return None  # a wrapper naming an earlier turn's call: resolved, and checked, elsewhere
    folded = fold_updates(updates).messages
    streamed = folded[0].contents if folded else ()
    if streamed == whole:
        return None
    return (f"the updates add up to {json.dumps(messages_form([Message('assistant', streamed)])[0]['contents'])}, "
            f"not to 'contents' {json.dumps(messages_form([Message('assistant', whole)])[0]['contents'])}")


def _chunks(spec: ContentSpec, content: Content, role: Role, message_id: str) -> list[Update]:
    call = spec.function_call
    if isinstance(content, FunctionCall) and call is not None and call.stream_chunks:
        return [
            Update(
                role,
                (FunctionCall(content.call_id, content.name if i == 0 else "", chunk,
                              content.informational_only, content.server_label, item_id=content.item_id),),
                message_id,
            )
            for i, chunk in enumerate(call.stream_chunks)
        ]
    return [Update(role, (content,), message_id)]


def _default_finish(messages: Sequence[Message]) -> str:
    calls = any(isinstance(c, FunctionCall) for m in messages for c in m.contents)
    return "tool_calls" if calls else "stop"
