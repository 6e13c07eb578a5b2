"""Known-failure entries for the current failures, as YAML to edit rather than write from scratch.

Each failing run becomes part of one entry: runs of one scenario, implementation and release failing the same checks
share it, their modes and providers listed. The providers are left out when the entry holds for every provider the
implementation ran over (what a loop's own defect looks like). The reason and the reproduction are placeholders
that load (`load_baseline` accepts the stub as it is) but say TODO: a baseline entry is a claim about a defect, and
only its author can make it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from harness.contract import MODES
from harness.results import ScenarioResult

STALE_MARKER = "baseline"  # the check apply_baseline adds to a run whose known failure now passes
REASON = ("TODO: name the spec row or sentence this breaks, what the implementation does instead, and the first "
          "fixed release once there is one. Seen: ")

_Key = tuple[str, str, str, tuple[str, ...]]  # scenario, implementation, version, failing checks


def render_stub(results: Sequence[ScenarioResult]) -> str:
    """The YAML of a baseline holding one entry per defect the failing `results` show."""
    providers_run: dict[tuple[str, str], list[str]] = {}
    for result in results:
        seen = providers_run.setdefault((result.scenario, result.implementation), [])
        if result.provider not in seen:
            seen.append(result.provider)
    modes_of: dict[tuple[_Key, str], list[str]] = {}
    messages: dict[_Key, str] = {}
    errors = stale = 0
    for result in results:
        failing = tuple(c.id for c in result.checks if c.verdict == "fail" and c.id != STALE_MARKER)
        errors += result.verdict == "error"
        if result.verdict != "fail" or not failing:
            stale += result.verdict == "fail"
            continue
        key: _Key = (result.scenario, result.implementation, result.version, failing)
        messages.setdefault(key, next(c.message for c in result.checks if c.id == failing[0]))
        modes_of.setdefault((key, result.provider), []).append(result.mode)
    # Providers share an entry when they fail in the same modes: the entry then holds for exactly these runs.
    entries: dict[tuple[_Key, tuple[str, ...]], list[str]] = {}
    for (key, provider), modes in modes_of.items():
        entries.setdefault((key, tuple(m for m in MODES if m in modes)), []).append(provider)
    lines = ["# Known failures for the failing runs of these results: edit every TODO before committing.",
             "# versions_until (the first fixed release, exclusive) belongs in an entry once a fix is released."]
    if errors:
        lines.append(f"# {errors} erroring run(s) are left out: an error is the harness or the loop crashing, and "
                     "is fixed, never excused.")
    if stale:
        lines.append(f"# {stale} run(s) fail only because a known failure now passes: remove or narrow that entry.")
    lines.append("known_failures:" if entries else "known_failures: []")
    for ((scenario, implementation, version, checks), modes), providers in entries.items():
        key = (scenario, implementation, version, checks)
        everywhere = sorted(providers) == sorted(providers_run[(scenario, implementation)])
        lines += ["", f"  - scenario: {scenario}", f"    implementation: {implementation}",
                  f"    checks: [{', '.join(checks)}]", f"    modes: [{', '.join(modes)}]"]
        lines += [] if everywhere else [f"    providers: [{', '.join(providers)}]"]
        lines += [f"    versions_from: {json.dumps(version)}"] if version else []
        seen = " ".join(messages[key].split())[:300]
        lines += [f"    reason: {json.dumps(REASON + seen, ensure_ascii=False)}",
                  f"    reproduction: repro/{implementation}/TODO_{scenario.replace('.', '_').replace('-', '_')}.py"]
    return "\n".join(lines) + "\n"
