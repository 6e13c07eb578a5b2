"""The CI gate: a results file against a per-check baseline, failing on anything new and on anything fixed.

A baseline entry names one check of one scenario on one implementation and mode, optionally for a release range
and a provider, with the reason it fails. The gate fails when

* a check fails that no entry covers — a regression, or a new scenario that does not pass; and
* an entry's check now passes in a run it covers — the ratchet: fixed defects must leave the baseline, so the
  baseline only ever shrinks and cannot hide a later regression of the same check. An entry that names no
  provider covers every provider's runs of a release and mode together: it is stale there only when the check
  passes over every provider, since a loop's own defect may show over one wire and not another. An
  ``intermittent`` entry (a defect that shows on some runs only) is exempt: a run that passes its check says
  nothing of a fix.

Checks the run already reported as ``xfail`` (it applied a baseline itself) count as failing checks here: the gate
judges against its own baseline, not against the run's.

Baseline file (YAML, loaded safely and bounded like a scenario, unknown keys are errors)::

    check_failures:                      # the per-check format
      - scenario: normal.string-input
        check: expect.requests
        implementation: agent_framework
        mode: non-streaming              # streaming | non-streaming
        provider: openai-chat            # optional, one provider (a Dialect); absent: every provider
        versions_from: 1.10.0            # optional, first affected release (inclusive)
        versions_until: 1.13.0           # optional, first fixed release (exclusive)
        reason: The bare string is forwarded to the model unconverted, so ...
        reproduction: repro/agent_framework/string_input.py   # optional
        intermittent: false              # optional; true: fails on some runs only, a pass is not stale
    known_failures:                      # the per-scenario format of harness.reporting.baseline, also accepted
      - {scenario, implementation, checks: [...], modes: [...], providers: [...], versions_from, versions_until,
         reason, reproduction}

Each ``known_failures`` entry expands to one per-check entry per check id, mode and provider, so the existing
``baselines/known-failures.yaml`` serves both ``run --baseline`` and the gate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from harness.contract import Dialect
from harness.data_files import load_yaml_model
from harness.reporting.baseline import BaselineError, KnownFailure, in_release_range, release_key
from harness.reporting.coverage import provider_key
from harness.reporting.design import apply_profiles
from harness.reporting.documents import ResultsDocument, as_document
from harness.results import NEUTRAL_PROVIDER, ScenarioResult, Verdict, overall

# Verdicts of a check that make it a failing check for the gate. `xfail` is included because a run that applied
# a baseline marks failing checks xfail, and the gate must still see them to match them to its own entries.
FAILING: frozenset[Verdict] = frozenset({"fail", "error", "xfail"})

# `apply_baseline` appends this check to a run whose known failure passes. The gate does its own staleness
# check per check, so this marker would only report the same fact again as a "new failure".
_STALE_MARKER = "baseline"

# Stands for the run as a whole when a failing run names no failing check.
SCENARIO_CHECK = "(scenario)"


class CheckBaselineEntry(BaseModel):
    """One known failing check."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scenario: str = Field(min_length=1)
    check: str = Field(min_length=1, description="Check id, e.g. expect.response or no-orphans.")
    implementation: str = Field(min_length=1)
    mode: Literal["streaming", "non-streaming"]
    provider: Dialect | None = Field(default=None, description="The provider whose runs it covers; absent: every "
                                                               "provider's, judged together.")
    versions_from: str | None = Field(default=None, description="First affected release (inclusive).")
    versions_until: str | None = Field(default=None, description="First fixed release (exclusive).")
    reason: str = Field(min_length=20, description="Why it fails, in the spec's words.")
    reproduction: str | None = Field(default=None, description="Path of a standalone reproduction.")
    intermittent: bool = Field(default=False, description="Fails on some runs only; a pass is not stale.")

    @model_validator(mode="after")
    def _range_is_not_empty(self) -> Self:
        if self.versions_from and self.versions_until and \
                release_key(self.versions_from) >= release_key(self.versions_until):
            raise ValueError(f"empty release range: {self.versions_from} ≥ {self.versions_until}")
        return self

    def covers(self, scenario: str, implementation: str, mode: str, version: str,
               provider: str = NEUTRAL_PROVIDER) -> bool:
        return (scenario == self.scenario and implementation == self.implementation and mode == self.mode
                and (self.provider is None or provider == self.provider)
                and in_release_range(version, self.versions_from, self.versions_until))

    def describe(self) -> str:
        over = f" {self.provider}" if self.provider not in (None, NEUTRAL_PROVIDER) else ""
        return (f"{self.scenario} · {self.check} · {self.implementation} {self.mode}{over}"
                f"{_range_text(self.versions_from, self.versions_until)}")


class GateBaseline(BaseModel):
    """A baseline file: per-check entries, per-scenario known failures, or both."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check_failures: list[CheckBaselineEntry] = Field(default_factory=list[CheckBaselineEntry])
    known_failures: list[KnownFailure] = Field(default_factory=list[KnownFailure])

    def entries(self) -> list[CheckBaselineEntry]:
        return [*self.check_failures, *expand(self.known_failures)]


def expand(known_failures: Iterable[KnownFailure]) -> list[CheckBaselineEntry]:
    """Per-scenario known failures as per-check entries: one per check id, mode and named provider (one for every
    provider when it names none), range and reason kept."""
    return [
        CheckBaselineEntry(scenario=kf.scenario, check=check, implementation=implementation, mode=mode,
                           provider=provider, versions_from=kf.versions_from, versions_until=kf.versions_until,
                           reason=" ".join(kf.reason.split()), reproduction=kf.reproduction,
                           intermittent=kf.intermittent)
        for kf in known_failures for implementation in kf.implementations for mode in kf.modes
        for provider in (kf.providers or [None]) for check in kf.checks
    ]


def load_gate_baseline(path: Path) -> list[CheckBaselineEntry]:
    """Every per-check entry of the baseline file at `path`, read bounded (`harness.data_files`)."""
    baseline = load_yaml_model(path, GateBaseline, BaselineError, "a baseline file")
    try:
        return baseline.entries()
    except ValidationError as error:  # a known failure that expands to an invalid per-check entry
        raise BaselineError(f"{path}: error[invalid-value]: {error.errors()[0]['msg']}") from None


@dataclass(frozen=True)
class FailingCheck:
    scenario: str
    check: str
    implementation: str
    version: str
    mode: str
    verdict: Verdict
    message: str
    provider: str = NEUTRAL_PROVIDER

    def describe(self) -> str:
        message = " ".join(self.message.split())
        over = "" if self.provider == NEUTRAL_PROVIDER else f" {self.provider}"
        return (f"{self.scenario} · {self.check} · {self.implementation} {self.version} {self.mode}{over} "
                f"[{self.verdict}]" + (f": {message}" if message else ""))


@dataclass(frozen=True)
class StaleEntry:
    entry: CheckBaselineEntry
    passing_in: tuple[str, ...]  # "version mode" (and provider) of every covered run in which the check passed


@dataclass(frozen=True)
class GateOutcome:
    new_failures: tuple[FailingCheck, ...]
    stale_entries: tuple[StaleEntry, ...]
    known: tuple[FailingCheck, ...]  # failing checks the baseline covers
    unexercised: tuple[CheckBaselineEntry, ...]  # entries no run of these results could judge
    filtered: bool
    differs: int = 0  # runs that fail only what their implementation does not claim (never fail the gate)

    @property
    def passed(self) -> bool:
        return not self.new_failures and not self.stale_entries

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    def render(self) -> str:
        """Every number with its meaning beside it: what fails the gate first, then what the baseline accounts for."""
        new, stale, known = len(self.new_failures), len(self.stale_entries), len(self.known)
        if self.passed:
            head = "Gate passed: every failing check is in the baseline, and no baseline entry now passes."
        else:
            head = (f"Gate FAILED: {_count(new, 'failing check is', 'failing checks are')} not in the baseline, "
                    f"{_count(stale, 'baseline entry now passes', 'baseline entries now pass')}.")
        lines = [head, ""]
        if self.filtered:
            lines += ["Filtered run: baseline entries outside the selection were not judged.", ""]
        if new:
            lines.append(f"{_count(new, 'failing check is', 'failing checks are')} not in the baseline "
                         f"({_count(new, 'regression', 'regressions')}: fix, or add a baseline entry with the "
                         "reason):")
            lines += [f"  - {f.describe()}" for f in self.new_failures]
        else:
            lines.append("0 failing checks are outside the baseline (no regression).")
        if stale:
            lines.append(f"{_count(stale, 'baseline entry now passes', 'baseline entries now pass')} "
                         "(fixed: remove from the baseline):")
            lines += [f"  - {s.entry.describe()}: passes on {', '.join(s.passing_in)}" for s in self.stale_entries]
        else:
            lines.append("0 baseline entries now pass (nothing to remove).")
        lines.append(f"{_count(known, 'failing check is', 'failing checks are')} in the baseline "
                     "(expected failures: they do not fail the gate).")
        if self.differs:
            lines.append(f"{_count(self.differs, 'run differs', 'runs differ')} (they fail only what their "
                         "implementation does not claim: shown, never failing the gate).")
        if self.unexercised:
            lines.append(f"{_count(len(self.unexercised), 'baseline entry was', 'baseline entries were')} not "
                         "judged (no run in these results reached the check: another implementation, mode, "
                         "provider or release, or an n/a run).")
        return "\n".join(lines) + "\n"


def _count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"


def gate(results_document: ResultsDocument | Mapping[str, Any],
         baseline_entries: Sequence[CheckBaselineEntry | KnownFailure]) -> GateOutcome:
    document = as_document(results_document)
    document = replace(document, results=tuple(_judged_now(r) for r in document.results))
    entries = [e for e in baseline_entries if isinstance(e, CheckBaselineEntry)]
    entries += expand(e for e in baseline_entries if isinstance(e, KnownFailure))

    new: list[FailingCheck] = []
    known: list[FailingCheck] = []
    for failing in _failing_checks(document.results):
        covered = any(e.check == failing.check and e.covers(failing.scenario, failing.implementation,
                                                            failing.mode, failing.version, failing.provider)
                      for e in entries)
        (known if covered else new).append(failing)

    stale: list[StaleEntry] = []
    unexercised: list[CheckBaselineEntry] = []
    for entry in entries:
        judged, passing = _judge(entry, document.results)
        if passing:
            stale.append(StaleEntry(entry, tuple(passing)))
        elif not judged:
            unexercised.append(entry)
    differs = sum(run.verdict == "differs" for run in document.results)
    return GateOutcome(tuple(new), tuple(stale), tuple(known), tuple(unexercised), document.filtered, differs)


def _judged_now(run: ScenarioResult) -> ScenarioResult:
    """A stored run with its failures judged under today's profiles and design differences: a failure that no
    longer gates for its implementation is `differs`, never a regression, whatever the file recorded."""
    if run.verdict == "n/a":
        return run
    checks = tuple(replace(c, verdict="fail") if c.verdict in ("xfail", "differs") else c for c in run.checks
                   if c.id != _STALE_MARKER)
    judged = apply_profiles(replace(run, verdict=overall(list(checks)), checks=checks))
    # A check the run reported as a known failure stays one where it still gates: the listing says what the run said.
    restored = tuple(replace(now, verdict="xfail") if now.verdict == "fail" and before.verdict == "xfail" else now
                     for now, before in zip(judged.checks, (c for c in run.checks if c.id != _STALE_MARKER),
                                            strict=True))
    return replace(judged, checks=restored)


def _failing_checks(results: Iterable[ScenarioResult]) -> list[FailingCheck]:
    """One entry per (run, check id): a check failing on several turns is one failing check."""
    found: dict[tuple[str, str, str, str, str, str], FailingCheck] = {}
    for run in results:
        if run.verdict == "differs":  # fails only what its implementation does not claim: never fails the gate
            continue
        failing = [c for c in run.checks if c.verdict in FAILING and c.id != _STALE_MARKER]
        for check in failing:
            key = (run.scenario, check.id, run.implementation, run.version, run.mode, run.provider)
            found.setdefault(key, FailingCheck(run.scenario, check.id, run.implementation, run.version, run.mode,
                                               check.verdict, check.message, run.provider))
        stale_only = any(c.id == _STALE_MARKER for c in run.checks)
        if run.verdict in ("fail", "error") and not failing and not stale_only:
            key = (run.scenario, SCENARIO_CHECK, run.implementation, run.version, run.mode, run.provider)
            found.setdefault(key, FailingCheck(run.scenario, SCENARIO_CHECK, run.implementation, run.version,
                                               run.mode, run.verdict, run.reason, run.provider))
    return sorted(found.values(), key=lambda f: (f.scenario, f.implementation, release_key(f.version),
                                                 provider_key(f.provider), f.mode, f.check))


def _judge(entry: CheckBaselineEntry, results: Iterable[ScenarioResult]) -> tuple[bool, list[str]]:
    """Whether any covered run exercised the entry's check, and where that check passed.

    The covered runs of one release and mode are judged together: for an entry naming one provider that is a
    single run, and for an entry of every provider the check passes there only when it fails over no provider.
    """
    failing_in: dict[str, bool] = {}  # "version mode" (and provider) -> the check fails in some run of it
    for run in results:
        # n/a and error runs never reached the check, so they can neither confirm nor refute the entry.
        if run.verdict in ("n/a", "error") or not entry.covers(run.scenario, run.implementation, run.mode,
                                                               run.version, run.provider):
            continue
        instances = [c for c in run.checks if c.id == entry.check]
        if not instances:
            continue
        over = [run.provider] if entry.provider not in (None, NEUTRAL_PROVIDER) else []
        where = " ".join([run.version, run.mode, *over]).strip()
        # A check that fails without gating (`differs`) still shows the entry's defect: it is not fixed.
        failing = any(c.verdict in FAILING or c.verdict == "differs" for c in instances)
        # A defect that shows on some runs only counts as showing wherever its check was judged.
        failing_in[where] = failing_in.get(where, False) or failing or entry.intermittent
    return bool(failing_in), [where for where, failing in failing_in.items() if not failing]


def _range_text(first: str | None, fixed: str | None) -> str:
    if first and fixed:
        return f" ({first} ≤ version < {fixed})"
    if first:
        return f" (version ≥ {first})"
    if fixed:
        return f" (version < {fixed})"
    return ""
