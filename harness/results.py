"""What a run produces: one `ScenarioResult` per scenario × implementation × mode × provider, each with its checks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

# `differs`: the run fails only assertions the implementation does not claim (a profile it does not claim, a
# `tentative` reading, or a design difference its own documentation states); it is shown, and never gates.
Verdict = Literal["pass", "fail", "error", "xfail", "differs", "n/a"]
VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "error", "xfail", "differs", "n/a")

# Which promise an assertion holds a loop to (see harness/profiles.py): `safety` binds every loop, `contract` the loops
# that claim spec 004's mechanisms, `tentative` is our reading where the spec is silent and never gates.
Profile = Literal["safety", "contract", "tentative"]
PROFILES: tuple[Profile, ...] = ("safety", "contract", "tentative")

# Stable check ids. Invariants run on every scenario; `expect.*` only where the scenario states them.
INVARIANT_CHECKS = (
    "exactly-once",
    "no-orphans",
    "inputs-unmutated",
    "stream-agreement",
    "parallel-order",
    "reasoning-bound",
    "bounded",
    "rejected-never-runs",
    "approved-once",
    "rejection-call-id",
    "approval-inert",
    "no-approval-wrappers-to-model",
    "provider-accepts",
    "events-well-formed",
    "result-events-once",
    "snapshot-agrees",
    "no-approval-controls-to-model",
)
# Invariants judged only on runs over a provider's wire format (a `Dialect` other than neutral): the runner reads
# them from the wire endpoint's record, so neutral runs never carry them.
WIRE_CHECKS = ("provider-accepts",)
# Invariants judged only on runs whose caller reached the loop over an event protocol (AG-UI): the runner reads
# them from the run's events (`CallerView.transport`), so other runs never carry them.
EVENT_CHECKS = ("events-well-formed", "result-events-once", "snapshot-agrees", "no-approval-controls-to-model")
# The provider of today's in-process runs; reports name a run's provider only when it is another.
NEUTRAL_PROVIDER = "neutral"
RUN_CHECKS = ("completes", "script")
# Reported only when the harness itself could not judge: a malformed scenario file, a check that crashed.
HARNESS_CHECKS = ("scenario-file", "judging")
EXPECT_CHECKS = (
    "expect.response",
    "expect.executions",
    "expect.rules-asked",
    "expect.model-calls",
    "expect.function-calls-counted",
    "expect.requests",
    "expect.stream-order",
    "expect.error",
    "expect.conversation-id",
    "expect.events",
    "expect.wire",
)


@dataclass(frozen=True)
class CheckResult:
    id: str
    verdict: Verdict
    message: str = ""
    turn: int | None = None  # 1-based
    expected: str | None = None
    actual: str | None = None
    diff: tuple[str, ...] = ()  # a unified diff of expected against actual
    details: tuple[str, ...] = ()  # every individual mismatch, one line each
    profile: Profile | None = None  # the assertion's profile; None only in results files older than profiles
    cites: tuple[str, ...] = ()  # the normative sources it enforces: citation ids (harness/citations.py)


@dataclass(frozen=True)
class ScenarioResult:
    scenario: str
    title: str
    spec_rows: tuple[str, ...]
    section: str
    implementation: str
    version: str
    mode: str
    verdict: Verdict
    # How the model was reached: a `harness.contract.Dialect`. Keyword-only, so it may sit beside `mode`.
    provider: str = field(default=NEUTRAL_PROVIDER, kw_only=True)
    # The package that carries the provider's client, numbered apart from `version` (agent-framework-openai beside
    # agent-framework-core), and its installed release ("" when not installed). Empty for neutral runs.
    provider_package: str = field(default="", kw_only=True)
    provider_version: str = field(default="", kw_only=True)
    checks: tuple[CheckResult, ...] = ()
    path: str = ""
    line: int = 0
    reason: str = ""  # why n/a, error or differs
    # The baseline entries that cover the run: `known:<key>` for a known failure, `design:<id>` for a documented
    # design difference (empty when none does).
    entries: tuple[str, ...] = ()
    # The profiles the implementation claims (`harness.contract.adapter_profiles`); a results file written before
    # profiles names none, and its runs are read as claiming both, as every check gated then.
    claims: tuple[str, ...] = ("safety", "contract")
    log: tuple[str, ...] = ()
    # How long the run took, in seconds (JUnit's `time`); 0 when unknown (a run stopped from outside, an old file).
    seconds: float = field(default=0.0, kw_only=True, compare=False)
    turn_lines: tuple[int, ...] = ()  # where each turn starts in the scenario file
    transcript: tuple[dict[str, Any], ...] = field(default=(), compare=False)

    def failed_checks(self) -> list[CheckResult]:
        return [c for c in self.checks if c.verdict == "fail"]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["spec_rows"] = list(self.spec_rows)
        data["checks"] = [
            {k: v for k, v in asdict(c).items() if v not in (None, (), "")} | {"id": c.id, "verdict": c.verdict,
                                                                              "message": c.message}
            for c in self.checks
        ]
        data.pop("transcript")
        if not self.seconds:
            data.pop("seconds")
        if not self.provider_package:  # neutral runs' files read as before provider packages were recorded
            data.pop("provider_package")
            data.pop("provider_version")
        return data


def with_provider(parts: Sequence[str], provider: str) -> list[str]:
    """`parts` naming a run (implementation, version, mode), with its provider last unless it is neutral: every
    label of a run or a column says the provider this way, so neutral runs read as before providers existed."""
    return [*parts, *([] if provider == NEUTRAL_PROVIDER else [provider])]


def overall(checks: list[CheckResult]) -> Verdict:
    if any(c.verdict == "error" for c in checks):
        return "error"
    if any(c.verdict == "fail" for c in checks):
        return "fail"
    return "pass"
