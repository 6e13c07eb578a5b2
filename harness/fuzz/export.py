"""A shrunk counterexample as a readable scenario file that reproduces it with `loop-conformance run --scenarios`.

The file gets an id, a title and the spec rows that its failing checks enforce. Invariant failures reproduce as they
are; a disagreement with the reference loop is turned into expectations (the executions the reference made), and a
hosted decision that does not reach the model into a `requests` expectation on the turn's first model call, so the
file fails on its own, without the fuzzer.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any, cast

from harness.fuzz.differences import service_issued
from harness.fuzz.hosted import HOSTED_PASSTHROUGH
from harness.fuzz.oracle import DIFFERENTIAL, Finding, Observed
from harness.fuzz.yaml_form import scenario_yaml
from harness.scenario.schema import ScenarioSpec

# The matrix rows each check enforces, named as the spec's Scenario column names them.
CHECK_ROWS: dict[str, tuple[str, ...]] = {
    "exactly-once": ("Duplicate function-call prevention",),
    "no-orphans": ("Result matching without placeholders",),
    "inputs-unmutated": ("Approved non-streaming resume",),
    "stream-agreement": ("Streaming call",),
    "parallel-order": ("Parallel calls",),
    "reasoning-bound": ("Reasoning-bound call",),
    "bounded": ("Maximum iterations", "Maximum function calls", "Consecutive error cap"),
    "rejected-never-runs": ("Rejected execution",),
    "approved-once": ("Approved success",),
    "rejection-call-id": ("Rejection call id",),
    "approval-inert": ("Replayed approval wrapper",),
    "no-approval-wrappers-to-model": ("Historical resolved response plus new round",),
    "completes": ("Multiple sequential rounds",),
    "script": ("Multiple sequential rounds",),
    DIFFERENTIAL: ("Multiple sequential rounds",),
    HOSTED_PASSTHROUGH: ("Hosted approval pass-through",),
}


def counterexample(spec: ScenarioSpec, finding: Finding, reference: Observed | None = None) -> ScenarioSpec:
    """`spec` with the identity and rows of `finding`, and, for a disagreement, the reference's executions as
    expectations."""
    rows = list(dict.fromkeys(row for check in finding.checks for row in CHECK_ROWS.get(check, ())))
    # The mode is part of the identity: one conversation failing the same checks in both modes is two findings,
    # and a file named by the conversation alone would be overwritten by the second.
    digest = hashlib.sha256(f"{finding.mode}\n{scenario_yaml(spec)}".encode()).hexdigest()[:8]
    impl = finding.implementation.replace("_", "-").lower()
    data: dict[str, Any] = spec.model_dump(mode="json", by_alias=True, exclude_unset=True)
    data |= {
        "id": f"fuzz.{impl}.{'-'.join(finding.checks)}.{digest}",
        "title": f"Fuzzer counterexample: {finding.implementation} fails {', '.join(finding.checks)} "
                 f"({finding.mode})",
        "spec": rows or ["Multiple sequential rounds"],
        "description": f"Found and shrunk by loop-conformance fuzz: {finding.message}",
    }
    if HOSTED_PASSTHROUGH in finding.checks:
        # The caller's hosted decisions must reach the first model call of the turn that sends them.
        for turn in data["turns"]:
            items: list[Any] = turn["input"] if isinstance(turn["input"], list) else []
            contents: list[dict[str, Any]] = [c for item in items if isinstance(item, dict) and "message" in item
                                              for c in cast(dict[str, Any], item)["message"]["contents"]]
            decisions = [{"approval_response": _decision_expectation(c["approval_response"])}
                         for c in contents if _hosted_decision(c)]
            if decisions:
                # The caller sends them in one user message; the model must receive them there.
                wanted = {"role": "user", "contents": {"$all": [{"$contains": d} for d in decisions]}}
                turn.setdefault("expect", {})["requests"] = [{"call": 1, "messages": {"$contains": wanted}}]
    if {DIFFERENTIAL, HOSTED_PASSTHROUGH} & set(finding.checks) and reference is not None:
        per_turn: list[dict[str, list[dict[str, Any]]]] = [{} for _ in data["turns"]]
        for execution in reference.executions:
            per_turn[execution.turn].setdefault(execution.tool, []).append(dict(execution.arguments))
        scripted = scripted_texts_of(spec)
        responses = [_expected_response(t["response"], scripted) for t in reference.result.transcript]
        for turn, executions, response in zip(data["turns"], per_turn, responses, strict=False):
            turn["expect"] = turn.get("expect", {}) | {"executions": executions, "response": response}
    for turn in data["turns"]:
        if turn.get("expect") and "cites" not in turn["expect"]:
            # What the reference does on the scenario's rows is what the exported expectations assert.
            turn["expect"]["cites"] = list(data.get("spec") or []) or ["Multiple sequential rounds"]
    return ScenarioSpec.model_validate(data)


def _hosted_decision(content: dict[str, Any]) -> bool:
    response: dict[str, Any] | None = content.get("approval_response")
    call: dict[str, Any] = (response or {}).get("function_call") or {}
    return call.get("server_label") is not None


def _decision_expectation(response: dict[str, Any]) -> dict[str, Any]:
    """A hosted decision as the model must receive it: the caller's fields, and the call id the loop shows."""
    return {"call_id": response["function_call"]["call_id"]} | {k: v for k, v in response.items() if k != "standing"}


def scripted_texts_of(spec: ScenarioSpec) -> set[str]:
    texts = {str(c.text) for t in spec.turns for s in t.model
             for c in (s.contents or [c for m in s.messages or [] for c in m.contents]) if c.text is not None}
    return texts | {json.dumps(b.return_) for tool in spec.tools for b in tool.behaviour or []}


def _expected_response(messages: list[dict[str, Any]], scripted: set[str]) -> list[dict[str, Any]]:
    """The reference's caller-visible messages as an expectation: the loop's own wording and generated ids free."""
    expected: list[dict[str, Any]] = []
    for message in messages:
        contents: list[dict[str, Any]] = []
        for content in message["contents"]:
            kind, body = next(iter(content.items()))
            if kind == "function_result" and json.dumps(body.get("result")) not in scripted:
                body = body | {"result": {"$any": True}}
            elif kind == "text" and body not in scripted:
                body = {"$any": True}
            elif kind in ("approval_request", "user_input_request") and not service_issued(body):
                body = {k: v for k, v in body.items() if k != "id"}  # generated by the loop (a hosted one's is not)
            contents.append({kind: body})
        expected.append({"role": message["role"], "contents": contents})
    return expected


def write_counterexample(spec: ScenarioSpec, finding: Finding, out: Path) -> Path:
    """Write the scenario file into `out`; the comment says how to replay it."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{spec.id.removeprefix('fuzz.')}.yaml"
    comment = (f"Found by: loop-conformance fuzz --impl {finding.implementation}\n"
               f"Reproduce: loop-conformance run --impl {finding.implementation} --mode {finding.mode} "
               f"--scenarios {path}\n"
               f"Failing checks: {', '.join(finding.checks)}\n{finding.message}")
    path.write_text(scenario_yaml(spec, comment), encoding="utf-8")
    return path


def summary(findings: list[Finding]) -> str:
    counts = Counter(check for f in findings for check in f.checks)
    return json.dumps(dict(sorted(counts.items())))
