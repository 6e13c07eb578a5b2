"""Output samples from a real run, and the exit-code table from the module that defines it.

The samples come from running the `loop-conformance` command of this checkout on a small scenario whose expectation
is deliberately wrong (the one the first-scenario tutorial writes), over the reference loop, in a temporary folder:
the console text, the `--json` results file and the JUnit report are what a user gets, not hand-copied examples.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown_text import cell, code, fenced, table

SAMPLE_SCENARIO = """\
id: mine.weather
title: One call, its result, then the answer
spec: [Single non-streaming call]
description: >
  My first scenario: the loop must run get_weather once and hand its result back.
tools:
  - name: get_weather
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    returns: sunny
turns:
  - input: What is the weather in Paris?
    model:
      - contents:
          - function_call: {call_id: c1, name: get_weather, arguments: {city: Paris}}
      - contents:
          - text: It is sunny in Paris.
    expect:
      cites: [Single non-streaming call]
      executions: {get_weather: [{city: Paris}]}
      model_calls: 2
      response:
        - role: assistant
          contents: [{function_call: {call_id: c1, name: get_weather, arguments: {city: Paris}}}]
        - role: tool
          contents: [{function_result: {call_id: c1, result: rainy}}]   # wrong on purpose: the tool says sunny
        - role: assistant
          contents: [{text: It is sunny in Paris.}]
"""
SAMPLE_COMMAND = ["run", "--impl", "reference", "--mode", "non-streaming", "--scenarios", "my-scenarios",
                  "--json", "results.json", "--reports", "reports", "-j", "1"]


@dataclass(frozen=True)
class SampleRun:
    command: str
    status: int
    console: str
    results: dict[str, Any]
    junit: str


def _plain_env() -> dict[str, str]:
    """The build's environment without what makes a run write elsewhere or decorate its output: a docs build on
    GitHub Actions must not append the sample's reports to the job summary or print annotations."""
    dropped = ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "FORCE_COLOR")
    return {key: value for key, value in os.environ.items() if key not in dropped} | {"NO_COLOR": "1"}


def sample_run() -> SampleRun:
    """Run the sample scenario through the real command line in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="lc-docs-") as folder:
        where = Path(folder)
        (where / "my-scenarios").mkdir()
        (where / "my-scenarios" / "weather.yaml").write_text(SAMPLE_SCENARIO, encoding="utf-8")
        finished = subprocess.run([sys.executable, "-m", "harness.cli", *SAMPLE_COMMAND], cwd=where, env=_plain_env(),
                                  capture_output=True, text=True, timeout=300, check=False)
        if not (where / "results.json").exists():
            raise RuntimeError(f"the sample run wrote no results (exit {finished.returncode}): {finished.stderr}")
        results = json.loads((where / "results.json").read_text(encoding="utf-8"))
        junit = (where / "reports" / "junit.xml").read_text(encoding="utf-8")
    console = "\n".join(line for line in finished.stdout.splitlines() if not line.startswith("progress:"))
    return SampleRun("loop-conformance " + " ".join(SAMPLE_COMMAND), finished.returncode, console, results, junit)


def _junit_runs_only(junit: str) -> str:
    """The testsuites of the runs, without the coverage suite (a property per spec row: hundreds of lines)."""
    root = ET.fromstring(junit)
    for suite in list(root):
        if suite.get("name") == "coverage":
            root.remove(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode")


_JSON_TYPES: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array",
                                dict: "object", type(None): "null"}


def _fields(results: dict[str, Any]) -> str:
    run = results["results"][0]
    check = next((c for c in run.get("checks", []) if c.get("verdict") == "fail"), {})
    rows = [[code(key), _JSON_TYPES.get(type(value), "any")] for key, value in run.items() if key != "checks"]
    rows.append([code("checks"), "list of check objects: " + ", ".join(code(key) for key in check)])
    return table(["field of each result", "JSON type in this sample"], rows)


def output_reference() -> str:
    run = sample_run()
    scenario = fenced(SAMPLE_SCENARIO, "yaml")
    return "\n".join([
        "The sample scenario (`my-scenarios/weather.yaml`):\n", scenario,
        f"The command, run from the folder holding it:\n\n{fenced(run.command, 'console')}",
        f"### Console output (exit status {run.status})\n", fenced(run.console),
        "### `--json` results file\n",
        f"Top-level keys: {', '.join(code(key) for key in run.results)}. One entry per scenario × implementation × "
        "mode × provider in `results`:\n", _fields(run.results),
        fenced(json.dumps(run.results, indent=2), "json"),
        "### JUnit (`reports/junit.xml`)\n",
        "One testsuite per implementation × mode (× version, × provider), one testcase per run; a last testsuite "
        "named `coverage` (left out here) carries the gap analysis as properties.\n",
        fenced(_junit_runs_only(run.junit), "xml"),
    ])


def exit_codes_reference() -> str:
    """The exit-code table of `harness.exit_codes`, or, before that module exists, what `run --help` states."""
    try:
        module: Any = importlib.import_module("harness.exit_codes")
    except ImportError:
        module = None
    rows_source = getattr(module, "EXIT_CODES", None)
    if rows_source:  # built here rather than taken as Markdown, so a `|` in a description cannot split a cell
        return table(["code", "name", "meaning", "for example"],
                     ([str(int(doc.code)), code(getattr(doc.code, "name", "")), cell(doc.meaning),
                       cell(getattr(doc, "examples", ""))] for doc in rows_source))
    render = getattr(module, "exit_code_markdown", None)
    if callable(render):
        return str(render())
    return ("!!! note\n    This build's harness has no `harness/exit_codes.py`; the table below is what "
            "`loop-conformance run --help` states.\n\n"
            + table(["code", "meaning"], [["0", "every run passed, or is a known failure or n/a"],
                                           ["1", "a run failed or errored; the gate failed"],
                                           ["2", "usage error: an unknown implementation, an unreadable baseline, "
                                                 "spec or results file"]]))
