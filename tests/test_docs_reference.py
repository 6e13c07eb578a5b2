"""The docs site: its reference pages are generated from the code and cover all of it, its examples are valid, and
the whole site builds with `mkdocs build --strict`.

The generators live beside the mkdocs hook in docs/hooks/ and are imported from there, as mkdocs imports them.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml
from requirements_helper import require

from harness.contract import Capability
from harness.errors import ScenarioFileError
from harness.reporting.baseline import Baseline
from harness.reporting.gate import GateBaseline
from harness.requirements import REQUIREMENTS
from harness.run.registry import implementation_names
from harness.scenario.loader import load_scenario_text

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
HOOKS = DOCS / "hooks"


@pytest.fixture(scope="module")
def hooks() -> Iterator[Any]:
    """The hook module with its generators importable, as mkdocs loads it."""
    sys.path.insert(0, str(HOOKS))
    try:
        import generated_pages  # type: ignore[import-not-found]  # docs/hooks/, not a package

        yield generated_pages
    finally:
        sys.path.remove(str(HOOKS))


def test_every_cli_subcommand_and_option_is_on_the_cli_page(hooks: Any) -> None:
    import cli_page  # type: ignore[import-not-found]

    page: str = hooks.generated("cli")
    parser = cli_page.build_parser()
    commands = list(cli_page.subcommands(parser))
    assert {name for name, _, _ in commands} >= {"run", "gate", "diff", "report", "schema", "list"}
    for name, _, sub in commands:
        assert f"## `loop-conformance {name}`" in page, name
        for action in sub._actions:
            if action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction):
                for option in action.option_strings:
                    assert f"`{option}`" in page, f"{name} {option}"


def test_every_schema_object_and_top_level_key_is_on_the_schema_page(hooks: Any) -> None:
    import schema_page  # type: ignore[import-not-found]

    page: str = hooks.generated("schema")
    document = schema_page.schema()
    for definition in document["$defs"]:
        assert f"### {definition}\n" in page, definition
    for key in document["properties"]:
        assert f"| `{key}` |" in page, key


def test_every_check_is_on_the_checks_page_with_its_source(hooks: Any) -> None:
    page: str = hooks.generated("checks")
    for check, requirement in REQUIREMENTS.items():
        row = next(line for line in page.splitlines() if line.startswith(f"| `{check}` |"))
        assert requirement.source.split(",")[0] in row, check


def test_every_capability_is_on_the_capabilities_page(hooks: Any) -> None:
    import checks_page  # type: ignore[import-not-found]

    assert [name for name, _ in checks_page.capabilities()] == list(get_args(Capability))
    page: str = hooks.generated("capabilities")
    for capability in get_args(Capability):
        assert f"| `{capability}` |" in page


def test_every_exit_code_is_on_the_exit_codes_page(hooks: Any) -> None:
    page: str = hooks.generated("exit-codes")
    if importlib.util.find_spec("harness.exit_codes") is None:  # before the exit-code table exists
        assert "| 0 |" in page
        assert "| 2 |" in page
        return
    from harness import exit_codes  # type: ignore[attr-defined]

    for doc in exit_codes.EXIT_CODES:  # type: ignore[attr-defined]
        assert f"| {int(doc.code)} |" in page


def test_the_output_page_shows_a_real_failing_run(hooks: Any) -> None:
    page: str = hooks.generated("output")
    assert "FAIL mine.weather [reference, non-streaming]" in page
    assert '"scenario": "mine.weather"' in page  # the --json results file
    assert 'name="mine.weather[reference-non-streaming]"' in page  # its JUnit testcase


def test_every_baseline_format_is_documented(hooks: Any) -> None:
    page: str = hooks.generated("baseline-formats")
    for key in ("known_failures", "check_failures", "allowances"):
        assert f"## `{key}:` entries" in page
    for field in ("scenario", "checks", "versions_from", "versions_until", "reason", "reproduction", "when"):
        assert f"| `{field}` |" in page, field


def test_each_implementation_gets_a_findings_page_with_every_scenario_of_its_entries() -> None:
    sys.path.insert(0, str(HOOKS))
    try:
        import findings_pages  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(HOOKS))
    pages: dict[str, str] = findings_pages.findings_pages(ROOT, implementation_names())
    known = yaml.safe_load((ROOT / "baselines" / "known-failures.yaml").read_text(encoding="utf-8"))["known_failures"]
    for entry in known:
        names = [entry["implementation"]] if isinstance(entry["implementation"], str) else entry["implementation"]
        for name in names:
            page = pages[f"reference/findings/{name}.md"]
            assert f"`{entry['scenario']}`" in page
            assert f"`{entry['reproduction']}`" in page
    assert set(implementation_names()) <= {Path(path).stem for path in pages}


def test_every_generated_marker_names_a_generator(hooks: Any) -> None:
    for page in DOCS.rglob("*.md"):
        for name in re.findall(r"^<!-- generated: ([a-z-]+) -->$", page.read_text(encoding="utf-8"), re.MULTILINE):
            assert name in hooks.GENERATORS, f"{page.relative_to(ROOT)} asks for unknown generator {name!r}"
    with pytest.raises(ValueError, match="unknown generated section 'nope'"):
        hooks.expand("<!-- generated: nope -->", "page.md")


def _yaml_blocks() -> Iterator[tuple[str, str]]:
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for number, block in enumerate(re.findall(r"^```yaml[^\n]*\n(.*?)^```", text, re.MULTILINE | re.DOTALL)):
            yield f"{page.relative_to(DOCS)}#{number}", block


@pytest.mark.parametrize(("where", "block"), list(_yaml_blocks()), ids=lambda value: str(value)[:60])
def test_the_docs_yaml_examples_are_valid(where: str, block: str) -> None:
    """Baseline examples load through the baseline and gate models, complete scenarios through the loader."""
    data = yaml.safe_load(block)
    if isinstance(data, dict) and ("known_failures" in data or "check_failures" in data):
        Baseline.model_validate({key: value for key, value in data.items() if key == "known_failures"})
        GateBaseline.model_validate(data)
    elif isinstance(data, dict) and {"id", "title", "spec", "turns"} <= data.keys():
        if "on purpose" in block:  # a mistake a tutorial makes to show the loader's error
            with pytest.raises(ScenarioFileError):
                load_scenario_text(Path(f"{where}.yaml"), block)
        else:
            load_scenario_text(Path(f"{where}.yaml"), block)
    elif isinstance(data, dict) and "design_differences" in data and importlib.util.find_spec(
            "harness.reporting.design") is not None:
        from harness.reporting import design  # type: ignore[attr-defined]  # the design-entry format, when present

        for entry in data["design_differences"]:
            design.DesignDifference.model_validate(entry)  # type: ignore[attr-defined]
    else:  # workflows, fragments of a scenario: at least well-formed YAML
        assert data is not None, where


def test_the_site_builds_strict(tmp_path: Path) -> None:
    require(importlib.util.find_spec("mkdocs") is not None and importlib.util.find_spec("material") is not None,
            "mkdocs-material is not installed: pip install -e '.[docs]'")
    site = tmp_path / "site"
    finished = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                              cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert finished.returncode == 0, finished.stderr[-4000:]
    for page in ("reference/cli", "reference/scenario-schema", "reference/checks", "reference/exit-codes",
                 "reference/output", "reference/findings/agent_framework", "tutorials/first-scenario"):
        assert (site / page / "index.html").exists(), page
    assert "loop-conformance gate" in (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")


def test_the_readme_links_to_files_that_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [target for target in targets if "://" not in target]
    assert local, "the README links to no docs page"
    for target in local:
        assert (ROOT / target).exists(), target
