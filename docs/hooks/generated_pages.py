"""mkdocs hook: the reference pages' generated parts, made from the code on every build.

A page asks for generated text with a marker line, `<!-- generated: NAME -->`, which this hook replaces with the
text of generator NAME (an unknown name fails the build). The findings pages, whose number follows the
implementations the baselines name, are added as generated files. Nothing generated is written into docs/.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the generators beside this file

from checks_page import capabilities_reference, checks_reference  # noqa: E402
from cli_page import cli_reference  # noqa: E402
from findings_pages import FOLDER, findings_pages, load, page_names  # noqa: E402
from output_page import exit_codes_reference, output_reference  # noqa: E402
from schema_page import baseline_formats_reference, schema_reference  # noqa: E402

GENERATORS: dict[str, Callable[[], str]] = {
    "cli": cli_reference,
    "schema": schema_reference,
    "checks": checks_reference,
    "capabilities": capabilities_reference,
    "output": output_reference,
    "exit-codes": exit_codes_reference,
    "baseline-formats": baseline_formats_reference,
}
FINDINGS_INDEX = f"{FOLDER}/index.md"
MARKER = re.compile(r"^<!-- generated: (?P<name>[a-z-]+) -->$", re.MULTILINE)


@cache
def generated(name: str) -> str:
    """One generator's text, made once per build process."""
    return GENERATORS[name]()


def expand(markdown: str, where: str) -> str:
    """`markdown` with every marker replaced by its generator's text."""
    def replace(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in GENERATORS:
            raise ValueError(f"{where}: unknown generated section {name!r}; known: {', '.join(sorted(GENERATORS))}")
        return generated(name)
    return MARKER.sub(replace, markdown)


def installed_implementations() -> list[str]:
    from harness.run.registry import implementation_names

    return implementation_names()


def _findings_section(entry: Any, names: list[str]) -> Any:
    """`entry` of the nav with the findings index turned into a section holding every implementation's page."""
    if entry == FINDINGS_INDEX:
        return [FINDINGS_INDEX, *({name: f"{FOLDER}/{name}.md"} for name in names)]
    if isinstance(entry, list):
        return [_findings_section(item, names) for item in entry]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(entry, dict):
        return {key: _findings_section(value, names) for key, value in entry.items()}  # pyright: ignore
    return entry


def on_config(config: Any) -> Any:
    """List every implementation's findings page in the navigation, under the findings index."""
    root = Path(config.config_file_path).resolve().parent
    if config.nav:
        names = page_names(load(root), installed_implementations())
        config.nav = _findings_section(config.nav, names)
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    root = Path(config.config_file_path).resolve().parent
    for path, text in findings_pages(root, installed_implementations()).items():
        if files.get_file_from_path(path) is None:  # a hand-written page of that name wins
            files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return expand(markdown, page.file.src_uri)
