"""What happened in one scenario run, turn by turn: the raw material every check reads. Part of the value model."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.contents import FunctionCall, Message, Text
from harness.contract import CallerView, Dialect, LoopConfig, Mode, ResponseShape
from harness.script import Exchange, ModelRequest, ModelStep, RuleAsked, ScriptViolation, ToolExecution, ToolSpec


@dataclass(frozen=True)
class TurnRecord:
    index: int
    caller_input: str | tuple[Message, ...]
    earlier_responses: tuple[tuple[Message, ...], ...]
    view: CallerView
    requests: tuple[ModelRequest, ...]
    executions: tuple[ToolExecution, ...]
    served: tuple[ModelStep, ...]
    unused: tuple[ModelStep, ...]
    violations: tuple[ScriptViolation, ...]
    crash: str | None = None  # the loop raised out of run_turn, or hung
    replays_history: bool = False  # the caller's input began with the conversation so far
    ran_before_requests: tuple[int, ...] = ()  # per model request of the turn: tool executions of the turn before it
    rules_asked: tuple[RuleAsked, ...] = ()  # what the conversation's auto-approval rules were asked, in order
    exchanges: tuple[Exchange, ...] = ()  # over a wire provider: every HTTP request of the turn, refused ones too

    def input_messages(self) -> tuple[Message, ...]:
        if isinstance(self.caller_input, str):
            return (Message("user", (Text(self.caller_input),)),)
        return self.caller_input

    def response_messages(self) -> tuple[Message, ...]:
        return self.view.response.messages if self.view.response is not None else ()

    def served_calls(self) -> list[FunctionCall]:
        return [c for step in self.served for m in step.response.messages for c in m.contents
                if isinstance(c, FunctionCall)]


@dataclass(frozen=True)
class RunSubject:
    """What the checks need to know of the scenario a run played: its id, settings and tools."""

    scenario_id: str
    config: LoopConfig
    tools: tuple[ToolSpec, ...]
    session: bool = False
    approval_policy: bool = False  # the conversation runs behind an approval layer


@dataclass
class RunRecord:
    scenario: RunSubject
    implementation: str
    mode: Mode
    turns: list[TurnRecord] = field(default_factory=lambda: [])
    input_problem: str | None = None  # a turn's input could not be built from what earlier turns returned
    close_problem: str | None = None  # close() hung or raised
    shadow: RunRecord | None = None  # the non-streaming run a streaming run is compared with
    dialect: Dialect = "neutral"  # how the model was reached
    response_shape: ResponseShape = "messages"  # what the loop can represent of a model response (the adapter's)
