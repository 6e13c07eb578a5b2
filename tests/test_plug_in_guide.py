"""The adapter guide's code blocks are the worked example's own code: each block marked ``# from <file>`` must
appear verbatim in that file, so the guide and examples/toy_loop/ cannot drift apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "how-to" / "plug-in-a-loop.md"
_BLOCK = re.compile(r"```python\n# from (?P<file>\S+)\n(?P<code>.*?)```", re.DOTALL)


def _blocks() -> list[tuple[str, str]]:
    return [(m.group("file"), m.group("code")) for m in _BLOCK.finditer(GUIDE.read_text(encoding="utf-8"))]


def test_the_guide_shows_the_example() -> None:
    files = {file for file, _ in _blocks()}
    assert files == {"examples/toy_loop/toy_loop/conformance.py", "examples/toy_loop/toy_loop/loop.py"}


@pytest.mark.parametrize(("file", "code"), _blocks(), ids=lambda value: str(value).splitlines()[0][:40])
def test_each_block_is_in_its_file(file: str, code: str) -> None:
    assert code in (ROOT / file).read_text(encoding="utf-8"), f"the guide's block is not in {file} as written"


def test_the_guide_covers_every_declaration_the_contract_reads() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    contract = (ROOT / "harness" / "contract.py").read_text(encoding="utf-8")
    readers = set(re.findall(r"^def (adapter_\w+)\(", contract, re.MULTILINE))
    assert readers - {"adapter_provider_package"} <= set(re.findall(r"`(adapter_\w+)`", text))
