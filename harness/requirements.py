"""What each check enforces: the spec sentence or row requirement behind every check id, and whose it is.

A check is either the scenario's own (`row`: it judges what the scenario's spec rows require, as the scenario states
it) or a universal invariant (`general`: a sentence of the spec's normative contract, judged on every run whatever
rows the scenario names). A general invariant may also be the very requirement of some rows (the call budget is the
requirement of "Maximum function calls"): for those rows its failure is the row's own. Reports read this table to
tell "the row's own requirement fails" apart from "a scenario of this row tripped a general invariant", so a known
failure of a general rule is never charged to a row whose own requirement holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Literal

from harness.citations import sentence
from harness.results import EXPECT_CHECKS, HARNESS_CHECKS, INVARIANT_CHECKS, RUN_CHECKS, CheckResult, Profile

Scope = Literal["row", "general"]


@dataclass(frozen=True)
class Requirement:
    check: str
    scope: Scope
    source: str  # where the requirement is written: a spec section, or the scenario's rows
    text: str  # the sentence it enforces, in the spec's words where the spec has them
    rows: tuple[str, ...] = ()  # spec rows whose own requirement a general invariant also is
    # The profile of the check's failures (a check function may give one failure another, where one check judges
    # two promises: a call run twice is `safety`, a result missing for one run is `contract`), and the citation ids
    # of the sentences it enforces (harness/citations.py). A scenario expectation's own come from the scenario.
    profile: Profile = "contract"
    cites: tuple[str, ...] = ()

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
                 "Multi-content result with reused id"),
                profile="safety", cites=(
                    sentence("Function calls and results", "Every actionable local function_call"),)),
    Requirement("no-orphans", "general", f"{_CONTRACT} › Function calls and results; History and continuation",
                "Every actionable local function_call produces exactly one terminal function_result; model-bound "
                "history contains one function call/result pair per completed logical occurrence.",
                ("Single non-streaming call", "String input", "Multiple sequential rounds", "Streaming call",
                 "Calls across response messages", "Result matching without placeholders", "Missing result call id",
                 "Pending history turn", "Compaction pair integrity"),
                profile="safety", cites=(
                    sentence("Function calls and results", "Every actionable local function_call"),
                    sentence("History and continuation", "Model-bound history contains one"),)),
    Requirement("inputs-unmutated", "general", f"{_CONTRACT} › Approval request and resume",
                "The function invocation layer normalizes a private copy of caller messages. It must not mutate "
                "the caller's approval Message, approval Content, or an earlier returned response.",
                ("Approved non-streaming resume", "Rejected non-streaming resume"),
                profile="safety", cites=(
                    sentence("Approval request and resume", "The function invocation layer normalizes"),
                    sentence("Approval request and resume", "It must not mutate"),)),
    Requirement("stream-agreement", "general", f"{_CONTRACT} › Approval request and resume",
                "Streaming yields the same logical result content and ordering as non-streaming output and "
                "ResponseStream.get_final_response().",
                ("Streaming call", "Approved streaming resume", "Rejected streaming resume"),
                profile="safety", cites=(
                    sentence("Approval request and resume", "Streaming yields the same logical"),)),
    Requirement("parallel-order", "general", f"{_CONTRACT} › Function calls and results",
                "Parallel calls retain model order in the returned transcript.",
                ("Parallel calls", "Results reordered with placeholders"),
                profile="contract", cites=(
                    sentence("Function calls and results", "Parallel calls retain model order"),)),
    Requirement("reasoning-bound", "general", f"{_CONTRACT} › Reasoning-bound calls",
                "Framework-managed/stateless replay includes the service-required reasoning representation "
                "before the paired call.",
                ("Reasoning-bound call", "Stateless reasoning replay", "Opaque reasoning signature replay",
                 "Approval resume with reasoning"),
                profile="contract", cites=(
                    sentence("Reasoning-bound calls", "Framework-managed/stateless replay includes"),)),
    Requirement("bounded", "general", "spec 004, rows Maximum iterations and Maximum function calls",
                "Once an iteration or function-call limit is reached, the loop makes one final model call with "
                "tools disabled, and no more.",
                ("Maximum iterations", "Maximum function calls", "Shared call budget",
                 "Approval re-entry after iteration budget"),
                profile="safety", cites=("row:Maximum iterations", "row:Maximum function calls",)),
    Requirement("rejected-never-runs", "general", f"{_CONTRACT} › Approval request and resume",
                "A rejected tool executes zero times.",
                ("Rejected non-streaming resume", "Rejected streaming resume", "Rejected execution"),
                profile="safety", cites=(sentence("Approval request and resume", "A rejected tool executes zero"),)),
    Requirement("approved-once", "general", f"{_CONTRACT} › Approval request and resume",
                "A tool that requires approval does not execute before an approved response. An approved tool "
                "executes exactly once.",
                ("Approved non-streaming resume", "Approved streaming resume", "Approved success"),
                profile="safety", cites=(
                    sentence("Approval request and resume", "A tool that requires approval"),
                    sentence("Approval request and resume", "An approved tool executes exactly"),)),
    Requirement("rejection-call-id", "general", f"{_CONTRACT} › Approval request and resume",
                "A rejected tool produces one synthetic rejection function_result using the original function "
                "call_id.",
                ("Rejection call id",),
                profile="contract", cites=(sentence("Approval request and resume", "A rejected tool executes zero"),)),
    Requirement("approval-inert", "general", f"{_CONTRACT} › Function calls and results",
                "A completed function call/result pair is inert on later turns.",
                ("Persisted approval replay", "Replayed approval wrapper", "Reused id after completion"),
                profile="safety", cites=(
                    sentence("Function calls and results", "A completed function call/result pair"),)),
    Requirement("no-approval-wrappers-to-model", "general", f"{_CONTRACT} › Approval control content; History "
                "and continuation",
                "function_approval_request and function_approval_response are control-plane contents, not durable "
                "model transcript items; append-only history must not replay stale approval wrappers to the model.",
                ("Append-only history replay", "Chat Completions approval wrappers"),
                profile="contract", cites=(
                    sentence("Approval control content", "function_approval_request and function_approval_response"),
                    sentence("History and continuation", "Append-only history must not"),)),
    Requirement("provider-accepts", "general", "the provider's API (harness requirement, not a spec sentence)",
                "Every request the loop's provider client sends is one the real service accepts.",
                profile="safety", cites=("external:provider-api/accepts-request",)),
    Requirement("events-well-formed", "general", "the AG-UI protocol (harness requirement, not a spec sentence)",
                "One run start and one terminal event; every text message and tool call that starts ends, with "
                "its content and arguments between the two.",
                profile="contract", cites=("external:ag-ui/event-lifecycle",)),
    Requirement("result-events-once", "general", "spec 004, History and provider serialization",
                "An approved or executed call's result emits once (one TOOL_CALL_RESULT event); a rejected call "
                "emits none.",
                ("AG-UI approval result event",),
                profile="contract", cites=("row:AG-UI approval result event", "row:AG-UI rejection/mixed decision",)),
    Requirement("snapshot-agrees", "general", "spec 004, History and provider serialization",
                "The approved result persists in the snapshot: the messages snapshot is what the run's events fold "
                "to, each result under the message id it streamed with.",
                ("AG-UI approval result event",),
                profile="contract", cites=("row:AG-UI approval result event",)),
    Requirement("no-approval-controls-to-model", "general", "spec 004, Mixed batches and approval middleware",
                "Completed local approval controls from the request and from snapshot replay never reach the chat "
                "client.",
                ("AG-UI provider boundary",),
                profile="contract", cites=(sentence("Approval control content", "AG-UI removes a local approval"),)),
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

# A run that crashes or hangs has no answer at all: the loop's limits promise that it ends.
_RUN_PROFILES: Mapping[str, tuple[Profile, tuple[str, ...]]] = {
    "completes": ("safety", ("row:Maximum iterations",)),
}

REQUIREMENTS: Mapping[str, Requirement] = {
    **{r.check: r for r in _GENERAL},
    **{check: Requirement(check, "row", _OWN, text) for check, text in _EXPECTATIONS.items()},
    **{check: Requirement(check, "row", _OWN, text, profile=_RUN_PROFILES.get(check, ("contract", ()))[0],
                          cites=_RUN_PROFILES.get(check, ("contract", ()))[1])
       for check, text in _RUN.items()},
}

# Every check a run can report; a test holds the table to them.
KNOWN_CHECKS: frozenset[str] = frozenset({*INVARIANT_CHECKS, *EXPECT_CHECKS, *RUN_CHECKS, *HARNESS_CHECKS, "baseline"})


def requirement(check: str) -> Requirement:
    """The requirement behind `check`; a check this release does not know (from a newer results file) is taken
    as the scenario's own, so it is never hidden as a general invariant."""
    return REQUIREMENTS.get(check) or Requirement(check, "row", _OWN, "(a check this release does not describe)")


def profile_of(check: CheckResult) -> Profile:
    """The profile a reported check belongs to: its own when the run recorded one, else its requirement's.

    Results files written before profiles name none; of the checks that judge two promises, `bounded` is told apart
    by its message there, as it was worded then (a final call that still offered tools is spec 004's mechanism).
    """
    if check.profile is not None:
        return check.profile
    if check.id == "bounded" and "tool_choice=" in check.message:
        return "contract"
    if check.id == "approved-once" and check.message.endswith("but never executed"):
        return "contract"
    if check.id == "exactly-once" and "but the response holds" in check.message:
        return "contract"  # worded so before results and executions were told apart
    if check.id == "approval-inert" and "new result(s) for it" in check.message:
        return "contract"
    if check.id == "stream-agreement" and check.expected and check.actual and (
            Counter(check.expected.splitlines()) == Counter(check.actual.splitlines())):
        return "contract"  # the same contents in another order, as `check_stream_agreement` now says itself
    return requirement(check.id).profile


def gates(check: CheckResult, claims: Collection[str]) -> bool:
    """Whether a failure of `check` fails a run judged by the profiles `claims`: safety always, contract when
    claimed, tentative only when asked for (`run --profile tentative`; no implementation claims it)."""
    profile = profile_of(check)
    return profile == "safety" or profile in claims
