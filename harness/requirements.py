"""What each check enforces: the spec sentence or row requirement behind every check id, and whose it is.

A check is either the scenario's own (`row`: it judges what the scenario's spec rows require, as the scenario states
it) or a universal invariant (`general`: a sentence of the spec's normative contract, judged on every run whatever
rows the scenario names). A general invariant may also be the very requirement of some rows (the call budget is the
requirement of "Maximum function calls"): for those rows its failure is the row's own. Reports read this table to
tell "the row's own requirement fails" apart from "a scenario of this row tripped a general invariant", so a known
failure of a general rule is never charged to a row whose own requirement holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from harness.results import EXPECT_CHECKS, HARNESS_CHECKS, INVARIANT_CHECKS, RUN_CHECKS

Scope = Literal["row", "general"]


@dataclass(frozen=True)
class Requirement:
    check: str
    scope: Scope
    source: str  # where the requirement is written: a spec section, or the scenario's rows
    text: str  # the sentence it enforces, in the spec's words where the spec has them
    rows: tuple[str, ...] = ()  # spec rows whose own requirement a general invariant also is

    def owned_by(self, row: str) -> bool:
        """Whether a failure of this check is a failure of `row`'s own requirement (for a scenario naming it)."""
        return self.scope == "row" or row in self.rows


_CONTRACT = "spec 004, Normative contract"

_GENERAL: tuple[Requirement, ...] = (
    Requirement("exactly-once", "general", f"{_CONTRACT} › Function calls and results",
                "Every actionable local function_call produces exactly one terminal function_result, unless "
                "execution pauses for a new user-input request.",
                ("Single non-streaming call", "String input", "Multiple sequential rounds", "Streaming call",
                 "Calls across response messages", "Parallel calls", "Duplicate function-call prevention",
                 "Multi-content result with reused id")),
    Requirement("no-orphans", "general", f"{_CONTRACT} › Function calls and results; History and continuation",
                "Every actionable local function_call produces exactly one terminal function_result; model-bound "
                "history contains one function call/result pair per completed logical occurrence.",
                ("Single non-streaming call", "String input", "Multiple sequential rounds", "Streaming call",
                 "Calls across response messages", "Result matching without placeholders", "Missing result call id",
                 "Pending history turn", "Compaction pair integrity")),
    Requirement("inputs-unmutated", "general", f"{_CONTRACT} › Approval request and resume",
                "The function invocation layer normalizes a private copy of caller messages. It must not mutate "
                "the caller's approval Message, approval Content, or an earlier returned response.",
                ("Approved non-streaming resume", "Rejected non-streaming resume")),
    Requirement("stream-agreement", "general", f"{_CONTRACT} › Approval request and resume",
                "Streaming yields the same logical result content and ordering as non-streaming output and "
                "ResponseStream.get_final_response().",
                ("Streaming call", "Approved streaming resume", "Rejected streaming resume")),
    Requirement("parallel-order", "general", f"{_CONTRACT} › Function calls and results",
                "Parallel calls retain model order in the returned transcript.",
                ("Parallel calls", "Results reordered with placeholders")),
    Requirement("reasoning-bound", "general", f"{_CONTRACT} › Reasoning-bound calls",
                "Framework-managed/stateless replay includes the service-required reasoning representation "
                "before the paired call.",
                ("Reasoning-bound call", "Stateless reasoning replay", "Opaque reasoning signature replay",
                 "Approval resume with reasoning")),
    Requirement("bounded", "general", "spec 004, rows Maximum iterations and Maximum function calls",
                "Once an iteration or function-call limit is reached, the loop makes one final model call with "
                "tools disabled, and no more.",
                ("Maximum iterations", "Maximum function calls", "Shared call budget",
                 "Approval re-entry after iteration budget")),
    Requirement("rejected-never-runs", "general", f"{_CONTRACT} › Approval request and resume",
                "A rejected tool executes zero times.",
                ("Rejected non-streaming resume", "Rejected streaming resume", "Rejected execution")),
    Requirement("approved-once", "general", f"{_CONTRACT} › Approval request and resume",
                "A tool that requires approval does not execute before an approved response. An approved tool "
                "executes exactly once.",
                ("Approved non-streaming resume", "Approved streaming resume", "Approved success")),
    Requirement("rejection-call-id", "general", f"{_CONTRACT} › Approval request and resume",
                "A rejected tool produces one synthetic rejection function_result using the original function "
                "call_id.",
                ("Rejection call id",)),
    Requirement("approval-inert", "general", f"{_CONTRACT} › Function calls and results",
                "A completed function call/result pair is inert on later turns.",
                ("Persisted approval replay", "Replayed approval wrapper", "Reused id after completion")),
    Requirement("no-approval-wrappers-to-model", "general", f"{_CONTRACT} › Approval control content; History "
                "and continuation",
                "function_approval_request and function_approval_response are control-plane contents, not durable "
                "model transcript items; append-only history must not replay stale approval wrappers to the model.",
                ("Append-only history replay", "Chat Completions approval wrappers")),
    Requirement("provider-accepts", "general", "the provider's API (harness requirement, not a spec sentence)",
                "Every request the loop's provider client sends is one the real service accepts."),
    Requirement("events-well-formed", "general", "the AG-UI protocol (harness requirement, not a spec sentence)",
                "One run start and one terminal event; every text message and tool call that starts ends, with "
                "its content and arguments between the two."),
    Requirement("result-events-once", "general", "spec 004, History and provider serialization",
                "An approved or executed call's result emits once (one TOOL_CALL_RESULT event); a rejected call "
                "emits none.",
                ("AG-UI approval result event",)),
    Requirement("snapshot-agrees", "general", "spec 004, History and provider serialization",
                "The approved result persists in the snapshot: the messages snapshot is what the run's events fold "
                "to, each result under the message id it streamed with.",
                ("AG-UI approval result event",)),
    Requirement("no-approval-controls-to-model", "general", "spec 004, Mixed batches and approval middleware",
                "Completed local approval controls from the request and from snapshot replay never reach the chat "
                "client.",
                ("AG-UI provider boundary",)),
)

_OWN = "the scenario's spec rows"
_EXPECTATIONS: Mapping[str, str] = {
    "expect.response": "the caller-visible response the row requires",
    "expect.executions": "which tools run, how often and with what arguments, as the row requires",
    "expect.rules-asked": "which calls the approval layer's rules are asked about, as the row requires",
    "expect.model-calls": "how many model calls the row allows",
    "expect.function-calls-counted": "how many function-call budget units the row says the run spends",
    "expect.requests": "what each model call receives, as the row requires",
    "expect.stream-order": "the order in which the row requires streamed contents to appear",
    "expect.error": "the error the row requires the caller to get",
    "expect.conversation-id": "the conversation id the row requires the response to carry",
    "expect.wire": "the request bodies the row requires a provider to receive",
    "expect.events": "the AG-UI events the row requires the run to emit",
}
_RUN: Mapping[str, str] = {
    "completes": "the row's scenario runs to its end: the loop neither crashes nor hangs",
    "script": "the loop makes exactly the model calls the row's scenario scripts, and no other",
    "baseline": "a known failure of the row's scenario is documented exactly: a fixed check leaves the baseline",
    "scenario-file": "the row's scenario file is well formed (a harness requirement)",
    "judging": "every check could judge the run (a harness requirement)",
}

REQUIREMENTS: Mapping[str, Requirement] = {
    **{r.check: r for r in _GENERAL},
    **{check: Requirement(check, "row", _OWN, text) for check, text in _EXPECTATIONS.items()},
    **{check: Requirement(check, "row", _OWN, text) for check, text in _RUN.items()},
}

# Every check a run can report; a test holds the table to them.
KNOWN_CHECKS: frozenset[str] = frozenset({*INVARIANT_CHECKS, *EXPECT_CHECKS, *RUN_CHECKS, *HARNESS_CHECKS, "baseline"})


def requirement(check: str) -> Requirement:
    """The requirement behind `check`; a check this release does not know (from a newer results file) is taken
    as the scenario's own, so it is never hidden as a general invariant."""
    return REQUIREMENTS.get(check) or Requirement(check, "row", _OWN, "(a check this release does not describe)")
