"""The package layout's import rules (docs/development.md, "Layout"): a module that imports across a boundary fails
here."""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import pkgutil
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The value model everything shares: the neutral contents, the contract, the script and its records, transcripts,
# results and the requirement each check enforces, errors, the default limits, the tool-parameter and tool-signature
# rules, where the bundled suite lives, the spec's rows and sentences an assertion cites, and the capture of a
# framework's log records that adapters share.
VALUE_MODEL = frozenset({
    "harness.citations", "harness.scenario.spec_rows", "harness.log_capture",
    "harness.contents", "harness.contract", "harness.script", "harness.records", "harness.transcript",
    "harness.results", "harness.requirements", "harness.errors", "harness.limits", "harness.bundled",
    "harness.parameters", "harness.signatures", "harness.transport", "harness.transport.agui",
    "harness.identity", "harness.content_check",
})
# Bounded, located reading of the harness's own data files (results, baselines): reporting's one way in, built on
# the scenario format's bounded YAML reader.
DATA_FILES = "harness.data_files"
DATA_FILES_READ_WITH = ("harness.scenario.yaml_source", "harness.scenario.source_text")
# An adapter that serves another adapter's loop over a transport reuses that adapter's framework glue (client,
# tools, approvals) instead of copying it.
BUILDS_ON = {"harness.adapters.agent_framework_ag_ui": "harness.adapters.agent_framework"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for package in ("harness", "fakes") for p in (ROOT / package).rglob("*.py")}


def _imports(path: Path) -> Iterator[str]:
    """Every harness or fakes module `path` imports, wherever the import statement sits (functions and
    `TYPE_CHECKING` blocks included)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        yield from (name for name in names if name.split(".")[0] in ("harness", "fakes"))


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: {i for i in _imports(path) if i in modules} for name, path in modules.items()}


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _violations(allowed: dict[str, tuple[str, ...]], forbidden: dict[str, tuple[str, ...]]) -> list[str]:
    problems: list[str] = []
    for module, imported in sorted(_graph().items()):
        for package, deny in forbidden.items():
            if _inside(module, package):
                problems += [f"{module} imports {i}" for i in sorted(imported) if any(_inside(i, d) for d in deny)]
        for package, allow in allowed.items():
            if _inside(module, package):
                problems += [f"{module} imports {i}" for i in sorted(imported)
                             if not any(_inside(i, a) for a in allow)]
    return problems


def test_the_value_model_imports_nothing_else_of_the_harness() -> None:
    problems = [f"{module} imports {i}" for module, imported in sorted(_graph().items()) if module in VALUE_MODEL
                for i in sorted(imported) if i not in VALUE_MODEL]
    assert problems == []


def test_the_scenario_format_knows_nothing_of_running() -> None:
    assert _violations({"harness.scenario": (*VALUE_MODEL, "harness.scenario")}, {}) == []


def test_checks_never_import_an_adapter_a_runner_or_the_fakes() -> None:
    assert _violations({"harness.checks": (*VALUE_MODEL, "harness.scenario", "harness.checks")}, {}) == []


def test_only_the_registry_reaches_implementations() -> None:
    problems = _violations({}, {"harness": ("harness.adapters",)})
    assert [p for p in problems if not p.startswith("harness.adapters")] == []


def test_adapters_reach_the_harness_only_through_the_value_model() -> None:
    problems: list[str] = []
    for module, imported in sorted(_graph().items()):
        if _inside(module, "harness.adapters"):
            own = ".".join(module.split(".")[:3])
            base = BUILDS_ON.get(own)
            problems += [f"{module} imports {i}" for i in sorted(imported)
                         if i not in VALUE_MODEL and not _inside(i, own) and not (base and _inside(i, base))]
    assert problems == []


def test_fakes_know_no_implementation_and_no_engine() -> None:
    assert _violations({"fakes": (*VALUE_MODEL, "fakes")}, {}) == []


def test_reporting_reads_results_not_implementations() -> None:
    # The scenario format answers two questions of reports: the spec's rows, and where an expectation sits in a file;
    # files are read through the bounded readers.
    allowed = (*VALUE_MODEL, "harness.reporting", "harness.scenario.spec_rows", "harness.scenario.positions",
               DATA_FILES)
    assert _violations({"harness.reporting": allowed}, {}) == []


def test_data_files_are_read_with_the_scenario_yaml_reader_only() -> None:
    assert _violations({DATA_FILES: (*VALUE_MODEL, *DATA_FILES_READ_WITH)}, {}) == []


@pytest.mark.parametrize("package", ["harness", "fakes"])
def test_whole_modules_have_public_names(package: str) -> None:
    private = sorted(_module_name(p) for p in (ROOT / package).rglob("_*.py") if p.name != "__init__.py")
    assert private == []


def test_every_package_says_what_it_holds_and_may_import() -> None:
    undocumented = sorted(_module_name(p) for p in (ROOT / "harness").rglob("__init__.py")
                          if ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) is None)
    assert undocumented == []


def test_the_rules_catch_a_wrong_import(tmp_path: Path) -> None:
    """The walk sees imports inside functions and TYPE_CHECKING blocks, where a quiet violation would hide."""
    module = tmp_path / "m.py"
    module.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from fakes.tools import X\n"
                      "def f():\n    import harness.adapters.reference\n", encoding="utf-8")
    assert sorted(_imports(module)) == ["fakes.tools", "fakes.tools.X", "harness.adapters.reference"]


def test_adapter_entry_points_survive_any_import_order() -> None:
    """A submodule named like its package's entry-point attribute would replace the factory once imported."""
    for entry in importlib.metadata.entry_points(group="loop_conformance.adapters"):
        package_name, attribute = entry.value.split(":")
        if not package_name.startswith("harness."):
            continue
        package = importlib.import_module(package_name)
        submodules = {info.name for info in pkgutil.iter_modules(getattr(package, "__path__", []))}
        assert attribute not in submodules, f"{package_name}.{attribute} is both a module and the entry point"
